r"""Rule-set comparison: semantic and statistical similarity with an explicit matching.

From "What changed? Interpretable model comparison", Section 3.3.

Literal similarity ``L(a, b)`` of two conditions ``<variable, operator, value>``:

* 0.0 different variables;
* 0.25 same variable, different operator;
* 0.5 same variable and operator, different value;
* 1.0 identical.

``<`` and ``<=`` count as the same operator, as do ``>`` and ``>=``; following the paper
("considered to be the same, falling in case (c)") such a pair scores 0.5 even when the
values agree, since the literals are not identical.

Semantic rule similarity of conjunctions with ``n`` and ``m`` literals:
``2 v* / (n + m)`` where ``v*`` is the best assignment of literals (rectangular
assignment, unmatched literals score 0). Statistical rule similarity: the Jaccard index
``|X(r1) ∩ X(r2)| / |X(r1) ∪ X(r2)|`` of the samples each rule covers (two rules that
cover no sample have identical coverage and score 1).

Rule-set similarity of ``R1`` (``m'`` rules) and ``R2`` (``n'`` rules): ``2 z* / (m' + n')``
with ``z*`` the best assignment of rules under either rule similarity; rules left over
in the larger set map to none. Both assignments use
``scipy.optimize.linear_sum_assignment`` on the rectangular similarity matrix.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from interpretopt.exceptions import InputError

__all__ = [
    "literal_similarity",
    "rule_similarity",
    "rule_similarity_matrix",
    "statistical_similarity",
    "statistical_similarity_matrix",
    "RuleMatch",
    "RuleSetMatching",
    "compare_rule_sets",
    "rule_set_similarity",
]

_OP_GROUP = {"<": "<=", "<=": "<=", ">": ">=", ">=": ">=", "==": "==", "!=": "!="}
SIMILARITIES = ("semantic", "statistical")


def _values_equal(a: Any, b: Any) -> bool:
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        return bool(np.isclose(float(a), float(b), rtol=1e-9, atol=1e-12))
    return a == b


def literal_similarity(a, b) -> float:
    """Similarity of two conditions: 0, 0.25, 0.5 or 1.0 (see the module docstring)."""
    if a.feature != b.feature:
        return 0.0
    if _OP_GROUP[a.op] != _OP_GROUP[b.op]:
        return 0.25
    if a.op == b.op and _values_equal(a.value, b.value):
        return 1.0
    return 0.5


def _assign(S: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Maximum-weight assignment on a rectangular matrix: (value, rows, cols)."""
    if S.size == 0:
        return 0.0, np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    rows, cols = linear_sum_assignment(S, maximize=True)
    return float(S[rows, cols].sum()), rows, cols


def _conditions(rule) -> tuple:
    return tuple(rule.conditions) if hasattr(rule, "conditions") else tuple(rule)


def rule_similarity(r1, r2, *, return_assignment: bool = False):
    """Semantic similarity ``2 v* / (n + m)`` of two conjunctions.

    Two empty (always-true) rules score 1; an empty rule against a non-empty one scores 0.
    With ``return_assignment=True`` returns ``(score, [(literal of r1, literal of r2 or None, L), ...])``.
    """
    a, b = _conditions(r1), _conditions(r2)
    n, m = len(a), len(b)
    if n + m == 0:
        score, pairs = 1.0, []
    else:
        L = np.array([[literal_similarity(x, z) for z in b] for x in a], dtype=float).reshape(n, m)
        v, rows, cols = _assign(L)
        score = 2.0 * v / (n + m)
        match = dict(zip(rows.tolist(), cols.tolist()))
        pairs = [(a[i], b[match[i]] if i in match else None, float(L[i, match[i]]) if i in match else 0.0)
                 for i in range(n)]
    return (score, pairs) if return_assignment else score


def rule_similarity_matrix(R1, R2) -> np.ndarray:
    """Pairwise semantic similarities (m', n')."""
    rules1, rules2 = _rules(R1), _rules(R2)
    return np.array([[rule_similarity(a, b) for b in rules2] for a in rules1], dtype=float).reshape(
        len(rules1), len(rules2))


def _coverage(rules, X) -> np.ndarray:
    if X is None:
        raise InputError("statistical similarity needs the data X whose samples the rules cover")
    cols = [np.asarray(r.evaluate(X), dtype=bool) for r in rules]
    n = X.shape[0]
    return np.stack(cols, axis=1) if cols else np.zeros((n, 0), dtype=bool)


