"""Solver layer: settings, typed results, a registry of backends, and a direct incremental path.

``solve(model, solver, settings)`` solves a Pyomo model with any registered backend
(``highs`` by default; ``highs_direct``; ``ortools_glop``, ``ortools_pdlp``,
``ortools_cpsat``, ``ortools_scip``; ``scipy`` (linprog / milp, no extra install); or any solver Pyomo knows by name, such as ``cbc``,
``glpk`` or ``gurobi``) and loads the answer back into the model; ``solve_lp(program, solver, settings)`` solves a
:class:`~interpretopt._lp.LinearProgram` (the value every formulation states its LP/MILP as)
with any backend. For loops that re-solve
a model many times with columns added (column generation), ``make_incremental`` gives a
model held by HiGHS or GLOP that is changed in place and warm-started.

Dual sign convention everywhere: ``d objective / d rhs`` (in a minimization, a binding
``>=`` row has a dual ``>= 0``; in a maximization, a binding ``<=`` row has a dual ``>= 0``).
OR-Tools is imported only when an OR-Tools backend is used.
"""

from interpretopt.solvers._types import Capabilities, SolveResult, SolveSettings, SolveStatus, relative_gap
from interpretopt.solvers._base import (
    PYOMO_SOLVER_NAMES,
    SOLVERS,
    PyomoFactoryBackend,
    SolverBackend,
    available_solvers,
    describe_solvers,
    get_solver,
    register_backend,
    solve,
    solve_lp,
    unregister_backend,
)
from interpretopt.solvers import _ortools  # noqa: F401  (registers the OR-Tools backends; imports ortools lazily)
from interpretopt.solvers import _scipy  # noqa: F401  (registers the scipy backend: linprog / milp)
from interpretopt._lp import LinearProgram
from interpretopt.solvers._matrix import MatrixForm, to_matrix_form
from interpretopt.solvers._incremental import INCREMENTAL_SOLVERS, IncrementalModel, make_incremental
from interpretopt.solvers._incremental import _attach as _attach_incremental
from interpretopt.solvers._roles import DEFAULT_SOLVER, RoleAssignment, SolverRole, assign_solvers

_attach_incremental()

__all__ = [
    "Capabilities",
    "DEFAULT_SOLVER",
    "INCREMENTAL_SOLVERS",
    "IncrementalModel",
    "LinearProgram",
    "MatrixForm",
    "PYOMO_SOLVER_NAMES",
    "PyomoFactoryBackend",
    "RoleAssignment",
    "SOLVERS",
    "SolveResult",
    "SolveSettings",
    "SolveStatus",
    "SolverBackend",
    "SolverRole",
    "assign_solvers",
    "available_solvers",
    "describe_solvers",
    "get_solver",
    "make_incremental",
    "register_backend",
    "relative_gap",
    "solve",
    "solve_lp",
    "to_matrix_form",
    "unregister_backend",
]
