"""CORELS: certifiably optimal rule lists by prefix branch-and-bound (Angelino et al., KDD 2017).

A rule list ``d = (d_p, delta_p, q_0, K)`` is a prefix of ``K`` antecedents from a pool, each
labelled by the majority class of the samples it captures, followed by a default label (the
majority of the samples no antecedent captures). CORELS minimizes the regularized risk

    R(d, x, y) = l(d, x, y) + lambda K,

the misclassification rate plus ``lambda`` per rule, by best-first search over prefixes with
the bounds of the paper:

- hierarchical objective lower bound (Theorem 1): ``b(d_p) = l_p(d_p) + lambda K`` (errors of the
  prefix alone) bounds every list that starts with ``d_p``; a prefix with ``b >= R*`` is pruned;
- one-step lookahead (Lemma 2): a prefix is only expanded when ``b(d_p) + lambda < R*``;
- lower bounds on antecedent support (Theorems 3 and 4): an antecedent must capture at least
  ``lambda n`` samples, and classify at least ``lambda n`` of them correctly;
- equivalent-points bound (Theorem 20): samples with identical binary features but different
  labels force errors among the uncaptured samples; added to ``b``;
- permutation bound (Corollary 16): of prefixes that use the same antecedents, only the one
  with the smallest ``b`` is extended (a map from antecedent set to best bound).

Search policies as the reference implementation: ``"bfs"``, ``"dfs"``, ``"lower_bound"``
(smallest ``b`` first), ``"objective"`` (smallest ``R`` first) and ``"curious"``
(smallest ``b / captured fraction`` first). ``max_nodes`` bounds the number of expansions;
the result says whether the queue was exhausted (optimality certificate).

The reference ``corels`` package (pycorels) did not build against NumPy 2 in this
environment, so this module implements the algorithm over the same mined pool, with
coverage bit-packed in ``uint64`` words.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass

import numpy as np

from interpretopt._validation import check_in_range, check_int
from interpretopt.exceptions import InputError
from interpretopt.heuristics.mining import pack_bool

__all__ = ["CorelsResult", "POLICIES", "corels", "rule_list_objective"]

POLICIES = ("curious", "lower_bound", "objective", "bfs", "dfs")


@dataclass(frozen=True)
class CorelsResult:
    """The best list found.

    Attributes
    ----------
    prefix : tuple of pool indices (antecedents in order).
    labels : tuple of 0/1 labels, one per antecedent.
    default : the default label.
    objective : ``R(d)``.
    n_nodes : prefixes expanded.
    certified : True when the queue was exhausted, i.e. ``objective`` is optimal over
        prefixes of at most ``max_length`` antecedents of the pool.
    """

    prefix: tuple[int, ...]
    labels: tuple[int, ...]
    default: int
    objective: float
    n_nodes: int
    certified: bool


def _count(words: np.ndarray) -> np.ndarray:
    return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)


def rule_list_objective(packed, y, prefix, lam: float) -> tuple[float, tuple[int, ...], int]:
    """From-scratch ``R(d)`` of a prefix with majority labels; returns (objective, labels, default)."""
    P = np.asarray(packed, dtype=np.uint64)
    y = np.asarray(y).astype(np.int64).ravel()
    n = len(y)
    y1 = pack_bool(y == 1)
    cum = np.zeros(P.shape[1], dtype=np.uint64)
    errors = 0
    labels = []
    for a in prefix:
        new = P[a] & ~cum
        c = int(_count(new))
        c1 = int(_count(new & y1))
        labels.append(int(c1 > c - c1))
        errors += min(c1, c - c1)
        cum |= P[a]
    rest = n - int(_count(cum))
    rest1 = int(_count(y1)) - int(_count(cum & y1))
    default = int(rest1 > rest - rest1)
    errors += min(rest1, rest - rest1)
    return errors / n + lam * len(prefix), tuple(labels), default


def _equivalent_minority(packed: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Packed mask of samples forced to be misclassified: the minority of each group of
    samples with identical pool coverage (they can never be separated by the pool)."""
    n = len(y)
    from interpretopt.rules import unpack_coverage

    cov = unpack_coverage(packed, n) if packed.shape[0] else np.zeros((n, 0), dtype=bool)
    keys = np.packbits(cov, axis=1) if cov.shape[1] else np.zeros((n, 1), dtype=np.uint8)
    _, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.ravel()
    n_groups = inv.max() + 1
    ones = np.bincount(inv, weights=(y == 1), minlength=n_groups)
    sizes = np.bincount(inv, minlength=n_groups)
    minority_label = (ones < sizes - ones).astype(np.int64)  # label of the minority (ties: 0)
    mask = np.zeros(n, dtype=bool)
    for g in np.flatnonzero(np.minimum(ones, sizes - ones) > 0):
        members = np.flatnonzero((inv == g) & (y == minority_label[g]))
        k = int(min(ones[g], sizes[g] - ones[g]))
        mask[members[:k]] = True
    return pack_bool(mask)