def _jaccard(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    Af, Bf = A.astype(np.float64), B.astype(np.float64)
    inter = Af.T @ Bf
    union = Af.sum(axis=0)[:, None] + Bf.sum(axis=0)[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        S = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 1.0)
    return S


def statistical_similarity(r1, r2, X) -> float:
    """Jaccard index of the samples of ``X`` covered by each rule (1 when neither covers any)."""
    return float(_jaccard(_coverage([r1], X), _coverage([r2], X))[0, 0])


def statistical_similarity_matrix(R1, R2, X) -> np.ndarray:
    """Pairwise Jaccard similarities (m', n') on ``X``."""
    rules1, rules2 = _rules(R1), _rules(R2)
    return _jaccard(_coverage(rules1, X), _coverage(rules2, X)).reshape(len(rules1), len(rules2))


def _rules(R) -> tuple:
    if hasattr(R, "rules"):
        return tuple(R.rules)
    return tuple(R)


@dataclass(frozen=True)
class RuleMatch:
    """One row of a matching: rule ``i`` of the first set mapped to rule ``j`` of the second
    (``None`` on either side when unmatched) with similarity ``score``."""

    i: int | None
    j: int | None
    score: float
    rule1: Any = None
    rule2: Any = None


@dataclass(frozen=True)
class RuleSetMatching:
    """Result of :func:`compare_rule_sets`.

    Attributes
    ----------
    score : float
        ``2 z* / (m' + n')`` in [0, 1] (1 for two empty rule sets).
    similarity : {"semantic", "statistical"}
    matches : tuple of RuleMatch
        Matched pairs first (by index in the first set), then unmatched rules of either set.
    matrix : ndarray (m', n')
        Pairwise rule similarities.
    """

    score: float
    similarity: str
    matches: tuple
    matrix: np.ndarray = field(repr=False)
    n_rules1: int = 0
    n_rules2: int = 0

    def partner(self, i: int) -> tuple[int | None, float]:
        """The rule of the second set matched to rule ``i`` of the first, and their similarity."""
        for mt in self.matches:
            if mt.i == i:
                return mt.j, mt.score
        raise InputError(f"rule index {i} is out of range for a rule set of {self.n_rules1} rules")

    def to_frame(self, feature_names: Sequence[str] | None = None, names: tuple[str, str] = ("A", "B")) -> pd.DataFrame:
        """The matching as a table: one row per pair (or unmatched rule) with its similarity."""
        rows = []
        for mt in self.matches:
            rows.append({
                f"{names[0]} #": "" if mt.i is None else mt.i + 1,
                f"{names[0]} rule": "(none)" if mt.rule1 is None else mt.rule1.render(feature_names),
                f"{names[1]} #": "" if mt.j is None else mt.j + 1,
                f"{names[1]} rule": "(none)" if mt.rule2 is None else mt.rule2.render(feature_names),
                "similarity": round(mt.score, 4),
            })
        return pd.DataFrame(rows, columns=[f"{names[0]} #", f"{names[0]} rule", f"{names[1]} #",
                                           f"{names[1]} rule", "similarity"])

    def render(self, feature_names: Sequence[str] | None = None, names: tuple[str, str] = ("A", "B")) -> str:
        """Plain-text table of the matching with the overall score."""
        head = f"{self.similarity} rule-set similarity {self.score:.4f} ({self.n_rules1} vs {self.n_rules2} rules)"
        if not self.matches:
            return head + "\n(both rule sets are empty)"
        return head + "\n" + self.to_frame(feature_names, names).to_string(index=False)

    def __str__(self) -> str:
        return self.render()


def compare_rule_sets(R1, R2, *, similarity: str = "semantic", X=None) -> RuleSetMatching:
    """Match the rules of ``R1`` to those of ``R2`` and score the rule sets.

    Parameters
    ----------
    R1, R2 : RuleSet or sequence of Conjunction
    similarity : {"semantic", "statistical"}
        Rule similarity: literal assignment (needs no data) or Jaccard of covered samples of ``X``.
    X : array or DataFrame, optional
        Raw samples (required for ``"statistical"``).

    Returns
    -------
    RuleSetMatching
        Score ``2 z* / (m' + n')`` and the matching; ``.render()`` prints it as a table.

    Examples
    --------
    >>> from interpretopt.rules import Condition, Conjunction, RuleSet
    >>> A = RuleSet([Conjunction([Condition(0, "<=", 3)])])
    >>> compare_rule_sets(A, A).score
    1.0
    """
    if similarity not in SIMILARITIES:
        raise InputError(f"similarity must be one of {SIMILARITIES}, got {similarity!r}")
    rules1, rules2 = _rules(R1), _rules(R2)
    m1, m2 = len(rules1), len(rules2)
    if similarity == "semantic":
        S = rule_similarity_matrix(rules1, rules2)
    else:
        S = statistical_similarity_matrix(rules1, rules2, X)
    if m1 + m2 == 0:
        return RuleSetMatching(score=1.0, similarity=similarity, matches=(), matrix=S, n_rules1=0, n_rules2=0)
    z, rows, cols = _assign(S)
    score = 2.0 * z / (m1 + m2)
    matched = dict(zip(rows.tolist(), cols.tolist()))
    matches = [RuleMatch(i, matched[i], float(S[i, matched[i]]), rules1[i], rules2[matched[i]])
               for i in range(m1) if i in matched]
    matches += [RuleMatch(i, None, 0.0, rules1[i], None) for i in range(m1) if i not in matched]
    used = set(matched.values())
    matches += [RuleMatch(None, j, 0.0, None, rules2[j]) for j in range(m2) if j not in used]
    return RuleSetMatching(score=float(min(1.0, score)), similarity=similarity, matches=tuple(matches), matrix=S,
                           n_rules1=m1, n_rules2=m2)


def rule_set_similarity(R1, R2, *, similarity: str = "semantic", X=None) -> float:
    """Only the score of :func:`compare_rule_sets`."""
    return compare_rule_sets(R1, R2, similarity=similarity, X=X).score
