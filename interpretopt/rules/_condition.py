"""Conditions and conjunctions over feature indices.

A :class:`Condition` is a literal ``x_j op v`` with ``op`` one of ``<=, >, <, >=, ==, !=``;
``v`` is a number (every op) or a category label such as a string (``==`` and ``!=`` only).
A :class:`Conjunction` is a rule: the AND of its conditions, kept in a canonical order
(sorted, duplicates removed) so that two rules with the same literals are equal and hash
alike. The empty conjunction is always true.

Evaluation is vectorized over the rows of a raw 2-D matrix: a numpy array or a pandas
DataFrame, whose column ``j`` is taken by position. Comparisons with a missing value (NaN)
are false, except ``!=`` which is true, as in numpy.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from interpretopt.exceptions import InputError

__all__ = ["OPS", "Condition", "Conjunction", "as_matrix", "format_value", "feature_name"]

#: The comparison operators a condition may use, in canonical order.
OPS: tuple[str, ...] = ("<=", ">", "<", ">=", "==", "!=")
_ORDER_OPS = frozenset({"<=", ">", "<", ">="})
_NEGATION = {"<=": ">", ">": "<=", "<": ">=", ">=": "<", "==": "!=", "!=": "=="}


# ----------------------------------------------------------------------------- helpers
def as_matrix(X: Any, name: str = "X") -> np.ndarray | pd.DataFrame:
    """Return ``X`` as a 2-D numpy array or DataFrame (left as is), else raise :class:`InputError`."""
    if isinstance(X, pd.DataFrame):
        return X
    if isinstance(X, pd.Series):
        raise InputError(f"{name} must be 2-D (n_samples, n_features), got a pandas Series; use X.to_frame()")
    arr = np.asarray(X)
    if arr.dtype.kind in "US" and not isinstance(X, np.ndarray):
        arr = np.asarray(X, dtype=object)  # nested lists of mixed values: keep numbers as numbers
    if arr.ndim != 2:
        hint = "; use X.reshape(-1, 1) for a single feature" if arr.ndim == 1 else ""
        raise InputError(f"{name} must be 2-D (n_samples, n_features), got shape {arr.shape}{hint}")
    return arr


def _n_columns(X: np.ndarray | pd.DataFrame) -> int:
    return X.shape[1]


def feature_name(j: int, feature_names: Sequence[str] | None) -> str:
    """Name of feature ``j``: ``feature_names[j]`` or ``x{j}``."""
    if feature_names is None:
        return f"x{j}"
    if j >= len(feature_names):
        raise InputError(f"feature index {j} is out of range for {len(feature_names)} feature names")
    return str(feature_names[j])


def format_value(v: Any) -> str:
    """Render a threshold compactly: integers as integers, floats with up to 8 significant digits."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        v = float(v) + 0.0  # -0.0 renders as 0
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v == 0 or 1e-4 <= abs(v) < 1e7:
            return np.format_float_positional(v, precision=8, unique=True, fractional=False, trim="-")
        return f"{v:.6g}"
    return str(v)


def _normalize_value(v: Any) -> Any:
    """numpy scalars -> Python scalars, so equality, hashing and repr are plain."""
    if isinstance(v, np.generic):
        v = v.item()
    return v


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real)


def _value_key(v: Any) -> tuple:
    """A total order over mixed values: numbers first (by value), then others by type and text."""
    if _is_number(v):
        return (0, float(v), "")
    return (1, 0.0, f"{type(v).__name__}:{v}")


