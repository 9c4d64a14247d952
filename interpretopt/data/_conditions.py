"""Condition tables over a numeric matrix: the binarization of ABBR's searches (Yao et al., TMLR
2025, Sections 4.3.1 and 4.4.1).

Conditions are plain tuples ``(feature, op, value)`` over feature indices, with ``op`` one of
``"<=", ">", "<", ">=", "==", "!="``. A discrete feature gives ``==`` per value; a numerical
one ``<=`` and ``>`` at quantile thresholds (the family's
:func:`interpretopt.data._binarize.quantile_thresholds`). :class:`ConditionTable` holds the
conditions with their coverage; :mod:`interpretopt.heuristics.abbr_search` builds rules and
checklists from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from interpretopt.data._binarize import quantile_thresholds
from interpretopt.exceptions import InputError

__all__ = [
    "Cond",
    "ConditionTable",
    "checklist_conditions",
    "discrete_mask",
    "evaluate_condition",
    "threshold_conditions",
]

Cond = tuple  # (feature: int, op: str, value: float)

_OPS = ("<=", ">", "<", ">=", "==", "!=")


def evaluate_condition(X: np.ndarray, cond: Cond) -> np.ndarray:
    """Boolean (n,) coverage of one condition on a numeric matrix."""
    f, op, v = cond
    col = X[:, f]
    if op == "<=":
        return col <= v
    if op == ">":
        return col > v
    if op == "<":
        return col < v
    if op == ">=":
        return col >= v
    if op == "==":
        return col == v
    if op == "!=":
        return col != v
    raise InputError(f"unknown condition operator {op!r}; valid: {_OPS}")


def discrete_mask(X: np.ndarray, discrete=None, max_values: int = 10) -> np.ndarray:
    """Which features are discrete: the given indices/mask, else those with <= max_values distinct values."""
    d = X.shape[1]
    if discrete is None or (isinstance(discrete, str) and discrete == "auto"):
        return np.array([np.unique(X[:, j]).size <= max_values for j in range(d)], dtype=bool)
    arr = np.asarray(discrete)
    if arr.dtype == bool:
        if arr.shape != (d,):
            raise InputError(f"discrete mask has shape {arr.shape}; expected ({d},)")
        return arr
    mask = np.zeros(d, dtype=bool)
    mask[arr.astype(int)] = True
    return mask


@dataclass
class ConditionTable:
    """Conditions and their coverage (J, n) on the training samples."""

    conditions: list
    cover: np.ndarray  # bool (J, n)
    #: |C| before the filter of eq. 11 (-1: unknown), seconds per phase, key set by the estimator
    n_raw: int = -1
    timings: dict = field(default_factory=dict)
    key: str | None = None

    def __len__(self) -> int:
        return len(self.conditions)

    def subset(self, idx) -> "ConditionTable":
        idx = np.asarray(idx, dtype=int)
        return ConditionTable([self.conditions[i] for i in idx], self.cover[idx], self.n_raw, dict(self.timings),
                              self.key)


def _table(X: np.ndarray, conds: list) -> ConditionTable:
    cover = np.empty((len(conds), X.shape[0]), dtype=bool)
    for i, c in enumerate(conds):
        cover[i] = evaluate_condition(X, c)
    return ConditionTable(list(conds), cover)


def _quantile_thresholds(col: np.ndarray, qs) -> list[float]:
    # a threshold at the maximum would give an empty ">" condition (the family's rule)
    return [float(v) for v in quantile_thresholds(col, qs)]


def threshold_conditions(X: np.ndarray, discrete: np.ndarray, n_thresholds: int = 9) -> ConditionTable:
    """Conditions for exhaustive enumeration: ``==`` per value of a discrete feature; ``<=`` and ``>``
    at the k/(n_thresholds+1) quantiles of a numerical one."""
    return checklist_conditions(X, discrete, np.arange(1, n_thresholds + 1) / (n_thresholds + 1))


def checklist_conditions(X: np.ndarray, discrete: np.ndarray,
                         quantiles=(0.2, 0.4, 0.6, 0.8)) -> ConditionTable:
    """Section 4.4.1: ``==`` for every value of a discrete feature, ``<=`` and ``>`` at the 1/5..4/5
    quantiles of a numerical one."""
    conds: list = []
    for j in range(X.shape[1]):
        col = X[:, j]
        if discrete[j]:
            conds += [(j, "==", float(v)) for v in np.unique(col)]
        else:
            for t in _quantile_thresholds(col, quantiles):
                conds += [(j, "<=", t), (j, ">", t)]
    return _table(X, conds)
