"""Polytope {x : C x <= b}: membership, construction, rendering, value semantics, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from interpretopt.exceptions import InputError
from interpretopt.rules import Polytope

finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


def test_bounding_box_contains():
    P = Polytope.bounding_box([0, 0], [1, 2])
    assert P.dim == 2 and P.n_constraints == 4
    pts = np.array([[0.5, 1.0], [2.0, 0.0], [1.0, 2.0], [-1e-12, 0.0], [-1e-3, 0.0]])
    assert P.contains(pts).tolist() == [True, False, True, True, False]
    assert P.contains(pts, tol=0.0).tolist() == [True, False, True, False, False]
    assert P.contains([0.5, 0.5]).tolist() == [True]
    half = Polytope.bounding_box([0, -np.inf], [np.inf, 1])
    assert half.n_constraints == 2


def test_add_and_intersect_are_new_values():
    P = Polytope.universe(2)
    assert P.contains(np.random.default_rng(0).normal(size=(5, 2))).all()
    Q = P.add([1, 1], 1.0)
    assert P.n_constraints == 0 and Q.n_constraints == 1
    assert Q.contains([[0.2, 0.3], [1.0, 0.5]]).tolist() == [True, False]
    R = Q & Polytope.bounding_box([0, 0], [1, 1])
    assert R.n_constraints == 5
    assert Q == Polytope([[1, 1]], [1]) and hash(Q) == hash(Polytope(np.array([[1.0, 1.0]]), np.array([1.0])))
    assert Q != P
    with pytest.raises(ValueError):
        Q.C[0, 0] = 3.0  # arrays are read-only


@given(arrays(float, (3, 2), elements=finite), arrays(float, 3, elements=finite),
       arrays(float, (20, 2), elements=finite))
def test_contains_matches_row_by_row(C, b, X):
    P = Polytope(C, b)
    expected = [all(C[i] @ x <= b[i] + 1e-9 for i in range(3)) for x in X]
    assert P.contains(X).tolist() == expected
    # adding rows only shrinks the set
    assert not (P.add([1.0, 0.0], 0.0).contains(X) & ~P.contains(X)).any()


def test_render_inequalities():
    P = Polytope([[0.5, -2.0], [-1.0, 0.0], [0.0, 0.0]], [3.0, -0.0, 1.0])
    assert P.render(["age", "income"]).splitlines() == ["0.5*age - 2*income <= 3", "-age <= 0", "0 <= 1"]
    assert Polytope.universe(3).render() == "true"
    assert Polytope([[1.0, 1.0]], [2.0]).render() == "x0 + x1 <= 2"


def test_is_empty():
    P = Polytope.bounding_box([0, 0], [1, 1])
    assert not P.is_empty()
    assert P.add([1, 1], -0.5).is_empty()
    assert not Polytope.universe(2).is_empty()


@pytest.mark.parametrize("C,b,match", [
    ([[1, 2], [3, 4]], [1], "one entry per row"),
    ([1, 2], [1], "2-D"),
    ([[np.nan, 1]], [1], "NaN or infinite"),
    ([[1, 1]], [np.nan], "NaN"),
    ([["a", 1]], [1], "numeric"),
])
def test_polytope_bad_input(C, b, match):
    with pytest.raises(InputError, match=match):
        Polytope(C, b)


def test_polytope_bad_use():
    P = Polytope.bounding_box([0, 0], [1, 1])
    with pytest.raises(InputError, match="3 columns"):
        P.contains(np.zeros((2, 3)))
    with pytest.raises(InputError, match="3 coefficients"):
        P.add([1, 2, 3], 0)
    with pytest.raises(InputError, match="exceeds"):
        Polytope.bounding_box([2, 0], [1, 1])


def test_bounds_are_the_exact_bounding_box():
    P = Polytope.bounding_box([0, 0], [1, 1]).add([1, 1], 1.0).add([-1, 0], -0.2)
    lo, hi = P.bounds()
    np.testing.assert_allclose(lo, [0.2, 0.0], atol=1e-9)
    np.testing.assert_allclose(hi, [1.0, 0.8], atol=1e-9)
    lo2, hi2 = P.bounds([0, 0.1], [0.5, 1])  # intersected with a box
    np.testing.assert_allclose(lo2, [0.2, 0.1], atol=1e-9)
    np.testing.assert_allclose(hi2, [0.5, 0.8], atol=1e-9)
    assert P.add([1, 0], 0.1).bounds() is None  # empty
    lo3, hi3 = Polytope([[1.0, 0.0]], [2.0]).bounds()
    assert lo3[0] == -np.inf and hi3[0] == 2.0 and hi3[1] == np.inf


def test_chebyshev_center():
    c, r = Polytope.bounding_box([0, 0], [2, 4]).chebyshev_center()
    assert r == pytest.approx(1.0) and c[0] == pytest.approx(1.0)
    assert Polytope.bounding_box([0, 0], [1, 1]).add([1, 1], -1).chebyshev_center() is None
    assert Polytope.universe(2).chebyshev_center()[1] == np.inf


def test_minimal_removes_exactly_the_implied_rows():
    P = (Polytope.bounding_box([0, 0], [1, 1])
         .add([1, 1], 1.5)      # cuts the corner: kept
         .add([2, 2], 3.0)      # a multiple of a row, looser: implied
         .add([1, 0], 0.75)     # tighter than x0 <= 1, which becomes implied
         .add([1, 1], 5.0))     # implied by the box
    M = P.minimal()
    assert M.n_constraints == 5
    assert sorted(map(tuple, np.round(np.column_stack([M.C, M.b]), 9).tolist())) == sorted(
        [(0.0, 1.0, 1.0), (-1.0, -0.0, -0.0), (0.0, -1.0, -0.0), (1.0, 1.0, 1.5), (1.0, 0.0, 0.75)])
    assert M.render(["a", "b"], intervals=True).splitlines() == ["0 <= a <= 0.75", "0 <= b <= 1", "a + b <= 1.5"]


@given(arrays(float, (6, 2), elements=st.integers(-30, 30).map(lambda v: v / 10)),
       arrays(float, 6, elements=st.integers(-10, 30).map(lambda v: v / 10)))
def test_property_minimal_describes_the_same_set(C, b):
    P = Polytope.bounding_box([-2, -2], [2, 2]) & Polytope(C, b)
    M = P.minimal()
    assert M.n_constraints <= P.n_constraints
    X = np.random.default_rng(0).uniform(-2.2, 2.2, (600, 2))
    assert np.array_equal(P.contains(X, tol=0.0), M.contains(X, tol=0.0))


def test_intervals_render_one_sided_bounds_and_dict_round_trip():
    P = Polytope([[1.0, 0.0], [0.0, -1.0], [1.0, 2.0]], [3.0, 1.0, 4.0])
    assert P.render(["a", "b"], intervals=True).splitlines() == ["a <= 3", "b >= -1", "a + 2*b <= 4"]
    assert Polytope.from_dict(P.to_dict()) == P
    with pytest.raises(InputError, match="keys 'C'"):
        Polytope.from_dict({"A": []})


@given(arrays(float, (4, 3), elements=st.integers(-20, 20).map(lambda v: v / 10)),
       arrays(float, 4, elements=st.integers(-5, 20).map(lambda v: v / 10)))
def test_property_propagated_bounds_keep_every_point_and_only_shrink(C, b):
    P = Polytope(C, b)
    lo, hi = -np.ones(3), np.ones(3)
    X = np.random.default_rng(1).uniform(-1, 1, (4000, 3))
    inside = X[P.contains(X, tol=0.0)]
    box = P.propagate_bounds(lo, hi)
    if box is None:  # a proof of emptiness must be right
        assert inside.shape[0] == 0 and P.bounds(lo, hi) is None
        return
    plo, phi = box
    assert (plo >= lo - 1e-12).all() and (phi <= hi + 1e-12).all()
    assert ((inside >= plo - 1e-9) & (inside <= phi + 1e-9)).all()
    exact = P.bounds(lo, hi)
    if exact is not None:  # never tighter than the exact box
        assert (plo <= exact[0] + 1e-7).all() and (phi >= exact[1] - 1e-7).all()


def test_propagation_finds_an_axis_sliver():
    P = Polytope.bounding_box([0, 0], [1, 1]).add([1.0, 0.01], 0.02)
    lo, hi = P.propagate_bounds([0, 0], [1, 1])
    assert hi[0] <= 0.02 + 1e-12 and lo[0] == 0 and hi[1] == 1
    assert P.add([-1.0, 0.0], -0.5).propagate_bounds([0, 0], [1, 1]) is None


def test_regression_polytope_non_numeric_and_wrong_shape_points():
    P = Polytope.bounding_box([0, 0], [1, 1])
    with pytest.raises(InputError, match="numeric"):
        P.contains([["a", "b"]])
    with pytest.raises(InputError, match=r"shape \(n, 2\)"):
        P.slack(np.ones((3, 3)))
    assert P.slack([0.5, 0.5]).shape == (1, 4)
