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

This module only builds models and reads answers (``build_*``, ``extract_*``), states the
same mathematics as arrays (``master_arrays``, ``master_columns``, ``pricing_arrays``) for
the direct incremental solver path, and evaluates the bounds above from multipliers; it
never solves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from interpretopt._validation import check_in_range
from interpretopt.exceptions import InputError

__all__ = [
    "MasterSpec",
    "MasterArrays",
    "MasterSolution",
    "PricingArrays",
    "aggregate_samples",
    "build_master",
    "extract_master",
    "master_arrays",
    "master_columns",
    "master_objective",
    "pricing_weights",
    "reduced_costs",
    "LagrangianBound",
    "lagrangian_bound",
    "lagrangian_terms",
    "depth1_bound",
    "unique_rows",
    "build_pricing",
    "set_pricing_objective",
    "extract_pricing",
    "pricing_arrays",
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


def aggregate_samples(cover, y, sample_weight=None):
    """Merge samples with the same label and the same coverage over the columns.

    The master depends on a sample only through its label and coverage row, so the merged
    problem (each row weighted by the total weight of its copies) has the same objective
    for every selection. Returns ``(cover_u (m, K) bool, y_u (m,), weight (m,))``.
    """
    yb = _check_y(y)
    cov = _as_cover(cover, yb.shape[0]).toarray()
    sw = _weights(sample_weight, yb.shape[0])
    key = np.concatenate([yb[:, None], cov], axis=1)
    packed = np.packbits(key, axis=1)
    _, first, inverse = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    weight = np.bincount(inverse.reshape(-1), weights=sw, minlength=first.size)
    return cov[first], yb[first].astype(np.int8), weight.astype(float)


def _grounding_mask(grounding: Sequence[int] | np.ndarray, K: int) -> np.ndarray:
    mask = np.zeros(K, dtype=bool)
    idx = np.asarray(list(grounding), dtype=int)
    if idx.size and (idx.min() < 0 or idx.max() >= K):
        raise InputError(f"grounding column indices must be in [0, {K}), got {idx.tolist()}")
    mask[idx] = True
    return mask


@dataclass
class MasterArrays:
    """The master as arrays: columns ``[xi_P ..., w_K ...]``, rows ``[(2) for P ..., (3)]``.

    ``lower <= A x <= upper`` row-wise, ``col_lower <= x <= col_upper``, minimize
    ``cost @ x + constant``; ``integer`` marks the ``w`` columns of the integer master.
    """

    cost: np.ndarray
    A: sp.csc_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    integer: np.ndarray
    constant: float
    n_pos: int
    has_complexity_row: bool
    positives: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))


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
    yb = _check_y(y)
    cov = _as_cover(cover, yb.shape[0])
    K = cov.shape[1]
    n_literals = np.asarray(n_literals, dtype=float).reshape(-1)
    if n_literals.shape[0] != K:
        raise InputError(f"n_literals has {n_literals.shape[0]} entries for {K} columns")
    grounded = np.zeros(K, dtype=bool) if grounded is None else np.asarray(grounded, dtype=bool)
    sw = _weights(sample_weight, yb.shape[0])
    fp = np.asarray(cov[~yb].T @ sw[~yb]).ravel().astype(float)
    cost = spec.loss_scale * fp + spec.clause_penalty(n_literals) - spec.grounding_penalty * grounded
    block = cov[yb].astype(float)
    if spec.form == "constraint":
        block = sp.vstack([block, sp.csr_matrix(spec.clause_complexity(n_literals)[None, :])]).tocsc()
    upper = np.ones(K) if not relax else np.where(grounded, 1.0, np.inf)
    return cost, sp.csc_matrix(block), upper


def master_arrays(cover, y, n_literals, spec: MasterSpec, *, grounding=(), relax: bool = True,
                  sample_weight=None) -> MasterArrays:
    """The master problem (LP relaxation or integer master) as arrays; same model as :func:`build_master`."""
    yb = _check_y(y)
    cov = _as_cover(cover, yb.shape[0])
    K = cov.shape[1]
    grounded = _grounding_mask(grounding, K)
    n_pos = int(yb.sum())
    sw = _weights(sample_weight, yb.shape[0])
    cost_w, block, upper_w = master_columns(cov, yb.astype(int), n_literals, spec, grounded=grounded, relax=relax,
                                            sample_weight=sw)
    n_rows = n_pos + (1 if spec.form == "constraint" else 0)
    xi_block = sp.eye(n_rows, n_pos, format="csc")
    A = sp.hstack([xi_block, block], format="csc")
    row_lower = np.concatenate([np.ones(n_pos), [-np.inf] if spec.form == "constraint" else []])
    row_upper = np.concatenate([np.full(n_pos, np.inf), [float(spec.C)] if spec.form == "constraint" else []])
    cost = np.concatenate([spec.loss_scale * sw[yb], cost_w])
    return MasterArrays(
        cost=cost, A=A, row_lower=row_lower, row_upper=row_upper,
        col_lower=np.zeros(n_pos + K), col_upper=np.concatenate([np.full(n_pos, np.inf), upper_w]),
        integer=np.concatenate([np.zeros(n_pos, dtype=bool), np.full(K, not relax)]),
        constant=spec.grounding_penalty * float(grounded.sum()), n_pos=n_pos,
        has_complexity_row=spec.form == "constraint", positives=np.flatnonzero(yb),
    )


