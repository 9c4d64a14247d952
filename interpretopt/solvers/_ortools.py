"""OR-Tools backends: GLOP, PDLP, CP-SAT and SCIP on the compiled matrix form.

The linear Pyomo model is compiled once by :func:`to_matrix_form` and handed to OR-Tools'
model builder in one vectorized call (``fill_model_from_sparse_data``); primal values and,
for GLOP and PDLP, row duals and reduced costs are mapped back into the Pyomo model.

CP-SAT works on integers: it scales fractional coefficients itself, but it would also
silently treat continuous variables as integers, so a model with continuous variables is
refused unless the option ``discretize_continuous=True`` is given, in which case the
answer is reported as ``feasible`` (it is optimal only for the discretized model) and no
bound is reported.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np

from interpretopt.exceptions import SolverError
from interpretopt.solvers._base import SOLVERS, SolverBackend, _register
from interpretopt.solvers._types import (Capabilities, SolveResult, SolveStatus, guard_after, map_status,
                                         relative_gap, tell_infeasible_from_unbounded)

__all__ = ["ortools_version"]


def ortools_version() -> str:
    try:
        import ortools

        return ortools.__version__
    except Exception:
        return "unknown"


def _proto_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v if v.isidentifier() and v.isupper() else f'"{v}"'
    return repr(v) if isinstance(v, float) else str(v)


class _OrtoolsBackend(SolverBackend):
    mb_name = ""
    fmt = "proto"  # "proto" (key: value) or "scip" (key = value)
    setting_names: dict[str, str] = {}

    def available(self) -> bool:
        try:
            from ortools.linear_solver.python import model_builder_helper as mbh

            return bool(mbh.ModelSolverHelper(self.mb_name).solver_is_supported())
        except Exception:
            return False

    def unavailable_reason(self) -> str:
        return "install ortools (pip install ortools)"

    def version(self) -> str:
        return ortools_version()

    def _params(self, settings) -> tuple[str, dict]:
        from interpretopt.solvers._base import PYOMO_SOLVER_NAMES

        native: dict = {}
        for key in ("mip_gap", "threads", "seed", "node_limit", "iteration_limit"):
            val = getattr(settings, key)
            if val is not None and key in self.setting_names:
                native[self.setting_names[key]] = val
        opts = settings.options_for(self.name, frozenset(SOLVERS.names()) | frozenset(PYOMO_SOLVER_NAMES))
        raw = opts.pop("parameters_string", "")
        ours = {k: opts.pop(k) for k in list(opts) if k in ("discretize_continuous", "time_limit")}
        native.update(opts)
        sep = " = " if self.fmt == "scip" else ": "
        joiner = "\n" if self.fmt == "scip" else " "
        nested = native.pop("termination_criteria.iteration_limit", None)  # PDLP's limit is a nested message
        text = joiner.join(f"{k}{sep}{_proto_value(v) if self.fmt == 'proto' else v}" for k, v in native.items())
        if nested is not None:
            text = f"{text}{joiner}termination_criteria {{ iteration_limit: {int(nested)} }}".lstrip()
        if raw:
            text = f"{text}{joiner}{raw}" if text else raw
        return text, ours

    def _feasibility_check(self, helper, tl, params):
        from ortools.linear_solver.python import model_builder_helper as mbh

        S = mbh.SolveStatus
        helper.clear_objective()
        check = mbh.ModelSolverHelper(self.mb_name)
        if tl is not None:
            check.set_time_limit_in_seconds(float(tl))
        if params:
            check.set_solver_specific_parameters(params)
        check.solve(helper)
        cst = check.status()
        St = SolveStatus
        verdict = tell_infeasible_from_unbounded(
            St.FEASIBLE if cst in (S.OPTIMAL, S.FEASIBLE) else St.INFEASIBLE if cst == S.INFEASIBLE else St.UNKNOWN)
        return {St.UNBOUNDED: S.UNBOUNDED, St.INFEASIBLE: S.INFEASIBLE}.get(verdict, S.UNKNOWN_STATUS)

    def _solve(self, model, settings, duals):
        """Compile ``model``, check that this backend solves it, solve, and map the answer back.

        Steps: :meth:`_check_model_class`, :meth:`_check_continuous` (CP-SAT), :func:`_build_helper`,
        :meth:`_configured_solver`, :meth:`_run_guarded`, :meth:`_termination`, :meth:`_read_solution`.
        """
        from ortools.linear_solver.python import model_builder_helper as mbh

        from interpretopt.solvers._matrix import to_matrix_form

        t0 = time.perf_counter()
        mf = to_matrix_form(model)
        self._check_model_class(mf, duals)
        params, ours = self._params(settings)
        discretized = self._check_continuous(mf, ours)
        helper = _build_helper(mbh, mf)
        build = time.perf_counter() - t0

        solver, tl = self._configured_solver(settings, params)
        fired, solve_time = self._run_guarded(solver, helper, tl, mf.is_mip)
        st, status, has_sol, message, limited_by_time = self._termination(solver, helper, tl, params, fired,
                                                                          solve_time)
        status, objective, bound, message, x, y, rc = self._read_solution(
            solver, model, mf, status, message, has_sol, discretized, duals)
        return SolveResult(status=status, objective=objective, bound=bound, gap=relative_gap(objective, bound),
                           solver=self.name, version=self.version(), message=message, termination=st.name,
                           solve_time=solve_time, x=x, duals=y, reduced_costs=rc, info={"build_time": build},
                           limited_by_time=limited_by_time)

    def _check_model_class(self, mf, duals) -> None:
        """Refuse a MILP on an LP-only backend, an LP on a backend without LPs (CP-SAT excepted: it
        solves an all-integer LP as a MILP), and duals of a model with integer variables."""
        is_mip = mf.is_mip
        caps = self.capabilities
        if is_mip and not caps.milp:
            raise SolverError(
                f"{self.name} solves LPs only, but the model has {int(mf.integrality.sum())} integer variable(s); "
                "use highs, ortools_scip or ortools_cpsat"
            )
        if not is_mip and not caps.lp and self.name != "ortools_cpsat":
            raise SolverError(f"{self.name} does not solve LPs")
        if duals and is_mip:
            raise SolverError("duals were requested for a model with integer variables; duals exist only for LPs "
                              "(relax or fix the integer variables first)")

    def _check_continuous(self, mf, ours) -> bool:
        """CP-SAT with continuous variables: refused unless ``discretize_continuous`` (then True)."""
        if self.name == "ortools_cpsat" and (~mf.integrality).any():
            if not ours.get("discretize_continuous", False):
                raise SolverError(
                    f"ortools_cpsat solves integer models only, and this model has {int((~mf.integrality).sum())} "
                    "continuous variable(s); use highs or ortools_scip, or pass "
                    "options={'ortools_cpsat': {'discretize_continuous': True}} to treat them as integers "
                    "(the answer is then reported as feasible, not optimal)"
                )
            return True
        return False

    def _configured_solver(self, settings, params):
        """The model-builder solver with output, time limit (the backend's own ``time_limit`` option
        first) and solver-specific parameters set; returns ``(solver, time_limit)``."""
        from ortools.linear_solver.python import model_builder_helper as mbh

        solver = mbh.ModelSolverHelper(self.mb_name)
        solver.enable_output(bool(settings.verbose))
        tl = settings.options_for(self.name).get("time_limit", settings.time_limit)
        if tl is not None:
            solver.set_time_limit_in_seconds(float(tl))
        if params:
            solver.set_solver_specific_parameters(params)
        return solver, tl

    def _run_guarded(self, solver, helper, tl, is_mip):
        """Solve; a MILP with a time limit runs under a wall-clock guard that interrupts it past
        :func:`guard_after` ``(tl)``. Returns ``(fired, solve_time)``, ``fired`` non-empty if the guard fired."""
        guard = None
        fired = []
        if is_mip and tl is not None:
            # our own wall-clock guard: interrupt a solver that runs past its limit
            def _interrupt():
                fired.append(True)
                solver.interrupt_solve()

            guard = threading.Timer(guard_after(tl), _interrupt)
            guard.daemon = True
        t1 = time.perf_counter()
        try:
            if guard is not None:
                guard.start()
            solver.solve(helper)
        except Exception as exc:
            raise SolverError(f"{self.name} failed: {type(exc).__name__}: {exc}") from None
        finally:
            if guard is not None:
                guard.cancel()
        return fired, time.perf_counter() - t1

    def _termination(self, solver, helper, tl, params, fired, solve_time):
        """Map the solver's status to ours; ``(st, status, has_sol, message, limited_by_time)``.

        An "infeasible" (or "infeasible or unbounded") answer is checked by
        :meth:`_feasibility_check`; a rejected model or parameter set is an error.
        """
        from ortools.linear_solver.python import model_builder_helper as mbh

        st = solver.status()
        S = mbh.SolveStatus
        ambiguous = st == S.INFEASIBLE or (
            st == S.UNKNOWN_STATUS and "infeasible or unbounded" in (solver.status_string() or "").lower()
        )
        if ambiguous:
            # GLOP (and CP-SAT presolve) may say "infeasible" for "infeasible or unbounded":
            # the same rows with a zero objective tell which
            st = self._feasibility_check(helper, tl, params)
            if st == S.UNBOUNDED:
                ambiguous = False
        has_sol = bool(solver.has_solution()) if hasattr(solver, "has_solution") else st in (S.OPTIMAL, S.FEASIBLE)
        if st in (S.MODEL_INVALID, S.INVALID_SOLVER_PARAMETERS, S.SOLVER_TYPE_UNAVAILABLE,
                  S.INCOMPATIBLE_OPTIONS, S.ABNORMAL):
            detail = solver.status_string()
            raise SolverError(f"{self.name} rejected the model or its parameters ({st.name}): "
                              f"{detail or 'no detail'}; parameters: {params or '(none)'}")
        St = SolveStatus
        table = {S.OPTIMAL: St.OPTIMAL, S.FEASIBLE: St.FEASIBLE, S.INFEASIBLE: St.INFEASIBLE,
                 S.UNBOUNDED: St.UNBOUNDED, S.NOT_SOLVED: (St.FEASIBLE, St.TIME_LIMIT if tl is not None else St.LIMIT)}
        if ambiguous:
            table[S.UNKNOWN_STATUS] = St.INFEASIBLE_OR_UNBOUNDED
        status = map_status(st, table, has_sol)
        message = st.name
        # a proven optimum is never time-limited, even when the guard fired as the solver finished
        limited_by_time = status is not St.OPTIMAL and (bool(fired) or (
            tl is not None and st in (S.NOT_SOLVED, S.FEASIBLE) and solve_time >= 0.95 * float(tl)))
        if fired:
            message += (f"; {self.name} ran past its time limit of {float(tl):g} s and the wall-clock guard "
                        f"asked it to stop after {guard_after(tl):.2f} s")
        if not status.has_solution:
            has_sol = False
        if solver.status_string():
            message += f": {solver.status_string()}"
        return st, status, has_sol, message, limited_by_time

    def _read_solution(self, solver, model, mf, status, message, has_sol, discretized, duals):
        """Objective, bound, primal values (loaded into ``model``) and, for LPs on GLOP/PDLP, duals
        and reduced costs; returns ``(status, objective, bound, message, x, y, rc)``."""
        is_mip = mf.is_mip
        objective = bound = None
        x = y = rc = None
        if has_sol and status.has_solution:
            x = np.asarray(solver.variable_values(), dtype=float)
            objective = float(solver.objective_value())
            if is_mip:
                b = float(solver.best_objective_bound())
                bound = b if math.isfinite(b) else None
            elif status is SolveStatus.OPTIMAL:
                bound = objective
            if discretized:
                status = SolveStatus.FEASIBLE
                bound = None
                message += "; continuous variables were treated as integers (discretize_continuous)"
            if status is SolveStatus.OPTIMAL and bound is None:
                bound = objective
            mf.load_primal(x)
            if self.capabilities.duals and not is_mip:
                y = np.asarray(solver.dual_values(), dtype=float)
                rc = np.asarray(solver.reduced_costs(), dtype=float)
                if duals:
                    if y.shape != (mf.n_rows,):
                        raise SolverError(f"{self.name} returned {y.shape} duals for {mf.n_rows} rows")
                    mf.load_duals(model, y)
        return status, objective, bound, message, x, y, rc


def _build_helper(mbh, mf):
    """OR-Tools' model builder (module ``mbh``) filled from the matrix form in one sparse call: bounds,
    costs, rows, integrality, objective offset and sense."""
    helper = mbh.ModelBuilderHelper()
    helper.fill_model_from_sparse_data(
        mf.col_lower, mf.col_upper, mf.c, mf.row_lower, mf.row_upper, mf.A.tocsr()
    )
    for j in np.flatnonzero(mf.integrality).tolist():
        helper.set_var_integrality(j, True)
    if mf.offset:
        helper.set_objective_offset(mf.offset)
    if mf.sense == "max":
        helper.set_maximize(True)
    return helper


# the OR-Tools backends: (name, model-builder solver, parameter format, capabilities, description,
# common settings -> the solver's own parameter names); one registration each
# (work limits: GLOP and PDLP solve LPs only, so they honour a node limit trivially; CP-SAT has
# neither nodes nor simplex iterations and refuses both; SCIP's LP iteration limit is per LP, not
# a limit of the solve, so only its node limit is declared)
_BACKENDS = (
    ("ortools_glop", "glop", "proto", Capabilities(lp=True, milp=False, duals=True, incremental=True,
                                                   node_limit=True, iteration_limit=True),
     "OR-Tools GLOP (primal/dual simplex, LP only)",
     {"seed": "random_seed", "iteration_limit": "max_number_of_iterations"}),
    ("ortools_pdlp", "pdlp", "proto", Capabilities(lp=True, milp=False, duals=True, node_limit=True,
                                                   iteration_limit=True),
     "OR-Tools PDLP (first-order LP, moderate accuracy)",
     {"threads": "num_threads", "iteration_limit": "termination_criteria.iteration_limit"}),
    ("ortools_cpsat", "sat", "proto", Capabilities(lp=False, milp=True, duals=False, mixed_integer=False),
     "OR-Tools CP-SAT (integer models; coefficients scaled to integers)",
     {"mip_gap": "relative_gap_limit", "threads": "num_workers", "seed": "random_seed"}),
    ("ortools_scip", "scip", "scip", Capabilities(lp=True, milp=True, duals=False, node_limit=True),
     "SCIP bundled with OR-Tools",
     {"mip_gap": "limits/gap", "seed": "randomization/randomseedshift", "node_limit": "limits/nodes"}),
)
for _name, _mb, _fmt, _caps, _desc, _settings in _BACKENDS:
    _register(type(f"_Ortools_{_mb}", (_OrtoolsBackend,), {
        "name": _name, "mb_name": _mb, "fmt": _fmt, "capabilities": _caps, "description": _desc,
        "setting_names": _settings}))
