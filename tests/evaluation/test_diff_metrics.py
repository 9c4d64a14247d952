"""Section 5 metrics of diff models, checked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from interpretopt.evaluation.diff_metrics import (
    count_rules,
    count_unique_predicates,
    diff_labels,
    diff_metrics,
    diff_precision_recall_f1,
    fidelity,
)
from interpretopt.exceptions import InputError
from interpretopt.rules import Condition, Conjunction, RuleSet


def test_precision_recall_f1_by_hand():
    y1 = np.array([0, 1, 1, 0, 2, 2])
    y2 = np.array([0, 0, 1, 1, 2, 0])  # true diffs at 1, 3, 5
    pred = np.array([1, 1, 0, 1, 0, 0])  # predicted at 0, 1, 3
    m = diff_metrics(y1, y2, pred)
    assert m["diffs"] == pytest.approx(0.5)
    assert m["precision"] == pytest.approx(2 / 3)
    assert m["recall"] == pytest.approx(2 / 3)
    assert m["f1"] == pytest.approx(2 / 3)
    assert m["n_rules"] == 0 and m["n_predicates"] == 0


def test_empty_denominators_give_zero():
    assert diff_precision_recall_f1([0, 0], [0, 0]) == (0.0, 0.0, 0.0)
    assert diff_precision_recall_f1([1, 0], [0, 0]) == (0.0, 0.0, 0.0)
    assert diff_precision_recall_f1([0, 0], [1, 0]) == (0.0, 0.0, 0.0)


def test_unique_predicates_count_once_over_rules_after_simplification():
    a = Condition(0, "<", 3.0)
    b = Condition(1, ">=", 2.0)
    r1 = Conjunction((a, b))
    r2 = Conjunction((a, Condition(2, "<", 1.0)))
    r3 = Conjunction((Condition(0, "<", 5.0), a))  # simplifies to x0 < 3
    rules = RuleSet((r1, r2, r3))
    assert count_rules(rules) == 3
    assert count_unique_predicates(rules) == 3  # x0 < 3, x1 >= 2, x2 < 1
    assert count_unique_predicates([r1]) == 2
    assert count_rules(None) == count_unique_predicates(None) == 0


def test_fidelity_and_labels():
    assert fidelity([1, 2, 3, 4], [1, 2, 0, 4]) == 0.75
    assert diff_labels(["a", "b"], ["a", "c"]).tolist() == [0, 1]
    with pytest.raises(InputError):
        diff_labels([1, 2], [1])
    with pytest.raises(InputError):
        diff_precision_recall_f1([1, 0], [1])
