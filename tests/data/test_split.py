"""Seeded train/test splits and K-folds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.data import kfold_indices, train_test_indices
from interpretopt.exceptions import InputError


@given(st.integers(2, 300), st.floats(0.05, 0.95), st.integers(0, 1000))
def test_train_test_partition(n, frac, seed):
    tr, te = train_test_indices(n, frac, seed)
    assert len(te) == min(max(int(np.ceil(frac * n)), 1), n - 1)
    assert np.array_equal(np.sort(np.concatenate([tr, te])), np.arange(n))
    assert np.all(np.diff(tr) > 0) and np.all(np.diff(te) > 0)
    tr2, te2 = train_test_indices(n, frac, seed)
    assert np.array_equal(te, te2)


@given(st.lists(st.integers(0, 3), min_size=10, max_size=200), st.integers(0, 100))
def test_stratified_split_keeps_class_shares(labels, seed):
    y = np.array(labels)
    n = y.size
    tr, te = train_test_indices(n, 0.3, seed, stratify=y)
    assert np.array_equal(np.sort(np.concatenate([tr, te])), np.arange(n))
    for c in np.unique(y):
        assert abs(np.sum(y[te] == c) - 0.3 * np.sum(y == c)) <= 1


def test_split_row_count_and_generator_seed():
    tr, te = train_test_indices(10, 3, np.random.default_rng(5))
    assert len(te) == 3 and len(tr) == 7
    a = train_test_indices(50, 0.2, 1)[1]
    b = train_test_indices(50, 0.2, 2)[1]
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("bad", [0.0, 1.0, 0, 10, True, "half"])
def test_split_bad_test_size(bad):
    with pytest.raises(InputError, match="test_size"):
        train_test_indices(10, bad, 0)


def test_split_bad_stratify_and_n():
    with pytest.raises(InputError, match="length 10"):
        train_test_indices(10, 0.3, 0, stratify=[0, 1])
    with pytest.raises(InputError):
        train_test_indices(1, 0.5, 0)


@given(st.integers(2, 120), st.integers(2, 10), st.integers(0, 100), st.booleans())
def test_kfold_partition(n, k, seed, stratified):
    if k > n:
        with pytest.raises(InputError):
            kfold_indices(n, k, seed)
        return
    y = np.arange(n) % 3 if stratified else None
    folds = kfold_indices(n, k, seed, stratify=y)
    assert len(folds) == k
    tests = np.concatenate([te for _, te in folds])
    assert np.array_equal(np.sort(tests), np.arange(n))
    sizes = [len(te) for _, te in folds]
    assert max(sizes) - min(sizes) <= 1
    for tr, te in folds:
        assert np.array_equal(np.sort(np.concatenate([tr, te])), np.arange(n))
        if stratified:
            for c in range(3):
                counts = [np.sum(y[t] == c) for _, t in folds]
                assert max(counts) - min(counts) <= 1
    again = kfold_indices(n, k, seed, stratify=y)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again))
