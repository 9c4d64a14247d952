"""BRCG rule sets by column generation, and the grounded variant BRCG+.

Column generation (Dash, Günlük and Wei 2018; "What changed?", Section 3.1):

1. the restricted master LP over the current clauses is solved on the solver layer's
   direct incremental path (translated once; new clauses are appended as columns and the
   LP is re-solved warm);
2. its duals price clauses: a vectorized beam search over literals every iteration and,
   with ``pricing="beam+milp"`` (or ``"milp"``), the exact aggregated pricing MILP when
   the beam finds nothing; every returned clause is re-priced exactly with numpy and
   several negative clauses enter per iteration;
3. stop when no clause prices out (or at ``max_iter`` / ``time_limit``, reported in
   ``stop_reason_``); then solve the integer master over the generated clauses.

The formulations themselves live in :mod:`interpretopt.formulations.brcg` (Pyomo is the
statement of record; the arrays used here are tested against it).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from interpretopt._validation import (
    RANDOM_STATE,
    ContractMixin,
    HasMethods,
    Interval,
    Options,
    SolverOptions,
    StrOptions,
    check_fitted,
    check_solver,
    encode_binary_target,
    render_names,
    validate_data,
)
from interpretopt.exceptions import InputError, SolverError
from interpretopt.formulations import brcg as F
from interpretopt.heuristics.beam import BeamPricer
from interpretopt.rules import RuleSet

__all__ = ["BRCGClassifier", "GroundedBRCGClassifier", "CGResult", "column_generation", "PRICING_STRATEGIES"]

PRICING_STRATEGIES = ("beam", "milp", "beam+milp")
_DUAL_LP_SOLVERS = ("highs", "ortools_glop")


# ----------------------------------------------------------------------------- solver adapters
def _solvers():
    import interpretopt.solvers as S

    return S


def _settings(time_limit: float | None = None, base=None, **kw):
    S = _solvers()
    base = base if base is not None else S.SolveSettings()
    if time_limit is not None:
        time_limit = max(float(time_limit), 1e-3)
        if base.time_limit is not None:
            time_limit = min(time_limit, base.time_limit)
        base = base.replace(time_limit=time_limit)
    return base.replace(**kw) if kw else base


def _check_lp_solver(name: str) -> None:
    if name not in _DUAL_LP_SOLVERS:
        raise SolverError(
            f"solver {name!r} cannot be used for the column-generation master LP: the loop needs LP duals "
            f"from an incremental backend; choose one of {', '.join(_DUAL_LP_SOLVERS)}")


def _new_incremental(solver: str):
    S = _solvers()
    return S.make_incremental(solver=solver, sense="min")


def _add_columns(model, cost, lower, upper, block, integer: bool = False) -> None:
    model.add_columns(np.asarray(cost, dtype=float), np.asarray(lower, dtype=float),
                      np.asarray(upper, dtype=float), sp.csc_matrix(block), integer=integer)


@dataclass
class CGResult:
    """What column generation produced (arrays over the generated clauses).

    Attributes
    ----------
    clauses : list of tuple of int
        Literal indices of every generated clause (grounding clauses first).
    selected : ndarray of int
        Indices of the clauses chosen by the integer master.
    lp_bound : float
        Restricted master LP objective at termination.
    objective : float or None
        Integer master objective.
    gap : float or None
        ``(objective - lp_bound) / |objective|``.
    converged : bool
        No clause priced out (proven when the last pricing call was the exact MILP).
    stop_reason : str
        ``"no_negative_column"``, ``"max_iter"``, ``"time_limit"`` or ``"pricing_time_limit"``.
    history : list of dict
        One entry per iteration (LP objective, columns, pricing used, best reduced cost, times).
    solve_results : dict
        ``{"lp": SolveResult, "pricing": SolveResult | None, "integer": SolveResult}``.
    timings : dict
        Seconds spent building (arrays, columns, models), in LP solves, in pricing and in the integer master.
    """

    clauses: list
    selected: np.ndarray
    lp_bound: float
    objective: float | None
    gap: float | None
    converged: bool
    stop_reason: str
    history: list
    solve_results: dict
    timings: dict
    lp_solution: np.ndarray | None = None
    lp_duals: tuple | None = None
    integer_status: str = ""
    cover: Any = field(default=None, repr=False)


def _prune_clause(X: np.ndarray, clause: tuple) -> tuple:
    """Drop literals whose removal leaves the clause's coverage unchanged."""
    clause = list(clause)
    full = X[:, clause].all(axis=1)
    for j in list(clause):
        if len(clause) == 1:
            break
        rest = [k for k in clause if k != j]
        if np.array_equal(X[:, rest].all(axis=1), full):
            clause = rest
    return tuple(sorted(clause))


def _clause_cover(X: np.ndarray, clause: tuple) -> np.ndarray:
    if not clause:
        return np.ones(X.shape[0], dtype=bool)
    return X[:, list(clause)].all(axis=1)


