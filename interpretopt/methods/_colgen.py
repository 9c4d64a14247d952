"""Column generation for BRCG with certificates: a restricted master, pricers, an integer master.

The shape follows OR-Tools' MathOpt column-generation sample: the restricted master LP is
held by an incremental backend and grows column by column; a pricer turns its duals into
new columns; when no column prices out (or a limit is reached) the master over the
generated columns is solved as an integer program. What is new here is that every stage
says what it *found* and what it *proved*:

* :class:`RestrictedMaster` -- LP (1)-(3) of :mod:`interpretopt.formulations.brcg` over
  the current clauses, on merged weighted rows (samples with the same literal pattern and
  label are one row), columns appended in place and the LP re-solved warm;
* pricers (:class:`BeamPricing`, :class:`MilpPricing`, :class:`BnbPricing`, :class:`BeamThenMilp`) --
  ``price(duals, ...)`` returns columns of negative reduced cost and, when it has one, a
  valid lower bound on the reduced cost of every clause it did not return;
* :func:`~interpretopt.formulations.brcg.lagrangian_bound` turns the duals and that bound
  into a lower bound on the LP over *all* clauses (eqs. (B1)-(B4)); the best bound over
  the iterations is kept;
* :class:`IntegerMaster` -- the integer program over the columns the last LP saw, with a
  start from the LP solution and an exact objective recomputed from the selection; columns
  another column dominates (:func:`~interpretopt.formulations.brcg.dominated_columns`:
  covers no more negatives, no fewer positives, no more literals) are left out, which keeps
  its optimum value (breast cancer: 119 of 201 columns, HiGHS 0.42 -> 0.18 s).

The loop (:func:`_loop`) is built from named parts: the restricted master
(:class:`RestrictedMaster`), a pricing policy (the pricer of ``pricing``), a dual policy
(``dual_policy``, asked by :class:`PricingRound`), one stop rule (:class:`StopRule`) and one
limit helper (:class:`WorkBudget`), then the integer master (:func:`_integer_phase`).

Stop reasons: ``proven_optimal`` (the Lagrangian bound is within ``tol`` of the restricted
LP: the LP over all clauses is solved), ``heuristic_pricing_exhausted`` (the beam found no
column: nothing is proven), ``pricing_time_limit`` (the exact pricer hit its own limit
without a column), ``pricing_no_progress`` (the exact pricer returned no new column but its
bound, within the pricing solver's tolerances, does not reach ``tol``), ``pricing_work_limit``
(the exact pricer hit its node limit without a column: a work limit, the same on any machine),
``time_limit``, ``iteration_limit``.

What exact pricing proves in practice (measured, ``benchmarks/bench_brcg.py --exact D``): a
proof covers the clauses of at most ``max_literals`` literals, and it completes where the
branch and bound of :mod:`interpretopt.heuristics.clause_bnb` can exhaust its tree at the
final duals: breast cancer and adult at ``max_literals=3`` (tens of seconds and about six
minutes of CPU). At the default ``max_literals=10`` it does not: at breast cancer's
``max_literals=3`` optimal duals a 60 s search over 10 literals ends with a queue bound of
-0.0088 and a column of -0.00076, while the light form's bound (B3) reaches ``tol`` only when
every clause's reduced cost is above about ``-tol * (lambda0 + lambda1 |k|)`` (-2e-7 for one
literal at the defaults), so a partial search proves nothing useful. Such fits end with
``pricing_time_limit`` or ``time_limit``, ``proven_=False`` and the best valid bound found; the
result is never reported as converged.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from interpretopt._clock import Deadline, use_clock
from interpretopt._rows import LiteralMatrix
from interpretopt._threads import on_one_blas_thread
from interpretopt.exceptions import InputError, SolverError
from interpretopt.formulations import brcg as F
from interpretopt.heuristics.beam import BeamPricer
from interpretopt.heuristics.selection_search import improve_selection

__all__ = [
    "PRICING_STRATEGIES",
    "STOP_REASONS",
    "CGResult",
    "RestrictedMaster",
    "PricingResult",
    "BeamPricing",
    "MilpPricing",
    "BnbPricing",
    "BeamThenMilp",
    "IntegerMaster",
    "column_generation",
]

PRICING_STRATEGIES = ("beam", "milp", "beam+milp", "bnb", "beam+bnb")
#: the branch-and-bound pricer returns up to this many times ``columns_per_iter`` columns per call.
#: Measured on breast cancer, exact CG with max_literals=3 (runs/ip/exact.py): 16 calls and 59.6
#: CPU s at 1x, 41.5 s at 3x, 41.7 s at 6x (a looser threshold until the list fills costs nodes)
EXACT_COLUMNS_FACTOR = 3
STOP_REASONS = ("proven_optimal", "heuristic_pricing_exhausted", "pricing_time_limit", "pricing_work_limit",
                "pricing_no_progress", "time_limit", "iteration_limit")


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


def _min_limit(*limits: float | None) -> float | None:
    """The least of the limits given (``None``: no limit)."""
    given = [float(t) for t in limits if t is not None]
    return min(given) if given else None


def _node_options(node_limit: int | None) -> dict:
    """HiGHS' node limit of a MILP (``mip_max_nodes``), a work limit; nothing without one."""
    return {} if node_limit is None else {"mip_max_nodes": int(node_limit)}


def _with_highs_options(settings, solver: str, extra: dict):
    """``settings`` with HiGHS options ``extra`` for a HiGHS backend, the user's own options winning."""
    if not extra or not solver.startswith("highs"):
        return settings
    S = _solvers()
    base = settings if settings is not None else S.SolveSettings()
    user = base.options_for(solver, frozenset(S.SOLVERS.names()) | {"highs_direct"})
    extra = {k: v for k, v in extra.items() if k not in user and _highs_has_option(k)}
    if not extra:
        return base
    options = dict(base.options)
    options[solver] = {**extra, **dict(options.get(solver) or {})}
    return base.replace(options=options)


def _capable(*needs: str) -> list[str]:
    """Registered solvers with every capability in ``needs`` (methods ask for capabilities, never names)."""
    S = _solvers()
    return [n for n in S.SOLVERS.names() if all(getattr(S.SOLVERS.get(n).capabilities, k) for k in needs)]


def _has(name: str, *needs: str) -> bool:
    S = _solvers()
    return name in S.SOLVERS and all(getattr(S.SOLVERS.get(name).capabilities, k) for k in needs)


def check_lp_solver(name: str) -> None:
    """The master LP needs duals from an incremental backend."""
    if not _has(name, "lp", "duals", "incremental"):
        raise SolverError(
            f"solver {name!r} cannot be used for the column-generation master LP: the loop needs LP duals "
            f"from an incremental backend; choose one of {', '.join(_capable('lp', 'duals', 'incremental'))}")


def check_milp_solver(name: str) -> None:
    """Exact pricing needs a backend that solves MILPs."""
    S = _solvers()
    try:
        caps = S.get_solver(name).capabilities
    except Exception as exc:  # unknown or unavailable: the registry's message says which exist
        raise SolverError(f"pricing solver {name!r} cannot be used: {exc}") from None
    if not caps.milp:
        milp = [n for n in S.available_solvers() if _caps_milp(n)]
        raise SolverError(f"exact pricing needs a solver that solves MILPs, and {name!r} does not; "
                          f"use one of {', '.join(milp)}")


def _caps_milp(name: str) -> bool:
    try:
        return bool(_solvers().get_solver(name).capabilities.milp)
    except Exception:
        return False


def clause_cover(X: np.ndarray, clause: tuple) -> np.ndarray:
    """Rows of ``X`` (bool) that satisfy every literal of ``clause`` (all rows for the empty clause)."""
    if not clause:
        return np.ones(X.shape[0], dtype=bool)
    return X[:, list(clause)].all(axis=1)


def prune_clause(X: np.ndarray, clause: tuple) -> tuple:
    """The clause's canonical form on the rows of ``X``: literals whose removal leaves its coverage unchanged
    are dropped, one pass in increasing literal order.

    One pass suffices: a literal ``k`` kept because its removal changed the coverage still changes
    it after later removals (those leave the coverage as it was, and dropping ``k`` only widens
    it), so no literal of the result is redundant on these rows. Consequences for literals of one
    feature: a literal implied by another one of the clause (``x <= 2`` implies ``x <= 5``) never
    survives, so each feature keeps at most its tightest bound in each direction among the rows;
    a contradictory clause (``x <= 2 AND x > 5``) covers no row and is never a column, since its
    reduced cost ``a + b |k|`` is not negative.
    """
    clause = list(clause)
    full = clause_cover(X, tuple(clause))
    for j in list(clause):
        if len(clause) == 1:
            break
        rest = [k for k in clause if k != j]
        if np.array_equal(X[:, rest].all(axis=1), full):
            clause = rest
    return tuple(sorted(clause))


# ----------------------------------------------------------------------------- the master LP
@dataclass(frozen=True)
class MasterLP:
    """One solve of the restricted master: value, primal values, clipped duals, columns seen."""

    objective: float
    xi: np.ndarray
    w: np.ndarray
    mu: np.ndarray
    lam: float
    n_columns: int
    result: Any


