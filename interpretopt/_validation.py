"""The estimator contract shared by every estimator. Messages say what was wrong and what is accepted.

* **Parameters**: each estimator declares ``_parameter_constraints`` once (scikit-learn's
  ``Interval`` / ``StrOptions`` / ``Options`` / types, re-exported here) and calls
  :func:`validate_params` (through :class:`ContractMixin` ``._validate_params()``) at the top
  of ``fit``; a value outside the schema raises :class:`~interpretopt.exceptions.ParameterError`
  (a scikit-learn ``InvalidParameterError``). :func:`check_params` validates a plain mapping of
  parameters against a class's schema without building it (used by configs at load time),
  with a did-you-mean for unknown names.
* **Inputs**: :func:`validate_data` checks ``X`` (and ``y``) as scikit-learn's
  ``validate_data`` does, sets ``n_features_in_`` / ``feature_names_in_`` on ``reset`` and,
  otherwise, raises on a different number of features or on DataFrame columns that are
  renamed or reordered (scikit-learn's rule). NaN and inf are rejected with the count and the
  first position. Column types are decided explicitly: numeric estimators need every value to
  be a number (a string cell is an error naming the cell); table estimators
  (``categorical=True``) also accept categorical columns, which are pandas ``category``
  columns or columns whose every value is a string; a column mixing numbers and strings is an
  error, never silently categorical.
* **Labels**: :func:`encode_binary_target` is the label encoder of the binary methods:
  ``classes_`` come from the data (any two labels), the method works on 0/1 codes
  (1 = ``classes_[1]``) and predicts ``classes_[code]``.
* **Labels of one class** (the one policy of every binary estimator): never a silent answer.
  An estimator whose model is exactly defined for one class fits it and warns
  (:func:`warn_single_class`): BRCG's rule set is then the constant one, proven optimal by
  argument. An estimator that needs both classes to define its model refuses with
  :class:`~interpretopt.exceptions.InputError` (CompanionRuleList and PairedRuleList, whose
  rules and black box separate the classes; MTREPANNetwork). A binary estimator needs at
  least two rows (one row cannot hold two classes).
* **Fitted state**: :func:`check_fitted` raises :class:`~interpretopt.exceptions.NotFittedError`
  (a scikit-learn ``NotFittedError``) before ``fit``.
"""

from __future__ import annotations

import difflib
import numbers
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import (  # the schema vocabulary of every estimator
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    Options,
    StrOptions,
    validate_parameter_constraints,
)

from interpretopt.exceptions import InputError, InputTypeError, NotFittedError, ParameterError

