"""Input checks shared by every estimator. Messages say what was wrong and what is accepted."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from interpretopt.exceptions import InputError

__all__ = [
    "as_generator",
    "check_X",
    "check_labels",
    "check_same_length",
    "check_in_range",
    "check_int",
    "feature_names_of",
]


def as_generator(random_state: Any) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from ``None``, an int, a SeedSequence or a Generator.

    A legacy ``RandomState`` is accepted and converted by drawing one seed from it, so
    scikit-learn style ``random_state`` arguments keep working.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.SeedSequence)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    raise InputError(
        f"random_state must be None, an int, a SeedSequence or a numpy Generator, got {type(random_state).__name__}"
    )


def feature_names_of(X: Any, n_features: int | None = None) -> list[str]:
    """Column names of a DataFrame, else ``x0 .. x{d-1}``."""
    if isinstance(X, pd.DataFrame):
        return [str(c) for c in X.columns]
    d = n_features if n_features is not None else np.asarray(X).shape[1]
    return [f"x{j}" for j in range(d)]


def check_X(X: Any, *, name: str = "X", allow_nan: bool = False, min_samples: int = 1) -> np.ndarray:
    """Validate a 2-D numeric feature matrix and return it as a float64 array.

    Raises
    ------
    InputError
        Not 2-D, fewer than ``min_samples`` rows, a non-numeric column (named), NaN or inf.
    """
    if isinstance(X, pd.DataFrame):
        bad = [str(c) for c, t in X.dtypes.items() if not (pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t))]
        if bad:
            raise InputError(
                f"{name} has non-numeric column(s) {bad[:5]}{'...' if len(bad) > 5 else ''}; "
                "encode them first (e.g. Dataset.numeric() or a binarizer)"
            )
        arr = X.to_numpy(dtype=float)
    else:
        try:
            arr = np.asarray(X, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InputError(f"{name} must be numeric; could not convert to float: {exc}") from None
    if arr.ndim == 1:
        raise InputError(f"{name} must be 2-D (n_samples, n_features), got a 1-D array of length {arr.shape[0]}; "
                         "use X.reshape(-1, 1) for a single feature")
    if arr.ndim != 2:
        raise InputError(f"{name} must be 2-D (n_samples, n_features), got shape {arr.shape}")
    if arr.shape[0] < min_samples:
        raise InputError(f"{name} has {arr.shape[0]} rows; at least {min_samples} required")
    if arr.shape[1] == 0:
        raise InputError(f"{name} has no columns")
    if not allow_nan:
        finite = np.isfinite(arr)
        if not finite.all():
            rows, cols = np.nonzero(~finite)
            raise InputError(
                f"{name} contains {rows.size} NaN or infinite value(s), first at row {rows[0]}, column {cols[0]}; "
                "impute or drop them first"
            )
    return arr


def check_labels(y: Any, *, n_samples: int | None = None, binary: bool = False, name: str = "y",
                 min_classes: int = 2) -> np.ndarray:
    """Validate a label vector: 1-D, right length, no NaN, at least ``min_classes`` classes.

    With ``binary=True`` the labels must be a subset of {0, 1} (bools accepted) and are returned as int8.
    """
    arr = np.asarray(y)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise InputError(f"{name} must be 1-D, got shape {arr.shape}")
    if n_samples is not None and arr.shape[0] != n_samples:
        raise InputError(f"{name} has {arr.shape[0]} labels but X has {n_samples} rows")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise InputError(f"{name} contains NaN or infinite labels")
    classes = np.unique(arr)
    if classes.size < min_classes:
        raise InputError(f"{name} has a single class {classes.tolist()}; {min_classes} classes are required")
    if binary:
        if arr.dtype == bool:
            return arr.astype(np.int8)
        if not np.isin(classes, [0, 1]).all():
            raise InputError(f"{name} must be binary with values in {{0, 1}}, got classes {classes.tolist()[:10]}")
        return arr.astype(np.int8)
    return arr


def check_same_length(**arrays: Sequence[Any]) -> int:
    """All arguments have the same length; returns it or raises naming each length."""
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise InputError("length mismatch: " + ", ".join(f"{k} has {n}" for k, n in lengths.items()))
    return next(iter(lengths.values()))


def check_in_range(name: str, value: Any, low: float | None = None, high: float | None = None, *,
                   low_open: bool = False, high_open: bool = False) -> float:
    """A real number within [low, high] (open ends when asked); raises with the accepted interval."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise InputError(f"{name} must be a finite real number, got {value!r}")
    lo_ok = low is None or (value > low if low_open else value >= low)
    hi_ok = high is None or (value < high if high_open else value <= high)
    if not (lo_ok and hi_ok):
        lo = "(-inf" if low is None else ("(" if low_open else "[") + f"{low:g}"
        hi = "inf)" if high is None else f"{high:g}" + (")" if high_open else "]")
        raise InputError(f"{name} must be in {lo}, {hi}, got {value!r}")
    return float(value)


def check_int(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """An integer within [low, high]; raises with the accepted range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} must be an integer, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise InputError(f"{name} must be in [{low if low is not None else '-inf'}, {high if high is not None else 'inf'}], got {value}")
    return int(value)