class RestrictedMaster:
    """LP relaxation of (1)-(3) (or the light / grounded form) over the current clauses.

    Columns are ``[xi_i for each positive row, w_k for each clause]``, rows ``[(2) for each
    positive row, (3)]`` (row (3) only in the constraint form, present even before the
    first clause). The rows are the merged weighted rows of :func:`~F.unique_rows`.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray, spec: F.MasterSpec, *,
                 solver: str = "highs", settings=None) -> None:
        check_lp_solver(solver)
        self.X, self.y, self.weight, self.spec = X, np.asarray(y, dtype=np.int8), weight, spec
        self.yb = self.y.astype(bool)
        self.pos = np.flatnonzero(self.yb)
        self.settings = settings
        self.clauses: list[tuple] = []
        self.covers: list[np.ndarray] = []
        self._cover_blocks: list[sp.csc_matrix] = []  # the same coverage, one CSC block per add
        self.grounded: list[bool] = []
        self.keys: dict[tuple, int] = {}
        # the master over no clause yet (rows (2)-(3) and the xi columns); clauses are added as columns
        lp = F.master_lp(np.zeros((self.y.shape[0], 0), dtype=bool), self.y, [], spec, sample_weight=weight)
        self.model = _solvers().IncrementalModel.from_lp(lp, solver)
        self.n_rows = lp.n_rows

    @property
    def n_columns(self) -> int:
        return len(self.clauses)

    def add(self, clauses: Sequence[tuple], grounded: bool | Sequence[bool] = False) -> list[int]:
        """Append clauses as columns (duplicates of existing columns are skipped); returns their indices."""
        flags = [bool(grounded)] * len(clauses) if isinstance(grounded, (bool, np.bool_)) else list(grounded)
        new, new_cov, new_g, idx = [], [], [], []
        for c, g in zip(clauses, flags):
            c = tuple(sorted(int(j) for j in c))
            if not c:
                raise InputError("the empty clause (always true) cannot be a column; give at least one literal")
            if not g:  # canonical form; a grounding clause is the user's rule and stays as given
                c = prune_clause(self.X, c)
            if c in self.keys:
                idx.append(self.keys[c])
                continue
            self.keys[c] = len(self.clauses) + len(new)
            idx.append(self.keys[c])
            new.append(c)
            new_cov.append(clause_cover(self.X, c))
            new_g.append(g)
        if new:
            cov = np.stack(new_cov, axis=1)
            cost, block, upper = F.master_columns(cov, self.y, [len(c) for c in new], self.spec,
                                                  grounded=np.asarray(new_g), relax=True, sample_weight=self.weight)
            self.model.add_columns(cost, np.zeros(len(new)), upper, sp.csc_matrix(block))
            self.clauses.extend(new)
            self.covers.extend(new_cov)
            self._cover_blocks.append(sp.csc_matrix(cov))
            self.grounded.extend(new_g)
        return idx

    def cover_sparse(self) -> sp.csc_matrix:
        """Coverage of every column (rows x columns) as a boolean CSC matrix, from the blocks kept
        at each :meth:`add` (no scan of the dense coverage per iteration)."""
        if not self._cover_blocks:
            return sp.csc_matrix((self.X.shape[0], 0), dtype=bool)
        if len(self._cover_blocks) > 1:
            self._cover_blocks = [sp.hstack(self._cover_blocks, format="csc")]
        return self._cover_blocks[0]

    def cover_matrix(self, k: int | None = None) -> np.ndarray:
        """Coverage (rows x first ``k`` columns) as a bool matrix."""
        k = self.n_columns if k is None else k
        if k == 0:
            return np.zeros((self.X.shape[0], 0), dtype=bool)
        return np.stack(self.covers[:k], axis=1)

    def solve(self, time_limit: float | None) -> MasterLP | None:
        """Solve the LP; ``None`` when the backend returned no solution because of the time limit.

        Raises
        ------
        SolverError
            When the LP fails for any other reason (it is always feasible: ``xi = 1``).
        """
        res = self.model.solve(_settings(time_limit, self.settings), duals=True)
        if not res.has_solution or res.duals is None:
            St = _solvers().SolveStatus
            if res.status in (St.TIME_LIMIT, St.LIMIT) or (res.has_solution and time_limit is not None):
                return None
            raise SolverError(f"the restricted master LP was not solved: status {res.status}, {res.message}")
        nP = self.pos.size
        x = np.asarray(res.x, dtype=float)
        duals = np.asarray(res.duals, dtype=float)
        s = self.spec.loss_scale * self.weight[self.yb]
        mu = np.clip(duals[:nP], 0.0, s)
        lam = max(-float(duals[nP]), 0.0) if self.spec.form == "constraint" else 0.0
        # the backend holds the objective without its constant g |U| (eq. (5): the penalty is
        # g sum_u (1 - w_u), the columns carry -g): add it, so that the value is the LP's and
        # compares with the Lagrangian bound, whose D0 includes g |U|
        objective = float(res.objective) + self.spec.grounding_penalty * float(sum(self.grounded))
        return MasterLP(objective=objective, xi=x[:nP], w=x[nP:nP + self.n_columns], mu=mu, lam=lam,
                        n_columns=self.n_columns, result=res)


# ----------------------------------------------------------------------------- pricers
@dataclass(frozen=True)
class PricingResult:
    """Columns found by one pricing call and what it proved.

    Attributes
    ----------
    columns : list of tuple
        Clauses of reduced cost below ``-rc_tol``, best first, re-priced exactly.
    reduced_costs : ndarray
    rc_outside : float
        A valid lower bound on the reduced cost of every non-grounding clause that is not
        a master column (``-inf``: this call proved nothing).
    exact : bool
        Whether an exact method ran (its bound is in ``rc_outside``).
    timed_out : bool
        The exact method stopped at one of its limits before it completed.
    best_clause : tuple or None
        The clause of least reduced cost met (a start for a later exact call).
    result : SolveResult or None
    method : str
    limit : {"time", "work"} or None
        Which limit stopped the exact method early: its node limit (a work limit, the same on
        any machine) or its wall-clock safety net.
    space_literals, space_rc : int or None, float
        A bound ``space_rc`` on the reduced cost of every clause of at most ``space_literals``
        literals that is not a master column, from an exact search over that smaller space
        (:class:`ExactPhaseThenBeam`); ``rc_outside`` is then ``-inf`` unless that space is
        the whole one.
    """

    columns: list
    reduced_costs: np.ndarray
    rc_outside: float = -np.inf
    exact: bool = False
    timed_out: bool = False
    best_clause: tuple | None = None
    result: Any = None
    method: str = ""
    limit: str | None = None
    space_literals: int | None = None
    space_rc: float = -np.inf


def _limit_kind(res) -> str:
    """Which limit stopped a MILP solve early: ``"time"`` (the wall-clock safety net) or ``"work"``."""
    St = _solvers().SolveStatus
    return "time" if res.status == St.TIME_LIMIT or "time limit" in str(res.message).lower() else "work"


class BeamPricing:
    """Beam search over literals (heuristic: returns columns, proves nothing)."""

    exact = False

    def __init__(self, X: np.ndarray, *, max_literals: int, width: int, max_columns: int) -> None:
        self.pricer = BeamPricer(X)
        self.max_literals, self.width, self.max_columns = int(max_literals), int(width), int(max_columns)

    def price(self, r, a, b, *, exclude: Iterable[tuple], time_limit: float | None = None, rc_tol: float = 0.0,
              start=None, cutoff: float = 0.0) -> PricingResult:
        res = self.pricer.search(r, a, b, max_literals=self.max_literals, width=self.width,
                                 max_columns=self.max_columns, exclude=exclude, tol=rc_tol)
        return PricingResult(columns=list(res.clauses), reduced_costs=np.asarray(res.reduced_costs),
                             best_clause=res.best_clause, method="beam")


class MilpPricing:
    """The exact aggregated pricing MILP (Dash et al. eqs. (6)-(10)) with a true objective cutoff.

    The cutoff is a row ``reduced cost <= cutoff`` of the program, so an infeasible answer
    proves that no clause prices below it (HiGHS' own ``objective_bound`` option is not
    honoured by incumbents found at the root, so it is not relied on). The program
    (:func:`~F.pricing_lp`) is built once; each call changes its costs and cutoff row
    (:func:`~F.set_pricing_objective`) and solves it with :func:`~interpretopt.solvers.solve_lp`
    (a backend with an incremental model takes the arrays directly, any other MILP solver of
    the registry the Pyomo model built from them).
    """

    exact = True

    def __init__(self, X: np.ndarray, y: np.ndarray, *, max_literals: int, exclude: Sequence[tuple] = (),
                 solver: str = "highs", settings=None, time_limit: float | None = 10.0,
                 node_limit: int | None = None) -> None:
        check_milp_solver(solver)
        self.X, self.y, self.D, self.exclude = X, np.asarray(y, dtype=np.int8), int(max_literals), list(exclude)
        self.time_limit = None if time_limit is None else float(time_limit)
        # the node limit is HiGHS' mip_max_nodes (a work limit); other solvers have the time limit only
        self.solver, self.settings = solver, _with_highs_options(settings, solver, _node_options(node_limit))
        self.lp = None
        self.build_time = 0.0

    def _program(self, r, a, b, cutoff: float):
        t0 = time.perf_counter()
        if self.lp is None:
            self.lp = F.pricing_lp(self.X, self.y, r, a, b, self.D, exclude=self.exclude)
        lp = F.set_pricing_objective(self.lp, r, a, b, cutoff)
        self.build_time += time.perf_counter() - t0
        return lp

    def price(self, r, a, b, *, exclude: Iterable[tuple] = (), time_limit: float | None = None,
              rc_tol: float = 0.0, start: tuple | None = None, cutoff: float = 0.0) -> PricingResult:
        """Clauses of reduced cost at most ``min(cutoff, -rc_tol)``, and a bound on every other clause."""
        S = _solvers()
        cutoff = min(float(cutoff), -float(rc_tol))
        settings = _settings(_min_limit(self.time_limit, time_limit), self.settings)
        lp = self._program(r, a, b, cutoff)
        x0 = None
        if start is not None and _has(self.solver, "warm_start"):
            cov = clause_cover(self.X, start)
            if float(a + b * len(start) + np.asarray(r)[cov].sum()) <= cutoff:
                x0 = np.zeros(lp.n_cols)
                x0[lp.cols("z").start + np.asarray(list(start), dtype=int)] = 1.0
                x0[lp.cols("delta")] = cov[np.asarray(lp.col_labels["delta"], dtype=int)].astype(float)
        # measured on these models: presolve costs more than it saves
        res = S.solve_lp(lp, self.solver, settings, presolve=False, start=x0)
        clause = F.pricing_clause(res.x, lp) if res.has_solution and res.x is not None else None
        St = S.SolveStatus
        status = res.status
        rc_outside = -np.inf
        if status == St.INFEASIBLE:
            res.message = (res.message + f"; no clause of reduced cost at most {cutoff:.3g} exists").lstrip("; ")
            rc_outside = cutoff
        elif res.bound is not None and math.isfinite(res.bound):
            rc_outside = float(res.bound)  # the program's objective includes its constant a
        timed_out = status not in (St.OPTIMAL, St.INFEASIBLE)
        cols, rcs = [], []
        if clause:
            clause = prune_clause(self.X, clause)
            rc = float(F.reduced_costs(clause_cover(self.X, clause)[:, None], [len(clause)], r, a, b)[0])
            if rc < -rc_tol and clause not in set(exclude):
                cols.append(clause)
                rcs.append(rc)
        return PricingResult(columns=cols, reduced_costs=np.asarray(rcs, dtype=float), rc_outside=rc_outside,
                             exact=True, timed_out=timed_out, best_clause=clause, result=res, method="milp",
                             limit=_limit_kind(res) if timed_out else None)


class BnbPricing:
    """Exact pricing by search: blocked enumeration up to three literals
    (:mod:`interpretopt.heuristics.clause_enum`, ``method="enum"``), best-first branch and bound
    over literals beyond (:mod:`interpretopt.heuristics.clause_bnb`, ``method="bnb"``).

    Returns up to ``max_columns`` clauses below the cutoff (several improving columns per
    call) and, from the same search, a lower bound on the reduced cost of every clause that
    is not a master column: when the search completes, ``rc_outside`` proves that no other
    clause prices below the cutoff; when it stops at its time limit, the least bound of its
    queue keeps ``rc_outside`` valid.
    """

    exact = True

    def __init__(self, X: np.ndarray, y: np.ndarray, *, max_literals: int, max_columns: int,
                 exclude: Sequence[tuple] = (), time_limit: float | None = 10.0, node_limit: int | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        from interpretopt.heuristics.clause_bnb import ClauseBranchAndBound
        from interpretopt.heuristics.clause_enum import MAX_ENUMERATION_LITERALS, ClauseEnumeration

        self.D, self.max_columns = int(max_literals), int(max_columns)
        # up to three literals the whole space is scored by blocked products (exact pricing at
        # three literals, whole fits: magic 92.6 -> 22.0 CPU s, eye_movements 335 -> 38.9 against
        # the tree search; benchmarks/bench_rule_learners.py --learners brcg_exact3); deeper, the tree
        self.enumerates = self.D <= MAX_ENUMERATION_LITERALS
        self.search = ClauseEnumeration(X, y) if self.enumerates else ClauseBranchAndBound(X, y)
        self.ground = {tuple(sorted(int(j) for j in c)) for c in exclude}
        self.time_limit, self.clock = None if time_limit is None else float(time_limit), clock
        self.node_limit = None if node_limit is None else int(node_limit)
        self.build_time = 0.0
        self.n_nodes = self.work = 0
        self.work_limit: float | None = None  # set by the exact phase (its budget left)

    def price(self, r, a, b, *, exclude: Iterable[tuple] = (), time_limit: float | None = None,
              rc_tol: float = 0.0, start=None, cutoff: float = 0.0) -> PricingResult:
        cutoff = min(float(cutoff), -float(rc_tol))
        res = self.search.search(r, a, b, max_literals=self.D, max_columns=self.max_columns,
                                 exclude=set(exclude) | self.ground, cutoff=cutoff,
                                 time_limit=_min_limit(self.time_limit, time_limit), node_limit=self.node_limit,
                                 clock=self.clock, work_limit=self.work_limit)
        self.n_nodes += res.n_nodes
        self.work += res.work
        limit = None
        if not res.complete:
            by_work = (self.node_limit is not None and res.n_nodes >= self.node_limit) or \
                (self.work_limit is not None and res.work >= self.work_limit)
            limit = "work" if by_work else "time"
        return PricingResult(columns=list(res.clauses), reduced_costs=np.asarray(res.reduced_costs, dtype=float),
                             rc_outside=res.rc_lower_bound, exact=True, timed_out=not res.complete,
                             best_clause=res.best_clause, method="enum" if self.enumerates else "bnb",
                             limit=limit)


class BeamThenMilp:
    """The beam every iteration; the exact pricer (MILP or branch and bound) when the beam finds nothing."""

    exact = True

    def __init__(self, beam: BeamPricing, milp: MilpPricing) -> None:
        self.beam, self.milp = beam, milp

    def price(self, r, a, b, *, exclude, time_limit=None, rc_tol: float = 0.0, start=None,
              cutoff: float = 0.0) -> PricingResult:
        excl = list(exclude)
        res = self.beam.price(r, a, b, exclude=excl, rc_tol=rc_tol)
        if res.columns:
            return res
        out = self.milp.price(r, a, b, exclude=excl, time_limit=time_limit, rc_tol=rc_tol, start=res.best_clause,
                              cutoff=cutoff)
        return PricingResult(columns=out.columns, reduced_costs=out.reduced_costs, rc_outside=out.rc_outside,
                             exact=True, timed_out=out.timed_out, best_clause=out.best_clause, result=out.result,
                             method="beam+" + out.method, limit=out.limit)


class ExactPhaseThenBeam:
    """Exact pricing over clauses of up to ``literals`` literals under a total node budget, then the beam.

    The first phase is ``"beam+bnb"`` at depth ``literals`` (the beam, and exact pricing by
    :class:`BnbPricing` when the beam finds nothing), the row-literal pairs it scores counted against
    ``work_budget`` (a work limit, proportional to CPU time on any data). It
    ends when the branch and bound finds no column (the LP over clauses of up to ``literals``
    literals, plus the master's columns, is then solved: :attr:`complete`) or the budget is spent;
    the beam over clauses of up to ``max_literals`` then continues from the columns it left.
    The final master holds the exact phase's columns, so the integer master can select the rule
    set exact pricing at ``literals`` would have found, and the beam's longer clauses besides.

    Each exact call also bounds the reduced cost of every clause of the smaller space
    (``space_rc``): with the Lagrangian terms (eq. (B1)) that is a valid lower bound on every
    rule set whose clauses have at most ``literals`` literals (:class:`PricingRound`). It is a
    bound on the whole space only when ``literals >= max_literals``.
    """

    def __init__(self, first: BeamThenMilp, beam: BeamPricing, *, literals: int, work_budget: float,
                 whole_space: bool) -> None:
        self.first, self.bnb, self.beam = first, first.milp, beam
        self.literals, self.work_budget = int(literals), float(work_budget)
        self.whole_space = bool(whole_space)
        self.in_phase, self.complete = True, False
        self.final_r: np.ndarray | None = None
        self.exact = self.whole_space

    def price(self, r, a, b, *, exclude, time_limit=None, rc_tol: float = 0.0, start=None,
              cutoff: float = 0.0) -> PricingResult:
        left = self.work_budget - self.bnb.work
        if self.in_phase and left <= 0:
            self.in_phase = False
        if not self.in_phase:
            return self.beam.price(r, a, b, exclude=exclude, rc_tol=rc_tol)
        self.bnb.work_limit = left
        excl = list(exclude)
        res = self.first.price(r, a, b, exclude=excl, time_limit=time_limit, rc_tol=rc_tol, cutoff=cutoff)
        space_rc = res.rc_outside if res.exact else -np.inf
        phase = replace(res, exact=res.exact and self.whole_space,
                        rc_outside=res.rc_outside if self.whole_space else -np.inf,
                        space_literals=self.literals, space_rc=space_rc, method="exact-phase:" + res.method)
        if res.columns:
            return phase
        self.in_phase = False
        self.complete = res.exact and not res.timed_out
        if self.complete:   # the multipliers the space was priced at: the bound step starts from them
            self.final_r = np.asarray(r, dtype=float).copy()
        if self.whole_space:
            return phase  # the stop rule reads it as an exact pricer's answer
        # the phase is over (proven, out of budget, or stopped by its safety net, which the round records)
        out = self.beam.price(r, a, b, exclude=excl, rc_tol=rc_tol)
        return replace(out, space_literals=self.literals, space_rc=space_rc, method="exact-phase-end+beam",
                       limit=res.limit)


# ----------------------------------------------------------------------------- the integer master
@dataclass(frozen=True)
class IntegerSolution:
    selected: np.ndarray
    objective: float
    result: Any
    source: str  # "solver", "local_search", "lp_rounding" or "empty"
    n_fixed: int = 0  # columns left out by reduced-cost fixing


# HiGHS options of the integer master, unless the user's settings name them. Measured with
# ``benchmarks/bench_brcg.py`` (breast cancer, 175 columns): HiGHS spends about half of its
# 1.5 s in RINS/RENS sub-MIPs that find nothing the rounded LP start did not, and proves the
# same optimum in 0.85 s without them; adult and 20k synthetic rows are unchanged (0.1-0.3 s).
# Options only steer the search: the status is still HiGHS's proof (or its incumbent and bound).
_HIGHS_MASTER_OPTIONS = {"mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False}
_HIGHS_OPTIONS_KNOWN: dict[str, bool] = {}


def _highs_has_option(key: str) -> bool:
    """The installed HiGHS knows ``key`` (older releases lack some MIP heuristic switches)."""
    if key not in _HIGHS_OPTIONS_KNOWN:
        try:
            import highspy

            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            status = h.getOptionValue(key)
            ok = not (isinstance(status, tuple) and status and status[0] == highspy.HighsStatus.kError)
        except Exception:
            ok = False
        _HIGHS_OPTIONS_KNOWN[key] = ok
    return _HIGHS_OPTIONS_KNOWN[key]


def _master_mip_settings(settings, solver: str, node_limit: int | None = None):
    """``settings`` with :data:`_HIGHS_MASTER_OPTIONS` (and the node limit) for a HiGHS backend, the user's
    own options winning."""
    return _with_highs_options(settings, solver, {**_HIGHS_MASTER_OPTIONS, **_node_options(node_limit)})


class IntegerMaster:
    """The integer master (``w`` binary) over given clauses; dominated columns dropped, rows with equal
    label and coverage merged."""

    #: the dominance test (F.dominated_columns) is skipped above this many K x K x rows multiply-adds
    #: (2e9: about half a second on one BLAS thread)
    max_dominance_work = 2e9

    #: work limit of the local search that gives the solver its start (moves from each start; each
    #: costs a few rows x columns products)
    local_search_moves = 1000
    #: the local search starts from the empty set and from the LP solution rounded at each threshold
    local_search_thresholds = (0.5, 0.2, 0.1)

    def __init__(self, y: np.ndarray, weight: np.ndarray, spec: F.MasterSpec, *, solver: str = "highs",
                 settings=None, node_limit: int | None = None, work_limit: float | None = None) -> None:
        self.y, self.spec, self.solver, self.settings = np.asarray(y, np.int8), spec, solver, settings
        self.weight = np.ones(self.y.shape[0]) if weight is None else np.asarray(weight, dtype=float)
        self.node_limit = None if node_limit is None else int(node_limit)
        self.work_limit = None if work_limit is None else float(work_limit)

    def nodes_for(self, rows: int, columns: int) -> int | None:
        """The node limit of an integer program of ``rows`` x ``columns``: ``node_limit``, and at most
        ``work_limit / (rows x columns)`` nodes (at least the root), so that one work limit bounds
        small and large masters alike (each node re-solves an LP of that size)."""
        if self.work_limit is None:
            return self.node_limit
        by_work = max(1, int(self.work_limit // max(1, rows * columns)))
        return by_work if self.node_limit is None else min(self.node_limit, by_work)

    def _rounding(self, w_lp: np.ndarray, n_lit: np.ndarray, threshold: float = 0.5) -> np.ndarray:
        """Columns with ``w_lp > threshold`` (nothing when they break row (3))."""
        start = (np.asarray(w_lp) > threshold).astype(float)
        if self.spec.form == "constraint" and float(self.spec.clause_complexity(n_lit) @ start) > float(self.spec.C) + 1e-9:
            return np.zeros_like(start)
        return start

    def solve(self, cover: np.ndarray, n_lit: np.ndarray, grounded: np.ndarray, w_lp: np.ndarray | None,
              time_limit: float | None, duals: tuple | None = None) -> IntegerSolution:
        """The best selection found: the rounded LP solution, the empty one, or the solver's.

        ``duals`` (``(mu, lam)``, e.g. the last LP's) enables reduced-cost fixing
        (:func:`~F.fixed_by_reduced_cost`): columns that no selection better than the incumbent
        uses are left out of the integer program, which keeps its optimum (``n_fixed``)."""
        spec, y = self.spec, self.y
        K = cover.shape[1]
        g_idx = np.flatnonzero(grounded)

        def exact(sel) -> float:
            return F.master_objective(sel, cover, y, n_lit, spec, grounding=g_idx, sample_weight=self.weight)

        best_sel, best_obj, best_src = self._incumbent(cover, n_lit, grounded, w_lp, exact)
        live = np.arange(K)
        if K and duals is not None:
            live = np.flatnonzero(~F.fixed_by_reduced_cost(spec, y, duals[0], duals[1], cover, n_lit,
                                                           incumbent=best_obj, grounded=grounded,
                                                           sample_weight=self.weight))
        res = None
        if live.size:
            start = np.zeros(K)
            start[best_sel] = 1.0
            # the incumbent's columns are never fixed (its own objective meets the bound); if float
            # error fixed one, the solver starts from nothing rather than from a wrong point
            start_live = start[live] if start[live].sum() == best_sel.size else None
            sel, res = self._solve_columns(cover[:, live], n_lit[live], grounded[live], start_live, time_limit)
            if sel is not None:
                sel = live[sel]
                obj = exact(sel)
                if obj <= best_obj + 1e-12:
                    best_sel, best_obj, best_src = sel, obj, "solver"
        return IntegerSolution(selected=np.asarray(best_sel, dtype=int), objective=float(best_obj), result=res,
                               source=best_src, n_fixed=int(K - live.size))

    def _incumbent(self, cover, n_lit, grounded, w_lp, exact) -> tuple[np.ndarray, float, str]:
        """The best selection that needs no solver: the empty one, the rounded LP solution, and the
        local search of :func:`~interpretopt.heuristics.selection_search.improve_selection` from the
        empty set and from the LP solution rounded at each of ``local_search_thresholds`` (at most
        ``local_search_moves`` moves each, a work limit).

        On BRCG's masters the LP is often far from integral (wine_white, default fit: 225 of
        675 columns in the LP's support, none at or above 0.5, so the rounding is the empty set),
        and the local optimum depends on the start. Measured on the leaderboard's default fits
        (``benchmarks/bench_rule_learners.py``, the masters of seed 0 unless named; the start's
        threshold: objective): banknote, empty 0.0485, 0.5 0.0254, 0.2 and 0.1 0.0251 (integer
        optimum 0.0241); magic 0.5 0.1829, 0.1 0.1806 (its optimum); wine_white seed 1, empty
        to 0.2 0.2705, 0.1 0.2620, 0.05 0.2818. The best is the solver's start and the incumbent
        that reduced-cost fixing compares against."""
        cands = [(np.zeros(0, dtype=int), "empty")]
        K = cover.shape[1]
        if K and w_lp is not None:
            cands.append((np.flatnonzero(self._rounding(w_lp, n_lit) > 0.5), "lp_rounding"))
        if K and self.local_search_moves:
            starts = [np.zeros(0, dtype=int)]
            if w_lp is not None:
                starts += [np.flatnonzero(self._rounding(w_lp, n_lit, t) > 0.5) for t in self.local_search_thresholds]
            cands += [(sel, "local_search") for sel in self._local_search(cover, n_lit, grounded, starts)]
        scored = [(exact(sel), i) for i, (sel, _) in enumerate(cands)]
        best_obj, i = min(scored)   # the first of equal ones
        return np.asarray(cands[i][0], dtype=int), float(best_obj), cands[i][1]

    def _local_search(self, cover, n_lit, grounded, starts) -> list[np.ndarray]:
        """The local optimum reached from each start (the master's objective as cover and column cost)."""
        spec, pos = self.spec, self.y.astype(bool)
        cov = np.asarray(cover, dtype=bool)
        cost = F.column_costs(cov, self.y, n_lit, spec, grounded=grounded, sample_weight=self.weight)
        cov_pos = cov[pos].astype(np.float64)   # converted once for all the starts
        constraint = spec.form == "constraint"
        return [improve_selection(cov_pos, self.weight[pos], spec.loss_scale, cost, start,
                                  complexity=spec.clause_complexity(n_lit) if constraint else None,
                                  capacity=float(spec.C) if constraint else None,
                                  max_moves=self.local_search_moves).selected for start in starts]

    def _solve_columns(self, cover, n_lit, grounded, start, time_limit):
        """The solver's selection (indices into ``cover``'s columns, or None) and its result.

        Dominated columns leave the optimum value unchanged (F.dominated_columns): they are
        dropped, the start's selected ones moved to their dominators. The test runs on rows
        merged by label and coverage (skipped when its K x K x rows products are too big), and
        the integer program is built from the same merged rows."""
        K = cover.shape[1]
        cov_a, y_a, w_a = F.aggregate_samples(cover, self.y, sample_weight=self.weight)
        dom = F.dominated_columns(cov_a, y_a, n_lit, grounded=grounded, sample_weight=w_a) \
            if float(K) * K * cov_a.shape[0] <= self.max_dominance_work else np.full(K, -1)
        keep = np.flatnonzero(dom < 0)
        start_k = None
        if start is not None:
            moved = start.copy()
            moved[dom[(dom >= 0) & (start > 0.5)]] = 1.0
            start_k = moved[keep]
        sel, res = self._solve_ip(cov_a[:, keep], y_a, w_a, n_lit[keep], np.flatnonzero(grounded[keep]), start_k,
                                  time_limit)
        return (None if sel is None else keep[sel]), res

    def _solve_ip(self, cover, y, weight, n_lit, g_idx, start, time_limit):
        """The integer program over ``cover``'s columns; its rows (label ``y``, weight ``weight``) are
        merged again by coverage over these columns."""
        spec = self.spec
        S = _solvers()
        cov_u, y_u, wt_u = F.aggregate_samples(cover, y, sample_weight=weight)
        pos_u = y_u.astype(bool)
        nPu = int(pos_u.sum())
        settings = _settings(time_limit, self.settings)
        lp = F.master_lp(cov_u, y_u, n_lit, spec, grounding=g_idx, relax=False, sample_weight=wt_u)
        x0 = None
        if start is not None and _has(self.solver, "warm_start"):
            xi0 = (~cov_u[pos_u][:, start > 0.5].any(axis=1)).astype(float) if start.any() else np.ones(nPu)
            x0 = np.concatenate([xi0, start])
        # measured on BRCG integer masters: presolve costs more than it saves here
        nodes = self.nodes_for(cov_u.shape[0], cover.shape[1])
        res = S.solve_lp(lp, self.solver, _master_mip_settings(settings, self.solver, nodes),
                          presolve=False, start=x0)
        sel = None
        if res.has_solution and res.x is not None:
            sel = np.flatnonzero(np.asarray(res.x, dtype=float)[lp.cols("w")] > 0.5)
        return sel, res


# ----------------------------------------------------------------------------- the loop
@dataclass
class CGResult:
    """What column generation found and what it proved.

    Attributes
    ----------
    clauses : list of tuple of int
        Literal indices of the clauses the last LP saw (grounding clauses first).
    selected : ndarray of int
        Indices of the clauses of the integer solution.
    restricted_lp : float or None
        Value of the restricted master LP at its last solve (``None`` if it never solved).
    lower_bound : float
        Best valid lower bound on the LP over all clauses, hence on the integer problem
        (eqs. (B1)-(B4); 0, the objective's own floor, before any LP is solved).
    integer_bound : float
        The valid lower bound on the integer problem that ``gap`` and ``status`` use:
        ``lower_bound`` raised to the least objective a rule set can take at or above it when the
        objective counts whole samples (:func:`integer_bound`), else ``lower_bound``.
    objective : float
        Objective of the selection, recomputed from scratch.
    gap : float or None
        ``(objective - integer_bound) / |objective|`` (0 when both are 0).
    proven : bool
        The lower bound is within ``tol`` of the restricted LP: the LP over all clauses is
        solved to that tolerance.
    stop_reason : str
        One of :data:`STOP_REASONS`.
    status : str
        Of the integer solution *for the whole problem*: ``optimal`` when its objective is
        within ``tol`` of the lower bound, ``heuristic`` with beam pricing, ``feasible``
        otherwise (an incumbent with a bound and a gap).
    history : list of dict
        One entry per LP solve (LP value, bound, pricing, columns added, times).
    solve_results : dict
        ``{"lp": SolveResult, "pricing": SolveResult | None, "integer": SolveResult | None}``.
    timings : dict
    limited_by_time : bool
        A wall-clock safety net (the loop's ``time_limit``, an exact pricing call's
        ``milp_time_limit``, the integer master's ``mip_time_limit``) stopped a stage: the
        result may then depend on the machine's speed and load.
    work : dict
        The work done: LP solves (``iterations``), ``pricing_calls``, ``bnb_nodes`` and
        ``bnb_work`` of exact pricing (clause prefixes extended and row-literal pairs scored, by
        the enumeration or the branch and bound), ``columns`` generated, ``columns_fixed``
        left out of the integer master by reduced-cost fixing.
    dual_policy : str
        Name of the dual policy used.
    space_literals, space_bound, space_complete : int or None, float or None, bool
        With an exact phase: a valid lower bound (``space_bound``, at least ``lower_bound``) on
        the objective of every rule set whose clauses have at most ``space_literals`` literals,
        and whether the phase completed (the LP over that space solved).
    space_integer_bound : float or None
        ``space_bound`` raised to the objectives a rule set can take (:func:`integer_bound`), and to the
        bound step's bound when it ran.
    bound_search : PoolBound or None
        What the bound step (:mod:`interpretopt.methods._pool_bound`) proved and found, when it ran.
    """

    clauses: list
    selected: np.ndarray
    restricted_lp: float | None
    lower_bound: float
    integer_bound: float
    objective: float
    gap: float | None
    proven: bool
    stop_reason: str
    status: str
    history: list
    solve_results: dict
    timings: dict
    tol: float = 1e-4
    lp_solution: np.ndarray | None = None
    lp_duals: tuple | None = None
    integer_source: str = ""
    cover: Any = field(default=None, repr=False)
    limited_by_time: bool = False
    work: dict = field(default_factory=dict)
    dual_policy: str = "none"
    space_literals: int | None = None
    space_bound: float | None = None
    space_complete: bool = False
    space_integer_bound: float | None = None
    bound_search: Any = None


def relative_gap(objective: float, bound: float) -> float:
    """``(objective - bound) / |objective|`` with ``0`` when they meet (both may be 0)."""
    diff = objective - bound
    if diff <= 1e-12 * max(1.0, abs(objective)):
        return 0.0
    return diff / max(abs(objective), 1e-12)


# ----------------------------------------------------------------------------- the loop's named parts
class WorkBudget:
    """The loop's one limit helper: its work limit and its wall-clock safety net.

    ``max_iter`` pricing rounds is a work limit (the same answer on any machine and load);
    ``time_limit`` is a :class:`~interpretopt._clock.Deadline` on the package clock
    (:func:`interpretopt._clock.monotonic`), a safety net only: every wall-clock check of the
    loop reads it, so a test that slows the clock sees every check, and :attr:`limited_by_time`
    says whether one fired.
    """

    def __init__(self, max_iter: int, time_limit: float | None) -> None:
        self.max_iter = int(max_iter)
        self.deadline = Deadline(None if time_limit is None else float(time_limit))

    def remaining(self) -> float | None:
        """Seconds left for a solver (``None``: no limit)."""
        return self.deadline.remaining()

    def out_of_time(self) -> bool:
        return self.deadline.expired()

    def rounds_done(self, it: int) -> bool:
        return it >= self.max_iter

    @property
    def limited_by_time(self) -> bool:
        return self.deadline.hit


class StopRule:
    """The loop's one stop rule (reasons in :data:`STOP_REASONS`), asked before and after each pricing round."""

    def __init__(self, tol: float, budget: WorkBudget) -> None:
        self.tol, self.budget = float(tol), budget

    def proven(self, lp_value: float, bound: float) -> bool:
        """The Lagrangian bound is within ``tol`` of the restricted LP: the LP over all clauses is solved."""
        return relative_gap(lp_value, bound) <= self.tol

    def before_pricing(self, it: int, lp_value: float, bound: float) -> str | None:
        if self.proven(lp_value, bound):
            return "proven_optimal"
        if self.budget.rounds_done(it):
            return "iteration_limit"
        if self.budget.out_of_time():
            return "time_limit"
        return None

    def after_pricing(self, pres: PricingResult, lp_value: float, bound: float) -> str | None:
        if self.proven(lp_value, bound):
            return "proven_optimal"
        if not pres.columns:
            return self._no_column(pres)
        if self.budget.out_of_time():  # the new columns would not be seen by an LP: leave them out
            return "time_limit"
        return None

    def _no_column(self, pres: PricingResult) -> str:
        if pres.exact and pres.timed_out:
            if pres.limit == "work":
                return "pricing_work_limit"
            return "time_limit" if self.budget.out_of_time() else "pricing_time_limit"
        if pres.exact:
            # exact pricing found no new column, yet its bound does not reach tol (the pricing
            # solver's own tolerances): nothing more can be proven here
            return "pricing_no_progress"
        return "heuristic_pricing_exhausted"


@dataclass(frozen=True)
class DualPoint:
    """Duals to price at: ``mu`` of the positive rows, ``lam`` of the complexity row, and ``alpha``,
    the weight of the stability center in them (0: the restricted master's own duals)."""

    mu: np.ndarray
    lam: float
    alpha: float = 0.0


class MasterDuals:
    """Dual policy without stabilisation: price at the restricted master's duals (the default).

    A dual policy yields the points to price at, in order, for one round (:meth:`points`), and
    hears the Lagrangian bound of every point the loop evaluated (:meth:`evaluated`); the loop
    stops asking for points at the first one that gives a column of negative reduced cost at
    the master's duals. Every policy's last point is the master's duals, so the stop rule sees
    the same pricing outcome with and without stabilisation.
    """

    name = "none"

    def reset(self) -> None:
        pass

    def points(self, mu: np.ndarray, lam: float) -> Iterable[DualPoint]:
        yield DualPoint(mu, lam, 0.0)

    def evaluated(self, point: DualPoint, bound: float) -> None:
        pass


class WentgesSmoothing(MasterDuals):
    """Wentges (1997) dual smoothing with mispricing recovery (Pessoa et al. 2018, Section 3).

    Prices at ``pi_s = alpha pi_c + (1 - alpha) pi``, ``pi`` the master's duals and ``pi_c``
    the stability center: the point of best Lagrangian bound evaluated so far
    (``center="bound"``, Wentges) or the last pricing point (``center="last"``, Neame). Every
    convex combination of feasible duals (``0 <= mu_i <= s_i``, ``lam >= 0``) is feasible, so
    the Lagrangian bound at ``pi_s`` is valid (eq. (B1) at that point). A column found at
    ``pi_s`` is added only when it also prices out at ``pi``; when none does (a *mispricing*),
    the next point is ``alpha_k = max(0, 1 - k (1 - alpha))``, ``k = 2, 3, ...``, which reaches
    ``pi`` itself after ``1 / (1 - alpha)`` steps.

    Measured (``benchmarks/bench_brcg.py --stabilisation bc,adult,synthetic``, beam pricing at
    the estimator's defaults; LP solves / pricing calls / CPU s, none -> Wentges -> Neame):
    breast cancer 23/23/0.44 -> 22/23/0.47 -> 23/24/0.47 (Wentges: objective 0.02927 against
    0.02952); adult 7/7/2.52 -> 7/8/2.62 -> 7/8/2.41; synthetic 100,000 rows 6/6/9.3 ->
    7/8/7.9 -> 6/7/9.2 (same objective); exact pricing (``beam+bnb``, ``max_literals=2``, breast
    cancer) 18 solves, 1,662 nodes -> 19, 2,142 -> 20, 2,117, all 1.1 CPU s and the same proof.
    The beam's rounds cost milliseconds and the LP stays small, so there is little oscillation
    to damp: smoothing saves no iteration and CPU moves within the machine's noise. It is
    therefore not the default (:data:`DUAL_POLICIES`).
    """

    def __init__(self, alpha: float = 0.5, center: str = "bound") -> None:
        if not (0.0 < float(alpha) < 1.0):
            raise InputError(f"WentgesSmoothing: alpha must be in (0, 1), got {alpha!r}")
        if center not in ("bound", "last"):
            raise InputError(f"WentgesSmoothing: center must be 'bound' or 'last', got {center!r}")
        self.alpha, self.center = float(alpha), center
        self.name = f"wentges(alpha={self.alpha:g}, center={center})"
        self.reset()

    def reset(self) -> None:
        self._center: tuple | None = None
        self._center_bound = -np.inf

    def points(self, mu: np.ndarray, lam: float) -> Iterable[DualPoint]:
        if self._center is not None:
            cmu, clam = self._center
            k = 1
            while (a := 1.0 - k * (1.0 - self.alpha)) > 1e-12:
                yield DualPoint(a * cmu + (1.0 - a) * mu, a * clam + (1.0 - a) * lam, a)
                k += 1
        yield DualPoint(mu, lam, 0.0)

    def evaluated(self, point: DualPoint, bound: float) -> None:
        if self._center is None or self.center == "last" or bound > self._center_bound:
            self._center = (np.array(point.mu, dtype=float), float(point.lam))
            self._center_bound = max(self._center_bound, float(bound))


#: dual policies by name (``dual_policy`` of :func:`column_generation` takes a name or an object).
#: ``"none"`` is the default: smoothing lowered neither iterations nor CPU on breast cancer, adult
#: and 100,000 synthetic rows (figures in :class:`WentgesSmoothing`).
DUAL_POLICIES: dict[str, Callable[[], MasterDuals]] = {
    "none": MasterDuals,
    "wentges": WentgesSmoothing,
    "neame": lambda: WentgesSmoothing(center="last"),
}


def _dual_policy(policy) -> MasterDuals:
    if policy is None:
        return MasterDuals()
    if isinstance(policy, str):
        if policy not in DUAL_POLICIES:
            raise InputError(f"dual_policy must be one of {sorted(DUAL_POLICIES)} or a policy object, got {policy!r}")
        return DUAL_POLICIES[policy]()
    if not all(hasattr(policy, m) for m in ("reset", "points", "evaluated")):
        raise InputError(f"dual_policy must be a name or an object with reset/points/evaluated, got {policy!r}")
    return policy


@dataclass(frozen=True)
class Evaluation:
    """The Lagrangian terms (eqs. (B1)-(B4)) and pricing weights at one dual point, with the depth-1 bound."""

    point: DualPoint
    terms: Any
    r: np.ndarray
    a: float
    b: float
    rc_cheap: float
    bound: float


class LagrangianBounds:
    """Valid bounds at any feasible dual point over the master's current columns."""

    def __init__(self, master: RestrictedMaster, spec: F.MasterSpec, yu, wu, depth1: F.Depth1Bound) -> None:
        self.master, self.spec, self.yu, self.wu, self.depth1 = master, spec, yu, wu, depth1
        self._cols: tuple | None = None

    def _columns(self):
        m = self.master
        if self._cols is None or self._cols[0] != m.n_columns:
            self._cols = (m.n_columns, m.cover_sparse(), np.array([len(c) for c in m.clauses], dtype=float),
                          np.asarray(m.grounded, dtype=bool))
        return self._cols[1:]

    def at(self, point: DualPoint) -> Evaluation:
        cover, n_lit, grounded = self._columns()
        r, a, b = F.pricing_weights(self.yu, point.mu, point.lam, self.spec, sample_weight=self.wu)
        terms = F.lagrangian_terms(self.spec, self.yu, point.mu, point.lam, cover, n_lit, grounded=grounded,
                                   sample_weight=self.wu)
        rc_cheap = self.depth1(r, a, b)  # the bound available without any search (eq. (B1) with depth1_bound)
        return Evaluation(point, terms, r, a, b, rc_cheap, terms.value(rc_cheap))

    def after_pricing(self, ev: Evaluation, pres: PricingResult) -> float:
        """The bound at ``ev``'s point with the pricer's proof (``rc_outside``) when it beats the depth-1 one."""
        if pres.exact and pres.rc_outside > ev.rc_cheap:
            return float(ev.terms.value(pres.rc_outside))
        return float(ev.bound)


def canonical_columns(pres: PricingResult, X: np.ndarray, ev: Evaluation, exclude, rc_tol: float,
                      smoothed: bool = False) -> PricingResult:
    """``pres``'s columns in canonical form (:func:`prune_clause`), new to the master, priced at ``ev``.

    Each clause loses the literals whose removal leaves its coverage of the (merged) training
    rows unchanged; its complexity is counted after that, so its reduced cost can only fall
    (``b >= 0``). Clauses that become a master column (``exclude``) or a duplicate are dropped,
    and only those of reduced cost below ``-rc_tol`` at ``ev`` (the master's duals) are kept.
    A clause priced at a smoothed point (``smoothed``) proves nothing about the master's duals:
    the result is then marked as not exact.
    """
    if not pres.columns:
        return pres
    cols: list[tuple] = []
    for c in pres.columns:
        c = prune_clause(X, c)
        if c not in exclude and c not in cols:
            cols.append(c)
    rcs = F.reduced_costs(np.stack([clause_cover(X, c) for c in cols], axis=1), [len(c) for c in cols], ev.r, ev.a,
                          ev.b) if cols else np.zeros(0)
    keep = [k for k in np.argsort(rcs, kind="stable") if rcs[k] < -rc_tol]
    return PricingResult(columns=[cols[k] for k in keep], reduced_costs=np.asarray(rcs)[keep],
                         rc_outside=-np.inf if smoothed else pres.rc_outside, exact=pres.exact and not smoothed,
                         timed_out=pres.timed_out, best_clause=pres.best_clause, result=pres.result,
                         method=pres.method, limit=pres.limit)


class PricingRound:
    """One pricing round: the dual policy's points in turn, until a column prices out at the master's duals."""

    def __init__(self, pricer, policy: MasterDuals, bounds: LagrangianBounds, stop: StopRule, rc_tol: float) -> None:
        self.pricer, self.policy, self.bounds, self.stop, self.rc_tol = pricer, policy, bounds, stop, rc_tol
        self.n_calls = 0
        self.time_limited = False
        self.last_result = None  # the last pricing SolveResult (MILP pricing), for solve_results
        self.space_bound = -np.inf  # best bound over the smaller clause space of an exact phase
        self.space_literals: int | None = None

    def run(self, sol: MasterLP, ev: Evaluation, lower_bound: float, entry: dict) -> tuple[PricingResult, float]:
        """The round's columns (priced out at the master's duals) and the best bound of its points."""
        budget, tol = self.stop.budget, self.stop.tol
        best = ev.bound
        n_points = 0
        for point in self.policy.points(sol.mu, sol.lam):
            if n_points and budget.out_of_time():  # a mispricing and no time left for another point
                return PricingResult([], np.zeros(0), exact=True, timed_out=True, limit="time"), best
            n_points += 1
            at = ev if point.alpha == 0.0 else self.bounds.at(point)
            # a column matters for the proof only below this reduced cost (eq. (B2)/(B3) inverted,
            # aiming at half the tolerance so that a proof of "no column below" clears tol)
            cutoff = -at.terms.rc_needed(sol.objective - 0.5 * tol * abs(sol.objective))
            pres = self.pricer.price(at.r, at.a, at.b, exclude=self.bounds.master.keys.keys(),
                                     time_limit=budget.remaining(), rc_tol=self.rc_tol, cutoff=cutoff)
            self.n_calls += 1
            self.time_limited |= pres.limit == "time"
            if pres.result is not None:
                self.last_result = pres.result
            lb = self.bounds.after_pricing(at, pres)
            if pres.space_literals is not None:
                # eq. (B1) with the exact phase's bound: valid over clauses of up to space_literals literals
                self.space_literals = pres.space_literals
                self.space_bound = max(self.space_bound, lb, float(at.terms.value(max(pres.space_rc, at.rc_cheap))))
            self.policy.evaluated(point, lb)
            best = max(best, lb)
            entry.update(pricing=pres.method, rc_outside=max(at.rc_cheap, pres.rc_outside), n_points=n_points)
            pres = canonical_columns(pres, self.bounds.master.X, ev, self.bounds.master.keys, self.rc_tol,
                                     smoothed=point.alpha > 0.0)
            if pres.columns or point.alpha == 0.0 or self.stop.proven(sol.objective, max(lower_bound, best)):
                break
        return pres, best


def _check_arguments(pricing, init, tol, time_limit, **work_limits) -> None:
    if pricing not in PRICING_STRATEGIES:
        raise InputError(f"pricing must be one of {PRICING_STRATEGIES}, got {pricing!r}")
    if init not in ("none", "singletons"):
        raise InputError(f"init must be 'none' or 'singletons', got {init!r}")
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not (0.0 < float(tol) < 1.0):
        raise InputError(f"tol must be a number in (0, 1) (a relative gap), got {tol!r}")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real)
                                   or not (time_limit > 0) or not math.isfinite(time_limit)):
        raise InputError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
    for name, v in work_limits.items():
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1):
            raise InputError(f"{name} must be a positive whole number (a work limit) or None, got {v!r}")


