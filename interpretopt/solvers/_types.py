"""Typed solver settings, statuses and results shared by every backend."""

from __future__ import annotations

import dataclasses
import enum
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from interpretopt.exceptions import InputError, SolverError

__all__ = ["Capabilities", "SolveSettings", "SolveStatus", "SolveResult", "WORK_LIMITS", "check_work_limits",
           "guard_after", "map_status", "relative_gap", "require", "tell_infeasible_from_unbounded"]


@dataclass(frozen=True)
class SolveSettings:
    """Solver-independent settings plus a passthrough of solver-specific options.

    Parameters
    ----------
    time_limit : float or None, default None
        Wall-clock limit in seconds given to the solver. Translating the model does not
        count against it. ``None`` means no limit. A safety net only: its outcome depends
        on the machine and its load, so a result that must be reproducible is shaped by a
        work limit (``node_limit``, ``iteration_limit``); a solve stopped by the time limit
        says so (:attr:`SolveResult.limited_by_time`).
    node_limit : int or None, default None
        Work limit: branch-and-bound nodes of a MILP solve (HiGHS ``mip_max_nodes``, SCIP
        ``limits/nodes``, CBC ``maxNodes``). A solve stopped by it returns its incumbent as
        ``feasible`` with the bound and gap, never ``optimal`` unless the optimum was proven
        first. An LP has no nodes, so every LP solve honours it. A backend that cannot honour
        it (``Capabilities.node_limit`` false) refuses the settings.
    iteration_limit : int or None, default None
        Work limit: simplex (or, for PDLP, first-order) iterations of an LP solve (HiGHS
        ``simplex_iteration_limit``, GLOP ``max_number_of_iterations``, PDLP
        ``termination_criteria.iteration_limit``, CBC ``maxIterations``); refused by a backend
        that cannot honour it (``Capabilities.iteration_limit``).
    mip_gap : float or None, default None
        Relative optimality gap at which a MILP solve may stop (``0.01`` = 1 %).
        ``None`` keeps the solver's default.
    threads : int or None, default None
        Number of threads; ``None`` keeps the solver's default.
    seed : int, default 0
        Random seed handed to solvers that take one.
    verbose : bool, default False
        Let the solver print its log.
    options : mapping, default {}
        Solver-specific options under the solver's own names (e.g. ``{"presolve": "off"}``
        for HiGHS, ``{"sec": 10}`` for CBC). A value given here wins over the common
        setting it overlaps with. Entries whose key is a backend name and whose value is a
        mapping apply to that backend only, so one settings object can carry options for
        several solvers: ``{"highs": {"presolve": "off"}, "cbc": {"cuts": "off"}}``.

    Examples
    --------
    >>> s = SolveSettings(time_limit=10, mip_gap=0.01)
    >>> s.replace(threads=1).threads
    1
    """

    time_limit: float | None = None
    node_limit: int | None = None
    iteration_limit: int | None = None
    mip_gap: float | None = None
    threads: int | None = None
    seed: int = 0
    verbose: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.time_limit is not None:
            if not isinstance(self.time_limit, numbers.Real) or isinstance(self.time_limit, bool) or not (
                self.time_limit > 0
            ):
                raise InputError(
                    f"time_limit must be a positive number of seconds or None, got {self.time_limit!r}"
                )
        for key in WORK_LIMITS:
            value = getattr(self, key)
            if value is not None and (not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1):
                raise InputError(f"{key} is a work limit: an integer >= 1 or None, got {value!r}")
        if self.mip_gap is not None:
            if not isinstance(self.mip_gap, numbers.Real) or isinstance(self.mip_gap, bool) or not (
                0 <= self.mip_gap <= 1
            ):
                raise InputError(f"mip_gap is a relative gap: a number in [0, 1] or None, got {self.mip_gap!r}")
        if self.threads is not None:
            if not isinstance(self.threads, (int, np.integer)) or isinstance(self.threads, bool) or self.threads < 1:
                raise InputError(f"threads must be an integer >= 1 or None, got {self.threads!r}")
        if not isinstance(self.seed, (int, np.integer)) or isinstance(self.seed, bool) or self.seed < 0:
            raise InputError(f"seed must be an integer >= 0, got {self.seed!r}")
        if not isinstance(self.options, Mapping):
            raise InputError(f"options must be a mapping of option name to value, got {type(self.options).__name__}")
        object.__setattr__(self, "options", dict(self.options))

    def replace(self, **changes: Any) -> SolveSettings:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def options_for(self, backend: str, backend_names: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
        """The flat solver-specific options for ``backend``.

        Flat entries apply to every backend; a mapping stored under a backend name applies
        to that backend only (and wins over the flat entries). Mappings stored under other
        backend names (``backend_names``) are dropped.
        """
        flat: dict[str, Any] = {}
        scoped: dict[str, Any] = {}
        for key, value in self.options.items():
            if isinstance(value, Mapping):
                if key == backend:
                    scoped.update(value)
                elif key in backend_names:
                    continue
                else:
                    flat[key] = value
            else:
                flat[key] = value
        flat.update(scoped)
        return flat


class SolveStatus(str, enum.Enum):
    """Outcome of a solve.

    ``optimal`` (proven within the gap), ``feasible`` (a limit was hit and the best
    incumbent is returned), ``time_limit`` (the time limit was hit with no incumbent),
    ``limit`` (another limit, e.g. iterations or nodes, with no incumbent),
    ``infeasible``, ``unbounded``, ``infeasible_or_unbounded``, ``error``, ``unknown``.
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    TIME_LIMIT = "time_limit"
    LIMIT = "limit"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    INFEASIBLE_OR_UNBOUNDED = "infeasible_or_unbounded"
    ERROR = "error"
    UNKNOWN = "unknown"

    @property
    def has_solution(self) -> bool:
        """Whether a primal solution was returned (``optimal`` or ``feasible``)."""
        return self in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do, declared once with its registration.

    Attributes
    ----------
    lp, milp : bool
        Model classes it solves.
    mixed_integer : bool
        Its MILPs may also hold continuous variables (every MILP of the project's methods
        does: the error variables of the BRCG masters, pricing's negative-sample indicators,
        the ABBR baseline's and certificate's linking variables). Defaults to ``milp``; a
        solver of pure integer models (CP-SAT) declares ``False``.
    duals : bool
        It returns LP row duals.
    incremental : bool
        It holds a model changed in place (rows and columns added, bounds and costs changed)
        and re-solved warm: :func:`interpretopt.solvers.make_incremental` accepts its name.
    warm_start : bool
        It accepts a start solution (a MIP start) on its incremental model.
    cutoff : bool
        It honours an objective cutoff given as a solver option (none of ours is relied on:
        column generation writes its cutoff as a row of the model).
    solution_pool : bool
        It returns several solutions of one MILP solve.
    time_limit : bool
        It accepts a time limit and returns its best incumbent when the limit stops it.
    node_limit, iteration_limit : bool
        It honours the work limit of the same name of :class:`SolveSettings` (an LP-only
        backend honours ``node_limit`` trivially: an LP has no branch-and-bound nodes);
        a backend without it refuses settings that set the limit
        (:func:`check_work_limits`).
    """

    lp: bool
    milp: bool
    duals: bool
    incremental: bool = False
    warm_start: bool = False
    cutoff: bool = False
    solution_pool: bool = False
    time_limit: bool = True
    mixed_integer: bool | None = None
    node_limit: bool = False
    iteration_limit: bool = False

    FIELDS = ("lp", "milp", "mixed_integer", "duals", "incremental", "warm_start", "cutoff", "solution_pool",
              "time_limit", "node_limit", "iteration_limit")

    def __post_init__(self) -> None:
        if self.mixed_integer is None:
            object.__setattr__(self, "mixed_integer", bool(self.milp))
        elif self.mixed_integer and not self.milp:
            raise InputError("a backend that solves no MILP cannot declare mixed_integer=True")

    def as_dict(self) -> dict[str, bool]:
        """``{capability: bool}`` in the order of :attr:`FIELDS`."""
        return {k: bool(getattr(self, k)) for k in self.FIELDS}


#: the work limits of :class:`SolveSettings`, each also a capability of the same name
WORK_LIMITS = ("node_limit", "iteration_limit")


def check_work_limits(settings: SolveSettings, solver: str, capabilities: Capabilities) -> None:
    """Refuse settings that set a work limit the backend cannot honour.

    A work limit shapes a result; silently dropping one would give a different answer on
    another backend or machine, so the solve stops with a :class:`SolverError` naming the
    limit and the registered backends that honour it.
    """
    missing = [k for k in WORK_LIMITS if getattr(settings, k) is not None and not getattr(capabilities, k)]
    if not missing:
        return
    from interpretopt.solvers._base import _PYOMO_WORK_LIMIT_NAMES, SOLVERS

    parts = []
    for key in missing:
        able = [n for n in SOLVERS.names() if getattr(SOLVERS.get(n).capabilities, key)]
        able += [n for n, names in _PYOMO_WORK_LIMIT_NAMES.items() if key in names and n not in able]
        parts.append(f"{key}={getattr(settings, key)!r} (honoured by {', '.join(able) or 'no registered backend'})")
    raise SolverError(f"solver {solver!r} cannot honour the work limit {'; '.join(parts)}; use one of those "
                      f"backends or leave the limit unset")


def map_status(code, table: dict, has_solution: bool,
               default: tuple = (SolveStatus.FEASIBLE, SolveStatus.UNKNOWN)) -> SolveStatus:
    """A backend's status code as a :class:`SolveStatus`, through that backend's one table.

    ``table[code]`` is a status, or a pair ``(status when a solution came back, status when
    none did)`` for codes such as a limit; codes not in the table map to ``default``. A
    status without a solution (:attr:`SolveStatus.has_solution`) means none is read.
    """
    entry = table.get(code, default)
    if isinstance(entry, SolveStatus):
        return entry
    return entry[0] if has_solution else entry[1]


def tell_infeasible_from_unbounded(zero_objective: SolveStatus) -> SolveStatus:
    """The one infeasible-vs-unbounded rule, for a solver that reports one for the other or cannot say.

    The backend solves the same rows and bounds again with a zero objective (in its own
    API, restoring the objective after) and passes the outcome: a point found there proves
    the model *unbounded* (it is feasible and was not solved to an optimum), proven
    infeasibility proves it *infeasible*; anything else leaves ``infeasible_or_unbounded``.
    """
    if zero_objective.has_solution:
        return SolveStatus.UNBOUNDED
    if zero_objective is SolveStatus.INFEASIBLE:
        return SolveStatus.INFEASIBLE
    return SolveStatus.INFEASIBLE_OR_UNBOUNDED


#: seconds (at least) a solver may run past its time limit before a backend's own guard stops it
GUARD_GRACE = 0.5


def guard_after(time_limit: float) -> float:
    """When a backend's own wall-clock guard stops a solver that ignores ``time_limit``: the limit
    plus a grace of 10 % of it, at least :data:`GUARD_GRACE` seconds (the one rule of every guard)."""
    return float(time_limit) + max(GUARD_GRACE, 0.1 * float(time_limit))


def require(module: str, package: str):
    """Import ``module`` for a backend, or raise :class:`SolverError` saying which package to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:  # pragma: no cover - the default backends' packages are dependencies
        raise SolverError(f"{package} is not installed (pip install {package})") from None


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """``|objective - bound| / max(|objective|, 1e-10)``; ``None`` when either is unknown."""
    if objective is None or bound is None:
        return None
    if not (math.isfinite(objective) and math.isfinite(bound)):
        return math.inf
    diff = abs(objective - bound)
    if diff <= 1e-12:
        return 0.0
    return diff / max(abs(objective), 1e-10)


@dataclass
class SolveResult:
    """What a solve returned.

    Attributes
    ----------
    status : SolveStatus
    objective : float or None
        Objective value of the returned solution (in the model's own sense, offset included).
    bound : float or None
        Best proven bound on the optimum (lower bound for minimization). For an LP solved
        to optimality it equals the objective.
    gap : float or None
        ``|objective - bound| / |objective|``.
    wall_time : float
        Seconds spent in this call of the solver layer, translation included.
    solver : str
        Backend name (``"highs"``, ``"ortools_glop"``, ``"cbc"``, ...).
    version : str
        Version of the underlying solver.
    message : str
        Human-readable notes: the solver's own status text, a limit that was overrun, ...
    termination : str
        The solver's raw termination code.
    solve_time : float or None
        Seconds spent inside the solver itself.
    x : numpy.ndarray or None
        Primal values by column (matrix and incremental paths).
    duals : numpy.ndarray or None
        Row duals (matrix and incremental paths), convention ``d objective / d rhs``: in a
        minimization a binding ``>=`` row has a dual ``>= 0`` and a binding ``<=`` row a
        dual ``<= 0``; in a maximization the signs flip. The same convention is used for
        the Pyomo ``dual`` suffix.
    reduced_costs : numpy.ndarray or None
        Column reduced costs ``c - A^T duals``.
    info : dict
        Extra solver statistics (iterations, nodes, build time, ...).
    limited_by_time : bool
        A wall-clock limit (the solver's time limit or a backend's own guard) stopped the
        solve: the answer may differ on another machine or under another load.
    """

    status: SolveStatus
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    wall_time: float = 0.0
    solver: str = ""
    version: str = ""
    message: str = ""
    termination: str = ""
    solve_time: float | None = None
    x: np.ndarray | None = field(default=None, repr=False)
    duals: np.ndarray | None = field(default=None, repr=False)
    reduced_costs: np.ndarray | None = field(default=None, repr=False)
    info: dict[str, Any] = field(default_factory=dict, repr=False)
    limited_by_time: bool = False

    @property
    def has_solution(self) -> bool:
        """Whether a primal solution was returned."""
        return SolveStatus(self.status).has_solution

    def raise_for_status(self) -> SolveResult:
        """Return ``self`` when a solution exists, else raise :class:`SolverError` saying why."""
        if not self.has_solution:
            detail = f": {self.message}" if self.message else ""
            raise SolverError(f"{self.solver} returned no solution (status {self.status.value}){detail}")
        return self

    def as_dict(self) -> dict[str, Any]:
        """The scalar fields, for long-format result rows."""
        return {
            "solver": self.solver,
            "solver_version": self.version,
            "status": self.status.value,
            "objective": self.objective,
            "bound": self.bound,
            "gap": self.gap,
            "wall_time": self.wall_time,
            "solve_time": self.solve_time,
            "message": self.message,
            "limited_by_time": bool(self.limited_by_time),
        }