class _MilpPricer:
    """The exact aggregated pricing MILP, built once per fit; only the objective changes."""

    def __init__(self, X, y, D, exclude, solver: str, settings) -> None:
        self.X, self.y, self.D, self.exclude, self.solver = X, y, int(D), list(exclude), solver
        self.settings = settings
        self.direct = solver == "highs"
        self.model = None
        self.arrays = None
        self.build_time = 0.0

    def _build(self, r, a, b) -> None:
        t0 = time.perf_counter()
        if self.direct:
            arr = F.pricing_arrays(self.X, self.y, r, a, b, self.D, exclude=self.exclude)
            mdl = _new_incremental("highs")
            mdl.add_rows(arr.row_lower, arr.row_upper)
            J = arr.n_literals
            A = arr.A.tocsc()
            _add_columns(mdl, arr.cost[:J], arr.col_lower[:J], arr.col_upper[:J], A[:, :J], integer=True)
            is_int = arr.integer[J:]
            idx = np.arange(J, A.shape[1])
            # delta columns: binary on positives, continuous on negatives (order kept)
            start = 0
            while start < idx.size:
                stop = start
                while stop < idx.size and is_int[stop] == is_int[start]:
                    stop += 1
                cols = idx[start:stop]
                _add_columns(mdl, arr.cost[cols], arr.col_lower[cols], arr.col_upper[cols], A[:, cols],
                             integer=bool(is_int[start]))
                start = stop
            self.arrays, self.model = arr, mdl
        else:
            self.model = F.build_pricing(self.X, self.y, r, a, b, self.D, exclude=self.exclude)
        self.build_time += time.perf_counter() - t0

    def price(self, r, a, b, time_limit, start_clause=None):
        """Returns (clause or None, SolveResult)."""
        S = _solvers()
        if self.model is None:
            self._build(r, a, b)
        else:
            t0 = time.perf_counter()
            if self.direct:
                J = self.arrays.n_literals
                costs = np.concatenate([np.full(J, float(b)), np.asarray(r, dtype=float)[self.arrays.I]])
                self.model.set_costs(np.arange(costs.size), costs)
            else:
                F.set_pricing_objective(self.model, r, a, b)
            self.build_time += time.perf_counter() - t0
        settings = _settings(time_limit, self.settings)
        if self.direct:
            # only clauses of negative reduced cost are wanted: cut off the rest (an
            # "infeasible" answer then proves that none exists); presolve off is faster here
            opts = dict(settings.options)
            scoped = dict(opts.get("highs", {}))
            scoped.setdefault("presolve", "off")
            scoped["objective_bound"] = -float(a)
            opts["highs"] = scoped
            settings = settings.replace(options=opts)
            if start_clause is not None and hasattr(self.model, "set_start"):
                J = self.arrays.n_literals
                x0 = np.zeros(J + self.arrays.I.size)
                x0[list(start_clause)] = 1.0
                cov = _clause_cover(self.X, start_clause)[self.arrays.I]
                x0[J:] = cov.astype(float)
                try:
                    self.model.set_start(x0)
                except Exception:  # a start is a hint only
                    pass
            res = self.model.solve(settings)
            if str(res.status) == "infeasible":
                res.message = (res.message + "; no clause of negative reduced cost exists").lstrip("; ")
                res.info["proven_none"] = True
                return None, res
            if not res.has_solution or res.x is None:
                return None, res
            clause = tuple(int(j) for j in np.flatnonzero(res.x[: self.arrays.n_literals] > 0.5))
        else:
            res = S.solve(self.model, self.solver, settings)
            if not res.has_solution:
                return None, res
            clause = F.extract_pricing(self.model)
        return (clause or None), res


