"""The MTRE-PAN target network: a small sigmoid MLP trained as the authors' release trains it.

Almerri et al., "Global translation of classification models", Section 4: an input layer,
two hidden layers with as many units as input variables, one output unit, sigmoid
activations everywhere; 70% of the data for training, the remaining 30% "used for
validation and testing", and the weights that reached the highest validation accuracy are
kept.

What the paper leaves out is read from its release (``malmerri42/M-TRE-PAN-Release``,
``source/Ann_Oracle.cpp``, ``Ann_Oracle.h``, ``Oracle.cpp``): an mlpack ``FFN`` with
``MeanSquaredError`` loss and ``RandomInitialization`` (every weight and bias uniform in
[-1, 1]), trained by repeated calls of ``FFN::Train`` with the default optimizer of that
call (ensmallen's RMSProp: step size 0.01, batch 32, decay 0.99, epsilon 1e-8,
``maxIterations`` 100,000 sample visits, tolerance 1e-5, shuffling); after every call the
accuracy on the validation rows is measured and the best parameters are kept. The number of
calls ("epocMax") is 1,000 for abalone and the 6-input census file, 100 for the 13-input
census file and for diabetes. One call is therefore not one epoch but 100,000 sample
visits (about 34 epochs of abalone's training rows, 9 of census, 267 of diabetes).

Reproducibility. Ten million sample visits of a saturating sigmoid network amplify a
difference in the last bit of one product into a different network: on raw Pima inputs the
same seed gave a network that labels 13.3% of the sampling box negative with OpenBLAS's
Haswell kernels and 27.2% with its SkylakeX (AVX-512) kernels, at the same validation
accuracy (72.67%), because the two kernels sum the products of a matrix product in different
orders. OpenBLAS picks its kernel by the CPU, so the network depended on the machine. With
``arithmetic="portable"`` (the default) every matrix product of training and prediction is
an elementwise product followed by a numpy reduction (:func:`_matmul`): each operation is one
correctly rounded IEEE operation and the summation order is fixed by the array shapes, so
the weights are bit-identical for one seed on every x86-64 CPU, thread count and process
history (numpy's and the C library's ``exp`` being the same; the multi-class log loss also
uses numpy's ``exp``, which numpy dispatches by CPU). ``arithmetic="blas"`` uses BLAS
products (faster, machine dependent). :meth:`MTREPANNetwork.fingerprint` names the trained
weights.

This module implements that training loop in numpy (:class:`MTREPANNetwork`, defaults as
the release) and also offers log-loss and Adam, which the project used before the release
was read. Input encoding is per dataset in the release (scaled to [-1, 1] for abalone and
census, raw values for diabetes): ``scale_inputs`` chooses.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.special import expit as _expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import MinMaxScaler
from sklearn.utils.multiclass import check_classification_targets

from interpretopt._validation import (
    RANDOM_STATE,
    ContractMixin,
    Interval,
    StrOptions,
    as_generator,
    check_fitted,
    check_labels,
    check_X,
    validate_data,
)
from interpretopt.exceptions import InputError

__all__ = ["MTREPANNetwork"]

LOSSES = ("mse", "log")
OPTIMIZERS = ("rmsprop", "adam")
ARITHMETICS = ("portable", "blas")

#: rows of one block of a portable matrix product: bounds its (rows, k, m) temporary
_BLOCK_ELEMENTS = 1 << 18


def _matmul(A: np.ndarray, B: np.ndarray, out: np.ndarray | None = None,
            tmp: np.ndarray | None = None) -> np.ndarray:
    """``A @ B`` without BLAS: ``out[i, j] = sum_k A[i, k] B[k, j]`` as one elementwise product
    into a ``(n, k, m)`` temporary and numpy's sum over its middle axis.

    Every product and every addition is a single IEEE operation, and the order of the
    additions is fixed by the shapes (numpy's reduction code, not the CPU's BLAS kernel), so
    the result is the same bits on every machine, thread count and memory layout of the
    inputs (the temporary is always C-ordered). ``tmp`` (C-ordered, shape ``(n, k, m)``) may be passed to avoid allocating it; large ``n`` is processed in
    blocks of rows.
    """
    n, k = A.shape
    m = B.shape[1]
    if out is None:
        out = np.empty((n, m))
    if tmp is not None and tmp.shape == (n, k, m) and tmp.flags.c_contiguous:
        np.multiply(A[:, :, None], B[None, :, :], out=tmp)
        np.add.reduce(tmp, axis=1, out=out)
        return out
    step = max(1, _BLOCK_ELEMENTS // max(1, k * m))
    for i in range(0, n, step):
        j = min(n, i + step)
        t = np.empty((j - i, k, m))  # C order always: the reduction order depends on the shape only
        np.multiply(A[i:j, :, None], B[None, :, :], out=t)
        np.add.reduce(t, axis=1, out=out[i:j])
    return out


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return _expit(z)


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class _Optimizer:
    """RMSProp (ensmallen's ``RMSPropUpdate``) or Adam on one flat parameter vector."""

    def __init__(self, kind: str, size: int, lr: float, rho: float, eps: float) -> None:
        self.kind, self.lr, self.rho, self.eps = kind, lr, rho, eps
        self.v = np.zeros(size)
        self.m = np.zeros(size) if kind == "adam" else None
        self.t = 0
        self._tmp = np.empty(size)

    def step(self, p: np.ndarray, g: np.ndarray) -> None:
        v, tmp = self.v, self._tmp
        if self.kind == "rmsprop":
            # ensmallen: msg = alpha * msg + (1 - alpha) g^2;  x -= step * g / (sqrt(msg) + eps)
            np.multiply(g, g, out=tmp)
            tmp *= 1.0 - self.rho
            v *= self.rho
            v += tmp
            np.sqrt(v, out=tmp)
            tmp += self.eps
            np.divide(g, tmp, out=tmp)
            tmp *= self.lr
            p -= tmp
            return
        self.t += 1
        b1, b2 = 0.9, 0.999
        c1, c2 = 1.0 - b1 ** self.t, 1.0 - b2 ** self.t
        m = self.m
        m *= b1
        m += (1.0 - b1) * g
        v *= b2
        v += (1.0 - b2) * g * g
        p -= self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)


