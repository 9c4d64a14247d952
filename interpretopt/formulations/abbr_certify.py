r"""Exact selection of a rule list from a pool maximizing the ABBR interpolated at support s.

Certifies Rule List Search (Yao et al., TMLR 2025): for a pool R~ of rules with coverage
``[N]_r`` and black-box ranks ``n``, find the list of at most M rules maximizing
``abbr(l, s)`` of Section 4.1. The value of a list depends only on ``A = [N]_{l_{m*}}`` (the
union of its first m* rules, ``|A| <= sN``) and the increment ``D = [N]_{r_{m*+1}} \ A`` of
the next rule (or of the dummy rule covering every sample, footnote 1):

    abbr(l, s) = ( sum_{n in A} n + theta * sum_{n in D} n ) / (s N * N),
    theta = (sN - |A|) / |D|,

i.e. the average rank of a set of "support exactly s" that takes all of A and the same
fraction theta of every sample of D. This is linear once the product ``theta * d_n`` of the
continuous fraction and the binary increment indicator is linearized exactly (the product
of a binary and a [0, 1] variable needs no iteration); so the MILP below is exact, with
neither an iteration over the covered count nor Dinkelbach's method.

Samples with identical coverage over the pool are merged into patterns p with weight
``N_p`` (count) and ``S_p`` (rank sum); ``R_p`` is the set of pool rules covering p.

Variables: ``u_r`` (r in A's rules), ``v_r`` (r is the next rule), ``v0`` (the dummy is
next), ``x_p`` (p in A), ``d_p`` (p in D), ``theta``, ``w_p = theta * d_p``::

    max   sum_p S_p (x_p + w_p) / (s N * N)
    s.t.  x_p <= sum_{r in R_p} u_r,      x_p >= u_r  (r in R_p)        A = union of A's rules
          d_p <= sum_{r in R_p} v_r + v0, d_p <= 1 - x_p,
          d_p >= sum_{r in R_p} v_r + v0 - x_p                         D = next rule minus A
          w_p <= d_p,  w_p <= theta,  w_p >= theta - (1 - d_p),  w_p >= 0
          sum_p N_p (x_p + w_p) = s N                                   support exactly s
          sum_r v_r + v0 = 1,   u_r + v_r <= 1,   1 <= sum_r (u_r + v_r) <= M
          u, v, v0 binary;  x, d, w, theta in [0, 1]

(x and d take 0/1 values at every integer u, v, so they need not be declared integer.)
Every feasible point is the value of the list "A's rules, then the next rule", and every
list of at most M distinct pool rules gives a feasible point with its value, so the optimum
equals the best ``abbr(l, s)`` over such lists (checked by brute force in the tests).

``build`` returns the Pyomo model, ``extract`` reads the list, ``start`` writes a given list
(e.g. the annealed one) into the model's variables as a feasible point (a MIP start whose
objective is that list's ``abbr(l, s)``); none of them solves.

What the optimum certifies: the best list of at most M rules *from the rules given*. When
they are the whole filtered pool R~ it is the pool's optimum (the cap of any search over
R~); when they are a subset it is only the optimum over that subset, and its bound is not a
bound over R~ (:meth:`interpretopt.methods.abbr.RuleListSearch.certify` labels which).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interpretopt._rows import unique_rows_index
from interpretopt.exceptions import InputError

__all__ = ["CertifyData", "CertifySolution", "patterns", "build", "extract", "start"]


@dataclass
class CertifyData:
    """Pattern aggregation of a pool's coverage.

    cover : bool (P, k) pattern-by-rule coverage; count : (P,) N_p; rank_sum : (P,) S_p;
    n : N; s : target support; M : maximum list length.
    """

    cover: np.ndarray
    count: np.ndarray
    rank_sum: np.ndarray
    n: int
    s: float
    M: int


@dataclass
class CertifySolution:
    """A list read from a solved model: A's rules (any order), then ``next_rule`` (None = dummy)."""

    rules: tuple
    next_rule: int | None
    value: float
    theta: float


