"""The solver layer's shared rules: status maps, the infeasible-vs-unbounded check, the guard, the incremental paths."""

from __future__ import annotations

import numpy as np
import pytest

from interpretopt.solvers import SolveSettings, SolveStatus, make_incremental
from interpretopt.solvers._types import guard_after, map_status, tell_infeasible_from_unbounded

St = SolveStatus


def test_map_status_reads_one_table_with_and_without_a_solution():
    table = {"opt": St.OPTIMAL, "tl": (St.FEASIBLE, St.TIME_LIMIT)}
    assert map_status("opt", table, True) is St.OPTIMAL and map_status("opt", table, False) is St.OPTIMAL
    assert map_status("tl", table, True) is St.FEASIBLE and map_status("tl", table, False) is St.TIME_LIMIT
    assert map_status("odd", table, True) is St.FEASIBLE and map_status("odd", table, False) is St.UNKNOWN
    assert map_status("odd", table, False, default=St.ERROR) is St.ERROR


@pytest.mark.parametrize("zero_objective, verdict", [
    (St.OPTIMAL, St.UNBOUNDED), (St.FEASIBLE, St.UNBOUNDED), (St.INFEASIBLE, St.INFEASIBLE),
    (St.TIME_LIMIT, St.INFEASIBLE_OR_UNBOUNDED), (St.UNKNOWN, St.INFEASIBLE_OR_UNBOUNDED)])
def test_zero_objective_outcome_tells_infeasible_from_unbounded(zero_objective, verdict):
    assert tell_infeasible_from_unbounded(zero_objective) is verdict


def test_guard_waits_ten_percent_past_the_limit_and_at_least_half_a_second():
    assert guard_after(100) == pytest.approx(110.0)
    assert guard_after(1) == pytest.approx(1.5)


@pytest.mark.parametrize("solver", ["highs", "ortools_glop"])
@pytest.mark.parametrize("integer", [False, True], ids=["lp", "milp"])
def test_incremental_models_tell_unbounded_from_infeasible(solver, integer):
    if integer and solver == "ortools_glop":
        pytest.skip("GLOP solves LPs only")
    # max x + y, x - y <= 1 (unbounded); then x + y <= -1 with x, y >= 0 (infeasible)
    m = make_incremental(solver, sense="max")
    m.add_rows([-np.inf], [1.0])
    m.add_columns([1.0, 1.0], 0.0, np.inf, np.array([[1.0, -1.0]]), integer=[integer, integer])
    assert m.solve(SolveSettings(), duals=False).status is St.UNBOUNDED
    m.add_rows([-np.inf], [-1.0], A=np.array([[1.0, 1.0]]))
    assert m.solve(SolveSettings(), duals=False).status is St.INFEASIBLE