def _check_real_work_limits(**work_limits) -> None:
    for name, v in work_limits.items():
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real) or not v > 0):
            raise InputError(f"{name} must be a positive number (a work limit) or None, got {v!r}")


def _initial_master(X, yu, wu, spec, solver, settings, initial_clauses, grounding, init) -> RestrictedMaster:
    """The restricted master over the initial clauses (grounding ones flagged) and, with ``init="singletons"``,
    every literal that splits the rows."""
    master = RestrictedMaster(X, yu, wu, spec, solver=solver, settings=settings)
    g_set = {int(g) for g in grounding}
    init_list = [tuple(sorted(int(j) for j in c)) for c in initial_clauses]
    if any(len(c) == 0 for c in init_list):
        raise InputError("the empty clause (always true) cannot be a column; give at least one literal")
    seen_init: dict[tuple, bool] = {}
    for k, c in enumerate(init_list):
        seen_init[c] = seen_init.get(c, False) or (k in g_set)
    master.add(list(seen_init), grounded=list(seen_init.values()))
    if init == "singletons":
        master.add([(j,) for j in range(X.shape[1]) if 0 < X[:, j].sum() < X.shape[0]])
    return master


def _is_grounded(master: RestrictedMaster) -> bool:
    """Whether the problem is grounded: the initial master holds a grounding column.

    Read once, right after :func:`_initial_master`: grounding columns are added only there
    (pricing and singleton columns are never grounding ones), so the one flag serves every
    later step, the integer master's bound and the space bound alike. It is read from the
    master's columns, as the LP has them, rather than from the ``grounding`` indices.
    """
    return bool(np.any(master.grounded))