def patterns(rule_covers: np.ndarray, ranks: np.ndarray, s: float, M: int) -> CertifyData:
    """Merge samples with the same coverage row. ``rule_covers`` is bool (N, k)."""
    C = np.asarray(rule_covers, dtype=bool)
    if C.ndim != 2 or C.shape[1] == 0:
        raise InputError(f"rule_covers must be a non-empty (N, k) boolean matrix, got shape {C.shape}")
    if M < 1:
        raise InputError(f"M must be >= 1, got {M}")
    if not 0 < s < 1:
        raise InputError(f"target support s must be in (0, 1), got {s}")
    r = np.asarray(ranks, dtype=np.float64)
    packed = np.packbits(C, axis=1)
    first, inverse = unique_rows_index(packed, return_inverse=True)
    inverse = inverse.ravel()
    count = np.bincount(inverse)
    rank_sum = np.bincount(inverse, weights=r)
    return CertifyData(C[first], count.astype(np.int64), rank_sum, C.shape[0], float(s), int(M))


def build(data: CertifyData):
    """The Pyomo model of the module docstring."""
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression

    P, k = data.cover.shape
    sN = data.s * data.n
    covers_of = [np.flatnonzero(data.cover[p]).tolist() for p in range(P)]

    m = pyo.ConcreteModel(name="abbr_certify")
    m.P = pyo.RangeSet(0, P - 1)
    m.R = pyo.RangeSet(0, k - 1)
    m.u = pyo.Var(m.R, domain=pyo.Binary)
    m.v = pyo.Var(m.R, domain=pyo.Binary)
    m.v0 = pyo.Var(domain=pyo.Binary)
    m.x = pyo.Var(m.P, bounds=(0, 1))
    m.d = pyo.Var(m.P, bounds=(0, 1))
    m.w = pyo.Var(m.P, bounds=(0, 1))
    m.theta = pyo.Var(bounds=(0, 1))

    def lin(coefs, vars_, const=0.0):
        return LinearExpression(constant=const, linear_coefs=list(coefs), linear_vars=list(vars_))

    m.union_ub = pyo.Constraint(m.P, rule=lambda m, p: lin([1.0] + [-1.0] * len(covers_of[p]),
                                                           [m.x[p]] + [m.u[r] for r in covers_of[p]]) <= 0)
    pairs = [(p, r) for p in range(P) for r in covers_of[p]]
    m.PR = pyo.Set(initialize=pairs, dimen=2)
    m.union_lb = pyo.Constraint(m.PR, rule=lambda m, p, r: m.x[p] - m.u[r] >= 0)
    m.inc_ub = pyo.Constraint(m.P, rule=lambda m, p: lin([1.0] + [-1.0] * len(covers_of[p]) + [-1.0],
                                                         [m.d[p]] + [m.v[r] for r in covers_of[p]] + [m.v0]) <= 0)
    m.inc_out = pyo.Constraint(m.P, rule=lambda m, p: m.d[p] + m.x[p] <= 1)
    m.inc_lb = pyo.Constraint(m.P, rule=lambda m, p: lin([1.0] + [-1.0] * len(covers_of[p]) + [-1.0, 1.0],
                                                         [m.d[p]] + [m.v[r] for r in covers_of[p]] + [m.v0, m.x[p]]) >= 0)
    m.w_d = pyo.Constraint(m.P, rule=lambda m, p: m.w[p] - m.d[p] <= 0)
    m.w_theta = pyo.Constraint(m.P, rule=lambda m, p: m.w[p] - m.theta <= 0)
    m.w_lb = pyo.Constraint(m.P, rule=lambda m, p: m.w[p] - m.theta - m.d[p] >= -1)
    cnt = data.count.astype(float).tolist()
    m.support = pyo.Constraint(expr=lin(cnt + cnt, [m.x[p] for p in m.P] + [m.w[p] for p in m.P]) == sN)
    m.one_next = pyo.Constraint(expr=lin([1.0] * (k + 1), [m.v[r] for r in m.R] + [m.v0]) == 1)
    m.distinct = pyo.Constraint(m.R, rule=lambda m, r: m.u[r] + m.v[r] <= 1)
    m.length = pyo.Constraint(expr=lin([1.0] * (2 * k), [m.u[r] for r in m.R] + [m.v[r] for r in m.R]) <= data.M)
    m.nonempty = pyo.Constraint(expr=lin([1.0] * (2 * k), [m.u[r] for r in m.R] + [m.v[r] for r in m.R]) >= 1)
    scale = 1.0 / (sN * data.n)
    rs = (data.rank_sum * scale).tolist()
    m.obj = pyo.Objective(expr=lin(rs + rs, [m.x[p] for p in m.P] + [m.w[p] for p in m.P]), sense=pyo.maximize)
    m._certify_data = data
    return m


