"""Solver registry, the ``solve`` entry point, and the Pyomo-driven backends.

Every backend has a name (the config string), ``available()``, ``version()`` and
``capabilities`` (``lp``, ``milp``, ``duals``). ``solve(model, solver, settings)``
translates as needed, solves, loads the primal values into the Pyomo variables (and the
row duals into the model's ``dual`` suffix when asked) and returns a :class:`SolveResult`.
"""

from __future__ import annotations

import math
import time
from typing import Any

from interpretopt._registry import Registry
from interpretopt.exceptions import InputError, SolverError, UnknownNameError
from interpretopt.solvers._types import (WORK_LIMITS, Capabilities, SolveResult, SolveSettings, SolveStatus,
                                         check_work_limits, map_status, relative_gap, tell_infeasible_from_unbounded)

__all__ = [
    "SOLVERS",
    "SolverBackend",
    "register_backend",
    "unregister_backend",
    "available_solvers",
    "describe_solvers",
    "get_solver",
    "solve",
    "solve_lp",
    "PYOMO_SOLVER_NAMES",
]

SOLVERS: Registry[SolverBackend] = Registry("solver")

#: Pyomo solver names probed by :func:`available_solvers` (any other Pyomo name also works in ``solve``).
PYOMO_SOLVER_NAMES = ("cbc", "glpk", "gurobi", "cplex", "scip", "xpress", "mosek", "appsi_highs")

# common settings -> each Pyomo solver's own option names (time, gap, threads, seed)
_PYOMO_OPTION_NAMES: dict[str, dict[str, str]] = {
    "cbc": {"time_limit": "sec", "mip_gap": "ratio", "threads": "threads"},
    "glpk": {"time_limit": "tmlim", "mip_gap": "mipgap"},
    "gurobi": {"time_limit": "TimeLimit", "mip_gap": "MIPGap", "threads": "Threads", "seed": "Seed"},
    "gurobi_direct": {"time_limit": "TimeLimit", "mip_gap": "MIPGap", "threads": "Threads", "seed": "Seed"},
    "gurobi_persistent": {"time_limit": "TimeLimit", "mip_gap": "MIPGap", "threads": "Threads", "seed": "Seed"},
    "cplex": {"time_limit": "timelimit", "mip_gap": "mipgap", "threads": "threads", "seed": "randomseed"},
    "cplex_direct": {"time_limit": "timelimit", "mip_gap": "mip_tolerances_mipgap", "threads": "threads"},
    "scip": {"time_limit": "limits/time", "mip_gap": "limits/gap", "seed": "randomization/randomseedshift"},
    "xpress": {"time_limit": "maxtime", "mip_gap": "miprelstop", "threads": "threads"},
    "mosek": {"time_limit": "dparam.optimizer_max_time", "mip_gap": "dparam.mio_tol_rel_gap"},
    "appsi_highs": {"time_limit": "time_limit", "mip_gap": "mip_rel_gap", "threads": "threads", "seed": "random_seed"},
}
# work limits -> each Pyomo solver's own option names; a solver missing here cannot honour that
# limit and refuses it (glpsol has neither a node nor an iteration limit)
_PYOMO_WORK_LIMIT_NAMES: dict[str, dict[str, str]] = {
    "cbc": {"node_limit": "maxNodes", "iteration_limit": "maxIterations"},
    "gurobi": {"node_limit": "NodeLimit", "iteration_limit": "IterationLimit"},
    "gurobi_direct": {"node_limit": "NodeLimit", "iteration_limit": "IterationLimit"},
    "gurobi_persistent": {"node_limit": "NodeLimit", "iteration_limit": "IterationLimit"},
    "scip": {"node_limit": "limits/nodes"},
    "appsi_highs": {"node_limit": "mip_max_nodes", "iteration_limit": "simplex_iteration_limit"},
}
for _name, _work in _PYOMO_WORK_LIMIT_NAMES.items():
    _PYOMO_OPTION_NAMES[_name].update(_work)


#: GLPK 5 words its simplex verdicts "LP HAS ..."; Pyomo's log reader looks for GLPK 4's
#: "PROBLEM HAS ..." only, and the solution file then says UNDEFINED (the presolver's answer).
_GLPK_LOG_VERDICTS = (("LP HAS NO PRIMAL FEASIBLE SOLUTION", SolveStatus.INFEASIBLE),
                      ("LP HAS UNBOUNDED PRIMAL SOLUTION", SolveStatus.UNBOUNDED),
                      ("LP HAS NO DUAL FEASIBLE SOLUTION", SolveStatus.INFEASIBLE_OR_UNBOUNDED))