def column_generation(X_bin, y, spec: F.MasterSpec, *, max_literals: int = 10, pricing: str = "beam",
                      beam_width: int = 5, columns_per_iter: int = 10, max_iter: int = 100,
                      time_limit: float | None = None, milp_time_limit: float = 10.0,
                      mip_time_limit: float | None = 60.0, solver: str = "highs", pricing_solver: str | None = None,
                      mip_solver: str | None = None, initial_clauses=(), grounding=(), init: str = "none",
                      tol: float = 1e-7, settings=None) -> CGResult:
    """Column generation for the BRCG master (constraint, light or grounded form).

    Parameters
    ----------
    X_bin : (n, J) {0, 1}
        Binarized samples; literal ``j`` is column ``j``.
    y : (n,) {0, 1}
    spec : MasterSpec
    max_literals : int
        ``D``, the largest clause.
    pricing : {"beam", "milp", "beam+milp"}
        Beam search only; the exact pricing MILP only; or the beam every iteration and the
        MILP when the beam finds nothing (exact stopping rule).
    beam_width, columns_per_iter : int
        Beam width ``B`` and the most clauses added per iteration.
    max_iter : int
        Iteration limit of the loop (LP solves).
    time_limit : float or None
        Wall-clock limit of the loop (checked by the loop itself; the solvers get the remaining time).
    milp_time_limit : float
        Wall-clock limit of one pricing MILP call.
    mip_time_limit : float or None
        Limit of the final integer master.
    solver : {"highs", "ortools_glop"}
        LP backend of the incremental master (must return duals).
    pricing_solver, mip_solver : str or None
        Any MILP solver of the registry (default ``"highs"``).
    initial_clauses : sequence of tuples
        Clauses to start from; ``grounding`` gives the indices of the grounding ones among them.
    init : {"none", "singletons"}
        Also start from every single-literal clause.
    tol : float
        A clause prices out when its reduced cost is below ``-tol``.
    settings : SolveSettings or None
        Common solver settings (threads, seed, options); the stage limits above override its time limit.

    Notes
    -----
    The restricted master is built in Pyomo (:func:`~interpretopt.formulations.brcg.build_master`)
    over the initial clauses and translated once (``IncrementalModel.from_pyomo``); each
    new clause is appended as a column (:func:`~interpretopt.formulations.brcg.master_columns`)
    and the LP is re-solved warm. The integer master merges samples of equal label and
    coverage (:func:`~interpretopt.formulations.brcg.aggregate_samples`), which keeps its
    objective and shrinks it to one row per distinct coverage pattern.
    """
    t_start = time.perf_counter()
    if pricing not in PRICING_STRATEGIES:
        raise InputError(f"pricing must be one of {PRICING_STRATEGIES}, got {pricing!r}")
    if init not in ("none", "singletons"):
        raise InputError(f"init must be 'none' or 'singletons', got {init!r}")
    _check_lp_solver(solver)
    pricing_solver = pricing_solver or "highs"
    mip_solver = mip_solver or "highs"
    S = _solvers()
    settings = settings if settings is not None else S.SolveSettings()

    X = np.asarray(X_bin).astype(bool)
    yb = np.asarray(y).astype(bool)
    n, J = X.shape
    pos = np.flatnonzero(yb)
    nP = pos.size
    deadline = None if time_limit is None else t_start + float(time_limit)
    timings = {"build": 0.0, "lp": 0.0, "pricing": 0.0, "integer": 0.0, "integer_build": 0.0}

    # ---- initial columns
    clauses: list[tuple] = []
    keys: dict[tuple, int] = {}
    grounded: list[bool] = []
    g_set = {int(g) for g in grounding}
    for k, c in enumerate(initial_clauses):
        c = tuple(sorted(int(j) for j in c))
        if not c:
            raise InputError("the empty clause (always true) cannot be a column; give at least one literal")
        if c in keys:
            if k in g_set:
                grounded[keys[c]] = True
            continue
        keys[c] = len(clauses)
        clauses.append(c)
        grounded.append(k in g_set)
    if init == "singletons":
        for j in range(J):
            c = (j,)
            if c not in keys and 0 < X[:, j].sum() < n:
                keys[c] = len(clauses)
                clauses.append(c)
                grounded.append(False)

    covers: list[np.ndarray] = [_clause_cover(X, c) for c in clauses]

    # ---- restricted master LP: stated in Pyomo, translated once to the incremental path
    t0 = time.perf_counter()
    n_lit0 = np.array([len(c) for c in clauses], dtype=float)
    cover0 = np.stack(covers, axis=1) if covers else np.zeros((n, 0), dtype=bool)
    m0 = F.build_master(cover0, yb.astype(np.int8), n_lit0, spec,
                        grounding=np.flatnonzero(np.asarray(grounded, dtype=bool)), relax=True)
    lp = _solvers().IncrementalModel.from_pyomo(m0, solver)
    mf = lp.matrix_form
    row_index = {id(con): r for r, con in enumerate(mf.constraints)}
    col_index = {id(var): c for c, var in enumerate(mf.variables)}
    cover_rows = np.array([row_index[id(m0.cover[int(i)])] for i in pos], dtype=np.int64)
    complexity_row = None
    if spec.form == "constraint":
        complexity_row = row_index.get(id(m0.complexity))
        if complexity_row is None:  # no clause yet: the translation drops the empty row (3)
            complexity_row = int(lp.add_rows([-np.inf], [float(spec.C)])[0])
    row_perm = cover_rows if complexity_row is None else np.concatenate([cover_rows, [complexity_row]])
    xi_cols = np.array([col_index.get(id(m0.xi[int(i)]), -1) for i in pos], dtype=np.int64)
    w_cols = [col_index.get(id(m0.w[k]), -1) for k in range(len(clauses))]
    n_cols = [mf.n_cols]
    timings["model_build"] = time.perf_counter() - t0

    def add_clause_columns(new: list[tuple], new_covers: list[np.ndarray], new_grounded: list[bool]) -> None:
        if not new:
            return
        cov = np.stack(new_covers, axis=1)
        cost, block, upper = F.master_columns(cov, yb.astype(np.int8), [len(c) for c in new], spec,
                                              grounded=np.asarray(new_grounded), relax=True)
        block = sp.csc_matrix(block)
        block = sp.csc_matrix((block.data, row_perm[block.indices], block.indptr), shape=(lp.n_rows, len(new)))
        _add_columns(lp, cost, np.zeros(len(new)), upper, block)
        w_cols.extend(range(n_cols[0], n_cols[0] + len(new)))
        n_cols[0] += len(new)

    timings["build"] += time.perf_counter() - t0

    beam = BeamPricer(X) if pricing in ("beam", "beam+milp") else None
    milp = None
    exclude_ground = [c for c, g in zip(clauses, grounded) if g]
    history: list[dict] = []
    stop_reason = "max_iter"
    converged = False
    lp_res = None
    pricing_res = None
    it = 0
    while True:
        remaining = None if deadline is None else deadline - time.perf_counter()
        if remaining is not None and remaining <= 0 and lp_res is not None:
            stop_reason = "time_limit"
            break
        t0 = time.perf_counter()
        lp_res = lp.solve(_settings(remaining, settings))
        timings["lp"] += time.perf_counter() - t0
        if not lp_res.has_solution or lp_res.duals is None:
            raise SolverError(f"the restricted master LP was not solved by {solver}: status {lp_res.status}, "
                              f"{lp_res.message}")
        lp_obj = float(lp_res.objective)
        duals = np.asarray(lp_res.duals, dtype=float)
        mu = np.maximum(duals[cover_rows], 0.0)
        lam = max(-float(duals[complexity_row]), 0.0) if complexity_row is not None else 0.0
        entry = {"iteration": it, "lp_objective": lp_obj, "n_columns": len(clauses), "lp_time": time.perf_counter() - t0}
        history.append(entry)
        if it >= max_iter:
            stop_reason = "max_iter"
            break
        if deadline is not None and time.perf_counter() >= deadline:
            stop_reason = "time_limit"
            break
        r, a, b = F.pricing_weights(yb.astype(np.int8), mu, lam, spec)
        t0 = time.perf_counter()
        new: list[tuple] = []
        new_rc: list[float] = []
        used = []
        best_start = None
        if beam is not None:
            br = beam.search(r, a, b, max_literals=max_literals, width=beam_width, max_columns=columns_per_iter,
                             exclude=keys.keys(), tol=tol)
            used.append("beam")
            best_start = br.best_clause
            for c, v in zip(br.clauses, br.reduced_costs):
                new.append(c)
                new_rc.append(float(v))
        proven = False
        timed_out = False
        if not new and pricing in ("milp", "beam+milp"):
            if milp is None:
                milp = _MilpPricer(X, yb.astype(np.int8), max_literals, exclude_ground, pricing_solver, settings)
            remaining = None if deadline is None else deadline - time.perf_counter()
            limit = milp_time_limit if remaining is None else min(milp_time_limit, max(remaining, 1e-3))
            clause, pricing_res = milp.price(r, a, b, limit, best_start)
            used.append("milp")
            status = str(pricing_res.status)
            if clause is not None:
                clause = _prune_clause(X, clause)
                rc = float(F.reduced_costs(_clause_cover(X, clause)[:, None], [len(clause)], r, a, b)[0])
                if rc < -tol and clause not in keys:
                    new.append(clause)
                    new_rc.append(rc)
            proven = status == "optimal" or bool(pricing_res.info.get("proven_none"))
            timed_out = not proven
        entry["pricing"] = "+".join(used)
        entry["pricing_time"] = time.perf_counter() - t0
        entry["best_reduced_cost"] = float(min(new_rc)) if new_rc else None
        entry["n_added"] = len(new)
        timings["pricing"] += entry["pricing_time"]
        if not new:
            if timed_out:
                stop_reason = "pricing_time_limit"
            else:
                stop_reason = "no_negative_column"
                converged = True
            break
        t0 = time.perf_counter()
        new_covers = [_clause_cover(X, c) for c in new]
        for c, cv in zip(new, new_covers):
            keys[c] = len(clauses)
            clauses.append(c)
            covers.append(cv)
            grounded.append(False)
        add_clause_columns(new, new_covers, [False] * len(new))
        timings["build"] += time.perf_counter() - t0
        it += 1

    lp_bound = float(lp_res.objective)
    x_lp = None
    if lp_res.x is not None:
        xr = np.asarray(lp_res.x, dtype=float)
        wc = np.asarray(w_cols, dtype=np.int64)
        x_lp = np.concatenate([np.where(xi_cols >= 0, xr[np.maximum(xi_cols, 0)], 1.0),
                               np.where(wc >= 0, xr[np.maximum(wc, 0)], 0.0)])
    lp_duals = (mu, lam)
    if milp is not None:
        timings["build"] += milp.build_time
        timings["pricing"] -= milp.build_time

    # ---- integer master over the generated clauses
    t0 = time.perf_counter()
    K = len(clauses)
    cover = np.stack(covers, axis=1) if covers else np.zeros((n, 0), dtype=bool)
    g_idx = np.flatnonzero(np.asarray(grounded, dtype=bool))
    n_lit = np.array([len(c) for c in clauses], dtype=float)
    int_res = None
    selected = np.zeros(0, dtype=int)
    objective = None
    if K > 0:
        w_lp = x_lp[nP:nP + K] if x_lp is not None else np.zeros(K)
        # samples with the same label and coverage are merged (weighted): same objective, far fewer rows
        cov_u, y_u, wt_u = F.aggregate_samples(cover, yb.astype(np.int8))
        pos_u = y_u.astype(bool)
        nPu = int(pos_u.sum())
        if mip_solver == "highs":
            arr = F.master_arrays(cov_u, y_u, n_lit, spec, grounding=g_idx, relax=False, sample_weight=wt_u)
            mdl = _new_incremental("highs")
            mdl.add_rows(arr.row_lower, arr.row_upper)
            A = arr.A.tocsc()
            _add_columns(mdl, arr.cost[:nPu], arr.col_lower[:nPu], arr.col_upper[:nPu], A[:, :nPu])
            _add_columns(mdl, arr.cost[nPu:], arr.col_lower[nPu:], arr.col_upper[nPu:], A[:, nPu:], integer=True)
            start = _mip_start(w_lp, cover, yb, n_lit, spec)
            if start is not None:
                xi0 = (~cov_u[pos_u][:, start > 0.5].any(axis=1)).astype(float) if start.any() else np.ones(nPu)
                try:
                    mdl.set_start(np.concatenate([xi0, start]))
                except Exception:  # a start is a hint only
                    pass
            timings["integer_build"] += time.perf_counter() - t0
            t1 = time.perf_counter()
            # measured on BRCG integer masters: HiGHS's presolve costs more than it saves here
            int_settings = _settings(mip_time_limit, settings)
            opts = dict(int_settings.options)
            opts["highs"] = {"presolve": "off", **dict(opts.get("highs", {}))}
            int_res = mdl.solve(int_settings.replace(options=opts))
            timings["integer"] += time.perf_counter() - t1
            if int_res.has_solution and int_res.x is not None:
                w = np.asarray(int_res.x, dtype=float)[nPu:nPu + K]
                selected = np.flatnonzero(w > 0.5)
                objective = float(int_res.objective) + arr.constant
        else:
            m = F.build_master(cov_u, y_u, n_lit, spec, grounding=g_idx, relax=False, sample_weight=wt_u)
            timings["integer_build"] += time.perf_counter() - t0
            t1 = time.perf_counter()
            int_res = S.solve(m, mip_solver, _settings(mip_time_limit, settings))
            timings["integer"] += time.perf_counter() - t1
            if int_res.has_solution:
                sol = F.extract_master(m)
                selected = np.flatnonzero(sol.w > 0.5)
                objective = float(sol.objective)
        if objective is not None:
            # recompute from scratch: the reported objective is the one of the selection
            objective = F.master_objective(selected, cover, yb.astype(np.int8), n_lit, spec, grounding=g_idx)
    else:
        objective = F.master_objective([], np.zeros((n, 0)), yb.astype(np.int8), n_lit, spec)
    gap = None
    if objective is not None:
        gap = max(objective - lp_bound, 0.0) / max(abs(objective), 1e-10) if objective - lp_bound > 1e-9 else 0.0
    timings["total"] = time.perf_counter() - t_start
    return CGResult(clauses=clauses, selected=selected, lp_bound=lp_bound, objective=objective, gap=gap,
                    converged=converged, stop_reason=stop_reason, history=history,
                    solve_results={"lp": lp_res, "pricing": pricing_res, "integer": int_res}, timings=timings,
                    lp_solution=x_lp, lp_duals=lp_duals, integer_status=str(int_res.status) if int_res is not None else "optimal",
                    cover=cover)


