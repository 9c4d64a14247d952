"""Interpretable models made of rules: DNF rule sets, ordered rule lists, checklists.

- :class:`RuleSet` predicts 1 when any of its conjunctions holds (disjunctive normal form).
- :class:`RuleList` predicts the label of the first rule that holds, else a default.
- :class:`Checklist` holds when at least ``threshold`` of its K conditions hold.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from interpretopt.exceptions import InputError
from interpretopt.rules._condition import Condition, Conjunction, as_matrix, format_value
from interpretopt.rules._coverage import coverage_matrix, first_cover

__all__ = ["RuleSet", "RuleList", "Checklist"]


def _as_conjunction(r: Any) -> Conjunction:
    if isinstance(r, Conjunction):
        return r
    if isinstance(r, Condition):
        return Conjunction((r,))
    if hasattr(r, "conjunction") and isinstance(r.conjunction, Conjunction):
        return r.conjunction
    if isinstance(r, Iterable) and not isinstance(r, (str, bytes)):
        return Conjunction(tuple(r))
    raise InputError(f"a rule must be a Conjunction, a Condition or an iterable of Conditions, got {r!r}")


def _as_rules(rules: Any, owner: str) -> tuple[Conjunction, ...]:
    if isinstance(rules, (Conjunction, Condition)):
        rules = (rules,)
    if isinstance(rules, (str, bytes)) or not isinstance(rules, Iterable):
        raise InputError(f"{owner} takes an iterable of rules (Conjunction objects), got {type(rules).__name__}")
    return tuple(_as_conjunction(r) for r in rules)


def _label_text(label: Any, class_names: Any) -> str:
    if class_names is None:
        return format_value(label) if isinstance(label, numbers.Number) else str(label)
    if isinstance(class_names, Mapping):
        return str(class_names.get(label, label))
    try:
        return str(class_names[int(label)])
    except (TypeError, ValueError, IndexError):
        return str(label)


def _feature_names(obj: Any, features: Iterable[int]) -> None:
    """Normalize ``obj.feature_names`` to a tuple of str (or None); every used feature must have a name."""
    names = obj.feature_names
    if names is None:
        return
    owner = type(obj).__name__
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise InputError(f"{owner} feature_names must be a sequence of column names, got {names!r}")
    names = tuple(str(n) for n in names)
    object.__setattr__(obj, "feature_names", names)
    bad = [f for f in features if f >= len(names)]
    if bad:
        raise InputError(f"{owner}: a rule uses feature {bad[0]} but only {len(names)} feature names are given "
                         f"({', '.join(names[:8])})")


class _Rendered:
    """What the rule models share about text: ``str(model)`` is ``model.render()``, and ``render``
    falls back to the names the model was learned with (its ``feature_names``)."""

    __slots__ = ()

    def _feature_names_or_own(self, feature_names: Sequence[str] | None) -> Sequence[str] | None:
        return self.feature_names if feature_names is None else feature_names

    def __str__(self) -> str:
        return self.render()


class _Rules(_Rendered):
    """What RuleSet and RuleList share about size: a model held as conjunctions in ``self.rules``."""

    __slots__ = ()

    def __len__(self) -> int:
        return len(self.rules)

    @property
    def n_rules(self) -> int:
        """Number of rules (conjunctions)."""
        return len(self.rules)

    @property
    def n_conditions(self) -> int:
        """Total number of conditions over all rules (the usual complexity measure)."""
        return sum(len(r) for r in self.rules)


@dataclass(frozen=True, eq=False)
class RuleSet(_Rules):
    """A DNF rule set: predicts 1 on a sample when any rule holds, else 0.

    The rules keep the order given (so that ``rules[k]`` matches column ``k`` of
    :meth:`coverage`), but equality and hashing ignore order and duplicates: two rule sets
    are equal when they hold the same rules.

    Parameters
    ----------
    rules : iterable of Conjunction
        ``Condition`` objects and iterables of conditions are converted.
    feature_names : sequence of str, optional
        The names of the columns the conditions' feature indices refer to, when the rules
        were learned on named columns (a DataFrame); used when rendering and checked by
        whoever reuses the rules on other data (a grounding matches features by name).
        Not part of equality: two rule sets with the same rules are equal.
    """

    rules: tuple[Conjunction, ...] = field(default=())
    feature_names: tuple[str, ...] | None = field(default=None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", _as_rules(self.rules, "RuleSet"))
        _feature_names(self, self.features)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RuleSet):
            return NotImplemented
        return frozenset(self.rules) == frozenset(other.rules)

    def __hash__(self) -> int:
        return hash(("RuleSet", frozenset(self.rules)))

    def __iter__(self):
        return iter(self.rules)

    def __getitem__(self, k: int) -> Conjunction:
        return self.rules[k]

    @property
    def features(self) -> tuple[int, ...]:
        """The distinct features used by any rule, sorted."""
        return tuple(sorted({f for r in self.rules for f in r.features}))

    def canonical(self) -> RuleSet:
        """The same rule set with rules deduplicated and sorted (shortest first)."""
        return RuleSet(tuple(sorted(set(self.rules), key=Conjunction.sort_key)), self.feature_names)

    def add(self, rule: Conjunction | Condition) -> RuleSet:
        """A new rule set with ``rule`` appended."""
        return RuleSet(self.rules + (_as_conjunction(rule),), self.feature_names)

    def coverage(self, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
        """Boolean coverage (n, k): column k is rule k's mask.

        With ``conditions`` (a binarizer's ``conditions_``), ``X`` is the binarized matrix.
        """
        return coverage_matrix(self.rules, X, conditions=conditions)

    def evaluate(self, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
        """Boolean (n,): some rule holds."""
        X = as_matrix(X)
        if not self.rules:
            return np.zeros(X.shape[0], dtype=bool)
        return self.coverage(X, conditions=conditions).any(axis=1)

    def predict(self, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
        """int8 (n,): 1 when some rule holds, else 0."""
        return self.evaluate(X, conditions=conditions).astype(np.int8)

    def render(self, feature_names: Sequence[str] | None = None, *, positive: Any = 1, negative: Any = 0) -> str:
        """Multi-line text: ``predict 1 if any of these k rule(s) holds:``, the numbered rules, ``else predict 0``."""
        pos, neg = _label_text(positive, None), _label_text(negative, None)
        feature_names = self._feature_names_or_own(feature_names)
        if not self.rules:
            return f"predict {neg} (no rules)"
        lines = [f"predict {pos} if any of these {len(self.rules)} rule(s) holds:"]
        lines += [f"  {k + 1}. {r.render(feature_names)}" for k, r in enumerate(self.rules)]
        lines.append(f"else predict {neg}")
        return "\n".join(lines)


@dataclass(frozen=True)
class RuleList(_Rules):
    """An ordered rule list: the label of the first rule that holds, else ``default``.

    Parameters
    ----------
    rules : iterable of Conjunction
    labels : iterable
        One label per rule.
    default : label
        Predicted when no rule holds.
    feature_names : sequence of str, optional
        Names of the columns the feature indices refer to (rules learned on named columns);
        used when rendering; not part of equality.
    """

    rules: tuple[Conjunction, ...]
    labels: tuple[Any, ...]
    default: Any
    feature_names: tuple[str, ...] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        rules = _as_rules(self.rules, "RuleList")
        labels = self.labels
        if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
            raise InputError(f"RuleList labels must be a sequence with one label per rule, got {labels!r}")
        labels = tuple(v.item() if isinstance(v, np.generic) else v for v in labels)
        if len(labels) != len(rules):
            raise InputError(f"RuleList has {len(rules)} rules but {len(labels)} labels; give one label per rule")
        default = self.default.item() if isinstance(self.default, np.generic) else self.default
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "default", default)
        _feature_names(self, {f for r in rules for f in r.features})

    def coverage(self, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
        """Boolean coverage (n, k) of every rule, ignoring the order (binarized ``X`` with ``conditions``)."""
        return coverage_matrix(self.rules, X, conditions=conditions)

    def first_cover(self, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
        """Index (n,) of the first rule that holds per sample; -1 when none (the default applies)."""
        X = as_matrix(X)
        return first_cover(self.coverage(X, conditions=conditions))

    def captured(self, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
        """Boolean coverage (n, k) where sample i counts only for the first rule that holds."""
        fc = self.first_cover(X, conditions=conditions)
        out = np.zeros((fc.shape[0], len(self.rules)), dtype=bool)
        hit = fc >= 0
        out[np.nonzero(hit)[0], fc[hit]] = True
        return out

    def predict(self, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
        """Labels (n,): the first covering rule's label, else the default."""
        fc = self.first_cover(X, conditions=conditions)
        table = np.asarray(list(self.labels) + [self.default])
        return table[np.where(fc < 0, len(self.labels), fc)]

    def render(self, feature_names: Sequence[str] | None = None, *, class_names: Any = None) -> str:
        """``IF r1 THEN a / ELSE IF r2 THEN b / ELSE default``, one branch per line."""
        feature_names = self._feature_names_or_own(feature_names)
        lines = []
        for k, (r, lab) in enumerate(zip(self.rules, self.labels)):
            head = "IF" if k == 0 else "ELSE IF"
            lines.append(f"{head} {r.render(feature_names)} THEN {_label_text(lab, class_names)}")
        default = _label_text(self.default, class_names)
        lines.append(f"ELSE {default}" if lines else f"ALWAYS {default}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Checklist(_Rendered):
    """K conditions and a threshold t: a sample passes when at least t conditions hold.

    Parameters
    ----------
    conditions : iterable of Condition (or Conjunction, each counting as one item)
    threshold : int
        0 <= t <= K.
    feature_names : sequence of str, optional
        Names of the columns the feature indices refer to (learned on named columns); used
        when rendering; not part of equality.
    """

    conditions: tuple[Condition | Conjunction, ...]
    threshold: int
    feature_names: tuple[str, ...] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        conds = self.conditions
        if isinstance(conds, (Condition, Conjunction)):
            conds = (conds,)
        if isinstance(conds, (str, bytes)) or not isinstance(conds, Iterable):
            raise InputError(f"Checklist takes an iterable of Condition objects, got {type(conds).__name__}")
        items = []
        for c in conds:
            if not isinstance(c, (Condition, Conjunction)):
                if isinstance(c, tuple) and len(c) == 3:
                    c = Condition(*c)
                else:
                    raise InputError(f"Checklist items must be Condition or Conjunction objects, got {c!r}")
            items.append(c)
        t = self.threshold
        if isinstance(t, bool) or not isinstance(t, numbers.Integral):
            raise InputError(f"Checklist threshold must be an integer, got {t!r}")
        if not 0 <= t <= len(items):
            raise InputError(f"Checklist threshold must be in [0, {len(items)}] for {len(items)} conditions, got {t}")
        object.__setattr__(self, "conditions", tuple(items))
        _feature_names(self, {f for c in items for f in ((c.feature,) if isinstance(c, Condition) else c.features)})
        object.__setattr__(self, "threshold", int(t))

    def __len__(self) -> int:
        return len(self.conditions)

    @property
    def n_conditions(self) -> int:
        return len(self.conditions)

    def coverage(self, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
        """Boolean (n, K): which conditions hold on each sample (binarized ``X`` with ``conditions``)."""
        return coverage_matrix(list(self.conditions), X, conditions=conditions)

    def count(self, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
        """Number of conditions that hold per sample, int (n,)."""
        return self.coverage(X, conditions=conditions).sum(axis=1, dtype=np.int64)

    def evaluate(self, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
        """Boolean (n,): at least ``threshold`` conditions hold."""
        return self.count(X, conditions=conditions) >= self.threshold

    def predict(self, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
        """int8 (n,) version of :meth:`evaluate`."""
        return self.evaluate(X, conditions=conditions).astype(np.int8)

    def render(self, feature_names: Sequence[str] | None = None) -> str:
        """``at least t of these K conditions:`` followed by one condition per line."""
        feature_names = self._feature_names_or_own(feature_names)
        lines = [f"at least {self.threshold} of these {len(self.conditions)} conditions:"]
        lines += [f"  [ ] {c.render(feature_names)}" for c in self.conditions]
        return "\n".join(lines)
