"""Rule List Search and Checklist Search (Yao et al., TMLR 2025, Sections 4.3-4.4, Algorithms 1-2).

Pure array functions; :mod:`interpretopt.methods.abbr` wraps them in estimators.

Samples carry black-box ranks 1..N (:func:`interpretopt.evaluation.abbr.rank_scores`).
Conditions are plain tuples ``(feature, op, value)`` over feature indices, with ``op`` one of
``"<=", ">", "<", ">=", "==", "!="``; rules are tuples of condition indices into a table.

Rule List Search
----------------
Phase 1 (pool R).
  * L >= 3: the leaves of a random-forest regressor (50 trees, depth L, minimum leaf
    fraction 0.02) fitted to ``n / N``; every root-to-leaf path is a rule of order <= L.
  * L <= 2: every conjunction of up to L conditions with support >= 0.02 (the paper used
    WizWhy's Apriori; ours is exhaustive): conditions are quantile thresholds in both
    directions for numerical features and equalities for discrete ones; the counts and rank
    sums of all pairs come from two matrix products of the condition matrix.
Phase 2 (filter, eq. 10): keep r unless some r' has supp(r') > supp(r) and
  abbr(r') > 1.1 abbr(r).
Phase 3 (annealing, eq. 15): start from the M rules of highest ABBR; each step swaps a random
  position of the list with a random pool rule not in the list; a worse move of objective
  change ``delta`` is taken with probability ``exp(delta / (K (1 - i/T)))``, K = 0.03,
  T = 500 (the reading of eq. 15 that cools to strictly improving steps, :func:`acceptance`;
  the printed formula is ``schedule="eq15"``). The list's
  objective ``abbr(l, s)`` is evaluated incrementally: the prefix unions before the swapped
  position are reused from the current state's cache, later ones are updated from the cached
  rule coverage. Finally the list is truncated to its first m* + 1 rules (Section 4.3.4).
  :func:`warm_started_rule_list` (not in the paper) starts the search for M from the answer of a
  search for fewer rules (measured effect: the "Warm start" paragraph of :mod:`interpretopt.methods.abbr`).

Checklist Search
----------------
Phase 1: ``==`` for every value of a discrete feature; ``<=`` and ``>`` at the 1/5..4/5
  quantiles of a numerical one. Phase 2 (eq. 11): 0.02 < supp(c) < 0.98 and abbr(c) >= 0.5.
Phase 3: the same annealing over the K conditions; the per-sample count of satisfied
  conditions is updated incrementally and the threshold t is re-chosen for every candidate as
  ``argmax_t abbr(k_t, s)``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from interpretopt.evaluation.abbr import (
    CHECKLIST_READINGS,
    _checklist_best,
    checklist_level_stats,
    interpolate_prefix_stats,
)
from interpretopt.data._conditions import (  # re-exported: the binarization lives in data/
    ConditionTable,
    _quantile_thresholds,  # noqa: F401  (methods/abbr.py reads H._quantile_thresholds)
    _table,
    checklist_conditions,
    discrete_mask,
    evaluate_condition,
    threshold_conditions,
)
from interpretopt.exceptions import InputError
from interpretopt.heuristics.annealing import anneal

__all__ = [
    "ConditionTable",
    "RulePool",
    "evaluate_condition",
    "discrete_mask",
    "threshold_conditions",
    "checklist_conditions",
    "forest_rule_pool",
    "pair_rule_pool",
    "pool_from_rules",
    "pareto_filter",
    "condition_filter",
    "eq15_accept",
    "anneal_rule_list",
    "warm_started_rule_list",
    "anneal_checklist",
    "RuleListAnneal",
    "ChecklistAnneal",
    "rule_list_objective",
    "random_rules",
]

# ---------------------------------------------------------------------------------------------
# rule pools
# ---------------------------------------------------------------------------------------------

@dataclass
class RulePool:
    """A pool of rules with cached coverage.

    Attributes
    ----------
    conditions : list of condition tuples.
    rules : list of tuples of indices into ``conditions``.
    packed : uint8 (k, ceil(n/8)) bit-packed coverage of each rule (``np.packbits`` rows).
    counts : int64 (k,) covered samples; rank_sums : int64 (k,) sum of covered ranks.
    n : number of samples.
    """

    conditions: list
    rules: list
    packed: np.ndarray
    counts: np.ndarray
    rank_sums: np.ndarray
    n: int
    #: |R| before the filter of eq. 10 (-1: unknown), seconds per phase, and the key of
    #: (ranks, pool parameters) set by the estimator that built it
    n_raw: int = -1
    timings: dict = field(default_factory=dict)
    key: str | None = None

    def __len__(self) -> int:
        return len(self.rules)

    @property
    def support(self) -> np.ndarray:
        return self.counts / self.n

    @property
    def abbr(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.counts > 0, self.rank_sums / np.maximum(self.counts, 1) / self.n, 0.0)

    def cover(self, i: int) -> np.ndarray:
        """Boolean coverage of rule i."""
        return np.unpackbits(self.packed[i], count=self.n).view(bool)

    def cover_matrix(self, idx=None) -> np.ndarray:
        """Boolean (n, len(idx)) coverage of the given rules (all by default)."""
        p = self.packed if idx is None else self.packed[np.asarray(idx, dtype=int)]
        return np.unpackbits(p, axis=1, count=self.n).view(bool).T

    def subset(self, idx) -> "RulePool":
        idx = np.asarray(idx, dtype=int)
        return RulePool(self.conditions, [self.rules[i] for i in idx], self.packed[idx],
                        self.counts[idx], self.rank_sums[idx], self.n, self.n_raw, dict(self.timings), self.key)

    def rule_conditions(self, i: int) -> list:
        return [self.conditions[c] for c in self.rules[i]]


def _pool_stats(cover_rows: np.ndarray, ranks: np.ndarray):
    counts = cover_rows.sum(axis=1).astype(np.int64)
    sums = (cover_rows.astype(np.float64) @ ranks.astype(np.float64)).round().astype(np.int64)
    return counts, sums


def _canonical(conds: list) -> tuple:
    """Tightest bound per feature and operator; sorted."""
    upper: dict = {}
    lower: dict = {}
    other = set()
    for f, op, v in conds:
        if op == "<=":
            upper[f] = min(upper.get(f, np.inf), v)
        elif op == ">":
            lower[f] = max(lower.get(f, -np.inf), v)
        else:
            other.add((f, op, v))
    out = [(f, "<=", v) for f, v in upper.items()] + [(f, ">", v) for f, v in lower.items()] + list(other)
    return tuple(sorted(out, key=lambda c: (c[0], c[1], c[2])))


def pool_from_rules(X: np.ndarray, ranks: np.ndarray, rules: list, *, dedupe: bool = True) -> RulePool:
    """Build a :class:`RulePool` from rules given as lists of condition tuples."""
    cond_index: dict = {}
    conds: list = []
    rule_ids: list = []
    seen = set()
    for r in rules:
        key = _canonical(list(r))
        if dedupe:
            if key in seen:
                continue
            seen.add(key)
        ids = []
        for c in key:
            if c not in cond_index:
                cond_index[c] = len(conds)
                conds.append(c)
            ids.append(cond_index[c])
        rule_ids.append(tuple(ids))
    n = X.shape[0]
    table = _table(X, conds) if conds else ConditionTable([], np.zeros((0, n), bool))
    cover = np.ones((len(rule_ids), n), dtype=bool)
    for i, ids in enumerate(rule_ids):
        for c in ids:
            cover[i] &= table.cover[c]
    counts, sums = _pool_stats(cover, ranks)
    return RulePool(conds, rule_ids, np.packbits(cover, axis=1), counts, sums, n)


def _tree_paths(tree) -> dict:
    """leaf node id -> list of conditions on the path from the root (sklearn tree_)."""
    t = tree.tree_
    out: dict = {}
    stack = [(0, [])]
    while stack:
        node, path = stack.pop()
        left, right = t.children_left[node], t.children_right[node]
        if left == -1:
            out[node] = path
            continue
        f, thr = int(t.feature[node]), float(t.threshold[node])
        stack.append((left, path + [(f, "<=", thr)]))
        stack.append((right, path + [(f, ">", thr)]))
    return out


def forest_rule_pool(X: np.ndarray, ranks: np.ndarray, max_depth: int, *, n_estimators: int = 50,
                     min_leaf_fraction: float = 0.02, max_features=1.0,
                     rng: np.random.Generator | None = None, n_jobs: int | None = 1) -> RulePool:
    """Phase 1 for L >= 3: leaves of a random-forest regressor of ``n / N`` (Section 4.3.1, case 2)."""
    from sklearn.ensemble import RandomForestRegressor

    rng = rng if rng is not None else np.random.default_rng()
    n = X.shape[0]
    rf = RandomForestRegressor(n_estimators=n_estimators, max_depth=max_depth,
                               min_samples_leaf=min_leaf_fraction, max_features=max_features,
                               random_state=int(rng.integers(2**31 - 1)), n_jobs=n_jobs)
    rf.fit(X, ranks / n)
    rules = []
    for est in rf.estimators_:
        rules.extend(_tree_paths(est).values())
    return pool_from_rules(X, ranks, [r for r in rules if r])


def _pair_products(B: np.ndarray, rf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pair counts ``B B^T`` and rank sums ``(B * r) B^T`` of the condition matrix B (J, n).

    The products are small (J x J) and memory-bound; BLAS is held to one thread, which is faster
    than several threads competing on a busy machine and no slower on a quiet one at this size.
    """
    from interpretopt._threads import single_blas_thread

    Bf = B.astype(np.float32)
    Bd = B.astype(np.float64)
    with single_blas_thread():
        C = Bf @ Bf.T
        S = (Bd * rf) @ Bd.T
    return C.round().astype(np.int64), S


