"""Binarizers: raw features -> 0/1 columns, each column one :class:`~interpretopt.rules.Condition`.

Numeric features give threshold columns in both directions (``x <= t`` and ``x > t``); binary
features one column ``x == b`` (and its negation ``x != b``); categorical features one-hot
columns ``x == v`` (and negations ``x != v``). The thresholds come from quantiles
(:class:`QuantileBinarizer`, deciles by default) or from a decision tree fitted per feature on
the labels (:class:`TreeBinarizer`). This is the binarization used by BRCG (Dash et al. 2018),
where every column and its negation are available to the rule learner.

The binarizer family
--------------------
All of the project's binarizers live in this layer and share one threshold rule,
:func:`splitting_thresholds` (the distinct cut points ``t`` with ``min <= t < max``, the only
ones for which neither ``x <= t`` nor ``x > t`` is constant), with quantile cut points from
:func:`quantile_thresholds`:

* :class:`QuantileBinarizer` / :class:`TreeBinarizer` (this module): threshold columns in both
  directions and one-hot categoricals, each column a :class:`~interpretopt.rules.Condition`
  (BRCG, IMD's BRCG Diff).
* :class:`~interpretopt.data._onehot.QuantileOneHotBinarizer` and its
  :class:`~interpretopt.data._onehot.Item` columns: quantile *bins* one-hot encoded (CRL,
  Section 6.1 of Pan, Wang and Hara).
* :func:`~interpretopt.data._conditions.threshold_conditions` /
  :func:`~interpretopt.data._conditions.checklist_conditions`: condition tables over a numeric
  matrix, ``==`` per value of a discrete feature and ``<=`` / ``>`` at quantiles of a numeric one
  (ABBR, Yao et al. Sections 4.3-4.4).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from interpretopt._validation import check_2d
from interpretopt.exceptions import InputError
from interpretopt.rules import Condition

__all__ = ["QuantileBinarizer", "TreeBinarizer", "quantile_thresholds", "splitting_thresholds"]


def _as_frame(X: Any) -> tuple[pd.DataFrame, bool]:
    """X as a DataFrame (columns by position) and whether the input was a DataFrame."""
    if isinstance(X, pd.DataFrame):
        return X, True
    if isinstance(X, pd.Series):
        raise InputError("X must be 2-D (n_samples, n_features), got a pandas Series; use X.to_frame()")
    if sp.issparse(X):
        raise InputError("sparse input is not supported by the binarizers; convert with X.toarray()")
    try:
        arr = np.asarray(X)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise InputError(f"X could not be converted to an array: {exc}") from None
    check_2d(arr, "X")
    if arr.dtype.kind == "c":
        raise InputError("Complex data not supported: X has complex values; binarizers need real numbers or categories")
    return pd.DataFrame(arr), False


def splitting_thresholds(thresholds: Any, values: Any) -> np.ndarray:
    """The distinct ``thresholds`` (float, sorted) that split ``values``: ``min <= t < max``.

    A threshold at or above the maximum, or below the minimum, gives a constant column
    (``x <= t`` always or never true); duplicates give equal columns. ``values`` holds no NaN.
    """
    thr = np.unique(np.asarray(thresholds, dtype=float))
    values = np.asarray(values)
    if values.size == 0:
        return thr[:0]
    return thr[(thr >= values.min()) & (thr < values.max())]


def quantile_thresholds(values: Any, levels: Any) -> np.ndarray:
    """The quantiles of ``values`` at ``levels`` (numpy's default, linear interpolation) that
    split them (:func:`splitting_thresholds`); none for an empty ``values``."""
    values = np.asarray(values)
    if values.size == 0:
        return np.empty(0)
    return splitting_thresholds(np.quantile(values, levels), values)


def _numeric_values(col: pd.Series, j: int) -> np.ndarray:
    if col.dtype.kind == "c":
        raise InputError(f"Complex data not supported: feature {j} ({col.name!r}) has complex values")
    try:
        return col.to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise InputError(f"feature {j} ({col.name!r}) holds non-numeric values but was fitted as numeric") from None


class _BaseBinarizer(TransformerMixin, BaseEstimator):
    """Shared fit/transform; subclasses provide ``_thresholds(values, y)`` for numeric features."""

    def _thresholds(self, values: np.ndarray, y: np.ndarray | None) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _feature_kind(self, col: pd.Series, j: int, forced: set) -> str:
        if j in forced or str(col.name) in forced:
            return "categorical"
        dtype = col.dtype
        if pd.api.types.is_bool_dtype(dtype):
            return "binary"
        if isinstance(dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(dtype):
            present = pd.unique(col.dropna())
            return "binary" if len(present) == 2 else "categorical"
        values = pd.unique(col.dropna())
        return "binary" if len(values) == 2 else "numeric"

    def _fit(self, X: Any, y: Any = None) -> _BaseBinarizer:
        negations = self.negations
        if not isinstance(negations, (bool, np.bool_)):
            raise InputError(f"negations must be True or False, got {negations!r}")
        mc = self.max_categories
        if mc is not None and (isinstance(mc, bool) or not isinstance(mc, numbers.Integral) or mc < 1):
            raise InputError(f"max_categories must be None or an integer >= 1, got {mc!r}")
        frame, is_frame = _as_frame(X)
        n, d = frame.shape
        if d == 0:
            raise InputError(f"0 feature(s) (shape=({n}, 0)) while a minimum of 1 is required.")
        if n == 0:
            raise InputError(f"0 sample(s) (shape=(0, {d})) while a minimum of 1 is required.")
        if y is not None:
            y = np.asarray(y)
            if y.ndim != 1 or y.shape[0] != n:
                raise InputError(f"y must be 1-D with {n} labels (one per row of X), got shape {y.shape}")
        forced = set(self.categorical_features or ())
        if forced:
            known = set(range(d)) | {str(c) for c in frame.columns}
            bad = [f for f in forced if f not in known]
            if bad:
                raise InputError(f"categorical_features {bad} not found; X has {d} columns")
        conditions: list[Condition] = []
        kinds: list[str] = []
        thresholds: dict[int, np.ndarray] = {}
        categories: dict[int, list] = {}
        layout: list[tuple[int, int, list, bool]] = []
        num_layout: list[tuple[int, int, np.ndarray]] = []
        for j in range(d):
            col = frame.iloc[:, j]
            kind = self._feature_kind(col, j, forced)
            kinds.append(kind)
            if kind == "numeric":
                values = _numeric_values(col, j)
                if np.isinf(values).any():
                    raise InputError(f"feature {j} ({col.name!r}) has infinite values; replace them first")
                ok = ~np.isnan(values)
                v = values[ok]
                if v.size == 0:
                    thr = np.empty(0)
                else:
                    thr = splitting_thresholds(self._thresholds(v, None if y is None else y[ok]), v)
                thresholds[j] = thr
                num_layout.append((j, len(conditions), thr))
                conditions += [Condition(j, "<=", float(t)) for t in thr]
                conditions += [Condition(j, ">", float(t)) for t in thr]
            else:
                if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype) \
                        and np.isinf(_numeric_values(col, j)).any():
                    raise InputError(f"feature {j} ({col.name!r}) has infinite values; replace them first")
                present = pd.unique(col.dropna())
                try:
                    cats = sorted(present.tolist() if hasattr(present, "tolist") else list(present))
                except TypeError:
                    cats = sorted(present, key=str)
                cats = [c.item() if isinstance(c, np.generic) else c for c in cats]
                max_cat = self.max_categories
                if max_cat is not None and kind == "categorical" and len(cats) > max_cat:
                    counts = col.value_counts(dropna=True)
                    order = sorted(range(len(counts)), key=lambda i: -int(counts.iloc[i]))[:max_cat]
                    top = {counts.index[i] for i in order}
                    cats = [c for c in cats if c in top]
                categories[j] = cats
                if kind == "binary":
                    cats_used = cats[-1:]
                else:
                    cats_used = cats
                layout.append((j, len(conditions), cats_used, bool(negations)))
                conditions += [Condition(j, "==", c) for c in cats_used]
                if negations:
                    conditions += [Condition(j, "!=", c) for c in cats_used]
        self.conditions_ = conditions
        self.feature_kinds_ = kinds
        self.thresholds_ = thresholds
        self.categories_ = categories
        self._layout = layout
        self._num_layout = num_layout
        self.n_features_in_ = d
        if is_frame and all(isinstance(c, str) for c in frame.columns):
            self.feature_names_in_ = np.asarray([str(c) for c in frame.columns], dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def transform(self, X: Any) -> np.ndarray:
        """0/1 matrix (n, J): column ``k`` is ``conditions_[k].evaluate(X)``."""
        check_is_fitted(self, "conditions_")
        frame, _ = _as_frame(X)
        if frame.shape[1] != self.n_features_in_:
            raise InputError(f"X has {frame.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input")
        n = frame.shape[0]
        out = np.zeros((n, len(self.conditions_)), dtype=np.uint8)
        for j, start, thr in self._num_layout:
            m = thr.size
            if m:
                v = _numeric_values(frame.iloc[:, j], j)[:, None]
                out[:, start:start + m] = v <= thr[None, :]
                out[:, start + m:start + 2 * m] = v > thr[None, :]
        for j, start, cats, neg in self._layout:
            m = len(cats)
            eq = self._category_codes(frame.iloc[:, j], cats)[:, None] == np.arange(m)[None, :]
            out[:, start:start + m] = eq
            if neg:
                out[:, start + m:start + 2 * m] = ~eq
        return out

    @staticmethod
    def _category_codes(col: pd.Series, cats: list) -> np.ndarray:
        """Index of each value in ``cats`` (-1 for other values and missing ones)."""
        try:
            return np.asarray(pd.Index(cats, dtype=object).get_indexer(col.to_numpy(dtype=object)))
        except (TypeError, ValueError):  # pragma: no cover - unhashable or odd values: compare one by one
            values = col.to_numpy(dtype=object)
            codes = np.full(values.shape[0], -1)
            for i, c in enumerate(cats):
                codes[Condition(0, "==", c).evaluate(values[:, None])] = i
            return codes

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The rendered condition of each output column, e.g. ``'age <= 30.5'``."""
        check_is_fitted(self, "conditions_")
        if input_features is None:
            names = list(getattr(self, "feature_names_in_", [f"x{j}" for j in range(self.n_features_in_)]))
        else:
            names = [str(c) for c in input_features]
            if len(names) != self.n_features_in_:
                raise InputError(f"input_features has {len(names)} names, expected {self.n_features_in_}")
        return np.asarray([c.render(names) for c in self.conditions_], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.transformer_tags.preserves_dtype = []  # the output is always uint8
        return tags


class QuantileBinarizer(_BaseBinarizer):
    """Quantile thresholds in both directions, one-hot categoricals with negations.

    Parameters
    ----------
    n_thresholds : int, default 9
        Number of quantile thresholds per numeric feature, at levels ``k / (n_thresholds + 1)``,
        ``k = 1..n_thresholds`` (deciles by default). Duplicate thresholds and thresholds that
        would give a constant column are dropped.
    negations : bool, default True
        Add ``!=`` columns for binary and categorical features (numeric features always get
        both ``<=`` and ``>``).
    categorical_features : sequence of int or str, optional
        Columns to treat as categorical even though they are numeric (e.g. integer codes).
    max_categories : int, optional
        Keep one-hot columns only for the ``max_categories`` most frequent values of each
        categorical feature (all values by default).

    Attributes
    ----------
    conditions_ : list of Condition
        One condition per output column, over the input feature indices.
    feature_kinds_ : list of str
        ``"numeric"``, ``"binary"`` or ``"categorical"`` per input feature.
    thresholds_ : dict int -> ndarray
        Thresholds of each numeric feature.
    categories_ : dict int -> list
        Values of each binary / categorical feature that received columns.

    Examples
    --------
    >>> import numpy as np
    >>> b = QuantileBinarizer(n_thresholds=1).fit(np.array([[1.0], [2.0], [3.0]]))
    >>> b.get_feature_names_out().tolist()
    ['x0 <= 2', 'x0 > 2']
    """

    def __init__(self, *, n_thresholds: int = 9, negations: bool = True,
                 categorical_features: Any = None, max_categories: int | None = None) -> None:
        self.n_thresholds = n_thresholds
        self.negations = negations
        self.categorical_features = categorical_features
        self.max_categories = max_categories

    def fit(self, X: Any, y: Any = None) -> QuantileBinarizer:
        """Learn thresholds and categories from ``X`` (``y`` is ignored)."""
        n = self.n_thresholds
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise InputError(f"n_thresholds must be an integer >= 1, got {n!r}")
        return self._fit(X, None)

    def _thresholds(self, values: np.ndarray, y: np.ndarray | None) -> np.ndarray:
        levels = np.arange(1, self.n_thresholds + 1) / (self.n_thresholds + 1)
        return np.quantile(values, levels)


class TreeBinarizer(_BaseBinarizer):
    """Supervised thresholds: the split points of a decision tree fitted on each numeric feature alone.

    Parameters
    ----------
    max_depth : int, default 3
        Depth of each per-feature tree (at most ``2**max_depth - 1`` thresholds per feature).
    min_samples_leaf : int or float, default 0.01
        Passed to the scikit-learn tree (a fraction is of the training rows).
    negations : bool, default True
        Add ``!=`` columns for binary and categorical features.
    categorical_features : sequence of int or str, optional
        Columns to treat as categorical even though they are numeric.
    max_categories : int, optional
        One-hot columns only for the most frequent values of each categorical feature.
    random_state : int or None, default None
        Seed of the trees (ties between equally good splits).

    Labels with a float dtype and non-integer values are treated as a regression target
    (a regression tree); otherwise a classification tree is used.
    """

    def __init__(self, *, max_depth: int = 3, min_samples_leaf: int | float = 0.01, negations: bool = True,
                 categorical_features: Any = None, max_categories: int | None = None,
                 random_state: Any = None) -> None:
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.negations = negations
        self.categorical_features = categorical_features
        self.max_categories = max_categories
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def fit(self, X: Any, y: Any) -> TreeBinarizer:
        """Learn per-feature split thresholds from ``(X, y)``."""
        if y is None:
            raise InputError("TreeBinarizer requires y to be passed, but the target y is None: call fit(X, y)")
        d = self.max_depth
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 1:
            raise InputError(f"max_depth must be an integer >= 1, got {d!r}")
        yy = np.asarray(y)
        if yy.dtype.kind == "f" and not np.isfinite(yy).all():
            raise InputError("y contains NaN or infinite values")
        return self._fit(X, yy)

    def _thresholds(self, values: np.ndarray, y: np.ndarray | None) -> np.ndarray:
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

        assert y is not None
        if np.unique(y).size < 2:
            return np.empty(0)
        rs = self.random_state
        if isinstance(rs, np.random.Generator):
            rs = int(rs.integers(2**31 - 1))
        regression = y.dtype.kind == "f" and not np.all(y == np.round(y))
        cls = DecisionTreeRegressor if regression else DecisionTreeClassifier
        tree = cls(max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf, random_state=rs)
        tree.fit(values.reshape(-1, 1), y)
        t = tree.tree_
        return np.sort(t.threshold[t.feature >= 0])