__all__ = [
    "check_2d",
    "HasMethods",
    "Hidden",
    "Interval",
    "Options",
    "StrOptions",
    "SolverOptions",
    "CapableSolvers",
    "RANDOM_STATE",
    "ContractMixin",
    "validate_params",
    "check_params",
    "refuse_bools_for_numbers",
    "did_you_mean",
    "validate_data",
    "encode_binary_target",
    "SingleClassWarning",
    "warn_single_class",
    "check_fitted",
    "render_names",
    "fitted_names",
    "solver_capabilities",
    "check_solver",
    "check_solver_available",
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


def check_2d(arr: np.ndarray, name: str = "X") -> None:
    """Raise :class:`InputError` unless ``arr`` is 2-D (n_samples, n_features)."""
    if arr.ndim == 1:
        raise InputError(f"{name} must be 2-D (n_samples, n_features), got a 1-D array of length {arr.shape[0]}; "
                         f"Reshape your data with {name}.reshape(-1, 1) for a single feature")
    if arr.ndim != 2:
        raise InputError(f"{name} must be 2-D (n_samples, n_features), got shape {arr.shape}")


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
    check_2d(arr, name)
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


# ============================================================================= parameters

#: Constraint of every ``random_state`` parameter: None, an int, a RandomState, a Generator or a SeedSequence.
RANDOM_STATE = ["random_state", np.random.Generator, np.random.SeedSequence]


def did_you_mean(name: str, valid: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest valid name, or an empty string."""
    close = difflib.get_close_matches(str(name), [str(v) for v in valid], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def validate_params(estimator: Any) -> None:
    """Check every parameter of ``estimator`` against its ``_parameter_constraints``.

    Raises
    ------
    ParameterError
        A value outside the schema; the message names the parameter, what it accepts and the
        value given (scikit-learn's wording, so ``check_param_validation`` recognises it).
    """
    constraints = getattr(type(estimator), "_parameter_constraints", None)
    if constraints is None:
        raise TypeError(f"{type(estimator).__name__} declares no _parameter_constraints")
    params = estimator.get_params(deep=False)
    refuse_bools_for_numbers(constraints, params, type(estimator).__name__)
    try:
        validate_parameter_constraints(constraints, params, caller_name=type(estimator).__name__)
    except InvalidParameterError as exc:
        raise ParameterError(str(exc)) from None


def _takes_bool(constraint: Any) -> bool:
    if constraint in ("boolean", bool, "no_validation") or constraint is object:
        return True
    if isinstance(constraint, Options) and not isinstance(constraint, StrOptions):
        return any(isinstance(o, (bool, np.bool_)) for o in constraint.options)
    if isinstance(constraint, Hidden):
        return _takes_bool(constraint.constraint)
    return False


def _takes_number(constraint: Any) -> bool:
    if isinstance(constraint, Interval):
        return True
    if isinstance(constraint, Hidden):
        return _takes_number(constraint.constraint)
    return isinstance(constraint, type) and issubclass(constraint, numbers.Number)


def refuse_bools_for_numbers(constraints: Mapping[str, list], params: Mapping[str, Any], owner: str) -> None:
    """A bool given for a number is an error (``True`` is an ``int`` to Python, so the schema alone takes it as 1).

    Raises
    ------
    ParameterError
        Naming the parameter, what it accepts and the bool given.
    """
    from sklearn.utils._param_validation import make_constraint

    for key, value in params.items():
        cons = constraints.get(key)
        if not isinstance(value, (bool, np.bool_)) or not cons or not isinstance(cons, list):
            continue
        if any(_takes_bool(c) for c in cons) or not any(_takes_number(c) for c in cons):
            continue
        texts = [str(make_constraint(c)) for c in cons if not isinstance(c, Hidden)]
        accepted = ", ".join(texts[:-1]) + (" or " if len(texts) > 1 else "") + texts[-1]
        raise ParameterError(f"The {key!r} parameter of {owner} must be {accepted}. Got {value!r} instead: a "
                             "boolean is not a number here (True would be taken as 1); give the number itself")


def check_params(cls: type, params: Mapping[str, Any], *, what: str | None = None,
                 extra: Mapping[str, list] | None = None) -> None:
    """Validate a mapping of parameters against ``cls._parameter_constraints`` without building ``cls``.

    Parameters
    ----------
    cls : estimator class
    params : mapping
        Parameter name -> value (a subset of the class's parameters).
    what : str, optional
        How to name the owner in messages (default: the class name).
    extra : mapping, optional
        More accepted names with their constraints (e.g. a task's own parameters).

    Raises
    ------
    ParameterError
        An unknown name (listing the valid ones, with a did-you-mean) or a value outside the schema.
    """
    owner = what or cls.__name__
    constraints = {**getattr(cls, "_parameter_constraints", {}), **dict(extra or {})}
    unknown = [k for k in params if k not in constraints]
    if unknown:
        k = unknown[0]
        raise ParameterError(f"{owner} has no parameter {k!r}{did_you_mean(k, list(constraints))}; "
                             f"valid parameters: {', '.join(sorted(constraints))}")
    refuse_bools_for_numbers(constraints, params, owner)
    try:
        validate_parameter_constraints({k: constraints[k] for k in params}, dict(params), caller_name=owner)
    except InvalidParameterError as exc:
        raise ParameterError(str(exc)) from None


class ContractMixin:
    """``_validate_params()`` raising :class:`ParameterError`; mix in before ``BaseEstimator``."""

    _parameter_constraints: dict = {}

    def _validate_params(self) -> None:
        validate_params(self)

    def __str__(self) -> str:
        """What a fitted estimator learned (its ``render_rules()`` or ``render()``: rules, rule list,
        tree), so that ``print(model)`` shows it; an estimator not fitted yet prints its parameters.
        ``repr`` stays scikit-learn's (the parameters)."""
        from sklearn.exceptions import NotFittedError
        from sklearn.utils.validation import check_is_fitted

        try:
            check_is_fitted(self)
        except (NotFittedError, TypeError):
            return repr(self)
        for name in ("render_rules", "render"):
            render = getattr(self, name, None)
            if callable(render):
                try:
                    return str(render())
                except NotFittedError:
                    return repr(self)
        return repr(self)


class SolverOptions(StrOptions):
    """The solver names a parameter accepts, described by what the solver must provide.

    >>> str(SolverOptions({"highs", "ortools_glop"}, provides="LP duals on an incremental model"))
    "a solver providing LP duals on an incremental model: 'highs' or 'ortools_glop'"
    """

    def __init__(self, options: set, *, provides: str) -> None:
        super().__init__(options)
        self.provides = provides

    def __str__(self) -> str:
        names = sorted(self.options)
        listed = ", ".join(repr(n) for n in names[:-1]) + (" or " if len(names) > 1 else "") + repr(names[-1])
        return f"a solver providing {self.provides}: {listed}"


class CapableSolvers(SolverOptions):
    """The registered solvers that have every capability in ``needs``, read from the registry when checked.

    Methods name capabilities, never backends: a backend registered later with those
    capabilities is accepted without any change to the method.
    """

    def __init__(self, needs, *, provides: str) -> None:
        self.needs = tuple(needs)
        super().__init__(set(), provides=provides)

    @property
    def options(self) -> set:
        from interpretopt.solvers import SOLVERS

        return {n for n in SOLVERS.names() if all(getattr(SOLVERS.get(n).capabilities, k) for k in self.needs)}

    @options.setter
    def options(self, value) -> None:  # the set is the registry's; nothing to store
        pass


# ============================================================================= inputs

NO_VALIDATION = "no_validation"


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _as_2d(X: Any, name: str, owner: str) -> pd.DataFrame | np.ndarray:
    """X as a DataFrame (kept) or a 2-D ndarray (possibly object); containers that cannot be features raise."""
    import scipy.sparse as sp

    if X is None:
        raise InputError(f"{owner}: {name} is None; pass a 2-D array or DataFrame (n_samples, n_features)")
    if sp.issparse(X):
        raise InputError(f"{owner}: {name} is a sparse matrix, which is not supported; convert it with {name}.toarray()")
    if isinstance(X, pd.Series):
        raise InputError(f"{owner}: {name} must be 2-D (n_samples, n_features), got a pandas Series of length "
                         f"{len(X)}; use {name}.to_frame()")
    if isinstance(X, pd.DataFrame):
        return X
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise InputError(f"{owner}: {name} could not be read as a 2-D array: {exc}") from None
    if arr.dtype.kind == "c":
        raise InputError(f"{owner}: Complex data not supported: {name} has complex values; features must be real")
    if arr.ndim == 0:
        raise InputError(f"{owner}: {name} must be 2-D (n_samples, n_features), got the scalar {arr.item()!r}")
    if arr.ndim == 1:
        raise InputError(f"{owner}: Expected a 2-D {name} (n_samples, n_features), got a 1-D array of length "
                         f"{arr.shape[0]}; Reshape your data with {name}.reshape(-1, 1) for a single feature or "
                         f"{name}.reshape(1, -1) for a single sample")
    if arr.ndim != 2:
        raise InputError(f"{owner}: {name} must be 2-D (n_samples, n_features), got shape {_shape_text(arr.shape)}")
    return arr


def _col_label(X: Any, j: int) -> str:
    if isinstance(X, pd.DataFrame):
        return f"column {X.columns[j]!r}"
    return f"column {j}"


def _bad_cell_error(name: str, owner: str, label: str, row: int, value: Any, categorical: bool) -> InputError:
    if isinstance(value, bytes):
        return InputTypeError(
            f"{owner}: {name} {label} holds bytes at row {row} ({value!r}); a feature argument must be "
            f"{'a string (a category) or a real number' if categorical else 'a real number'}: decode the column "
            "first (e.g. col.str.decode('utf-8'))")
    if isinstance(value, str):
        if categorical:
            return InputError(
                f"{owner}: {name} {label} mixes numbers and strings (e.g. {value!r} at row {row}); a column is "
                "numeric when every value is a number and categorical when every value is a string (or its dtype "
                "is 'category'): convert it with astype(float) or astype('category')")
        return InputError(
            f"{owner}: {name} {label} holds the non-numeric value {value!r} (row {row}); {owner} needs numeric "
            "features: encode categorical columns first (e.g. Dataset.numeric() or one-hot encoding)")
    return InputTypeError(
        f"{owner}: {name} {label} holds a {type(value).__name__} at row {row} ({value!r}); a feature argument must "
        f"be {'a string (a category) or a real number' if categorical else 'a real number or a string holding a number'}")


def _object_column(values: np.ndarray, name: str, owner: str, label: str, categorical: bool):
    """An object column as float (every value a number) or, for tables, as categorical (every value a string)."""
    isstr = np.fromiter((isinstance(v, str) for v in values), dtype=bool, count=values.size)
    num = np.array(pd.to_numeric(pd.Series(values, dtype=object).where(~isstr, None), errors="coerce"), dtype=float)
    bad_num = ~isstr & np.isnan(num) & ~pd.isna(pd.Series(values, dtype=object)).to_numpy()
    if bad_num.any():  # neither a number nor a string (dicts, lists, ...)
        i = int(np.flatnonzero(bad_num)[0])
        raise _bad_cell_error(name, owner, label, i, values[i], categorical)
    if isstr.all() and categorical:
        return "categorical", pd.Categorical(values)
    if isstr.any():
        # numeric strings ("1.5") count as numbers; any other string makes the column invalid
        conv = pd.to_numeric(pd.Series(values[isstr], dtype=object), errors="coerce").to_numpy(dtype=float)
        if np.isnan(conv).any():
            if categorical and not (~isstr & ~np.isnan(num)).any():
                # strings and missing values only: a categorical column with NaN (reported by the NaN check)
                return "categorical", pd.Categorical(values)
            i = int(np.flatnonzero(isstr)[int(np.flatnonzero(np.isnan(conv))[0])])
            raise _bad_cell_error(name, owner, label, i, values[i], categorical)
        num[isstr] = conv
    return "numeric", num


def _columns(X, name: str, owner: str, categorical: bool):
    """Per column: (kind, values) with kind "numeric" (float array or numeric Series) or "categorical"."""
    out = []
    if isinstance(X, pd.DataFrame):
        for j in range(X.shape[1]):
            col = X.iloc[:, j]
            dt = col.dtype
            label = _col_label(X, j)
            if isinstance(dt, pd.CategoricalDtype):
                if not categorical:
                    raise InputError(f"{owner}: {name} {label} is categorical (dtype 'category'); {owner} needs numeric "
                                     "features: encode it first (e.g. Dataset.numeric() or one-hot encoding)")
                out.append(("categorical", col))
            elif categorical and pd.api.types.is_bool_dtype(dt) and not col.isna().any():
                out.append(("numeric", col.to_numpy(dtype=bool)))  # tables keep booleans (binary features)
            elif pd.api.types.is_bool_dtype(dt) or pd.api.types.is_numeric_dtype(dt):
                if getattr(dt, "kind", "") == "c":
                    raise InputError(f"{owner}: Complex data not supported: {name} {label} has complex values")
                out.append(("numeric", col.to_numpy(dtype=float, na_value=np.nan)))
            else:
                kind, vals = _object_column(col.to_numpy(dtype=object), name, owner, label, categorical)
                out.append((kind, vals))
        return out
    arr = X
    if arr.dtype.kind == "b" and categorical:  # as for a table's boolean columns: kept boolean
        cols = np.asfortranarray(arr)
        return [("numeric", cols[:, j]) for j in range(arr.shape[1])]
    if arr.dtype.kind in "biuf":
        return [("numeric", arr[:, j].astype(float)) for j in range(arr.shape[1])]
    if arr.dtype.kind in "USO":
        obj = arr.astype(object)
        for j in range(arr.shape[1]):
            kind, vals = _object_column(obj[:, j], name, owner, _col_label(arr, j), categorical)
            out.append((kind, vals))
        return out
    raise InputError(f"{owner}: {name} has dtype {arr.dtype}, which is not a feature type; pass numbers "
                     f"{'or strings' if categorical else ''}".rstrip())


def _check_finite(kinds_values, name: str, owner: str, labels: list[str], allow_nan: bool) -> None:
    for j, (kind, vals) in enumerate(kinds_values):
        if kind == "numeric":
            if getattr(vals, "dtype", None) == bool:
                continue  # booleans are finite
            v = np.asarray(vals, dtype=float)
            nan, inf = np.isnan(v), np.isinf(v)
        else:
            nan = np.asarray(pd.isna(pd.Series(vals)))
            inf = np.zeros_like(nan)
        if nan.any() and not allow_nan:
            raise InputError(f"{owner}: {name} contains {int(nan.sum())} NaN (missing) value(s) in {labels[j]}, first "
                             f"at row {int(np.flatnonzero(nan)[0])}; {owner} does not accept missing values: impute or "
                             "drop them first")
        if inf.any():
            raise InputError(f"{owner}: {name} contains {int(inf.sum())} infinite (inf) value(s) in {labels[j]}, first "
                             f"at row {int(np.flatnonzero(inf)[0])}; replace or drop them first")


def _check_names_and_count(estimator: Any, X: Any, arr: Any, reset: bool) -> None:
    """scikit-learn's feature-name and feature-count rules, with the columns named in the message."""
    from sklearn.utils.validation import validate_data as _sk_validate_data

    fitted_names = getattr(estimator, "feature_names_in_", None)
    try:
        _sk_validate_data(estimator, X if isinstance(X, pd.DataFrame) else arr, reset=reset, skip_check_array=True)
    except TypeError as exc:  # mixed column-name types
        raise InputError(f"{type(estimator).__name__}: {exc}") from None
    except ValueError as exc:
        msg = str(exc).rstrip()
        if (not reset and fitted_names is not None and isinstance(X, pd.DataFrame)
                and len(X.columns) == len(fitted_names)):
            got = [str(c) for c in X.columns]
            diff = [j for j, (a, b) in enumerate(zip(got, fitted_names)) if a != str(b)]
            if diff:
                j = diff[0]
                msg += (f"\nFirst difference at position {j}: got column {got[j]!r}, fit had {str(fitted_names[j])!r}"
                        f" (columns at fit: {', '.join(map(str, fitted_names[:8]))}"
                        f"{', ...' if len(fitted_names) > 8 else ''}).")
        raise InputError(msg) from None


def validate_data(estimator: Any, X: Any, y: Any = NO_VALIDATION, *, reset: bool, categorical: bool = False,
                  allow_nan: bool = False, min_samples: int = 1, name: str = "X"):
    """Validate ``X`` (and ``y``) for ``estimator``, as scikit-learn's ``validate_data`` does.

    Parameters
    ----------
    estimator : estimator
        Receives ``n_features_in_`` (and ``feature_names_in_`` for a DataFrame with string
        column names) when ``reset`` is true; otherwise ``X`` is checked against them.
    X : array-like or DataFrame (n_samples, n_features)
    y : array-like, optional
        Checked for length (1-D; a column vector is raveled with scikit-learn's warning).
    reset : bool
        True in ``fit``, False in ``predict`` and the other fitted methods.
    categorical : bool, default=False
        False: every feature must be numeric; returns a float64 ndarray. True: categorical
        columns are accepted; returns a DataFrame (columns named as the input's, else
        ``x0 .. x{d-1}``) whose numeric columns are float64 and categorical columns pandas
        ``category``; the kind of each column is remembered at fit and checked afterwards.
    allow_nan : bool, default=False
        Accept NaN (missing) values; inf is always rejected.
    min_samples : int, default=1
    name : str, default="X"

    Returns
    -------
    X or (X, y)

    Raises
    ------
    InputError
        With what was wrong (the shape, the column and row of a bad value, the columns that
        differ from fit) and what is accepted. ``InputTypeError`` for values that are neither
        numbers nor strings.
    """
    owner = type(estimator).__name__
    raw = _as_2d(X, name, owner)
    n, d = raw.shape
    if d == 0:
        raise InputError(f"{owner}: {name} has no columns: 0 feature(s) (shape={_shape_text(raw.shape)}) while a "
                         "minimum of 1 is required.")
    if n < max(min_samples, 1):
        if n == 0:
            raise InputError(f"{owner}: {name} has no rows: 0 sample(s) (shape={_shape_text(raw.shape)}) while a "
                             f"minimum of {max(min_samples, 1)} is required.")
        raise InputError(f"{owner} needs at least {min_samples} samples, got n_samples = {n}")
    _check_names_and_count(estimator, X, raw, reset)
    cols = _columns(raw, name, owner, categorical)
    labels = [_col_label(raw, j) for j in range(d)]
    kinds = tuple(k for k, _ in cols)
    if reset:
        estimator._feature_kinds = kinds
    else:
        fitted = getattr(estimator, "_feature_kinds", None)
        if fitted is not None and fitted != kinds:
            j = next(j for j, (a, b) in enumerate(zip(kinds, fitted)) if a != b)
            raise InputError(f"{owner}: {name} {labels[j]} is {kinds[j]} but was {fitted[j]} at fit; give every "
                             "column the type it had when the estimator was fitted")
    _check_finite(cols, name, owner, labels, allow_nan)
    if categorical:
        names = [str(c) for c in raw.columns] if isinstance(raw, pd.DataFrame) else [f"x{j}" for j in range(d)]
        data = {}
        fitted_cats = {} if reset else dict(getattr(estimator, "_feature_categories", {}))
        for j, (k, v) in enumerate(cols):
            if k == "numeric":
                data[j] = v if getattr(v, "dtype", None) == bool else np.asarray(v, dtype=float)
                continue
            cat = pd.Categorical(v)
            if j in fitted_cats:  # the categories of fit first, so category codes mean the same as at fit
                known = list(fitted_cats[j])
                seen = set(known)
                extra = [c for c in cat.categories if c not in seen]
                cat = pd.Categorical(np.asarray(v, dtype=object), categories=known + extra)
            data[j] = cat
        if reset:
            estimator._feature_categories = {j: list(c.categories) for j, c in data.items()
                                             if isinstance(c, pd.Categorical)}
        out = pd.DataFrame(data)
        out.columns = names
    else:
        out = np.column_stack([np.asarray(v, dtype=float) for _, v in cols])
    if isinstance(y, str) and y == NO_VALIDATION:
        return out
    yv = _check_y(y, n, owner)
    return out, yv


def _check_y(y: Any, n: int, owner: str) -> np.ndarray:
    from sklearn.utils.validation import column_or_1d

    if y is None:
        raise InputError(f"{owner} requires y to be passed, but the target y is None")
    if isinstance(y, (pd.DataFrame,)) and y.shape[1] == 1:
        y = y.iloc[:, 0]
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] != 1:
        raise InputError(f"{owner}: y must be 1-D (one label per row), got an array of shape {_shape_text(arr.shape)}")
    if arr.ndim == 0 or arr.ndim > 2:
        raise InputError(f"{owner}: y must be 1-D (one label per row), got shape {_shape_text(arr.shape)}")
    arr = column_or_1d(y if not isinstance(y, pd.DataFrame) else y.to_numpy(), warn=True)
    if arr.shape[0] != n:
        raise InputError(f"{owner}: y has {arr.shape[0]} labels but X has {n} rows; give one label per row")
    return arr


def encode_binary_target(estimator: Any, y: Any, *, n_samples: int | None = None,
                         allow_single_class: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The label encoder of the binary methods: ``(classes_, codes)`` with ``codes = (y == classes_[1])``.

    Any two labels are accepted (ints, strings, bools, ``{-1, 1}``, ...); ``classes_`` is
    ``numpy.unique(y)``, so predictions are ``classes_[code]``.

    Raises
    ------
    InputError
        NaN labels, continuous targets ("Unknown label type"), more than two classes (the
        message names them and points to ``OneVsRestClassifier``), a single class when
        ``allow_single_class`` is false, or labels of mixed types.
    """
    from sklearn.utils.multiclass import check_classification_targets

    owner = type(estimator).__name__
    arr = _check_y(y, len(y) if n_samples is None and hasattr(y, "__len__") else n_samples, owner) \
        if n_samples is not None else np.asarray(y).ravel()
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad = ~np.isfinite(arr)
        raise InputError(f"{owner}: y contains {int(bad.sum())} NaN or infinite label(s), first at row "
                         f"{int(np.flatnonzero(bad)[0])}; every row needs a label")
    if arr.dtype == object and pd.isna(pd.Series(arr)).any():
        i = int(np.flatnonzero(pd.isna(pd.Series(arr)).to_numpy())[0])
        raise InputError(f"{owner}: y contains missing labels (None/NaN), first at row {i}; every row needs a label")
    try:
        check_classification_targets(arr)
        classes = np.unique(arr)
    except ValueError as exc:
        raise InputError(f"{owner}: {exc}") from None
    except TypeError:
        kinds = sorted({type(v).__name__ for v in arr.tolist()})
        raise InputError(f"{owner}: y mixes label types ({', '.join(kinds)}); use one type for every label") from None
    if classes.size > 2:
        raise InputError(f"{owner}: Only binary classification is supported. The type of the target is "
                         f"multiclass: y has {classes.size} classes "
                         f"{classes.tolist()[:10]}{' ...' if classes.size > 10 else ''}. Binarize the target, or wrap "
                         "the estimator in sklearn.multiclass.OneVsRestClassifier for one model per class")
    if classes.size < 2 and not allow_single_class:
        raise InputError(f"{owner}: y has only one class {classes.tolist()}; two classes are required")
    codes = (arr == classes[-1]).astype(np.int8) if classes.size == 2 else np.zeros(arr.shape[0], dtype=np.int8)
    return classes, codes


class SingleClassWarning(UserWarning):
    """Labels of one class: the fitted model is the constant one (see the module's policy)."""


def warn_single_class(estimator: Any, classes: Any, *, stacklevel: int = 3) -> None:
    """Warn that ``estimator`` was fitted on labels of one class and predicts it everywhere."""
    labels = np.asarray(classes).tolist()
    warnings.warn(f"{type(estimator).__name__}: y has only one class {labels}; the model predicts it on every row "
                  "(a constant model, nothing was learned). Give labels of two classes to learn rules",
                  SingleClassWarning, stacklevel=stacklevel)


def check_fitted(estimator: Any, attributes: str | Sequence[str] | None = None) -> None:
    """Raise :class:`NotFittedError` unless ``estimator`` is fitted (scikit-learn's ``check_is_fitted`` rule)."""
    from sklearn.exceptions import NotFittedError as _SkNotFitted
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(estimator, attributes)
    except _SkNotFitted as exc:
        if isinstance(exc, NotFittedError):
            raise
        raise NotFittedError(str(exc)) from None


def fitted_names(estimator: Any) -> tuple[str, ...] | None:
    """The column names ``estimator`` was fitted on (``feature_names_in_``), or None for unnamed columns.

    Rules learned on named columns carry these names (``RuleSet``/``RuleList``/``Checklist``
    ``feature_names``), so that whoever reuses them on other data can match columns by name.
    """
    names = getattr(estimator, "feature_names_in_", None)
    return None if names is None else tuple(str(n) for n in names)


def render_names(estimator: Any, feature_names: Any = None) -> list[str]:
    """Names for rendering rules: ``feature_names``, else ``feature_names_in_``, else ``x0 .. x{d-1}``."""
    if feature_names is not None:
        return [str(f) for f in feature_names]
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        return [str(f) for f in names]
    return [f"x{j}" for j in range(int(getattr(estimator, "n_features_in_", 0)))]


# ============================================================================= solvers

_CAPABILITY_WORDS = {"lp": "LPs", "milp": "MILPs", "mixed_integer": "MILPs with continuous variables",
                     "duals": "LP duals",
                     "incremental": "an incremental model (columns added in place, warm re-solves)",
                     "warm_start": "MIP starts", "cutoff": "an objective cutoff", "solution_pool": "a solution pool",
                     "time_limit": "a time limit", "node_limit": "a node limit (work)",
                     "iteration_limit": "an iteration limit (work)"}


def solver_capabilities(name: str) -> dict | None:
    """The capabilities (``lp``, ``milp``, ``duals``, ``incremental``, ...) of a solver name; None if unknown.

    Availability on this machine is not probed (a config may be run elsewhere, e.g. on a
    Dask cluster); the solve itself reports an unavailable solver.
    """
    from interpretopt.solvers import _base

    backend = _base._lookup(name) if isinstance(name, str) and name else None
    if backend is None:
        return None
    return backend.capabilities.as_dict()


def check_solver(name: Any, needs: Sequence[str], *, owner: str, what: str = "solver") -> str:
    """``name`` if it is a solver that can do everything in ``needs`` (``lp``, ``milp``, ``duals``).

    Raises
    ------
    ParameterError
        An unknown name (listing the known solvers that qualify) or a solver lacking a
        capability (saying which, and which solvers have it). Never substitutes another solver.
    """
    from interpretopt.solvers import PYOMO_SOLVER_NAMES, SOLVERS

    known = list(SOLVERS.names()) + [n for n in PYOMO_SOLVER_NAMES if n not in SOLVERS]

    def qualifying() -> str:
        ok = []
        for n in known:
            caps = solver_capabilities(n)
            if caps is not None and all(caps[k] for k in needs):
                ok.append(n)
        return ", ".join(ok)

    if not isinstance(name, str) or not name:
        raise ParameterError(f"{owner}: {what} must be a solver name, got {name!r}; solvers that qualify: {qualifying()}")
    caps = solver_capabilities(name)
    if caps is None:
        raise ParameterError(f"{owner}: unknown {what} {name!r}{did_you_mean(name, known)}; solvers that qualify: "
                             f"{qualifying()}")
    missing = [k for k in needs if not caps[k]]
    if missing:
        raise ParameterError(f"{owner} cannot use {what} {name!r}: it does not provide "
                             f"{' or '.join(_CAPABILITY_WORDS[k] for k in missing)}, which {owner} needs; solvers "
                             f"that qualify: {qualifying()}")
    return name


def check_solver_available(name: str, *, owner: str, what: str = "solver") -> str:
    """``name`` if that solver can run on this machine, checked before an estimator does any work.

    Config validation does not probe availability (a config may run elsewhere); a ``fit``
    runs here, so it refuses an unavailable solver up front instead of failing after its
    sampling or search.

    Raises
    ------
    SolverError
        Naming the solver, why it cannot run here, and the solvers that can.
    """
    from interpretopt.exceptions import SolverError
    from interpretopt.solvers import get_solver

    try:
        get_solver(name)
    except SolverError as exc:
        raise SolverError(f"{owner}: {what} {name!r} cannot run here: {exc}") from None
    return name
