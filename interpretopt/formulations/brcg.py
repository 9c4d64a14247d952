r"""Boolean rule sets by column generation (BRCG) and its grounded variant (BRCG+).

Notation (Dash, Günlük and Wei 2018; "What changed? Interpretable model comparison",
equations (1)-(5)). Samples ``i`` in ``P`` (label 1) and ``Z`` (label 0); binarized
literals ``j = 1..J``; ``K`` the conjunctions (clauses) of literals; ``K_i`` the clauses
sample ``i`` satisfies; ``c_k`` the complexity of clause ``k``.

Master, constraint form (eqs. (1)-(4))::

    min   sum_{i in P} xi_i + sum_{i in Z} sum_{k in K_i} w_k                      (1)
    s.t.  xi_i + sum_{k in K_i} w_k >= 1            i in P                        (2)
          sum_k c_k w_k <= C                                                      (3)
          xi_i >= 0,  w_k in {0, 1}                                               (4)

with ``c_k = 1 + |k|`` (Dash et al.) or ``c_k = |k|`` (the What-changed text), chosen by
``complexity="literals+1" | "literals"``.

Master, light form (AIX360 ``BooleanRuleCG``): no row (3); each selected clause pays
``lambda0 + lambda1 |k|`` and the Hamming loss is divided by ``n``::

    min  (1/n) [ sum_{i in P} xi_i + sum_{i in Z} sum_{k in K_i} w_k ] + sum_k (lambda0 + lambda1 |k|) w_k

Grounded master BRCG+ (eq. (5)): grounding clauses ``U`` (always among the columns) and a
penalty ``c_u * n`` (in Hamming-loss units) for each grounding clause not selected::

    min  (1) + c_u * n * sum_{u in U} (1 - w_u)

The LP relaxation replaces ``w_k in {0, 1}`` by ``w_k >= 0`` (Dash et al.); grounding
columns keep ``w_u <= 1`` because their objective coefficient is negative.

Pricing (Dash et al. eqs. (6)-(10), aggregated form). With duals ``mu_i >= 0`` of (2) and
``lambda >= 0`` of (3), a clause given by literal choices ``z_j`` and coverage ``delta_i``
has reduced cost ``a + b sum_j z_j + sum_i r_i delta_i`` where ``r_i = -mu_i`` on ``P``
and ``r_i = s`` (the loss scale: 1, or ``1/n`` in the light form) on ``Z``, and
``(a, b) = (lambda, lambda)`` for ``c_k = 1 + |k|``, ``(0, lambda)`` for ``c_k = |k|``,
``(lambda0, lambda1)`` in the light form. With ``S_i`` the literals that are 0 for sample i::

    min   a + b sum_j z_j + sum_i r_i delta_i
    s.t.  D delta_i + sum_{j in S_i} z_j <= D        i in P  (delta_i binary)
          delta_i + sum_{j in S_i} z_j >= 1          i in Z  (delta_i >= 0)
          1 <= sum_j z_j <= D,   z_j in {0, 1}

The aggregated P-rows are valid only with ``delta_i`` binary; a returned clause is always
re-priced exactly with :func:`reduced_costs`.

Lower bounds during column generation (Lagrangian / Farley bound)
------------------------------------------------------------------
The restricted master's LP value bounds nothing by itself: it is the value over the
columns generated so far, and it is *above* the LP over all clauses until column
generation has converged. A valid lower bound comes from Lagrangian duality. Write the
master with weighted rows: positive row ``i`` has weight ``s_i`` (the loss scale times its
sample weight, e.g. its multiplicity after equal rows are merged), clause ``k`` costs
``f_k = (loss scale) (weighted negatives it covers) + p_k - g [k in U]`` with ``p_k =
lambda0 + lambda1 |k|`` in the light form (0 in the constraint form) and ``g`` the
grounding penalty, the objective has the constant ``g |U|``; grounding columns have
``0 <= w_u <= 1``, all other columns ``w_k >= 0``. Take *any* multipliers
``mu_i in [0, s_i]`` for rows (2) and ``lambda >= 0`` for row (3) (the restricted master's
duals, clipped to these intervals) and the reduced costs
``rc_k = f_k - sum_{i in P, k in K_i} mu_i + lambda c_k``. For every feasible ``(xi, w)``
of the LP over *all* clauses::

    obj = D0 + sum_i (s_i - mu_i) xi_i + sum_k rc_k w_k
          + sum_i mu_i (xi_i + sum_{k in K_i} w_k - 1) + lambda (C - sum_k c_k w_k)
        >= D0 + G + sum_{k not in U} rc_k w_k                                     (B1)

with ``D0 = g |U| + sum_i mu_i - lambda C`` and ``G = sum_{u in U} min(0, rc_u)``: the two
bracketed terms are >= 0 by feasibility and ``mu, lambda >= 0``, ``(s_i - mu_i) xi_i >= 0``,
and ``rc_u w_u >= min(0, rc_u)`` because ``0 <= w_u <= 1``. Row (3)'s dual enters twice:
through ``lambda c_k`` in every reduced cost and through ``-lambda C`` in ``D0``; the
bounds ``w_u <= 1`` enter through ``G`` (at the restricted optimum ``D0 + G`` is the dual
objective including the bound duals, i.e. the restricted LP value). The last sum in (B1)
runs over exponentially many clauses. Let ``q_k`` be ``c_k`` (constraint form) or ``p_k``
(light form), ``q_min`` its smallest value over clauses of one or more literals, ``rho <=
min(0, min_{k not in U} rc_k / q_k)`` and ``rc_min <= min(0, min_{k not in U} rc_k)``:

* constraint form: ``sum_{k not in U} c_k w_k <= C`` for every feasible ``w`` (row (3)), so
  the number (weighted by complexity) of clauses in any LP solution is at most ``C`` and::

      LB = D0 + G + rho C                                                         (B2)

* light form: every part of the objective is >= 0 (loss, ``p_k w_k``, ``g (1 - w_u)``), so
  an optimal ``w*`` has ``sum_{k not in U} p_k w*_k <= OPT``: the total penalty of the
  columns of an optimal LP solution is at most its value. (B1) then gives
  ``OPT >= D0 + G + rho OPT``, i.e. Farley's bound::

      LB = (D0 + G) / (1 - rho)                                                   (B3)

* both forms: an optimal basic solution has at most ``m`` nonzero ``w_k`` outside ``U``
  (``m`` = number of master rows; such columns have no finite upper bound, so they are
  basic), and capping each at 1 keeps it feasible and optimal (their costs are >= 0), so
  also::

      LB' = D0 + G + m rc_min                                                     (B4)

  which is the only bound of the light form when ``lambda0 = lambda1 = 0``.

``rho`` and ``rc_min`` use the exact reduced costs of the columns of the restricted master
and a lower bound ``rc_outside`` on the reduced cost of every other clause: since ``q_k >=
q_min``, ``rc_k / q_k >= rc_outside / q_min`` when ``rc_outside < 0``. Exact pricing gives
``rc_outside`` (the pricing MILP's optimum, or its dual bound when it stops early); a bound
that is always available at the cost of one matrix-vector product is
:func:`depth1_bound`. The objective is nonnegative, so ``max(LB, LB', 0)`` is reported; it
bounds the LP relaxation over all clauses of up to ``D`` literals, hence the integer
problem (1)-(4) / (5). At convergence with exact pricing ``rc_outside >= 0``, so ``rho =
rc_min = 0`` and the bound equals the restricted LP value: :func:`lagrangian_bound` is
tight exactly when column generation has converged.

Each problem is stated once, as a :class:`~interpretopt._lp.LinearProgram` with named
blocks (:func:`master_lp`, whose clause columns are :func:`master_columns`, and
:func:`pricing_lp`); every solver path solves that value, and the Pyomo models
(:func:`build_master`, :func:`build_pricing`) are built from it. The module also reads
answers (``extract_*``) and evaluates the bounds above from multipliers; it never solves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import math

import numpy as np
import scipy.sparse as sp

from interpretopt._rows import unique_rows_index
from interpretopt._lp import ColumnBlock, LinearProgram, RowBlock
from interpretopt._validation import check_in_range
from interpretopt.exceptions import InputError

__all__ = [
    "MasterSpec",
    "MasterSolution",
    "aggregate_samples",
    "dominated_columns",
    "build_master",
    "extract_master",
    "master_lp",
    "master_columns",
    "master_objective",
    "pricing_weights",
    "reduced_costs",
    "LagrangianBound",
    "fixed_by_reduced_cost",
    "lagrangian_bound",
    "lagrangian_terms",
    "depth1_bound",
    "Depth1Bound",
    "unique_rows",
    "build_pricing",
    "pricing_lp",
    "set_pricing_objective",
    "extract_pricing",
    "pricing_clause",
]

_COMPLEXITIES = ("literals+1", "literals")
_FORMS = ("constraint", "light")


@dataclass(frozen=True)
class MasterSpec:
    """Parameters of the master problem, validated on construction.

    Parameters
    ----------
    form : {"constraint", "light"}
        Complexity bound ``C`` as row (3), or per-clause/per-literal weights in the objective.
    C : float or None
        Complexity bound (constraint form only), > 0.
    lambda0, lambda1 : float
        Per-clause and per-literal weights (light form only), >= 0.
    complexity : {"literals+1", "literals"}
        Clause complexity ``c_k`` in row (3).
    c_u : float
        Grounding penalty as a fraction of the number of samples (BRCG+), >= 0.
    n_samples : int
        ``n`` (scales the light-form loss and the grounding penalty).
    """

    form: str = "constraint"
    C: float | None = None
    lambda0: float = 0.0
    lambda1: float = 0.0
    complexity: str = "literals+1"
    c_u: float = 0.0
    n_samples: int = 1

    def __post_init__(self) -> None:
        if self.form not in _FORMS:
            raise InputError(f"form must be one of {_FORMS}, got {self.form!r}")
        if self.complexity not in _COMPLEXITIES:
            raise InputError(f"complexity must be one of {_COMPLEXITIES}, got {self.complexity!r}")
        if self.form == "constraint":
            if self.C is None:
                raise InputError("the constraint form needs a complexity bound C > 0; "
                                 "pass C=... or use form='light' with lambda0/lambda1")
            check_in_range("C", self.C, 0.0, None, low_open=True)
        check_in_range("lambda0", self.lambda0, 0.0, None)
        check_in_range("lambda1", self.lambda1, 0.0, None)
        check_in_range("c_u", self.c_u, 0.0, None)
        if int(self.n_samples) < 1:
            raise InputError(f"n_samples must be >= 1, got {self.n_samples}")

    @property
    def loss_scale(self) -> float:
        """Weight of one unit of Hamming loss in the objective (1, or 1/n in the light form)."""
        return 1.0 if self.form == "constraint" else 1.0 / self.n_samples

    @property
    def grounding_penalty(self) -> float:
        """Objective weight of dropping one grounding clause: ``loss_scale * c_u * n``."""
        return self.loss_scale * self.c_u * self.n_samples

    def clause_complexity(self, n_literals: np.ndarray) -> np.ndarray:
        """``c_k`` of row (3)."""
        n_literals = np.asarray(n_literals, dtype=float)
        return n_literals + (1.0 if self.complexity == "literals+1" else 0.0)

    def clause_penalty(self, n_literals: np.ndarray) -> np.ndarray:
        """Objective weight of a clause apart from its loss (light form; zero in the constraint form)."""
        n_literals = np.asarray(n_literals, dtype=float)
        if self.form == "light":
            return self.lambda0 + self.lambda1 * n_literals
        return np.zeros_like(n_literals)


def _as_cover(cover, n: int | None = None) -> sp.csc_matrix:
    """Coverage (n, K) as a boolean CSC matrix."""
    if sp.issparse(cover):
        mat = sp.csc_matrix(cover, dtype=bool)
    else:
        arr = np.asarray(cover, dtype=bool)
        if arr.ndim == 1:
            arr = arr[:, None]
        mat = sp.csc_matrix(arr)
    if n is not None and mat.shape[0] != n:
        raise InputError(f"coverage has {mat.shape[0]} rows but y has {n} labels")
    return mat


def _dense_cover(cover, n: int | None = None) -> np.ndarray:
    """Coverage (n, K) as a dense boolean array (no sparse round trip for a dense input)."""
    if sp.issparse(cover):
        return _as_cover(cover, n).toarray()
    arr = np.asarray(cover, dtype=bool)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or (n is not None and arr.shape[0] != n):
        raise InputError(f"coverage has {arr.shape[0]} rows but y has {n} labels" if arr.ndim == 2
                         else f"coverage must be 1-D or 2-D, got shape {arr.shape}")
    return arr


def _check_y(y) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or not np.isin(np.unique(y), [0, 1]).all():
        raise InputError(f"BRCG needs binary labels in {{0, 1}}, got classes {np.unique(y).tolist()[:10]}")
    return y.astype(bool)


def _weights(sample_weight, n: int) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight, dtype=float).reshape(-1)
    if w.shape[0] != n or not np.isfinite(w).all() or (w < 0).any():
        raise InputError(f"sample_weight must be {n} finite nonnegative numbers")
    return w


def light_objective_floor(spec: MasterSpec, bound: float, *, max_literals: int, max_points: int = 100_000) -> float:
    """The least value at or above ``bound`` that the light objective of a rule set can take.

    With whole sample weights the light objective of a rule set is ``s e + lambda0 q + lambda1 L``
    (``s = loss_scale``): ``e`` its weighted errors, a whole number; ``q`` its clauses, ``L`` their
    literals, whole numbers with ``q <= L <= max_literals * q`` (every clause has one literal or
    more). So a valid lower bound ``bound`` on every rule set's objective rises to the least such
    value at or above it: for each ``(q, L)`` whose complexity ``c = lambda0 q + lambda1 L`` is
    below ``bound``, ``c + s ceil((bound - c) / s)``; the first ``L`` with ``c >= bound`` gives
    ``c`` (and larger ``L`` more). The minimum over them is still a lower bound on every rule set,
    the light form's counterpart of rounding the constraint form's bound up to a whole sample.
    On breast cancer's default fit (``n = 398``, ``lambda0 = lambda1 = 0.001``, clauses of up to 3
    literals) it raises the LP's 0.0137 to 0.0140 (4 clauses, 10 literals, no error). Applies to
    the light form without grounding; the caller checks the weights. Returns ``bound`` unchanged
    when the ``(q, L)`` pairs to try exceed ``max_points`` (a work limit: tiny lambdas).
    """
    if spec.form != "light":
        raise InputError(f"light_objective_floor is for the light form, got form={spec.form!r}")
    bound, s, D = float(bound), float(spec.loss_scale), int(max_literals)
    l0, l1 = float(spec.lambda0), float(spec.lambda1)
    if D < 1:
        raise InputError(f"max_literals must be >= 1, got {max_literals}")
    if bound <= 0.0:
        return bound

    def lifted(c: float) -> float:   # c + the fewest whole errors that reach bound (1e-6 of an error kept as slack)
        return c if c >= bound else c + s * math.ceil((bound - c) / s - 1e-6)

    best = lifted(0.0)   # no clause: the objective is its errors alone
    if l0 + l1 <= 0.0:
        return float(max(bound, best))
    q_max = int(bound // (l0 + l1)) + 1   # beyond it, complexity alone is at or above bound
    if q_max * (D * q_max) > max_points:
        return bound
    for q in range(1, q_max + 1):
        for L in range(q, D * q + 1):
            c = l0 * q + l1 * L
            best = min(best, lifted(c))
            if c >= bound:
                break
    return float(max(bound, best))


#: slack of the light lattice's rounding, in whole errors (a value within it of a lattice point counts as on it)
_LATTICE_SLACK = 1e-6


def _lattice_points(spec: MasterSpec, limit: float, *, max_literals: int, clauses, literals, errors,
                    empty_errors, max_points: int):
    """``(complexity, least errors, most errors)`` of each ``(q, L)`` of the light lattice in the ranges, in error
    units, up to the first complexity at or above ``limit`` for each ``q`` and the first ``q`` whose least
    complexity is at or above it; ``None`` when they would exceed ``max_points`` or the lambdas are 0. ``q = 0``
    is the empty rule set: ``empty_errors`` errors when given."""
    if spec.form != "light":
        raise InputError(f"the light lattice is for the light form, got form={spec.form!r}")
    D = int(max_literals)
    if D < 1:
        raise InputError(f"max_literals must be >= 1, got {max_literals}")
    s = float(spec.loss_scale)
    l0, l1 = float(spec.lambda0) / s, float(spec.lambda1) / s
    (q_lo, q_hi), (L_lo, L_hi), (e_lo, e_hi) = clauses, literals, errors
    e_hi = math.inf if e_hi is None else float(e_hi)
    if l0 + l1 <= 0.0:
        return None
    points = []
    if q_lo <= 0 and L_lo <= 0:
        if empty_errors is None:
            points.append((0.0, float(e_lo), e_hi))
        elif e_lo <= empty_errors <= e_hi:
            points.append((0.0, float(empty_errors), float(empty_errors)))
    q = max(1, int(q_lo))
    while (q_hi is None or q <= q_hi) and (L_hi is None or q <= L_hi):   # L >= q: no point past L_hi
        lo = max(q, int(L_lo))
        hi = D * q if L_hi is None else min(D * q, int(L_hi))
        if lo <= hi:
            for L in range(lo, hi + 1):
                c = l0 * q + l1 * L
                points.append((c, float(e_lo), e_hi))
                if len(points) > max_points:
                    return None
                if c >= limit:
                    break
            if l0 * q + l1 * lo >= limit:   # every larger q costs more
                break
        q += 1
    return points


def light_lattice_floor(spec: MasterSpec, value: float, *, max_literals: int, clauses=(0, None),
                        literals=(0, None), errors=(0, None), empty_errors: float | None = None,
                        max_points: int = 100_000) -> float:
    """The least light objective ``s e + lambda0 q + lambda1 L`` at or above ``value`` among the rule sets whose
    clauses ``q``, literals ``L`` and weighted errors ``e`` (whole numbers) lie in the given ranges.

    The lattice of :func:`light_objective_floor`, restricted to ranges (``(low, high)``, ``high`` ``None`` for
    no upper end) as a branch and bound's node restricts them, and with the empty rule set (``q = 0``) at its
    one objective when ``empty_errors`` (the weight of the positive rows) is given. If every rule set of the
    ranges has an objective of at least ``value``, each has one of at least this. ``inf`` when no point of the
    ranges lies at or above ``value``; ``value`` unchanged when the points exceed ``max_points`` (a work limit)
    or the lambdas are 0. A value within ``1e-6`` of an error above a point counts as that point.
    """
    return _lattice_nearest(spec, value, above=True, max_literals=max_literals, clauses=clauses, literals=literals,
                            errors=errors, empty_errors=empty_errors, max_points=max_points)


def light_lattice_below(spec: MasterSpec, cap: float, *, max_literals: int, clauses=(0, None),
                        literals=(0, None), errors=(0, None), empty_errors: float | None = None,
                        max_points: int = 100_000) -> float:
    """The largest light objective below ``cap`` among the rule sets of the ranges (see
    :func:`light_lattice_floor`), ``-inf`` when there is none.

    A lower bound ``v`` on the rule sets of the ranges with ``v > light_lattice_below(cap) + 1e-6 s`` proves
    that none of them has an objective below ``cap`` (then ``light_lattice_floor(v) >= cap``). Returns ``cap``
    when the points exceed ``max_points`` or the lambdas are 0 (comparing with ``cap`` itself is still safe).
    """
    return _lattice_nearest(spec, cap, above=False, max_literals=max_literals, clauses=clauses, literals=literals,
                            errors=errors, empty_errors=empty_errors, max_points=max_points)


def _lattice_nearest(spec: MasterSpec, value: float, *, above: bool, **ranges) -> float:
    """The lattice point nearest ``value``: the least at or above it (``above``, :func:`light_lattice_floor`) or
    the largest strictly below it (:func:`light_lattice_below`); ``value`` itself when the points are not listed.

    Each ``(q, L)`` point of :func:`_lattice_points` contributes its complexity ``c`` plus the whole errors in its
    range nearest ``value``'s side: at or above, the fewest ``e >= v - c`` (a value within ``1e-6`` of a whole
    error counts as it); below, the most ``e`` with ``c + e < v``.
    """
    s = float(spec.loss_scale)
    v = float(value) / s
    pts = _lattice_points(spec, v, **ranges)
    if pts is None:
        return float(value)
    if above:
        found = [c + e for c, e_lo, e_hi in pts
                 if (e := max(e_lo, math.ceil(v - c - _LATTICE_SLACK) if c < v else 0.0)) <= e_hi]
        return float(min(found, default=math.inf) * s)
    found = [c + e for c, e_lo, e_hi in pts if c < v and (e := min(e_hi, math.ceil(v - c) - 1.0)) >= e_lo]
    return float(max(found, default=-math.inf) * s)


def aggregate_samples(cover, y, sample_weight=None):
    """Merge samples with the same label and the same coverage over the columns.

    The master depends on a sample only through its label and coverage row, so the merged
    problem (each row weighted by the total weight of its copies) has the same objective
    for every selection. Returns ``(cover_u (m, K) bool, y_u (m,), weight (m,))``.
    """
    yb = _check_y(y)
    cov = _dense_cover(cover, yb.shape[0])
    sw = _weights(sample_weight, yb.shape[0])
    key = np.concatenate([yb[:, None], cov], axis=1)
    packed = np.packbits(key, axis=1)
    first, inverse = unique_rows_index(packed, return_inverse=True)
    weight = np.bincount(inverse.reshape(-1), weights=sw, minlength=first.size)
    return cov[first], yb[first].astype(np.int8), weight.astype(float)


def dominated_columns(cover, y, n_literals, *, grounded=None, sample_weight=None) -> np.ndarray:
    """For each column, a kept column that dominates it in the integer master, or -1 if it is kept.

    Column ``k2`` dominates column ``k`` (``k`` not a grounding column) when, over the rows
    of positive weight, ``k2`` covers every positive row ``k`` covers and no negative row
    ``k`` does not, and ``|k2| <= |k|``. Swapping ``k`` for ``k2`` in a selection (or dropping
    ``k`` when both are selected) then loses no positive coverage, covers no more negatives,
    pays no more penalty ``p_k`` and uses no more complexity ``c_k`` in row (3) (both grow
    with ``|k|``), so the integer master over the kept columns has the same optimum value.
    Ties (equal coverage and size) keep a grounding column, then the lowest index. The
    relation is a strict partial order, so every removed column has a kept (maximal)
    dominator, which is the one returned. Grounding columns are always kept: their
    penalty term ``g (1 - w_u)`` is not comparable.
    """
    yb, cov, n_lit, ground, sw = _columns_data(cover, y, n_literals, grounded, sample_weight)
    K = cov.shape[1]
    out = np.full(K, -1, dtype=np.int64)
    if K < 2:
        return out
    live = sw > 0
    C = cov[live].astype(np.float32).toarray()
    pos = yb[live]
    P, Z = C[pos], C[~pos]
    # extra[k, k2] > 0: k covers a positive row k2 does not, or k2 covers a negative row k does not
    extra = P.T @ (1.0 - P) + (1.0 - Z).T @ Z
    none = extra < 0.5
    weak = none & (n_lit[None, :] <= n_lit[:, None])  # weak[k, k2]: k2 weakly dominates k
    equal = none & none.T & (n_lit[None, :] == n_lit[:, None])
    idx = np.arange(K)
    tie = np.where(ground[None, :] != ground[:, None], ground[None, :], idx[None, :] < idx[:, None])
    beats = weak & (~equal | tie)
    np.fill_diagonal(beats, False)
    beats[ground, :] = False
    removed = beats.any(axis=1)
    kept = ~removed
    for k in np.flatnonzero(removed):
        out[k] = int(np.flatnonzero(beats[k] & kept)[0])
    return out


def _columns_data(cover, y, n_literals, grounded, sample_weight):
    """Checked ``(labels, coverage, n_literals, grounded mask, sample weights)`` of a set of clause columns."""
    yb = _check_y(y)
    cov = _as_cover(cover, yb.shape[0])
    K = cov.shape[1]
    n_literals = np.asarray(n_literals, dtype=float).reshape(-1)
    if n_literals.shape[0] != K:
        raise InputError(f"n_literals has {n_literals.shape[0]} entries for {K} columns")
    grounded = np.zeros(K, dtype=bool) if grounded is None else np.asarray(grounded, dtype=bool).reshape(-1)
    if grounded.shape[0] != K:
        raise InputError(f"grounded has {grounded.shape[0]} entries for {K} columns")
    return yb, cov, n_literals, grounded, _weights(sample_weight, yb.shape[0])


def _grounding_mask(grounding: Sequence[int] | np.ndarray, K: int) -> np.ndarray:
    mask = np.zeros(K, dtype=bool)
    idx = np.asarray(list(grounding), dtype=int)
    if idx.size and (idx.min() < 0 or idx.max() >= K):
        raise InputError(f"grounding column indices must be in [0, {K}), got {idx.tolist()}")
    mask[idx] = True
    return mask


def master_columns(cover, y, n_literals, spec: MasterSpec, *, grounded=None, relax: bool = True,
                   sample_weight=None):
    """Objective coefficients, bounds and row block of clause columns ``w_k``.

    Parameters
    ----------
    cover : bool (n, K) array or sparse matrix
        ``cover[i, k]`` = sample i satisfies clause k.
    y : (n,) {0, 1}
    n_literals : (K,) int
    spec : MasterSpec
    grounded : bool (K,) or None
        Which of these columns are grounding clauses ``u in U``.
    relax : bool
        LP relaxation (``w >= 0``; ``w_u <= 1``) or integer master (``0 <= w <= 1``).
    sample_weight : (n,) or None
        Weight of each sample in the Hamming loss (multiplicities of merged samples).

    Returns
    -------
    cost : (K,) float
    block : csc (n_pos + [1], K)
        Rows (2) restricted to positives, then row (3) coefficients ``c_k`` in the constraint form.
    upper : (K,) float
    """
    yb, cov, n_literals, grounded, sw = _columns_data(cover, y, n_literals, grounded, sample_weight)
    K = cov.shape[1]
    cost = _column_costs(yb, cov, n_literals, grounded, sw, spec)
    block = cov[yb].astype(float)
    if spec.form == "constraint":
        block = sp.vstack([block, sp.csr_matrix(spec.clause_complexity(n_literals)[None, :])]).tocsc()
    upper = np.ones(K) if not relax else np.where(grounded, 1.0, np.inf)
    return cost, sp.csc_matrix(block), upper


def column_costs(cover, y, n_literals, spec: MasterSpec, *, grounded=None, sample_weight=None) -> np.ndarray:
    """Objective coefficient ``c_k`` of each clause column ``w_k`` of the master (eq. (1) / the light form).

    The weighted negatives the clause covers (counted once per clause) times ``loss_scale``, plus its
    complexity penalty, less the grounding penalty for a grounding clause: what selecting the clause
    costs apart from the positives it covers. The master LP (:func:`master_columns`) and the integer
    master's local search price columns with it.
    """
    yb, cov, n_literals, grounded, sw = _columns_data(cover, y, n_literals, grounded, sample_weight)
    return _column_costs(yb, cov, n_literals, grounded, sw, spec)


def _column_costs(yb, cov, n_literals, grounded, sw, spec: MasterSpec) -> np.ndarray:
    fp = np.asarray(cov[~yb].T @ sw[~yb]).ravel().astype(float)
    return spec.loss_scale * fp + spec.clause_penalty(n_literals) - spec.grounding_penalty * grounded


def master_lp(cover, y, n_literals, spec: MasterSpec, *, grounding=(), relax: bool = True,
              sample_weight=None) -> LinearProgram:
    """The master problem (1)-(4) / (5) or the light form as a :class:`~interpretopt._lp.LinearProgram`.

    Column blocks ``xi`` (labelled by the positive sample indices) and ``w`` (the clauses,
    :func:`master_columns`); row blocks ``cover`` (rows (2), labelled as ``xi``) and, in the
    constraint form, the scalar ``complexity`` (row (3)); the objective's constant is the
    grounding term ``g |U|``. ``relax=False`` gives the integer master (``w`` binary).
    """
    yb = _check_y(y)
    cov = _as_cover(cover, yb.shape[0])
    K = cov.shape[1]
    grounded = _grounding_mask(grounding, K)
    pos = np.flatnonzero(yb)
    n_pos = pos.size
    sw = _weights(sample_weight, yb.shape[0])
    cost_w, block, upper_w = master_columns(cov, yb.astype(int), n_literals, spec, grounded=grounded, relax=relax,
                                            sample_weight=sw)
    block = block.tocsr()
    rows = [RowBlock("cover", sp.hstack([sp.eye(n_pos, format="csr"), block[:n_pos]], format="csr"), lower=1.0,
                     labels=pos)]
    if spec.form == "constraint":
        rows.append(RowBlock("complexity", sp.hstack([sp.csr_matrix((1, n_pos)), block[n_pos:]], format="csr"),
                             upper=float(spec.C), scalar=True))
    return LinearProgram.assemble(
        [ColumnBlock("xi", spec.loss_scale * sw[yb], labels=pos),
         ColumnBlock("w", cost_w, upper=upper_w, integer=not relax)],
        rows, offset=spec.grounding_penalty * float(grounded.sum()), sense="min", name="brcg_master")


def master_objective(selected, cover, y, n_literals, spec: MasterSpec, *, grounding=(), sample_weight=None) -> float:
    """Objective (1)/(5) or the light objective of a 0/1 selection, recomputed from scratch."""
    yb = _check_y(y)
    cov = _dense_cover(cover, yb.shape[0])
    sel = np.zeros(cov.shape[1], dtype=bool)
    sel[np.asarray(list(selected), dtype=int)] = True
    covered = cov[:, sel].any(axis=1)
    sw = _weights(sample_weight, yb.shape[0])
    fn = float(sw[yb & ~covered].sum())
    fp = float(sw[~yb] @ cov[~yb][:, sel].sum(axis=1))
    n_literals = np.asarray(n_literals, dtype=float)
    grounded = _grounding_mask(grounding, cov.shape[1])
    return (spec.loss_scale * (fn + fp) + float(spec.clause_penalty(n_literals[sel]).sum())
            + spec.grounding_penalty * float((grounded & ~sel).sum()))


def build_master(cover, y, n_literals, spec: MasterSpec, *, grounding=(), relax: bool = True, sample_weight=None):
    """Pyomo model of the (restricted) master problem, built from :func:`master_lp` (same parameters).

    Components: ``m.P`` (positive sample indices), ``m.K`` (columns), ``m.U`` (grounding
    columns), ``m.xi``, ``m.w``, ``m.cover[i]`` (rows (2)), ``m.complexity`` (row (3),
    constraint form), ``m.obj``. With ``relax=True`` the model carries an import Suffix
    ``m.dual``; the dual of ``m.cover[i]`` is ``mu_i >= 0`` and of ``m.complexity`` is
    ``-lambda <= 0``. ``sample_weight`` weights each sample's Hamming loss (e.g. the
    multiplicities from :func:`aggregate_samples`).
    """
    import pyomo.environ as pyo

    lp = master_lp(cover, y, n_literals, spec, grounding=grounding, relax=relax, sample_weight=sample_weight)
    m = lp.to_pyomo()
    K = lp.cols("w").stop - lp.cols("w").start
    m.P = pyo.Set(initialize=lp.col_labels["xi"], ordered=True)
    m.K = pyo.Set(initialize=range(K), ordered=True)
    m.U = pyo.Set(initialize=np.flatnonzero(_grounding_mask(grounding, K)).tolist(), within=m.K, ordered=True)
    if relax:
        m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    return m


@dataclass(frozen=True)
class MasterSolution:
    """Values read from a solved master: ``w`` (K,), ``xi`` on positives, and, for an LP with
    duals, ``mu`` (duals of rows (2), in the order of ``m.P``) and ``lam`` (``>= 0``, row (3))."""

    w: np.ndarray
    xi: np.ndarray
    objective: float
    mu: np.ndarray | None = None
    lam: float | None = None


def extract_master(m) -> MasterSolution:
    """Read ``w``, ``xi``, the objective and (when present) the duals from a solved master model."""
    import pyomo.environ as pyo

    w = np.array([pyo.value(m.w[k], exception=False) or 0.0 for k in m.K], dtype=float)
    xi = np.array([pyo.value(m.xi[i], exception=False) or 0.0 for i in m.P], dtype=float)
    obj = float(pyo.value(m.obj))
    mu = lam = None
    if hasattr(m, "dual") and len(m.dual) > 0:
        mu = np.array([m.dual.get(m.cover[i], 0.0) for i in m.P], dtype=float)
        lam = float(-m.dual.get(m.complexity, 0.0)) if hasattr(m, "complexity") else 0.0
    return MasterSolution(w=w, xi=xi, objective=obj, mu=mu, lam=lam)


def pricing_weights(y, mu, lam: float, spec: MasterSpec, sample_weight=None):
    """Reduced-cost data ``(r, a, b)``: a clause with coverage ``delta`` and ``L`` literals has
    reduced cost ``a + b L + r @ delta``.

    ``mu`` holds the duals of rows (2) in the order of the positive samples.
    """
    yb = _check_y(y)
    mu = np.asarray(mu, dtype=float)
    if mu.shape[0] != int(yb.sum()):
        raise InputError(f"mu has {mu.shape[0]} entries for {int(yb.sum())} positive samples")
    r = spec.loss_scale * _weights(sample_weight, yb.shape[0])
    r[yb] = -mu
    if spec.form == "light":
        return r, float(spec.lambda0), float(spec.lambda1)
    lam = float(lam or 0.0)
    return r, (lam if spec.complexity == "literals+1" else 0.0), lam


def reduced_costs(cover, n_literals, r, a: float, b: float) -> np.ndarray:
    """Exact reduced costs ``a + b |k| + r @ cover[:, k]`` of clauses (re-pricing with numpy)."""
    cov = _as_cover(cover, len(r))
    return a + b * np.asarray(n_literals, dtype=float) + np.asarray(cov.T @ np.asarray(r, dtype=float)).ravel()


def unique_rows(X_bin, y, sample_weight=None):
    """Merge samples with the same binarized row and the same label into one weighted row.

    The master and the pricing problem depend on a sample only through its literal pattern
    and its label, so the merged problem (each row weighted by the total weight of its
    copies) has the same objective for every clause and every selection.

    Returns
    -------
    X_u : (m, J) bool
    y_u : (m,) int8
    weight : (m,) float
    inverse : (n,) int
        ``X_u[inverse] == X_bin`` row by row.
    """
    X = np.asarray(X_bin, dtype=bool)
    yb = _check_y(y)
    if X.ndim != 2 or X.shape[0] != yb.shape[0]:
        raise InputError(f"X_bin must be 2-D with one row per label, got shape {X.shape} for {yb.shape[0]} labels")
    sw = _weights(sample_weight, yb.shape[0])
    key = np.packbits(np.concatenate([yb[:, None], X], axis=1), axis=1)
    first, inverse = unique_rows_index(key, return_inverse=True)
    inverse = inverse.reshape(-1)
    weight = np.bincount(inverse, weights=sw, minlength=first.size)
    return X[first], yb[first].astype(np.int8), weight, inverse


def depth1_bound(X_bin, r, a: float, b: float) -> float:
    """A lower bound on the reduced cost ``a + b |k| + r @ delta_k`` of *every* clause of one or more literals.

    A clause's coverage is contained in the coverage of each of its literals, so a clause
    of two or more literals costs at least ``a + 2 b + min_j sum_{i covered by j} min(r_i, 0)``;
    single literals are priced exactly. One matrix-vector product; no search.
    """
    X = np.asarray(X_bin)
    r = np.asarray(r, dtype=float)
    if X.shape[1] == 0:
        return np.inf
    Xf = X.astype(float, copy=False)
    sums = Xf.T @ np.column_stack([r, np.minimum(r, 0.0)])  # one pass over X for both sums
    singles = a + b + sums[:, 0]
    longer = a + 2.0 * b + float(np.min(sums[:, 1]))
    return float(min(np.min(singles), longer))


class Depth1Bound:
    """:func:`depth1_bound` for one matrix and many dual vectors, multiplying only base literals.

    The float copy of ``X_bin`` (a matrix or an :class:`~interpretopt._rows.LiteralMatrix`)
    is made once, literal-major, over the literals that are not the complement of an earlier
    one on every row; a complement's sums are the total minus its partner's. Same value as
    :func:`depth1_bound` up to rounding.
    """

    def __init__(self, X_bin) -> None:
        from interpretopt._rows import LiteralMatrix

        self.L = LiteralMatrix.of(X_bin)
        self._XT = self.L.XT[self.L.base].astype(np.float64)   # (J_base, n)
        self.J = self.L.shape[1]

    def __call__(self, r, a: float, b: float) -> float:
        if self.J == 0:
            return np.inf
        V = np.column_stack([np.asarray(r, dtype=float), np.minimum(r, 0.0)])
        sums = self.L.fold((self._XT @ V).T, V.sum(axis=0))   # (2, J)
        return float(min(np.min(a + b + sums[0]), a + 2.0 * b + float(np.min(sums[1]))))


@dataclass(frozen=True)
class LagrangianBound:
    """The parts of eqs. (B1)-(B4) that do not depend on the clauses outside the master.

    ``value(rc_outside)`` is the bound for a given lower bound on the reduced cost of every
    clause that is not a column; ``rc_needed(target)`` is the largest ``-rc_outside`` for
    which the bound still reaches ``target`` (a pricing cutoff: proving that no clause has
    a reduced cost below ``-rc_needed(target)`` proves the bound ``target``).

    Attributes
    ----------
    d0 : float
        ``D0 + G`` of (B1).
    rc_min_cols, ratio_cols : float
        ``min(0, rc_k)`` and ``min(0, rc_k / q_k)`` over the non-grounding columns.
    m_rows : int
        Rows of the master (the ``m`` of (B4)).
    q_min : float
        Smallest ``q_k`` of a clause of one or more literals.
    C : float or None
        Complexity bound (constraint form), ``None`` in the light form.
    """

    d0: float
    rc_min_cols: float
    ratio_cols: float
    m_rows: int
    q_min: float
    C: float | None

    def value(self, rc_outside: float) -> float:
        rc_out = float(rc_outside)
        rc_min = min(0.0, self.rc_min_cols, rc_out)
        candidates = [0.0]
        if np.isfinite(rc_min):
            candidates.append(self.d0 + self.m_rows * rc_min)
        if self.q_min > 0:
            rho = min(0.0, self.ratio_cols, rc_out / self.q_min if rc_out < 0 else 0.0)
            if np.isfinite(rho):
                candidates.append(self.d0 + rho * self.C if self.C is not None else self.d0 / (1.0 - rho))
        return float(max(candidates))

    def rc_needed(self, target: float) -> float:
        """Largest ``eps >= 0`` with ``value(-eps) >= target`` (0 when no ``eps`` reaches it)."""
        eps = 0.0
        if self.m_rows > 0 and self.rc_min_cols * self.m_rows + self.d0 >= target:
            eps = max(eps, (self.d0 - target) / self.m_rows)
        if self.q_min > 0:
            rho_t = (target - self.d0) / self.C if self.C is not None else (1.0 - self.d0 / target if target > 0 else 0.0)
            if rho_t <= 0 and self.ratio_cols >= rho_t:
                eps = max(eps, -rho_t * self.q_min)
        return float(max(eps, 0.0))


def lagrangian_terms(spec: MasterSpec, y, mu, lam: float, cover, n_literals, *, grounded=None,
                     sample_weight=None) -> LagrangianBound:
    """The terms of eqs. (B1)-(B4) for multipliers ``mu`` (rows (2)) and ``lam`` (row (3)).

    Parameters
    ----------
    spec : MasterSpec
    y : (n,) {0, 1}
        Labels of the master's rows.
    mu : (n_pos,) float
        Multipliers of rows (2) in the order of the positive rows (clipped to ``[0, s_i]``).
    lam : float
        Multiplier of row (3) (clipped to ``>= 0``; ignored in the light form).
    cover : (n, K) bool or sparse
        Coverage of the columns of the restricted master.
    n_literals : (K,) int
    grounded : (K,) bool or None
        Which columns are grounding clauses (bounded by 1).
    sample_weight : (n,) or None
        Row weights (multiplicities of merged rows).
    """
    return _lagrangian(spec, y, mu, lam, cover, n_literals, grounded, sample_weight)[0]


def _lagrangian(spec: MasterSpec, y, mu, lam: float, cover, n_literals, grounded,
                sample_weight) -> tuple[LagrangianBound, np.ndarray, np.ndarray]:
    """:func:`lagrangian_terms`, the columns' reduced costs (grounding ones less their penalty)
    and the mask of the non-grounding columns."""
    yb, cov, n_literals, grounded, sw = _columns_data(cover, y, n_literals, grounded, sample_weight)
    K = cov.shape[1]
    s = spec.loss_scale * sw[yb]
    mu = np.asarray(mu, dtype=float).reshape(-1)
    if mu.shape[0] != s.shape[0]:
        raise InputError(f"mu has {mu.shape[0]} entries for {s.shape[0]} positive rows")
    mu = np.clip(np.nan_to_num(mu, nan=0.0), 0.0, s)
    constraint = spec.form == "constraint"
    lam = max(float(lam or 0.0), 0.0) if constraint else 0.0
    g = spec.grounding_penalty
    r, a, b = pricing_weights(yb.astype(np.int8), mu, lam, spec, sample_weight=sw)
    rc = reduced_costs(cov, n_literals, r, a, b) - g * grounded if K else np.zeros(0)
    d0 = g * float(grounded.sum()) + float(mu.sum()) - (lam * float(spec.C) if constraint else 0.0)
    d0 += float(np.minimum(rc[grounded], 0.0).sum())
    free = ~grounded
    q = spec.clause_complexity(n_literals[free]) if constraint else spec.clause_penalty(n_literals[free])
    q_min = float(spec.clause_complexity(np.ones(1))[0] if constraint else spec.clause_penalty(np.ones(1))[0])
    rcf = rc[free]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(q > 0, rcf / np.where(q > 0, q, 1.0), np.where(rcf < 0, -np.inf, 0.0))
    terms = LagrangianBound(d0=float(d0), rc_min_cols=min(0.0, float(rcf.min()) if rcf.size else 0.0),
                            ratio_cols=min(0.0, float(ratios.min()) if ratios.size else 0.0),
                            m_rows=int(yb.sum()) + (1 if constraint else 0), q_min=q_min,
                            C=float(spec.C) if constraint else None)
    return terms, rc, free


def lagrangian_bound(spec: MasterSpec, y, mu, lam: float, cover, n_literals, *, rc_outside: float,
                     grounded=None, sample_weight=None) -> float:
    """Valid lower bound on the LP over all clauses (hence on the integer master), eqs. (B1)-(B4).

    ``rc_outside`` is a lower bound, at these multipliers, on the reduced cost of every
    non-grounding clause that is not a column (``numpy.inf`` when every clause is a column,
    ``-inf`` when nothing is known). Returns ``max(LB, LB', 0)`` of the module docstring;
    the other parameters are those of :func:`lagrangian_terms`.
    """
    return lagrangian_terms(spec, y, mu, lam, cover, n_literals, grounded=grounded,
                            sample_weight=sample_weight).value(rc_outside)


def fixed_by_reduced_cost(spec: MasterSpec, y, mu, lam: float, cover, n_literals, *, incumbent: float,
                          grounded=None, sample_weight=None, rtol: float = 1e-9) -> np.ndarray:
    """Non-grounding columns that no 0/1 selection better than ``incumbent`` uses (reduced-cost fixing).

    Eq. (B1) holds for every feasible point of the master, so for every 0/1 selection ``w``
    (the integer master over these columns), at any multipliers ``mu in [0, s]``,
    ``lam >= 0``: ``obj(w) >= D0 + G + sum_{k not in U} rc_k w_k``. With ``N = sum_{k not in
    U} min(0, rc_k)``, a selection with ``w_j = 1`` has ``sum_{k not in U} rc_k w_k >= N +
    max(0, rc_j)``, so ``obj(w) >= D0 + G + N + max(0, rc_j)``. When that exceeds
    ``incumbent``, no selection that uses ``j`` is better than the incumbent: the integer
    master without those columns has the same optimum whenever that optimum beats the
    incumbent (the classical reduced-cost fixing argument, here with the Lagrangian terms of
    :func:`lagrangian_terms`). Returns a boolean mask over the columns; ``rtol`` (relative to
    ``max(1, |incumbent|)``) keeps float error on the safe side.
    """
    terms, rc, free = _lagrangian(spec, y, mu, lam, cover, n_literals, grounded, sample_weight)
    if rc.size == 0:
        return np.zeros(0, dtype=bool)
    base = terms.d0 + float(np.minimum(rc[free], 0.0).sum())
    margin = rtol * max(1.0, abs(float(incumbent)))
    return free & (base + np.maximum(rc, 0.0) > float(incumbent) + margin)


def _zero_sets(X_bin: np.ndarray):
    """``S_i`` (literals equal to 0 for sample i) as a CSR matrix with unit entries."""
    return sp.csr_matrix(~np.asarray(X_bin, dtype=bool), dtype=float)


def pricing_lp(X_bin, y, r, a: float, b: float, max_literals: int, *, exclude: Sequence[Sequence[int]] = (),
               samples=None, cutoff: float | None = None) -> LinearProgram:
    """The aggregated pricing MILP as a :class:`~interpretopt._lp.LinearProgram`.

    Column blocks ``z`` (literals, binary) and ``delta`` (the samples kept: ``samples``,
    default all, in that order; binary on positives, in [0, 1] on negatives; samples with
    ``r_i = 0`` may be left out); row blocks ``pos_row`` / ``neg_row`` (labelled by sample
    index), the scalar ``size`` (``1 <= sum_j z_j <= D``), ``exclude`` (no-good cuts
    removing the clauses in ``exclude``, e.g. the grounding clauses) and the scalar
    ``cutoff_row`` (reduced cost ``<= cutoff``, free when ``cutoff`` is None; an infeasible
    program then proves that no clause has a reduced cost at or below it). The objective's
    constant is ``a``.
    """
    X_bin = np.asarray(X_bin, dtype=bool)
    n, J = X_bin.shape
    r = np.asarray(r, dtype=float)
    D = int(max_literals)
    if D < 1:
        raise InputError(f"max_literals must be >= 1, got {max_literals}")
    yb = _check_y(y)
    keep = np.arange(n) if samples is None else np.asarray(samples, dtype=int)
    is_pos = yb[keep]
    IP, IZ = keep[is_pos], keep[~is_pos]
    S = _zero_sets(X_bin)
    nP, nZ, nI = IP.size, IZ.size, keep.size
    # delta columns in the order of keep; positive rows, then negative rows, in that order
    delta_pos = sp.csr_matrix((np.full(nP, float(D)), (np.arange(nP), np.flatnonzero(is_pos))), shape=(nP, nI))
    delta_neg = sp.csr_matrix((np.ones(nZ), (np.arange(nZ), np.flatnonzero(~is_pos))), shape=(nZ, nI))
    excl = [sorted(set(int(j) for j in c)) for c in exclude if len(c) > 0]
    E = np.full((len(excl), J), -1.0)
    for e, c in enumerate(excl):
        E[e, c] = 1.0
    cost = np.concatenate([np.full(J, float(b)), r[keep]])
    rows = [
        RowBlock("pos_row", sp.hstack([S[IP], delta_pos], format="csr"), upper=float(D), labels=IP),
        RowBlock("neg_row", sp.hstack([S[IZ], delta_neg], format="csr"), lower=1.0, labels=IZ),
        RowBlock("size", sp.hstack([sp.csr_matrix(np.ones((1, J))), sp.csr_matrix((1, nI))], format="csr"),
                 lower=1.0, upper=float(D), scalar=True),
        RowBlock("exclude", sp.hstack([sp.csr_matrix(E), sp.csr_matrix((len(excl), nI))], format="csr"),
                 upper=np.array([len(c) - 1.0 for c in excl])),
        RowBlock("cutoff_row", sp.csr_matrix(cost[None, :]), upper=_cutoff_rhs(cutoff, a), scalar=True),
    ]
    return LinearProgram.assemble(
        [ColumnBlock("z", cost[:J], upper=1.0, integer=True),
         ColumnBlock("delta", cost[J:], upper=1.0, integer=is_pos, labels=keep)],
        rows, offset=float(a), sense="min", name="brcg_pricing")


def _cutoff_rhs(cutoff: float | None, a: float) -> float:
    return np.inf if cutoff is None else float(cutoff) - float(a)


def set_pricing_objective(lp: LinearProgram, r, a: float, b: float, cutoff: float | None = None) -> LinearProgram:
    """The program of :func:`pricing_lp` with new duals: objective ``a + b |z| + r delta`` and cutoff row.

    Only the costs, the constant and the cutoff row change (the structure is shared);
    ``cutoff=None`` leaves the cutoff row free.
    """
    zs, ds, cut = lp.cols("z"), lp.cols("delta"), lp.rows("cutoff_row")
    if cut.stop != lp.n_rows:
        raise InputError("the cutoff row must be the last row of the pricing program")
    r = np.asarray(r, dtype=float)
    cost = np.concatenate([np.full(zs.stop - zs.start, float(b)), r[np.asarray(lp.col_labels["delta"], dtype=int)]])
    if ds.stop != cost.shape[0]:
        raise InputError("the pricing program's columns must be z then delta")
    A = sp.csr_array(sp.vstack([lp.A[: cut.start], sp.csr_array(cost[None, :])], format="csr"))
    upper = lp.row_upper.copy()
    upper[cut.start] = _cutoff_rhs(cutoff, a)
    return lp.with_changes(c=cost, offset=float(a), A=A, row_upper=upper)


def build_pricing(X_bin, y, r, a: float, b: float, max_literals: int, *, exclude: Sequence[Sequence[int]] = (),
                  samples=None, cutoff: float | None = None):
    """Pyomo model of the aggregated pricing MILP, built from :func:`pricing_lp` (same parameters).

    Components: ``m.J`` (literals), ``m.I`` (samples kept), ``m.IP``/``m.IZ`` (positives /
    negatives among them), ``m.z``, ``m.delta``, ``m.pos_row``, ``m.neg_row``, ``m.size``,
    ``m.exclude``, ``m.cutoff_row`` (present only with a ``cutoff``), ``m.obj``.
    """
    import pyomo.environ as pyo

    lp = pricing_lp(X_bin, y, r, a, b, max_literals, exclude=exclude, samples=samples, cutoff=cutoff)
    m = lp.to_pyomo()
    m.J = pyo.Set(initialize=range(lp.cols("z").stop), ordered=True)
    m.I = pyo.Set(initialize=lp.col_labels["delta"], ordered=True)
    m.IP = pyo.Set(initialize=lp.row_labels["pos_row"], ordered=True)
    m.IZ = pyo.Set(initialize=lp.row_labels["neg_row"], ordered=True)
    return m


def extract_pricing(m, *, threshold: float = 0.5) -> tuple[int, ...]:
    """Literal indices chosen by a solved pricing model."""
    import pyomo.environ as pyo

    return tuple(int(j) for j in m.J if (pyo.value(m.z[j], exception=False) or 0.0) > threshold)


def pricing_clause(x, lp: LinearProgram, *, threshold: float = 0.5) -> tuple[int, ...]:
    """Literal indices chosen by a primal vector of :func:`pricing_lp`'s program ``lp``."""
    return tuple(int(j) for j in np.flatnonzero(np.asarray(x, dtype=float)[lp.cols("z")] > threshold))