def _mip_start(w_lp, cover, yb, n_lit, spec) -> np.ndarray | None:
    """A feasible 0/1 start from the LP solution (round at 0.5; respect the complexity row)."""
    start = (np.asarray(w_lp) > 0.5).astype(float)
    if spec.form == "constraint":
        if float(spec.clause_complexity(n_lit) @ start) > float(spec.C) + 1e-9:
            return np.zeros_like(start)
    return start


# ----------------------------------------------------------------------------- estimators
def _passthrough_conditions(d: int):
    from interpretopt.rules import Condition

    return [Condition(j, ">", 0.5) for j in range(d)]


class BRCGClassifier(ContractMixin, ClassifierMixin, BaseEstimator):
    """Boolean rule set (DNF) classifier learned by column generation (BRCG).

    Predicts 1 when any rule of ``rules_`` holds. With ``target_class=0`` the rules describe
    class 0 instead (a DNF for the negatives, i.e. a CNF for the positive class) and the
    prediction is 1 when no rule holds.

    Parameters
    ----------
    form : {"light", "constraint"}, default "light"
        Objective with per-clause/per-literal weights ``lambda0``/``lambda1`` (loss divided
        by n), or the Hamming loss with complexity bound ``C`` (eqs. (1)-(4)).
    C : float or None
        Complexity bound (constraint form).
    lambda0, lambda1 : float, default 0.001
        Light-form weights (AIX360's defaults).
    complexity : {"literals+1", "literals"}, default "literals+1"
        Clause complexity ``c_k`` in the bound ``C``.
    max_literals : int, default 10
        Largest clause (beam depth / ``D`` of the pricing MILP).
    pricing : {"beam", "milp", "beam+milp"}, default "beam"
        Beam search every iteration (heuristic stop, as AIX360); the exact MILP every
        iteration; or the beam every iteration and the exact MILP (behind
        ``milp_time_limit``) when the beam finds nothing, which proves the stopping rule.
    beam_width : int, default 5
    columns_per_iter : int, default 10
    max_iter : int, default 100
    time_limit : float or None
        Wall-clock limit of the column-generation loop.
    milp_time_limit : float, default 10
        Limit of one pricing MILP call.
    mip_time_limit : float or None, default 60
        Limit of the final integer master.
    solver : {"highs", "ortools_glop"}, default "highs"
        LP solver of the master (needs duals).
    pricing_solver, mip_solver : str or None
        MILP solvers of the registry for pricing / the integer master (default ``"highs"``).
    binarizer : {"quantile", "tree", "passthrough"} or transformer, default "quantile"
        How raw features become literals: the data layer's ``QuantileBinarizer``
        (``n_thresholds``, ``negations``), its ``TreeBinarizer``, a transformer with
        ``conditions_`` after ``fit``, or ``"passthrough"`` for input that is already
        binary (literal ``j`` = ``conditions[j]`` or ``x_j > 0.5``).
    n_thresholds : int, default 9
    negations : bool, default True
    conditions : list of Condition or None
        Meaning of the columns of binary input (``binarizer="passthrough"``).
    target_class : {1, 0}, default 1
    init : {"none", "singletons"}, default "none"
    settings : SolveSettings or None
    random_state : None, int or Generator
        Kept for the scikit-learn contract (the algorithm is deterministic).

    Attributes
    ----------
    rules_ : RuleSet
        The learned rules over the original features (for ``target_class``).
    solve_results_ : dict
        SolveResults of the last master LP, the last pricing MILP and the integer master.
    lp_bound_, objective_, gap_ : float
        Restricted-master LP objective at termination, integer objective, and their relative
        gap. The LP value bounds the integer master over the generated clauses; it bounds the
        problem over all clauses when the exact pricing proved that no clause prices out
        (``pricing`` "milp" or "beam+milp" and ``stop_reason_ == "no_negative_column"``).
    status_ : str
        Status of the integer master (``"optimal"``, or ``"feasible"`` at its time limit).
    history_ : list of dict
        Per-iteration LP objective, columns, pricing used, best reduced cost and times.
    stop_reason_, converged_ : str, bool
    timings_ : dict
        Seconds building, in LP solves, pricing, and the integer master.
    """

    _parameter_constraints: dict = {
        "form": [StrOptions({"light", "constraint"})],
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "lambda0": [Interval(Real, 0, None, closed="left")],
        "lambda1": [Interval(Real, 0, None, closed="left")],
        "complexity": [StrOptions({"literals+1", "literals"})],
        "max_literals": [Interval(Integral, 1, None, closed="left")],
        "pricing": [StrOptions(set(PRICING_STRATEGIES))],
        "beam_width": [Interval(Integral, 1, None, closed="left")],
        "columns_per_iter": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "milp_time_limit": [Interval(Real, 0, None, closed="neither")],
        "mip_time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "solver": [SolverOptions(set(_DUAL_LP_SOLVERS), provides="LP duals on an incremental model")],
        "pricing_solver": [str, None],
        "mip_solver": [str, None],
        "binarizer": [StrOptions({"quantile", "tree", "passthrough"}), HasMethods(["fit", "transform"])],
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "negations": ["boolean"],
        "conditions": [list, tuple, None],
        "target_class": [Options(Integral, {0, 1})],
        "init": [StrOptions({"none", "singletons"})],
        "settings": [HasMethods(["replace"]), None],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, form: str = "light", C: float | None = None, lambda0: float = 0.001,
                 lambda1: float = 0.001, complexity: str = "literals+1", max_literals: int = 10,
                 pricing: str = "beam", beam_width: int = 5, columns_per_iter: int = 10, max_iter: int = 100,
                 time_limit: float | None = None, milp_time_limit: float = 10.0, mip_time_limit: float | None = 60.0,
                 solver: str = "highs", pricing_solver: str | None = None, mip_solver: str | None = None,
                 binarizer: Any = "quantile", n_thresholds: int = 9, negations: bool = True,
                 conditions: Any = None, target_class: int = 1, init: str = "none", settings: Any = None,
                 random_state: Any = None) -> None:
        self.form = form
        self.C = C
        self.lambda0 = lambda0
        self.lambda1 = lambda1
        self.complexity = complexity
        self.max_literals = max_literals
        self.pricing = pricing
        self.beam_width = beam_width
        self.columns_per_iter = columns_per_iter
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.milp_time_limit = milp_time_limit
        self.mip_time_limit = mip_time_limit
        self.solver = solver
        self.pricing_solver = pricing_solver
        self.mip_solver = mip_solver
        self.binarizer = binarizer
        self.n_thresholds = n_thresholds
        self.negations = negations
        self.conditions = conditions
        self.target_class = target_class
        self.init = init
        self.settings = settings
        self.random_state = random_state

    # -- binarization
    def _make_binarizer(self):
        b = self.binarizer
        if isinstance(b, str):
            if b == "passthrough":
                return None
            from interpretopt import data as D

            if b == "quantile":
                return D.QuantileBinarizer(n_thresholds=self.n_thresholds, negations=self.negations)
            if b == "tree":
                return D.TreeBinarizer()
            raise InputError(f"binarizer must be 'quantile', 'tree', 'passthrough' or a transformer, got {b!r}")
        if not hasattr(b, "fit") or not hasattr(b, "transform"):
            raise InputError(f"binarizer must be a transformer with fit/transform and conditions_, got {type(b).__name__}")
        return clone(b)

    def _fit_binarize(self, X, y):
        self.binarizer_ = self._make_binarizer()
        if self.binarizer_ is None:
            Xb = self._check_binary(X)
            conds = self.conditions if self.conditions is not None else _passthrough_conditions(Xb.shape[1])
            if len(conds) != Xb.shape[1]:
                raise InputError(f"conditions has {len(conds)} entries but X has {Xb.shape[1]} binary columns")
            self.literals_ = list(conds)
        else:
            try:
                self.binarizer_.fit(X, y)
            except TypeError:
                self.binarizer_.fit(X)
            Xb = np.asarray(self.binarizer_.transform(X))
            self.literals_ = list(self.binarizer_.conditions_)
        return Xb.astype(bool)

    @staticmethod
    def _check_binary(X) -> np.ndarray:
        arr = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X)
        if arr.ndim != 2:
            raise InputError(f"X must be 2-D (n_samples, n_features), got shape {arr.shape}")
        try:
            vals = np.unique(arr.astype(float))
        except (TypeError, ValueError):
            raise InputError("binarizer='passthrough' needs a numeric 0/1 matrix") from None
        if not np.isin(vals, [0.0, 1.0]).all():
            raise InputError(f"binarizer='passthrough' needs a 0/1 matrix, found values {vals[:6].tolist()}; "
                             "use binarizer='quantile' for raw features")
        return arr.astype(bool)

    def _binarize(self, X) -> np.ndarray:
        if self.binarizer_ is None:
            Xb = self._check_binary(X)
        else:
            Xb = np.asarray(self.binarizer_.transform(X))
        if Xb.shape[1] != len(self.literals_):
            raise InputError(f"X gives {Xb.shape[1]} literal columns, the model was fitted with {len(self.literals_)}")
        return Xb.astype(bool)

    def _spec(self, n: int, c_u: float = 0.0) -> F.MasterSpec:
        if self.form == "constraint" and self.C is None:
            raise InputError("form='constraint' needs a complexity bound C > 0")
        return F.MasterSpec(form=self.form, C=self.C, lambda0=self.lambda0, lambda1=self.lambda1,
                            complexity=self.complexity, c_u=c_u, n_samples=n)

    def _validate_params(self) -> None:
        super()._validate_params()
        owner = type(self).__name__
        for what in ("pricing_solver", "mip_solver"):
            if getattr(self, what) is not None:
                check_solver(getattr(self, what), ("milp",), owner=owner, what=what)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # one rule set describes one class (OneVsRestClassifier for more)
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    def _grounding_clauses(self, X) -> tuple[list, list]:
        return [], []

    def fit(self, X, y):
        """Binarize ``X``, run column generation on the labels ``y`` and store the rule set.

        Parameters
        ----------
        X : array-like or DataFrame (n_samples, n_features)
            Numeric columns, and categorical ones (dtype ``category`` or all strings).
            NaN and inf are rejected.
        y : array-like (n_samples,)
            Any two labels; ``classes_ = numpy.unique(y)`` and the rules describe
            ``classes_[target_class]``. A single class gives the constant model.
        """
        self._validate_params()
        X = validate_data(self, X, reset=True, categorical=True)
        n = X.shape[0]
        self.classes_, yv = encode_binary_target(self, y, n_samples=n, allow_single_class=True)
        c_u = getattr(self, "c_u", 0.0)
        spec = self._spec(n, c_u)
        Xb = self._fit_binarize(X, yv)
        target = yv if self.target_class == 1 else (1 - yv).astype(np.int8)
        init_clauses, grounding = self._grounding_clauses(X)
        if init_clauses:
            Xb = self._literal_matrix(X, Xb)
        from interpretopt.solvers import SolveSettings

        if len(self.classes_) == 1:  # one class: the constant model, no rule (both target classes)
            return self._fit_constant(0, spec)
        settings = self.settings if self.settings is not None else SolveSettings()
        res = column_generation(
            Xb, target, spec, max_literals=self.max_literals, pricing=self.pricing, beam_width=self.beam_width,
            columns_per_iter=self.columns_per_iter, max_iter=self.max_iter, time_limit=self.time_limit,
            milp_time_limit=self.milp_time_limit, mip_time_limit=self.mip_time_limit, solver=self.solver,
            pricing_solver=self.pricing_solver, mip_solver=self.mip_solver, initial_clauses=init_clauses,
            grounding=grounding, init=self.init, settings=settings)
        self.cg_ = res
        self.clauses_ = [res.clauses[k] for k in res.selected]
        self.rules_ = self._to_ruleset(self.clauses_)
        self.rules_class_ = int(self.target_class)
        self.solve_results_ = res.solve_results
        self.lp_bound_ = res.lp_bound
        self.objective_ = res.objective
        self.gap_ = res.gap
        self.history_ = res.history
        self.stop_reason_ = res.stop_reason
        self.converged_ = res.converged
        self.timings_ = res.timings
        self.n_iter_ = len(res.history)
        self.n_columns_ = len(res.clauses)
        status = res.integer_status
        self.status_ = status
        if status not in ("optimal",):
            warnings.warn(f"integer master ended with status {status!r}; the rule set is the best incumbent",
                          RuntimeWarning, stacklevel=2)
        return self

    def _literal_matrix(self, X, Xb):
        return Xb

    def _fit_constant(self, label: int, spec: F.MasterSpec):
        """Labels of one class: no rule (all 0) or the always-true rule (all 1); nothing to optimize."""
        self.cg_ = None
        self.clauses_ = [] if label == 0 else [()]
        self.rules_ = self._to_ruleset(self.clauses_)
        self.rules_class_ = int(self.target_class)
        cost = 0.0 if label == 0 else float(spec.clause_penalty(np.zeros(1))[0])
        self.solve_results_ = {"lp": None, "pricing": None, "integer": None}
        self.lp_bound_ = self.objective_ = cost
        self.gap_ = 0.0
        self.history_ = []
        self.stop_reason_ = "single_class"
        self.converged_ = True
        self.timings_ = {"build": 0.0, "lp": 0.0, "pricing": 0.0, "integer": 0.0, "integer_build": 0.0, "total": 0.0}
        self.n_iter_ = 0
        self.n_columns_ = 0
        self.status_ = "optimal"
        return self

    def _to_ruleset(self, clauses):
        from interpretopt.rules import Conjunction, RuleSet

        return RuleSet(tuple(Conjunction(tuple(self.literals_[j] for j in c)) for c in clauses))

    def _clause_coverage(self, X) -> np.ndarray:
        Xb = self._literal_matrix(X, self._binarize(X))
        if not self.clauses_:
            return np.zeros((Xb.shape[0], 0), dtype=bool)
        return np.stack([_clause_cover(Xb, c) for c in self.clauses_], axis=1)

    def _checked(self, X):
        check_fitted(self, "rules_")
        return validate_data(self, X, reset=False, categorical=True)

    def decision_function(self, X) -> np.ndarray:
        """Number of rules that hold on each sample minus 1/2, positive for ``classes_[1]``.

        With ``target_class=1`` the value is ``k - 0.5`` (k rules hold), with ``target_class=0``
        it is ``0.5 - k``; its sign gives :meth:`predict`.
        """
        k = self._clause_coverage(self._checked(X)).sum(axis=1).astype(float)
        return k - 0.5 if self.rules_class_ == 1 else 0.5 - k

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` when any rule holds (``target_class=1``), or when none holds (``target_class=0``)."""
        hit = self._clause_coverage(self._checked(X)).any(axis=1)
        codes = (hit if self.rules_class_ == 1 else ~hit).astype(np.int64)
        return self.classes_[np.minimum(codes, len(self.classes_) - 1)]

    def render(self) -> str:
        """The rule set as text, with feature names when the input was a DataFrame."""
        check_fitted(self, "rules_")
        labels = [v.item() if hasattr(v, "item") else v for v in self.classes_]
        pos = labels[min(self.rules_class_, len(labels) - 1)]
        neg = labels[min(1 - self.rules_class_, len(labels) - 1)]
        return self.rules_.render(render_names(self), positive=pos, negative=neg)

    def fidelity(self, X, y_model) -> float:
        """Agreement of the rule set with a black box's labels ``y_model`` on ``X``."""
        pred = self.predict(X)
        y_model = np.asarray(y_model)
        if y_model.shape != pred.shape:
            raise InputError(f"y_model has shape {y_model.shape} but X has {pred.shape[0]} rows")
        return float(np.mean(pred == y_model))


class GroundedBRCGClassifier(BRCGClassifier):
    """BRCG+: BRCG grounded in a given rule set ``U`` (eq. (5) of "What changed?").

    Each grounding rule is always a column of the master and costs ``c_u * n`` in Hamming
    loss when it is not selected. The grounding rules are given over the original features
    (e.g. ``rules_`` of an earlier fit); each of their conditions must be a literal the
    binarizer produces, else an error names it (``extend_literals=True`` adds such
    conditions as extra literal columns instead).

    Parameters
    ----------
    grounding : RuleSet
    c_u : float, default 0.01
        Penalty per dropped grounding rule as a fraction of ``n``.
    extend_literals : bool, default False
    **kwargs
        Every parameter of :class:`BRCGClassifier`.

    Attributes
    ----------
    grounding_kept_ : ndarray of bool
        Which grounding rules are in ``rules_``.
    """

    def __init__(self, *, grounding: Any = None, c_u: float = 0.01, extend_literals: bool = False,
                 form: str = "light", C: float | None = None, lambda0: float = 0.001, lambda1: float = 0.001,
                 complexity: str = "literals+1", max_literals: int = 10, pricing: str = "beam",
                 beam_width: int = 5, columns_per_iter: int = 10, max_iter: int = 100,
                 time_limit: float | None = None, milp_time_limit: float = 10.0, mip_time_limit: float | None = 60.0,
                 solver: str = "highs", pricing_solver: str | None = None, mip_solver: str | None = None,
                 binarizer: Any = "quantile", n_thresholds: int = 9, negations: bool = True,
                 conditions: Any = None, target_class: int = 1, init: str = "none", settings: Any = None,
                 random_state: Any = None) -> None:
        super().__init__(form=form, C=C, lambda0=lambda0, lambda1=lambda1, complexity=complexity,
                         max_literals=max_literals, pricing=pricing, beam_width=beam_width,
                         columns_per_iter=columns_per_iter, max_iter=max_iter, time_limit=time_limit,
                         milp_time_limit=milp_time_limit, mip_time_limit=mip_time_limit, solver=solver,
                         pricing_solver=pricing_solver, mip_solver=mip_solver, binarizer=binarizer,
                         n_thresholds=n_thresholds, negations=negations, conditions=conditions,
                         target_class=target_class, init=init, settings=settings, random_state=random_state)
        self.grounding = grounding
        self.c_u = c_u
        self.extend_literals = extend_literals

    _parameter_constraints: dict = {
        **BRCGClassifier._parameter_constraints,
        "grounding": [RuleSet],
        "c_u": [Interval(Real, 0, None, closed="left")],
        "extend_literals": ["boolean"],
    }

    def _grounding_clauses(self, X):
        index = {c: j for j, c in enumerate(self.literals_)}
        d = self.n_features_in_
        extra: list = []
        clauses: list[tuple] = []
        for k, rule in enumerate(self.grounding.rules):
            cols = []
            if len(rule) == 0:
                raise InputError(f"grounding rule {k} is empty (always true); give rules with at least one condition")
            for cond in rule.conditions:
                j = index.get(cond)
                if j is None:
                    j = _close_match(cond, self.literals_)
                if j is None:
                    if cond.feature >= d:
                        raise InputError(f"grounding rule {k} refers to feature {cond.feature}, but X has {d} features")
                    if not self.extend_literals:
                        raise InputError(
                            f"grounding rule {k} uses condition {cond.render()!r} that the binarizer did not produce; "
                            "fit with the same binarizer settings as the grounding rules, or pass extend_literals=True")
                    j = len(self.literals_) + len(extra)
                    extra.append(cond)
                    index[cond] = j
                cols.append(j)
            clauses.append(tuple(sorted(set(cols))))
        self.extra_literals_ = extra
        self.n_binarized_ = len(self.literals_)
        self.literals_ = list(self.literals_) + extra
        self.grounding_clauses_ = clauses
        return clauses, list(range(len(clauses)))

    def _literal_matrix(self, X, Xb):
        extra = getattr(self, "extra_literals_", [])
        if Xb.shape[1] == getattr(self, "n_binarized_", Xb.shape[1]) and extra:
            cols = [np.asarray(c.evaluate(X), dtype=bool) for c in extra]
            Xb = np.hstack([Xb, np.stack(cols, axis=1)])
        return Xb

    def _binarize(self, X) -> np.ndarray:
        if self.binarizer_ is None:
            Xb = self._check_binary(X)
        else:
            Xb = np.asarray(self.binarizer_.transform(X))
        return Xb.astype(bool)

    def fit(self, X, y):
        super().fit(X, y)
        sel = set(self.clauses_)
        self.grounding_kept_ = np.array([c in sel for c in self.grounding_clauses_], dtype=bool)
        return self


def _close_match(cond, literals) -> int | None:
    for j, c in enumerate(literals):
        if c.feature == cond.feature and c.op == cond.op:
            a, b = c.value, cond.value
            if isinstance(a, (int, float, np.number)) and isinstance(b, (int, float, np.number)) \
                    and not isinstance(a, bool) and not isinstance(b, bool):
                if np.isclose(float(a), float(b), rtol=1e-9, atol=1e-12):
                    return j
            elif a == b:
                return j
    return None