def corels(
    packed,
    y,
    *,
    lam: float = 0.01,
    policy: str = "curious",
    max_nodes: int = 100_000,
    max_length: int = 9,
    equivalent_points: bool = True,
    rng=None,
) -> CorelsResult:
    """Branch-and-bound search for the rule list minimizing ``errors / n + lam * K``.

    Parameters
    ----------
    packed : uint64 (J, W), bit-packed coverage of the candidate antecedents.
    y : labels (n,) in {0, 1}.
    lam : float, default 0.01 (the reference implementation's ``c``).
    policy : one of :data:`POLICIES`.
    max_nodes : int, default 100_000 (Appendix A's ``N``).
    max_length : int, default 9 (with pairs of items, 9 rules are 18 conditions, under Appendix
        A's 20).
    equivalent_points : use the equivalent-points bound.
    rng : unused (the search is deterministic); accepted for a uniform learner signature.
    """
    del rng
    P = np.ascontiguousarray(packed, dtype=np.uint64)
    y = np.asarray(y).astype(np.int64).ravel()
    check_in_range("lam", lam, 0.0, None)
    check_int("max_nodes", max_nodes, 0, None)
    check_int("max_length", max_length, 0, None)
    if policy not in POLICIES:
        raise InputError(f"unknown CORELS policy {policy!r}; valid policies are {POLICIES}")
    if P.ndim != 2 or P.shape[1] * 64 < len(y):
        raise InputError(f"packed must be (J, ceil(n/64)) uint64 words for n={len(y)}, got shape {P.shape}")
    n = len(y)
    J = P.shape[0]
    y1 = pack_bool(y == 1)
    tot1 = int(_count(y1))
    E = _equivalent_minority(P, y) if equivalent_points and J else np.zeros(P.shape[1], dtype=np.uint64)
    min_support = lam * n

    # the empty prefix: default only
    best_obj = min(tot1, n - tot1) / n
    best_prefix: tuple[int, ...] = ()
    counter = itertools.count()
    queue: list = []
    best_perm: dict[frozenset, float] = {}

    def priority(length, b, obj, covered, k):
        if policy == "bfs":
            return (length, k)
        if policy == "dfs":
            return (-length, -k)
        if policy == "lower_bound":
            return (b, k)
        if policy == "objective":
            return (obj, k)
        return (b * n / max(covered, 1), k)  # curious

    k0 = next(counter)
    heapq.heappush(queue, (priority(0, 0.0, best_obj, 0, k0), (), 0, 0.0))
    n_nodes = 0
    while queue and n_nodes < max_nodes:
        _, prefix, err_p, b_p = heapq.heappop(queue)
        if b_p + lam >= best_obj or len(prefix) >= max_length:
            continue
        n_nodes += 1
        cum = np.zeros(P.shape[1], dtype=np.uint64)
        for a in prefix:
            cum |= P[a]
        not_cum = ~cum
        covered = int(_count(cum))
        rest = n - covered
        rest1 = tot1 - int(_count(cum & y1))
        new = P & not_cum  # (J, W)
        cap = _count(new)
        cap1 = _count(new & y1)
        err_rule = np.minimum(cap1, cap - cap1)
        correct = cap - err_rule
        ok = (cap >= min_support) & (correct >= min_support) & (cap > 0)
        if prefix:
            ok[list(prefix)] = False
        cand = np.flatnonzero(ok)
        if cand.size == 0:
            continue
        length = len(prefix) + 1
        b = (err_p + err_rule[cand]) / n + lam * length
        r = rest - cap[cand]
        r1 = rest1 - cap1[cand]
        obj = b + np.minimum(r1, r - r1) / n
        j = int(np.argmin(obj))
        if obj[j] < best_obj - 1e-12:
            best_obj = float(obj[j])
            best_prefix = prefix + (int(cand[j]),)
        if length >= max_length:
            continue
        if equivalent_points:
            e_rest = int(_count(E & not_cum))
            b_eq = b + (e_rest - _count(E & new[cand])) / n
        else:
            b_eq = b
        push = np.flatnonzero(b_eq + lam < best_obj)
        if push.size == 0:
            continue
        a_list = cand[push].tolist()
        bt_list = np.asarray(b_eq, dtype=float)[push].tolist()
        obj_list = obj[push].tolist()
        err_list = (err_p + err_rule[cand[push]]).tolist()
        cov_list = (covered + cap[cand[push]]).tolist()
        pset = frozenset(prefix)
        for a, bt, ob, er, cv in zip(a_list, bt_list, obj_list, err_list, cov_list):
            key = pset | {a}
            prev = best_perm.get(key)
            if prev is not None and prev <= bt:
                continue
            best_perm[key] = bt
            k = next(counter)
            heapq.heappush(queue, (priority(length, bt, ob, cv, k), prefix + (a,), er, bt))
    certified = not any(item[3] + lam < best_obj and len(item[1]) < max_length for item in queue)
    objective, labels, default = rule_list_objective(P, y, best_prefix, lam)
    return CorelsResult(best_prefix, labels, default, objective, n_nodes, certified)
