"""The direct incremental path: same optimum as rebuilding, duals and reduced costs, warm starts, guards."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.exceptions import InputError, SolverError, UnknownNameError
from interpretopt.solvers import (
    IncrementalModel,
    SolveSettings,
    SolveStatus,
    make_incremental,
    solve,
)

KINDS = ["highs", "ortools_glop"]


def cover_master(n_pos=40, n_cols=30, seed=0):
    """A small BRCG-like master: min c_xi xi + c_w w s.t. xi_i + sum_k A_ik w_k >= 1."""
    rng = np.random.default_rng(seed)
    A = (rng.random((n_pos, n_cols)) < 0.25).astype(float)
    cw = 0.02 + rng.random(n_cols) * A.sum(0) / n_pos
    return A, cw, np.full(n_pos, 0.1)


def build(kind, A, cw, cxi):
    m = make_incremental(kind)
    n_pos = A.shape[0]
    m.add_rows(np.ones(n_pos), np.full(n_pos, np.inf))
    m.add_columns(cxi, 0.0, np.inf, A=sp.identity(n_pos, format="csc"))
    m.add_columns(cw, 0.0, np.inf, A=sp.csc_array(A))
    return m


@pytest.mark.parametrize("kind", KINDS)
def test_add_columns_matches_rebuild(kind):
    A, cw, cxi = cover_master()
    n_pos = A.shape[0]
    inc = make_incremental(kind)
    inc.add_rows(np.ones(n_pos), np.full(n_pos, np.inf))
    inc.add_columns(cxi, 0.0, np.inf, A=sp.identity(n_pos, format="csc"))
    objs = []
    for lo in range(0, A.shape[1], 10):
        block = sp.csc_array(A[:, lo:lo + 10])
        # alternate the two ways of passing a block
        if lo % 20 == 0:
            inc.add_columns(cw[lo:lo + 10], 0.0, np.inf, A=block)
        else:
            inc.add_columns(cw[lo:lo + 10], 0.0, np.inf, starts=block.indptr, indices=block.indices, values=block.data)
        r = inc.solve()
        assert r.status is SolveStatus.OPTIMAL
        fresh = build(kind, A[:, :lo + 10], cw[:lo + 10], cxi).solve()
        objs.append(r.objective)
        assert r.objective == pytest.approx(fresh.objective, abs=1e-8)
    assert objs == sorted(objs, reverse=True)  # more columns never hurt a minimization
    assert inc.n_cols == n_pos + A.shape[1] and inc.n_rows == n_pos


def test_incremental_agrees_with_pyomo_and_between_backends():
    pe = pytest.importorskip("pyomo.environ")
    A, cw, cxi = cover_master(seed=3)
    n_pos, k = A.shape
    m = pe.ConcreteModel()
    m.xi = pe.Var(range(n_pos), bounds=(0, None))
    m.w = pe.Var(range(k), bounds=(0, None))
    m.cover = pe.Constraint(range(n_pos), rule=lambda mm, i: mm.xi[i] + pe.quicksum(
        mm.w[j] for j in range(k) if A[i, j]) >= 1)
    m.o = pe.Objective(expr=pe.quicksum(float(cxi[i]) * m.xi[i] for i in range(n_pos))
                       + pe.quicksum(float(cw[j]) * m.w[j] for j in range(k)))
    res_pyomo = solve(m, "highs", duals=True)
    y_pyomo = np.array([m.dual[m.cover[i]] for i in range(n_pos)])
    res_glop_pyomo = solve(m, "ortools_glop", duals=True)
    y_glop_pyomo = np.array([m.dual[m.cover[i]] for i in range(n_pos)])
    rh = build("highs", A, cw, cxi).solve()
    rg = build("ortools_glop", A, cw, cxi).solve()
    for r in (res_glop_pyomo, rh, rg):
        assert r.objective == pytest.approx(res_pyomo.objective, abs=1e-8)
    # duals of a degenerate LP need not be unique; each set must be dual feasible and optimal
    for y in (y_pyomo, y_glop_pyomo, rh.duals, rg.duals):
        assert np.all(y >= -1e-9)  # min with >= rows
        assert np.all(y <= cxi + 1e-9)  # reduced cost of xi_i >= 0
        assert np.all(A.T @ y <= cw + 1e-9)  # reduced cost of w >= 0
        assert y.sum() == pytest.approx(res_pyomo.objective, abs=1e-7)  # strong duality (b = 1)


@pytest.mark.parametrize("kind", KINDS)
def test_duals_and_reduced_costs_convention(kind):
    # min x0 + x1 s.t. x0 + 2 x1 >= 2, 3 x0 + x1 >= 3  ->  duals (0.4, 0.2)
    m = make_incremental(kind, "min")
    m.add_rows([2.0, 3.0], [np.inf, np.inf])
    m.add_columns([1.0, 1.0], 0.0, np.inf, A=np.array([[1.0, 2.0], [3.0, 1.0]]))
    r = m.solve()
    assert r.duals == pytest.approx([0.4, 0.2], abs=1e-9)
    assert r.x == pytest.approx([0.8, 0.6], abs=1e-9)
    assert r.reduced_costs == pytest.approx(np.array([1.0, 1.0]) - np.array([[1, 3], [2, 1]]) @ r.duals, abs=1e-9)
    # maximization with <= rows: d obj / d rhs is again >= 0
    m = make_incremental(kind, "max")
    m.add_rows([-np.inf, -np.inf], [4.0, 6.0])
    m.add_columns([1.0, 1.0], 0.0, np.inf, A=np.array([[1.0, 2.0], [3.0, 1.0]]))
    r = m.solve()
    assert r.objective == pytest.approx(2.8)
    assert r.duals == pytest.approx([0.4, 0.2], abs=1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_set_costs_bounds_rows_and_offset(kind):
    m = make_incremental(kind)
    m.add_rows([2.0, 3.0], [np.inf, np.inf])
    m.add_columns([1.0, 1.0], 0.0, np.inf, A=np.array([[1.0, 2.0], [3.0, 1.0]]))
    m.set_objective_offset(1.0)
    assert m.solve().objective == pytest.approx(2.4)
    m.set_costs([0], [10.0])  # x0 now expensive: x = (0, 3)
    assert m.solve().objective == pytest.approx(4.0)
    m.set_bounds([1], [0.0], [2.0])  # x1 <= 2: 3 x0 + 2 >= 3 -> x0 = 1/3
    r = m.solve()
    assert r.x == pytest.approx([1 / 3, 2.0])
    m.set_row_bounds([1], [0.0], [np.inf])  # drop row 2: x = (0, 1)
    assert m.solve().objective == pytest.approx(2.0)


@pytest.mark.parametrize("kind", KINDS)
def test_rows_added_after_columns(kind):
    m = make_incremental(kind)
    m.add_columns([1.0, 1.0], 0.0, 10.0)
    m.add_rows([2.0], [np.inf], A=np.array([[1.0, 2.0]]))
    m.add_rows([3.0], [np.inf], starts=[0, 2], indices=[0, 1], values=[3.0, 1.0])
    r = m.solve()
    assert r.objective == pytest.approx(1.4)


def test_highs_milp_and_mip_start_and_integrality():
    rng = np.random.default_rng(4)
    n = 12
    w, v = rng.integers(1, 10, n).astype(float), rng.integers(1, 10, n).astype(float)
    cap = w.sum() / 2
    brute = max(float(v @ b) for b in (np.array(list(np.binary_repr(i, n)), dtype=float) for i in range(2**n))
                if w @ b <= cap)
    m = make_incremental("highs", "max")
    m.add_rows([-np.inf], [cap])
    m.add_columns(v, 0.0, 1.0, A=w.reshape(1, -1), integer=True)
    assert m.is_mip
    start = np.zeros(n)
    m.set_start(start)
    r = m.solve()
    assert r.status is SolveStatus.OPTIMAL and r.objective == pytest.approx(brute)
    assert r.duals is None  # no duals for a MILP
    m.set_integrality(np.arange(n), False)
    r_lp = m.solve()
    assert r_lp.objective >= brute - 1e-9 and r_lp.duals is not None
    with pytest.raises(SolverError, match="LPs only"):
        make_incremental("ortools_glop").add_columns([1.0], integer=True)


def test_wall_clock_guard_interrupts_an_overrunning_milp():
    """The guard reads the package's clock: a clock that advances one second per reading trips it
    at HiGHS' first MIP callback, on any machine and under any load (no duration is asserted)."""
    from interpretopt._clock import use_clock

    rng = np.random.default_rng(0)
    n, k = 60, 8
    W = rng.integers(10, 100, size=(k, n)).astype(float)
    v = W.sum(0) / k + rng.integers(0, 10, size=n)
    m = make_incremental("highs", "max")
    m.add_rows(np.full(k, -np.inf), W.sum(1) / 2)
    m.add_columns(v, 0.0, 1.0, A=W, integer=True)
    ticks = iter(range(10**9))
    # HiGHS' own limit is lifted through options; our guard follows the common time limit
    with use_clock(lambda: float(next(ticks))):
        r = m.solve(SolveSettings(time_limit=0.2, options={"time_limit": 60}))
    assert r.status in (SolveStatus.FEASIBLE, SolveStatus.TIME_LIMIT)
    assert r.info.get("guard_interrupted") and "guard" in r.message
    if r.has_solution:
        assert np.all(W @ r.x <= W.sum(1) / 2 + 1e-6)
    # the interrupt does not leak into the next solve (stopped here by a node limit, not the clock)
    r2 = m.solve(SolveSettings(options={"mip_max_nodes": 2}))
    assert r2.has_solution and not r2.info.get("guard_interrupted")
    assert np.all(W @ r2.x <= W.sum(1) / 2 + 1e-6)