def master_objective(selected, cover, y, n_literals, spec: MasterSpec, *, grounding=(), sample_weight=None) -> float:
    """Objective (1)/(5) or the light objective of a 0/1 selection, recomputed from scratch."""
    yb = _check_y(y)
    cov = _as_cover(cover, yb.shape[0]).toarray()
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
    """Pyomo model of the (restricted) master problem.

    Components: ``m.P`` (positive sample indices), ``m.K`` (columns), ``m.xi``, ``m.w``,
    ``m.hamming`` (expression (1)), ``m.cover[i]`` (rows (2)), ``m.complexity`` (row (3),
    constraint form), ``m.obj``. With ``relax=True`` the model carries an import Suffix
    ``m.dual``; the dual of ``m.cover[i]`` is ``mu_i >= 0`` and of ``m.complexity`` is
    ``-lambda <= 0``. ``sample_weight`` weights each sample's Hamming loss (e.g. the
    multiplicities from :func:`aggregate_samples`).
    """
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression

    yb = _check_y(y)
    cov = _as_cover(cover, yb.shape[0])
    n, K = cov.shape
    n_literals = np.asarray(n_literals, dtype=float).reshape(-1)
    if n_literals.shape[0] != K:
        raise InputError(f"n_literals has {n_literals.shape[0]} entries for {K} columns")
    grounded = _grounding_mask(grounding, K)
    pos = np.flatnonzero(yb)
    sw = _weights(sample_weight, n)
    fp = np.asarray(cov[~yb].T @ sw[~yb]).ravel().astype(float)
    c = spec.clause_complexity(n_literals)
    pen = spec.clause_penalty(n_literals)

    m = pyo.ConcreteModel(name="brcg_master")
    m.P = pyo.Set(initialize=pos.tolist(), ordered=True)
    m.K = pyo.Set(initialize=range(K), ordered=True)
    m.U = pyo.Set(initialize=np.flatnonzero(grounded).tolist(), within=m.K, ordered=True)
    m.xi = pyo.Var(m.P, domain=pyo.NonNegativeReals)
    if relax:
        m.w = pyo.Var(m.K, domain=pyo.NonNegativeReals)
        for u in m.U:
            m.w[u].setub(1.0)
    else:
        m.w = pyo.Var(m.K, domain=pyo.Binary)

    cov_pos = cov[pos].tocsr()
    rows = {}
    for r, i in enumerate(pos):
        start, end = cov_pos.indptr[r], cov_pos.indptr[r + 1]
        ks = cov_pos.indices[start:end]
        rows[int(i)] = ks
    m.cover = pyo.Constraint(
        m.P,
        rule=lambda m, i: LinearExpression(constant=0.0, linear_coefs=[1.0] + [1.0] * len(rows[i]),
                                           linear_vars=[m.xi[i]] + [m.w[int(k)] for k in rows[i]]) >= 1,
    )
    if spec.form == "constraint":
        m.complexity = pyo.Constraint(
            expr=LinearExpression(constant=0.0, linear_coefs=c.tolist(), linear_vars=[m.w[k] for k in m.K])
            <= float(spec.C))
    m.hamming = pyo.Expression(expr=LinearExpression(
        constant=0.0, linear_coefs=sw[pos].tolist() + fp.tolist(),
        linear_vars=[m.xi[i] for i in m.P] + [m.w[k] for k in m.K]))
    ground_const = spec.grounding_penalty * float(grounded.sum())
    coefs = (pen - spec.grounding_penalty * grounded).tolist()
    m.obj = pyo.Objective(
        expr=spec.loss_scale * m.hamming
        + LinearExpression(constant=ground_const, linear_coefs=coefs, linear_vars=[m.w[k] for k in m.K]),
        sense=pyo.minimize)
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
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
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
    singles = a + b + Xf.T @ r
    longer = a + 2.0 * b + float(np.min(Xf.T @ np.minimum(r, 0.0)))
    return float(min(np.min(singles), longer))


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
    yb = _check_y(y)
    cov = _as_cover(cover, yb.shape[0])
    K = cov.shape[1]
    n_literals = np.asarray(n_literals, dtype=float).reshape(-1)
    if n_literals.shape[0] != K:
        raise InputError(f"n_literals has {n_literals.shape[0]} entries for {K} columns")
    grounded = np.zeros(K, dtype=bool) if grounded is None else np.asarray(grounded, dtype=bool).reshape(-1)
    if grounded.shape[0] != K:
        raise InputError(f"grounded has {grounded.shape[0]} entries for {K} columns")
    sw = _weights(sample_weight, yb.shape[0])
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
    return LagrangianBound(d0=float(d0), rc_min_cols=min(0.0, float(rcf.min()) if rcf.size else 0.0),
                           ratio_cols=min(0.0, float(ratios.min()) if ratios.size else 0.0),
                           m_rows=int(yb.sum()) + (1 if constraint else 0), q_min=q_min,
                           C=float(spec.C) if constraint else None)


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