def pair_rule_pool(X: np.ndarray, ranks: np.ndarray, discrete: np.ndarray, *, max_order: int = 2,
                   min_support: float = 0.02, n_thresholds: int = 9, filter_factor: float | None = 1.1,
                   timings: dict | None = None) -> RulePool:
    """Phase 1 for L <= 2: every conjunction of up to ``max_order`` (1 or 2) conditions with support
    >= ``min_support``, enumerated exhaustively with two matrix products.

    With ``filter_factor`` set, the Pareto filter of eq. 10 is applied to the statistics before
    any coverage is materialized (the result equals filtering afterwards). ``timings``, when
    given, receives the seconds of "enumerate", "filter" and "materialize" and "n_rules" (|R|).
    """
    t0 = time.perf_counter()
    if max_order not in (1, 2):
        raise InputError(f"exhaustive enumeration supports max_order 1 or 2, got {max_order}")
    n = X.shape[0]
    table = threshold_conditions(X, discrete, n_thresholds)
    min_count = math.ceil(min_support * n - 1e-9)
    single_counts = table.cover.sum(axis=1)
    keep = np.flatnonzero(single_counts >= max(min_count, 1))  # Apriori: subsets of frequent sets are frequent
    conds = [table.conditions[i] for i in keep]
    B = table.cover[keep]
    J = len(conds)
    rf = ranks.astype(np.float64)
    counts1 = single_counts[keep].astype(np.int64)
    sums1 = (B.astype(np.float64) @ rf).round().astype(np.int64)
    rule_a = list(range(J))
    rule_b = [-1] * J
    counts, sums = [counts1], [sums1]
    if max_order == 2 and J > 1:
        C, S = _pair_products(B, rf)
        feat = np.array([c[0] for c in conds])
        ops = np.array([c[1] for c in conds])
        vals = np.array([c[2] for c in conds])
        ia, ib = np.triu_indices(J, k=1)
        same = feat[ia] == feat[ib]
        # same-feature pairs are kept only when they form an interval  v_a < x <= v_b
        interval = same & (((ops[ia] == ">") & (ops[ib] == "<=") & (vals[ia] < vals[ib]))
                           | ((ops[ia] == "<=") & (ops[ib] == ">") & (vals[ib] < vals[ia])))
        ok = (~same | interval) & (C[ia, ib] >= max(min_count, 1))
        ia, ib = ia[ok], ib[ok]
        counts.append(C[ia, ib])
        sums.append(S[ia, ib].round().astype(np.int64))
        rule_a += ia.tolist()
        rule_b += ib.tolist()
    counts = np.concatenate(counts)
    sums = np.concatenate(sums)
    rule_a = np.asarray(rule_a, dtype=np.int64)
    rule_b = np.asarray(rule_b, dtype=np.int64)
    t1 = time.perf_counter()
    n_rules = int(counts.size)
    if filter_factor is not None and counts.size:
        with np.errstate(invalid="ignore", divide="ignore"):
            ab = np.where(counts > 0, sums / np.maximum(counts, 1) / n, 0.0)
        sel = pareto_filter(counts, ab, filter_factor)
        counts, sums, rule_a, rule_b = counts[sel], sums[sel], rule_a[sel], rule_b[sel]
    t2 = time.perf_counter()
    packedB = np.packbits(B, axis=1)
    packed = packedB[rule_a].copy()
    two = rule_b >= 0
    packed[two] &= packedB[rule_b[two]]
    rules = [(int(a),) if b < 0 else (int(a), int(b)) for a, b in zip(rule_a, rule_b)]
    if timings is not None:
        t3 = time.perf_counter()
        timings.update(enumerate=t1 - t0, filter=t2 - t1, materialize=t3 - t2, n_rules=n_rules)
    return RulePool(conds, rules, packed, counts.astype(np.int64), sums.astype(np.int64), n)


