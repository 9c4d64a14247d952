"""A toy method written by the recipe of CONTRIBUTING.md ("Adding a method"): the estimator
(step 1) and its experiment task (step 3) in one module; tests/methods/test_methods.py registers
it (step 2, ``register_method(..., task="tests.toy_method")``), runs a config of it (step 4)
through the runner, and the shared tests over it (step 5)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from interpretopt._validation import (
    ContractMixin,
    Interval,
    check_fitted,
    encode_binary_target,
    validate_data,
)
from interpretopt.experiments.tasks import Param, estimator_params, task_params

__all__ = ["ToyStump", "run"]


# ----------------------------------------------------------------------------- step 1: the estimator
class ToyStump(ContractMixin, ClassifierMixin, BaseEstimator):
    """One rule ``x_j > t`` (or ``x_j <= t``) predicting the second class: the feature, threshold
    (among ``n_thresholds`` quantiles of each of the first ``max_features`` features) and
    direction of highest training accuracy."""

    _parameter_constraints = {
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "max_features": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, *, n_thresholds: int = 5, max_features: int | None = None) -> None:
        self.n_thresholds = n_thresholds
        self.max_features = max_features

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # one rule for the second class: binary only
        return tags

    def fit(self, X, y):
        self._validate_params()
        X, y = validate_data(self, X, y, reset=True)
        self.classes_, codes = encode_binary_target(self, y)
        d = X.shape[1] if self.max_features is None else min(self.max_features, X.shape[1])
        levels = np.arange(1, self.n_thresholds + 1) / (self.n_thresholds + 1)
        best = (-1.0, 0, 0.0, True)
        for j in range(d):
            for t in np.unique(np.quantile(X[:, j], levels)):
                acc = float(np.mean((X[:, j] > t) == codes))
                best = max(best, (acc, j, float(t), True), (1.0 - acc, j, float(t), False))
        self.train_accuracy_, self.feature_, self.threshold_, self.above_ = best
        return self

    def predict(self, X):
        check_fitted(self, "threshold_")
        X = validate_data(self, X, reset=False)
        above = X[:, self.feature_] > self.threshold_
        return self.classes_[(above if self.above_ else ~above).astype(int)]


# ----------------------------------------------------------------------------- step 3: the task
PARAMETERS = {"test_size": Param([Interval(Real, 0, 1, closed="neither")], 0.3, "test share of the split")}
ESTIMATORS = (ToyStump,)
SET_BY_TASK = ()


def solver_needs(params):
    """The toy solves nothing."""
    return None


def run(ctx) -> dict:
    tp = task_params(ctx.params, PARAMETERS)
    train, test = ctx.split(test_size=tp["test_size"])
    X, y = ctx.X, ctx.y
    target = np.asarray(ctx.black_box(ctx.models[0], train).predict(X)) if ctx.models else y
    est = ToyStump(**estimator_params(ctx.params, ToyStump)).fit(X[train], target[train])
    pred = est.predict(X[test])
    return {"fidelity": float(np.mean(pred == target[test])), "accuracy": float(np.mean(pred == y[test])),
            "feature": int(est.feature_)}
