"""Quantile one-hot binarization (Section 6.1 of the companion-rule-list paper, Pan, Wang and Hara).

Every numerical feature is quantized into (at most) ``n_quantiles`` quantile bins, then every
categorical feature, including the quantized ones, is one-hot encoded. Each binary column is an
:class:`Item`: ``lo < x_j <= hi`` for a bin or ``x_j == v`` for a category (and, with
``negations``, its complement). The cut points are the family's quantile thresholds
(:func:`interpretopt.data._binarize.quantile_thresholds`); the candidate rules of CRL are mined
over these items (:mod:`interpretopt.heuristics.mining`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from interpretopt._validation import check_int
from interpretopt.data._binarize import quantile_thresholds
from interpretopt.exceptions import InputError

__all__ = ["Item", "QuantileOneHotBinarizer"]


@dataclass(frozen=True)
class Item:
    """One binary column: ``lo < x_feature <= hi`` (kind ``"bin"``) or ``x_feature == value`` (``"eq"``);
    ``negated=True`` is its complement (the authors' ``_rev`` columns, pycorels' ``-not`` items)."""

    feature: int
    kind: str
    lo: float = -math.inf
    hi: float = math.inf
    value: Any = None
    negated: bool = False

    def evaluate(self, col: np.ndarray) -> np.ndarray:
        if self.negated:
            return ~Item(self.feature, self.kind, self.lo, self.hi, self.value).evaluate(col)
        if self.kind == "eq":
            return np.asarray(col == self.value, dtype=bool)
        c = np.asarray(col, dtype=float)
        with np.errstate(invalid="ignore"):
            out = np.ones(len(c), dtype=bool) if self.lo == -math.inf else c > self.lo
            if self.hi != math.inf:
                out &= c <= self.hi
        return out & ~np.isnan(c)

    @property
    def expressible(self) -> bool:
        """Whether the item is a conjunction of conditions (a negated middle bin is a disjunction)."""
        return not (self.negated and self.kind == "bin" and self.lo != -math.inf and self.hi != math.inf)

    def conditions(self) -> tuple:
        """The item as conditions of :mod:`interpretopt.rules` (one or two).

        Raises :class:`InputError` for a negated middle bin (``x <= lo or x > hi``), which is not
        a conjunction; check :attr:`expressible` first.
        """
        from interpretopt.rules import Condition

        if self.kind == "eq":
            v = self.value
            if isinstance(v, (np.integer, np.floating)):
                v = v.item()
            return (Condition(self.feature, "!=" if self.negated else "==", v),)
        if self.negated:
            if not self.expressible:
                raise InputError(f"the negated bin {self.render()} is a disjunction, not a conjunction of conditions")
            if self.lo == -math.inf and self.hi == math.inf:
                raise InputError(f"the negated item {self.render()} never holds")
            if self.lo == -math.inf:
                return (Condition(self.feature, ">", float(self.hi)),)
            return (Condition(self.feature, "<=", float(self.lo)),)
        out = []
        if self.lo != -math.inf:
            out.append(Condition(self.feature, ">", float(self.lo)))
        if self.hi != math.inf:
            out.append(Condition(self.feature, "<=", float(self.hi)))
        return tuple(out)

    def render(self, feature_names: list[str] | None = None) -> str:
        name = feature_names[self.feature] if feature_names is not None else f"x{self.feature}"
        if self.negated:
            if self.kind == "eq":
                return f"{name} != {self.value}"
            if self.lo == -math.inf and self.hi != math.inf:
                return f"{name} > {self.hi:.4g}"
            if self.hi == math.inf and self.lo != -math.inf:
                return f"{name} <= {self.lo:.4g}"
            return f"not ({Item(self.feature, self.kind, self.lo, self.hi, self.value).render(feature_names)})"
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
    negations : bool, default False
        Append the complement of every item (after all the plain items, in the same order), as
        the authors' script does (a ``_rev`` column ``1 - b`` per binary column) and as pycorels
        and R ``sbrl`` do when they mine (``feature-not`` / ``feature=0`` items).

    Attributes
    ----------
    items_ : list of :class:`Item`, one per output column.
    feature_names_in_ : list of str.
    """

    def __init__(self, *, n_quantiles: int = 7, feature_types: dict | None = None, negations: bool = False):
        self.n_quantiles = n_quantiles
        self.feature_types = feature_types
        self.negations = negations

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
                cuts = quantile_thresholds(c, np.arange(1, self.n_quantiles) / self.n_quantiles)
                edges = np.concatenate([[-math.inf], cuts, [math.inf]])
                for lo, hi in zip(edges[:-1], edges[1:]):
                    items.append(Item(j, "bin", lo=float(lo), hi=float(hi)))
        if self.negations:
            items = items + [Item(it.feature, it.kind, it.lo, it.hi, it.value, negated=True) for it in items]
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
        plain = {}
        for k, it in enumerate(self.items_):
            if it.negated:
                base = Item(it.feature, it.kind, it.lo, it.hi, it.value)
                if base in plain:
                    out[:, k] = 1 - out[:, plain[base]]
                    continue
            if it.feature not in cols:
                cols[it.feature] = _column(X, it.feature)
            out[:, k] = it.evaluate(cols[it.feature])
            plain[it] = k
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