# ---------------------------------------------------------------------------------------------
# filters
# ---------------------------------------------------------------------------------------------

def pareto_filter(counts, abbr_values, factor: float = 1.1) -> np.ndarray:
    """Eq. 10: keep r unless some r' has strictly larger support and abbr(r') > factor * abbr(r).

    ``counts`` are supports as integer counts (exact comparison). Returns a boolean mask.
    """
    counts = np.asarray(counts)
    ab = np.asarray(abbr_values, dtype=float)
    k = counts.size
    if k == 0:
        return np.zeros(0, dtype=bool)
    order = np.argsort(-counts, kind="stable")
    c_sorted = counts[order]
    prefmax = np.maximum.accumulate(ab[order])
    # number of rules with strictly larger support than each sorted position
    first = np.searchsorted(-c_sorted, -c_sorted, side="left")
    best_greater = np.where(first > 0, prefmax[np.maximum(first - 1, 0)], -np.inf)
    keep_sorted = ~(best_greater > factor * ab[order])
    keep = np.empty(k, dtype=bool)
    keep[order] = keep_sorted
    return keep


def pareto_filter_reference(counts, abbr_values, factor: float = 1.1) -> np.ndarray:
    counts = list(counts)
    ab = list(abbr_values)
    return np.array([not any(counts[j] > counts[i] and ab[j] > factor * ab[i] for j in range(len(ab)))
                     for i in range(len(ab))], dtype=bool)


