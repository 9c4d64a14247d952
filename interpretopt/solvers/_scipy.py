"""The ``scipy`` backend: LPs by ``scipy.optimize.linprog``, MILPs by ``scipy.optimize.milp``.

A pure-pip second solver for every role but the incremental master: scipy ships HiGHS
compiled in, so a user with no optional extra still has two backends to compare. The
linear program (a :class:`~interpretopt._lp.LinearProgram`, or a Pyomo model compiled by
:func:`~interpretopt.solvers.to_matrix_form`)

.. math::

    \\min / \\max \\; c^T x + c_0 \\quad \\text{s.t.} \\quad r^L \\le A x \\le r^U, \\quad
    l \\le x \\le u, \\quad x_j \\in \\mathbb{Z} \\; (j \\in I)

is handed over as arrays. ``linprog`` takes ``A_ub x <= b_ub`` and ``A_eq x = b_eq`` only,
so an equality row (``r^L = r^U``) goes to ``A_eq``, a finite ``r^U`` to ``A_ub`` and a
finite ``r^L`` to ``A_ub`` negated (``-a x <= -r^L``).

Duals. ``linprog`` reports ``marginals``, the sensitivity of its (minimized) objective to
``b_ub`` / ``b_eq``. The project's convention is ``d objective / d rhs`` in the model's own
sense, so the dual of row ``i`` is ``s * (m^U_i - m^L_i + m^E_i)``, with ``m^U`` the
marginal of its ``<= r^U`` side, ``m^L`` that of its negated ``>= r^L`` side (whose rhs is
``-r^L``: hence the minus), ``m^E`` that of an equality row, and ``s = -1`` for a
maximization (``linprog`` minimized ``-c``). A minimization with a binding ``>=`` row gets
a dual ``>= 0``, as from HiGHS directly (tested on the project's LPs).

Statuses: ``linprog`` / ``milp`` codes 0 optimal, 1 a limit (feasible when a point came
back), 2 infeasible, 3 unbounded, 4 other; HiGHS' "infeasible or unbounded" is settled by
:func:`~interpretopt.solvers._types.tell_infeasible_from_unbounded` (the same rows with a
zero objective). No MIP start, no incremental model: scipy rebuilds HiGHS' model per call.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from interpretopt.exceptions import SolverError
from interpretopt.solvers._base import SOLVERS, PYOMO_SOLVER_NAMES, SolverBackend, _register
from interpretopt.solvers._types import (Capabilities, SolveResult, SolveStatus, map_status, relative_gap,
                                         tell_infeasible_from_unbounded)

__all__ = ["solve_arrays"]

_OURS = ("time_limit", "mip_gap")


def _split_rows(lp):
    """``(A_ub, b_ub, A_eq, b_eq, upper rows, lower rows, equality rows)`` of the ranged rows."""
    A = sp.csr_array(lp.A)
    lo, hi = np.asarray(lp.row_lower, float), np.asarray(lp.row_upper, float)
    eq = np.flatnonzero(lo == hi)
    up = np.flatnonzero((lo != hi) & np.isfinite(hi))
    dn = np.flatnonzero((lo != hi) & np.isfinite(lo))
    A_ub = sp.vstack([A[up], -A[dn]], format="csr") if up.size + dn.size else None
    b_ub = np.concatenate([hi[up], -lo[dn]]) if A_ub is not None else None
    A_eq = A[eq] if eq.size else None
    b_eq = hi[eq] if eq.size else None
    return A_ub, b_ub, A_eq, b_eq, up, dn, eq


def _duals(res, lp, up, dn, eq, sign: float) -> np.ndarray:
    """Row duals ``d objective / d rhs`` from ``linprog``'s marginals (see the module docstring)."""
    y = np.zeros(lp.A.shape[0])
    if up.size + dn.size:
        m = np.asarray(res.ineqlin.marginals, dtype=float)
        y[up] += m[: up.size]
        y[dn] -= m[up.size:]
    if eq.size:
        y[eq] += np.asarray(res.eqlin.marginals, dtype=float)
    return sign * y


def _options(settings, mip: bool) -> dict:
    opts = settings.options_for("scipy", frozenset(SOLVERS.names()) | frozenset(PYOMO_SOLVER_NAMES))
    ours = {k: opts.pop(k) for k in list(opts) if k in _OURS}
    tl = ours.get("time_limit", settings.time_limit)
    if tl is not None:
        opts["time_limit"] = float(tl)
    gap = ours.get("mip_gap", settings.mip_gap)
    if mip and gap is not None:
        opts["mip_rel_gap"] = float(gap)
    if mip and settings.node_limit is not None:  # an LP has no nodes: the limit holds trivially
        opts["node_limit"] = int(settings.node_limit)
    opts.setdefault("disp", bool(settings.verbose))
    return opts


