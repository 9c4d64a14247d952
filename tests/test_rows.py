"""interpretopt._rows: unique rows as numpy.unique(axis=0) gives them."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt._rows import unique_rows_index


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