def condition_filter(table: ConditionTable, ranks: np.ndarray, *, min_support: float = 0.02,
                     max_support: float = 0.98, min_abbr: float = 0.5) -> np.ndarray:
    """Eq. 11: ``min_support < supp(c) < max_support`` and ``abbr(c) >= min_abbr``. Boolean mask."""
    n = ranks.size
    counts = table.cover.sum(axis=1)
    sums = table.cover.astype(np.float64) @ ranks.astype(np.float64)
    sup = counts / n
    with np.errstate(invalid="ignore", divide="ignore"):
        ab = np.where(counts > 0, sums / np.maximum(counts, 1) / n, 0.0)
    return (sup > min_support) & (sup < max_support) & (ab >= min_abbr)


# ---------------------------------------------------------------------------------------------
# annealing (eq. 15)
# ---------------------------------------------------------------------------------------------

def eq15_accept(K: float, T: int, scale: float = 1.0):
    """Acceptance of eq. 15 as printed: take the candidate when ``U < exp(K * (i/T) * scale * delta)``, i = 1..T.

    ``delta`` is the change of the objective (normalized ABBR); ``scale`` sets its unit (N = ranks).
    Improvements (delta >= 0) are always taken. With K = 0.03 and ``scale = 1`` a worse move
    is accepted with probability >= exp(-0.03) = 0.97 at every step (a random walk); with
    ``scale = N`` the acceptance depends on the sample size. Neither cools to the strictly
    improving steps Section 4.3.3 describes; kept as ``schedule="eq15"`` for measurement.
    """

    def accept(delta: float, k: int, rng: np.random.Generator) -> bool:
        if delta >= 0:
            return True
        x = K * ((k + 1) / T) * scale * delta
        return rng.random() < math.exp(x)

    return accept


#: acceptance schedules of the local search (see :func:`acceptance`)
SCHEDULES = ("linear", "eq15", "greedy", "random_walk")


