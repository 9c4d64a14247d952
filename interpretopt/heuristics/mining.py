"""Candidate rules for rule-list searches: quantile one-hot binarization and FP-Growth mining.

Preprocessing follows Section 6.1 of the companion-rule-list paper (Pan, Wang and Hara):
every numerical feature is quantized into (at most) seven quantile bins, then every
categorical feature, including the quantized ones, is one-hot encoded. Each binary column
is an *item*: ``lo < x_j <= hi`` for a bin or ``x_j == v`` for a category.

Rules are conjunctions of at most ``max_card`` items that are frequent with support at
least ``gamma`` among the samples of one class; a rule mined on class ``c`` predicts ``c``
(Algorithm 1's ``FPGrowth(D, minsupp = gamma)`` for "positive" and "negative" rules). The
miner is mlxtend's maintained FP-Growth. Appendix A / Algorithm 2 mine on fewer
observations when memory is short (``b <- floor(0.9 b)`` until mining fits); that
fallback is the explicit option ``memory_limit_mb`` and is reported in
:class:`MiningReport`, never applied silently.

Coverage of every mined rule on the full training data is returned bit-packed
(``uint64`` words, 64 samples per word) for the incremental objectives of the searches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from interpretopt._validation import as_generator, check_in_range, check_int
from interpretopt.data._onehot import Item, QuantileOneHotBinarizer  # re-exported: the binarizer lives in data/
from interpretopt.exceptions import InputError
from interpretopt.rules import pack_coverage, pack_vector

__all__ = [
    "Item",
    "QuantileOneHotBinarizer",
    "MiningReport",
    "RulePool",
    "mine_rules",
    "frequent_itemsets_packed",
    "pack_bool",
    "popcount_rows",
]


# --------------------------------------------------------------------------- bit packing
def pack_bool(B: np.ndarray) -> np.ndarray:
    """Pack a boolean matrix (n, k) into ``uint64`` words (k, ceil(n/64)); padding bits are 0.

    A 1-D array (n,) gives one row (ceil(n/64),). Same layout as :func:`interpretopt.rules.pack_coverage`.
    """
    B = np.asarray(B, dtype=bool)
    return pack_vector(B) if B.ndim == 1 else pack_coverage(B)


def popcount_rows(packed: np.ndarray) -> np.ndarray:
    """Number of set bits per row of a packed matrix (k, W) -> (k,) int64 (or a scalar for 1-D)."""
    return np.bitwise_count(packed).sum(axis=-1, dtype=np.int64)


# --------------------------------------------------------------------------- mining
@dataclass(frozen=True)
class MiningReport:
    """How the pool was mined (reported by every estimator that mines)."""

    min_support: float
    max_card: int
    n_rows_total: int
    n_rows_used: int
    n_shrink_rounds: int
    memory_limit_mb: float | None
    n_rules_per_class: dict = field(default_factory=dict)

    @property
    def subsampled(self) -> bool:
        return self.n_rows_used < self.n_rows_total


@dataclass
class RulePool:
    """Mined candidate rules with their bit-packed coverage on the mining data.

    Attributes
    ----------
    itemsets : list of tuples of item (column) indices.
    labels : int array (K,), the class each rule predicts.
    packed : uint64 array (K, W), coverage of each rule on all training rows.
    support : int array (K,), number of rows each rule covers.
    n_samples : number of rows.
    report : :class:`MiningReport`.
    """

    itemsets: list
    labels: np.ndarray
    packed: np.ndarray
    support: np.ndarray
    n_samples: int
    report: MiningReport

    def __len__(self) -> int:
        return len(self.itemsets)

    def coverage(self, B: np.ndarray, indices=None) -> np.ndarray:
        """Boolean coverage (n, k) of the rules ``indices`` (default all) on a binarized matrix."""
        B = np.asarray(B, dtype=bool)
        idx = range(len(self.itemsets)) if indices is None else indices
        out = np.ones((B.shape[0], len(idx)), dtype=bool)
        for c, r in enumerate(idx):
            for item in self.itemsets[r]:
                out[:, c] &= B[:, item]
        return out


def _fpgrowth(B: np.ndarray, min_support: float, max_card: int) -> list[tuple[int, ...]]:
    """mlxtend's FP-Growth (kept as the cross-check of :func:`frequent_itemsets_packed`)."""
    from mlxtend.frequent_patterns import fpgrowth

    if B.shape[0] == 0:
        return []
    df = pd.DataFrame(B.astype(bool), columns=range(B.shape[1]))
    res = fpgrowth(df, min_support=min_support, use_colnames=False, max_len=max_card)
    return [tuple(sorted(int(i) for i in s)) for s in res["itemsets"]]