def _zero_sets(X_bin: np.ndarray):
    """``S_i`` (literals equal to 0 for sample i) as a CSR matrix with unit entries."""
    return sp.csr_matrix(~np.asarray(X_bin, dtype=bool), dtype=float)


def build_pricing(X_bin, y, r, a: float, b: float, max_literals: int, *, exclude: Sequence[Sequence[int]] = (),
                  samples=None):
    """Pyomo model of the aggregated pricing MILP.

    Components: ``m.J`` (literals), ``m.I`` (samples kept: ``samples``, default all; samples
    with ``r_i = 0`` may be left out), ``m.IP``/``m.IZ`` (positives/negatives among them), ``m.z``,
    ``m.delta`` (binary on positives, continuous in [0, 1] on negatives), ``m.r``, ``m.a``,
    ``m.b`` (mutable parameters: only the objective changes between iterations),
    ``m.pos_row``, ``m.neg_row``, ``m.size_max``, ``m.size_min``, ``m.exclude`` (no-good
    cuts removing the clauses in ``exclude``, e.g. the grounding clauses).
    """
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression

    X_bin = np.asarray(X_bin, dtype=bool)
    n, J = X_bin.shape
    r = np.asarray(r, dtype=float)
    D = int(max_literals)
    if D < 1:
        raise InputError(f"max_literals must be >= 1, got {max_literals}")
    yb = _check_y(y)
    keep = np.arange(n) if samples is None else np.asarray(samples, dtype=int)
    S = _zero_sets(X_bin).tocsr()
    pos_set = set(np.flatnonzero(yb).tolist())

    m = pyo.ConcreteModel(name="brcg_pricing")
    m.J = pyo.Set(initialize=range(J), ordered=True)
    m.I = pyo.Set(initialize=keep.tolist(), ordered=True)
    m.IP = pyo.Set(initialize=[i for i in keep.tolist() if i in pos_set], ordered=True)
    m.IZ = pyo.Set(initialize=[i for i in keep.tolist() if i not in pos_set], ordered=True)
    m.z = pyo.Var(m.J, domain=pyo.Binary)
    m.delta = pyo.Var(m.I, bounds=(0, 1), domain=pyo.Reals)
    for i in m.IP:
        m.delta[i].domain = pyo.Binary
    m.r = pyo.Param(m.I, initialize={int(i): float(r[i]) for i in keep}, mutable=True)
    m.a = pyo.Param(initialize=float(a), mutable=True)
    m.b = pyo.Param(initialize=float(b), mutable=True)

    def zs(i):
        s, e = S.indptr[i], S.indptr[i + 1]
        return S.indices[s:e]

    m.pos_row = pyo.Constraint(m.IP, rule=lambda m, i: LinearExpression(
        constant=0.0, linear_coefs=[float(D)] + [1.0] * len(zs(i)),
        linear_vars=[m.delta[i]] + [m.z[int(j)] for j in zs(i)]) <= D)
    m.neg_row = pyo.Constraint(m.IZ, rule=lambda m, i: LinearExpression(
        constant=0.0, linear_coefs=[1.0] + [1.0] * len(zs(i)),
        linear_vars=[m.delta[i]] + [m.z[int(j)] for j in zs(i)]) >= 1)
    size = LinearExpression(constant=0.0, linear_coefs=[1.0] * J, linear_vars=[m.z[j] for j in m.J])
    m.size_max = pyo.Constraint(expr=size <= D)
    m.size_min = pyo.Constraint(expr=size >= 1)
    excl = [tuple(sorted(int(j) for j in c)) for c in exclude if len(c) > 0]
    m.E = pyo.Set(initialize=range(len(excl)))
    m.exclude = pyo.Constraint(m.E, rule=lambda m, e: pyo.quicksum(m.z[j] for j in excl[e])
                               - pyo.quicksum(m.z[j] for j in m.J if j not in set(excl[e])) <= len(excl[e]) - 1)
    m.obj = pyo.Objective(expr=m.a + m.b * pyo.quicksum(m.z[j] for j in m.J)
                          + pyo.quicksum(m.r[i] * m.delta[i] for i in m.I), sense=pyo.minimize)
    # objective cutoff (only clauses of reduced cost <= cutoff are feasible); inactive until set
    m.cutoff = pyo.Param(initialize=0.0, mutable=True)
    m.cutoff_row = pyo.Constraint(expr=m.obj.expr <= m.cutoff)
    m.cutoff_row.deactivate()
    return m


