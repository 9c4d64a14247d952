"""The L1-norm soft-margin linear SVM as a linear program (MTRE-PAN's node classifier).

MTRE-PAN (Almerri et al., "Global translation of classification models", Section 3.1)
splits every node by the hyperplane of a linear SVM trained on the node's data. Written as
an LP (the 1-norm SVM of Bradley & Mangasarian, 1998, and Zhu et al., 2003), with labels
``y_i in {-1, +1}``, weights ``s_i >= 0`` and the weight vector split into its positive
and negative parts ``w = w^+ - w^-``:

.. math::

    \\min_{w^+, w^-, w_0, \\xi} \\; \\sum_j (w^+_j + w^-_j) + C \\sum_i s_i \\xi_i

    \\text{s.t.} \\quad y_i \\big( x_i^T (w^+ - w^-) + w_0 \\big) + \\xi_i \\ge 1 \\quad (i = 1..n),
    \\qquad w^+, w^-, \\xi \\ge 0, \\; w_0 \\text{ free}.

At the optimum ``w^+_j w^-_j = 0`` and ``||w||_1 = \\sum_j (w^+_j + w^-_j)``; ``\\xi_i`` is
the hinge loss ``max(0, 1 - y_i (w^T x_i + w_0))``. The LP is always feasible (``w = 0``,
``w_0 = 0``, ``\\xi = 1``) and bounded below by 0, so a solver reporting infeasible or
unbounded signals a numerical failure.

Class weights for unbalanced nodes enter through ``s_i``: ``class_weight="balanced"``
gives ``s_i = n / (2 n_{y_i})`` (scikit-learn's convention).

Pyomo components carry the symbols: ``m.w_pos``, ``m.w_neg`` (indexed by ``m.J``),
``m.w0``, ``m.xi`` (indexed by ``m.I``), ``m.margin`` (one row per sample), ``m.obj``.
:func:`build` returns the model and :func:`extract` reads the hyperplane back; neither
solves. :func:`matrix_form` gives the same LP as arrays (columns ``w^+, w^-, w_0, \\xi``,
rows ``margin``); tests check that it equals the translation of the Pyomo model.

The dual LP (:func:`dual_matrix_form`), with one multiplier ``alpha_i`` per margin row:

.. math::

    \\max_\\alpha \\; \\sum_i \\alpha_i \\quad \\text{s.t.} \\quad
    -1 \\le \\sum_i \\alpha_i y_i x_{ij} \\le 1 \\; (j = 1..d), \\qquad
    \\sum_i \\alpha_i y_i = 0, \\qquad 0 \\le \\alpha_i \\le C s_i,

has ``d + 1`` rows instead of ``n``: the two bounds of row ``j`` are the dual constraints
of ``w^+_j`` and ``w^-_j``, the equality that of ``w_0``, the upper bounds those of
``\\xi``. Its optimum equals the primal one, and the primal hyperplane is the vector of
its row duals (``w_j`` = dual of row ``j``, ``w_0`` = dual of the equality). At node sizes
of 10^4 samples HiGHS solves it in a fraction of a second where the primal takes several
seconds; tests check that both give the same hyperplane and objective.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from interpretopt.exceptions import InputError

__all__ = ["SVMSolution", "SVMArrays", "SVMDualArrays", "signed_labels", "sample_weights", "build", "extract",
           "matrix_form", "solution_from_vector", "dual_matrix_form", "solution_from_duals"]


@dataclass(frozen=True)
class SVMSolution:
    """A hyperplane ``w . x + w0 = 0``; the positive class is on the side ``w . x + w0 > 0``.

    Attributes
    ----------
    w : numpy.ndarray (d,)
    w0 : float
    xi : numpy.ndarray (n,)
        Hinge slacks.
    objective : float
        ``||w||_1 + C sum_i s_i xi_i``.
    """

    w: np.ndarray
    w0: float
    xi: np.ndarray
    objective: float

    def decision_function(self, X: Any) -> np.ndarray:
        return np.asarray(X, dtype=float) @ self.w + self.w0

    def predict(self, X: Any) -> np.ndarray:
        """Labels in {-1, +1} (ties go to -1, the side ``w . x + w0 <= 0``)."""
        return np.where(self.decision_function(X) > 0, 1, -1)


@dataclass(frozen=True)
class SVMArrays:
    """The LP of :func:`build` as arrays: ``min c.x  s.t.  row_lower <= A x <= row_upper,
    col_lower <= x <= col_upper``, columns ``[w^+ (d), w^- (d), w0, xi (n)]``."""

    c: np.ndarray
    A: sp.csc_array
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    n_features: int
    n_samples: int


def signed_labels(y: Any) -> np.ndarray:
    """Labels as ``{-1, +1}`` floats from ``{0, 1}``, ``{-1, 1}`` or booleans."""
    y = np.asarray(y).ravel()
    vals = np.unique(y)
    if vals.size == 0:
        raise InputError("the SVM needs at least one sample")
    if y.dtype == bool:
        return np.where(y, 1.0, -1.0)
    if not np.isin(vals, [-1, 0, 1]).all() or (np.isin(0, vals) and np.isin(-1, vals)):
        raise InputError(f"SVM labels must be {{0, 1}} or {{-1, +1}}, got values {vals[:6].tolist()}")
    return np.where(y > 0, 1.0, -1.0)


def sample_weights(y_signed: np.ndarray, class_weight: Any = "balanced", sample_weight: Any = None) -> np.ndarray:
    """The weights ``s_i``: per-class weights (``"balanced"``, ``None`` or ``{-1: a, 1: b}``
    keyed by the signed label) times optional per-sample weights."""
    n = y_signed.shape[0]
    s = np.ones(n)
    if class_weight is None:
        pass
    elif isinstance(class_weight, str):
        if class_weight != "balanced":
            raise InputError(f"class_weight must be 'balanced', None or a mapping {{-1: w, 1: w}}, "
                             f"got {class_weight!r}")
        pos = y_signed > 0
        n_pos = int(pos.sum())
        n_neg = n - n_pos
        if n_pos:
            s[pos] = n / (2.0 * n_pos)
        if n_neg:
            s[~pos] = n / (2.0 * n_neg)
    elif isinstance(class_weight, dict):
        for key, val in class_weight.items():
            k = 1 if key in (1, True) else -1 if key in (-1, 0, False) else None
            if k is None or not np.isfinite(val) or val < 0:
                raise InputError(f"class_weight entries must map -1/0 or 1 to a number >= 0, got {key!r}: {val!r}")
            s[y_signed == k] = float(val)
    else:
        raise InputError(f"class_weight must be 'balanced', None or a mapping, got {type(class_weight).__name__}")
    if sample_weight is not None:
        sw = np.asarray(sample_weight, dtype=float).ravel()
        if sw.shape != (n,) or not np.isfinite(sw).all() or (sw < 0).any():
            raise InputError(f"sample_weight must be {n} finite numbers >= 0")
        s = s * sw
    return s


def _check(X: Any, y: Any, C: float) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise InputError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    if not np.isfinite(X).all():
        raise InputError("X contains NaN or infinite values")
    ys = signed_labels(y)
    if ys.shape[0] != X.shape[0]:
        raise InputError(f"X has {X.shape[0]} rows but y has {ys.shape[0]} labels")
    if not (np.isfinite(C) and C > 0):
        raise InputError(f"C must be a positive number, got {C!r}")
    return X, ys


def build(X: Any, y: Any, *, C: float = 1.0, class_weight: Any = "balanced", sample_weight: Any = None):
    """The L1-norm SVM LP as a Pyomo ``ConcreteModel`` (see the module docstring).

    Parameters
    ----------
    X : array-like (n, d)
    y : array-like (n,)
        ``{0, 1}`` or ``{-1, +1}``.
    C : float, default 1.0
        Weight of the hinge slacks against ``||w||_1``.
    class_weight : "balanced", None or mapping, default "balanced"
    sample_weight : array-like (n,), optional

    Returns
    -------
    pyomo.environ.ConcreteModel
    """
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression

    X, ys = _check(X, y, C)
    n, d = X.shape
    s = sample_weights(ys, class_weight, sample_weight)
    m = pyo.ConcreteModel(name="l1_svm")
    m.J = pyo.RangeSet(0, d - 1)
    m.I = pyo.RangeSet(0, n - 1)
    m.w_pos = pyo.Var(m.J, domain=pyo.NonNegativeReals)
    m.w_neg = pyo.Var(m.J, domain=pyo.NonNegativeReals)
    m.w0 = pyo.Var(domain=pyo.Reals)
    m.xi = pyo.Var(m.I, domain=pyo.NonNegativeReals)
    m.C = float(C)
    wp = [m.w_pos[j] for j in range(d)]
    wn = [m.w_neg[j] for j in range(d)]
    YX = ys[:, None] * X
    coefs = np.hstack([YX, -YX, ys[:, None], np.ones((n, 1))]).tolist()

    def margin_rule(m, i):
        return LinearExpression(constant=0.0, linear_coefs=coefs[i], linear_vars=wp + wn + [m.w0, m.xi[i]]) >= 1.0

    m.margin = pyo.Constraint(m.I, rule=margin_rule)
    obj_coefs = [1.0] * (2 * d) + (float(C) * s).tolist()
    m.obj = pyo.Objective(expr=LinearExpression(constant=0.0, linear_coefs=obj_coefs,
                                                linear_vars=wp + wn + [m.xi[i] for i in range(n)]),
                          sense=pyo.minimize)
    return m


def extract(m) -> SVMSolution:
    """The hyperplane of a solved :func:`build` model."""
    import pyomo.environ as pyo

    d = len(m.J)
    wp = np.array([pyo.value(m.w_pos[j]) for j in range(d)], dtype=float)
    wn = np.array([pyo.value(m.w_neg[j]) for j in range(d)], dtype=float)
    xi = np.array([pyo.value(m.xi[i]) for i in m.I], dtype=float)
    return SVMSolution(w=wp - wn, w0=float(pyo.value(m.w0)), xi=xi, objective=float(pyo.value(m.obj)))


def matrix_form(X: Any, y: Any, *, C: float = 1.0, class_weight: Any = "balanced",
                sample_weight: Any = None) -> SVMArrays:
    """The LP of :func:`build` as arrays, built with numpy only (columns ``w^+, w^-, w0, xi``)."""
    X, ys = _check(X, y, C)
    n, d = X.shape
    s = sample_weights(ys, class_weight, sample_weight)
    YX = ys[:, None] * X
    dense = np.hstack([YX, -YX, ys[:, None]])  # (n, 2d + 1)
    left = sp.csc_array(dense)
    right = sp.csc_array((np.ones(n), (np.arange(n), np.arange(n))), shape=(n, n))
    A = sp.hstack([left, right], format="csc")
    c = np.concatenate([np.ones(2 * d), [0.0], float(C) * s])
    col_lower = np.concatenate([np.zeros(2 * d), [-np.inf], np.zeros(n)])
    col_upper = np.full(2 * d + 1 + n, np.inf)
    return SVMArrays(c=c, A=sp.csc_array(A), row_lower=np.ones(n), row_upper=np.full(n, np.inf),
                     col_lower=col_lower, col_upper=col_upper, n_features=d, n_samples=n)


def solution_from_vector(x: np.ndarray, arrays: SVMArrays) -> SVMSolution:
    """The hyperplane from a primal vector in :func:`matrix_form`'s column order."""
    d, n = arrays.n_features, arrays.n_samples
    x = np.asarray(x, dtype=float)
    if x.shape != (2 * d + 1 + n,):
        raise InputError(f"primal vector has shape {x.shape}, expected ({2 * d + 1 + n},)")
    return SVMSolution(w=x[:d] - x[d:2 * d], w0=float(x[2 * d]), xi=x[2 * d + 1:].copy(),
                       objective=float(arrays.c @ x))