def extract(m) -> CertifySolution:
    """Read the selected list from a solved model."""
    import pyomo.environ as pyo

    u = [r for r in m.R if (pyo.value(m.u[r]) or 0.0) > 0.5]
    nxt = [r for r in m.R if (pyo.value(m.v[r]) or 0.0) > 0.5]
    return CertifySolution(rules=tuple(int(r) for r in u), next_rule=int(nxt[0]) if nxt else None,
                           value=float(pyo.value(m.obj)), theta=float(pyo.value(m.theta)))


def start(m, rules, next_rule: int | None) -> float:
    """Write the list "``rules`` (the set A, any order), then ``next_rule``" into ``m``'s variables.

    ``rules`` and ``next_rule`` index the columns of the model's pool (``next_rule=None``: the
    dummy rule covering every sample is next, footnote 1). The point is feasible when
    ``|A| <= sN < |A u D|`` (which holds for A = the first m* rules of a list and the next
    rule of eq. 9); returns its objective value. Raises when the point is not feasible.
    """
    data: CertifyData = m._certify_data
    P, k = data.cover.shape
    A = [int(r) for r in rules]
    if any(not 0 <= r < k for r in A) or (next_rule is not None and not 0 <= int(next_rule) < k):
        raise InputError(f"rule indices must lie in 0..{k - 1}, got {A} and next {next_rule}")
    if next_rule is not None and int(next_rule) in A:
        raise InputError(f"the next rule {next_rule} is already in A {A}")
    if len(A) + (next_rule is not None) > data.M or len(A) + (next_rule is not None) < 1:
        raise InputError(f"a list of {len(A) + (next_rule is not None)} rules does not fit 1..M = 1..{data.M}")
    x = data.cover[:, A].any(axis=1) if A else np.zeros(P, bool)
    nxt = data.cover[:, int(next_rule)] if next_rule is not None else np.ones(P, bool)
    d = nxt & ~x
    sN = data.s * data.n
    cA, cD = float(data.count[x].sum()), float(data.count[d].sum())
    if cA > sN + 1e-9 or cA + cD < sN - 1e-9 or cD <= 0:
        raise InputError(f"the list is not of the form of eq. 9 at s = {data.s}: |A| = {cA:g}, |D| = {cD:g}, "
                         f"sN = {sN:g}")
    theta = (sN - cA) / cD
    for r in range(k):
        m.u[r].set_value(1 if r in A else 0)
        m.v[r].set_value(1 if (next_rule is not None and r == int(next_rule)) else 0)
    m.v0.set_value(1 if next_rule is None else 0)
    for p in range(P):
        m.x[p].set_value(float(x[p]))
        m.d[p].set_value(float(d[p]))
        m.w[p].set_value(theta * float(d[p]))
    m.theta.set_value(theta)
    return float((data.rank_sum[x].sum() + theta * data.rank_sum[d].sum()) / (sN * data.n))
