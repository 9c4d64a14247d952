"""Rule-set comparison ("What changed?", Section 3.3): literal, rule and rule-set similarity."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.evaluation.similarity import (
    compare_rule_sets,
    literal_similarity,
    rule_set_similarity,
    rule_similarity,
    rule_similarity_matrix,
    statistical_similarity,
)
from interpretopt.exceptions import InputError
from interpretopt.rules import Condition, Conjunction, RuleSet


def C(f, op, v):
    return Condition(f, op, v)


def R(*conds):
    return Conjunction(conds)


@pytest.mark.parametrize("a, b, expected", [
    (C(0, "<=", 3), C(1, "<=", 3), 0.0),       # different variable
    (C(0, "<=", 3), C(0, ">", 3), 0.25),       # same variable, different operator
    (C(0, "==", "a"), C(0, "!=", "a"), 0.25),
    (C(0, "<=", 3), C(0, "<=", 5), 0.5),       # same variable and operator, different value
    (C(0, "<", 3), C(0, "<=", 5), 0.5),        # < ~ <= counts as the same operator (case (c))
    (C(0, ">=", 3), C(0, ">", 3), 0.5),
    (C(0, "<", 3), C(0, ">=", 3), 0.25),
    (C(0, "<=", 3), C(0, "<=", 3.0), 1.0),     # identical
    (C(2, "==", "x"), C(2, "==", "x"), 1.0),
])
def test_literal_similarity_cases(a, b, expected):
    assert literal_similarity(a, b) == expected
    assert literal_similarity(b, a) == expected


def brute_rule_similarity(r1, r2):
    a, b = list(r1.conditions), list(r2.conditions)
    if len(a) > len(b):
        a, b = b, a
    best = max((sum(literal_similarity(x, b[p]) for x, p in zip(a, perm))
                for perm in itertools.permutations(range(len(b)), len(a))), default=0.0)
    return 2 * best / (len(r1) + len(r2)) if len(r1) + len(r2) else 1.0


def test_rule_similarity_paper_example():
    # (age > 26 AND education = Masters) vs (age < 26 AND education = Masters): semantically close
    r1 = R(C(0, ">", 26), C(1, "==", "Masters"))
    r2 = R(C(0, "<", 26), C(1, "==", "Masters"))
    assert rule_similarity(r1, r2) == pytest.approx(2 * (0.25 + 1.0) / 4)
    score, pairs = rule_similarity(r1, r2, return_assignment=True)
    assert {(p[0].feature, p[1].feature) for p in pairs} == {(0, 0), (1, 1)}
    # ... while their populations do not overlap at all
    X = np.array([[30, "Masters"], [20, "Masters"], [40, "BSc"]], dtype=object)
    assert statistical_similarity(r1, r2, X) == 0.0


conditions = st.builds(
    Condition,
    st.integers(0, 3),
    st.sampled_from(["<=", ">", "<", ">="]),
    st.sampled_from([0.5, 1.5, 2.5]),
)
rules = st.lists(conditions, min_size=1, max_size=3).map(lambda cs: Conjunction(cs))
rule_sets = st.lists(rules, min_size=0, max_size=4).map(lambda rs: RuleSet(rs))


@settings(max_examples=40)
@given(r1=rules, r2=rules)
def test_rule_similarity_is_the_best_assignment(r1, r2):
    s = rule_similarity(r1, r2)
    assert s == pytest.approx(brute_rule_similarity(r1, r2))
    assert s == pytest.approx(rule_similarity(r2, r1))
    assert 0.0 <= s <= 1.0
    assert rule_similarity(r1, r1) == 1.0


@settings(max_examples=40)
@given(A=rule_sets, B=rule_sets)
def test_rule_set_similarity_self_one_and_symmetric(A, B):
    X = np.random.default_rng(0).uniform(0, 3, size=(60, 4))
    for sim in ("semantic", "statistical"):
        assert rule_set_similarity(A, A, similarity=sim, X=X) == pytest.approx(1.0)
        ab = rule_set_similarity(A, B, similarity=sim, X=X)
        assert ab == pytest.approx(rule_set_similarity(B, A, similarity=sim, X=X))
        assert 0.0 <= ab <= 1.0 + 1e-12


def test_unbalanced_sets_map_extra_rules_to_none():
    A = RuleSet([R(C(0, "<=", 1)), R(C(1, ">", 2)), R(C(2, "==", 1))])
    B = RuleSet([R(C(1, ">", 2))])
    m = compare_rule_sets(A, B)
    assert m.score == pytest.approx(2 * 1.0 / 4)
    assert m.partner(1) == (0, 1.0)
    assert m.partner(0)[0] is None and m.partner(2)[0] is None
    table = m.to_frame(["x0", "x1", "x2"])
    assert list(table.columns) == ["A #", "A rule", "B #", "B rule", "similarity"]
    assert len(table) == 3 and (table["B rule"] == "(none)").sum() == 2
    text = m.render(["x0", "x1", "x2"])
    assert "x1 > 2" in text and "semantic rule-set similarity 0.5000" in text


def test_statistical_similarity_is_jaccard():
    X = np.arange(10, dtype=float)[:, None]
    r1 = R(C(0, "<=", 5))       # 0..5  (6 samples)
    r2 = R(C(0, ">", 2))        # 3..9  (7 samples); overlap 3..5 = 3, union 10
    assert statistical_similarity(r1, r2, X) == pytest.approx(3 / 10)
    m = compare_rule_sets(RuleSet([r1]), RuleSet([r2]), similarity="statistical", X=X)
    assert m.score == pytest.approx(3 / 10)


def test_empty_rule_sets_and_bad_arguments():
    empty = RuleSet(())
    A = RuleSet([R(C(0, "<=", 1))])
    assert rule_set_similarity(empty, empty) == 1.0
    assert rule_set_similarity(A, empty) == 0.0
    with pytest.raises(InputError, match="X"):
        compare_rule_sets(A, A, similarity="statistical")
    with pytest.raises(InputError, match="similarity"):
        compare_rule_sets(A, A, similarity="cosine")


def _brute_rule_set_similarity(S: np.ndarray) -> float:
    m1, m2 = S.shape
    if m1 + m2 == 0:
        return 1.0
    best = 0.0
    if m1 <= m2:
        for perm in itertools.permutations(range(m2), m1):
            best = max(best, sum(S[i, j] for i, j in enumerate(perm)))
    else:
        for perm in itertools.permutations(range(m1), m2):
            best = max(best, sum(S[i, j] for j, i in enumerate(perm)))
    return 2 * best / (m1 + m2)


small_conditions = st.builds(Condition, st.integers(0, 2), st.sampled_from(["<=", ">", "<", ">="]),
                       st.sampled_from([0.5, 1.5]))


small_rules = st.lists(small_conditions, min_size=1, max_size=3).map(Conjunction)


small_rule_sets = st.lists(small_rules, min_size=0, max_size=4).map(RuleSet)


@settings(max_examples=30)
@given(A=small_rule_sets, B=small_rule_sets)
def test_rule_set_similarity_is_the_best_assignment_and_matching_is_consistent(A, B):
    m = compare_rule_sets(A, B)
    S = rule_similarity_matrix(A, B)
    assert m.score == pytest.approx(_brute_rule_set_similarity(S), abs=1e-12)
    # each rule appears once; matched pairs carry their matrix entry; the pairs sum to z*
    lefts = [x.i for x in m.matches if x.i is not None]
    rights = [x.j for x in m.matches if x.j is not None]
    assert sorted(lefts) == list(range(len(A))) and sorted(rights) == list(range(len(B)))
    pairs = [x for x in m.matches if x.i is not None and x.j is not None]
    assert len(pairs) == min(len(A), len(B))
    for x in pairs:
        assert x.score == pytest.approx(S[x.i, x.j])
    if len(A) + len(B):
        assert m.score == pytest.approx(min(1.0, 2 * sum(x.score for x in pairs) / (len(A) + len(B))))