@dataclass(frozen=True)
class SVMDualArrays:
    """The dual LP as arrays: ``max c.alpha  s.t.  row_lower <= A alpha <= row_upper,
    0 <= alpha <= col_upper``; rows ``j = 0..d-1`` (``w_j``) then the ``w_0`` equality."""

    c: np.ndarray
    A: sp.csc_array
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    X: np.ndarray
    y_signed: np.ndarray
    s: np.ndarray
    C: float


def dual_matrix_form(X: Any, y: Any, *, C: float = 1.0, class_weight: Any = "balanced",
                     sample_weight: Any = None) -> SVMDualArrays:
    """The dual of the L1-norm SVM LP (see the module docstring) as arrays, ``d + 1`` rows."""
    X, ys = _check(X, y, C)
    n, d = X.shape
    s = sample_weights(ys, class_weight, sample_weight)
    A = sp.csc_array(np.vstack([(ys[:, None] * X).T, ys[None, :]]))
    return SVMDualArrays(c=np.ones(n), A=A, row_lower=np.concatenate([-np.ones(d), [0.0]]),
                         row_upper=np.concatenate([np.ones(d), [0.0]]), col_lower=np.zeros(n),
                         col_upper=float(C) * s, X=X, y_signed=ys, s=s, C=float(C))


