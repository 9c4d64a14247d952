"""The ``Dataset`` value and constructors from user data (DataFrame, CSV)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from interpretopt._validation import as_generator, check_int
from interpretopt.exceptions import DataError, InputError

__all__ = ["Dataset", "FeatureType", "infer_feature_types", "dataset_from_frame", "dataset_from_csv"]

FeatureType = Literal["numeric", "categorical", "binary"]


def _is_categorical_dtype(dtype: Any) -> bool:
    return isinstance(dtype, pd.CategoricalDtype)


def infer_feature_types(X: pd.DataFrame) -> dict[str, FeatureType]:
    """Feature type of every column of ``X``.

    ``categorical`` for pandas ``category``, string, object columns; ``binary`` for bool columns
    and numeric columns whose non-missing values are exactly {0, 1}; ``numeric`` otherwise.
    """
    types: dict[str, FeatureType] = {}
    for name, col in X.items():
        dtype = col.dtype
        if pd.api.types.is_bool_dtype(dtype):
            types[str(name)] = "binary"
        elif _is_categorical_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
            types[str(name)] = "categorical"
        else:
            values = pd.unique(col.dropna())
            if len(values) == 2 and set(np.asarray(values, dtype=float).tolist()) == {0.0, 1.0}:
                types[str(name)] = "binary"
            else:
                types[str(name)] = "numeric"
    return types


def _categorize(X: pd.DataFrame, categorical: list[str] | tuple[str, ...] = ()) -> pd.DataFrame:
    """Convert string/object/bool-free non-numeric columns (and the named ones) to pandas ``category``."""
    out = {}
    for name, col in X.items():
        if (name in categorical or not (pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype))) \
                and not _is_categorical_dtype(col.dtype):
            out[name] = col.astype("category")
        else:
            out[name] = col
    return pd.DataFrame(out, index=X.index)


@dataclass(frozen=True, eq=False)
class Dataset:
    """A classification dataset: features as a DataFrame, labels as an array, and what they are.

    Parameters
    ----------
    name : str
        Registry name (or a user-given name).
    X : pandas.DataFrame
        Features; categorical features are pandas ``category`` columns. The index is 0..n-1.
    y : numpy.ndarray
        Labels, shape (n,). Binary targets are coded 0/1 with 1 the class of interest.
    feature_types : dict
        Column name -> ``"numeric"``, ``"categorical"`` or ``"binary"``.
    source : str
        Where the data come from (file, generator, OpenML id / UCI name).
    target : str
        Name of the target column in the source.
    class_names : tuple or None
        Human-readable name of each class, in the order of ``classes``, when known.
    options : dict
        The loader options the dataset was built with.

    Examples
    --------
    >>> from interpretopt.data import load_dataset
    >>> ds = load_dataset("circle", n_samples=100, random_state=0)
    >>> ds.n_samples, ds.n_features, ds.classes.tolist()
    (100, 2, [0, 1])
    """

    name: str
    X: pd.DataFrame
    y: np.ndarray
    feature_types: dict[str, FeatureType]
    source: str = ""
    target: str = "target"
    class_names: tuple[str, ...] | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.X, pd.DataFrame):
            raise InputError(f"Dataset.X must be a pandas DataFrame, got {type(self.X).__name__}")
        y = np.asarray(self.y)
        if y.ndim != 1:
            raise InputError(f"Dataset.y must be 1-D, got shape {y.shape}")
        if y.shape[0] != len(self.X):
            raise InputError(f"Dataset {self.name!r}: X has {len(self.X)} rows but y has {y.shape[0]} labels")
        missing = [str(c) for c in self.X.columns if str(c) not in self.feature_types]
        if missing:
            raise InputError(f"Dataset {self.name!r}: feature_types lacks column(s) {missing[:5]}")
        object.__setattr__(self, "y", y)

    # -- sizes -------------------------------------------------------------------------------
    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def feature_names(self) -> list[str]:
        return [str(c) for c in self.X.columns]

    @property
    def classes(self) -> np.ndarray:
        """Sorted distinct labels."""
        return np.unique(self.y)

    @property
    def n_classes(self) -> int:
        return int(self.classes.size)

    @property
    def categorical_features(self) -> list[int]:
        """Indices of the categorical columns."""
        return [j for j, c in enumerate(self.feature_names) if self.feature_types[c] == "categorical"]

    # -- views -------------------------------------------------------------------------------
    def numeric(self) -> np.ndarray:
        """Features as a float matrix (n, d) for black-box models.

        Numeric and binary columns are taken as they are. A categorical column whose categories
        are numbers keeps those numbers; a categorical column of strings becomes its integer
        category codes (categories in sorted order, 0..k-1). Missing categories become NaN.
        """
        cols = []
        for name, col in self.X.items():
            if _is_categorical_dtype(col.dtype):
                cats = col.cat.categories
                if pd.api.types.is_numeric_dtype(cats.dtype):
                    values = np.asarray(cats, dtype=float)
                    codes = col.cat.codes.to_numpy()
                    v = np.where(codes >= 0, values[np.clip(codes, 0, None)] if values.size else np.nan, np.nan)
                else:
                    codes = col.cat.codes.to_numpy().astype(float)
                    v = np.where(codes >= 0, codes, np.nan)
                cols.append(np.asarray(v, dtype=float))
            else:
                try:
                    cols.append(col.to_numpy(dtype=float, na_value=np.nan))
                except (TypeError, ValueError):
                    raise InputError(
                        f"Dataset {self.name!r}: column {str(name)!r} (dtype {col.dtype}) is neither numeric nor a "
                        "pandas category; build the dataset with dataset_from_frame (which turns strings into "
                        "categories) or convert the column"
                    ) from None
        if not cols:
            return np.empty((self.n_samples, 0))
        return np.column_stack(cols)

    def take(self, indices: Any, *, name: str | None = None) -> Dataset:
        """The rows ``indices`` (positions), re-indexed 0..m-1."""
        idx = np.asarray(indices)
        if idx.dtype == bool:
            if idx.shape != (self.n_samples,):
                raise InputError(f"boolean mask has shape {idx.shape}, expected ({self.n_samples},)")
            idx = np.flatnonzero(idx)
        X = self.X.iloc[idx].reset_index(drop=True)
        return dataclasses.replace(self, X=X, y=self.y[idx], name=name or self.name)

    def subsample(self, n: int, random_state: Any = None, *, stratify: bool = False) -> Dataset:
        """A random subset of ``n`` rows, drawn without replacement, in original row order.

        Returns ``self`` when ``n >= n_samples``. With ``stratify=True`` class proportions are kept.
        """
        n = check_int("n", n, 1)
        if n >= self.n_samples:
            return self
        rng = as_generator(random_state)
        if stratify:
            from interpretopt.data._split import train_test_indices

            _, idx = train_test_indices(self.n_samples, n, rng, stratify=self.y)
        else:
            idx = rng.choice(self.n_samples, size=n, replace=False)
        return self.take(np.sort(idx))

    def __repr__(self) -> str:
        counts = dict(zip(*np.unique(self.y, return_counts=True)))
        counts = {k.item() if hasattr(k, "item") else k: int(v) for k, v in counts.items()}
        return (f"Dataset(name={self.name!r}, n_samples={self.n_samples}, n_features={self.n_features}, "
                f"classes={counts}, source={self.source!r})")


def _labels_from_series(y: pd.Series, target: str) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """Encode a target column: numeric labels kept; strings/bools mapped to 0..k-1 in sorted order."""
    if y.isna().any():
        raise InputError(f"target column {target!r} has {int(y.isna().sum())} missing value(s); drop those rows first")
    if pd.api.types.is_bool_dtype(y.dtype):
        return y.to_numpy().astype(np.int64), ("False", "True")
    if pd.api.types.is_numeric_dtype(y.dtype) and not _is_categorical_dtype(y.dtype):
        arr = y.to_numpy()
        if arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        return arr, None
    cats = sorted(pd.unique(y.astype(str)))
    codes = pd.Categorical(y.astype(str), categories=cats).codes.astype(np.int64)
    return codes, tuple(cats)


def dataset_from_frame(df: pd.DataFrame, target: str, *, name: str = "user",
                       categorical: list[str] | tuple[str, ...] = (), source: str = "DataFrame") -> Dataset:
    """A ``Dataset`` from a DataFrame holding features and a target column.

    Parameters
    ----------
    df : pandas.DataFrame
        Features and target.
    target : str
        Name of the target column. String targets are coded 0..k-1 in sorted order
        (``class_names`` records the mapping).
    name : str, default "user"
    categorical : sequence of str, default ()
        Numeric columns to treat as categorical; string, object and category columns always are.
    source : str, default "DataFrame"

    Raises
    ------
    InputError
        ``df`` is not a DataFrame, the target column is unknown (the message lists the columns),
        no feature columns remain, or the target has missing values.
    """
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"dataset_from_frame expects a pandas DataFrame, got {type(df).__name__}")
    if target not in df.columns:
        cols = [str(c) for c in df.columns]
        raise InputError(f"target column {target!r} not found; columns are: {', '.join(cols[:50])}"
                         f"{' ...' if len(cols) > 50 else ''}")
    unknown = [c for c in categorical if c not in df.columns]
    if unknown:
        raise InputError(f"categorical column(s) {unknown} not found in the DataFrame")
    if df.shape[1] < 2:
        raise InputError("the DataFrame has no feature columns besides the target")
    y, class_names = _labels_from_series(df[target], target)
    X = df.drop(columns=[target]).reset_index(drop=True)
    X.columns = [str(c) for c in X.columns]
    X = _categorize(X, tuple(str(c) for c in categorical))
    return Dataset(name=name, X=X, y=y, feature_types=infer_feature_types(X), source=source,
                   target=str(target), class_names=class_names)


def read_table(path: str | PathLike[str], *, dataset: str | None = None, **kwargs: Any) -> pd.DataFrame:
    """``pandas.read_csv`` that turns every parse failure into a ``DataError`` naming the file."""
    path = Path(path)
    if "sep" not in kwargs and path.name.endswith((".tsv", ".tsv.gz")):
        kwargs["sep"] = "\t"
    what = f"dataset {dataset!r}: " if dataset else ""
    if not path.exists():
        raise DataError(f"{what}file {str(path)!r} does not exist")
    if path.is_dir():
        raise DataError(f"{what}{str(path)!r} is a directory, expected a CSV file")
    try:
        df = pd.read_csv(path, **kwargs)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, EOFError, OSError, ValueError) as exc:
        raise DataError(f"{what}could not parse {str(path)!r}: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # zlib.error and other decompression failures
        raise DataError(f"{what}could not read {str(path)!r}: {type(exc).__name__}: {exc}") from exc
    if df.shape[0] == 0:
        raise DataError(f"{what}{str(path)!r} has no data rows")
    return df


def dataset_from_csv(path: str | PathLike[str], target: str, *, name: str | None = None,
                     categorical: list[str] | tuple[str, ...] = (), **read_csv_kwargs: Any) -> Dataset:
    """A ``Dataset`` from a CSV file (``.csv``, ``.tsv``, optionally gzipped) with a target column.

    Extra keyword arguments go to ``pandas.read_csv`` (e.g. ``sep=";"``, ``keep_default_na=False``).

    Raises
    ------
    DataError
        The file does not exist or does not parse.
    InputError
        The target column is not in the file (the message lists the columns).
    """
    df = read_table(path, **read_csv_kwargs)
    return dataset_from_frame(df, target, name=name or Path(path).name.split(".")[0],
                              categorical=categorical, source=str(path))