def _min_count(min_support: float, n: int) -> int:
    """Smallest count whose support ``count / n`` is ``>= min_support`` (FP-Growth's test, exactly)."""
    k = max(int(math.ceil(min_support * n)) - 1, 0)
    while k <= n and k / n < min_support:
        k += 1
    return k


def frequent_itemsets_packed(items: np.ndarray, n: int, min_support: float, max_card: int, *,
                             max_support: float | None = None, chunk_words: int = 1 << 21):
    """All itemsets of at most ``max_card`` items with support ``>= min_support``, by bit-packed counting.

    A level-wise (Apriori) enumeration: an itemset ``S + (j,)`` with ``j > max(S)`` is counted
    only when ``S`` is frequent, as one vectorized AND + popcount of ``S``'s packed coverage
    against every frequent item after ``max(S)``. The result equals FP-Growth's (the same
    itemsets for the same support threshold; tested against mlxtend) and is much faster on
    large ``n``: the work is ``(#frequent (k-1)-sets) x (#items) x n / 64`` word operations.

    Parameters
    ----------
    items : uint64 (J, W), packed coverage of each item on the ``n`` mining rows.
    n : number of rows (the support denominator).
    min_support : support threshold (a fraction of ``n``).
    max_card : largest itemset size.
    max_support : optional; itemsets with support above it are not *returned* (they still
        extend to larger sets), pycorels' ``1 - min_support`` rule.

    Returns
    -------
    list of (itemset tuple, count).
    """
    items = np.ascontiguousarray(items, dtype=np.uint64)
    J, W = items.shape
    if n == 0 or J == 0:
        return []
    lo = _min_count(min_support, n)
    hi = None if max_support is None else max_support * n
    counts = popcount_rows(items)
    freq = np.flatnonzero(counts >= lo)
    out = []

    def keep(c):
        return hi is None or c <= hi

    out.extend(((int(j),), int(counts[j])) for j in freq if keep(counts[j]))
    level = [((int(j),), items[j]) for j in freq]
    for _ in range(2, max_card + 1):
        nxt = []
        for s, cov in level:
            ext = freq[freq > s[-1]]
            if ext.size == 0:
                continue
            c = np.empty(ext.size, dtype=np.int64)
            step = max(1, chunk_words // max(W, 1))
            for a in range(0, ext.size, step):
                blk = items[ext[a:a + step]] & cov
                c[a:a + step] = np.bitwise_count(blk).sum(axis=1, dtype=np.int64)
            ok = np.flatnonzero(c >= lo)
            for t in ok:
                j = int(ext[t])
                ss = s + (j,)
                if keep(c[t]):
                    out.append((ss, int(c[t])))
                if len(ss) < max_card:
                    nxt.append((ss, items[j] & cov))
        level = nxt
        if not level:
            break
    return out


def mine_rules(
    B: np.ndarray,
    y: np.ndarray,
    *,
    min_support: float = 0.05,
    max_card: int = 2,
    classes=(1, 0),
    max_rules_per_class: int | None = None,
    precision_filter: bool = False,
    scope: str = "class",
    memory_limit_mb: float | None = None,
    max_mining_samples: int | None = None,
    backend: str = "packed",
    random_state=None,
) -> RulePool:
    """Mine frequent conjunctions (per class, or on all rows) and pack their coverage.

    Parameters
    ----------
    B : binary array (n, J) from :class:`QuantileOneHotBinarizer`.
    y : labels (n,).
    min_support : float in (0, 1), default 0.05
        Minimum support ``gamma``: among the samples of the class a rule predicts
        (``scope="class"``, Algorithm 1's positive and negative rules; the authors' script
        passes pyfim ``supp=0.05``, which pyfim reads as a percentage, i.e. 0.0005), or among
        all rows (``scope="all"``).
    max_card : int, default 2
        Maximum number of items per rule.
    classes : the classes to mine rules for (each rule predicts the class it was mined on).
    max_rules_per_class : keep only the most precise rules of each class (ties by support);
        the authors' script keeps 200.
    precision_filter : keep only the rules of class ``c`` whose precision (share of class ``c``
        among the rows they cover) exceeds the base rate of ``c``, as the authors' script's
        ``screen_rules`` does, before ``max_rules_per_class``.
    scope : {"class", "all"}, default "class"
        "all" mines antecedents once on all rows with support in ``[min_support, 1 - min_support]``
        (pycorels' miner: single items above ``1 - min_support`` are not rules but still extend
        to pairs); their ``labels`` are -1 (the learner chooses labels).
    memory_limit_mb : Algorithm 2's fallback: while the estimated mining memory
        (about ``b * J * 8`` bytes) exceeds this, mine on ``b <- floor(0.9 b)`` randomly
        chosen rows; a ``MemoryError`` from the miner triggers the same shrinking. Coverage is
        always computed on all rows.
    max_mining_samples : mine on at most this many rows (the authors' script mines on 10,000).
    backend : {"packed", "fpgrowth"}, default "packed"
        :func:`frequent_itemsets_packed` (bit-packed counting) or mlxtend's FP-Growth; both give
        the same itemsets.
    random_state : seed for the row subsample.

    Raises
    ------
    InputError : ``min_support`` outside (0, 1), ``max_card < 1``, an unknown option, or no rule
        reaches the support.
    """
    _check_mining_options(min_support, max_card, scope, backend)
    B = np.asarray(B)
    y = np.asarray(y).ravel()
    _check_mining_data(B, y)
    n, J = B.shape
    rng = as_generator(random_state)
    b, rounds = _mining_rows_within_memory(n, J, max_mining_samples, memory_limit_mb)
    Bb = B.astype(bool)
    items_all = pack_bool(Bb)  # (J, W) on all rows
    groups = [(-1, None)] if scope == "all" else [(c, y == c) for c in classes]
    mined, b, rounds = _mine_shrinking(Bb, items_all, groups, b, rounds, rng, min_support, max_card,
                                       scope, backend, memory_limit_mb)
    itemsets, labels_arr = _distinct_rules(mined, min_support, max_card, scope)
    if scope == "class" and (precision_filter or max_rules_per_class is not None):
        itemsets, labels_arr = _screen_rules(items_all, itemsets, labels_arr, y, classes,
                                             precision_filter, max_rules_per_class)
    return _make_pool(items_all, itemsets, labels_arr, groups, min_support=min_support, max_card=max_card,
                      n=n, b=b, rounds=rounds, memory_limit_mb=memory_limit_mb)


def _check_mining_options(min_support, max_card, scope, backend) -> None:
    """Validate :func:`mine_rules`' support, rule length, scope and backend (in that order)."""
    check_in_range("min_support", min_support, 0.0, 1.0, low_open=True, high_open=True)
    check_int("max_card", max_card, 1, None)
    if scope not in ("class", "all"):
        raise InputError(f"scope must be 'class' or 'all', got {scope!r}")
    if backend not in ("packed", "fpgrowth"):
        raise InputError(f"backend must be 'packed' or 'fpgrowth', got {backend!r}")


def _check_mining_data(B: np.ndarray, y: np.ndarray) -> None:
    """Check that ``B`` is 2-D with one row per label and has at least one column."""
    if B.ndim != 2 or B.shape[0] != len(y):
        raise InputError(f"B must be 2-D with one row per label; got B {B.shape} and y ({len(y)},)")
    if B.shape[1] == 0:
        raise InputError("the binarized data has no columns; nothing to mine")


def _mining_rows_within_memory(n: int, J: int, max_mining_samples, memory_limit_mb) -> tuple[int, int]:
    """Number of mining rows ``b`` and shrink rounds before mining (Algorithm 2's estimate).

    ``b`` starts at ``min(n, max_mining_samples)``; with ``memory_limit_mb`` set, it shrinks
    to ``floor(0.9 b)`` while the estimated ``b * J * 8`` bytes exceed the limit.
    """
    b = n if max_mining_samples is None else min(n, int(max_mining_samples))
    rounds = 0
    if memory_limit_mb is not None:
        check_in_range("memory_limit_mb", memory_limit_mb, 0.0, None, low_open=True)
        while b > 1 and b * J * 8 > memory_limit_mb * 2**20:
            b = int(math.floor(0.9 * b))
            rounds += 1
    return b, rounds


def _mine_shrinking(Bb, items_all, groups, b, rounds, rng, min_support, max_card, scope, backend,
                    memory_limit_mb):
    """Mine every group on ``b`` rows, shrinking ``b <- floor(0.9 b)`` on ``MemoryError`` (Algorithm 2).

    Each attempt draws its rows anew (all rows when ``b >= n``, else ``b`` sorted rows without
    replacement from ``rng``). Without ``memory_limit_mb``, or at ``b <= 1``, the error is raised.
    Returns ``(mined, b, rounds)``, ``mined`` a list of (itemset, class) in group order.
    """
    n = Bb.shape[0]
    while True:
        rows = np.arange(n) if b >= n else np.sort(rng.choice(n, size=b, replace=False))
        try:
            return _mine_groups(Bb, items_all, groups, rows, min_support, max_card, scope, backend), b, rounds
        except MemoryError:
            if memory_limit_mb is None or b <= 1:
                raise
            b = int(math.floor(0.9 * b))
            rounds += 1


def _mine_groups(Bb, items_all, groups, rows, min_support, max_card, scope, backend):
    """Frequent itemsets of each group (class, mask) among ``rows``, as a list of (itemset, class).

    The packed backend reuses the packed items of all rows when the group is every row, and with
    ``scope="all"`` drops itemsets above support ``1 - min_support`` (pycorels' miner).
    """
    n = Bb.shape[0]
    mined: list[tuple[tuple[int, ...], int]] = []
    for c, mask in groups:
        sel = rows if mask is None else rows[mask[rows]]
        if backend == "fpgrowth":
            if scope == "all":
                raise InputError("scope='all' needs backend='packed'")
            mined.extend((s, c) for s in _fpgrowth(Bb[sel], min_support, max_card))
            continue
        if len(sel) == n:
            P = items_all
        else:
            P = pack_bool(Bb[sel])
        found = frequent_itemsets_packed(P, len(sel), min_support, max_card,
                                         max_support=(1.0 - min_support) if scope == "all" else None)
        mined.extend((s, c) for s, _ in found)
    return mined


def _distinct_rules(mined, min_support, max_card, scope):
    """Non-empty (itemset, class) pairs in first-seen order, as (itemsets, labels array); error if none."""
    seen = set()
    itemsets, labels = [], []
    for s, c in mined:
        if len(s) == 0 or (s, c) in seen:
            continue
        seen.add((s, c))
        itemsets.append(s)
        labels.append(c)
    if not itemsets:
        raise InputError(
            f"no rule of at most {max_card} item(s) reaches min_support={min_support} "
            f"{'on all rows' if scope == 'all' else 'in any class'}; lower min_support or raise max_card"
        )
    return itemsets, np.asarray(labels)


def _screen_rules(items_all, itemsets, labels_arr, y, classes, precision_filter, max_rules_per_class):
    """Per class, the rules above the base rate (``precision_filter``) and the ``max_rules_per_class``
    most precise (ties by support), as the authors' ``screen_rules``; kept in pool order.
    """
    if max_rules_per_class is not None:
        check_int("max_rules_per_class", max_rules_per_class, 1, None)
    keep = []
    for c in classes:
        idx = np.flatnonzero(labels_arr == c)
        if len(idx) == 0:
            continue
        # support and hits in chunks: the coverage of the whole pool is never held at once
        supp, hits = _support_and_hits(items_all, [itemsets[k] for k in idx], pack_bool(y == c))
        prec = hits / np.maximum(supp, 1)
        if precision_filter:
            ok = prec > float(np.mean(y == c))
            idx, supp, prec = idx[ok], supp[ok], prec[ok]
        order = np.lexsort((-supp, -prec))
        if max_rules_per_class is not None:
            order = order[:max_rules_per_class]
        keep.extend(idx[order].tolist())
    keep = sorted(keep)
    if not keep:
        raise InputError("no mined rule is more precise than its class's base rate; lower min_support")
    return [itemsets[k] for k in keep], labels_arr[keep]


def _make_pool(items_all, itemsets, labels_arr, groups, *, min_support, max_card, n, b, rounds,
               memory_limit_mb) -> RulePool:
    """The :class:`RulePool` of the kept rules: packed coverage on all ``n`` rows, support, and the
    :class:`MiningReport` (``b`` rows mined after ``rounds`` shrink rounds).
    """
    packed = _packed_coverage(items_all, itemsets)
    support = popcount_rows(packed)
    per_class = {int(c) if isinstance(c, (int, np.integer)) else c: int(np.sum(labels_arr == c))
                 for c, _ in groups}
    report = MiningReport(
        min_support=float(min_support),
        max_card=int(max_card),
        n_rows_total=int(n),
        n_rows_used=int(min(b, n)),
        n_shrink_rounds=rounds,
        memory_limit_mb=memory_limit_mb,
        n_rules_per_class=per_class,
    )
    return RulePool(
        itemsets=itemsets,
        labels=labels_arr,
        packed=packed,
        support=support.astype(np.int64),
        n_samples=n,
        report=report,
    )


def _support_and_hits(items: np.ndarray, itemsets, mask: np.ndarray, chunk_words: int = 1 << 22):
    """Rows covered by each conjunction and, of those, rows in ``mask`` (packed), chunk by chunk."""
    K, W = len(itemsets), items.shape[1]
    supp = np.empty(K, dtype=np.int64)
    hits = np.empty(K, dtype=np.int64)
    step = max(1, chunk_words // max(W, 1))
    for a in range(0, K, step):
        cov = _packed_coverage(items, itemsets[a:a + step])
        supp[a:a + step] = popcount_rows(cov)
        hits[a:a + step] = popcount_rows(cov & mask)
    return supp, hits


def _packed_coverage(items: np.ndarray, itemsets) -> np.ndarray:
    """Packed coverage (K, W) of conjunctions of items, by AND of the packed items."""
    K, W = len(itemsets), items.shape[1]
    out = np.empty((K, W), dtype=np.uint64)
    by_len: dict[int, list[int]] = {}
    for r, s in enumerate(itemsets):
        by_len.setdefault(len(s), []).append(r)
    for L, rs in by_len.items():
        idx = np.array([itemsets[r] for r in rs], dtype=np.int64).reshape(len(rs), L)
        acc = items[idx[:, 0]].copy()
        for k in range(1, L):
            acc &= items[idx[:, k]]
        out[rs] = acc
    return out