def _make_pricer(pricing, lits, X, yu, master, *, max_literals, beam_width, columns_per_iter, pricing_solver,
                 settings, milp_time_limit, pricing_node_limit, exact_phase_literals=None, exact_phase_work=None):
    """The pricing policy of ``pricing``: the beam, the exact pricer, or the beam then the exact pricer
    (``"beam"`` with an exact phase first when ``exact_phase_literals`` and ``exact_phase_work`` are given)."""
    exclude_ground = [c for c, g in zip(master.clauses, master.grounded) if g]
    beam = (BeamPricing(lits, max_literals=max_literals, width=beam_width, max_columns=columns_per_iter)
            if pricing.startswith("beam") else None)
    if pricing == "beam" and exact_phase_literals and exact_phase_work:
        d = min(int(exact_phase_literals), int(max_literals))
        first = BeamThenMilp(BeamPricing(lits, max_literals=d, width=beam_width, max_columns=columns_per_iter),
                             BnbPricing(X, yu, max_literals=d, max_columns=EXACT_COLUMNS_FACTOR * columns_per_iter,
                                        exclude=exclude_ground, time_limit=milp_time_limit,
                                        node_limit=pricing_node_limit))
        return ExactPhaseThenBeam(first, beam, literals=d, work_budget=exact_phase_work,
                                  whole_space=d >= max_literals), first.milp
    exact = None
    if pricing in ("milp", "beam+milp"):
        exact = MilpPricing(X, yu, max_literals=max_literals, exclude=exclude_ground, solver=pricing_solver,
                            settings=settings, time_limit=milp_time_limit, node_limit=pricing_node_limit)
    elif pricing in ("bnb", "beam+bnb"):
        exact = BnbPricing(X, yu, max_literals=max_literals, max_columns=EXACT_COLUMNS_FACTOR * columns_per_iter,
                           exclude=exclude_ground, time_limit=milp_time_limit, node_limit=pricing_node_limit)
    pricer = beam if pricing == "beam" else exact if beam is None else BeamThenMilp(beam, exact)
    return pricer, exact


