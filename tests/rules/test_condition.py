"""Condition and Conjunction: validation, canonical form, evaluation, emptiness check."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.exceptions import InputError
from interpretopt.rules import OPS, Condition, Conjunction


# ----------------------------------------------------------------------------- Condition
def test_condition_value_semantics():
    a = Condition(0, "<=", 1.5)
    assert a == Condition(0, "<=", 1.5)
    assert hash(a) == hash(Condition(np.int64(0), "<=", np.float64(1.5)))
    assert type(Condition(np.int64(2), "==", np.float64(3.0)).value) is float
    assert len({a, Condition(0, "<=", 1.5), Condition(0, ">", 1.5)}) == 2
    with pytest.raises(AttributeError):
        a.value = 3  # frozen


@pytest.mark.parametrize("op,neg", [("<=", ">"), (">", "<="), ("<", ">="), (">=", "<"), ("==", "!="), ("!=", "==")])
def test_negate_is_complement(op, neg):
    X = np.array([[0.0], [1.0], [2.0], [1.0 + 1e-12]])
    c = Condition(0, op, 1.0)
    assert c.negate().op == neg
    assert ~c == c.negate()
    assert c.negate().negate() == c
    np.testing.assert_array_equal(c.negate().evaluate(X), ~c.evaluate(X))


@pytest.mark.parametrize("op,expected", [("<=", [1, 1, 0]), (">", [0, 0, 1]), ("<", [1, 0, 0]),
                                         (">=", [0, 1, 1]), ("==", [0, 1, 0]), ("!=", [1, 0, 1])])
def test_evaluate_each_operator(op, expected):
    X = np.array([[9, 0.0], [9, 1.0], [9, 2.0]])
    np.testing.assert_array_equal(Condition(1, op, 1.0).evaluate(X), np.array(expected, dtype=bool))


def test_evaluate_dataframe_by_position_and_categories():
    df = pd.DataFrame({"age": [20, 40, 60], "colour": pd.Categorical(["red", "blue", "red"]),
                       "town": ["a", "b", "c"]})
    np.testing.assert_array_equal(Condition(0, ">", 30).evaluate(df), [False, True, True])
    np.testing.assert_array_equal(Condition(1, "==", "red").evaluate(df), [True, False, True])
    np.testing.assert_array_equal(Condition(1, "!=", "red").evaluate(df), [False, True, False])
    np.testing.assert_array_equal(Condition(1, "==", "green").evaluate(df), [False, False, False])
    np.testing.assert_array_equal(Condition(2, "==", "b").evaluate(df), [False, True, False])
    # a label never equals a number, and a number never equals a label
    np.testing.assert_array_equal(Condition(0, "==", "20").evaluate(df), [False, False, False])
    np.testing.assert_array_equal(Condition(2, "!=", 1).evaluate(df), [True, True, True])


def test_evaluate_object_array_mixed():
    X = np.array([[1, "a"], [2, "b"]], dtype=object)
    np.testing.assert_array_equal(Condition(1, "==", "a").evaluate(X), [True, False])
    np.testing.assert_array_equal(Condition(0, "<=", 1.5).evaluate(X), [True, False])
    with pytest.raises(InputError, match="not numeric"):
        Condition(1, "<=", 1.5).evaluate(X)


def test_nan_rows_fail_order_and_equality_but_pass_not_equal():
    X = np.array([[np.nan], [1.0]])
    assert Condition(0, "<=", 5).evaluate(X).tolist() == [False, True]
    assert Condition(0, ">", 5).evaluate(X).tolist() == [False, False]
    assert Condition(0, "!=", 1).evaluate(X).tolist() == [True, False]


def test_render():
    assert Condition(0, "<=", 30.5).render(["age"]) == "age <= 30.5"
    assert Condition(2, ">", 3).render() == "x2 > 3"
    assert Condition(1, "==", "red").render(["a", "colour"]) == "colour == red"
    assert Condition(0, "<=", 0.1 + 0.2).render() == "x0 <= 0.3"
    assert Condition(0, ">=", -0.0).render() == "x0 >= 0"
    assert str(Condition(0, "<", 1e-9)) == "x0 < 1e-09"


@pytest.mark.parametrize("args,match", [
    ((0, "=<", 1), "valid operators: <=, >, <, >=, ==, !="),
    ((-1, "<=", 1), "must be >= 0"),
    ((1.5, "<=", 1), "non-negative integer"),
    ((True, "<=", 1), "non-negative integer"),
    ((0, "<=", float("nan")), "NaN"),
    ((0, "<=", "red"), "needs a numeric value"),
    ((0, "==", None), "None"),
    ((0, "==", [1, 2]), "hashable"),
])
def test_condition_bad_input(args, match):
    with pytest.raises(InputError, match=match):
        Condition(*args)


def test_evaluate_bad_shapes():
    with pytest.raises(InputError, match="2-D"):
        Condition(0, "<=", 1).evaluate(np.arange(3))
    with pytest.raises(InputError, match="has 2 columns"):
        Condition(5, "<=", 1).evaluate(np.zeros((3, 2)))
    with pytest.raises(InputError, match="out of range"):
        Condition(5, "<=", 1).render(["a"])


# ----------------------------------------------------------------------------- Conjunction
def test_conjunction_canonical_sorted_dedup():
    a, b, c = Condition(2, "<=", 1), Condition(0, ">", 3), Condition(0, "<=", 5)
    r1 = Conjunction([a, b, c, a])
    r2 = Conjunction((c, a, b))
    assert r1 == r2 and hash(r1) == hash(r2)
    assert r1.conditions == (c, b, a)
    assert len(r1) == 3 and r1.features == (0, 2)
    assert Conjunction([(0, "<=", 1)]) == Conjunction([Condition(0, "<=", 1)])
    # mixed labels and numbers on one feature still sort
    Conjunction([Condition(0, "==", "x"), Condition(0, "==", 1), Condition(0, "!=", "y")])


def test_empty_conjunction_always_true():
    X = np.zeros((4, 2))
    r = Conjunction()
    assert r.evaluate(X).all() and len(r) == 0 and r.render() == "true" and r.is_satisfiable()


def test_conjunction_evaluate_and_render():
    X = np.array([[20.0, 3.0], [40.0, 3.0], [25.0, 1.0]])
    r = Conjunction([Condition(1, ">", 2), Condition(0, "<=", 30.5)])
    np.testing.assert_array_equal(r.evaluate(X), [True, False, False])
    assert r.render(["age", "income"]) == "age <= 30.5 AND income > 2"
    assert r.holds([20.0, 3.0]) and not r.holds([31.0, 3.0])


def test_intersect_and_operator():
    a = Conjunction([Condition(0, "<=", 1)])
    b = Conjunction([Condition(1, ">", 2), Condition(0, "<=", 1)])
    assert a & b == b == a.intersect(b)
    assert a & Condition(1, ">", 2) == b
    assert Condition(0, "<=", 1) & Condition(1, ">", 2) == b
    with pytest.raises(InputError):
        a.intersect("x0 <= 1")


def test_conjunction_bad_input():
    with pytest.raises(InputError, match="Condition"):
        Conjunction(["x0 <= 1"])
    with pytest.raises(InputError, match="iterable"):
        Conjunction(3)


# ----------------------------------------------------------------------------- emptiness check
def C(op, v, f=0):
    return Condition(f, op, v)


@pytest.mark.parametrize("conds,sat", [
    ([C("<=", 1), C(">", 1)], False),
    ([C("<=", 1), C(">=", 1)], True),
    ([C("<", 1), C(">=", 1)], False),
    ([C("<", 1), C(">", 1)], False),
    ([C("<=", 1), C(">=", 1), C("!=", 1)], False),
    ([C("<=", 2), C(">=", 1), C("!=", 1), C("!=", 2), C("!=", 1.5)], True),
    ([C("<=", 0), C(">", 1)], False),
    ([C("==", 1), C("<=", 1)], True),
    ([C("==", 1), C("<", 1)], False),
    ([C("==", 1), C(">", 0), C("<", 2)], True),
    ([C("==", 1), C("==", 2)], False),
    ([C("==", 1), C("!=", 1)], False),
    ([C("==", "a"), C("!=", "a")], False),
    ([C("==", "a"), C("==", "b")], False),
    ([C("==", "a"), C("!=", "b")], True),
    ([C("==", "a"), C("<=", 3)], False),   # a label never satisfies an ordering condition
    ([C("!=", "a"), C("<=", 3)], True),
    ([C("!=", 1), C("!=", 2)], True),
    ([C("==", 1), C("==", 1.0)], True),
    ([C(">", float("inf"))], False),
    ([C(">=", float("inf"))], True),
    ([C("<=", 1), C(">", 1, f=1), C("<=", 1, f=1)], False),  # empty on feature 1
    ([C("<=", 1), C(">", 1, f=1)], True),                   # different features never clash
])
def test_is_satisfiable_cases(conds, sat):
    assert Conjunction(conds).is_satisfiable() is sat


THRESHOLDS = [0.0, 0.5, 1.0, 1.5, 2.0]
GRID = np.arange(-1.0, 3.0001, 0.25)  # holds every threshold and a point strictly between neighbours

literal = st.builds(Condition, st.integers(0, 1), st.sampled_from(OPS), st.sampled_from(THRESHOLDS))


@given(st.lists(literal, min_size=1, max_size=6))
def test_is_satisfiable_matches_brute_force(conds):
    rule = Conjunction(conds)
    pts = np.array(list(itertools.product(GRID, GRID)))
    assert rule.is_satisfiable() == bool(rule.evaluate(pts).any())


@given(st.lists(literal, min_size=1, max_size=6))
def test_simplify_is_equivalent(conds):
    rule = Conjunction(conds)
    pts = np.array(list(itertools.product(GRID, GRID)))
    simple = rule.simplify()
    assert len(simple) <= len(rule)
    np.testing.assert_array_equal(simple.evaluate(pts), rule.evaluate(pts))


@given(st.lists(literal, max_size=4), st.lists(literal, max_size=4))
def test_intersection_is_and_of_masks(a, b):
    pts = np.array(list(itertools.product(GRID, GRID)))
    ra, rb = Conjunction(a), Conjunction(b)
    np.testing.assert_array_equal((ra & rb).evaluate(pts), ra.evaluate(pts) & rb.evaluate(pts))
    assert ra & rb == rb & ra


@given(st.lists(literal, max_size=6))
def test_canonical_order_independent(conds):
    assert Conjunction(conds) == Conjunction(list(reversed(conds)))
    assert Conjunction(conds) == Conjunction(conds + conds)


LABELS = ["a", "b"]
mixed_literal = st.one_of(
    literal,
    st.builds(Condition, st.integers(0, 1), st.sampled_from(["==", "!="]), st.sampled_from(LABELS)),
)
MIXED_GRID = list(GRID) + LABELS + ["other"]  # "other" stands for any label not named in a rule


@given(st.lists(mixed_literal, min_size=1, max_size=6))
def test_is_satisfiable_with_labels_matches_brute_force(conds):
    rule = Conjunction(conds)
    found = any(rule.holds(p) for p in itertools.product(MIXED_GRID, MIXED_GRID))
    assert rule.is_satisfiable() == found


def test_holds_agrees_with_evaluate():
    pts = np.array(list(itertools.product(GRID, GRID)))
    for op in OPS:
        c = Condition(1, op, 1.0)
        assert [c.holds(p[1]) for p in pts] == c.evaluate(pts).tolist()


def test_intervals():
    r = Conjunction([C(">", 0), C(">=", 1), C("<", 3), C("<=", 3), C("==", "a", f=1), C("<=", 2, f=2)])
    assert r.intervals() == {0: (1.0, False, 3.0, True), 2: (-np.inf, False, 2.0, False)}
    assert Conjunction([C(">", 1), C(">=", 1)]).intervals() == {0: (1.0, True, np.inf, False)}
