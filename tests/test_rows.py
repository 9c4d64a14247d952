"""interpretopt._rows: unique rows as numpy.unique(axis=0) gives them; complementary columns."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt._rows import complement_columns, unique_rows_index


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 30), w=st.integers(0, 4), dtype=st.sampled_from([np.uint8, bool]))
def test_unique_rows_index_equals_numpy_unique_axis0(seed, n, w, dtype):
    a = np.random.default_rng(seed).integers(0, 3 if dtype is np.uint8 else 2, size=(n, w)).astype(dtype)
    first, inverse = unique_rows_index(a, return_inverse=True)
    if n == 0:
        assert first.size == 0 and inverse.size == 0
        return
    _, f_ref, i_ref = np.unique(a, axis=0, return_index=True, return_inverse=True)
    assert first.tolist() == f_ref.tolist()
    assert inverse.tolist() == i_ref.reshape(-1).tolist()
    assert unique_rows_index(a).tolist() == f_ref.tolist()


def test_unique_rows_index_rejects_wide_items():
    with pytest.raises(ValueError, match="2-D array of bytes"):
        unique_rows_index(np.zeros((3, 2), dtype=np.int64))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 21), J=st.integers(1, 9))
def test_complement_columns_are_exact_and_point_at_base_columns(seed, n, J):
    rng = np.random.default_rng(seed)
    X = rng.random((n, J)) < 0.5
    # add complements and duplicates of random columns, as negations and repeated thresholds make them
    extra = [~X[:, j] if rng.random() < 0.7 else X[:, j].copy() for j in rng.integers(0, J, size=J)]
    X = np.column_stack([X, *extra])
    X = X[:, rng.permutation(X.shape[1])]
    partner = complement_columns(X)
    base = partner < 0
    for j in np.flatnonzero(~base):
        p = partner[j]
        assert p < j and base[p] and (X[:, j] == ~X[:, p]).all()
    for j in np.flatnonzero(base):  # a base column has no base complement before it
        assert not any((X[:, j] == ~X[:, p]).all() for p in np.flatnonzero(base[:j]))
    w = rng.standard_normal(n)
    for j in np.flatnonzero(~base):
        assert w @ X[:, j] == pytest.approx(w.sum() - w @ X[:, partner[j]])


def test_complement_columns_ignores_the_padding_bits():
    # 3 rows: packbits pads 5 bits; columns complementary on the 3 rows must still pair
    X = np.array([[1, 0, 1], [0, 1, 1], [1, 0, 1]], dtype=bool)
    assert complement_columns(X).tolist() == [-1, 0, -1]