def _run(lp, c, settings, mip: bool):
    from scipy.optimize import Bounds, LinearConstraint, linprog, milp

    opts = _options(settings, mip)
    if mip:
        cons = [LinearConstraint(lp.A, lp.row_lower, lp.row_upper)] if lp.A.shape[0] else []
        return milp(c, integrality=np.asarray(lp.integrality, dtype=int), bounds=Bounds(lp.col_lower, lp.col_upper),
                    constraints=cons, options=opts), None
    A_ub, b_ub, A_eq, b_eq, up, dn, eq = _split_rows(lp)
    bounds = np.column_stack([lp.col_lower, lp.col_upper])
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs", options=opts)
    return res, (up, dn, eq)


def _status(res, has_x: bool, settings) -> SolveStatus:
    St = SolveStatus
    # scipy says "iteration or time limit reached" without saying which: a time limit alone is named as
    # such; with a node limit too, the stop is a LIMIT and limited_by_time is read from the time spent
    timed = settings.time_limit is not None and settings.node_limit is None
    limit = (St.FEASIBLE, St.TIME_LIMIT if timed else St.LIMIT)
    table = {0: St.OPTIMAL, 1: limit, 2: St.INFEASIBLE, 3: St.UNBOUNDED, 4: (St.FEASIBLE, St.ERROR)}
    status = map_status(int(res.status), table, has_x)
    if not has_x and "unbounded or infeasible" in str(res.message).lower():
        status = St.INFEASIBLE_OR_UNBOUNDED
    return status


def _settle(lp, settings, mip: bool) -> SolveStatus:
    """Infeasible or unbounded: the same rows and bounds with a zero objective tell which."""
    res, _ = _run(lp, np.zeros(lp.A.shape[1]), settings, mip)
    return tell_infeasible_from_unbounded(_status(res, res.x is not None, settings))


def solve_arrays(lp, settings, *, duals: bool = False, name: str = "scipy") -> SolveResult:
    """Solve a :class:`~interpretopt._lp.LinearProgram` with ``linprog`` (LP) or ``milp`` (MILP)."""
    import scipy

    mip = bool(np.asarray(lp.integrality).any())
    if duals and mip:
        raise SolverError("duals were requested for a model with integer variables; duals exist only for LPs "
                          "(relax or fix the integer variables first)")
    sign = -1.0 if lp.sense == "max" else 1.0
    t0 = time.perf_counter()
    res, rows = _run(lp, sign * np.asarray(lp.c, dtype=float), settings, mip)
    solve_time = time.perf_counter() - t0
    has_x = res.x is not None
    status = _status(res, has_x, settings)
    if status is SolveStatus.INFEASIBLE_OR_UNBOUNDED:
        status = _settle(lp, settings, mip)
    x = np.asarray(res.x, dtype=float) if has_x and status.has_solution else None
    objective = bound = None
    y = rc = None
    if x is not None:
        objective = float(np.asarray(lp.c, dtype=float) @ x + lp.offset)
        if mip:
            dual_bound = getattr(res, "mip_dual_bound", None)
            if dual_bound is not None and np.isfinite(dual_bound):
                bound = float(sign * dual_bound + lp.offset)
        if status is SolveStatus.OPTIMAL and bound is None:
            bound = objective
        if not mip and rows is not None:
            y = _duals(res, lp, *rows, sign)
            rc = np.asarray(lp.c, dtype=float) - sp.csr_array(lp.A).T @ y
    info = {"mip_nodes": int(getattr(res, "mip_node_count", 0) or 0)} if mip else {"iterations": int(res.nit)}
    return SolveResult(status=status, objective=objective, bound=bound, gap=relative_gap(objective, bound),
                       solver=name, version=scipy.__version__, message=str(res.message), termination=str(res.status),
                       solve_time=solve_time, x=x, duals=y if duals else None, reduced_costs=rc if duals else None,
                       info=info)


@_register
class _ScipyBackend(SolverBackend):
    """``scipy.optimize.linprog`` / ``milp`` on the matrix form."""

    name = "scipy"
    capabilities = Capabilities(lp=True, milp=True, duals=True, mixed_integer=True, node_limit=True)
    description = "scipy.optimize linprog (LP, duals) / milp (MILP): HiGHS inside scipy, no extra install"
    solves_arrays = True

    def available(self) -> bool:
        try:
            from scipy.optimize import linprog, milp  # noqa: F401
        except ImportError:  # pragma: no cover - scipy is a dependency; milp needs scipy >= 1.9
            return False
        return True

    def unavailable_reason(self) -> str:
        return "scipy.optimize.milp needs scipy >= 1.9 (pip install -U scipy)"

    def version(self) -> str:
        import scipy

        return scipy.__version__

    def solve_program(self, lp, settings, *, duals: bool = False) -> SolveResult:
        """Solve a :class:`~interpretopt._lp.LinearProgram` given as arrays (no Pyomo model)."""
        return solve_arrays(lp, settings, duals=duals, name=self.name)

    def _solve(self, model, settings, duals):
        from interpretopt.solvers._matrix import to_matrix_form

        t0 = time.perf_counter()
        mf = to_matrix_form(model)
        build = time.perf_counter() - t0
        res = solve_arrays(mf, settings, duals=duals, name=self.name)
        if res.x is not None:
            mf.load_primal(res.x)
            if duals and res.duals is not None:
                mf.load_duals(model, res.duals)
        res.info["build_time"] = build
        return res
