"""to_matrix_form: the arrays say the same thing as the Pyomo model."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

pe = pytest.importorskip("pyomo.environ")

from interpretopt.exceptions import InputError, SolverError  # noqa: E402
from interpretopt.solvers import MatrixForm, to_matrix_form  # noqa: E402


def mixed_model():
    m = pe.ConcreteModel()
    m.x = pe.Var(range(3), bounds=(0, None))
    m.y = pe.Var(domain=pe.Binary)
    m.z = pe.Var(bounds=(-2, 5))
    m.f = pe.Var(initialize=2.0)
    m.f.fix()
    m.unused = pe.Var()
    m.rng = pe.Constraint(expr=pe.inequality(1, m.x[0] + 2 * m.x[1] + m.f, 5))
    m.eq = pe.Constraint(expr=m.x[0] + m.x[2] == 3)
    m.ge = pe.Constraint(expr=m.x[0] - 4 * m.y + 1 >= -4)
    m.le = pe.Constraint(expr=m.z + m.x[2] <= 7)
    m.o = pe.Objective(expr=m.x[0] + m.x[1] + 3 + 2 * m.y - m.z + m.f, sense=pe.maximize)
    return m


def test_mixed_model_arrays():
    m = mixed_model()
    mf = to_matrix_form(m)
    assert isinstance(mf, MatrixForm)
    names = [v.name for v in mf.variables]
    assert set(names) == {"x[0]", "x[1]", "x[2]", "y", "z"}  # fixed and unused variables are not columns
    assert [c.name for c in mf.constraints] == ["rng", "eq", "ge", "le"]  # the ranged row stays one row
    assert sp.issparse(mf.A) and mf.A.format == "csr"
    assert mf.sense == "max" and mf.offset == pytest.approx(5.0)  # 3 + fixed f = 2
    col = {n: j for j, n in enumerate(names)}
    c = np.zeros(5)
    c[[col["x[0]"], col["x[1]"], col["y"], col["z"]]] = [1, 1, 2, -1]
    assert mf.c == pytest.approx(c)
    np.testing.assert_allclose(mf.row_lower, [-1, 3, -5, -np.inf])  # f moved to the bounds, +1 constant too
    np.testing.assert_allclose(mf.row_upper, [3, 3, np.inf, 7])
    assert mf.integrality[col["y"]] and mf.integrality.sum() == 1
    assert mf.col_lower[col["z"]] == -2 and mf.col_upper[col["z"]] == 5
    assert mf.col_lower[col["y"]] == 0 and mf.col_upper[col["y"]] == 1
    assert mf.col_upper[col["x[0]"]] == np.inf
    A = mf.A.toarray()
    np.testing.assert_allclose(A[0, [col["x[0]"], col["x[1]"]]], [1, 2])
    np.testing.assert_allclose(A[2, [col["x[0]"], col["y"]]], [1, -4])


def test_load_primal_and_objective_value():
    m = mixed_model()
    mf = to_matrix_form(m)
    x = np.arange(mf.n_cols, dtype=float) + 0.5
    x[mf.integrality] = 1.0000001
    mf.load_primal(x)
    assert pe.value(m.y) == 1.0  # integers rounded when within 1e-6
    assert mf.objective_value(np.asarray([v.value for v in mf.variables])) == pytest.approx(pe.value(m.o))
    with pytest.raises(InputError):
        mf.load_primal(np.zeros(mf.n_cols + 1))


def test_nonlinear_and_multiple_objectives_are_errors():
    m = mixed_model()
    m.nl = pe.Constraint(expr=m.x[0] ** 2 <= 3)
    with pytest.raises(SolverError, match="not linear"):
        to_matrix_form(m)
    m = mixed_model()
    m.o2 = pe.Objective(expr=m.x[0])
    with pytest.raises(SolverError, match="objectives"):
        to_matrix_form(m)
    with pytest.raises(InputError):
        to_matrix_form(np.zeros(3))


def test_no_objective_is_a_feasibility_problem():
    m = mixed_model()
    m.o.deactivate()
    mf = to_matrix_form(m)
    assert mf.sense == "min" and not mf.c.any() and mf.objective is None


@given(
    st.integers(1, 6),
    st.integers(1, 6),
    st.integers(0, 2**31 - 1),
)
def test_random_linear_model_round_trip(n_rows, n_cols, seed):
    """A x and c x + offset computed from the arrays equal the Pyomo bodies and objective at a random point."""
    rng = np.random.default_rng(seed)
    dense = rng.normal(size=(n_rows, n_cols)) * (rng.random((n_rows, n_cols)) < 0.6)
    dense[:, 0] += 1.0  # every row has a term
    const = rng.normal(size=n_rows)
    kinds = rng.integers(0, 4, size=n_rows)  # <=, >=, ==, ranged
    m = pe.ConcreteModel()
    m.x = pe.Var(range(n_cols), bounds=(-1, 1))
    m.c = pe.ConstraintList()
    for i in range(n_rows):
        body = pe.quicksum(float(dense[i, j]) * m.x[j] for j in range(n_cols) if dense[i, j] != 0) + float(const[i])
        if kinds[i] == 0:
            m.c.add(body <= 1.0)
        elif kinds[i] == 1:
            m.c.add(body >= -1.0)
        elif kinds[i] == 2:
            m.c.add(body == 0.5)
        else:
            m.c.add(pe.inequality(-2.0, body, 2.0))
    cost = rng.normal(size=n_cols)
    m.o = pe.Objective(expr=pe.quicksum(float(cost[j]) * m.x[j] for j in range(n_cols)) + 1.5)
    mf = to_matrix_form(m)
    assert mf.n_rows == n_rows
    x = rng.uniform(-1, 1, size=mf.n_cols)
    mf.load_primal(x)
    for i, con in enumerate(mf.constraints):
        body = pe.value(con.body)
        lo = -np.inf if con.lower is None else pe.value(con.lower)
        hi = np.inf if con.upper is None else pe.value(con.upper)
        ax = float(mf.A[[i]].toarray()[0] @ x)
        # row i: lower <= A x <= upper  <=>  con.lower <= body <= con.upper
        assert mf.row_lower[i] - ax == pytest.approx(lo - body, abs=1e-9) or np.isinf(lo)
        assert mf.row_upper[i] - ax == pytest.approx(hi - body, abs=1e-9) or np.isinf(hi)
    assert mf.objective_value(x) == pytest.approx(pe.value(m.o), abs=1e-9)