def _integer_phase(master, last, yu, wu, spec, *, mip_solver, settings, mip_time_limit, mip_node_limit,
                   mip_work_limit, lower_bound, tol, pricing, max_literals, grounding):
    """The integer master over the columns the last LP saw, its valid bound, gap and status.

    ``grounding`` says whether the problem has grounding columns (:func:`_is_grounded`).
    """
    k_seen = last.n_columns if last is not None else 0
    clauses = master.clauses[:k_seen]
    n_lit = np.array([len(c) for c in clauses], dtype=float)
    grounded = np.asarray(master.grounded[:k_seen], dtype=bool)
    ip = IntegerMaster(yu, wu, spec, solver=mip_solver, settings=settings, node_limit=mip_node_limit,
                       work_limit=mip_work_limit).solve(
        master.cover_matrix(k_seen), n_lit, grounded, last.w if last is not None else None, mip_time_limit,
        duals=(last.mu, last.lam) if last is not None else None)
    bound_ip = integer_bound(spec, wu, lower_bound, max_literals=max_literals, grounding=grounding)
    gap = relative_gap(ip.objective, bound_ip)
    status = "optimal" if gap <= tol else "heuristic" if pricing == "beam" else "feasible"
    return clauses, ip, float(bound_ip), gap, status


def _bound_phase(X, yu, wu, spec, master, rounds, exact, ip, lower_bound, *, tol, bound_nodes, bound_work,
                 pool_work, solver, settings, grounding):
    """The bound step (:func:`~interpretopt.methods._pool_bound.pool_bound`) over the exact phase's clause space,
    or ``None`` when it does not apply: no limit given, no completed exact phase, not the light form, grounding,
    weights that are not whole, lambdas of 0, or a rule set already proven optimal over that space."""
    from interpretopt.methods._pool_bound import pool_bound

    d = rounds.space_literals
    if (not bound_nodes or not bound_work or d is None or not getattr(rounds.pricer, "complete", False)
            or exact is None or not hasattr(exact, "search") or spec.form != "light"
            or grounding or spec.lambda0 + spec.lambda1 <= 0.0
            or not np.all(np.equal(np.mod(wu, 1.0), 0.0))):
        return None
    space = integer_bound(spec, wu, max(float(lower_bound), rounds.space_bound), max_literals=d, grounding=False)
    if relative_gap(ip.objective, space) <= tol or rounds.stop.budget.out_of_time():
        return None
    final_r = getattr(rounds.pricer, "final_r", None)
    mu = None if final_r is None else np.clip(-final_r[np.asarray(yu).astype(bool)], 0.0, None)
    return pool_bound(X, yu, wu, spec, [c for c in master.clauses if len(c) <= d], max_literals=d,
                      search=exact.search, incumbent=ip.objective, node_limit=int(bound_nodes), mu=mu,
                      work_limit=float(bound_work), pool_work=pool_work, solver=solver, settings=settings,
                      out_of_time=rounds.stop.budget.out_of_time)


