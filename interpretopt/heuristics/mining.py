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
from typing import Any

import numpy as np
import pandas as pd

from interpretopt._validation import as_generator, check_in_range, check_int
from interpretopt.exceptions import InputError
from interpretopt.rules import pack_coverage, pack_vector

__all__ = [
    "Item",
    "QuantileOneHotBinarizer",
    "MiningReport",
    "RulePool",
    "mine_rules",
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


# --------------------------------------------------------------------------- items / binarizer
@dataclass(frozen=True)
class Item:
    """One binary column: ``lo < x_feature <= hi`` (kind ``"bin"``) or ``x_feature == value`` (``"eq"``)."""

    feature: int
    kind: str
    lo: float = -math.inf
    hi: float = math.inf
    value: Any = None

    def evaluate(self, col: np.ndarray) -> np.ndarray:
        if self.kind == "eq":
            return np.asarray(col == self.value, dtype=bool)
        c = np.asarray(col, dtype=float)
        with np.errstate(invalid="ignore"):
            out = np.ones(len(c), dtype=bool) if self.lo == -math.inf else c > self.lo
            if self.hi != math.inf:
                out &= c <= self.hi
        return out & ~np.isnan(c)

    def conditions(self) -> tuple:
        """The item as conditions of :mod:`interpretopt.rules` (one or two)."""
        from interpretopt.rules import Condition

        if self.kind == "eq":
            v = self.value
            if isinstance(v, (np.integer, np.floating)):
                v = v.item()
            return (Condition(self.feature, "==", v),)
        out = []
        if self.lo != -math.inf:
            out.append(Condition(self.feature, ">", float(self.lo)))
        if self.hi != math.inf:
            out.append(Condition(self.feature, "<=", float(self.hi)))
        return tuple(out)

    def render(self, feature_names: list[str] | None = None) -> str:
        name = feature_names[self.feature] if feature_names is not None else f"x{self.feature}"
        if self.kind == "eq":
            return f"{name} = {self.value}"
        if self.lo == -math.inf and self.hi == math.inf:
            return f"{name} is any"
        if self.lo == -math.inf:
            return f"{name} <= {self.hi:.4g}"
        if self.hi == math.inf:
            return f"{name} > {self.lo:.4g}"
        return f"{self.lo:.4g} < {name} <= {self.hi:.4g}"


def _column(X: Any, j: int) -> np.ndarray:
    if isinstance(X, pd.DataFrame):
        col = X.iloc[:, j]
        if isinstance(col.dtype, pd.CategoricalDtype) or col.dtype == object or pd.api.types.is_bool_dtype(col.dtype):
            return col.to_numpy(dtype=object)
        return col.to_numpy(dtype=float)
    arr = np.asarray(X)
    return arr[:, j]


class QuantileOneHotBinarizer:
    """Section 6.1 preprocessing: quantize numerical features into quantile bins, one-hot everything.

    Parameters
    ----------
    n_quantiles : int, default 7
        Number of quantile bins per numerical feature (cut points at ``k / n_quantiles``,
        duplicates merged, so a feature may get fewer bins).
    feature_types : dict, optional
        ``{column name or index: "numeric" | "categorical" | "binary"}``. Unlisted columns:
        pandas ``category``/object/bool columns and numerical columns with at most
        ``n_quantiles`` distinct values are categorical, the rest numeric.

    Attributes
    ----------
    items_ : list of :class:`Item`, one per output column.
    feature_names_in_ : list of str.
    """

    def __init__(self, *, n_quantiles: int = 7, feature_types: dict | None = None):
        self.n_quantiles = n_quantiles
        self.feature_types = feature_types

    def _type_of(self, X, j: int, name: str, col: np.ndarray) -> str:
        ft = self.feature_types or {}
        if name in ft:
            return "numeric" if ft[name] == "numeric" else "categorical"
        if j in ft:
            return "numeric" if ft[j] == "numeric" else "categorical"
        if col.dtype == object:
            return "categorical"
        vals = np.unique(col[~np.isnan(col)])
        return "categorical" if len(vals) <= self.n_quantiles else "numeric"

    def fit(self, X: Any, y: Any = None) -> "QuantileOneHotBinarizer":
        from interpretopt._validation import feature_names_of

        check_int("n_quantiles", self.n_quantiles, 2, None)
        if np.ndim(X) != 2:
            raise InputError(f"X must be 2-D (n_samples, n_features), got {np.ndim(X)} dimension(s)")
        n_features = np.shape(X)[1]
        self.feature_names_in_ = feature_names_of(X, n_features)
        items: list[Item] = []
        for j in range(n_features):
            col = _column(X, j)
            kind = self._type_of(X, j, self.feature_names_in_[j], col)
            if kind == "categorical":
                if col.dtype == object:
                    vals = pd.unique(pd.Series(col).dropna())
                    vals = sorted(vals, key=lambda v: (str(type(v)), v)) if _sortable(vals) else list(vals)
                else:
                    vals = np.unique(col[~np.isnan(col.astype(float))])
                for v in vals:
                    items.append(Item(j, "eq", value=v))
            else:
                c = col.astype(float)
                c = c[~np.isnan(c)]
                qs = np.quantile(c, np.arange(1, self.n_quantiles) / self.n_quantiles)
                cuts = np.unique(qs)
                cuts = cuts[cuts < c.max()] if len(c) else cuts
                edges = np.concatenate([[-math.inf], cuts, [math.inf]])
                for lo, hi in zip(edges[:-1], edges[1:]):
                    items.append(Item(j, "bin", lo=float(lo), hi=float(hi)))
        self.items_ = items
        self.n_features_in_ = n_features
        return self

    def transform(self, X: Any) -> np.ndarray:
        """Binary matrix (n, len(items_)) of ``uint8``."""
        if not hasattr(self, "items_"):
            raise InputError("QuantileOneHotBinarizer is not fitted; call fit first")
        if np.ndim(X) != 2 or np.shape(X)[1] != self.n_features_in_:
            raise InputError(f"X must have {self.n_features_in_} columns, got shape {np.shape(X)}")
        n = np.shape(X)[0]
        out = np.zeros((n, len(self.items_)), dtype=np.uint8)
        cols: dict[int, np.ndarray] = {}
        for k, it in enumerate(self.items_):
            if it.feature not in cols:
                cols[it.feature] = _column(X, it.feature)
            out[:, k] = it.evaluate(cols[it.feature])
        return out

    def fit_transform(self, X: Any, y: Any = None) -> np.ndarray:
        return self.fit(X, y).transform(X)

    def get_feature_names_out(self) -> np.ndarray:
        return np.array([it.render(self.feature_names_in_) for it in self.items_], dtype=object)


def _sortable(vals) -> bool:
    try:
        sorted(vals)
        return True
    except TypeError:
        return False


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
    from mlxtend.frequent_patterns import fpgrowth

    if B.shape[0] == 0:
        return []
    df = pd.DataFrame(B.astype(bool), columns=range(B.shape[1]))
    res = fpgrowth(df, min_support=min_support, use_colnames=False, max_len=max_card)
    return [tuple(sorted(int(i) for i in s)) for s in res["itemsets"]]


def mine_rules(
    B: np.ndarray,
    y: np.ndarray,
    *,
    min_support: float = 0.05,
    max_card: int = 2,
    classes=(1, 0),
    max_rules_per_class: int | None = None,
    memory_limit_mb: float | None = None,
    max_mining_samples: int | None = None,
    random_state=None,
) -> RulePool:
    """Mine frequent conjunctions per class with FP-Growth and pack their coverage.

    Parameters
    ----------
    B : binary array (n, J) from :class:`QuantileOneHotBinarizer`.
    y : labels (n,).
    min_support : float in (0, 1), default 0.05
        Minimum support ``gamma`` among the samples of the class a rule predicts.
    max_card : int, default 2
        Maximum number of items per rule.
    classes : the classes to mine rules for (each rule predicts the class it was mined on).
    max_rules_per_class : keep only the most precise rules of each class (ties by support).
    memory_limit_mb : Algorithm 2's fallback: while the estimated mining memory
        (the boolean frame and FP-tree, about ``b * J * 8`` bytes per class) exceeds this,
        mine on ``b <- floor(0.9 b)`` randomly chosen rows; a ``MemoryError`` from the miner
        triggers the same shrinking. Coverage is always computed on all rows.
    max_mining_samples : mine on at most this many rows (the authors' script mines on 10,000).
    random_state : seed for the row subsample.

    Raises
    ------
    InputError : ``min_support`` outside (0, 1), ``max_card < 1``, or no rule reaches the support.
    """
    check_in_range("min_support", min_support, 0.0, 1.0, low_open=True, high_open=True)
    check_int("max_card", max_card, 1, None)
    B = np.asarray(B)
    y = np.asarray(y).ravel()
    if B.ndim != 2 or B.shape[0] != len(y):
        raise InputError(f"B must be 2-D with one row per label; got B {B.shape} and y ({len(y)},)")
    if B.shape[1] == 0:
        raise InputError("the binarized data has no columns; nothing to mine")
    n, J = B.shape
    rng = as_generator(random_state)
    b = n if max_mining_samples is None else min(n, int(max_mining_samples))
    rounds = 0
    if memory_limit_mb is not None:
        check_in_range("memory_limit_mb", memory_limit_mb, 0.0, None, low_open=True)
        while b > 1 and b * J * 8 > memory_limit_mb * 2**20:
            b = int(math.floor(0.9 * b))
            rounds += 1
    Bb = B.astype(bool)
    while True:
        rows = np.arange(n) if b >= n else np.sort(rng.choice(n, size=b, replace=False))
        try:
            mined: list[tuple[tuple[int, ...], int]] = []
            for c in classes:
                sub = Bb[rows][y[rows] == c]
                mined.extend((s, c) for s in _fpgrowth(sub, min_support, max_card))
            break
        except MemoryError:
            if memory_limit_mb is None or b <= 1:
                raise
            b = int(math.floor(0.9 * b))
            rounds += 1
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
            f"no rule of at most {max_card} item(s) reaches min_support={min_support} in any class; "
            "lower min_support or raise max_card"
        )
    cov = np.ones((n, len(itemsets)), dtype=bool)
    for r, s in enumerate(itemsets):
        for item in s:
            cov[:, r] &= Bb[:, item]
    labels_arr = np.asarray(labels)
    if max_rules_per_class is not None:
        check_int("max_rules_per_class", max_rules_per_class, 1, None)
        keep = []
        for c in classes:
            idx = np.flatnonzero(labels_arr == c)
            if len(idx) == 0:
                continue
            supp = cov[:, idx].sum(axis=0)
            hits = (cov[:, idx] & (y == c)[:, None]).sum(axis=0)
            prec = hits / np.maximum(supp, 1)
            order = np.lexsort((-supp, -prec))[:max_rules_per_class]
            keep.extend(idx[order].tolist())
        keep = sorted(keep)
        itemsets = [itemsets[k] for k in keep]
        labels_arr = labels_arr[keep]
        cov = cov[:, keep]
    per_class = {int(c) if isinstance(c, (int, np.integer)) else c: int(np.sum(labels_arr == c)) for c in classes}
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
        packed=pack_bool(cov),
        support=cov.sum(axis=0).astype(np.int64),
        n_samples=n,
        report=report,
    )