# ----------------------------------------------------------------------------- Condition
@dataclass(frozen=True)
class Condition:
    """A literal ``x[feature] op value``.

    Parameters
    ----------
    feature : int
        Column index (>= 0) in the raw feature matrix.
    op : str
        One of ``"<=", ">", "<", ">=", "==", "!="``.
    value : number or str
        Threshold (any op) or category label (``==`` / ``!=`` only). NaN is not allowed.

    Examples
    --------
    >>> c = Condition(0, "<=", 30.5)
    >>> c.render(["age"])
    'age <= 30.5'
    >>> c.negate()
    Condition(feature=0, op='>', value=30.5)
    """

    feature: int
    op: str
    value: Any

    def __post_init__(self) -> None:
        f = self.feature
        if isinstance(f, bool) or not isinstance(f, numbers.Integral):
            raise InputError(f"Condition feature must be a non-negative integer index, got {f!r}")
        if f < 0:
            raise InputError(f"Condition feature index must be >= 0, got {f}")
        object.__setattr__(self, "feature", int(f))
        if self.op not in OPS:
            raise InputError(f"unknown condition operator {self.op!r}; valid operators: {', '.join(OPS)}")
        v = _normalize_value(self.value)
        if v is None:
            raise InputError("Condition value must be a number or a category label, got None")
        if _is_number(v) and not isinstance(v, bool) and math.isnan(float(v)):
            raise InputError(f"Condition value is NaN for feature {f}; use a finite threshold")
        if self.op in _ORDER_OPS and not _is_number(v):
            raise InputError(
                f"operator {self.op!r} needs a numeric value, got {v!r} (feature {f}); "
                "use '==' or '!=' for category labels"
            )
        try:
            hash(v)
        except TypeError:
            raise InputError(f"Condition value must be hashable (a number or a label), got {type(v).__name__}") from None
        object.__setattr__(self, "value", v)

    # -- ordering used for the canonical form of conjunctions
    def sort_key(self) -> tuple:
        """Key of the canonical order: feature, operator, value."""
        return (self.feature, OPS.index(self.op), _value_key(self.value))

    @property
    def is_categorical(self) -> bool:
        """True when the value is not a number (an ``==`` / ``!=`` test on a label)."""
        return not _is_number(self.value)

    def negate(self) -> Condition:
        """The complementary literal (``<=`` <-> ``>``, ``<`` <-> ``>=``, ``==`` <-> ``!=``)."""
        return Condition(self.feature, _NEGATION[self.op], self.value)

    def __invert__(self) -> Condition:
        return self.negate()

    def __and__(self, other: Condition | Conjunction) -> Conjunction:
        return Conjunction((self,)) & other

    def holds(self, x: Any) -> bool:
        """Whether a single scalar value ``x`` satisfies the condition."""
        x = _normalize_value(x)
        v = self.value
        if self.op in ("==", "!="):
            eq = x == v and (_is_number(x) == _is_number(v))
            return bool(eq) if self.op == "==" else not bool(eq)
        if not _is_number(x):
            return False
        x = float(x)
        if self.op == "<=":
            return x <= v
        if self.op == "<":
            return x < v
        if self.op == ">":
            return x > v
        return x >= v

    def evaluate(self, X: Any) -> np.ndarray:
        """Boolean mask (n,) of the rows of ``X`` (2-D array or DataFrame) that satisfy the condition."""
        X = as_matrix(X)
        if self.feature >= _n_columns(X):
            raise InputError(
                f"condition {self.render()} refers to feature {self.feature} but X has {_n_columns(X)} columns"
            )
        col = X.iloc[:, self.feature] if isinstance(X, pd.DataFrame) else X[:, self.feature]
        return _compare(col, self.op, self.value, self.feature)

    def render(self, feature_names: Sequence[str] | None = None) -> str:
        """Text such as ``'age <= 30.5'`` (feature ``x{j}`` when no names are given)."""
        return f"{feature_name(self.feature, feature_names)} {self.op} {format_value(self.value)}"

    def __str__(self) -> str:
        return self.render()


def _column_values(col: Any) -> np.ndarray:
    if isinstance(col, pd.Series):
        if isinstance(col.dtype, pd.CategoricalDtype):
            return np.asarray(col.astype(object))
        if isinstance(col.dtype, pd.api.extensions.ExtensionDtype) and pd.api.types.is_numeric_dtype(col.dtype) \
                and not pd.api.types.is_bool_dtype(col.dtype):
            return col.to_numpy(dtype=float, na_value=np.nan)  # nullable Int64/Float64: <NA> -> NaN
        return col.to_numpy()
    return np.asarray(col)