def acceptance(schedule: str, K: float, T: int, scale: float = 1.0):
    """The acceptance rule ``accept(delta, k, rng)`` of the local search (k = 0..T-1 is step i = k+1).

    ``"linear"`` (default): a worse candidate (delta < 0, in units of normalized ABBR) is taken
      with probability ``exp(delta / tau_i)`` where the temperature ``tau_i = K (1 - i/T)``
      falls linearly from K to 0. This is the reading of eq. 15 that does what Section 4.3.3
      and Appendix D say it does: improvements are always taken; the probability of a worse
      move falls with how much worse it is and with i/T; and "as i approaches T, the
      algorithm will exploit by only taking steps that strictly increase" (tau_T = 0: the
      last step is greedy). K = 0.03 is the starting temperature: at i = 1 a move 0.01
      worse is taken with probability exp(-1/3) = 0.72, at i = 0.9 T with exp(-10/3) = 0.04.
    ``"eq15"``: eq. 15 as printed (:func:`eq15_accept`), with ``scale`` the unit of delta.
    ``"greedy"``: hill climbing, only candidates that are not worse (the reference of the tests).
    ``"random_walk"``: every candidate (with ``keep="best"``: the best of a random walk).
    """
    if schedule == "linear":
        def accept(delta: float, k: int, rng: np.random.Generator) -> bool:
            if delta >= 0:
                return True
            tau = K * (1.0 - (k + 1) / T)
            if tau <= 0:
                return False
            return rng.random() < math.exp(delta / tau)

        return accept
    if schedule == "eq15":
        return eq15_accept(K, T, scale)
    if schedule == "greedy":
        return lambda delta, k, rng: delta >= 0
    if schedule == "random_walk":
        return lambda delta, k, rng: True
    raise InputError(f"unknown annealing schedule {schedule!r}; valid: {SCHEDULES}")


class _ListState:
    """A rule list with the cached prefix unions (bit-packed), counts and rank sums of l_0..l_M."""

    __slots__ = ("idx", "prefix", "counts", "sums")

    def __init__(self, idx, prefix, counts, sums):
        self.idx, self.prefix, self.counts, self.sums = idx, prefix, counts, sums


#: bits of every byte value in ``np.packbits`` order (bit 7 first): (256, 8)
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1)
_POPCOUNT = _BYTE_BITS.sum(axis=1).astype(np.int64)


class _PackedRanks:
    """Count and rank sum of a bit-packed set of samples by table look-up.

    ``table[b, v]`` is the rank sum of the samples of byte ``b`` whose bits are set in byte
    value ``v``, so a set's rank sum is a gather of ``ceil(n/8)`` table entries instead of a
    boolean index over n ranks (exact: integer sums below 2^53).
    """

    __slots__ = ("flat", "offsets")

    def __init__(self, ranks: np.ndarray, n: int):
        nb = (n + 7) // 8
        r = np.zeros(nb * 8, dtype=np.float64)
        r[:n] = ranks
        r = r.reshape(nb, 8)
        table = np.zeros((nb, 256), dtype=np.float64)
        for j in range(8):  # one bit position at a time (a BLAS product is slower at this shape)
            table += r[:, j, None] * _BYTE_BITS[None, :, j]
        self.flat = table.ravel()
        self.offsets = np.arange(nb, dtype=np.intp) * 256

    def stats(self, packed: np.ndarray) -> tuple[int, int]:
        return int(_POPCOUNT[packed].sum()), int(round(self.flat.take(self.offsets + packed).sum()))


def _build_state(pool: RulePool, pr: _PackedRanks, idx: tuple) -> _ListState:
    M = len(idx)
    prefix = np.zeros((M + 1, pool.packed.shape[1]), dtype=np.uint8)
    counts = np.zeros(M + 1, dtype=np.int64)
    sums = np.zeros(M + 1, dtype=np.int64)
    for j, r in enumerate(idx):
        cov = pool.packed[r]
        c, sm = pr.stats(cov & ~prefix[j])
        prefix[j + 1] = prefix[j] | cov
        counts[j + 1] = counts[j] + c
        sums[j + 1] = sums[j] + sm
    return _ListState(tuple(idx), prefix, counts, sums)


def _swap_state(pool: RulePool, pr: _PackedRanks, st: _ListState, pos: int, rule: int) -> _ListState:
    """Incremental update: prefixes before ``pos`` are reused, later ones recomputed from the packed covers."""
    idx = st.idx[:pos] + (rule,) + st.idx[pos + 1:]
    prefix = st.prefix.copy()
    counts = st.counts.copy()
    sums = st.sums.copy()
    packed = pool.packed
    for j in range(pos, len(idx)):
        cov = packed[idx[j]]
        c, sm = pr.stats(cov & ~prefix[j])
        prefix[j + 1] = prefix[j] | cov
        counts[j + 1] = counts[j] + c
        sums[j + 1] = sums[j] + sm
    return _ListState(idx, prefix, counts, sums)


