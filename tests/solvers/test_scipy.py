"""The ``scipy`` backend (linprog / milp): objectives, statuses and the dual sign convention, checked against
HiGHS on the project's own LPs (the BRCG master LP, MTRE-PAN's node LP and its dual)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from interpretopt._lp import LinearProgram
from interpretopt.formulations import brcg as FB
from interpretopt.formulations import svm_lp
from interpretopt.solvers import SOLVERS, SolveSettings, SolveStatus, get_solver, solve, solve_lp


def _program(c, A, lo, hi, *, sense="min", integer=None, col_lo=0.0, col_hi=np.inf):
    A = sp.csr_array(np.asarray(A, dtype=float))
    n = A.shape[1]
    return LinearProgram(c=np.asarray(c, float), offset=0.0, sense=sense, A=A, row_lower=np.asarray(lo, float),
                         row_upper=np.asarray(hi, float), col_lower=np.full(n, col_lo, dtype=float),
                         col_upper=np.full(n, col_hi, dtype=float),
                         integrality=np.zeros(n, bool) if integer is None else np.asarray(integer, bool))


def _brcg_master(relax=True, n=120, K=25, seed=0):
    rng = np.random.default_rng(seed)
    cover = rng.random((n, K)) < 0.2
    y = (rng.random(n) < 0.4).astype(np.int8)
    spec = FB.MasterSpec(form="constraint", C=8.0, complexity="literals+1", n_samples=n)
    return FB.master_lp(cover, y, rng.integers(1, 4, K), spec, relax=relax)


def _svm(seed=0, n=80, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] - 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_scipy_is_registered_with_lp_milp_and_duals_but_no_incremental_model():
    caps = get_solver("scipy").capabilities
    assert caps.lp and caps.milp and caps.mixed_integer and caps.duals
    assert not caps.incremental and not caps.warm_start
    assert SOLVERS.get("scipy").solves_arrays


@pytest.mark.parametrize("sense", ["min", "max"])
def test_duals_follow_the_project_convention_on_ranged_and_equality_rows(sense):
    # rows: x + y >= 2 ; x - y <= 1 ; 1 <= x + 2y <= 5 ; x + z = 3
    A = [[1, 1, 0], [1, -1, 0], [1, 2, 0], [1, 0, 1]]
    lo, hi = [2, -np.inf, 1, 3], [np.inf, 1, 5, 3]
    c = [1.0, 2.0, 0.5] if sense == "min" else [-1.0, -2.0, -0.5]
    lp = _program(c, A, lo, hi, sense=sense)
    ref, got = solve_lp(lp, "highs", duals=True), solve_lp(lp, "scipy", duals=True)
    assert got.status is SolveStatus.OPTIMAL and got.solver == "scipy"
    assert got.objective == pytest.approx(ref.objective, abs=1e-9)
    assert np.allclose(got.duals, ref.duals, atol=1e-9)
    assert np.allclose(got.reduced_costs, ref.reduced_costs, atol=1e-9)


def test_brcg_master_lp_duals_agree_with_highs():
    lp = _brcg_master(relax=True)
    ref, got = solve_lp(lp, "highs", duals=True), solve_lp(lp, "scipy", duals=True)
    assert got.objective == pytest.approx(ref.objective, rel=1e-9, abs=1e-9)
    # the master LP may be dual degenerate; the duals must price every column alike (same reduced-cost signs
    # at the optimum) and reproduce the objective by strong duality
    assert np.allclose(got.duals, ref.duals, atol=1e-7) or np.isclose(
        got.duals @ np.where(np.isfinite(lp.row_lower), lp.row_lower, lp.row_upper), ref.objective - lp.offset)
    assert (got.reduced_costs >= -1e-7).all()  # a minimization at its optimum: no improving column


def test_brcg_integer_master_matches_highs():
    lp = _brcg_master(relax=False)
    ref, got = solve_lp(lp, "highs"), solve_lp(lp, "scipy", SolveSettings(mip_gap=0.0))
    assert got.status is SolveStatus.OPTIMAL
    assert got.objective == pytest.approx(ref.objective, abs=1e-6)
    assert got.bound == pytest.approx(got.objective, abs=1e-6)


def test_mtrepan_dual_lp_gives_the_hyperplane_of_the_primal():
    X, y = _svm()
    dual = svm_lp.dual_lp(X, y, C=2.0)
    ref, got = solve_lp(dual, "highs", duals=True), solve_lp(dual, "scipy", duals=True)
    assert got.objective == pytest.approx(ref.objective, rel=1e-8)
    a = svm_lp.solution_from_duals(ref.duals, X, y, C=2.0, dual_objective=ref.objective)
    b = svm_lp.solution_from_duals(got.duals, X, y, C=2.0, dual_objective=got.objective)
    assert np.allclose(a.w, b.w, atol=1e-6) and a.w0 == pytest.approx(b.w0, abs=1e-6)


def test_pyomo_models_are_solved_and_loaded():
    X, y = _svm(seed=1)
    m_ref, m = svm_lp.build(X, y, C=1.0), svm_lp.build(X, y, C=1.0)
    ref, got = solve(m_ref, "highs", duals=True), solve(m, "scipy", duals=True)
    assert got.objective == pytest.approx(ref.objective, rel=1e-8)
    assert np.allclose(svm_lp.extract(m).w, svm_lp.extract(m_ref).w, atol=1e-6)
    assert len(m.dual) == len(m_ref.dual)


def test_infeasible_unbounded_and_infeasible_or_unbounded_are_told_apart():
    infeasible = _program([1.0], [[1.0], [1.0]], [2.0, -np.inf], [np.inf, 1.0])
    unbounded = _program([-1.0], [[1.0]], [0.0], [np.inf])
    assert solve_lp(infeasible, "scipy").status is SolveStatus.INFEASIBLE
    assert solve_lp(unbounded, "scipy").status is SolveStatus.UNBOUNDED
    # a MILP HiGHS reports as "infeasible or unbounded": settled by the zero-objective rerun
    unbounded_mip = _program([-1.0, 0.0], [[1.0, 1.0]], [0.0], [np.inf], integer=[True, False])
    assert solve_lp(unbounded_mip, "scipy").status is SolveStatus.UNBOUNDED
    infeasible_mip = _program([1.0], [[2.0]], [1.0], [1.0], integer=[True])
    assert solve_lp(infeasible_mip, "scipy").status is SolveStatus.INFEASIBLE


def test_duals_of_a_milp_are_refused():
    from interpretopt.exceptions import SolverError

    with pytest.raises(SolverError, match="duals exist only for LPs"):
        solve_lp(_brcg_master(relax=False), "scipy", duals=True)


def test_a_node_limit_stops_the_milp_with_its_incumbent_or_a_limit_status():
    lp = _brcg_master(relax=False, n=300, K=60, seed=3)
    res = solve_lp(lp, "scipy", SolveSettings(options={"scipy": {"node_limit": 1}}))
    assert res.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE, SolveStatus.LIMIT)
    if res.status is SolveStatus.FEASIBLE:
        assert res.bound is None or res.bound <= res.objective + 1e-9