def _primal_objective(w: np.ndarray, w0: float, arrays: SVMDualArrays) -> tuple[float, np.ndarray]:
    xi = np.maximum(0.0, 1.0 - arrays.y_signed * (arrays.X @ w + w0))
    return float(np.abs(w).sum() + arrays.C * (arrays.s @ xi)), xi


def solution_from_duals(row_duals: np.ndarray, arrays: SVMDualArrays,
                        dual_objective: float | None = None) -> SVMSolution:
    """The primal hyperplane from the row duals of the dual LP.

    Solvers differ in the sign they give duals; when ``dual_objective`` is known, the sign
    whose primal objective matches it (strong duality) is taken.
    """
    r = np.asarray(row_duals, dtype=float).ravel()
    d = arrays.X.shape[1]
    if r.shape != (d + 1,):
        raise InputError(f"expected {d + 1} row duals, got shape {r.shape}")
    best = None
    for sign in (1.0, -1.0):
        w, w0 = sign * r[:d], float(sign * r[d])
        obj, xi = _primal_objective(w, w0, arrays)
        gap = abs(obj - dual_objective) if dual_objective is not None else 0.0
        if best is None or gap < best[0] - 1e-9 * max(1.0, abs(obj)):
            best = (gap, SVMSolution(w=w, w0=w0, xi=xi, objective=obj))
        if dual_objective is None:
            break
    return best[1]