def rule_list_objective(pool: RulePool, ranks: np.ndarray, idx, s: float) -> float:
    """abbr(l, s) of the list of pool rules ``idx``, recomputed from scratch (reference for tests)."""
    from interpretopt.evaluation.abbr import abbr_at_support

    return abbr_at_support(pool.cover_matrix(list(idx)), ranks, s)


@dataclass
class RuleListAnneal:
    """Outcome of :func:`anneal_rule_list`.

    rules : pool indices of the final list, truncated to m* + 1.
    value : abbr(l, s) of the final list; init_value : of the starting list.
    full_rules : the list before truncation; last_rules / last_value : the walk's final state.
    """

    rules: tuple
    value: float
    m_star: int
    full_rules: tuple
    init_rules: tuple
    init_value: float
    last_rules: tuple
    last_value: float
    history: np.ndarray = field(repr=False)
    n_accepted: int = 0
    seconds: float = 0.0
    #: with a warm start (:func:`warm_started_rule_list`): the smaller search's list and value
    warm_rules: tuple | None = None
    warm_value: float | None = None


def _initial_order(counts, ab) -> np.ndarray:
    """Descending ABBR, ties by larger support, then by index."""
    return np.lexsort((np.arange(len(ab)), -np.asarray(counts), -np.asarray(ab)))


def _draw_outside(members: tuple[int, ...], size: int, g: np.random.Generator) -> int:
    """A uniform index in ``range(size)`` not in ``members`` (by rejection; ``size > len(members)``)."""
    taken = set(members)
    while True:
        r = int(g.integers(size))
        if r not in taken:
            return r


def _start_rules(order: np.ndarray, m: int, start) -> tuple:
    """The starting list: the rules of ``start`` (in order, at most m), then the rules of highest ABBR
    (``order``) not already in it, up to m rules. ``start=None`` is Algorithm 1's start, the m best."""
    head = [] if start is None else list(dict.fromkeys(int(i) for i in start))[:m]
    taken = set(head)
    rest = (int(i) for i in order if int(i) not in taken)
    return tuple(head + [next(rest) for _ in range(m - len(head))])


def anneal_rule_list(pool: RulePool, ranks: np.ndarray, s: float, M: int, *, n_iter: int = 500,
                     K: float = 0.03, schedule: str = "linear", scale: float | None = None, keep: str = "best",
                     rng: np.random.Generator | None = None, start=None) -> RuleListAnneal:
    """Phase 3 of Rule List Search (Section 4.3.3, Algorithm 1 lines 21-31).

    Parameters
    ----------
    pool : filtered rule pool R~ (non-empty).
    ranks : int (n,) black-box ranks of the pool's samples.
    s : target support in (0, 1); M : maximum number of rules.
    n_iter : T of eq. 15; K : the constant of eq. 15 (the starting temperature of ``"linear"``).
    schedule : acceptance rule, one of :data:`SCHEDULES` (see :func:`acceptance`).
    scale : unit of the objective change for ``schedule="eq15"`` (default N, ABBR in ranks).
    keep : ``"last"`` returns the walk's final list l(T) (Algorithm 1, line 31), ``"best"``
        the best list seen.
    start : pool indices the starting list begins with (a warm start, e.g. a smaller search's
        answer), completed by the rules of highest ABBR; None (default) starts from the M rules
        of highest ABBR as Algorithm 1 does.
    """
    t0 = time.perf_counter()
    if len(pool) == 0:
        raise InputError("the rule pool is empty after filtering; lower min_support or use a larger L")
    if keep not in ("best", "last"):
        raise InputError(f"keep must be 'best' or 'last', got {keep!r}")
    if schedule not in SCHEDULES:
        raise InputError(f"unknown annealing schedule {schedule!r}; valid: {SCHEDULES}")
    rng = rng if rng is not None else np.random.default_rng()
    n = pool.n
    ranks = np.asarray(ranks, dtype=np.int64)
    scale = float(n) if scale is None else float(scale)
    order = _initial_order(pool.counts, pool.abbr)
    m = min(M, len(pool))
    pr = _PackedRanks(ranks, n)
    if start is not None and any(not 0 <= int(i) < len(pool) for i in start):
        raise InputError(f"start must hold pool indices in 0..{len(pool) - 1}, got {tuple(start)}")
    init = _build_state(pool, pr, _start_rules(order, m, start))

    def value_of(st: _ListState) -> float:
        return interpolate_prefix_stats(st.counts, st.sums, n, s).value

    init_value = value_of(init)
    k = len(pool)

    def propose(st: _ListState, value: float, g: np.random.Generator):
        if k <= m:
            return None
        pos = int(g.integers(m))
        r = _draw_outside(st.idx, k, g)
        cand = _swap_state(pool, pr, st, pos, r)
        return cand, value_of(cand)

    res = anneal(init, init_value, propose, n_iter, rng, accept=acceptance(schedule, K, max(n_iter, 1), scale))
    chosen = res.best_state if keep == "best" else res.state
    interp = interpolate_prefix_stats(chosen.counts, chosen.sums, n, s)
    return RuleListAnneal(
        rules=chosen.idx[: interp.n_used], value=interp.value, m_star=interp.m_star, full_rules=chosen.idx,
        init_rules=init.idx, init_value=init_value, last_rules=res.state.idx, last_value=res.value,
        history=res.history, n_accepted=res.n_accepted, seconds=time.perf_counter() - t0)