def _compare(col: Any, op: str, v: Any, feature: int) -> np.ndarray:
    arr = _column_values(col)
    kind = arr.dtype.kind
    if op in ("==", "!="):
        if kind in "biuf":  # numeric column
            eq = arr == v if _is_number(v) else np.zeros(arr.shape, dtype=bool)
        elif kind in "US":
            eq = arr == v if isinstance(v, str) else np.zeros(arr.shape, dtype=bool)
        else:  # object: elementwise, numbers only equal numbers
            if _is_number(v):
                eq = np.fromiter((_is_number(a) and a == v for a in arr), dtype=bool, count=arr.size)
            else:
                eq = np.fromiter((a == v for a in arr), dtype=bool, count=arr.size)
        eq = np.asarray(eq, dtype=bool)
        return eq if op == "==" else ~eq
    # ordering operators need numbers
    if kind not in "biuf":
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError):
            raise InputError(
                f"feature {feature} is not numeric (dtype {arr.dtype}); condition 'x{feature} {op} {format_value(v)}' "
                "needs numbers; encode the column or use '==' / '!=' on labels"
            ) from None
    with np.errstate(invalid="ignore"):
        if op == "<=":
            return arr <= v
        if op == "<":
            return arr < v
        if op == ">":
            return arr > v
        return arr >= v


# ----------------------------------------------------------------------------- Conjunction
def _as_condition(c: Any) -> Condition:
    if isinstance(c, Condition):
        return c
    if isinstance(c, tuple) and len(c) == 3:
        return Condition(*c)
    raise InputError(f"a conjunction holds Condition objects (or (feature, op, value) tuples), got {c!r}")


@dataclass(frozen=True)
class Conjunction:
    """A rule: the AND of its conditions, in canonical order (sorted, no duplicates).

    Parameters
    ----------
    conditions : iterable of Condition
        The literals; ``(feature, op, value)`` tuples are accepted. Empty means always true.

    Examples
    --------
    >>> r = Conjunction([Condition(1, ">", 2), Condition(0, "<=", 30.5)])
    >>> r.render(["age", "income"])
    'age <= 30.5 AND income > 2'
    >>> Conjunction([Condition(0, "<=", 1), Condition(0, ">", 1)]).is_satisfiable()
    False
    """

    conditions: tuple[Condition, ...] = field(default=())

    def __post_init__(self) -> None:
        conds = self.conditions
        if isinstance(conds, Condition):
            conds = (conds,)
        if isinstance(conds, (str, bytes)) or not isinstance(conds, Iterable):
            raise InputError(f"Conjunction takes an iterable of Condition objects, got {type(conds).__name__}")
        uniq = {_as_condition(c) for c in conds}
        object.__setattr__(self, "conditions", tuple(sorted(uniq, key=Condition.sort_key)))

    # -- container protocol
    def __len__(self) -> int:
        return len(self.conditions)

    def __iter__(self) -> Iterator[Condition]:
        return iter(self.conditions)

    def __contains__(self, c: object) -> bool:
        return c in self.conditions

    def sort_key(self) -> tuple:
        """Key of a canonical order over rules: length, then the conditions' keys."""
        return (len(self.conditions), tuple(c.sort_key() for c in self.conditions))

    @property
    def features(self) -> tuple[int, ...]:
        """The distinct feature indices the rule tests, sorted."""
        return tuple(sorted({c.feature for c in self.conditions}))

    # -- algebra
    def intersect(self, other: Conjunction | Condition) -> Conjunction:
        """The conjunction of both rules (their conditions together)."""
        if isinstance(other, Condition):
            other = Conjunction((other,))
        if not isinstance(other, Conjunction):
            raise InputError(f"can only intersect with a Conjunction or Condition, got {type(other).__name__}")
        return Conjunction(self.conditions + other.conditions)

    def __and__(self, other: Conjunction | Condition) -> Conjunction:
        return self.intersect(other)

    def is_satisfiable(self) -> bool:
        """Whether some point satisfies every condition (the conjunction is not empty).

        Each feature is checked on its own: the ordering conditions give an interval whose
        ends are open or closed (``x <= 1 AND x > 1`` is empty, ``x <= 1 AND x >= 1`` is the
        point 1); an ``==`` must agree with every other condition on its feature; ``!=``
        removes single points (which empties only a degenerate interval). Category labels
        never satisfy ordering conditions.
        """
        return all(_feature_satisfiable(group) for group in self._by_feature().values())

    def simplify(self) -> Conjunction:
        """An equivalent rule with redundant bounds removed (tightest lower/upper bound per feature).

        Unsatisfiable rules are returned unchanged.
        """
        if not self.is_satisfiable():
            return self
        out: list[Condition] = []
        for f, group in self._by_feature().items():
            eqs = [c for c in group if c.op == "=="]
            if eqs:
                out.append(eqs[0])
                continue
            lo, lo_strict, hi, hi_strict = _bounds(group)
            if lo is not None:
                out.append(Condition(f, ">" if lo_strict else ">=", lo))
            if hi is not None:
                out.append(Condition(f, "<" if hi_strict else "<=", hi))
            for c in group:
                if c.op != "!=":
                    continue
                if _is_number(c.value):
                    v = float(c.value)
                    inside = (lo is None or v > lo or (v == lo and not lo_strict)) and (
                        hi is None or v < hi or (v == hi and not hi_strict))
                    if inside:
                        out.append(c)
                elif lo is None and hi is None:
                    out.append(c)  # with ordering bounds a label is excluded anyway
        return Conjunction(out)

    def intervals(self) -> dict[int, tuple[float, bool, float, bool]]:
        """Tightest bounds per feature from the ordering conditions.

        Returns
        -------
        dict
            ``feature -> (lower, lower_strict, upper, upper_strict)``; a missing side is
            ``-inf`` / ``inf`` (not strict). Only features with an ordering condition appear;
            ``==`` / ``!=`` conditions are not folded in.
        """
        out: dict[int, tuple[float, bool, float, bool]] = {}
        for f, group in self._by_feature().items():
            if not any(c.op in _ORDER_OPS for c in group):
                continue
            lo, lo_strict, hi, hi_strict = _bounds(group)
            out[f] = (-math.inf if lo is None else lo, lo_strict, math.inf if hi is None else hi, hi_strict)
        return out

    def _by_feature(self) -> dict[int, list[Condition]]:
        groups: dict[int, list[Condition]] = {}
        for c in self.conditions:
            groups.setdefault(c.feature, []).append(c)
        return groups

    # -- evaluation and rendering
    def evaluate(self, X: Any) -> np.ndarray:
        """Boolean mask (n,) of the rows of ``X`` that satisfy every condition."""
        X = as_matrix(X)
        out = np.ones(X.shape[0], dtype=bool)
        for c in self.conditions:
            out &= c.evaluate(X)
        return out

    def holds(self, x: Sequence[Any]) -> bool:
        """Whether one sample (a 1-D sequence of feature values) satisfies the rule."""
        return all(c.holds(x[c.feature]) for c in self.conditions)

    def render(self, feature_names: Sequence[str] | None = None) -> str:
        """``'c1 AND c2 AND ...'``; the empty rule renders as ``'true'``."""
        if not self.conditions:
            return "true"
        return " AND ".join(c.render(feature_names) for c in self.conditions)

    def __str__(self) -> str:
        return self.render()