def set_pricing_objective(m, r, a: float, b: float, cutoff: float | None = None) -> None:
    """Update the pricing objective in place (new duals); the model structure does not change.

    ``cutoff`` activates the row ``objective <= cutoff`` (an infeasible model then proves
    that no clause has a reduced cost at or below it); ``None`` deactivates it.
    """
    r = np.asarray(r, dtype=float)
    for i in m.I:
        m.r[i] = float(r[i])
    m.a = float(a)
    m.b = float(b)
    if cutoff is None:
        m.cutoff_row.deactivate()
    else:
        m.cutoff = float(cutoff)
        m.cutoff_row.activate()


def extract_pricing(m, *, threshold: float = 0.5) -> tuple[int, ...]:
    """Literal indices chosen by a solved pricing model."""
    import pyomo.environ as pyo

    return tuple(int(j) for j in m.J if (pyo.value(m.z[j], exception=False) or 0.0) > threshold)


@dataclass
class PricingArrays:
    """Aggregated pricing MILP as arrays: columns ``[z_J ..., delta_I ...]``; rows ``[pos rows, neg rows,
    size row, exclusion rows]``; ``I`` lists the sample index of each delta column."""

    cost: np.ndarray
    A: sp.csc_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    integer: np.ndarray
    constant: float
    I: np.ndarray
    n_literals: int


def pricing_arrays(X_bin, y, r, a: float, b: float, max_literals: int, *, exclude: Sequence[Sequence[int]] = (),
                   samples=None) -> PricingArrays:
    """The aggregated pricing MILP of :func:`build_pricing` as arrays."""
    X_bin = np.asarray(X_bin, dtype=bool)
    n, J = X_bin.shape
    r = np.asarray(r, dtype=float)
    D = float(int(max_literals))
    yb = _check_y(y)
    keep = np.arange(n) if samples is None else np.asarray(samples, dtype=int)
    is_pos = yb[keep]
    IP, IZ = keep[is_pos], keep[~is_pos]
    S = _zero_sets(X_bin)
    nP, nZ, nI = IP.size, IZ.size, keep.size
    # delta columns ordered as keep; row order: IP rows, IZ rows
    order_pos = np.flatnonzero(is_pos)
    order_neg = np.flatnonzero(~is_pos)
    rows_z = sp.vstack([S[IP], S[IZ], sp.csr_matrix(np.ones((1, J)))]).tocsr()
    delta_block = sp.lil_matrix((nP + nZ + 1, nI))
    delta_block[np.arange(nP), order_pos] = D
    delta_block[nP + np.arange(nZ), order_neg] = 1.0
    blocks = [sp.hstack([rows_z, delta_block.tocsr()])]
    lower = [np.full(nP, -np.inf), np.ones(nZ), [1.0]]
    upper = [np.full(nP, D), np.full(nZ, np.inf), [D]]
    for c in exclude:
        c = sorted(set(int(j) for j in c))
        if not c:
            continue
        row = -np.ones(J)
        row[c] = 1.0
        blocks.append(sp.hstack([sp.csr_matrix(row[None, :]), sp.csr_matrix((1, nI))]))
        lower.append([-np.inf])
        upper.append([len(c) - 1.0])
    A = sp.vstack(blocks).tocsc()
    return PricingArrays(
        cost=np.concatenate([np.full(J, float(b)), r[keep]]), A=A,
        row_lower=np.concatenate([np.asarray(x, dtype=float) for x in lower]),
        row_upper=np.concatenate([np.asarray(x, dtype=float) for x in upper]),
        col_lower=np.zeros(J + nI), col_upper=np.ones(J + nI),
        integer=np.concatenate([np.ones(J, dtype=bool), is_pos]), constant=float(a), I=keep, n_literals=J)