def _adopt(X, yu, wu, spec, clauses, ip, searched):
    """The clauses (the master's, then the new ones) and the integer solution of a better rule set the bound step
    found, its objective recomputed from the selection; the given ones when it is not better after all."""
    extended = list(clauses)
    index = {c: k for k, c in enumerate(extended)}
    selected = []
    for c in searched.selected:
        if c not in index:
            index[c] = len(extended)
            extended.append(c)
        selected.append(index[c])
    cover = np.stack([clause_cover(X, extended[k]) for k in selected], axis=1) if selected \
        else np.zeros((X.shape[0], 0), dtype=bool)
    objective = F.master_objective(np.arange(len(selected)), cover, yu, [len(extended[k]) for k in selected], spec,
                                   sample_weight=wu)
    if objective >= ip.objective:
        return clauses, ip
    return extended, replace(ip, selected=np.asarray(selected, dtype=int), objective=float(objective),
                             source="bound_search")


def integer_bound(spec: F.MasterSpec, weight: np.ndarray, bound: float, *, max_literals: int,
                  grounding: bool) -> float:
    """``bound`` raised to the least objective a rule set can take at or above it, when the objective counts
    whole samples: in the constraint form (whole grounding penalty) the next whole number; in the light form
    without grounding the least ``s e + lambda0 q + lambda1 L`` over clauses of up to ``max_literals``
    literals (:func:`~F.light_objective_floor`). Otherwise (weights that are not whole) ``bound``."""
    whole_weights = bool(np.all(np.equal(np.mod(weight, 1.0), 0.0)))
    if not whole_weights:
        return float(bound)
    if spec.form == "constraint" and float(spec.grounding_penalty).is_integer():
        return float(math.ceil(bound - 1e-9 * max(1.0, abs(bound))))
    if spec.form == "light" and not grounding:
        return F.light_objective_floor(spec, bound, max_literals=max_literals)
    return float(bound)