def test_from_pyomo_and_load_solution():
    pe = pytest.importorskip("pyomo.environ")
    m = pe.ConcreteModel()
    m.x = pe.Var([0, 1], bounds=(0, None))
    m.c1 = pe.Constraint(expr=m.x[0] + 2 * m.x[1] >= 2)
    m.c2 = pe.Constraint(expr=3 * m.x[0] + m.x[1] >= 3)
    m.o = pe.Objective(expr=m.x[0] + m.x[1] + 1)
    for kind in KINDS:
        inc = IncrementalModel.from_pyomo(m, solver=kind)
        r = inc.solve()
        assert r.objective == pytest.approx(2.4)
        inc.load_solution(r)
        assert pe.value(m.x[0]) == pytest.approx(0.8)
        assert m.dual[m.c1] == pytest.approx(0.4)
    inc = make_incremental("highs")
    with pytest.raises(InputError, match="from_pyomo"):
        inc.load_solution(r)


def test_statuses_incremental():
    for kind in KINDS:
        m = make_incremental(kind, "max")
        m.add_rows([-np.inf], [1.0])
        m.add_columns([1.0, 1.0], 0.0, np.inf, A=np.array([[1.0, -1.0]]))
        assert m.solve().status is SolveStatus.UNBOUNDED, kind
        m = make_incremental(kind)
        m.add_rows([5.0, -np.inf], [np.inf, 3.0])
        m.add_columns([1.0, 0.0], 0.0, np.inf, A=np.ones((2, 2)))
        r = m.solve()
        assert r.status is SolveStatus.INFEASIBLE and r.x is None, kind


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda m: m.add_columns([np.nan]), "NaN"),
        (lambda m: m.add_columns([1.0, 2.0], lower=[0.0, 0.0, 0.0]), "shape"),
        (lambda m: m.add_columns([1.0], A=np.ones((3, 1))), "shape"),
        (lambda m: m.add_columns([1.0], A=np.array([[np.inf], [1.0]])), "NaN or infinite"),
        (lambda m: m.add_columns([1.0], starts=[0], indices=[5], values=[1.0]), "out of range"),
        (lambda m: m.add_columns([1.0], lower=2.0, upper=1.0), "lower bound above"),
        (lambda m: m.add_rows([1.0], [0.0]), "lower bound above"),
        (lambda m: m.set_costs([7], [1.0]), "out of range"),
        (lambda m: m.set_start([1.0, 2.0, 3.0]), "shape"),
        (lambda m: m.set_objective_offset(np.inf), "finite"),
    ],
)
def test_bad_input_is_reported(call, match):
    m = make_incremental("highs")
    m.add_rows([1.0, 1.0], [np.inf, np.inf])
    m.add_columns([1.0], A=np.ones((2, 1)))
    with pytest.raises(InputError, match=match):
        call(m)


