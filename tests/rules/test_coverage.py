"""Coverage matrices, bit packing and popcounts, first cover, support and overlap."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from interpretopt.exceptions import InputError
from interpretopt.rules import Condition, Conjunction, RuleSet
from interpretopt.rules import _coverage as cov

bool_matrix = st.integers(0, 200).flatmap(
    lambda n: st.integers(0, 5).flatmap(lambda k: arrays(bool, (n, k))))


@given(bool_matrix)
def test_pack_roundtrip_and_popcount(A):
    P = cov.pack_coverage(A)
    assert P.dtype == np.uint64 and P.shape == (A.shape[1], cov.n_words(A.shape[0]))
    np.testing.assert_array_equal(cov.unpack_coverage(P, A.shape[0]), A)
    np.testing.assert_array_equal(cov.popcount(P), A.sum(axis=0))


@given(st.integers(1, 200).flatmap(lambda n: st.tuples(arrays(bool, (n, 3)), arrays(bool, (n, 3)), arrays(bool, n))))
def test_and_popcount_equals_boolean_and(args):
    A, B, y = args
    PA, PB, py = cov.pack_coverage(A), cov.pack_coverage(B), cov.pack_vector(y)
    np.testing.assert_array_equal(cov.and_popcount(PA, PB), (A & B).sum(axis=0))
    np.testing.assert_array_equal(cov.and_popcount(PA, py), (A & y[:, None]).sum(axis=0))
    np.testing.assert_array_equal(cov.unpack_coverage(cov.packed_and(PA, PB), len(y)), A & B)
    np.testing.assert_array_equal(cov.unpack_coverage(cov.packed_or(PA, PB), len(y)), A | B)
    NA = cov.packed_not(PA, len(y))
    np.testing.assert_array_equal(cov.unpack_coverage(NA, len(y)), ~A)
    np.testing.assert_array_equal(cov.popcount(NA), (~A).sum(axis=0))  # tail bits stay clear
    assert cov.popcount(cov.packed_any(PA)) == A.any(axis=1).sum()
    assert cov.popcount(cov.packed_all(PA, len(y))) == A.all(axis=1).sum()
    assert cov.popcount(cov.packed_all(PA, len(y), rows=[])) == len(y)
    assert cov.popcount(cov.packed_any(PA, rows=[])) == 0


def test_popcount_of_vector_is_scalar():
    v = np.zeros(130, dtype=bool)
    v[[0, 63, 64, 129]] = True
    p = cov.pack_vector(v)
    assert p.shape == (3,) and cov.popcount(p) == 4
    np.testing.assert_array_equal(cov.unpack_coverage(p, 130), v)


def test_pack_empty_and_bad_input():
    assert cov.pack_coverage(np.zeros((0, 3), dtype=bool)).shape == (3, 0)
    assert cov.pack_coverage(np.zeros((5, 0), dtype=bool)).shape == (0, 1)
    with pytest.raises(InputError, match="2-D"):
        cov.pack_coverage(np.zeros(4, dtype=bool))
    with pytest.raises(InputError, match="uint64"):
        cov.popcount(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(InputError, match="widths differ"):
        cov.and_popcount(np.zeros((2, 2), np.uint64), np.zeros(3, np.uint64))
    with pytest.raises(InputError, match="cannot unpack"):
        cov.unpack_coverage(np.zeros((1, 1), np.uint64), 65)


def _naive_binary(X_bin, cols):
    return np.column_stack([X_bin[:, c].all(axis=1) if len(c) else np.ones(len(X_bin), bool) for c in cols]) \
        if cols else np.zeros((len(X_bin), 0), bool)


@given(st.integers(1, 150).flatmap(lambda n: arrays(np.uint8, (n, 6), elements=st.integers(0, 1))),
       st.lists(st.lists(st.integers(0, 5), max_size=4, unique=True), max_size=8))
def test_binary_coverage_matches_naive(X_bin, cols):
    expected = _naive_binary(X_bin, [np.array(c, dtype=int) for c in cols])
    np.testing.assert_array_equal(cov.binary_coverage(X_bin, cols), expected)
    np.testing.assert_array_equal(cov.binary_coverage(X_bin.astype(bool), cols), expected)
    P = cov.pack_binary_columns(X_bin)
    packed = cov.binary_coverage_packed(None, cols, packed_columns=P, n_samples=len(X_bin))
    np.testing.assert_array_equal(cov.popcount(packed), expected.sum(axis=0))


def test_binary_coverage_bad_input():
    with pytest.raises(InputError, match="0/1"):
        cov.binary_coverage(np.array([[0, 2]]), [[0]])
    with pytest.raises(InputError, match="0/1"):
        cov.binary_coverage(np.array([[0.5, 1.0]]), [[0]])
    with pytest.raises(InputError, match="outside 0..1"):
        cov.binary_coverage(np.array([[0, 1]]), [[0, 2]])
    with pytest.raises(InputError, match="2-D"):
        cov.binary_coverage(np.array([0, 1]), [[0]])


def test_rule_columns_maps_conditions_to_columns():
    conds = [Condition(0, "<=", 1), Condition(0, ">", 1), Condition(1, "==", "a")]
    rules = [Conjunction([conds[2], conds[0]]), Conjunction([conds[1]]), Conjunction()]
    cols = cov.rule_columns(rules, conds)
    assert [c.tolist() for c in cols] == [[0, 2], [1], []]
    with pytest.raises(InputError, match="not a column"):
        cov.rule_columns([Conjunction([Condition(3, "<=", 0)])], conds)
    # raw and binarized coverage agree
    X = pd.DataFrame({"v": [0.0, 2.0, 1.0], "c": ["a", "a", "b"]})
    X_bin = np.column_stack([c.evaluate(X) for c in conds]).astype(np.uint8)
    np.testing.assert_array_equal(cov.binary_coverage(X_bin, cols), cov.coverage_matrix(rules, X))


def test_coverage_matrix_shapes_and_sources():
    X = np.array([[0.0, 1.0], [2.0, 3.0], [1.0, 0.0]])
    rules = [Conjunction([Condition(0, "<=", 1)]), Condition(1, ">", 0.5), Conjunction()]
    A = cov.coverage_matrix(rules, X)
    assert A.dtype == bool and A.shape == (3, 3)
    np.testing.assert_array_equal(A, [[1, 1, 1], [0, 1, 1], [1, 0, 1]])
    np.testing.assert_array_equal(cov.coverage_matrix(RuleSet(rules), X), A)
    assert cov.coverage_matrix([], X).shape == (3, 0)


def test_first_cover_exhaustive_small():
    for bits in range(2 ** 6):
        A = np.array([(bits >> i) & 1 for i in range(6)], dtype=bool).reshape(2, 3)
        fc = cov.first_cover(A)
        for i in range(2):
            hits = np.nonzero(A[i])[0]
            assert fc[i] == (hits[0] if hits.size else -1)
    assert cov.first_cover(np.zeros((3, 0), bool)).tolist() == [-1, -1, -1]


def test_support_and_overlap():
    X = np.arange(10, dtype=float).reshape(-1, 1)
    rules = [Conjunction([Condition(0, "<", 5)]), Conjunction([Condition(0, ">=", 3)])]
    np.testing.assert_allclose(cov.support(rules, X), [0.5, 0.7])
    np.testing.assert_array_equal(cov.support(rules, X, normalize=False), [5, 7])
    M = cov.overlap(rules, X, normalize=False)
    np.testing.assert_array_equal(M, [[5, 2], [2, 7]])
    np.testing.assert_allclose(cov.overlap(rules, X), M / 10)


def test_coverage_matrix_on_binarized_columns():
    conds = [Condition(0, "<=", 1), Condition(0, ">", 1), Condition(1, "==", "a")]
    X = pd.DataFrame({"v": [0.0, 2.0, 1.0, 5.0], "c": ["a", "a", "b", "b"]})
    X_bin = np.column_stack([c.evaluate(X) for c in conds]).astype(np.uint8)
    rules = RuleSet([Conjunction([conds[0], conds[2]]), conds[1]])
    np.testing.assert_array_equal(cov.coverage_matrix(rules, X_bin, conditions=conds), cov.coverage_matrix(rules, X))


def test_nullable_columns_treat_missing_as_nan():
    X = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64")})
    np.testing.assert_array_equal(Condition(0, "<=", 2).evaluate(X), [True, False, False])
    np.testing.assert_array_equal(Condition(0, "!=", 3).evaluate(X), [True, True, False])


@given(bool_matrix)
def test_lookup_table_popcount_matches(A):
    np.testing.assert_array_equal(cov._count_words_lut(cov.pack_coverage(A)), A.sum(axis=0))


def test_packed_coverage_raw_and_binary_agree():
    from interpretopt.rules import packed_coverage

    rng = np.random.default_rng(0)
    X = rng.normal(size=(130, 3))
    conds = [Condition(j, op, 0.0) for j in range(3) for op in ("<=", ">")]
    X_bin = np.column_stack([c.evaluate(X) for c in conds])
    rules = [Conjunction([conds[0], conds[3]]), Conjunction([conds[5]]), Conjunction()]
    P_raw = packed_coverage(rules, X)
    np.testing.assert_array_equal(P_raw, packed_coverage(rules, X_bin, conditions=conds))
    np.testing.assert_array_equal(cov.unpack_coverage(P_raw, 130), cov.coverage_matrix(rules, X))


def test_regression_pack_coverage_rejects_nan():
    """NaN in a float coverage matrix used to be packed as a covered sample."""
    with pytest.raises(InputError, match="NaN"):
        cov.pack_coverage(np.array([[np.nan], [0.0]]))
    assert cov.pack_coverage(np.array([[1.0], [0.0]]))[0, 0] == 1


def test_regression_binary_coverage_rejects_fractional_column_indices():
    """Column index 0.5 used to be truncated silently to column 0."""
    X = np.array([[1, 0], [0, 1]], dtype=np.uint8)
    with pytest.raises(InputError, match="integers"):
        cov.binary_coverage(X, [[0.5]])
    with pytest.raises(InputError, match="integers"):
        cov.binary_coverage(X, [["a"]])
    # integral floats and empty lists (float dtype by default) stay accepted
    got = cov.binary_coverage(X, [np.array([1.0]), []])
    assert got[:, 0].tolist() == [False, True] and got[:, 1].all()


def test_regression_packed_shape_mismatch_is_input_error():
    a = np.zeros((2, 2), dtype=np.uint64)
    b = np.zeros((3, 2), dtype=np.uint64)
    for f in (cov.packed_and, cov.packed_or, cov.and_popcount):
        with pytest.raises(InputError, match="do not match"):
            f(a, b)
    v = np.ones(2, dtype=np.uint64)
    assert cov.and_popcount(a | np.uint64(1), v).tolist() == [2, 2]  # rules x words against one vector


def test_package_exports_every_coverage_name():
    """interpretopt.rules re-exports _coverage.__all__ (the tests above call the names through _coverage)."""
    import interpretopt.rules

    for name in cov.__all__:
        assert name in interpretopt.rules.__all__ and getattr(interpretopt.rules, name) is getattr(cov, name)
