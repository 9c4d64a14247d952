"""The MTRE-PAN target network: a small sigmoid MLP trained epoch by epoch, best validation epoch kept."""

from __future__ import annotations

import copy
import numbers
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import MinMaxScaler
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from interpretopt._validation import as_generator, check_labels, check_X
from interpretopt.exceptions import InputError

__all__ = ["MTREPANNetwork"]


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


class MTREPANNetwork(ClassifierMixin, BaseEstimator):
    """Target network of the MTRE-PAN paper (Almerri et al., "Global translation of classification models").

    Architecture as the paper states: an input layer, two hidden layers each with as many units
    as there are input variables, one output unit, sigmoid activations everywhere; inputs
    scaled to [-1, 1]; trained for 100 epochs, keeping the weights of the epoch with the highest
    validation accuracy.

    The optimiser is not stated in the paper; this implementation uses scikit-learn's
    ``MLPClassifier`` with Adam (learning rate 0.001, mini-batches of 32), one ``partial_fit``
    pass per epoch. For more than two classes the output layer becomes a softmax over the classes.

    Parameters
    ----------
    max_epochs : int, default 100
    validation_fraction : float, default 0.3
        Fraction of the training rows held out (stratified) to pick the best epoch, unless
        ``fit`` receives ``X_val, y_val`` explicitly. The paper holds out 30% of the data.
    hidden_units : int or None, default None
        Units per hidden layer; ``None`` means the number of input features.
    learning_rate_init : float, default 0.001
    batch_size : int, default 32
    alpha : float, default 0.0
        L2 penalty (the paper uses none).
    random_state : int, Generator or None, default None

    Attributes
    ----------
    scaler_ : MinMaxScaler
        Scaling to [-1, 1], fitted on all rows given to ``fit`` (before the validation hold-out,
        as the paper normalises the data before splitting).
    mlp_ : MLPClassifier
        The network with the best epoch's weights.
    best_epoch_ : int
        1-based epoch kept.
    validation_scores_ : list of float
        Validation accuracy after each epoch.
    classes_ : ndarray
    """

    def __init__(self, *, max_epochs: int = 100, validation_fraction: float = 0.3, hidden_units: int | None = None,
                 learning_rate_init: float = 0.001, batch_size: int = 32, alpha: float = 0.0,
                 random_state: Any = None) -> None:
        self.max_epochs = max_epochs
        self.validation_fraction = validation_fraction
        self.hidden_units = hidden_units
        self.learning_rate_init = learning_rate_init
        self.batch_size = batch_size
        self.alpha = alpha
        self.random_state = random_state

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> MTREPANNetwork:
        """Train for ``max_epochs`` epochs and keep the weights with the best validation accuracy."""
        from interpretopt.data._split import train_test_indices

        X, y = validate_data(self, X, y, reset=True)
        check_classification_targets(y)
        if np.unique(y).size < 2:
            raise InputError(f"y has only one class {np.unique(y).tolist()}; two or more classes are required")
        if isinstance(self.max_epochs, bool) or not isinstance(self.max_epochs, numbers.Integral) \
                or self.max_epochs < 1:
            raise InputError(f"max_epochs must be an integer >= 1, got {self.max_epochs!r}")
        rng = as_generator(self.random_state)
        seed = int(rng.integers(2**31 - 1))
        if (X_val is None) != (y_val is None):
            raise InputError("pass both X_val and y_val, or neither")
        if X_val is None:
            if not 0.0 < float(self.validation_fraction) < 1.0:
                raise InputError(f"validation_fraction must be in (0, 1), got {self.validation_fraction!r}")
            counts = np.unique(y, return_counts=True)[1]
            strat = y if counts.min() >= 2 else None
            tr, va = train_test_indices(X.shape[0], float(self.validation_fraction), rng, stratify=strat)
            X_tr, y_tr, X_va, y_va = X[tr], y[tr], X[va], y[va]
        else:
            X_tr, y_tr = X, y
            X_va = check_X(X_val, name="X_val")
            y_va = check_labels(y_val, n_samples=X_va.shape[0], name="y_val", min_classes=1)
            if X_va.shape[0] == 0:
                raise InputError("X_val has no rows")
            if X_va.shape[1] != X.shape[1]:
                raise InputError(f"X_val has {X_va.shape[1]} columns, X has {X.shape[1]}")
        self.classes_ = np.unique(y)
        if np.unique(y_tr).size < 2:
            raise InputError("the training part has a single class; use more data or a smaller validation_fraction")
        self.scaler_ = MinMaxScaler(feature_range=(-1.0, 1.0)).fit(X)
        Z_tr, Z_va = self.scaler_.transform(X_tr), self.scaler_.transform(X_va)
        h = self.hidden_units if self.hidden_units is not None else X.shape[1]
        mlp = MLPClassifier(hidden_layer_sizes=(h, h), activation="logistic", solver="adam",
                            learning_rate_init=self.learning_rate_init, batch_size=min(int(self.batch_size), Z_tr.shape[0]),
                            alpha=self.alpha, shuffle=True, random_state=seed)
        best, best_score, scores = None, -np.inf, []
        for epoch in range(1, self.max_epochs + 1):
            mlp.partial_fit(Z_tr, y_tr, classes=self.classes_)
            score = float(np.mean(mlp.predict(Z_va) == y_va))
            scores.append(score)
            if score > best_score:
                best_score, self.best_epoch_ = score, epoch
                best = (copy.deepcopy(mlp.coefs_), copy.deepcopy(mlp.intercepts_))
        assert best is not None
        mlp.coefs_, mlp.intercepts_ = best
        self.mlp_ = mlp
        self.validation_scores_ = scores
        self.best_validation_score_ = best_score
        return self

    def _scaled(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return self.scaler_.transform(X)

    def last_hidden(self, X: Any) -> np.ndarray:
        """Activations of the last hidden layer, shape (n, hidden_units): the input of the output layer."""
        a = self._scaled(X)
        for W, b in zip(self.mlp_.coefs_[:-1], self.mlp_.intercepts_[:-1]):
            a = _sigmoid(a @ W + b)
        return a

    def decision_function(self, X: Any) -> np.ndarray:
        """Pre-sigmoid output (logit), shape (n,) for two classes; 0 is the decision boundary.

        For more than two classes, the pre-softmax outputs, shape (n, n_classes).
        """
        h = self.last_hidden(X)
        z = h @ self.mlp_.coefs_[-1] + self.mlp_.intercepts_[-1]
        return z.ravel() if z.shape[1] == 1 else z

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities (n, n_classes), columns in the order of ``classes_``."""
        Z = self._scaled(X)
        return self.mlp_.predict_proba(Z)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels (n,)."""
        Z = self._scaled(X)
        return self.mlp_.predict(Z)
