r"""Local search over 0/1 selections of BRCG's integer master: add, remove and swap moves.

The integer master of Dash, Günlük and Wei (2018, eqs. (1)-(4), and the light objective of
their Section 4) selects clauses ``S`` from the columns of the last restricted LP. Over 0/1
selections its objective separates into a coverage term and a per-column cost:

    obj(S) = s * sum_{i in P, i covered by no k in S} w_i  +  sum_{k in S} c_k  (+ a constant),

with ``c_k = s * sum_{i in Z covered by k} w_i + clause penalty of k (- the grounding
penalty for a grounding column)`` (negatives are charged once per covering clause, as in
(1)) and, in the constraint form, ``sum_{k in S} q_k <= C`` (row (3)). With ``n_i`` the number
of selected clauses covering positive row ``i``, each move's change is a product over rows:

* adding ``k``: ``c_k - s * sum_{i: n_i = 0, i covered by k} w_i``;
* removing ``j``: ``s * sum_{i: n_i = 1, i covered by j} w_i - c_j``;
* swapping ``j`` out and ``k`` in: the sum of both, plus ``s`` times the mass of the rows
  only ``j`` covers that ``k`` covers too (one ``|S| x K`` product).

:func:`improve_selection` takes the best improving move until none improves (a local
optimum of all three neighbourhoods) or ``max_moves`` moves are made (a work limit: the
same result on any machine). It never returns a selection worse than its start. It is a
heuristic: the integer master's solver, started from its answer, is what proves optimality.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interpretopt.exceptions import InputError

__all__ = ["SelectionSearchResult", "improve_selection"]

_EPS = 1e-12   # least objective decrease that counts as an improvement


@dataclass(frozen=True)
class SelectionSearchResult:
    """The selection found (column indices, sorted), its objective change against the start
    (``<= 0``), the moves made and whether the search stopped at a local optimum."""

    selected: np.ndarray
    delta: float
    moves: int
    local_optimum: bool


def improve_selection(cover_pos, weight_pos, scale: float, cost, start=(), *, complexity=None,
                      capacity: float | None = None, max_moves: int = 1000) -> SelectionSearchResult:
    """Best-improvement add / remove / swap search from ``start`` (module docstring).

    Parameters
    ----------
    cover_pos : (n_pos, K) bool, or the same as 0/1 float64
        Coverage of the positive rows by each column (a float64 matrix is used as it is, so a
        caller that searches from several starts converts it once).
    weight_pos : (n_pos,) nonnegative
        Weight of each positive row's loss.
    scale : float
        Objective weight of one unit of loss (``MasterSpec.loss_scale``).
    cost : (K,) float
        Cost ``c_k`` of selecting column ``k`` apart from the positives it covers.
    start : sequence of int
        Columns selected at the start (feasible for ``capacity``).
    complexity, capacity : (K,) float and float, or None
        Row (3): a move may not take ``sum_{k in S} complexity_k`` above ``capacity``.
    max_moves : int
        Work limit: most moves made.
    """
    is_float = isinstance(cover_pos, np.ndarray) and cover_pos.dtype == np.float64
    covf = cover_pos if is_float else np.asarray(cover_pos, dtype=bool).astype(np.float64)
    if covf.ndim != 2:
        raise InputError(f"cover_pos must be 2-D (positive rows x columns), got shape {covf.shape}")
    n, K = covf.shape
    w = _vector("weight_pos", weight_pos, n)
    c = _vector("cost", cost, K)
    q = np.zeros(K) if capacity is None else _vector("complexity", complexity, K)
    if int(max_moves) < 0:
        raise InputError(f"max_moves must be >= 0, got {max_moves}")
    sel = np.zeros(K, dtype=bool)
    sel[np.asarray(list(start), dtype=int)] = True
    cap = np.inf if capacity is None else float(capacity)
    if float(q[sel].sum()) > cap + 1e-9:
        raise InputError(f"the start uses complexity {float(q[sel].sum())} above the capacity {cap}")
    count = covf[:, sel].sum(axis=1) if K else np.zeros(n)
    delta, moves = 0.0, 0
    while moves < int(max_moves):
        move = _best_move(covf, w, float(scale), c, q, cap, sel, count)
        if move is None:
            return SelectionSearchResult(np.flatnonzero(sel), delta, moves, True)
        gain, out, into = move
        for j, sign in ((out, -1.0), (into, 1.0)):
            if j is not None:
                sel[j] = sign > 0
                count += sign * covf[:, j]
        delta -= gain
        moves += 1
    return SelectionSearchResult(np.flatnonzero(sel), delta, moves, _best_move(covf, w, float(scale), c, q, cap,
                                                                                 sel, count) is None)


def _vector(name: str, values, size: int) -> np.ndarray:
    v = np.asarray(values, dtype=float).reshape(-1)
    if v.shape[0] != size or not np.all(np.isfinite(v)):
        raise InputError(f"{name} must hold {size} finite numbers, got shape {v.shape}")
    return v


def _best_move(covf, w, s, c, q, cap, sel, count):
    """``(gain, column out, column in)`` of the best improving move (``None`` for an absent side), or None."""
    uncovered = w * (count == 0)
    only = w * (count == 1)
    gain_in = s * (uncovered @ covf)          # loss removed by adding each column
    used = float(q[sel].sum())
    add_free = gain_in - c
    add = add_free.copy()
    add[sel | (used + q > cap + 1e-9)] = -np.inf
    rem = c - s * (only @ covf)
    rem[~sel] = -np.inf
    best = (_EPS, None, None)
    if add.size and add.max() > best[0]:
        best = (float(add.max()), None, int(add.argmax()))
    if rem.size and rem.max() > best[0]:
        best = (float(rem.max()), int(rem.argmax()), None)
    S = np.flatnonzero(sel)
    if S.size and S.size < sel.size:
        shared = (covf[:, S] * only[:, None]).T @ covf           # mass only j covers that k covers too
        swap = rem[S][:, None] + add_free[None, :] + s * shared
        swap[:, sel] = -np.inf
        swap[used - q[S][:, None] + q[None, :] > cap + 1e-9] = -np.inf
        jj, kk = np.unravel_index(int(np.argmax(swap)), swap.shape)
        if swap[jj, kk] > best[0]:
            best = (float(swap[jj, kk]), int(S[jj]), int(kk))
    return None if best[1] is None and best[2] is None else best