def _glpk_log_verdict(log: str, is_mip: bool) -> SolveStatus:
    """GLPK's verdict read from its log, or ``unknown``.

    For a MILP the lines are about its LP relaxation: an infeasible relaxation proves the
    MILP infeasible, an unbounded one leaves ``infeasible_or_unbounded`` (to be settled).
    """
    for words, status in _GLPK_LOG_VERDICTS:
        if words in log:
            if is_mip and status is SolveStatus.UNBOUNDED:
                return SolveStatus.INFEASIBLE_OR_UNBOUNDED
            return status
    return SolveStatus.UNKNOWN


def _register(cls):
    """Class decorator: register one instance of a backend class under its ``name``."""
    SOLVERS.register(cls.name, cls())
    return cls


def register_backend(backend):
    """Register a solver backend: a :class:`SolverBackend` subclass (one instance is registered; usable as a
    class decorator) or an instance. Returns its argument.

    The backend is then a solver string of configs and estimators, listed by ``interpretopt list
    solvers`` and accepted wherever a method asks for capabilities it declares. A backend that
    declares ``Capabilities(incremental=True)`` must set ``incremental_model`` to its
    :class:`~interpretopt.solvers.IncrementalModel` subclass; it then also holds column
    generation's master (``make_incremental``).

    Raises
    ------
    SolverError
        ``backend`` is not a :class:`SolverBackend`, has no ``name``, declares no
        :class:`Capabilities`, declares an incremental model without giving one, or its name is taken.
    """
    from interpretopt.solvers._incremental import INCREMENTAL_SOLVERS, IncrementalModel

    obj = backend() if isinstance(backend, type) and issubclass(backend, SolverBackend) else backend
    if not isinstance(obj, SolverBackend):
        raise SolverError(f"register_backend takes a SolverBackend subclass or instance, got {backend!r}")
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not name or name == SolverBackend.name:
        raise SolverError(f"{type(obj).__name__}: set `name`, the solver string users will type")
    if not isinstance(getattr(obj, "capabilities", None), Capabilities):
        raise SolverError(f"{type(obj).__name__}: set `capabilities = Capabilities(...)`")
    model = getattr(obj, "incremental_model", None)
    if obj.capabilities.incremental and not (isinstance(model, type) and issubclass(model, IncrementalModel)):
        raise SolverError(f"{name}: declares Capabilities(incremental=True) but sets no `incremental_model` "
                          "(an IncrementalModel subclass)")
    if name in SOLVERS:
        raise SolverError(f"solver {name!r} is already registered; choose another name")
    SOLVERS.register(name, obj)
    if obj.capabilities.incremental:
        INCREMENTAL_SOLVERS[name] = model
    return backend


def unregister_backend(name: str) -> None:
    """Remove a backend registered with :func:`register_backend` (a plug-in unloaded, a test's toy)."""
    from interpretopt.solvers._incremental import INCREMENTAL_SOLVERS

    SOLVERS.get(name)  # an unknown name lists the registered ones
    SOLVERS._items.pop(name)
    INCREMENTAL_SOLVERS.pop(name, None)