def warm_started_rule_list(pool: RulePool, ranks: np.ndarray, s: float, M: int, warm_M: int | None, *,
                           rng: np.random.Generator | None = None, keep: str = "best", **anneal_kw) -> RuleListAnneal:
    """Phase 3 warm-started from a smaller list: :func:`anneal_rule_list` for at most ``warm_M`` rules
    (the same T, start and schedule), then for at most M rules starting from that answer (its untruncated
    list, completed by the rules of highest ABBR). Not in the paper, which starts every M from the M
    rules of highest ABBR (``warm_M=None`` or ``warm_M >= M``: that search alone).

    A list of at most ``warm_M`` rules is a list of at most M rules, so with ``keep="best"`` the answer
    is the better of the two searches' best lists: never below the warm search's. With ``keep="last"``
    it is the second walk's final list. The steps are those of both walks (``history``: 2T values).
    """
    if warm_M is None or warm_M >= M or len(pool) <= min(warm_M, M):
        return anneal_rule_list(pool, ranks, s, M, rng=rng, keep=keep, **anneal_kw)
    rng = rng if rng is not None else np.random.default_rng()
    t0 = time.perf_counter()
    warm = anneal_rule_list(pool, ranks, s, warm_M, rng=rng, keep=keep, **anneal_kw)
    main = anneal_rule_list(pool, ranks, s, M, rng=rng, keep=keep, start=warm.full_rules, **anneal_kw)
    win = warm if keep == "best" and warm.value > main.value else main
    return RuleListAnneal(
        rules=win.rules, value=win.value, m_star=win.m_star, full_rules=win.full_rules,
        init_rules=warm.init_rules, init_value=warm.init_value, last_rules=main.last_rules,
        last_value=main.last_value, history=np.concatenate([warm.history, main.history]),
        n_accepted=warm.n_accepted + main.n_accepted, seconds=time.perf_counter() - t0,
        warm_rules=warm.rules, warm_value=warm.value)


@dataclass
class ChecklistAnneal:
    """Outcome of :func:`anneal_checklist`: condition indices, threshold t and abbr(k_t, s)."""

    conditions: tuple
    threshold: int
    value: float
    init_conditions: tuple
    init_value: float
    last_conditions: tuple
    last_value: float
    history: np.ndarray = field(repr=False)
    n_accepted: int = 0
    seconds: float = 0.0


class _CheckState:
    __slots__ = ("idx", "count", "t")

    def __init__(self, idx, count, t):
        self.idx, self.count, self.t = idx, count, t


