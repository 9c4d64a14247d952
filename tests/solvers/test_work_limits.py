"""Work limits of SolveSettings (node_limit, iteration_limit): honoured or refused, per backend.

A solve stopped by a work limit stops at the stated work, returns its incumbent as
``feasible`` (never ``optimal``), and does not claim ``limited_by_time``. Backends come from
the registry and from Pyomo's names; the ones not installed here are skipped.
"""

from __future__ import annotations

import numpy as np
import pytest

pe = pytest.importorskip("pyomo.environ")

from interpretopt.exceptions import InputError, SolverError, UnknownNameError  # noqa: E402
from interpretopt.solvers import SOLVERS, SolveSettings, SolveStatus, get_solver, solve  # noqa: E402
from interpretopt.solvers._base import _PYOMO_WORK_LIMIT_NAMES  # noqa: E402
from interpretopt.solvers._types import WORK_LIMITS  # noqa: E402

ALL_NAMES = sorted(set(SOLVERS.names()) | set(_PYOMO_WORK_LIMIT_NAMES) | {"cbc", "glpk"})


def _backend(name):
    try:
        return get_solver(name)
    except (SolverError, UnknownNameError) as exc:
        pytest.skip(f"solver {name} unavailable here: {exc}")


def market_split(m: int = 3, n: int = 20, seed: int = 0):
    """A market-split MILP (Cornuejols and Dawande): tiny, but branch and bound needs thousands of nodes."""
    rng = np.random.default_rng(seed)
    A = rng.integers(0, 100, (m, n))
    b = A.sum(axis=1) // 2
    mod = pe.ConcreteModel()
    mod.x = pe.Var(range(n), domain=pe.Binary)
    mod.up = pe.Var(range(m), bounds=(0, None))
    mod.dn = pe.Var(range(m), bounds=(0, None))
    mod.c = pe.Constraint(range(m), rule=lambda k, i: sum(int(A[i, j]) * k.x[j] for j in range(n))
                          + k.up[i] - k.dn[i] == int(b[i]))
    mod.o = pe.Objective(expr=sum(mod.up[i] + mod.dn[i] for i in range(m)))
    return mod


def dense_lp(n: int = 40, seed: int = 0):
    """A dense LP whose simplex needs dozens of iterations."""
    rng = np.random.default_rng(seed)
    A = rng.random((n, n))
    mod = pe.ConcreteModel()
    mod.x = pe.Var(range(n), bounds=(0, None))
    mod.c = pe.Constraint(range(n), rule=lambda k, i: sum(float(A[i, j]) * k.x[j] for j in range(n))
                          <= float(A[i].sum()))
    mod.o = pe.Objective(expr=sum(mod.x[j] for j in range(n)), sense=pe.maximize)
    return mod


@pytest.mark.parametrize("key", WORK_LIMITS)
@pytest.mark.parametrize("value", [0, -3, 1.5, True, "10"])
def test_a_work_limit_must_be_a_positive_integer(key, value):
    with pytest.raises(InputError, match=f"{key} is a work limit"):
        SolveSettings(**{key: value})


@pytest.mark.parametrize("name", ALL_NAMES)
def test_node_limit_stops_a_milp_at_the_stated_nodes_and_never_claims_optimal(name):
    backend = _backend(name)
    if not backend.capabilities.milp:
        pytest.skip(f"{name} solves no MILP")
    settings = SolveSettings(node_limit=5, threads=1)
    if not backend.capabilities.node_limit:
        with pytest.raises(SolverError, match="cannot honour the work limit node_limit=5"):
            solve(market_split(), name, settings)
        return
    free = solve(market_split(n=16), name, SolveSettings(threads=1))
    assert free.status is SolveStatus.OPTIMAL
    res = solve(market_split(), name, settings)
    assert res.status in (SolveStatus.FEASIBLE, SolveStatus.LIMIT)
    assert res.status is not SolveStatus.OPTIMAL
    assert not res.limited_by_time
    if res.has_solution and res.bound is not None:
        assert res.bound <= res.objective + 1e-6 and res.gap is not None and res.gap > 0
    nodes = res.info.get("mip_nodes")
    if nodes is not None:  # HiGHS counts the nodes it has opened when it checks the limit
        assert nodes <= 5 + 10


@pytest.mark.parametrize("name", ALL_NAMES)
def test_iteration_limit_stops_an_lp_and_never_claims_optimal(name):
    backend = _backend(name)
    if not backend.capabilities.lp:
        pytest.skip(f"{name} solves no LP")
    settings = SolveSettings(iteration_limit=3)
    if not backend.capabilities.iteration_limit:
        with pytest.raises(SolverError, match="cannot honour the work limit iteration_limit=3"):
            solve(dense_lp(), name, settings)
        return
    free = solve(dense_lp(), name)
    res = solve(dense_lp(), name, settings)
    assert free.status is SolveStatus.OPTIMAL
    assert res.status in (SolveStatus.FEASIBLE, SolveStatus.LIMIT)
    assert not res.limited_by_time
    iters = res.info.get("simplex_iterations", res.info.get("iterations"))
    if iters is not None:
        assert iters <= 3


def test_the_same_node_limit_gives_the_same_answer_twice():
    _backend("highs")
    a = solve(market_split(), "highs", SolveSettings(node_limit=50, threads=1))
    b = solve(market_split(), "highs", SolveSettings(node_limit=50, threads=1))
    assert a.status is b.status is SolveStatus.FEASIBLE
    assert (a.objective, a.bound) == (b.objective, b.bound)


def test_an_incremental_model_honours_and_refuses_work_limits():
    from interpretopt.solvers import IncrementalModel

    _backend("highs")
    inc = IncrementalModel.from_pyomo(market_split(), "highs")
    res = inc.solve(SolveSettings(node_limit=5, threads=1), duals=False)
    assert res.status is SolveStatus.FEASIBLE and 0 < res.info["mip_nodes"] <= 15
    res = inc.solve(SolveSettings(threads=1), duals=False)  # the limit does not stick to the model
    assert res.status is SolveStatus.OPTIMAL and res.info["mip_nodes"] > 15
    if "ortools_glop" in SOLVERS.names():
        glop = IncrementalModel.from_pyomo(dense_lp(), "ortools_glop")
        res = glop.solve(SolveSettings(iteration_limit=3), duals=False)
        assert res.status is not SolveStatus.OPTIMAL and res.info["iterations"] <= 3


def test_a_time_limit_stop_is_reported_as_limited_by_time():
    from interpretopt._clock import slowed_clock
    from interpretopt.solvers import IncrementalModel

    _backend("highs")
    inc = IncrementalModel.from_pyomo(market_split(n=24), "highs")
    # the backend's own guard reads the package clock: slowed 10^6 times, it fires at once
    with slowed_clock(1e6):
        res = inc.solve(SolveSettings(time_limit=1.0, threads=1), duals=False)
    assert res.limited_by_time and res.status is not SolveStatus.OPTIMAL
    assert res.as_dict()["limited_by_time"] is True