def _bounds(group: Iterable[Condition]) -> tuple[float | None, bool, float | None, bool]:
    """Tightest (lower, lower_strict, upper, upper_strict) of a feature's ordering conditions."""
    lo: float | None = None
    lo_strict = False
    hi: float | None = None
    hi_strict = False
    for c in group:
        if c.op not in _ORDER_OPS:
            continue
        v = float(c.value)
        if c.op in (">", ">="):
            strict = c.op == ">"
            if lo is None or v > lo or (v == lo and strict):
                lo, lo_strict = v, strict
        else:
            strict = c.op == "<"
            if hi is None or v < hi or (v == hi and strict):
                hi, hi_strict = v, strict
    return lo, lo_strict, hi, hi_strict


def _feature_satisfiable(group: list[Condition]) -> bool:
    eq_values = {(_is_number(c.value), c.value) for c in group if c.op == "=="}
    if len(eq_values) > 1:
        return False
    if eq_values:
        (_, v), = eq_values
        return all(c.holds(v) for c in group)
    has_order = any(c.op in _ORDER_OPS for c in group)
    if not has_order:
        return True  # only '!=' literals: infinitely many other values remain
    lo, lo_strict, hi, hi_strict = _bounds(group)
    if lo is None:
        lo, lo_strict = -math.inf, False
    if hi is None:
        hi, hi_strict = math.inf, False
    if lo > hi:
        return False
    if lo < hi:
        return True  # an interval of positive length: finitely many '!=' cannot empty it
    if lo_strict or hi_strict:
        return False
    # a single point lo == hi: it must not be excluded by a '!='
    return all(c.holds(lo) for c in group if c.op == "!=")