def anneal_checklist(cover: np.ndarray, ranks: np.ndarray, s: float, K: int, *, n_iter: int = 500,
                     Kconst: float = 0.03, schedule: str = "linear", scale: float | None = None,
                     keep: str = "best", reading: str = "set", rng: np.random.Generator | None = None) -> ChecklistAnneal:
    """Phase 3 of Checklist Search (Section 4.4.3, Algorithm 2 lines 16-27).

    Parameters
    ----------
    cover : bool (J, n) coverage of the filtered conditions C~ (J >= 1).
    K : number of conditions of the checklist (at most J are used).
    Kconst : the constant K = 0.03 of eq. 15 (named apart from the checklist size).
    """
    t0 = time.perf_counter()
    J, n = cover.shape
    if J == 0:
        raise InputError("the condition pool is empty after filtering (eq. 11); no condition has "
                         "0.02 < support < 0.98 and ABBR >= 0.5")
    if keep not in ("best", "last"):
        raise InputError(f"keep must be 'best' or 'last', got {keep!r}")
    if schedule not in SCHEDULES:
        raise InputError(f"unknown annealing schedule {schedule!r}; valid: {SCHEDULES}")
    if reading not in CHECKLIST_READINGS:
        raise InputError(f"unknown checklist reading {reading!r}; valid: {CHECKLIST_READINGS}")
    rng = rng if rng is not None else np.random.default_rng()
    ranks = np.asarray(ranks, dtype=np.int64)
    scale = float(n) if scale is None else float(scale)
    counts = cover.sum(axis=1)
    sums = cover.astype(np.float64) @ ranks.astype(np.float64)
    ab = np.where(counts > 0, sums / np.maximum(counts, 1) / n, 0.0)
    order = _initial_order(counts, ab)
    k = min(K, J)
    cov8 = cover.view(np.uint8)

    def evaluate(count: np.ndarray) -> tuple[float, int]:
        c, sm = checklist_level_stats(count, ranks, k)
        return _checklist_best(c, sm, n, s, k, reading=reading)

    idx0 = tuple(int(i) for i in order[:k])
    count0 = cov8[list(idx0)].sum(axis=0, dtype=np.int16)
    v0, t0_ = evaluate(count0)
    init = _CheckState(idx0, count0, t0_)

    def propose(st: _CheckState, value: float, g: np.random.Generator):
        if J <= k:
            return None
        pos = int(g.integers(k))
        r = _draw_outside(st.idx, J, g)
        count = st.count - cov8[st.idx[pos]] + cov8[r]
        v, t = evaluate(count)
        return _CheckState(st.idx[:pos] + (r,) + st.idx[pos + 1:], count, t), v

    res = anneal(init, v0, propose, n_iter, rng, accept=acceptance(schedule, Kconst, max(n_iter, 1), scale))
    chosen = res.best_state if keep == "best" else res.state
    value = res.best_value if keep == "best" else res.value
    return ChecklistAnneal(conditions=chosen.idx, threshold=chosen.t, value=float(value),
                           init_conditions=idx0, init_value=float(v0), last_conditions=res.state.idx,
                           last_value=float(res.value), history=res.history, n_accepted=res.n_accepted,
                           seconds=time.perf_counter() - t0)


# ---------------------------------------------------------------------------------------------
# random rules (Appendix A)
# ---------------------------------------------------------------------------------------------

def random_rules(X: np.ndarray, discrete: np.ndarray, n_rules: int = 1000, *, max_conditions: int = 5,
                 min_support: float = 0.02, exact: bool = True, rng: np.random.Generator | None = None,
                 max_tries: int = 100) -> list:
    """Appendix A.1 step 1: random rules "of up to 5 conditions by randomly sampling 5 features":
    ``max_conditions`` distinct random features (``exact=True``, the paper's reading; fewer only
    when X has fewer features) or a uniform 1..``max_conditions`` of them (``exact=False``), one
    condition each: a threshold at a uniformly random quantile (numerical, random direction) or a
    random observed value (discrete); rules with support below ``min_support`` are redrawn.

    Returns a list of rules (lists of condition tuples); fewer than ``n_rules`` if redraws fail.
    """
    rng = rng if rng is not None else np.random.default_rng()
    n, d = X.shape
    out = []
    for _ in range(n_rules):
        for _try in range(max_tries):
            L = min(max_conditions, d) if exact else int(rng.integers(1, min(max_conditions, d) + 1))
            feats = rng.choice(d, size=L, replace=False)
            conds = []
            for f in feats:
                col = X[:, f]
                if discrete[f]:
                    conds.append((int(f), "==", float(col[rng.integers(n)])))
                else:
                    thr = float(np.quantile(col, rng.random()))
                    conds.append((int(f), "<=" if rng.random() < 0.5 else ">", thr))
            cov = np.ones(n, dtype=bool)
            for c in conds:
                cov &= evaluate_condition(X, c)
            if cov.mean() >= min_support:
                out.append(conds)
                break
    return out
