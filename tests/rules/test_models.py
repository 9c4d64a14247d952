"""RuleSet (DNF), RuleList and Checklist: prediction, rendering, value semantics, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.exceptions import InputError
from interpretopt.rules import Checklist, Condition, Conjunction, RuleList, RuleSet

X = np.array([[20.0, 3.0], [40.0, 3.0], [25.0, 1.0], [50.0, 0.0]])
R1 = Conjunction([Condition(0, "<=", 30), Condition(1, ">", 2)])
R2 = Conjunction([Condition(1, "<=", 0.5)])


def test_ruleset_predict_coverage_counts():
    rs = RuleSet([R1, R2])
    np.testing.assert_array_equal(rs.coverage(X), [[1, 0], [0, 0], [0, 0], [0, 1]])
    p = rs.predict(X)
    assert p.dtype == np.int8 and p.tolist() == [1, 0, 0, 1]
    assert rs.n_rules == 2 and rs.n_conditions == 3 and rs.features == (0, 1)
    assert RuleSet().predict(X).tolist() == [0, 0, 0, 0]
    assert RuleSet([Conjunction()]).predict(X).tolist() == [1, 1, 1, 1]


def test_ruleset_value_semantics_keep_order():
    a, b = RuleSet([R1, R2]), RuleSet([R2, R1, R1])
    assert a == b and hash(a) == hash(b)
    assert a.rules[0] == R1 and b.rules[0] == R2  # order kept for indexing
    assert a.canonical() == a and a.canonical().rules == (R2, R1)
    assert a != RuleSet([R1])
    assert RuleSet([R1]).add(R2) == a
    assert RuleSet([[Condition(0, "<=", 30), Condition(1, ">", 2)]]) == RuleSet([R1])


def test_ruleset_render_with_names():
    text = RuleSet([R1, R2]).render(["age", "income"])
    assert text.splitlines() == [
        "predict 1 if any of these 2 rule(s) holds:",
        "  1. age <= 30 AND income > 2",
        "  2. income <= 0.5",
        "else predict 0",
    ]
    assert "no rules" in RuleSet().render()


def test_rulelist_first_cover_predict_render():
    rl = RuleList([R2, R1, Conjunction([Condition(0, ">", 30)])], ["low", "young", "old"], "other")
    np.testing.assert_array_equal(rl.first_cover(X), [1, 2, -1, 0])
    assert rl.predict(X).tolist() == ["young", "old", "other", "low"]
    assert rl.captured(X).sum(axis=0).tolist() == [1, 1, 1]
    assert rl.render(["age", "income"]) == (
        "IF income <= 0.5 THEN low\n"
        "ELSE IF age <= 30 AND income > 2 THEN young\n"
        "ELSE IF age > 30 THEN old\n"
        "ELSE other")
    rl2 = RuleList([R1], [np.int64(1)], np.int64(0))
    assert rl2.predict(X).tolist() == [1, 0, 0, 0]
    assert rl2.render(class_names=["neg", "pos"]) == "IF x0 <= 30 AND x1 > 2 THEN pos\nELSE neg"
    assert RuleList([], [], 1).predict(X).tolist() == [1, 1, 1, 1]
    assert RuleList([], [], 1).render() == "ALWAYS 1"
    assert rl2 == RuleList([R1], [1], 0) and hash(rl2) == hash(RuleList([R1], [1], 0))


def test_rulelist_bad_input():
    with pytest.raises(InputError, match="2 rules but 1 labels"):
        RuleList([R1, R2], [1], 0)
    with pytest.raises(InputError, match="rules"):
        RuleList("x0 <= 1", [1], 0)


@given(st.lists(st.booleans(), min_size=12, max_size=12), st.integers(0, 3))
def test_rulelist_predict_matches_sequential_scan(bits, default):
    A = np.array(bits, dtype=bool).reshape(4, 3)  # 4 samples, 3 one-hot "features"
    rules = [Conjunction([Condition(j, "==", 1)]) for j in range(3)]
    labels = [10, 20, 30]
    rl = RuleList(rules, labels, default)
    pred = rl.predict(A.astype(int))
    for i in range(4):
        exp = next((labels[j] for j in range(3) if A[i, j]), default)
        assert pred[i] == exp


def test_checklist_count_evaluate_render():
    ck = Checklist([Condition(0, "<=", 30), Condition(1, ">", 2), Condition(1, "<=", 0.5)], 2)
    np.testing.assert_array_equal(ck.count(X), [2, 1, 1, 1])
    np.testing.assert_array_equal(ck.evaluate(X), [True, False, False, False])
    assert ck.predict(X).dtype == np.int8
    assert ck.render(["age", "income"]).splitlines() == [
        "at least 2 of these 3 conditions:",
        "  [ ] age <= 30",
        "  [ ] income > 2",
        "  [ ] income <= 0.5",
    ]
    assert Checklist(ck.conditions, 0).evaluate(X).all()


def test_checklist_exhaustive_threshold():
    conds = [Condition(j, "==", 1) for j in range(3)]
    pts = np.array(list(itertools.product([0, 1], repeat=3)))
    for t in range(4):
        np.testing.assert_array_equal(Checklist(conds, t).evaluate(pts), pts.sum(axis=1) >= t)


@pytest.mark.parametrize("conds,t,match", [
    ([Condition(0, "<=", 1)], 2, r"\[0, 1\]"),
    ([Condition(0, "<=", 1)], -1, r"\[0, 1\]"),
    ([Condition(0, "<=", 1)], 1.5, "integer"),
    (["x0 <= 1"], 1, "Condition"),
])
def test_checklist_bad_input(conds, t, match):
    with pytest.raises(InputError, match=match):
        Checklist(conds, t)


def test_models_on_dataframe_use_positions():
    df = pd.DataFrame({"age": [20, 40], "colour": pd.Categorical(["red", "blue"])})
    rs = RuleSet([Conjunction([Condition(1, "==", "red")])])
    assert rs.predict(df).tolist() == [1, 0]
    assert rs.render(list(df.columns)).splitlines()[1] == "  1. colour == red"


def test_models_on_binarized_matrix_match_raw():
    conds = [Condition(0, "<=", 30), Condition(1, ">", 2), Condition(1, "<=", 0.5), Condition(0, ">", 30)]
    X_bin = np.column_stack([c.evaluate(X) for c in conds]).astype(np.uint8)
    rs = RuleSet([R1, R2])
    np.testing.assert_array_equal(rs.predict(X_bin, conditions=conds), rs.predict(X))
    rl = RuleList([R2, R1, Conjunction([conds[3]])], [1, 2, 3], 0)
    np.testing.assert_array_equal(rl.predict(X_bin, conditions=conds), rl.predict(X))
    ck = Checklist(conds[:3], 2)
    np.testing.assert_array_equal(ck.count(X_bin, conditions=conds), ck.count(X))


# ----------------------------------------------------------------------------- feature names
def test_rules_carry_feature_names_outside_equality():
    """Rules learned on named columns carry the names: used when rendering, not part of equality."""
    c = Condition(1, "<=", 2.0)
    named, plain = RuleSet([c], ("age", "income")), RuleSet([c])
    assert named == plain and hash(named) == hash(plain)
    assert "income <= 2" in named.render() and "x1 <= 2" in plain.render()
    assert named.add(Condition(0, ">", 1.0)).feature_names == ("age", "income")
    assert named.canonical().feature_names == ("age", "income")
    rl = RuleList([c], [1], 0, feature_names=["age", "income"])
    assert rl == RuleList([c], [1], 0) and "IF income <= 2 THEN 1" in rl.render()
    cl = Checklist([c], 1, feature_names=("age", "income"))
    assert cl == Checklist([c], 1) and "income <= 2" in cl.render()


_FAR = Condition(3, "<=", 1.0)


@pytest.mark.parametrize("make", [lambda: RuleSet([_FAR], ("a",)), lambda: RuleList([_FAR], [1], 0, ("a",)),
                                  lambda: Checklist([_FAR], 1, ("a",))], ids=["RuleSet", "RuleList", "Checklist"])
def test_a_rule_on_a_feature_without_a_name_is_refused(make):
    with pytest.raises(InputError, match=r"a rule uses feature 3 but only 1 feature names are given \(a\)"):
        make()


def test_feature_names_must_be_a_sequence():
    with pytest.raises(InputError, match=r"feature_names must be a sequence of column names, got 'abc'"):
        RuleSet([], "abc")
