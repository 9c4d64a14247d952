"""Bad input across the foundation layers: each case a clear interpretopt error, never a numpy/Pyomo traceback.

One named regression test per defect fixed in the rules, data and solver layers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pe = pytest.importorskip("pyomo.environ")

from interpretopt.data import QuantileBinarizer, TreeBinarizer  # noqa: E402
from interpretopt.exceptions import InputError, SolverError  # noqa: E402
from interpretopt.rules import (  # noqa: E402
    Polytope,
    and_popcount,
    binary_coverage,
    pack_coverage,
    packed_and,
    packed_or,
)
from interpretopt.solvers import available_solvers, solve, to_matrix_form  # noqa: E402


# -- rules ---------------------------------------------------------------------------------
def test_regression_pack_coverage_rejects_nan():
    """NaN in a float coverage matrix used to be packed as a covered sample."""
    with pytest.raises(InputError, match="NaN"):
        pack_coverage(np.array([[np.nan], [0.0]]))
    assert pack_coverage(np.array([[1.0], [0.0]]))[0, 0] == 1


def test_regression_binary_coverage_rejects_fractional_column_indices():
    """Column index 0.5 used to be truncated silently to column 0."""
    X = np.array([[1, 0], [0, 1]], dtype=np.uint8)
    with pytest.raises(InputError, match="integers"):
        binary_coverage(X, [[0.5]])
    with pytest.raises(InputError, match="integers"):
        binary_coverage(X, [["a"]])
    # integral floats and empty lists (float dtype by default) stay accepted
    got = binary_coverage(X, [np.array([1.0]), []])
    assert got[:, 0].tolist() == [False, True] and got[:, 1].all()


def test_regression_packed_shape_mismatch_is_input_error():
    a = np.zeros((2, 2), dtype=np.uint64)
    b = np.zeros((3, 2), dtype=np.uint64)
    for f in (packed_and, packed_or, and_popcount):
        with pytest.raises(InputError, match="do not match"):
            f(a, b)
    v = np.ones(2, dtype=np.uint64)
    assert and_popcount(a | np.uint64(1), v).tolist() == [2, 2]  # rules x words against one vector


def test_regression_polytope_non_numeric_and_wrong_shape_points():
    P = Polytope.bounding_box([0, 0], [1, 1])
    with pytest.raises(InputError, match="numeric"):
        P.contains([["a", "b"]])
    with pytest.raises(InputError, match=r"shape \(n, 2\)"):
        P.slack(np.ones((3, 3)))
    assert P.slack([0.5, 0.5]).shape == (1, 4)


# -- data ----------------------------------------------------------------------------------
def test_regression_binarizer_rejects_inf_in_two_valued_numeric_column():
    """A numeric column with values {1, inf} was taken as a binary feature and inf as a category."""
    with pytest.raises(InputError, match="infinite"):
        QuantileBinarizer().fit(np.array([[1.0], [np.inf], [1.0]]))
    with pytest.raises(InputError, match="infinite"):
        TreeBinarizer().fit(np.array([[1.0], [-np.inf]]), [0, 1])
    # bool and categorical columns are not numeric values and stay accepted
    QuantileBinarizer().fit(pd.DataFrame({"b": [True, False], "c": pd.Categorical(["u", "v"])}))


@pytest.mark.parametrize("bad, match", [
    (np.array([[1.0, np.nan]]), None),  # NaN is allowed by the binarizers; checked below
    (np.array([1.0, 2.0]), "2-D"),
    (np.zeros((2, 2, 2)), "2-D"),
])
def test_binarizer_shapes_and_nan(bad, match):
    if match is None:
        b = QuantileBinarizer(n_thresholds=1).fit(np.array([[1.0, 1.0], [2.0, 2.0], [3.0, np.nan]]))
        out = b.transform(bad)
        assert out.shape == (1, len(b.conditions_))
        # a missing value satisfies no '<=', '>', '==' column, and every '!=' column (as Condition.evaluate)
        for k, c in enumerate(b.conditions_):
            if c.feature == 1:
                assert out[0, k] == (c.op == "!=")
            assert out[0, k] == c.evaluate(bad)[0]
        return
    with pytest.raises(InputError, match=match):
        QuantileBinarizer().fit(bad)


# -- solvers -------------------------------------------------------------------------------
def _lp(coef=1.0, obj=1.0):
    m = pe.ConcreteModel()
    m.x = pe.Var(bounds=(0, 1))
    m.c = pe.Constraint(expr=coef * m.x <= 1)
    m.o = pe.Objective(expr=obj * m.x, sense=pe.maximize)
    return m


@pytest.mark.parametrize("coef, obj", [(float("nan"), 1.0), (1.0, float("nan")), (float("inf"), 1.0)])
def test_regression_highs_through_pyomo_refuses_nan_coefficients(coef, obj):
    """Pyomo handed NaN to HiGHS, which reported an optimum of a different model; a row with an infinite
    coefficient was refused by HiGHS and silently left out."""
    with pytest.raises(SolverError, match="NaN or infinite"):
        solve(_lp(coef, obj), "highs")
    assert solve(_lp(), "highs").objective == pytest.approx(1.0)


@pytest.mark.parametrize("coef, obj, match", [
    (float("nan"), 1.0, "constraint c has a non-finite coefficient"),
    (float("inf"), 1.0, "constraint c has a non-finite coefficient"),
    (1.0, float("nan"), "objective has a non-finite coefficient"),
])
def test_regression_matrix_form_names_the_non_finite_coefficient(coef, obj, match):
    """The matrix path (highs_direct, OR-Tools) now names the row; GLOP used to answer 'infeasible'."""
    with pytest.raises(SolverError, match=match):
        to_matrix_form(_lp(coef, obj))
    for name in ("highs_direct", "ortools_glop"):
        if name in available_solvers():
            with pytest.raises(SolverError, match=match):
                solve(_lp(coef, obj), name)


def test_regression_pyomo_solver_load_failure_is_a_solver_error():
    """CBC on a model with an infinite coefficient crashed inside Pyomo's solution loader."""
    if "cbc" not in available_solvers():
        pytest.skip("cbc is not installed here")
    try:
        res = solve(_lp(float("inf")), "cbc")
    except SolverError:
        return
    assert res.status is not None  # a status, never a raw Pyomo exception


def test_regression_dataset_numeric_names_a_string_column():
    """A Dataset built directly with an object column failed inside pandas/numpy in numeric()."""
    from interpretopt.data import Dataset

    X = pd.DataFrame({"a": [1.0, 2.0], "s": ["u", "v"]})
    ds = Dataset("d", X, np.array([0, 1]), {"a": "numeric", "s": "categorical"})
    with pytest.raises(InputError, match="column 's'.*neither numeric nor a pandas category"):
        ds.numeric()


def test_regression_implausible_pyomo_solver_version_is_unknown(monkeypatch):
    """A CBC 'devel' build made Pyomo report versions such as 0.298977.0.0, different at every call."""
    from interpretopt.solvers import PyomoFactoryBackend

    class _Fake:
        def version(self):
            return (0, 298977, 0, 0)

    backend = PyomoFactoryBackend("cbc")
    monkeypatch.setattr(backend, "_factory", lambda: _Fake())
    assert backend.version() == "unknown"

    class _Good:
        def version(self):
            return (2, 10, 11)

    monkeypatch.setattr(backend, "_factory", lambda: _Good())
    assert backend.version() == "2.10.11"