class SolverBackend:
    """Base class of a registered backend."""

    name: str = ""
    capabilities: Capabilities = Capabilities(lp=True, milp=True, duals=False)
    description: str = ""
    #: the :class:`~interpretopt.solvers._incremental.IncrementalModel` subclass of a backend
    #: that declares ``capabilities.incremental`` (attached where that class is defined)
    incremental_model: type | None = None
    #: it solves a :class:`~interpretopt._lp.LinearProgram` from its arrays (:meth:`solve_program`),
    #: so :func:`solve_lp` builds no Pyomo model for it
    solves_arrays: bool = False

    def available(self) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError

    def version(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def unavailable_reason(self) -> str:
        return f"{self.name} is not installed"

    def _solve(self, model, settings: SolveSettings, duals: bool) -> SolveResult:  # pragma: no cover
        raise NotImplementedError

    def solve(self, model, settings: SolveSettings | None = None, *, duals: bool = False) -> SolveResult:
        """Solve ``model``; see :func:`interpretopt.solvers.solve`."""
        settings = _as_settings(settings)
        if not self.available():
            raise SolverError(f"solver {self.name!r} is not available: {self.unavailable_reason()}; "
                              f"available here: {', '.join(available_solvers())}")
        if duals and not self.capabilities.duals:
            raise SolverError(
                f"solver {self.name!r} does not return duals; use one of "
                f"{', '.join(n for n in available_solvers() if _caps(n).duals)} for duals"
            )
        check_work_limits(settings, self.name, self.capabilities)
        t0 = time.perf_counter()
        result = self._solve(model, settings, duals)
        result.wall_time = time.perf_counter() - t0
        _note_time_stop(result, settings)
        _note_overrun(result, settings)
        return result

    def solve_program(self, lp, settings: SolveSettings, *, duals: bool = False) -> SolveResult:  # pragma: no cover
        """Solve a program from its arrays; a backend declaring :attr:`solves_arrays` defines it."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<solver {self.name}>"


def _caps(name: str) -> Capabilities:
    try:
        return get_solver(name).capabilities
    except Exception:
        return Capabilities(False, False, False)


def _as_settings(settings) -> SolveSettings:
    if settings is None:
        return SolveSettings()
    if isinstance(settings, SolveSettings):
        return settings
    if isinstance(settings, dict):
        try:
            return SolveSettings(**settings)
        except TypeError as exc:
            raise InputError(f"invalid solver settings {settings!r}: {exc}") from None
    raise InputError(f"settings must be a SolveSettings or a dict, got {type(settings).__name__}")


def _note_time_stop(result: SolveResult, settings: SolveSettings) -> None:
    """``limited_by_time`` for a solve the time limit stopped, also where the backend does not say
    why it stopped (e.g. glpk through Pyomo): not optimal, and as long as the limit."""
    if result.status is SolveStatus.TIME_LIMIT:
        result.limited_by_time = True
    tl = settings.time_limit
    spent = result.solve_time if result.solve_time is not None else result.wall_time
    stopped = result.status in (SolveStatus.FEASIBLE, SolveStatus.LIMIT, SolveStatus.UNKNOWN)
    if tl is not None and stopped and spent >= 0.95 * tl:
        result.limited_by_time = True


def _note_overrun(result: SolveResult, settings: SolveSettings) -> None:
    tl = settings.time_limit
    spent = result.solve_time if result.solve_time is not None else result.wall_time
    if tl is not None and spent > 1.2 * tl + 0.5:
        note = f"the solver overran its time limit of {tl:g} s (ran {spent:.2f} s)"
        result.message = f"{result.message}; {note}" if result.message else note
        result.info["overran_time_limit"] = True


def _merge_native(settings: SolveSettings, names: dict[str, str], backend: str) -> tuple[dict[str, Any], list[str]]:
    """Common settings under the solver's own names, then the passthrough options (which win)."""
    native: dict[str, Any] = {}
    unmapped: list[str] = []
    for key in ("time_limit", "mip_gap", "threads", "seed", *WORK_LIMITS):
        val = getattr(settings, key)
        if val is None or (key == "seed" and val == 0 and key not in names):
            continue
        if key in names:
            if backend == "glpk" and key == "time_limit":
                val = max(1, int(math.ceil(val)))
            native[names[key]] = val
        elif key not in ("seed", *WORK_LIMITS):  # a work limit no backend name maps is refused before
            unmapped.append(key)
    native.update(settings.options_for(backend, frozenset(SOLVERS.names()) | frozenset(PYOMO_SOLVER_NAMES)))
    return native, unmapped


def _model_is_mip(model) -> bool:
    import pyomo.environ as pe

    return any(not v.is_continuous() for v in model.component_data_objects(pe.Var, active=True) if not v.fixed)


def _check_model(model) -> None:
    import pyomo.environ as pe

    if not isinstance(model, pe.Block):
        raise InputError(f"expected a Pyomo model (ConcreteModel), got {type(model).__name__}")


# ----------------------------------------------------------------------------------------
# HiGHS through Pyomo (pyomo.contrib.solver's HiGHS interface)


@_register
class _PyomoHighs(SolverBackend):
    name = "highs"
    capabilities = Capabilities(lp=True, milp=True, duals=True, incremental=True, warm_start=True,
                                node_limit=True, iteration_limit=True)
    description = "HiGHS through Pyomo's solver interface (default)"

    def available(self) -> bool:
        try:
            import highspy  # noqa: F401
            from pyomo.contrib.solver.solvers.highs import Highs  # noqa: F401
        except Exception:
            return False
        return True

    def unavailable_reason(self) -> str:
        return "install highspy (pip install highspy) and pyomo >= 6.9"

    def version(self) -> str:
        import highspy

        try:
            return f"{highspy.HIGHS_VERSION_MAJOR}.{highspy.HIGHS_VERSION_MINOR}.{highspy.HIGHS_VERSION_PATCH}"
        except AttributeError:
            return "unknown"

    def _solve(self, model, settings, duals):
        from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition
        from pyomo.contrib.solver.solvers.highs import Highs

        from interpretopt.solvers._matrix import dual_suffix

        _check_model(model)
        if duals and _model_is_mip(model):
            raise SolverError("duals were requested for a model with integer variables; duals exist only for LPs "
                              "(relax or fix the integer variables first)")
        native, _ = _merge_native(
            settings,
            {"time_limit": "time_limit", "mip_gap": "mip_rel_gap", "threads": "threads", "seed": "random_seed",
             "node_limit": "mip_max_nodes", "iteration_limit": "simplex_iteration_limit"},
            self.name,
        )
        from interpretopt.solvers._incremental import prepare_highs_threads

        prepare_highs_threads(native.get("threads"))
        opt = _checked_highs_class(Highs)()
        t0 = time.perf_counter()
        try:
            res = opt.solve(
                model,
                tee=bool(settings.verbose),
                load_solutions=False,
                raise_exception_on_nonoptimal_result=False,
                solver_options=native,
            )
        except _NonFiniteModel as exc:
            raise SolverError(str(exc)) from None
        except Exception as exc:
            kind = type(exc).__name__
            if "Incompatible" in kind or "degree" in str(exc) or "nonlinear" in str(exc).lower():
                raise SolverError(f"HiGHS cannot solve this model (it is not linear or quadratic): {exc}") from None
            raise SolverError(f"HiGHS failed through Pyomo: {kind}: {exc}") from None
        elapsed = time.perf_counter() - t0
        tc = res.termination_condition
        has_sol = res.solution_status in (SolutionStatus.optimal, SolutionStatus.feasible)
        status = _status_from_v2(tc, has_sol, TerminationCondition)
        if not status.has_solution:
            has_sol = False
        objective = res.incumbent_objective if has_sol else None
        bound = res.objective_bound
        if status is SolveStatus.OPTIMAL and bound is None:
            bound = objective
        if bound is not None and not math.isfinite(bound):
            bound = None
        message = tc.name
        if has_sol:
            res.solution_loader.load_vars()
            if duals:
                suffix = dual_suffix(model)
                suffix.clear()
                try:
                    for con, y in res.solution_loader.get_duals().items():
                        suffix[con] = y
                except Exception as exc:
                    message += f"; duals unavailable: {exc}"
        extra = dict(res.extra_info) if hasattr(res, "extra_info") else {}
        solve_time = getattr(res.timing_info, "highs_time", None)
        info = {k: v for k, v in extra.items() if isinstance(v, (int, float))}
        info["translate_and_solve_time"] = elapsed
        return SolveResult(status=status, objective=objective, bound=bound,
                           gap=relative_gap(objective, bound) if has_sol else None, solver=self.name,
                           version=self.version(), message=message, termination=tc.name, solve_time=solve_time,
                           info=info, limited_by_time=tc == TerminationCondition.maxTimeLimit)


class _NonFiniteModel(Exception):
    """A NaN or infinite number reached the solver's copy of the model."""


_CHECKED_HIGHS: dict[type, type] = {}


def _checked_highs_class(base: type) -> type:
    """Pyomo's HiGHS interface with a check, before HiGHS runs, that the model it received is finite.

    Pyomo passes NaN coefficients on to HiGHS, which then reports an optimum of a model that
    is not the one written; one pass over HiGHS' arrays (about 0.2 s per million nonzeros)
    turns that into an error.
    """
    cls = _CHECKED_HIGHS.get(base)
    if cls is None:
        def _solve(self):
            _check_highs_lp(self._solver_model)
            expected = getattr(self, "_pyomo_con_to_solver_con_map", None)
            if expected is not None and self._solver_model.getNumRow() < len(expected):
                # HiGHS refuses a block of rows holding an infinite coefficient, and Pyomo
                # does not look at the status HiGHS returns
                raise _NonFiniteModel(
                    f"HiGHS accepted {self._solver_model.getNumRow()} of the model's {len(expected)} constraints; "
                    "the others hold NaN or infinite coefficients; check the data the model was built from")
            return base._solve(self)

        cls = type("CheckedHighs", (base,), {"_solve": _solve})
        _CHECKED_HIGHS[base] = cls
    return cls


def _check_highs_lp(highs) -> None:
    import numpy as np

    lp = highs.getLp()
    cost = np.asarray(lp.col_cost_, dtype=float)
    if cost.size and not np.isfinite(cost).all():
        raise _NonFiniteModel(f"the objective has {int((~np.isfinite(cost)).sum())} NaN or infinite "
                              "coefficient(s); check the data the model was built from")
    values = np.asarray(lp.a_matrix_.value_, dtype=float)
    if values.size and not np.isfinite(values).all():
        raise _NonFiniteModel(f"the constraints have {int((~np.isfinite(values)).sum())} NaN or infinite "
                              "coefficient(s); check the data the model was built from")
    for what, arr in (("row lower", lp.row_lower_), ("row upper", lp.row_upper_),
                      ("variable lower", lp.col_lower_), ("variable upper", lp.col_upper_)):
        a = np.asarray(arr, dtype=float)
        if a.size and np.isnan(a).any():
            raise _NonFiniteModel(f"{int(np.isnan(a).sum())} {what} bound(s) are NaN; "
                                  "check the data the model was built from")


def _status_from_v2(tc, has_sol: bool, TC) -> SolveStatus:
    """HiGHS-through-Pyomo's one status map (Pyomo's ``TerminationCondition``, see :func:`map_status`)."""
    St = SolveStatus
    limit = (St.FEASIBLE, St.LIMIT)
    table = {TC.convergenceCriteriaSatisfied: (St.OPTIMAL, St.UNKNOWN), TC.maxTimeLimit: (St.FEASIBLE, St.TIME_LIMIT),
             TC.iterationLimit: limit, TC.objectiveLimit: limit, TC.interrupted: limit, TC.minStepLength: limit,
             TC.provenInfeasible: St.INFEASIBLE, TC.locallyInfeasible: St.INFEASIBLE, TC.unbounded: St.UNBOUNDED,
             TC.infeasibleOrUnbounded: St.INFEASIBLE_OR_UNBOUNDED, TC.error: St.ERROR, TC.licensingProblems: St.ERROR}
    return map_status(tc, table, has_sol)


# ----------------------------------------------------------------------------------------
# HiGHS directly: to_matrix_form + highspy (no Pyomo solver interface)


@_register
class _DirectHighs(_PyomoHighs):
    """The same solver and capabilities as ``highs``, without Pyomo's solver interface."""

    name = "highs_direct"
    description = "HiGHS on the compiled matrix form (highspy directly)"

    def unavailable_reason(self) -> str:
        return "install highspy (pip install highspy)"

    def _solve(self, model, settings, duals):
        return _solve_via_incremental(model, settings, duals, "highs", self.name)


def _solve_via_incremental(model, settings, duals, kind: str, name: str) -> SolveResult:
    from interpretopt.solvers._incremental import IncrementalModel

    t0 = time.perf_counter()
    inc = IncrementalModel.from_pyomo(model, solver=kind)
    build = time.perf_counter() - t0
    if duals and inc.matrix_form.is_mip:
        raise SolverError("duals were requested for a model with integer variables; duals exist only for LPs "
                          "(relax or fix the integer variables first)")
    res = inc.solve(settings, duals=duals)
    inc.load_solution(res, duals=duals)
    res.solver = name
    res.info["build_time"] = build
    return res


# ----------------------------------------------------------------------------------------
# Any other solver Pyomo knows, by its Pyomo name


def _legacy_statuses(TC) -> dict:
    """The status map of solvers behind Pyomo's legacy interface (``pyomo.opt.TerminationCondition``)."""
    St = SolveStatus
    table = {c: (St.OPTIMAL, St.UNKNOWN) for c in (TC.optimal, TC.globallyOptimal, TC.locallyOptimal)}
    table.update({c: (St.FEASIBLE, St.LIMIT) for c in (TC.maxIterations, TC.maxEvaluations, TC.minStepLength,
                                                        TC.userInterrupt, TC.resourceInterrupt,
                                                        TC.licensingProblems, TC.intermediateNonInteger)})
    table.update({c: St.ERROR for c in (TC.error, TC.solverFailure, TC.internalSolverError, TC.invalidProblem)})
    table.update({TC.maxTimeLimit: (St.FEASIBLE, St.TIME_LIMIT), TC.infeasible: St.INFEASIBLE,
                  TC.unbounded: St.UNBOUNDED, TC.infeasibleOrUnbounded: St.INFEASIBLE_OR_UNBOUNDED})
    return table


class PyomoFactoryBackend(SolverBackend):
    """A solver reached through ``pyomo.environ.SolverFactory(name)``."""

    capabilities = Capabilities(lp=True, milp=True, duals=True)

    def __init__(self, name: str) -> None:
        import dataclasses

        self.name = name
        self.description = f"Pyomo SolverFactory({name!r})"
        work = _PYOMO_WORK_LIMIT_NAMES.get(name, {})
        self.capabilities = dataclasses.replace(type(self).capabilities, **{k: k in work for k in WORK_LIMITS})

    def _factory(self):
        import logging

        import pyomo.environ as pe

        logging.getLogger("pyomo.solvers").setLevel(logging.ERROR)
        # an unknown name makes SolverFactory log a warning with a traceback on "pyomo.opt"
        # before returning an UnknownSolver; the caller reports the name cleanly instead
        opt_log = logging.getLogger("pyomo.opt")
        level = opt_log.level
        opt_log.setLevel(logging.CRITICAL)
        try:
            return pe.SolverFactory(self.name)
        finally:
            opt_log.setLevel(level)

    def known(self) -> bool:
        from pyomo.opt.base.solvers import UnknownSolver

        try:
            opt = self._factory()
        except Exception:
            return False
        return not isinstance(opt, UnknownSolver)

    def available(self) -> bool:
        try:
            opt = self._factory()
            ok = bool(opt.available(exception_flag=False))
            if ok and hasattr(opt, "license_is_valid"):
                ok = bool(opt.license_is_valid())
            return ok
        except Exception:
            return False

    def unavailable_reason(self) -> str:
        return f"Pyomo knows {self.name!r} but cannot find its executable or library on this machine"

    def version(self) -> str:
        try:
            v = self._factory().version()
        except Exception:
            return "unknown"
        if v is None:
            return "unknown"
        if isinstance(v, tuple):
            if any(isinstance(p, int) and p > 9999 for p in v):
                # Pyomo misreads some builds' banners (a CBC "devel" build gives timing digits)
                return "unknown"
            return ".".join(str(p) for p in v)
        return str(v)

    def _solve(self, model, settings, duals):
        import pyomo.environ as pe
        from interpretopt.solvers._matrix import dual_suffix

        _check_model(model)
        is_mip = _model_is_mip(model)
        if duals and is_mip:
            raise SolverError("duals were requested for a model with integer variables; duals exist only for LPs "
                              "(relax or fix the integer variables first)")
        names = _PYOMO_OPTION_NAMES.get(self.name, {})
        native, unmapped = _merge_native(settings, names, self.name)
        if duals:
            suffix = dual_suffix(model)
            suffix.clear()
        t0 = time.perf_counter()
        res, tc, has_sol, status, verdict = self._run(model, native, settings, is_mip)
        solve_time = time.perf_counter() - t0
        objective = None
        if has_sol:
            import logging

            core_log = logging.getLogger("pyomo.core")
            level = core_log.level
            core_log.setLevel(logging.ERROR)  # Pyomo warns when loading the incumbent of a stopped solve
            try:
                model.solutions.load_from(res)
            except Exception as exc:
                raise SolverError(f"{self.name} returned a solution Pyomo could not load ({type(exc).__name__}: "
                                  f"{exc}); check the model for NaN or infinite coefficients") from None
            finally:
                core_log.setLevel(level)
            objs = list(model.component_data_objects(pe.Objective, active=True))
            if objs:
                try:
                    objective = float(pe.value(objs[0]))
                except Exception:
                    objective = None
        sense_max = False
        objs = list(model.component_data_objects(pe.Objective, active=True))
        if objs:
            sense_max = objs[0].sense == pe.maximize
        raw_bound = res.problem.upper_bound if sense_max else res.problem.lower_bound
        try:
            bound = float(raw_bound)
            if not math.isfinite(bound):
                bound = None
        except (TypeError, ValueError):
            bound = None
        if objective is not None and bound is not None:
            tol = 1e-9 * max(1.0, abs(objective))
            wrong_side = bound < objective - tol if sense_max else bound > objective + tol
            # some plugins report the incumbent as the "bound" of a stopped solve
            if wrong_side or (status is not SolveStatus.OPTIMAL and abs(bound - objective) <= tol):
                bound = None
        if status is SolveStatus.OPTIMAL and (bound is None or not is_mip):
            bound = objective
        message = str(tc) + (f"; {verdict}" if verdict else "")
        if unmapped:
            message += (f"; settings {', '.join(unmapped)} were not passed to {self.name} (no known option name): "
                        "give them in SolveSettings.options under the solver's own names")
        return SolveResult(status=status, objective=objective, bound=bound,
                           gap=relative_gap(objective, bound) if has_sol else None, solver=self.name,
                           version=self.version(), message=message, termination=str(tc), solve_time=solve_time,
                           limited_by_time=str(tc) == "maxTimeLimit")

    def _run(self, model, native: dict, settings, is_mip: bool):
        """One solve, its status read from the termination, the solution and (GLPK) the log, then checked.

        An ``unbounded`` or ``infeasible_or_unbounded`` verdict is settled by
        :func:`~interpretopt.solvers._types.tell_infeasible_from_unbounded`: CBC reports
        "unbounded" for a MILP whose LP relaxation is unbounded even when no integer point
        exists, and GLPK cannot say which for a MILP; a zero-objective solve of the same rows
        tells. Returns ``(results, termination, has_solution, status, note)``.
        """
        res, tc, has_sol, status = self._solve_once(model, native, settings, is_mip)
        note = ""
        if status in (SolveStatus.UNBOUNDED, SolveStatus.INFEASIBLE_OR_UNBOUNDED):
            zero = self._zero_objective_status(model, native, settings, is_mip)
            settled = tell_infeasible_from_unbounded(zero)
            note = (f"{self.name} ended with {str(tc)!r}; a zero-objective solve of the same constraints "
                    f"returned {zero.value}, so the model is {settled.value}")
            status = settled
        return res, tc, has_sol, status, note

    def _solve_once(self, model, native: dict, settings, is_mip: bool):
        from pyomo.opt import SolutionStatus as SS
        from pyomo.opt import TerminationCondition as TC

        opt = self._factory()
        for k, v in native.items():
            opt.options[k] = v
        try:
            res = opt.solve(model, tee=bool(settings.verbose), load_solutions=False)
        except Exception as exc:
            raise SolverError(f"{self.name} failed through Pyomo: {type(exc).__name__}: {exc}") from None
        tc = res.solver.termination_condition
        sols = getattr(res, "solution", None)
        has_sol = False
        if sols is not None and len(sols) > 0:
            st = sols(0).status if callable(sols) else sols[0].status
            has_sol = st in (SS.optimal, SS.globallyOptimal, SS.locallyOptimal, SS.feasible, SS.bestSoFar,
                             SS.stoppedByLimit, SS.other)
        if tc in (TC.infeasible, TC.unbounded, TC.infeasibleOrUnbounded, TC.invalidProblem):
            has_sol = False
        status = map_status(tc, _legacy_statuses(TC), has_sol)
        if status is SolveStatus.UNKNOWN and not has_sol and self.name == "glpk":
            status = _glpk_log_verdict(str(getattr(opt, "_log", "") or ""), is_mip)
        elif status is SolveStatus.UNBOUNDED and is_mip:
            status = SolveStatus.INFEASIBLE_OR_UNBOUNDED  # the LP relaxation's verdict, not the MILP's
        return res, tc, has_sol, status

    def _zero_objective_status(self, model, native: dict, settings, is_mip: bool) -> SolveStatus:
        """The status of ``model`` solved with its objective replaced by 0 (then restored)."""
        import pyomo.environ as pe

        objectives = [o for o in model.component_data_objects(pe.Objective, active=True)]
        name = "_interpretopt_zero_objective"
        for o in objectives:
            o.deactivate()
        model.add_component(name, pe.Objective(expr=0.0))
        try:
            return self._solve_once(model, native, settings, is_mip)[3]
        finally:
            model.del_component(name)
            for o in objectives:
                o.activate()


# ----------------------------------------------------------------------------------------
# lookup


_PYOMO_BACKENDS: dict[str, PyomoFactoryBackend] = {}
_AVAILABLE_CACHE: dict[str, bool] = {}


def _is_available(backend: SolverBackend) -> bool:
    if backend.name not in _AVAILABLE_CACHE:
        _AVAILABLE_CACHE[backend.name] = bool(backend.available())
    return _AVAILABLE_CACHE[backend.name]


def _lookup(name: str) -> SolverBackend | None:
    if name in SOLVERS:
        return SOLVERS.get(name)
    if name in _PYOMO_BACKENDS:
        return _PYOMO_BACKENDS[name]
    backend = PyomoFactoryBackend(name)
    if backend.known():
        _PYOMO_BACKENDS[name] = backend
        return backend
    return None


def get_solver(name: str) -> SolverBackend:
    """The backend registered (or known to Pyomo) under ``name``, checked to be available.

    Raises
    ------
    UnknownNameError
        When neither interpretopt nor Pyomo knows the name; the message lists the solvers
        available on this machine.
    SolverError
        When the solver is known but not installed here.
    """
    if not isinstance(name, str) or not name:
        raise InputError(f"solver must be a non-empty string, got {name!r}")
    backend = _lookup(name)
    if backend is None:
        raise UnknownNameError("solver", name, available_solvers())
    if not _is_available(backend):
        raise SolverError(
            f"solver {name!r} is not available on this machine ({backend.unavailable_reason()}); "
            f"available: {', '.join(available_solvers())}"
        )
    return backend


def available_solvers() -> list[str]:
    """Names of the solvers usable on this machine: registered backends, then Pyomo solvers found."""
    names = [n for n in SOLVERS.names() if _is_available(SOLVERS.get(n))]
    for pname in PYOMO_SOLVER_NAMES:
        if pname in SOLVERS:
            continue
        backend = _lookup(pname)
        if backend is not None and _is_available(backend):
            names.append(pname)
    return names


def describe_solvers() -> list[dict[str, Any]]:
    """One row per registered backend and probed Pyomo solver: name, available, version, its capabilities."""
    rows = []
    names = list(SOLVERS.names()) + [n for n in PYOMO_SOLVER_NAMES if n not in SOLVERS]
    for n in names:
        b = _lookup(n)
        if b is None:
            continue
        ok = _is_available(b)
        rows.append({
            "name": n,
            "available": ok,
            "version": b.version() if ok else "",
            **b.capabilities.as_dict(),
            "description": b.description,
        })
    return rows


def solve(model, solver: str = "highs", settings: SolveSettings | None = None, *, duals: bool = False) -> SolveResult:
    """Solve a Pyomo model and load the solution into it.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
    solver : str, default "highs"
        ``highs`` (HiGHS through Pyomo), ``highs_direct`` (HiGHS on the compiled matrix),
        ``ortools_glop``, ``ortools_pdlp``, ``ortools_cpsat``, ``ortools_scip``, or any
        Pyomo solver name (``cbc``, ``glpk``, ``gurobi``, ...).
    settings : SolveSettings or dict, optional
    duals : bool, default False
        Fill ``model.dual`` (an import ``Suffix``, created when missing) with the row
        duals, sign convention ``d objective / d rhs`` (minimization: ``>=`` rows have
        duals ``>= 0``). Only for LPs and backends that return duals.

    Returns
    -------
    SolveResult
        The status says whether a solution was loaded (``result.has_solution``); nothing
        falls back silently to another solver.

    Examples
    --------
    >>> import pyomo.environ as pe
    >>> m = pe.ConcreteModel(); m.x = pe.Var(bounds=(0, 4))
    >>> m.o = pe.Objective(expr=-m.x)
    >>> solve(m).objective
    -4.0
    """
    return get_solver(solver).solve(model, _as_settings(settings), duals=duals)


def solve_lp(lp, solver: str = "highs", settings: SolveSettings | None = None, *, duals: bool = False,
             presolve: bool | None = None, start=None) -> SolveResult:
    """Solve a :class:`~interpretopt._lp.LinearProgram` with any registered backend.

    A backend with ``Capabilities.incremental`` loads the program's arrays directly
    (:meth:`IncrementalModel.from_lp`; ``start``, a full primal vector, is passed as a MIP
    start when the backend declares ``warm_start``; ``presolve`` as in
    :meth:`IncrementalModel.solve`); any other backend solves the Pyomo model built from the
    program (:meth:`LinearProgram.to_pyomo`). Either way ``result.x`` is in the program's
    column order and ``result.duals`` (when asked for, LPs only) in its row order, with the
    sign convention of :func:`solve`.
    """
    import numpy as np

    from interpretopt.solvers._incremental import IncrementalModel

    settings = _as_settings(settings)
    backend = get_solver(solver)
    check_work_limits(settings, backend.name, backend.capabilities)
    if duals and lp.is_mip:
        raise SolverError("duals were requested for a program with integer variables; duals exist only for LPs")
    if backend.capabilities.incremental:
        inc = IncrementalModel.from_lp(lp, solver)
        if start is not None and backend.capabilities.warm_start:
            inc.set_start(np.asarray(start, dtype=float))
        res = inc.solve(settings, duals=duals, presolve=presolve)
        res.solver = backend.name
        return res
    if backend.solves_arrays:
        t0 = time.perf_counter()
        res = backend.solve_program(lp, settings, duals=duals)
        res.wall_time = time.perf_counter() - t0
        _note_time_stop(res, settings)
        _note_overrun(res, settings)
        return res
    model = lp.to_pyomo()
    res = backend.solve(model, settings, duals=duals)
    if res.has_solution:
        res.x = np.array([v.value if v.value is not None else 0.0 for v in lp.pyomo_variables(model)], dtype=float)
        if duals:
            suffix = model.component("dual")
            res.duals = np.array([suffix.get(con, 0.0) if con is not None and suffix is not None else 0.0
                                  for con in lp.pyomo_constraints(model)], dtype=float)
    return res