class _Layout:
    """Views of the three weight matrices and biases inside one flat vector."""

    def __init__(self, sizes: list[tuple[int, int]]) -> None:
        self.sizes = sizes
        self.slices = []
        k = 0
        for a, b in sizes:
            self.slices.append((slice(k, k + a * b), (a, b)))
            k += a * b
        for _, b in sizes:
            self.slices.append((slice(k, k + b), (b,)))
            k += b
        self.size = k

    def views(self, flat: np.ndarray) -> list[np.ndarray]:
        return [flat[s].reshape(shape) for s, shape in self.slices]


class MTREPANNetwork(ContractMixin, ClassifierMixin, BaseEstimator):
    """Target network of the MTRE-PAN paper, trained as the authors' release trains it.

    Architecture (paper, Section 4): ``d`` inputs, two sigmoid hidden layers of ``d`` units,
    one sigmoid output unit (for more than two classes: one output per class, sigmoid with
    the squared loss, softmax with the log loss). Training (release, ``Ann_Oracle.cpp``):
    ``n_rounds`` calls of an optimizer run over ``samples_per_round`` sample visits each,
    the validation accuracy measured after every call and the best call's weights kept.

    Parameters
    ----------
    n_rounds : int, default 100
        Training calls ("epocMax" in the release: 100 for diabetes and the 13-input census
        file, 1,000 for abalone).
    samples_per_round : int or None, default 100000
        Sample visits per call (ensmallen's ``maxIterations``); ``None``: one pass over the
        training rows (one epoch) per call.
    loss : {"mse", "log"}, default "mse"
        Squared error of the sigmoid output against the 0/1 label (mlpack's
        ``MeanSquaredError``, the release), or the cross-entropy.
    optimizer : {"rmsprop", "adam"}, default "rmsprop"
        ensmallen's RMSProp (the default of mlpack's ``FFN::Train``, the release), or Adam.
    learning_rate : float, default 0.01
        RMSProp's step size (ensmallen's default); use about 0.001 with Adam.
    batch_size : int, default 32
    rho : float, default 0.99
        RMSProp's decay of the mean squared gradient.
    epsilon : float, default 1e-8
    tolerance : float, default 1e-5
        A call stops early when the summed batch losses of an epoch change by less than this
        from the previous epoch (ensmallen's SGD rule).
    init_bound : float, default 1.0
        Weights and biases start uniform in ``[-init_bound, init_bound]`` (mlpack's
        ``RandomInitialization``).
    hidden_units : int or None, default None
        Units per hidden layer; ``None``: the number of input features.
    scale_inputs : bool, default True
        Min-max scale the inputs to [-1, 1] (fitted on the rows given to ``fit``) before the
        first layer; the release does so for abalone and census and feeds diabetes raw.
    validation_fraction : float, default 0.3
        Rows held out (stratified) to pick the best call when ``fit`` gets no ``X_val``.
    alpha : float, default 0.0
        L2 penalty on the weights (the release uses none).
    arithmetic : {"portable", "blas"}, default "portable"
        How matrix products are computed in training and prediction: ``"portable"``, by
        numpy's elementwise operations in a fixed order (the same weights for one seed on any
        machine; module docstring), or ``"blas"``, by the BLAS of the installation (about
        twice as fast; the summation order, hence the trained network, depends on the CPU).
    random_state : int, Generator or None

    Attributes
    ----------
    coefs_, intercepts_ : list of ndarray
        Weights of the three layers at the best call.
    scaler_ : MinMaxScaler or None
    best_round_ : int
        1-based index of the call kept.
    validation_scores_ : list of float
        Validation accuracy after each call.
    best_validation_score_ : float
    train_losses_ : list of float
        Summed batch losses of the last epoch of each call.
    n_visits_ : int
        Sample visits over all calls (a call stopped by ``tolerance`` visits fewer).
    classes_ : ndarray
    """

    def __init__(self, *, n_rounds: int = 100, samples_per_round: int | None = 100_000, loss: str = "mse",
                 optimizer: str = "rmsprop", learning_rate: float = 0.01, batch_size: int = 32, rho: float = 0.99,
                 epsilon: float = 1e-8, tolerance: float = 1e-5, init_bound: float = 1.0,
                 hidden_units: int | None = None, scale_inputs: bool = True, validation_fraction: float = 0.3,
                 alpha: float = 0.0, arithmetic: str = "portable", random_state: Any = None) -> None:
        self.n_rounds = n_rounds
        self.samples_per_round = samples_per_round
        self.loss = loss
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.rho = rho
        self.epsilon = epsilon
        self.tolerance = tolerance
        self.init_bound = init_bound
        self.hidden_units = hidden_units
        self.scale_inputs = scale_inputs
        self.validation_fraction = validation_fraction
        self.alpha = alpha
        self.arithmetic = arithmetic
        self.random_state = random_state

    _parameter_constraints: dict = {
        "n_rounds": [Interval(Integral, 1, None, closed="left")],
        "samples_per_round": [Interval(Integral, 1, None, closed="left"), None],
        "loss": [StrOptions(set(LOSSES))],
        "optimizer": [StrOptions(set(OPTIMIZERS))],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "rho": [Interval(Real, 0, 1, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "tolerance": [Interval(Real, 0, None, closed="left")],
        "init_bound": [Interval(Real, 0, None, closed="neither")],
        "hidden_units": [Interval(Integral, 1, None, closed="left"), None],
        "scale_inputs": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "arithmetic": [StrOptions(set(ARITHMETICS))],
        "random_state": RANDOM_STATE,
    }

    # -- the network
    def _mm(self, A: np.ndarray, B: np.ndarray, out: np.ndarray | None = None, buf: dict | None = None) -> np.ndarray:
        """``A @ B`` by BLAS or by :func:`_matmul` (``arithmetic``); ``buf`` caches the temporary."""
        if self.arithmetic == "blas":
            return np.dot(A, B, out=out)
        tmp = None
        if buf is not None:
            shape = (A.shape[0], A.shape[1], B.shape[1])
            tmp = buf.get(shape)
            if tmp is None:
                tmp = buf[shape] = np.empty(shape)
        return _matmul(A, B, out=out, tmp=tmp)

    def _sumsq(self, a: np.ndarray) -> float:
        if self.arithmetic == "blas":
            return float(np.vdot(a, a))
        return float(np.add.reduce(np.square(a), axis=None))

    def _forward(self, Z: np.ndarray, W: list[np.ndarray], b: list[np.ndarray]) -> list[np.ndarray]:
        a1 = _sigmoid(self._mm(Z, W[0]) + b[0])
        a2 = _sigmoid(self._mm(a1, W[1]) + b[1])
        return [a1, a2, self._mm(a2, W[2]) + b[2]]

    def _output(self, z3: np.ndarray) -> np.ndarray:
        if z3.shape[1] > 1 and self.loss == "log":
            return _softmax(z3)
        return _sigmoid(z3)

    def _loss_grad(self, Z: np.ndarray, T: np.ndarray, P: list[np.ndarray], G: list[np.ndarray],
                   buf: dict) -> float:
        """Batch loss (the mean over the batch, as mlpack's ``MeanSquaredError``); its gradient
        is written into the views ``G`` (same layout as the parameter views ``P``).

        Hot loop of the training: every array is preallocated per batch size in ``buf``.
        """
        W1, W2, W3, b1, b2, b3 = P
        n = Z.shape[0]
        B = buf.get(n)
        if B is None:
            h, k = W2.shape[0], W3.shape[1]
            B = buf[n] = {"a1": np.empty((n, h)), "a2": np.empty((n, h)), "z3": np.empty((n, k)),
                          "d3": np.empty((n, k)), "t3": np.empty((n, k)), "d2": np.empty((n, h)),
                          "d1": np.empty((n, h)), "t": np.empty((n, h))}
        a1, a2, z3, d3, t3, d2, d1, t = B["a1"], B["a2"], B["z3"], B["d3"], B["t3"], B["d2"], B["d1"], B["t"]
        tmps = B.setdefault("tmp", {})
        self._mm(Z, W1, a1, tmps)
        a1 += b1
        _expit(a1, out=a1)
        self._mm(a1, W2, a2, tmps)
        a2 += b2
        _expit(a2, out=a2)
        self._mm(a2, W3, z3, tmps)
        z3 += b3
        if self.loss == "mse" or z3.shape[1] == 1:
            out = _expit(z3, out=t3)
        else:
            out = _softmax(z3)
        if self.loss == "mse":
            np.subtract(out, T, out=d3)
            loss = self._sumsq(d3) / n
            d3 *= out
            np.subtract(1.0, out, out=z3)
            d3 *= z3
            d3 *= 2.0 / n
        else:
            eps = 1e-12
            if out.shape[1] == 1:
                loss = -float(np.sum(T * np.log(out + eps) + (1 - T) * np.log(1 - out + eps))) / n
            else:
                loss = -float(np.sum(T * np.log(out + eps))) / n
            np.subtract(out, T, out=d3)
            d3 /= n
        # back-propagation through the three layers: gradient of layer k from the delta at its output
        acts, deltas = (Z, a1, a2), (None, d1, d2)
        d = d3
        for k in (2, 1, 0):
            self._mm(acts[k].T, d, G[k], tmps)
            np.sum(d, axis=0, out=G[3 + k])
            if k:
                nxt = deltas[k]
                self._mm(d, P[k].T, nxt, tmps)
                np.subtract(1.0, acts[k], out=t)
                t *= acts[k]
                nxt *= t
                d = nxt
        if self.alpha:
            loss += 0.5 * self.alpha * sum(self._sumsq(w) for w in (W1, W2, W3))
            for g, w in zip(G[:3], (W1, W2, W3)):
                g += self.alpha * w
        return loss

    def _round(self, Z: np.ndarray, T: np.ndarray, flat: np.ndarray, layout: _Layout,
               rng: np.random.Generator) -> float:
        """One training call: ensmallen's SGD loop with RMSProp (or Adam) updates.

        The optimizer state is fresh at every call (ensmallen's ``resetPolicy``); the rows are
        shuffled at the start and after every full pass; the loop ends after
        ``samples_per_round`` visits or when an epoch's summed loss changes by less than
        ``tolerance``. Returns the last complete epoch's summed loss.
        """
        n = Z.shape[0]
        total = n if self.samples_per_round is None else int(self.samples_per_round)
        bs = int(self.batch_size)
        opt = _Optimizer(self.optimizer, layout.size, float(self.learning_rate), float(self.rho),
                         float(self.epsilon))
        P = layout.views(flat)
        gflat = np.zeros(layout.size)
        G = layout.views(gflat)
        buf: dict = {}
        order = rng.permutation(n)
        Zs, Ts = Z[order], T[order]
        i = cur = 0
        overall, last = 0.0, np.inf
        while i < total:
            if cur == n:
                if abs(last - overall) < self.tolerance:
                    self.n_visits_ += i
                    return overall
                last, overall, cur = overall, 0.0, 0
                order = rng.permutation(n)
                Zs, Ts = Z[order], T[order]
            eb = min(bs, total - i, n - cur)
            overall += self._loss_grad(Zs[cur:cur + eb], Ts[cur:cur + eb], P, G, buf)
            opt.step(flat, gflat)
            i += eb
            cur += eb
        self.n_visits_ += i
        return overall if cur == n else last

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> MTREPANNetwork:
        """Train ``n_rounds`` calls and keep the weights with the best validation accuracy.

        Parameters
        ----------
        X, y : training rows and labels
        X_val, y_val : optional
            Validation rows used to pick the best call (the release uses its 30% held-out
            rows, which are also its test rows). Without them ``validation_fraction`` of
            ``X`` is held out (stratified).
        """
        from interpretopt.data._split import train_test_indices

        self._validate_params()
        X, y = validate_data(self, X, y, reset=True)
        try:
            check_classification_targets(y)
        except ValueError as exc:
            raise InputError(f"{type(self).__name__}: {exc}") from None
        if np.unique(y).size < 2:
            raise InputError(f"y has only one class {np.unique(y).tolist()}; two or more classes are required")
        rng = as_generator(self.random_state)
        if (X_val is None) != (y_val is None):
            raise InputError("pass both X_val and y_val, or neither")
        if X_val is None:
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
        self.scaler_ = MinMaxScaler(feature_range=(-1.0, 1.0)).fit(X) if self.scale_inputs else None
        Z_tr = self._transform(X_tr)
        Z_va = self._transform(X_va)
        k = self.classes_.shape[0]
        n_out = 1 if k == 2 else k
        pos = np.searchsorted(self.classes_, y_tr)
        T = (pos == 1).astype(float)[:, None] if n_out == 1 else np.eye(k)[pos]
        d = X.shape[1]
        h = self.hidden_units if self.hidden_units is not None else d
        layout = _Layout([(d, h), (h, h), (h, n_out)])
        ib = float(self.init_bound)
        flat = rng.uniform(-ib, ib, layout.size)
        self.n_visits_ = 0
        best, best_score, scores, losses = None, -np.inf, [], []
        for r in range(1, int(self.n_rounds) + 1):
            losses.append(self._round(Z_tr, T, flat, layout, rng))
            self._set_weights(layout, flat)
            score = float(np.mean(self._predict_scaled(Z_va) == y_va))
            scores.append(score)
            if score > best_score:
                best_score, self.best_round_ = score, r
                best = flat.copy()
        assert best is not None
        self._set_weights(layout, best)
        self.validation_scores_ = scores
        self.best_validation_score_ = best_score
        self.train_losses_ = losses
        return self

    def _set_weights(self, layout: _Layout, flat: np.ndarray) -> None:
        v = [a.copy() for a in layout.views(flat)]
        self.coefs_, self.intercepts_ = v[:3], v[3:]

    def fingerprint(self) -> str:
        """16 hex digits of the SHA-1 of the trained weights, biases and input scaling (float64
        bytes in a fixed order): equal fingerprints mean the same network, bit for bit."""
        import hashlib

        check_fitted(self, "coefs_")
        h = hashlib.sha1()
        parts = list(self.coefs_) + list(self.intercepts_)
        if self.scaler_ is not None:
            parts += [self.scaler_.scale_, self.scaler_.min_]
        for a in parts:
            a = np.ascontiguousarray(a, dtype=np.float64)
            h.update(str(a.shape).encode())
            h.update(a.tobytes())
        return h.hexdigest()[:16]

    # -- prediction
    def _transform(self, X: np.ndarray) -> np.ndarray:
        return self.scaler_.transform(X) if self.scaler_ is not None else np.asarray(X, dtype=float)

    def _scaled(self, X: Any) -> np.ndarray:
        check_fitted(self, "coefs_")
        X = validate_data(self, X, reset=False)
        return self._transform(X)

    def _logits(self, Z: np.ndarray) -> np.ndarray:
        return self._forward(Z, self.coefs_, self.intercepts_)[2]

    def _predict_scaled(self, Z: np.ndarray) -> np.ndarray:
        z = self._logits(Z)
        if z.shape[1] == 1:
            return self.classes_[(z[:, 0] >= 0).astype(int)]
        return self.classes_[np.argmax(z, axis=1)]

    def last_hidden(self, X: Any) -> np.ndarray:
        """Activations of the last hidden layer, shape (n, hidden_units): the input of the output layer."""
        return self._forward(self._scaled(X), self.coefs_, self.intercepts_)[1]

    def decision_function(self, X: Any) -> np.ndarray:
        """Pre-sigmoid output (logit), shape (n,) for two classes; 0 is the decision boundary.

        For more than two classes, the pre-activation outputs, shape (n, n_classes).
        """
        z = self._logits(self._scaled(X))
        return z[:, 0] if z.shape[1] == 1 else z

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities (n, n_classes), columns in the order of ``classes_``.

        Two classes: ``[1 - s, s]`` with ``s`` the output unit. More classes: the softmax
        (log loss) or the normalized sigmoid outputs (squared loss).
        """
        out = self._output(self._logits(self._scaled(X)))
        if out.shape[1] == 1:
            return np.column_stack([1.0 - out[:, 0], out[:, 0]])
        return out / out.sum(axis=1, keepdims=True)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels (n,): class 1 where the output unit is at least 0.5 (the release rounds it)."""
        return self._predict_scaled(self._scaled(X))
