"""Dataset preprocessing shared by the experiments: one-hot encoding of categorical columns.

The IMD paper (Haldar et al., UAI 2023, Section 5, "Datasets") drops duplicate instances
and one-hot encodes categorical features before training its models. ``load_dataset(...,
drop_duplicates=True, one_hot=True)`` does both; :class:`OneHotFrame` is the fitted encoder
behind it, also used by estimators that accept DataFrames with string or category columns.

Encoding (pandas ``get_dummies`` semantics): every category of a categorical column becomes
one 0/1 column named ``"<column>=<category>"`` (all categories, none dropped), in the
column's category order; numeric and binary columns are kept as they are, in place. A
missing value, or a category not seen when the encoder was fitted, gives 0 in every
indicator column of its feature.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from interpretopt.exceptions import InputError

__all__ = ["OneHotFrame", "one_hot_frame", "ONE_HOT_SEP"]

ONE_HOT_SEP = "="


def _is_categorical_column(col: pd.Series) -> bool:
    dtype = col.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return False
    return isinstance(dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(dtype)


def _category_name(v: Any) -> str:
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, np.generic):
        v = v.item()
    return str(v)


@dataclass
class OneHotFrame:
    """One-hot encoder for the categorical columns of a DataFrame.

    Parameters
    ----------
    columns : sequence of str, optional
        Columns to encode. Default: every ``category``, string or object column.
    sep : str, default "="
        Separator of the indicator column names (``"odor=5"``), as AIX360's IMD parses them.

    Attributes (after :meth:`fit`)
    ------------------------------
    input_columns_ : list of str
    categories_ : dict
        Encoded column -> list of its categories, in indicator order.
    feature_names_out_ : list of str
        Names of the encoded columns, in output order.
    """

    columns: tuple[str, ...] | None = None
    sep: str = ONE_HOT_SEP
    input_columns_: list = field(default_factory=list, init=False)
    categories_: dict = field(default_factory=dict, init=False)
    feature_names_out_: list = field(default_factory=list, init=False)

    def fit(self, X: pd.DataFrame) -> "OneHotFrame":
        if not isinstance(X, pd.DataFrame):
            raise InputError(f"OneHotFrame expects a pandas DataFrame, got {type(X).__name__}")
        names = [str(c) for c in X.columns]
        if self.columns is None:
            chosen = [str(c) for c, col in X.items() if _is_categorical_column(col)]
        else:
            chosen = [str(c) for c in self.columns]
            unknown = [c for c in chosen if c not in names]
            if unknown:
                raise InputError(f"one-hot column(s) {unknown} are not in the frame; columns: {', '.join(names[:30])}")
        self.input_columns_ = names
        self.categories_ = {}
        out: list[str] = []
        for c, col in zip(names, X.columns):
            if c in chosen:
                series = X[col]
                if isinstance(series.dtype, pd.CategoricalDtype):
                    cats = list(series.cat.categories)
                else:
                    vals = pd.unique(series.dropna())
                    try:
                        cats = sorted(vals)
                    except TypeError:  # mixed types: sort by their text
                        cats = sorted(vals, key=str)
                self.categories_[c] = cats
                out.extend(f"{c}{self.sep}{_category_name(v)}" for v in cats)
            else:
                out.append(c)
        if len(set(out)) != len(out):
            dup = sorted({n for n in out if out.count(n) > 1})[:5]
            raise InputError(f"one-hot encoding gives duplicate column names {dup}; rename the columns or use "
                             f"another separator than {self.sep!r}")
        self.feature_names_out_ = out
        return self

    def _check(self, X: pd.DataFrame) -> None:
        if not self.input_columns_:
            raise InputError("this OneHotFrame is not fitted yet; call fit(X) first")
        if not isinstance(X, pd.DataFrame):
            raise InputError(f"OneHotFrame expects a pandas DataFrame, got {type(X).__name__}")
        names = [str(c) for c in X.columns]
        if names != self.input_columns_:
            raise InputError(f"the frame's columns {names[:10]} differ from those seen in fit "
                             f"{self.input_columns_[:10]}; pass the same columns in the same order")

    def transform_frame(self, X: pd.DataFrame) -> pd.DataFrame:
        """The encoded DataFrame: indicators as int64 0/1 columns, other columns unchanged."""
        self._check(X)
        parts: dict[str, Any] = {}
        for c, col in zip(self.input_columns_, X.columns):
            series = X[col]
            if c in self.categories_:
                cats = self.categories_[c]
                values = series.astype(object).to_numpy() if isinstance(series.dtype, pd.CategoricalDtype) \
                    else series.to_numpy()
                for v in cats:
                    parts[f"{c}{self.sep}{_category_name(v)}"] = (values == v).astype(np.int64)
            else:
                parts[c] = series.to_numpy()
        return pd.DataFrame(parts, index=X.index)

    def transform(self, X: pd.DataFrame) -> np.ndarray:
        """The encoded features as a float matrix."""
        frame = self.transform_frame(X)
        try:
            return frame.to_numpy(dtype=float)
        except (TypeError, ValueError):
            bad = [c for c, t in frame.dtypes.items() if not pd.api.types.is_numeric_dtype(t)]
            raise InputError(f"column(s) {bad[:5]} are neither numeric nor encoded; name them in `columns`") from None

    def fit_transform(self, X: pd.DataFrame) -> np.ndarray:
        return self.fit(X).transform(X)

    @property
    def n_features_out(self) -> int:
        return len(self.feature_names_out_)


def one_hot_frame(X: pd.DataFrame, columns: Any = None, *, sep: str = ONE_HOT_SEP) -> pd.DataFrame:
    """``X`` with its categorical columns (or ``columns``) replaced by 0/1 indicator columns."""
    enc = OneHotFrame(None if columns is None else tuple(str(c) for c in columns), sep)
    return enc.fit(X).transform_frame(X)