def test_unknown_incremental_solver_and_sense():
    with pytest.raises(UnknownNameError, match="highs"):
        make_incremental("cbc")
    with pytest.raises(InputError):
        make_incremental("highs", sense="minimize")


@settings(max_examples=25)
@given(st.integers(2, 8), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_random_lps_highs_and_glop_agree_with_scipy(n_rows, n_cols, seed):
    """Random bounded LPs: HiGHS and GLOP incremental agree with scipy's linprog; duals satisfy c - A^T y = rc."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n_rows, n_cols)) * (rng.random((n_rows, n_cols)) < 0.7)
    x0 = rng.uniform(0, 1, size=n_cols)  # a feasible point
    ax = A @ x0
    lo = np.where(rng.random(n_rows) < 0.5, ax - rng.uniform(0, 1, n_rows), -np.inf)
    hi = np.where(rng.random(n_rows) < 0.5, ax + rng.uniform(0, 1, n_rows), np.inf)
    c = rng.normal(size=n_cols)
    A_ub = np.vstack([A[np.isfinite(hi)], -A[np.isfinite(lo)]])
    b_ub = np.concatenate([hi[np.isfinite(hi)], -lo[np.isfinite(lo)]])
    ref = linprog(c, A_ub=A_ub if len(b_ub) else None, b_ub=b_ub if len(b_ub) else None, bounds=[(0, 1)] * n_cols,
                  method="highs")
    assert ref.status == 0
    for kind in KINDS:
        m = make_incremental(kind)
        m.add_rows(lo, hi)
        m.add_columns(c, 0.0, 1.0, A=A)
        r = m.solve()
        assert r.status is SolveStatus.OPTIMAL
        assert r.objective == pytest.approx(ref.fun, abs=1e-7)
        assert r.reduced_costs == pytest.approx(c - A.T @ r.duals, abs=1e-7)
        # d obj / d rhs: a row at its lower bound has dual >= 0 (min), at its upper bound <= 0
        act = A @ r.x
        at_lo = np.isfinite(lo) & (np.abs(act - lo) < 1e-7) & ~(np.abs(act - hi) < 1e-7)
        at_hi = np.isfinite(hi) & (np.abs(act - hi) < 1e-7) & ~(np.abs(act - lo) < 1e-7)
        assert np.all(r.duals[at_lo] >= -1e-7) and np.all(r.duals[at_hi] <= 1e-7)
        free = ~(np.abs(act - lo) < 1e-7) & ~(np.abs(act - hi) < 1e-7)
        assert np.allclose(r.duals[free], 0.0, atol=1e-7)


def _opt(m, key):
    got = m.highs.getOptionValue(key)
    return got[1] if isinstance(got, tuple) else got


def test_options_of_an_earlier_solve_are_reset():
    A, cw, cxi = cover_master(seed=5)
    m = build("highs", A[:, :10], cw[:10], cxi)
    default = _opt(m, "simplex_strategy")
    r1 = m.solve(SolveSettings(options={"simplex_strategy": 4, "presolve": "off"}))
    assert _opt(m, "simplex_strategy") == 4 and _opt(m, "presolve") == "off"
    m.add_columns(cw[10:], 0.0, np.inf, A=sp.csc_array(A[:, 10:]))
    r2 = m.solve()
    assert _opt(m, "simplex_strategy") == default and _opt(m, "presolve") == "choose"
    fresh = build("highs", A, cw, cxi).solve()
    assert r2.objective == pytest.approx(fresh.objective, abs=1e-9)
    assert r1.status is SolveStatus.OPTIMAL