def _per_sample_lp(master, last, X, wu, inverse, y_full):
    """The last LP's primal values and duals per original sample: xi of its merged row, the merged row's
    dual split evenly over its copies."""
    if last is None:
        return None, None
    pos_rank = np.full(X.shape[0], -1)
    pos_rank[master.pos] = np.arange(master.pos.size)
    rows = pos_rank[inverse[y_full.astype(bool)]]
    x_lp = np.concatenate([last.xi[rows], last.w])
    wr = wu[master.pos][rows]
    return x_lp, (np.divide(last.mu[rows], wr, out=np.zeros_like(last.mu[rows], dtype=float), where=wr > 0),
                  last.lam)


# Long: its docstring documents every parameter; the body checks them and calls _run (ten lines).
@on_one_blas_thread
def column_generation(X_bin, y, spec: F.MasterSpec, *, max_literals: int = 10, pricing: str = "beam",
                      beam_width: int = 5, columns_per_iter: int = 10, max_iter: int = 100,
                      time_limit: float | None = None, milp_time_limit: float | None = 10.0,
                      mip_time_limit: float | None = 60.0, solver: str = "highs", pricing_solver: str | None = None,
                      mip_solver: str | None = None, initial_clauses=(), grounding=(), init: str = "none",
                      tol: float = 1e-4, settings=None, clock: Callable[[], float] | None = None,
                      sample_weight=None, pricing_node_limit: int | None = None, mip_node_limit: int | None = None,
                      mip_work_limit: float | None = None,
                      dual_policy=None, exact_phase_literals: int | None = None,
                      exact_phase_work: float | None = None, bound_nodes: int | None = None,
                      bound_work: float | None = None) -> CGResult:
    """Column generation for the BRCG master (constraint, light or grounded form), with certificates.

    Parameters
    ----------
    X_bin : (n, J) {0, 1}
        Binarized samples; literal ``j`` is column ``j``.
    y : (n,) {0, 1}
    spec : MasterSpec
    max_literals : int
        ``D``, the largest clause.
    pricing : {"beam", "milp", "beam+milp", "bnb", "beam+bnb"}
        Beam search only (heuristic, nothing proven); the exact pricing MILP every
        iteration; the beam every iteration and the MILP when the beam finds nothing; or the
        same two with the exact branch and bound over literals
        (:mod:`interpretopt.heuristics.clause_bnb`: several columns per call, no MILP
        solver needed) in place of the MILP.
    beam_width, columns_per_iter : int
        Beam width and most columns added per beam round; the branch and bound returns up to
        ``EXACT_COLUMNS_FACTOR * columns_per_iter`` per call (its calls cost seconds, the LP
        re-solve milliseconds).
    max_iter : int
        Most pricing rounds.
    time_limit : float or None
        Wall-clock safety net of the column-generation loop (seconds of the package clock,
        :mod:`interpretopt._clock`); the solvers get the time that remains. ``max_iter`` is
        the loop's work limit.
    milp_time_limit : float or None
        Wall-clock safety net of one exact pricing call (MILP or branch and bound).
    mip_time_limit : float or None
        Wall-clock safety net of the integer master.
    pricing_node_limit : int or None
        Work limit of one exact pricing call: nodes of the branch and bound, or HiGHS'
        ``mip_max_nodes`` for the pricing MILP (other MILP solvers have the time limit only).
        A call stopped by it keeps a valid bound (its queue's or HiGHS' dual bound); a round
        that ends without a column for it stops the loop as ``pricing_work_limit``.
    mip_node_limit : int or None
        Work limit of the integer master: HiGHS' ``mip_max_nodes``. The rule set is never
        worse than the empty set, the rounded LP solution or the local search from either
        (:class:`IntegerMaster`).
    mip_work_limit : float or None
        Work limit of the integer master in LP entries: at most ``mip_work_limit / (rows x
        columns)`` nodes of its integer program (merged rows, columns left after dominance and
        fixing), and at most ``mip_node_limit``.
    exact_phase_literals, exact_phase_work : int, float or None
        With ``pricing="beam"``: first an exact phase over clauses of up to
        ``exact_phase_literals`` literals, its exact pricer (the enumeration up to three
        literals, the branch and bound beyond) scoring at most ``exact_phase_work``
        row-literal pairs in all (``work`` of
        :class:`~interpretopt.heuristics.clause_bnb.ClauseSearchResult`, a work limit
        proportional to CPU time; :class:`ExactPhaseThenBeam`), then the beam. Its bound over that smaller clause space
        is ``space_bound`` of the result.
    bound_nodes, bound_work : int, float or None
        The bound step (:mod:`interpretopt.methods._pool_bound`) after the integer master, when the exact phase
        completed, the form is light without grounding, the weights are whole and the rule set is not proven
        optimal over the exact phase's space: branch and bound over the clauses reduced-cost fixing leaves,
        at most ``bound_nodes`` node LPs and ``bound_work`` LP work (simplex iterations times the node LP's
        rows + columns). It raises ``space_integer_bound`` and, when it finds a better rule set, returns
        that one (``integer_source`` ``"bound_search"``). ``None`` (either): no bound step.
    dual_policy : None, str or object
        Where pricing looks (:data:`DUAL_POLICIES`: ``"none"``, the master's duals, the
        default; ``"wentges"``; ``"neame"``), or an object with ``reset``, ``points`` and
        ``evaluated`` (:class:`MasterDuals`).
    solver : str
        LP backend of the master: a registered solver with the capabilities ``lp``,
        ``duals`` and ``incremental`` (``highs``, ``highs_direct``, ``ortools_glop``).
    pricing_solver, mip_solver : str or None
        MILP solvers of the registry (default ``"highs"``).
    initial_clauses : sequence of tuples
        Clauses to start from; ``grounding`` gives the indices of the grounding ones among them.
    init : {"none", "singletons"}
    tol : float in (0, 1)
        Relative tolerance of both proofs: column generation stops as ``proven_optimal`` when
        the Lagrangian bound is within ``tol`` of the restricted LP, and the integer solution
        is ``optimal`` when its objective is within ``tol`` of the bound.
    settings : SolveSettings or None
    clock : callable or None
        Seconds (default :func:`interpretopt._clock.monotonic`, the package clock); tests
        inject one to stop the loop at a given point without depending on the machine's speed.
    sample_weight : (n,) nonnegative or None
        Weight of each sample's Hamming loss (default 1 each): the merged rows of
        :func:`~F.unique_rows` carry the summed weight of their copies.
    """
    _check_arguments(pricing, init, tol, time_limit, pricing_node_limit=pricing_node_limit,
                     mip_node_limit=mip_node_limit, exact_phase_literals=exact_phase_literals,
                     bound_nodes=bound_nodes)
    _check_real_work_limits(exact_phase_work=exact_phase_work, mip_work_limit=mip_work_limit, bound_work=bound_work)
    check_lp_solver(solver)
    if pricing in ("milp", "beam+milp"):
        check_milp_solver(pricing_solver or "highs")
    opts = {k: v for k, v in locals().items() if k not in ("X_bin", "y", "spec", "clock", "dual_policy")}
    with use_clock(clock) if clock is not None else nullcontext():
        return _run(X_bin, y, spec, policy=_dual_policy(dual_policy), **opts)


