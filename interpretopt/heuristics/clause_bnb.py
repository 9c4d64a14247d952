r"""Exact pricing for BRCG by best-first branch and bound over literals (a proof, not a heuristic).

The pricing problem of Dash, Günlük and Wei (2018, eqs. (6)-(10)) asks for the clause ``k``
(a set of at most ``D`` literals) of least reduced cost

    rc(k) = a + b |k| + sum_{i covered by k} r_i,    r_i = -mu_i <= 0 (i in P),  r_i = s_i >= 0 (i in Z).

This module solves it by enumerating clauses in a set-enumeration tree (literal ``j`` is
added to clause ``k`` only if ``j > max(k)``, so each set is met once) with these prunings,
all exact:

* **Bound.** Every strict extension ``k'`` of ``k`` covers a subset of ``k``'s rows and has
  at least ``|k| + 1`` literals, so ``rc(k') >= a + b (|k| + 1) + sum_{i covered by k}
  min(r_i, 0)`` (the optimistic estimate of OPUS-style rule search). A node whose bound is
  not below the current threshold ``T`` is not expanded.
* **Equal literals.** Two literals ``j < j'`` equal on ``k``'s rows give children with
  the same coverage and size; every extension of ``k + j'`` (literals above ``j'``) has the
  coverage and size of an extension of ``k + j``, so only ``k + j`` is kept.
* **Exclusion.** To drop a negative row ``z`` from ``k``'s coverage an extension needs a
  literal ``j`` (allowed after ``k``) false on ``z``, and loses at least the positive mass
  ``loss_j = sum_{i in P covered by k, X_ij = 0} mu_i``; with ``loss_z`` the least such
  ``loss_j`` (infinite when no allowed literal is false on ``z``), an extension that drops
  the set ``E`` of negative rows loses at least ``max_{z in E} loss_z`` and keeps paying
  ``s_z`` for the others, so every extension costs at least ``a + b (|k| + 1) - mu(P
  covered by k) + min_theta [theta + sum_{z covered by k, loss_z > theta} s_z]``.
* **Closure.** Call a positive row ``i`` and a negative row ``z`` of ``k``'s coverage
  *inseparable* when no allowed literal is true on ``i`` and false on ``z``, and let
  ``N_i`` be the negative rows inseparable from ``i``. An extension that covers ``i``
  covers every ``z`` in ``N_i`` (each literal it adds is allowed and true on ``i``, hence
  true on ``z``). So if it covers the positive rows ``P'`` it covers ``N(P') = union of
  N_i`` over ``P'``, and every strict extension costs at least ``a + b (|k| + 1) +
  min_{P'} [s(N(P')) - mu(P')]``. That minimum is a minimum-weight closure problem (Picard
  1976), solved exactly by one minimum cut: source to ``i`` with capacity ``mu_i``, ``i``
  to each ``z`` in ``N_i`` unbounded, ``z`` to the sink with capacity ``s_z``; the minimum
  equals ``cut - mu(P covered by k)``. The cut is computed on integers, ``mu`` rounded up
  and ``s`` down on a grid, which can only lower the value, so it stays a bound. This
  bound uses the literals allowed after ``k`` (deep nodes, few allowed literals: many
  inseparable pairs), the exclusion bound the positive mass each literal loses; neither
  dominates the other.
* **Budget.** An extension ``k + S`` (``S`` allowed, ``1 <= |S| <= D - |k|``) removes from
  ``k``'s coverage at most ``sum_{j in S} e_j`` of negative mass, ``e_j`` the mass of
  ``k``'s negative rows false on ``j``, and loses at least ``max_{j in S} l_j`` of positive
  mass, ``l_j`` the mass ``mu`` of ``k``'s positive rows false on ``j``. So ``rc(k + S) >=
  a + b (|k| + |S|) + max(0, s(Z_k) - sum_S e_j) - mu(P_k) + max_S l_j``. Its minimum over
  ``S`` is found by taking the literals in increasing ``l_j`` (the threshold ``theta =
  max_S l_j``) and, for each threshold and each size ``t``, the ``t`` largest ``e_j`` among
  literals of ``l_j <= theta``; a literal with ``e_j <= b`` cannot lower the value of a set
  it joins, so only single literals consider it. This is the bound that sees the literal
  budget ``D`` and the price ``b`` of each literal.
* **Dominance.** A literal ``j`` that removes no negative row from ``k``'s coverage is not
  added. Proof that nothing is lost: for a clause ``c`` build ``c'`` by taking ``c``'s
  literals in increasing order and keeping one only if it removes a negative row from the
  coverage of the literals kept so far. Every negative row covered by ``c'`` satisfies each
  skipped literal, so ``c`` and ``c'`` cover the same negative rows, ``c'`` covers at least
  ``c``'s positive rows and has no more literals: ``rc(c') <= rc(c)``, and ``c'`` is a path
  of the tree that the dominance rule never cuts. The first literal of ``c`` is always
  kept (the rule is not applied to single literals: the empty clause is not a column).
  A dominated clause is never returned, so the clauses returned are the best ones up to
  dominance, and the bound below covers dominated clauses through their dominators.
  The dominator may be an excluded clause (a master column): then a clause it dominates
  may be neither returned nor met, and the bound covers it through ``excluded_min``; in
  column generation the excluded clauses price ``>= 0`` at the LP optimum, and so does
  every clause they dominate.

Nodes are expanded best bound first; every child of an expanded node is priced exactly (one
matrix-vector product scores all of them). The search keeps the ``max_columns`` best clauses
not in ``exclude`` and the threshold ``T = min(cutoff, worst kept when max_columns are
kept)``. When it ends with an empty queue, every clause that is neither returned nor
excluded has ``rc >= T``, and :attr:`ClauseSearchResult.rc_lower_bound` -- the least of
``T``, the returned reduced costs and those of excluded clauses met -- bounds the reduced
cost of every clause that is not excluded. When it stops early (node or time limit) the
least bound in the queue enters that minimum, so the value stays a valid bound.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from interpretopt._clock import monotonic
from interpretopt._rows import unique_rows_index
from interpretopt._threads import single_blas_thread
from interpretopt.exceptions import InputError

__all__ = ["ClauseSearchResult", "ClauseBranchAndBound", "KeptClauses", "SearchLimits"]


@dataclass(frozen=True)
class ClauseSearchResult:
    """Best clauses found and what the search proved.

    Attributes
    ----------
    clauses : list of tuple of int
        Clauses not in ``exclude`` with reduced cost below the threshold, best first.
    reduced_costs : ndarray
    rc_lower_bound : float
        A lower bound on the reduced cost of every clause of at most ``max_literals``
        literals that is not in ``exclude`` (including the returned ones).
    complete : bool
        The queue was exhausted: the bound is the search's own proof, not a queue bound.
    n_nodes : int
        Nodes expanded.
    best_clause : tuple or None
    n_closure_cuts : int
        Expanded nodes cut by the closure bound (after the other bounds failed to cut them).
    n_budget_cuts : int
        Expanded nodes cut by the budget bound (after the exclusion bound failed to cut them).
    work : int
        Row-literal pairs the expanded nodes scored (``rows x allowed literals`` per node): a
        machine-independent measure of the search's cost, proportional to its CPU time.
    """

    clauses: list
    reduced_costs: np.ndarray
    rc_lower_bound: float
    complete: bool
    n_nodes: int
    best_clause: tuple | None = None
    n_closure_cuts: int = 0
    n_budget_cuts: int = 0
    work: int = 0


class KeptClauses:
    """The ``K`` best clauses below the threshold, the excluded ones met, and the threshold ``T``.

    ``T`` is ``cutoff`` until ``K`` clauses are kept, then the ``K``-th best reduced cost (never
    above ``cutoff``); it only falls, which is what lets both exact pricers stop at the first
    bound at or above it. Shared by :class:`ClauseBranchAndBound` and the enumeration of
    :mod:`interpretopt.heuristics.clause_enum`.
    """

    def __init__(self, K: int, cutoff: float, excluded: set) -> None:
        self.K, self.cutoff, self.excluded = K, cutoff, excluded
        self.heap: list = []   # (-rc, clause)
        self.excluded_min = np.inf
        self.best_clause, self.best_rc = None, np.inf
        self.T = cutoff

    def record(self, clause: tuple, rc: float) -> None:
        if clause in self.excluded:
            self.excluded_min = min(self.excluded_min, rc)
            return
        if rc < self.best_rc:
            self.best_clause, self.best_rc = clause, rc
        if rc < self.T:
            heapq.heappush(self.heap, (-rc, clause))
            if len(self.heap) > self.K:
                heapq.heappop(self.heap)
            self.T = min(self.cutoff, -self.heap[0][0]) if len(self.heap) >= self.K else self.cutoff

    def result(self, pending: float, limits: "SearchLimits", **counts) -> ClauseSearchResult:
        """The kept clauses, best first, with the bound ``min(T, pending, excluded met, best kept)``;
        ``pending`` is the least bound a limit left unexplored (``inf`` when the search completed)."""
        items = sorted(((-neg_rc, c) for neg_rc, c in self.heap), key=lambda t: (t[0], t[1]))
        rc_lb = min(self.T, pending, self.excluded_min, items[0][0] if items else np.inf)
        return ClauseSearchResult(clauses=[c for _, c in items], reduced_costs=np.array([v for v, _ in items]),
                                  rc_lower_bound=float(rc_lb), complete=not np.isfinite(pending),
                                  n_nodes=limits.nodes, work=int(limits.work), best_clause=self.best_clause,
                                  **counts)


class SearchLimits:
    """Node, work and time limits of one pricing search (``clock`` seconds from construction)."""

    def __init__(self, node_limit, work_limit, time_limit, clock) -> None:
        self.node_limit, self.work_limit, self.time_limit = node_limit, work_limit, time_limit
        self.clock, self.t0 = clock, clock()
        self.nodes = self.work = 0

    def count(self, nodes: int, work: int) -> None:
        self.nodes += int(nodes)
        self.work += int(work)

    def reached(self) -> bool:
        return ((self.node_limit is not None and self.nodes >= self.node_limit)
                or (self.work_limit is not None and self.work >= self.work_limit)
                or (self.time_limit is not None and self.clock() - self.t0 >= self.time_limit))


class ClauseBranchAndBound:
    """Holds the binarized rows once and answers exact pricing calls.

    Parameters
    ----------
    X_bin : (m, J) bool
        Rows (e.g. the merged weighted rows of the master) by literals.
    y : (m,) {0, 1}
        Labels; used only to know which rows are negative (dominance rule).
    closure : bool, default False
        Apply the closure bound (module docstring) at nodes where it is affordable.
    closure_work : float, default 2e7
        Largest ``positive rows x negative rows x allowed literals`` of a node for which the
        closure bound is computed (one dense product of that size per node).
    budget : bool, default True
        Apply the budget bound (module docstring).
    """

    def __init__(self, X_bin, y, *, closure: bool = False, closure_work: float = 2e7, budget: bool = True) -> None:
        X = np.asarray(X_bin)
        if X.ndim != 2:
            raise InputError(f"X_bin must be 2-D, got shape {X.shape}")
        self.X = X.astype(bool, copy=False)
        self.neg = np.asarray(y).reshape(-1) == 0
        if self.neg.shape[0] != self.X.shape[0]:
            raise InputError(f"y has {self.neg.shape[0]} entries for {self.X.shape[0]} rows")
        self.m, self.J = self.X.shape
        self.closure = bool(closure)
        self.closure_work = float(closure_work)
        self.budget = bool(budget)

    def search(self, r, a: float, b: float, *, max_literals: int, max_columns: int = 10,
               exclude: Iterable[tuple] = (), cutoff: float = 0.0, node_limit: int | None = None,
               time_limit: float | None = None, clock: Callable[[], float] | None = None,
               work_limit: float | None = None) -> ClauseSearchResult:
        """Clauses of reduced cost ``a + b |k| + r @ delta_k`` below ``cutoff``, best first, with a bound.

        Parameters
        ----------
        r : (m,) float
        a, b : float
            Per-clause and per-literal terms (``b >= 0``).
        max_literals : int
            ``D``.
        max_columns : int
            At most this many clauses are returned.
        exclude : iterable of tuples
            Sorted literal tuples never returned (the master's columns); they are still
            searched through.
        cutoff : float
            Only clauses strictly below it are of interest.
        node_limit, time_limit : int, float or None
            Stop after this many expanded nodes / seconds of ``clock``.
        work_limit : float or None
            Stop once the expanded nodes have scored this many row-literal pairs (``work`` of
            the result), a work limit proportional to CPU time on any data.
        clock : callable or None
            Seconds (default :func:`interpretopt._clock.monotonic`, the package clock).
        """
        r = np.asarray(r, dtype=np.float64).reshape(-1)
        if r.shape[0] != self.m:
            raise InputError(f"r has {r.shape[0]} entries for {self.m} rows")
        if int(max_literals) < 1 or int(max_columns) < 1:
            raise InputError(f"max_literals and max_columns must be >= 1, got {max_literals}, {max_columns}")
        if b < 0:
            raise InputError(f"the per-literal term b must be >= 0, got {b}")
        with single_blas_thread():
            return self._search(r, float(a), float(b), int(max_literals), int(max_columns),
                                {tuple(sorted(int(j) for j in c)) for c in exclude}, float(cutoff),
                                node_limit, time_limit, clock or monotonic, work_limit)

    @staticmethod
    def _exclusion_bound(X: np.ndarray, XF: np.ndarray, neg: np.ndarray, rows: np.ndarray, start: int, covered_neg_part: np.ndarray,
                         base: float, r: np.ndarray, dense_work: int = 200_000) -> float:
        """``base + min_theta [theta + s({z : loss_z > theta})]`` over the node's negative rows (``X`` the
        rows as a bool array, ``XF`` the same in column-major order)."""
        zr = rows[neg[rows]]
        if zr.size == 0:
            return base
        # positive mass lost by each allowed literal: mu(C & P) - mu(C & P & X_j)
        loss_lit = np.maximum(float(-np.minimum(r[rows], 0.0).sum()) + covered_neg_part, 0.0)
        # loss_z: the least loss of an allowed literal false on z
        if zr.size * loss_lit.size <= dense_work:
            # a small node: one masked minimum over its negative rows x allowed literals
            loss_z = np.where(X[zr, start:], np.inf, loss_lit[None, :]).min(axis=1) if loss_lit.size \
                else np.full(zr.size, np.inf)
            return ClauseBranchAndBound._exclusion_value(loss_z, r[zr], base)
        # a large node: literals in increasing loss, each settling the unsettled rows it is false
        # on (a literal and its negation settle every row, so few literals are usually needed)
        loss_z = np.full(zr.size, np.inf)
        unset = np.arange(zr.size)
        for j_rel in np.argsort(loss_lit, kind="stable"):
            true_on = XF[zr[unset], start + j_rel]
            if not true_on.all():
                loss_z[unset[~true_on]] = loss_lit[j_rel]
                unset = unset[true_on]
                if unset.size == 0:
                    break
        return ClauseBranchAndBound._exclusion_value(loss_z, r[zr], base)

    @staticmethod
    def _exclusion_value(loss_z: np.ndarray, s_z: np.ndarray, base: float) -> float:
        """``base + min_theta [theta + s({z : loss_z > theta})]``."""
        order = np.argsort(loss_z, kind="stable")
        ls, ss = loss_z[order], s_z[order]
        total = float(ss.sum())
        tail = total - np.cumsum(ss)
        fin = np.isfinite(ls)
        best = total  # nothing excluded
        if fin.any():
            best = min(best, float(np.min(ls[fin] + tail[fin])))
        return base + best

    @staticmethod
    def _budget_bound(P: np.ndarray, s_z: float, mu_p: float, base: float, b: float, max_added: int) -> float:
        """``base + min_{S} [b |S| + max l_S - min(s(Z), sum e_S)]`` (module docstring, *Budget*).

        ``P`` holds, per allowed literal, ``r @ delta`` and its negative part over the node's
        rows (rows 0 and 1 of the node's product); ``base = a + b |k| + s(Z) - mu(P)``.
        """
        e = np.maximum(s_z - (P[0] - P[1]), 0.0)   # negative mass each literal removes
        loss = np.maximum(mu_p + P[1], 0.0)        # positive mass each literal removes
        best = float(np.min(b + loss - np.minimum(e, s_z)))   # |S| = 1
        useful = np.flatnonzero(e > b)   # any other literal only adds to a set of two or more
        if max_added >= 2 and useful.size >= 2:
            order = useful[np.argsort(loss[useful], kind="stable")]
            top: list[float] = []   # the largest e among literals of loss <= theta, descending
            for j in order:
                v = float(e[j])
                if len(top) < max_added or v > top[-1]:
                    top.append(v)
                    top.sort(reverse=True)
                    del top[max_added:]
                    cum = np.cumsum(top)
                    t = np.arange(1, len(top) + 1)
                    best = min(best, float(np.min(b * t + float(loss[j]) - np.minimum(cum, s_z))))
        return base + best

    @staticmethod
    def _closure_bound(Xf: np.ndarray, neg: np.ndarray, rows: np.ndarray, start: int, r: np.ndarray,
                       base: float) -> float:
        """``base + min_{P'} [s(N(P')) - mu(P')]`` by one minimum cut (module docstring, *Closure*).

        Capacities are integers (scipy's max flow takes int32): ``mu`` is rounded up and ``s``
        down on the grid ``1 / scale``, which can only lower the value, so it stays a bound.
        """
        from scipy.sparse import csr_array
        from scipy.sparse.csgraph import maximum_flow

        pr = rows[~neg[rows]]
        zr = rows[neg[rows]]
        mu = -r[pr]
        mu_tot = float(mu.sum())
        if pr.size == 0 or mu_tot <= 0.0:
            return base
        if zr.size == 0:
            return base - mu_tot
        # conflict (i, z): no allowed literal is true on positive i and false on negative z
        conf = (Xf[pr, start:] @ (1.0 - Xf[zr, start:]).T) < 0.5
        zc = np.flatnonzero(conf.any(axis=0))
        if zc.size == 0:
            return base - mu_tot
        conf = conf[:, zc]
        scale = float(2 ** 29) / mu_tot
        mu_i = np.ceil(mu * scale).astype(np.int64)
        big = int(mu_i.sum()) + 1
        s_z = np.minimum(np.floor(r[zr[zc]] * scale), big).astype(np.int64)
        p, q = pr.size, zc.size
        ii, zz = np.nonzero(conf)
        src = np.concatenate([np.zeros(p, np.int64), 1 + ii, 1 + p + np.arange(q)])
        dst = np.concatenate([1 + np.arange(p), 1 + p + zz, np.full(q, 1 + p + q)])
        cap = np.concatenate([mu_i, np.full(ii.size, big), s_z]).astype(np.int32)
        G = csr_array((cap, (src, dst)), shape=(p + q + 2, p + q + 2))
        flow = int(maximum_flow(G, 0, p + q + 1).flow_value)
        return base + (flow - int(mu_i.sum())) / scale

    @staticmethod
    def _node_product(W: np.ndarray, Xf: np.ndarray, rows: np.ndarray, start: int) -> np.ndarray:
        """``W`` restricted to the node's rows times its allowed literals (value, optimistic part, negatives)."""
        if 3 * rows.size >= Xf.shape[0]:
            # a large node: one product over every row (W zero outside the node) reads the
            # float matrix once, where gathering the node's rows would copy most of it first
            Wn = np.zeros_like(W)
            Wn[:, rows] = W[:, rows]
            return Wn @ Xf[:, start:]
        return W[:, rows] @ Xf[rows, start:]

    def _node_bound(self, X, XF, Xf, neg, r, rneg, rows, clause, start, P, lb, a, b, D, T) -> tuple[float, str]:
        """The node's bound on every strict extension (exclusion, then budget and closure, module docstring)
        and which bound cut it (``""``: not cut, ``"exclusion"``, ``"budget"``, ``"closure"``)."""
        depth = len(clause) + 1
        node_lb = max(lb, self._exclusion_bound(X, XF, neg, rows, start, P[1], a + b * depth + float(rneg[rows].sum()),
                                                r))
        if node_lb >= T:
            return node_lb, "exclusion"
        if clause and self.budget:
            s_z = float(r[rows][neg[rows]].sum())
            mu_p = -float(rneg[rows].sum())
            node_lb = max(node_lb, self._budget_bound(P, s_z, mu_p, a + b * len(clause) + s_z - mu_p, b,
                                                      D - len(clause)))
            if node_lb >= T:
                return node_lb, "budget"
        if self.closure and clause:
            n_neg_rows = int(neg[rows].sum())
            if (rows.size - n_neg_rows) * n_neg_rows * (self.J - start) <= self.closure_work:
                node_lb = max(node_lb, self._closure_bound(Xf, neg, rows, start, r, a + b * depth))
                if node_lb >= T:
                    return node_lb, "closure"
        return node_lb, ""

    def _search(self, r_all, a, b, D, K, excluded, cutoff, node_limit, time_limit, clock,
                work_limit=None) -> ClauseSearchResult:
        limits = SearchLimits(node_limit, work_limit, time_limit, clock)
        # rows with r_i = 0 change no reduced cost and no dominance test: drop them
        rel = np.flatnonzero(r_all != 0.0)
        X, r, neg = self.X[rel], r_all[rel], self.neg[rel]
        m = rel.size
        Xf = np.asfortranarray(X, dtype=np.float64)
        XF = np.asfortranarray(X)
        rneg = np.minimum(r, 0.0)
        negf = neg.astype(np.float64)
        W = np.stack([r, rneg, negf])  # (3, m): value, optimistic part, negative count
        kept = KeptClauses(K, cutoff, excluded)

        # the root: the empty clause covers every row; its children are the single literals
        heap: list = [(a + b + float(rneg.sum()), 0, (), np.arange(m))]
        counter = 1
        n_closure_cuts = n_budget_cuts = 0
        complete = True
        while heap:
            lb, _, clause, rows = heap[0]
            if lb >= kept.T:
                heap.clear()
                break
            if limits.reached():
                complete = False
                break
            heapq.heappop(heap)
            limits.count(1, 0)
            depth = len(clause) + 1  # literals of each child
            start = clause[-1] + 1 if clause else 0
            if start >= self.J:
                continue
            limits.count(0, rows.size * (self.J - start))
            Xn = X[rows, start:]
            P = self._node_product(W, Xf, rows, start)
            node_lb, cut = self._node_bound(X, XF, Xf, neg, r, rneg, rows, clause, start, P, lb, a, b, D, kept.T)
            if cut:
                n_budget_cuts += cut == "budget"
                n_closure_cuts += cut == "closure"
                continue
            vals = a + b * depth + P[0]
            # children that remove a negative row (dominance; single literals are all kept,
            # since the empty clause is not a column)
            cand = np.flatnonzero(P[2] < float(negf[rows].sum()) - 0.5) if clause else np.arange(P.shape[1])
            if cand.size > 1:
                # literals equal on this node's rows give equal children; the first one's
                # subtree contains every other one's (module docstring): keep the first
                first = unique_rows_index(np.packbits(Xn[:, cand], axis=0).T)
                cand = cand[np.sort(first)]
            if cand.size == 0:
                continue
            for j_rel in cand[np.argsort(vals[cand], kind="stable")]:
                v = float(vals[j_rel])
                ext = a + b * (depth + 1) + float(P[1, j_rel])
                if v >= kept.T + 1e-12 and (depth >= D or max(node_lb, ext) >= kept.T):
                    continue
                j = start + int(j_rel)
                child = clause + (j,)
                child_rows = rows[Xn[:, j_rel]]
                # exact re-pricing (the product above sums in another order)
                v = a + b * depth + float(r[child_rows].sum())
                if v < kept.T or child in excluded:
                    kept.record(child, v)
                if depth < D:
                    child_lb = max(node_lb, ext)
                    if child_lb < kept.T:
                        heapq.heappush(heap, (child_lb, counter, child, child_rows))
                        counter += 1
        pending = heap[0][0] if (heap and not complete) else np.inf
        return kept.result(pending, limits, n_closure_cuts=n_closure_cuts, n_budget_cuts=n_budget_cuts)
