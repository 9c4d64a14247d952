"""The OR-Tools backends' status mapping: the wall-clock guard and what a run reports after it."""
from __future__ import annotations

import pytest

from interpretopt.solvers import SolveStatus
from interpretopt.solvers._base import SOLVERS

mbh = pytest.importorskip("ortools.linear_solver.python.model_builder_helper")

ORTOOLS = [name for name in SOLVERS if name.startswith("ortools_")]


class _FinishedSolver:
    """A model-builder solver that has finished with ``status`` (the guard may have fired meanwhile)."""

    def __init__(self, status):
        self._status = status

    def status(self):
        return self._status

    def status_string(self):
        return ""

    def has_solution(self):
        return self._status in (mbh.SolveStatus.OPTIMAL, mbh.SolveStatus.FEASIBLE)


@pytest.mark.parametrize("name", ORTOOLS)
def test_a_proven_optimum_is_not_time_limited_even_if_the_guard_fired(name):
    """The guard can fire in the instant the solver proves optimality: the answer is still a proof."""
    backend = SOLVERS.get(name)
    st, status, has_sol, message, limited = backend._termination(
        _FinishedSolver(mbh.SolveStatus.OPTIMAL), None, 1.0, "", fired=[True], solve_time=1.2)
    assert status is SolveStatus.OPTIMAL and has_sol
    assert not limited
    assert "wall-clock guard" in message  # the run still says that the guard fired


@pytest.mark.parametrize("name", ORTOOLS)
def test_an_interrupted_solve_is_time_limited(name):
    backend = SOLVERS.get(name)
    _, status, has_sol, _, limited = backend._termination(
        _FinishedSolver(mbh.SolveStatus.FEASIBLE), None, 1.0, "", fired=[True], solve_time=1.2)
    assert status is not SolveStatus.OPTIMAL and has_sol
    assert limited
