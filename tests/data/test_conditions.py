"""Condition tables of ABBR (``data._conditions``): ``==`` per discrete value, ``<=`` / ``>`` at the
family's quantile thresholds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.data import checklist_conditions, quantile_thresholds, threshold_conditions
from interpretopt.data._conditions import discrete_mask, evaluate_condition
from interpretopt.exceptions import InputError
from interpretopt.heuristics import abbr_search as H


def test_the_heuristics_layer_re_exports_the_data_layers_tables():
    assert H.threshold_conditions is threshold_conditions and H.checklist_conditions is checklist_conditions


@settings(max_examples=30)
@given(seed=st.integers(0, 10_000), nt=st.integers(1, 9), n=st.integers(2, 50))
def test_thresholds_are_the_quantile_thresholds_and_cover_is_exact(seed, nt, n):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n).round(1), rng.integers(0, 3, n)]).astype(float)
    disc = np.array([False, True])
    tab = threshold_conditions(X, disc, n_thresholds=nt)
    cuts = quantile_thresholds(X[:, 0], np.arange(1, nt + 1) / (nt + 1))
    assert [c for c in tab.conditions if c[0] == 0] == [(0, op, float(t)) for t in cuts for op in ("<=", ">")]
    assert [c for c in tab.conditions if c[0] == 1] == [(1, "==", float(v)) for v in np.unique(X[:, 1])]
    for k, c in enumerate(tab.conditions):
        assert np.array_equal(tab.cover[k], evaluate_condition(X, c))


def test_pinned_checklist_conditions():
    X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.0], [4.0, 1.0], [5.0, 1.0]])
    tab = checklist_conditions(X, discrete_mask(X, [1]))
    assert tab.conditions == [(0, "<=", 1.8), (0, ">", 1.8), (0, "<=", 2.6), (0, ">", 2.6), (0, "<=", 3.4),
                              (0, ">", 3.4), (0, "<=", 4.2), (0, ">", 4.2), (1, "==", 0.0), (1, "==", 1.0)]
    assert tab.cover.sum(axis=1).tolist() == [1, 4, 2, 3, 3, 2, 4, 1, 2, 3]


def test_bad_operator_and_mask_name_what_is_accepted():
    with pytest.raises(InputError, match="unknown condition operator '=>'"):
        evaluate_condition(np.zeros((2, 1)), (0, "=>", 0.0))
    with pytest.raises(InputError, match=r"discrete mask has shape \(3,\); expected \(2,\)"):
        discrete_mask(np.zeros((2, 2)), np.array([True, False, True]))
