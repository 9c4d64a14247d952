"""LinearProgram: blocks, the Pyomo model built from it (the one direction, checked here), every backend."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from interpretopt._lp import ColumnBlock, LinearProgram, RowBlock
from interpretopt.exceptions import InputError
from interpretopt.solvers import SOLVERS, SolveSettings, available_solvers, solve_lp, to_matrix_form


def _program(seed: int = 0, integer: bool = False) -> LinearProgram:
    """A small feasible, bounded program with every kind of block: labelled, scalar, integer;
    rows >=, <=, ranged, equality and free."""
    rng = np.random.default_rng(seed)
    n_x, n_y = 4, 3
    n = n_x + n_y + 1

    def rand(k):
        return sp.csr_array(np.round(rng.uniform(-1, 2, size=(k, n)) * (rng.random((k, n)) < 0.7), 2))

    return LinearProgram.assemble(
        [ColumnBlock("x", rng.uniform(0.5, 2, n_x), upper=5.0, labels=[10, 11, 12, 13]),
         ColumnBlock("y", rng.uniform(-1, 1, n_y), lower=0.0, upper=1.0, integer=integer),
         ColumnBlock("t", [0.3], lower=-3.0, upper=3.0, scalar=True)],
        [RowBlock("ge", sp.csr_array(np.round(rng.uniform(0.2, 2, size=(3, n)), 2)), lower=[2.0, 3.0, 4.0],
                  labels=["a", "b", "c"]),
         RowBlock("le", rand(2), upper=4.0),
         RowBlock("range", rand(1), lower=-2.0, upper=2.0, scalar=True),
         RowBlock("eq", sp.csr_array(np.eye(1, n, n - 1)), lower=0.5, upper=0.5, scalar=True),
         RowBlock("free", rand(1))],
        offset=1.5, name="toy")


def test_blocks_lie_where_they_are_named():
    lp = _program()
    assert (lp.n_rows, lp.n_cols) == (8, 8)
    assert lp.cols("x") == slice(0, 4) and lp.cols("t") == slice(7, 8) and lp.rows("free") == slice(7, 8)
    assert lp.col_labels["x"] == [10, 11, 12, 13] and "t" not in lp.col_labels
    with pytest.raises(InputError, match="no column block 'z'.*x, y, t"):
        lp.cols("z")
    with pytest.raises(InputError, match="row block bad has 3 columns"):
        LinearProgram.assemble([ColumnBlock("x", [1.0, 1.0])], [RowBlock("bad", np.ones((1, 3)))])
    with pytest.raises(InputError, match="upper bounds of x has 3 entries"):
        LinearProgram.assemble([ColumnBlock("x", [1.0, 1.0], upper=[1, 2, 3])], [])


@pytest.mark.parametrize("integer", [False, True], ids=["lp", "milp"])
def test_pyomo_model_built_from_the_program_compiles_back_to_it(integer):
    """The one translation direction (program -> Pyomo) is exact: compiling the model back gives
    the same matrix, bounds, costs, constant and integrality (free rows are left out)."""
    lp = _program(1, integer=integer)
    m = lp.to_pyomo()
    mf = to_matrix_form(m)
    col = {id(v): j for j, v in enumerate(lp.pyomo_variables(m))}
    row = {id(c): r for r, c in enumerate(lp.pyomo_constraints(m)) if c is not None}
    perm = np.array([col[id(v)] for v in mf.variables])
    rows = np.array([row[id(c)] for c in mf.constraints])
    assert sorted(rows.tolist()) == list(range(lp.n_rows - 1))  # every row but the free one
    np.testing.assert_allclose(mf.A.toarray(), lp.A.toarray()[np.ix_(rows, perm)])
    np.testing.assert_allclose(mf.c, lp.c[perm])
    assert mf.offset == pytest.approx(lp.offset) and mf.sense == lp.sense
    np.testing.assert_array_equal(mf.col_lower, lp.col_lower[perm])
    np.testing.assert_array_equal(mf.col_upper, lp.col_upper[perm])
    np.testing.assert_array_equal(mf.row_lower, lp.row_lower[rows])
    np.testing.assert_array_equal(mf.row_upper, lp.row_upper[rows])
    np.testing.assert_array_equal(mf.integrality, lp.integrality[perm])
    if integer:
        assert all(v.is_binary() for v in m.y.values())
    assert m.ge["b"] is lp.pyomo_constraints(m)[1] and m.x[12] is lp.pyomo_variables(m)[2]


@pytest.mark.parametrize("solver", [s for s in ("highs", "highs_direct", "ortools_glop", "ortools_pdlp",
                                                "ortools_scip", "ortools_cpsat", "appsi_highs")])
@pytest.mark.parametrize("integer", [False, True], ids=["lp", "milp"])
def test_every_backend_solves_the_program_alike(solver, integer):
    """Incremental backends load the arrays, the others the Pyomo model built from them: same optimum."""
    if solver not in available_solvers():
        pytest.skip(f"{solver} is not available here")
    caps = SOLVERS.get(solver).capabilities if solver in SOLVERS.names() else None
    if caps is not None and ((integer and not caps.milp) or (not integer and not caps.lp)):
        pytest.skip(f"{solver} does not solve this class")
    if solver == "ortools_cpsat":
        pytest.skip("CP-SAT needs integer coefficients")
    lp = _program(2, integer=integer)
    ref = solve_lp(lp, "highs", SolveSettings(), duals=not integer)
    assert ref.status.value == "optimal"
    res = solve_lp(lp, solver, SolveSettings())
    assert res.status.value == "optimal", res.message
    tol = 1e-4 if solver == "ortools_pdlp" else 1e-7
    assert res.objective == pytest.approx(ref.objective, abs=tol)
    assert lp.objective_value(res.x) == pytest.approx(ref.objective, abs=tol)
    x = res.x
    Ax = lp.A @ x
    assert (Ax >= lp.row_lower - 1e-5).all() and (Ax <= lp.row_upper + 1e-5).all()
    assert (x >= lp.col_lower - 1e-6).all() and (x <= lp.col_upper + 1e-6).all()
    if not integer:
        # row duals in the program's order, convention d objective / d rhs, on the Pyomo path too
        other = "appsi_highs" if "appsi_highs" in available_solvers() else "ortools_pdlp"
        pyo = solve_lp(lp, other, SolveSettings(), duals=True)
        assert pyo.duals.shape == (lp.n_rows,)
        np.testing.assert_allclose(pyo.duals, ref.duals, atol=1e-6)


def test_duals_of_a_milp_are_refused():
    from interpretopt.exceptions import SolverError

    with pytest.raises(SolverError, match="integer variables"):
        solve_lp(_program(0, integer=True), "highs", duals=True)
