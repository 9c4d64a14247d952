r"""Exact pricing for BRCG over clauses of at most three literals, by blocked enumeration.

The pricing problem of Dash, Günlük and Wei (2018, eqs. (6)-(10)) asks for the clause ``k``
of least reduced cost ``rc(k) = a + b |k| + sum_{i covered by k} r_i`` (``r_i <= 0`` on
positive rows, ``>= 0`` on negative ones; :mod:`interpretopt.heuristics.clause_bnb`). Over
clauses of at most three literals the whole space can be scored by dense products instead of
a tree search, which is what makes exact pricing at three literals cheap enough to be a phase
of every default fit:

* single literals ``j``: ``a + b + r @ X_j`` (one product);
* pairs ``{j, k}``: ``a + 2b + X_j^T diag(r) X_k`` (one ``J x J`` product);
* triples ``{j, k, l}``, ``l > k``: for a block of pairs, ``(X_j * X_k * r)^T X`` scores every
  third literal of every pair of the block at once (one matrix product per block).

Exact pruning keeps the triples' work small. Every triple containing the pair ``{j, k}``
covers a subset of the pair's rows, so ``rc >= a + 3b + sum_{i covered by {j, k}} min(r_i,
0)`` (the optimistic bound of :mod:`~interpretopt.heuristics.clause_bnb`, one more ``J x J``
product for all pairs). Pairs are taken in increasing bound, in blocks; the threshold ``T``
(``cutoff``, or the ``max_columns``-th best clause kept once that many are kept) only falls,
so the first pair whose bound is not below ``T`` ends the enumeration: every clause not met
has ``rc >= T``.

Two reductions, both exact:

* **Equal literals.** Literals equal on the rows that matter (``r_i != 0``) give clauses of
  equal coverage; only the first of each class is enumerated (a clause using another one has
  the coverage, and at least the size, of one that uses the first). A clause kept is named by
  the first literal of each class, or, when that clause is excluded, by the first choice of
  equal literals that is not.
* **Redundant literals.** A clause with a literal whose removal leaves its coverage unchanged
  is never returned: the clause without it has the same coverage and one literal fewer, so a
  lower reduced cost, and it is enumerated too (returned, or a master column). Returned
  clauses are therefore in canonical form.

The values are screened on the products (summed in BLAS order) and every clause kept is
re-priced exactly (``r`` summed over its rows), as the branch and bound does, so its
reduced cost does not depend on the BLAS build. The result is a
:class:`~interpretopt.heuristics.clause_bnb.ClauseSearchResult` with the same meaning as the
branch and bound's: when the enumeration completes, ``rc_lower_bound`` (the least of ``T``,
the returned reduced costs and those of excluded clauses met) bounds the reduced cost of every
clause of at most ``max_literals`` literals that is not excluded; when a work, node or time
limit stops it, the bound of the next pair enters that minimum, so the value stays valid.

``work`` counts row-literal products (``rows x literals`` per product column), the unit of
the branch and bound; ``n_nodes`` counts the clause prefixes extended (the root, each single
literal, each pair whose triples were scored). The limits are checked before the singles,
before the pairs and before each block of triples, so a stage once begun is finished.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

import numpy as np

from interpretopt._clock import monotonic
from interpretopt._rows import unique_rows_index
from interpretopt._threads import single_blas_thread
from interpretopt.exceptions import InputError
from interpretopt.heuristics.clause_bnb import ClauseSearchResult, KeptClauses, SearchLimits

__all__ = ["ClauseEnumeration", "MAX_ENUMERATION_LITERALS"]

#: the largest clause size enumerated by products (triples: one product per block of pairs)
MAX_ENUMERATION_LITERALS = 3
_SCREEN_SLACK = 1e-9   # products and exact sums differ in the last bits; screen a little wide


class ClauseEnumeration:
    """Holds the binarized rows once and answers exact pricing calls over clauses of at most 3 literals.

    Parameters
    ----------
    X_bin : (m, J) bool
        Rows by literals.
    y : (m,) {0, 1}
        Labels (accepted for the interface of
        :class:`~interpretopt.heuristics.clause_bnb.ClauseBranchAndBound`; the reduced costs
        carry the classes).
    block_size : int, default 2_000_000
        Rows x pairs of one block of the triples' product (its memory: 8 bytes each).
    """

    def __init__(self, X_bin, y, *, block_size: int = 2_000_000) -> None:
        X = np.asarray(X_bin)
        if X.ndim != 2:
            raise InputError(f"X_bin must be 2-D, got shape {X.shape}")
        self.X = X.astype(bool, copy=False)
        if np.asarray(y).reshape(-1).shape[0] != self.X.shape[0]:
            raise InputError(f"y has {np.asarray(y).reshape(-1).shape[0]} entries for {self.X.shape[0]} rows")
        self.m, self.J = self.X.shape
        self.block_size = int(block_size)

    def search(self, r, a: float, b: float, *, max_literals: int, max_columns: int = 10,
               exclude: Iterable[tuple] = (), cutoff: float = 0.0, node_limit: int | None = None,
               time_limit: float | None = None, clock: Callable[[], float] | None = None,
               work_limit: float | None = None) -> ClauseSearchResult:
        """Clauses of reduced cost ``a + b |k| + r @ delta_k`` below ``cutoff``, best first, with a bound.

        The parameters are those of :meth:`ClauseBranchAndBound.search
        <interpretopt.heuristics.clause_bnb.ClauseBranchAndBound.search>`; ``max_literals`` is at
        most :data:`MAX_ENUMERATION_LITERALS`.
        """
        r = np.asarray(r, dtype=np.float64).reshape(-1)
        if r.shape[0] != self.m:
            raise InputError(f"r has {r.shape[0]} entries for {self.m} rows")
        if not 1 <= int(max_literals) <= MAX_ENUMERATION_LITERALS or int(max_columns) < 1:
            raise InputError(f"max_literals must be 1-{MAX_ENUMERATION_LITERALS} and max_columns >= 1, "
                             f"got {max_literals}, {max_columns}")
        if b < 0:
            raise InputError(f"the per-literal term b must be >= 0, got {b}")
        limits = SearchLimits(node_limit, work_limit, time_limit, clock or monotonic)
        kept = KeptClauses(int(max_columns), float(cutoff), {tuple(sorted(int(j) for j in c)) for c in exclude})
        with single_blas_thread():
            pending = self._enumerate(r, float(a), float(b), int(max_literals), kept, limits)
        return kept.result(pending, limits)

    def _enumerate(self, r_all, a, b, D, kept: KeptClauses, limits: SearchLimits) -> float:
        """Score singles, pairs, then triples into ``kept``; the bound of what a limit left unscored."""
        rel = np.flatnonzero(r_all != 0.0)
        r = r_all[rel]
        Xr = self.X[rel]
        # one literal of each class of literals equal on the relevant rows, in index order
        first, inverse = unique_rows_index(np.packbits(Xr, axis=0).T, return_inverse=True)
        order = np.argsort(first, kind="stable")   # classes in the order of their first literal
        lits = first[order]
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        members = [[] for _ in lits]
        for j, cls in enumerate(np.asarray(inverse).reshape(-1)):
            members[rank[cls]].append(j)
        Xb = np.asfortranarray(Xr[:, lits])
        Xf = Xb.astype(np.float64)
        m, J = Xf.shape
        scorer = _Scorer(Xb, r, a, b, lits, members, kept)
        optimistic = float(np.minimum(r, 0.0).sum())   # every clause covers at most the negative-r rows
        if limits.reached():
            return a + b + optimistic
        limits.count(1, m * J)
        scorer.screen(a + b + r @ Xf, [np.arange(J)])
        if D == 1 or J < 2:
            return np.inf
        if limits.reached():
            return a + 2 * b + optimistic
        limits.count(J, m * J * (J - 1) // 2)
        jj, kk = np.triu_indices(J, 1)
        scorer.screen((a + 2 * b + Xf.T @ (r[:, None] * Xf))[jj, kk], [jj, kk])
        if D == 2 or J < 3:
            return np.inf
        # triples, pairs in increasing optimistic bound, while the bound is below T
        opt = a + 3 * b + (Xf.T @ (np.minimum(r, 0.0)[:, None] * Xf))[jj, kk]
        has_third = kk < J - 1
        order = np.flatnonzero(has_third)[np.argsort(opt[has_third], kind="stable")]
        block = max(1, self.block_size // max(m, 1))
        third = np.arange(J)
        for s in range(0, order.size, block):
            idx = order[s:s + block]
            idx = idx[opt[idx] < kept.T]
            if idx.size == 0:
                return np.inf   # every remaining pair's bound is at or above T (sorted)
            if limits.reached():
                return float(opt[idx[0]])
            j, k = jj[idx], kk[idx]
            limits.count(idx.size, int(m * (J - 1 - k).sum()))
            V = a + 3 * b + (Xf[:, j] * Xf[:, k] * r[:, None]).T @ Xf
            V[third[None, :] <= k[:, None]] = np.inf
            rows, ls = np.nonzero(V < kept.T + _SCREEN_SLACK)
            scorer.screen(V[rows, ls], [j[rows], k[rows], ls])
        return np.inf


class _Scorer:
    """Re-prices screened clauses exactly, in increasing screened value, into ``kept``."""

    def __init__(self, Xb: np.ndarray, r: np.ndarray, a: float, b: float, lits: np.ndarray, members: list,
                 kept: KeptClauses) -> None:
        self.Xb, self.r, self.a, self.b, self.lits, self.kept = Xb, r, a, b, lits, kept
        self.members = members   # per enumerated literal, the caller's literals equal to it

    def screen(self, values: np.ndarray, parts: list[np.ndarray]) -> None:
        """Clauses ``zip(*parts)`` (enumerated literal positions) with product values ``values``."""
        cand = np.flatnonzero(values < self.kept.T + _SCREEN_SLACK)
        for q in cand[np.argsort(values[cand], kind="stable")]:
            if values[q] >= self.kept.T + _SCREEN_SLACK:
                break   # T only falls: no later candidate passes
            pos = [int(p[q]) for p in parts]
            cover = self.Xb[:, pos].all(axis=1)
            if len(pos) > 1 and any(np.array_equal(self.Xb[:, pos[:t] + pos[t + 1:]].all(axis=1), cover)
                                    for t in range(len(pos))):
                continue   # a redundant literal: the clause without it is enumerated and cheaper
            rc = self.a + self.b * len(pos) + float(self.r[cover].sum())
            self.kept.record(self._named(pos), rc)

    def _named(self, pos: list[int]) -> tuple:
        """The clause in the caller's literals: the first one of each class, or, when that clause is
        excluded, the first choice of equal literals that is not (the same coverage and size)."""
        first = tuple(int(self.lits[p]) for p in pos)
        if first not in self.kept.excluded:
            return first
        for choice in itertools.product(*(self.members[p] for p in pos)):
            c = tuple(sorted(choice))
            if c not in self.kept.excluded:
                return c
        return first
