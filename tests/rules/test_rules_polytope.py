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