def _run(X_bin, y, spec, *, policy, max_literals, pricing, beam_width, columns_per_iter, max_iter, time_limit,
         milp_time_limit, mip_time_limit, solver, pricing_solver, mip_solver, initial_clauses, grounding, init, tol,
         settings, sample_weight, pricing_node_limit, mip_node_limit, mip_work_limit, exact_phase_literals,
         exact_phase_work, bound_nodes, bound_work) -> CGResult:
    """:func:`column_generation` after its checks, on the package clock."""
    pricing_solver, mip_solver = pricing_solver or "highs", mip_solver or "highs"
    settings = settings if settings is not None else _solvers().SolveSettings()
    timings = {"build": 0.0, "lp": 0.0, "pricing": 0.0, "bound": 0.0, "integer": 0.0, "bound_search": 0.0,
               "total": 0.0}
    wall0 = time.perf_counter()
    budget = WorkBudget(max_iter, time_limit)
    X_full = np.asarray(X_bin, dtype=bool)  # no copy when the estimator passes bool
    y_full = np.asarray(y).astype(np.int8)
    X, yu, wu, inverse = F.unique_rows(X_full, y_full, sample_weight=sample_weight)
    t0 = time.perf_counter()
    master = _initial_master(X, yu, wu, spec, solver, settings, initial_clauses, grounding, init)
    grounded = _is_grounded(master)
    timings["build"] += time.perf_counter() - t0
    lits = LiteralMatrix(X)  # literal-major copy and complementary literals, shared by the beam and the bound
    pricer, exact = _make_pricer(pricing, lits, X, yu, master, max_literals=max_literals, beam_width=beam_width,
                                 columns_per_iter=columns_per_iter, pricing_solver=pricing_solver,
                                 settings=settings, milp_time_limit=milp_time_limit,
                                 pricing_node_limit=pricing_node_limit, exact_phase_literals=exact_phase_literals,
                                 exact_phase_work=exact_phase_work)
    stop = StopRule(tol, budget)
    policy.reset()
    rounds = PricingRound(pricer, policy, LagrangianBounds(master, spec, yu, wu, F.Depth1Bound(lits)), stop,
                          rc_tol=1e-9 * spec.loss_scale)
    last, lower_bound, history, stop_reason = _loop(master, rounds, timings)
    if exact is not None:
        timings["build"] += exact.build_time
        timings["pricing"] -= exact.build_time
    t0 = time.perf_counter()
    clauses, ip, bound_ip, gap, status = _integer_phase(
        master, last, yu, wu, spec, mip_solver=mip_solver, settings=settings, mip_time_limit=mip_time_limit,
        mip_node_limit=mip_node_limit, mip_work_limit=mip_work_limit, lower_bound=lower_bound, tol=tol,
        pricing=pricing, max_literals=max_literals, grounding=grounded)
    timings["integer"] += time.perf_counter() - t0
    t0 = time.perf_counter()
    searched = _bound_phase(X, yu, wu, spec, master, rounds, exact, ip, lower_bound, tol=tol, bound_nodes=bound_nodes,
                            bound_work=bound_work, pool_work=exact_phase_work, solver=solver, settings=settings,
                            grounding=grounded)
    if searched is not None and searched.selected is not None:
        clauses, ip = _adopt(X, yu, wu, spec, clauses, ip, searched)
        gap = relative_gap(ip.objective, bound_ip)
        status = "optimal" if gap <= tol else status
    timings["bound_search"] += time.perf_counter() - t0
    return _result(X_full, y_full, X, wu, inverse, master, last, clauses, ip, history, rounds, exact,
                   lower_bound=lower_bound, bound_ip=bound_ip, gap=gap, status=status, stop_reason=stop_reason,
                   timings=timings, wall0=wall0, tol=tol, spec=spec, grounding=grounded, searched=searched)


def _result(X_full, y_full, X, wu, inverse, master, last, clauses, ip, history, rounds, exact, *, lower_bound,
            bound_ip, gap, status, stop_reason, timings, wall0, tol, spec, grounding, searched=None) -> CGResult:
    """The :class:`CGResult` of a finished loop and integer master (``grounding``: :func:`_is_grounded`;
    ``searched``: the bound step's :class:`~interpretopt.methods._pool_bound.PoolBound`, or None)."""
    n = X_full.shape[0]
    cover = np.stack([clause_cover(X_full, c) for c in clauses], axis=1) if clauses else np.zeros((n, 0), bool)
    x_lp, lp_duals = _per_sample_lp(master, last, X, wu, inverse, y_full)
    ip_time = ip.result is not None and not ip.result.status == _solvers().SolveStatus.OPTIMAL \
        and _limit_kind(ip.result) == "time"
    space_bound = None if rounds.space_literals is None else max(float(lower_bound), rounds.space_bound)
    work = {"iterations": len(history), "pricing_calls": rounds.n_calls,
            "bnb_nodes": getattr(exact, "n_nodes", 0), "bnb_work": getattr(exact, "work", 0),
            "columns": master.n_columns, "columns_fixed": ip.n_fixed,
            "bound_nodes": searched.work.get("nodes", 0) if searched is not None else 0,
            "bound_pool": searched.pool_size if searched is not None else 0}
    space_integer = None if space_bound is None else integer_bound(
        spec, wu, space_bound, max_literals=rounds.space_literals, grounding=grounding)
    if searched is not None:
        space_integer = max(space_integer, searched.bound)
    timings["total"] = time.perf_counter() - wall0
    return CGResult(clauses=clauses, selected=ip.selected, restricted_lp=last.objective if last is not None else None,
                    lower_bound=float(lower_bound), integer_bound=bound_ip, objective=ip.objective, gap=gap,
                    proven=stop_reason == "proven_optimal", stop_reason=stop_reason, status=status, history=history,
                    solve_results={"lp": last.result if last is not None else None, "pricing": rounds.last_result,
                                   "integer": ip.result},
                    timings=timings, tol=float(tol), lp_solution=x_lp, lp_duals=lp_duals, integer_source=ip.source,
                    cover=cover, limited_by_time=bool(rounds.stop.budget.limited_by_time or rounds.time_limited
                                                      or ip_time or getattr(searched, "stopped_by", None) == "time"),
                    work=work, dual_policy=rounds.policy.name, space_literals=rounds.space_literals,
                    space_bound=space_bound, space_complete=bool(getattr(rounds.pricer, "complete", False)),
                    space_integer_bound=space_integer, bound_search=searched)


def _loop(master: RestrictedMaster, rounds: PricingRound, timings: dict):
    """Restricted master, bound, stop rule, pricing round, new columns; until the stop rule says why.

    Returns the last solved LP, the best bound, the per-iteration history and the stop reason.
    """
    stop, budget, bounds = rounds.stop, rounds.stop.budget, rounds.bounds
    history: list[dict] = []
    last: MasterLP | None = None
    lower_bound, it = 0.0, 0
    while True:
        if budget.out_of_time():
            return last, lower_bound, history, "time_limit"
        t0 = time.perf_counter()
        sol = master.solve(budget.remaining())
        timings["lp"] += time.perf_counter() - t0
        if sol is None:  # the LP ran out of time: keep the last solved one
            return last, lower_bound, history, "time_limit"
        last = sol
        entry = {"iteration": it, "lp_objective": sol.objective, "n_columns": sol.n_columns,
                 "lp_time": time.perf_counter() - t0}
        history.append(entry)
        t0 = time.perf_counter()
        ev = bounds.at(DualPoint(sol.mu, sol.lam))
        timings["bound"] += time.perf_counter() - t0
        rounds.policy.evaluated(ev.point, ev.bound)
        lower_bound = max(lower_bound, ev.bound)
        entry["lower_bound"] = ev.bound
        reason = stop.before_pricing(it, sol.objective, lower_bound)
        if reason:
            return last, lower_bound, history, reason
        t0 = time.perf_counter()
        pres, lb = rounds.run(sol, ev, lower_bound, entry)
        entry["pricing_time"] = time.perf_counter() - t0
        timings["pricing"] += entry["pricing_time"]
        lower_bound = max(lower_bound, lb)
        entry["lower_bound"] = max(ev.bound, lb)
        entry["best_reduced_cost"] = float(pres.reduced_costs.min()) if pres.columns else None
        entry["n_added"] = 0
        reason = stop.after_pricing(pres, sol.objective, lower_bound)
        if reason:
            return last, lower_bound, history, reason
        t0 = time.perf_counter()
        master.add(pres.columns)
        entry["n_added"] = len(pres.columns)
        timings["build"] += time.perf_counter() - t0
        it += 1
