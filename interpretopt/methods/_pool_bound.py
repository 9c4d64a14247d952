r"""The bound step of a BRCG fit: branch and bound over the clauses that reduced-cost fixing leaves.

Column generation proves the LP over a clause space (clauses of up to ``D`` literals); what is left
between that LP and the rule set is the LP's integrality gap. This step closes part of it for the
light form (Dash, Günlük and Wei 2018, the master (1)-(4) with the complexity row (3) moved into the
objective as ``lambda0 + lambda1 |k|`` per clause, :mod:`interpretopt.formulations.brcg`), in three
parts. Objectives are counted in errors here (divided by the loss scale ``s = 1/n``): an uncovered
positive row costs its weight ``v_i``, a clause ``f_k = (weighted negatives it covers) + (lambda0 +
lambda1 |k|) / s``.

**1. The pool (reduced-cost fixing over the whole space).** Let ``mu_i in [0, v_i]`` be multipliers
of the cover rows (2) (the duals of the restricted master over the space's columns) and ``rc_k = f_k -
sum_{i in P covered by k} mu_i`` the reduced cost of clause ``k``. Eq. (B1) of
:mod:`interpretopt.formulations.brcg` holds for every 0/1 selection, so every rule set ``S`` of the
space has ``obj(S) >= D0 + sum_{k in S} rc_k`` with ``D0 = sum_i mu_i``. An exact search (the pricer's
enumeration, :mod:`interpretopt.heuristics.clause_enum`, with ``max_columns`` = the pool size) returns
the pool: every clause of reduced cost below ``Delta`` (the pool's largest, or the incumbent's margin
``z* - D0`` when fewer clauses lie below it), each other clause having ``rc_k >= Delta``. Let
``rho = min(0, least rc)`` (the pool's first) and ``T = D0 + Delta + q_T rho`` with ``q_T`` the most
clauses a rule set of objective below ``D0 + Delta`` can have (each costs at least ``lambda0 +
lambda1``). A rule set with a clause outside the pool then has ``obj(S) >= D0 + Delta + (|S| - 1) rho
>= T``: every rule set below ``T`` uses pool clauses only. Hence, for ``B`` a lower bound on the
rule sets of the pool, ``min(T, B)`` bounds every rule set of the space. Enumerating the columns of
reduced cost below a gap is the column enumeration of Baldacci, Christofides and Mingozzi (2008,
Math. Programming 115, 351-385), here with the BRCG pricer as the enumerator. Rows of zero multiplier
are priced at ``-1e-12 s`` so that the enumeration keeps them apart (a clause's reduced cost is then
at most its own, which keeps every step above valid).

**2. Branch and bound over the pool (branch and price with pricing by inspection).** Best-bound
search (Barnhart, Johnson, Nemhauser, Savelsbergh and Vance 1998, Operations Research 46, 316-329);
each node's LP is the master over the pool with the node's restrictions, solved by column
generation: the node LP holds the columns priced in so far, and one product prices every pool clause
at its duals. For any duals ``y`` (cover rows ``>= 0``; slice rows signed by the side that binds)
the Lagrangian bound ``LB(y) = sum_r y_r b_r + sum_j min_{x_j in [l_j, u_j]} rc_j x_j`` over every
pool column allowed at the node is valid whether or not the node LP has converged (Lübbecke and
Desrosiers 2005, Operations Research 53, 1007-1023), so a node is pruned as soon as it is high
enough. Restrictions are of two kinds:

* *slices* (Vanderbeck 2000, Operations Research 48, 111-128: branching on the number of columns):
  rows ``q_lo <= sum_k w_k <= q_hi`` (clauses), ``L_lo <= sum_k |k| w_k <= L_hi`` (literals) and
  ``E_lo <= sum_i v_i xi_i + sum_k fp_k w_k <= E_hi`` (errors); a node branches on the first of
  ``q``, ``L``, ``E`` whose LP value is fractional, ``<= floor`` / ``>= floor + 1``;
* *clause variables*: then on the fractional ``w_k`` nearest 1/2, ``w_k = 1`` / ``w_k = 0``.

A rule set's objective is ``e + (lambda0 q + lambda1 L) / s`` with whole ``e``, ``q``, ``L``
(:func:`~interpretopt.formulations.brcg.light_lattice_floor`), so a node whose rule sets all lie in
its slices is pruned when its bound exceeds the largest such value below the cap ``min(T, incumbent)``
(:func:`~interpretopt.formulations.brcg.light_lattice_below`), and its bound is raised to the least
such value at or above it. A column whose reduced cost lifts the node's bound past that value is fixed
to 0 in the node's subtree (reduced-cost fixing: ``obj >= LB + rc_k`` when ``w_k = 1``). An integral
node LP solution is a rule set and may improve the incumbent.

**3. The bound.** ``min(T, incumbent, least bound of an open node)``, raised to the lattice with
the empty rule set at its own objective (all positive rows wrong). With no open node left below the cap
the search is complete: the bound is then ``min(T, incumbent)``.

Which branching: measured on breast cancer's default problem (seed 0 split, the pool of 20,000 clauses), the
search completes in 264 nodes with the slices first and 245 with clause variables alone, but the slices close
seed 1 in 170 nodes against 751 without; Ryan and Foster's pairs of positive rows (some clause covers both / none
does) needed 595 nodes alone and 928 after the slices (on seed 0, in a first version of the search that broke
ties between equal bounds first in, first out). The node LP starts from no clause (from every column of the fit's master, its
degenerate optima left seed 0 at 0.014 after 481 nodes). Figures of the whole fit:
:class:`~interpretopt.methods.brcg.BRCGClassifier` (``bound_nodes``).
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from interpretopt.formulations import brcg as F

__all__ = ["PoolBound", "PoolBranchAndBound", "clause_pool", "pool_bound", "pool_pricing_weights", "pool_target",
           "POOL_COLUMNS", "POOL_ENTRIES"]

#: most clauses of the pool (its work limit in columns; measured on breast cancer: see BRCGClassifier.bound_nodes)
POOL_COLUMNS = 20_000
#: most entries (positive rows x pool clauses) of the pool's dense coverage (80 MB as floats: a memory limit)
POOL_ENTRIES = 10_000_000
#: price of rows whose multiplier is 0 (times the loss scale), so that the enumeration keeps them apart
_ZERO_MU = 1e-12
#: slack of the comparisons with lattice values, in errors (that of F.light_lattice_floor)
_SLACK = 1e-6


@dataclass(frozen=True)
class PoolBound:
    """What the bound step proved and found.

    Attributes
    ----------
    bound : float
        A lower bound on the objective of every rule set of the space (clauses of up to ``literals``
        literals), raised to the light lattice.
    root : float
        ``D0`` of the module docstring: the root LP's value over the space (its multipliers' Lagrangian bound).
    target : float
        ``T`` of the module docstring: the bound cannot exceed it (the pool holds the clauses below it).
    complete : bool
        The search closed every node: ``bound`` is then ``min(T, incumbent)`` lifted.
    stopped_by : {"nodes", "work", "time"} or None
        The limit that stopped the search before it was complete (``"time"``: the fit's wall-clock safety net).
    selected : list of tuple or None
        The clauses of a rule set the search found that is better than the incumbent it was given.
    objective : float or None
        That rule set's objective.
    pool_size : int
    literals : int
    work : dict
        ``nodes`` (node LPs solved), ``lp_solves``, ``simplex_iterations``, ``pricing_passes`` (products
        over the pool), ``columns`` (priced into the node LP), ``lp_work`` (the simplex iterations of the node
        LPs times their rows + columns: the work limit's unit), ``pool_work`` (the enumeration's row-literal
        pairs).
    history : list of tuple
        ``(nodes, bound)`` after 1, 10, 100, ... nodes and at the end.
    seconds : dict
        CPU seconds of the root LP, the pool and the search (a record; no limit reads them).
    """

    bound: float
    root: float
    target: float
    complete: bool
    stopped_by: str | None
    selected: list | None
    objective: float | None
    pool_size: int
    literals: int
    work: dict = field(default_factory=dict)
    history: list = field(default_factory=list)
    seconds: dict = field(default_factory=dict)


def pool_pricing_weights(y, mu, spec: F.MasterSpec, weight):
    """``(r, a, b)`` of :func:`~interpretopt.formulations.brcg.pricing_weights` with the positive rows of zero
    multiplier priced at ``-1e-12 s``: the enumeration treats rows of ``r = 0`` as irrelevant and names one clause
    for literals equal elsewhere, which would keep one of clauses that differ on those rows out of the pool. Each
    clause's reduced cost is then at most its own, so a clause outside the pool still has ``rc >= Delta``."""
    yb = np.asarray(y).astype(bool)
    r, a, b = F.pricing_weights(np.asarray(y, dtype=np.int8), mu, 0.0, spec, sample_weight=weight)
    r = np.asarray(r, dtype=float).copy()
    r[yb & (r == 0.0)] = -_ZERO_MU * float(spec.loss_scale)
    return r, a, b


def clause_pool(search, r, a: float, b: float, *, max_literals: int, max_columns: int, margin: float,
                work_limit: float | None = None):
    """Every clause of reduced cost below ``Delta`` and ``Delta``: the ``max_columns`` clauses of least reduced
    cost ``a + b |k| + r @ delta_k`` (``search``: a :class:`~interpretopt.heuristics.clause_enum.ClauseEnumeration`
    or :class:`~interpretopt.heuristics.clause_bnb.ClauseBranchAndBound`), ``Delta`` the largest of them; or,
    when fewer lie below ``margin``, those and ``Delta = margin``. ``None`` when a limit stopped the search.
    """
    res = search.search(r, a, b, max_literals=max_literals, max_columns=max_columns, cutoff=margin,
                        work_limit=work_limit)
    if not res.complete:
        return None
    rcs = np.asarray(res.reduced_costs, dtype=float)
    delta = float(rcs.max()) if len(res.clauses) >= max_columns else float(margin)
    return list(res.clauses), rcs, delta, int(res.work)


def pool_target(spec: F.MasterSpec, root: float, delta: float, least_rc: float) -> float:
    """``T = D0 + Delta + q_T min(0, rho)`` (part 1 of the module docstring): every rule set with a clause of
    reduced cost ``>= Delta`` has an objective of at least ``T``, given ``root`` = ``D0`` and ``least_rc`` = the
    least reduced cost of any clause; ``q_T`` is the most clauses a rule set below ``D0 + Delta`` can have."""
    q_T = math.floor((root + delta) / (spec.lambda0 + spec.lambda1))
    return float(root + delta + q_T * min(0.0, float(least_rc)))


@dataclass(order=True)
class _Node:
    bound: float
    order: int
    fix0: np.ndarray = field(compare=False)              # pool columns fixed to 0 (mask, copied on change)
    fix1: frozenset = field(compare=False, default=frozenset())
    q: tuple = field(compare=False, default=(0, None))
    L: tuple = field(compare=False, default=(0, None))
    E: tuple = field(compare=False, default=(0, None))

    def child(self, **changes) -> _Node:
        kw = dict(fix0=self.fix0, fix1=self.fix1, q=self.q, L=self.L, E=self.E)
        kw.update(changes)
        return _Node(self.bound, 0, **kw)


class PoolBranchAndBound:
    """Best-bound branch and bound over a finite pool of clauses (part 2 of the module docstring).

    Parameters
    ----------
    cover_pos : (m, K) bool
        Coverage of the positive rows by the pool's clauses.
    weight_pos : (m,) float
        Weights of the positive rows (whole numbers).
    fp : (K,) float
        Weighted negatives each clause covers.
    n_literals : (K,) int
    spec : MasterSpec
        The light form.
    max_literals : int
        ``D`` of the lattice (the space's longest clause).
    solver : str
        Backend of the node LP (an incremental one: ``highs``, ``highs_direct``, ``ortools_glop``).
    """

    #: columns priced into the node LP per round (the most negative ones)
    columns_per_round = 50

    def __init__(self, cover_pos, weight_pos, fp, n_literals, spec: F.MasterSpec, *, max_literals: int,
                 solver: str = "highs", settings=None) -> None:
        self.cov = np.asarray(cover_pos, dtype=bool)
        self.covf = self.cov.astype(np.float64)
        self.v = np.asarray(weight_pos, dtype=float)
        self.fp = np.asarray(fp, dtype=float)
        self.nl = np.asarray(n_literals, dtype=float)
        self.m, self.K = self.cov.shape
        s = float(spec.loss_scale)
        # the lattice in error units: a spec with loss scale 1
        self.unit = F.MasterSpec(form="light", lambda0=spec.lambda0 / s, lambda1=spec.lambda1 / s, n_samples=1)
        self.scale = s
        self.D = int(max_literals)
        self.cost = self.fp + (spec.lambda0 + spec.lambda1 * self.nl) / s
        self.empty = float(self.v.sum())
        self.solver, self.settings = solver, settings
        self.work = {"nodes": 0, "lp_solves": 0, "simplex_iterations": 0, "pricing_passes": 0, "columns": 0,
                     "lp_work": 0}
        self._build()

    # ------------------------------------------------------------------ the node LP
    def _build(self) -> None:
        from interpretopt.solvers import make_incremental

        m = self.m
        big = 4.0 * (self.empty + float(self.cost.max(initial=0.0)) + 1.0)   # artificial columns' cost
        lp = make_incremental(self.solver)
        lp.add_rows(np.ones(m), np.full(m, np.inf))
        lp.add_rows(np.full(3, -np.inf), np.full(3, np.inf))                # q, L, E
        self.rq, self.rL, self.rE = m, m + 1, m + 2
        A = sp.vstack([sp.eye(m, format="csc"), sp.csc_matrix((2, m)), sp.csc_matrix(self.v[None, :])], format="csc")
        lp.add_columns(self.v, 0.0, 1.0, A=A)                                  # xi
        art = sp.csc_matrix((np.tile([1.0, -1.0], 3), (np.repeat([m, m + 1, m + 2], 2), np.arange(6))),
                            shape=(m + 3, 6))
        lp.add_columns(np.full(6, big), 0.0, np.inf, A=art)
        self.lp = lp
        self.n_fixed_cols = m + 6
        self.col_of: dict[int, int] = {}
        self.pool_of: list[int] = []
        self._changed: np.ndarray = np.zeros(0, dtype=np.int32)

    def add_columns(self, ks) -> None:
        ks = [int(k) for k in ks if int(k) not in self.col_of]
        if not ks:
            return
        ks_a = np.asarray(ks)
        block = sp.vstack([sp.csc_matrix(self.covf[:, ks_a]), sp.csc_matrix(np.ones((1, ks_a.size))),
                           sp.csc_matrix(self.nl[ks_a][None, :]), sp.csc_matrix(self.fp[ks_a][None, :])],
                          format="csc")
        idx = self.lp.add_columns(self.cost[ks_a], 0.0, 1.0, A=block)
        for k, j in zip(ks, idx):
            self.col_of[k] = int(j)
            self.pool_of.append(k)
        self.work["columns"] += len(ks)

    def _set_node(self, node: _Node) -> None:
        lp = self.lp
        if self._changed.size:
            lp.set_bounds(self._changed, np.zeros(self._changed.size), np.ones(self._changed.size))
        self.add_columns(sorted(node.fix1))
        in_lp = np.asarray(self.pool_of, dtype=np.int64)
        cols0 = np.asarray([self.col_of[k] for k in in_lp[node.fix0[in_lp]]], dtype=np.int32)
        cols1 = np.asarray([self.col_of[k] for k in sorted(node.fix1)], dtype=np.int32)
        if cols0.size:
            lp.set_bounds(cols0, np.zeros(cols0.size), np.zeros(cols0.size))
        if cols1.size:
            lp.set_bounds(cols1, np.ones(cols1.size), np.ones(cols1.size))
        self._changed = np.concatenate([cols0, cols1])
        rows = [self.rq, self.rL, self.rE]
        lo = [float(r[0]) if r[0] > 0 else -np.inf for r in (node.q, node.L, node.E)]
        hi = [np.inf if r[1] is None else float(r[1]) for r in (node.q, node.L, node.E)]
        lp.set_row_bounds(rows, lo, hi)

    def _lagrangian(self, node: _Node, y: np.ndarray) -> tuple[float, np.ndarray]:
        """``LB(y)`` over every pool column allowed at the node (duals clipped to the signs that keep every
        term a valid bound) and the reduced costs of the pool (``inf`` for columns fixed at the node)."""
        m = self.m
        y = np.asarray(y, dtype=float).copy()
        y[:m] = np.maximum(y[:m], 0.0)
        value = float(y[:m].sum())
        for r, (lo, hi) in ((self.rq, node.q), (self.rL, node.L), (self.rE, node.E)):
            if y[r] < 0.0 and hi is None:
                y[r] = 0.0
            value += y[r] * (lo if y[r] > 0.0 else (hi or 0.0))
        yc, yq, yL, yE = y[:m], y[self.rq], y[self.rL], y[self.rE]
        rc = self.cost - yc @ self.covf - yq - yL * self.nl - yE * self.fp
        rc_xi = self.v - yc - yE * self.v
        self.work["pricing_passes"] += 1
        value += float(np.minimum(rc_xi, 0.0).sum())
        free = ~node.fix0
        if node.fix1:
            f1 = np.fromiter(node.fix1, dtype=np.int64)
            free[f1] = False
            value += float(rc[f1].sum())
        value += float(np.minimum(rc[free], 0.0).sum())
        return value, np.where(free, rc, np.inf)

    def _solve(self, node: _Node, p: float):
        """Column generation over the pool at the node, stopped as soon as its bound passes ``p``. Returns the
        best bound, the reduced costs at its duals and, when not pruned, the LP's ``w`` (over the pool) and
        ``xi``."""
        from interpretopt.solvers import SolveStatus

        self._set_node(node)
        best, rc_best = -math.inf, None
        while True:
            res = self.lp.solve(self.settings, duals=True, presolve=False)
            iterations = int(res.info.get("simplex_iterations", 0))
            self.work["lp_solves"] += 1
            self.work["simplex_iterations"] += iterations
            self.work["lp_work"] += iterations * (self.lp.n_rows + self.lp.n_cols)
            if res.status is not SolveStatus.OPTIMAL or res.duals is None:
                raise RuntimeError(f"the node LP of the bound step was not solved: {res.status}, {res.message}")
            lb, rc = self._lagrangian(node, res.duals)
            if lb > best:
                best, rc_best = lb, rc
            if best > p + _SLACK:
                return best, rc_best, None, None
            new = np.flatnonzero(rc < -1e-9 * max(1.0, self.empty))
            new = new[[k not in self.col_of for k in new.tolist()]] if new.size else new
            if new.size == 0:
                break
            if new.size > self.columns_per_round:
                new = new[np.argsort(rc[new], kind="stable")[: self.columns_per_round]]
            self.add_columns(new)
        x = np.asarray(res.x, dtype=float)
        w = np.zeros(self.K)
        w[self.pool_of] = x[[self.col_of[k] for k in self.pool_of]]
        return best, rc_best, w, x[: self.m]

    # ------------------------------------------------------------------ the search
    def _below(self, cap: float, node: _Node) -> float:
        return F.light_lattice_below(self.unit, cap, max_literals=self.D, clauses=node.q, literals=node.L,
                                     errors=node.E, empty_errors=self.empty)

    def _floor(self, value: float, node: _Node) -> float:
        return F.light_lattice_floor(self.unit, value, max_literals=self.D, clauses=node.q, literals=node.L,
                                     errors=node.E, empty_errors=self.empty)

    def run(self, *, target: float, incumbent: float, node_limit: int, work_limit: float | None = None, start=(),
            out_of_time=None) -> tuple:
        """Search below ``min(target, incumbent)`` (objective units) for at most ``node_limit`` node LPs and, with
        ``work_limit``, until the simplex iterations of the node LPs, each counted as the LP's rows + columns,
        reach it; ``out_of_time`` (a callable) is the caller's wall-clock safety net, asked between nodes.

        Returns ``(bound, complete, selection, objective, history)``: the bound in objective units (not yet
        lifted to the lattice), whether no node is left open, the pool indices of a rule set better than
        ``incumbent`` (or ``None``) and its objective.
        """
        s = self.scale
        T, inc = float(target) / s, float(incumbent) / s
        best_sel = None
        self.add_columns(start)
        cnt = itertools.count()
        heap = [_Node(0.0, 0, np.zeros(self.K, dtype=bool))]
        history: list = []
        marks = {1, 10, 100, 1_000, 10_000, 100_000}
        self.stopped_by = None
        while heap:
            if self.work["nodes"] >= node_limit:
                self.stopped_by = "nodes"
            elif work_limit is not None and self.work["lp_work"] >= work_limit:
                self.stopped_by = "work"
            elif out_of_time is not None and out_of_time():
                self.stopped_by = "time"
            if self.stopped_by:
                break
            node = heapq.heappop(heap)
            cap = min(T, inc)
            p = self._below(cap, node)
            if node.bound > p + _SLACK:
                continue
            lb, rc, w, xi = self._solve(node, p)
            self.work["nodes"] += 1
            if w is not None:
                found = self._integral(w)
                if found is not None and found[1] < inc - _SLACK:
                    best_sel, inc = found
                    cap = min(T, inc)
                    p = self._below(cap, node)
                bound = max(node.bound, self._floor(lb, node))
                if bound <= p + _SLACK:
                    fix0 = node.fix0
                    out = np.isfinite(rc) & (rc > 0.0) & (lb + rc > p + _SLACK)
                    if out.any():
                        fix0 = fix0 | out
                    node = _Node(bound, node.order, fix0, node.fix1, node.q, node.L, node.E)
                    for ch in self._branch(node, w, xi):
                        ch.order = -next(cnt)   # equal bounds (the lattice makes many): last in, first out
                        heapq.heappush(heap, ch)
            if self.work["nodes"] in marks:
                history.append((self.work["nodes"], self._global(heap, T, inc) * s))
        bound = self._global(heap, T, inc)
        if not history or history[-1] != (self.work["nodes"], bound * s):
            history.append((self.work["nodes"], bound * s))
        complete = not any(nd.bound <= self._below(min(T, inc), nd) + _SLACK for nd in heap)
        if complete:
            self.stopped_by = None
        return bound * s, complete, best_sel, (inc * s if best_sel is not None else None), history

    @staticmethod
    def _global(heap, T: float, inc: float) -> float:
        return min([T, inc] + [nd.bound for nd in heap])

    def _integral(self, w: np.ndarray):
        if np.any(np.minimum(w, 1.0 - w) > 1e-7):
            return None
        sel = np.flatnonzero(w > 0.5)
        covered = self.cov[:, sel].any(axis=1)
        return sel, float(self.v[~covered].sum() + self.cost[sel].sum())

    def _branch(self, node: _Node, w: np.ndarray, xi: np.ndarray) -> list:
        values = {"q": float(w.sum()), "L": float(self.nl @ w), "E": float(self.v @ xi + self.fp @ w)}
        for name, val in values.items():
            if abs(val - round(val)) > 1e-6:
                lo, hi = getattr(node, name)
                fl = math.floor(val)
                return [node.child(**{name: (lo, fl)}), node.child(**{name: (fl + 1, hi)})]
        frac = np.flatnonzero(np.minimum(w, 1.0 - w) > 1e-6)
        if frac.size == 0:
            return []
        k = int(frac[np.argmin(np.abs(w[frac] - 0.5))])
        fix0 = node.fix0.copy()
        fix0[k] = True
        return [node.child(fix1=node.fix1 | {k}), node.child(fix0=fix0)]


#: most column-generation rounds that complete the root LP's duals (it starts from the exact phase's columns)
ROOT_ROUNDS = 100


def _root_duals(root, search, spec: F.MasterSpec, *, max_literals: int, work_limit: float | None):
    """The root LP over the space, completed by column generation with the exact search until no clause prices
    below ``-1e-9 s``: the LP over the exact phase's columns has the space's optimal value, but in a degenerate
    LP its duals can still price clauses below 0, which would weaken the pool's target (``rho``). Returns the
    last LP (``None`` when it was not solved) and the search's work."""
    work = 0
    sol = None
    for _ in range(ROOT_ROUNDS):
        sol = root.solve(None)
        if sol is None:
            return None, work
        r, a, b = F.pricing_weights(root.y, sol.mu, 0.0, spec, sample_weight=root.weight)
        left = None if work_limit is None else work_limit - work
        if left is not None and left <= 0:
            break
        res = search.search(r, a, b, max_literals=max_literals, max_columns=30, exclude=set(root.keys),
                            cutoff=-1e-9 * spec.loss_scale, work_limit=left)
        work += int(res.work)
        if not res.clauses:
            break
        if not root.add(res.clauses) or root.n_columns == sol.n_columns:
            break
    return sol, work


def pool_bound(X, y, weight, spec: F.MasterSpec, clauses, *, max_literals: int, search, incumbent: float,
               node_limit: int, work_limit: float | None = None, pool_columns: int = POOL_COLUMNS,
               pool_entries: float = POOL_ENTRIES, pool_work: float | None = None, solver: str = "highs",
               settings=None, out_of_time=None, mu=None) -> PoolBound | None:
    """The bound step over clauses of up to ``max_literals`` literals (parts 1-3 of the module docstring).

    Parameters
    ----------
    X, y, weight : merged rows of the fit (:func:`~interpretopt.formulations.brcg.unique_rows`), whole weights
    spec : MasterSpec
        The light form, no grounding.
    clauses : sequence of tuple
        Clauses of the space to start the root LP from (the master's columns of up to ``max_literals``).
    search : exact clause search
        The exact pricer's search over the space (``BnbPricing.search``).
    incumbent : float
        Objective of the fit's rule set (the search looks below it only).
    node_limit : int
        Most node LPs of the branch and bound (a work limit).
    work_limit : float or None
        Most simplex iterations of the node LPs, each counted as the LP's rows + columns (a work limit that
        follows the LPs' cost: the whole search ran at 1.3e7-4.7e7 a CPU second on breast cancer, magic and
        wine_white; backends that report no iteration count have the node limit only).
    pool_columns, pool_entries : int, float
        Most clauses of the pool, and most positive rows x clauses (work limits).
    pool_work : float or None
        Work limit of the pool's enumeration (row-literal pairs); ``None`` when it stops there.
    mu : (positive rows,) or None
        Multipliers to price the pool at (clipped to ``[0, s v_i]``), e.g. those at which the exact phase proved
        the space's LP (the node LP then starts from no clause); by default those of the root LP over
        ``clauses`` completed by column generation (the node LP starts from its support).

    Returns ``None`` when the pool's enumeration hit its work limit (nothing proven).
    """
    from interpretopt.methods._colgen import RestrictedMaster, clause_cover

    yb = np.asarray(y).astype(bool)
    s = float(spec.loss_scale)
    D = int(max_literals)
    t0 = time.process_time()
    priced_work = 0
    if mu is None:
        root = RestrictedMaster(X, y, weight, spec, solver=solver, settings=settings)
        root.add([c for c in clauses if 0 < len(c) <= D])
        sol, priced_work = _root_duals(root, search, spec, max_literals=D, work_limit=pool_work)
        if sol is None:
            return None
        mu = np.asarray(sol.mu, dtype=float)
        start_clauses = [c for c, on in zip(root.clauses, sol.w > 1e-9) if on]
    else:
        mu = np.clip(np.asarray(mu, dtype=float), 0.0, s * np.asarray(weight, dtype=float)[yb])
        # the node LP then starts from no clause: started from every clause of the master, its degenerate
        # optima sent breast cancer's search (seed 0) to 0.014 after 481 nodes, against 0.0155 in 252 from none
        start_clauses = []
    d0 = float(mu.sum())
    t1 = time.process_time()
    r, a, b = pool_pricing_weights(y, mu, spec, weight)
    m_pos = int(yb.sum())
    columns = int(max(1, min(pool_columns, pool_entries // max(1, m_pos))))
    pool = clause_pool(search, r, a, b, max_literals=D, max_columns=columns, margin=float(incumbent) - d0,
                       work_limit=pool_work)
    if pool is None:
        return None
    cl, rcs, delta, pwork = pool
    pwork += priced_work
    target = pool_target(spec, d0, delta, float(rcs.min()) if rcs.size else 0.0)
    cov = np.stack([clause_cover(X, c) for c in cl], axis=1) if cl else np.zeros((yb.size, 0), dtype=bool)
    w = np.asarray(weight, dtype=float)
    fp = w[~yb] @ cov[~yb]
    cov_pos = np.ascontiguousarray(cov[yb].T)   # clause-major, for the keys of the start columns
    bnb = PoolBranchAndBound(cov[yb], w[yb], fp, [len(c) for c in cl], spec, max_literals=D, solver=solver,
                             settings=settings)
    keys = {(cov_pos[k].tobytes(), len(cl[k])): k for k in range(len(cl))}
    start = [keys[kk] for c in start_clauses if (kk := (clause_cover(X, c)[yb].tobytes(), len(c))) in keys]
    t2 = time.process_time()
    raw, complete, sel, obj, history = bnb.run(target=target, incumbent=incumbent, node_limit=node_limit,
                                               work_limit=work_limit, start=start, out_of_time=out_of_time)
    bound = F.light_lattice_floor(spec, raw, max_literals=D, empty_errors=float(w[yb].sum()))
    work = dict(bnb.work, pool_work=pwork)
    seconds = {"root": t1 - t0, "pool": t2 - t1, "search": time.process_time() - t2}
    return PoolBound(bound=bound, root=d0, target=target, complete=complete, stopped_by=bnb.stopped_by,
                     selected=None if sel is None else [cl[k] for k in sel], objective=obj, pool_size=len(cl),
                     literals=D, work=work, history=history, seconds=seconds)
