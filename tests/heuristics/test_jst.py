"""The vectorized split search against brute force over every threshold."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.heuristics.jst import (
    best_joint_split,
    best_split,
    best_split_reference,
    impurity,
    split_scores,
)


@st.composite
def tiny(draw):
    n = draw(st.integers(2, 14))
    d = draw(st.integers(1, 3))
    k = draw(st.integers(2, 4))
    vals = st.integers(0, 4)
    X = np.array(draw(st.lists(st.lists(vals, min_size=d, max_size=d), min_size=n, max_size=n)), dtype=float)
    y1 = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    y2 = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    return X, y1, y2, k


def _score_of(X, ys, f, t, criterion):
    left = X[:, f] < t
    n = X.shape[0]
    total = 0.0
    for y in ys:
        for part in (y[left], y[~left]):
            if part.size:
                total += part.size / n * impurity(np.bincount(part), criterion)
    return total


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
@given(case=tiny())
def test_best_split_equals_brute_force(case, criterion):
    X, y1, _, k = case
    f, t, s = best_split(X, y1, k, criterion)
    fr, tr, sr = best_split_reference(X, [y1], criterion)
    assert (f == -1) == (fr == -1)
    if f >= 0:
        assert s == pytest.approx(sr, abs=1e-9)
        # the returned threshold really achieves the returned score and splits the data
        assert _score_of(X, [y1], f, t, criterion) == pytest.approx(sr, abs=1e-9)
        assert 0 < np.count_nonzero(X[:, f] < t) < X.shape[0]


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
@given(case=tiny())
def test_joint_best_split_equals_brute_force(case, criterion):
    X, y1, y2, k = case
    f, t, s = best_joint_split(X, y1, y2, k, criterion)
    fr, tr, sr = best_split_reference(X, [y1, y2], criterion)
    assert (f == -1) == (fr == -1)
    if f >= 0:
        assert s == pytest.approx(sr, abs=1e-9)
        assert _score_of(X, [y1, y2], f, t, criterion) == pytest.approx(sr, abs=1e-9)


def test_scores_all_thresholds_both_criteria_match_direct_formula():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(30, 4)).astype(float)
    y = rng.integers(0, 3, size=30)
    order = np.argsort(X, axis=0, kind="stable").T
    vals = np.take_along_axis(X.T, order, axis=1)
    for criterion in ("entropy", "gini"):
        s = split_scores(vals, y[order], 3, criterion)
        for f in range(4):
            for pos in range(29):
                if vals[f, pos] == vals[f, pos + 1]:
                    assert np.isinf(s[f, pos])
                    continue
                t = (vals[f, pos] + vals[f, pos + 1]) / 2
                assert s[f, pos] / 30 == pytest.approx(_score_of(X, [y], f, t, criterion), abs=1e-9)


def test_constant_features_have_no_split():
    X = np.ones((5, 2))
    assert best_split(X, np.array([0, 1, 0, 1, 1]), 2)[0] == -1


def test_adjacent_floats_threshold_separates():
    a = 1.0
    b = np.nextafter(a, 2.0)
    X = np.array([[a], [a], [b], [b]])
    f, t, s = best_split(X, np.array([0, 0, 1, 1]), 2)
    assert f == 0 and s == 0.0
    assert list(X[:, 0] < t) == [True, True, False, False]


def test_pure_split_scores_exactly_zero():
    X = np.arange(10, dtype=float).reshape(-1, 1)
    y = (X[:, 0] >= 4).astype(int)
    assert best_split(X, y, 2)[2] == 0.0
    assert best_split(X, y, 2, "gini")[2] == 0.0
