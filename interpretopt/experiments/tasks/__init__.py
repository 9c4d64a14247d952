"""Task registry: the method name of a config -> a ``run(ctx: RunContext) -> dict`` callable.

* ``brcg``, ``imd``, ``crl``, ``abbr``, ``mtrepan``: module ``interpretopt.experiments.tasks.<name>``
  defining ``run(ctx)``, imported only when a run needs it.
* built-in tasks for tests and smoke runs: ``noop``, ``sleep`` (``seconds``), ``cpu``
  (``work``: busy loop), ``fail`` (raises), ``dummy_tree`` (decision-tree surrogate of a black
  box, reports fidelity), ``worker`` (where a run and its shared memo value ran); see :mod:`interpretopt.experiments.tasks._builtin`.
* ``package.module:function`` names any importable callable.

A task returns a flat dict: metric name -> number or string. The keys ``solver``, ``status``,
``objective``, ``bound`` and ``gap`` become their own result columns; ``artifacts`` (dict
name -> text) is written to ``<out>/artifacts/<run key>/<name>``.

Parameters of a method task
---------------------------
A method task declares what its ``params`` may hold, once, in its module:

* ``PARAMETERS``: its own parameters, ``name -> Param(constraints, default)`` (scikit-learn
  constraints, as the estimators' ``_parameter_constraints``); the default is stated there
  and nowhere else.
* ``ESTIMATORS``: the estimator classes it builds; any of their parameters (their
  ``_parameter_constraints``) may be given and is passed on by name, ``Est(**params)``, so a
  task never restates an estimator's default. ``SET_BY_TASK`` names the estimator
  parameters the task sets itself (the solver, the seed, the black box, ...), which a config
  may not give.
* ``SOLVER_ROLES`` (role -> :class:`~interpretopt.solvers.SolverRole`: every optimization
  problem the method may solve and the capabilities it needs) and ``solver_roles(params)``,
  the roles of one run (``{}`` when it solves nothing; then ``SEARCH`` says what it does
  instead, quoted when a config gives it a solver). A config's ``solver`` (one name for every
  role it fits, or a mapping role -> name) is checked against every role of every run when
  it loads. ``solver_request(params, solver) -> (solver, overrides)`` optionally gives the
  per-role solvers a run's parameters name (BRCG's ``pricing_solver``, ``mip_solver``), which
  are checked with the others. (The older ``solver_needs(params)``, capabilities or ``None``,
  reads as one role.)
* optionally ``check(params)``: checks across parameters or inside nested values.

:func:`check_method_params` validates a config's parameters against all of this when the
config is loaded (an unknown name fails with a did-you-mean, a value outside its
constraints with the accepted range) and the runner validates each run's parameters again
before it starts. Built-in tasks and ``module:function`` tasks take any parameters.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from interpretopt.exceptions import UnknownNameError

__all__ = ["METHOD_TASKS", "BUILTIN_TASKS", "task_names", "get_task", "is_task_name", "Param", "task_params",
           "estimator_params", "estimator_default", "check_method_params", "check_method_solver", "task_schema",
           "accepted_parameters", "method_solver_roles", "all_solver_roles", "method_search"]


@dataclass(frozen=True)
class Param:
    """A task parameter: its scikit-learn constraints and its one default."""

    constraints: list
    default: Any = None
    doc: str = ""


def task_params(params: Mapping[str, Any], parameters: Mapping[str, Param]) -> dict:
    """The task's own parameters of a run, defaults filled in from ``parameters``."""
    return {k: params.get(k, spec.default) for k, spec in parameters.items()}


def estimator_params(params: Mapping[str, Any], cls: type, *, exclude=()) -> dict:
    """The run's parameters that ``cls`` takes (by its ``_parameter_constraints``), minus ``exclude``.

    Tuples from YAML lists stay tuples (every list-valued constraint accepts them).
    """
    names = getattr(cls, "_parameter_constraints", {})
    return {k: v for k, v in params.items() if k in names and k not in set(exclude)}


def estimator_default(cls: type, name: str) -> Any:
    """The default of parameter ``name`` in ``cls.__init__`` (read, never restated)."""
    return inspect.signature(cls.__init__).parameters[name].default

def _method_keys() -> tuple[str, ...]:
    from interpretopt.methods import METHODS

    return tuple(sorted(m.key for m in METHODS))


def _task_module(name: str) -> str:
    """The task module of a registered method (``interpretopt.experiments.tasks.<key>`` unless registered
    with another)."""
    from interpretopt.methods import method_info

    return method_info(name).task


#: One task per registered method (``interpretopt.methods.METHODS``), module ``tasks.<key>``.
METHOD_TASKS = _method_keys()
BUILTIN_TASKS = ("cpu", "dummy_tree", "fail", "noop", "sleep", "worker")


def task_names() -> list[str]:
    """Every registered task name (method tasks and built-in tasks)."""
    return sorted(METHOD_TASKS + BUILTIN_TASKS)


def is_task_name(name: str) -> bool:
    """True for a registered name or a ``module:function`` reference."""
    return name in METHOD_TASKS or name in BUILTIN_TASKS or (":" in name and not name.startswith(":"))


def get_task(name: str) -> Callable:
    """Return the ``run(ctx)`` callable of a task, importing its module on first use.

    Raises
    ------
    UnknownNameError
        The name is not a task.
    ImportError
        The task's module is missing or does not define ``run``; the message says which.
    """
    if name in BUILTIN_TASKS:
        from interpretopt.experiments.tasks import _builtin

        return getattr(_builtin, f"run_{name}")
    if name in METHOD_TASKS:
        modname = _task_module(name)
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError as e:
            if e.name == modname:
                raise ImportError(
                    f"task {name!r} needs module {modname} ({modname.replace('.', '/')}.py), "
                    "which is not installed in this version of interpretopt"
                ) from None
            raise
        run = getattr(mod, "run", None)
        if not callable(run):
            raise ImportError(f"task module {modname} does not define a function run(ctx)")
        return run
    if ":" in name:
        modname, _, attr = name.partition(":")
        mod = importlib.import_module(modname)
        fn = getattr(mod, attr, None)
        if not callable(fn):
            raise ImportError(f"{modname} has no callable {attr!r}")
        return fn
    raise UnknownNameError("method", name, task_names())


# ----------------------------------------------------------------------------- parameter schemas


def task_schema(name: str):
    """The module of a method task (its ``PARAMETERS`` / ``ESTIMATORS`` ...), or None for other tasks."""
    if name not in METHOD_TASKS:
        return None
    get_task(name)
    return importlib.import_module(_task_module(name))


def accepted_parameters(name: str) -> dict[str, list[list]] | None:
    """Parameter name -> the constraint lists of every schema defining it (task and estimators).

    None for a task that takes any parameters.
    """
    mod = task_schema(name)
    if mod is None or not hasattr(mod, "PARAMETERS"):
        return None
    out: dict[str, list[list]] = {k: [p.constraints] for k, p in mod.PARAMETERS.items()}
    exclude = set(getattr(mod, "SET_BY_TASK", ()))
    for cls in getattr(mod, "ESTIMATORS", ()):
        for k, cons in getattr(cls, "_parameter_constraints", {}).items():
            if k not in exclude:
                out.setdefault(k, []).append(cons)
    return out


def check_method_params(name: str, params: Mapping[str, Any], *, grid: bool = False) -> list[tuple[str, str]]:
    """Problems with a method's parameters (empty when they are valid).

    Parameters
    ----------
    name : str
        The task.
    params : mapping
        One run's parameters, or, with ``grid=True``, a grid (name -> tuple of values).

    Returns
    -------
    list of (str, str)
        ``(parameter, problem)`` per problem: an unknown name with a did-you-mean and the
        valid names, or a value outside its constraints (scikit-learn's wording); the
        parameter is ``""`` for a problem across parameters.
    """
    from sklearn.utils._param_validation import InvalidParameterError, validate_parameter_constraints

    from interpretopt._validation import did_you_mean, refuse_bools_for_numbers
    from interpretopt.exceptions import InterpretoptError

    accepted = accepted_parameters(name)
    if accepted is None:
        return []
    mod = task_schema(name)
    problems = []
    axes = {k: (tuple(v) if grid else (v,)) for k, v in params.items()}
    for k, values in axes.items():
        if k not in accepted:
            set_by = k in set(getattr(mod, "SET_BY_TASK", ()))
            why = (f"{k!r} is set by the {name} task itself" if set_by else
                   f"{name} has no parameter {k!r}{did_you_mean(k, list(accepted))}")
            problems.append((k, f"{why}; valid parameters: {', '.join(sorted(accepted))}"))
            continue
        for v in values:
            for cons in accepted[k]:
                try:
                    refuse_bools_for_numbers({k: cons}, {k: v}, f"the {name} task")  # True is no count
                    validate_parameter_constraints({k: cons}, {k: v}, caller_name=f"the {name} task")
                except InvalidParameterError as exc:
                    problems.append((k, str(exc)))
                    break
    check = getattr(mod, "check", None)
    if check is not None and not problems:
        from interpretopt.experiments.config import expand_params

        for point in (expand_params(dict(axes)) if grid else [dict(params)]):
            try:
                check(point)
            except (InterpretoptError, ValueError) as exc:
                problems.append(("", str(exc)))
    return list(dict.fromkeys(problems))


def method_solver_roles(name: str, params: Mapping[str, Any]) -> dict | None:
    """The optimization problems (role -> :class:`~interpretopt.solvers.SolverRole`) of one run of a method
    task, ``{}`` when it solves none, ``None`` when the task declares nothing (any solver is accepted).

    A task declares ``solver_roles(params)``; the older ``solver_needs(params)`` (capabilities, or
    ``None``) reads as one role named ``solver``.
    """
    from interpretopt.solvers import SolverRole

    mod = task_schema(name)
    if mod is None:
        return None
    if hasattr(mod, "solver_roles"):
        return dict(mod.solver_roles(params) or {})
    if hasattr(mod, "solver_needs"):
        needs = mod.solver_needs(params)
        return {} if needs is None else {"solver": SolverRole("solver", tuple(needs), f"the {name} task's problems")}
    return None


def all_solver_roles(name: str) -> dict:
    """Every role a method task may have (its ``SOLVER_ROLES``; ``{}`` when it declares none)."""
    mod = task_schema(name)
    return dict(getattr(mod, "SOLVER_ROLES", None) or {}) if mod is not None else {}


def _points(params: Mapping[str, Any], grid: bool) -> list[dict]:
    from interpretopt.experiments.config import expand_params

    return expand_params({k: tuple(v) for k, v in params.items()}) if grid else [dict(params)]


def check_method_solver(name: str, solver: Any, params: Mapping[str, Any], *, grid: bool = False) -> list[str]:
    """Problems with using ``solver`` (a name, or a mapping role -> name) for the runs of a method: every
    role of every run is checked against the capabilities it needs (empty when none objects)."""
    from interpretopt._validation import check_params
    from interpretopt.exceptions import ParameterError
    from interpretopt.solvers._roles import assign_solvers, solver_for

    mod = task_schema(name)
    if mod is None:
        return []
    problems = []
    for point in _points(params, grid):
        roles = method_solver_roles(name, point)
        if not roles:
            continue
        every = all_solver_roles(name) or roles
        try:
            target = getattr(mod, "SOLVER_PARAMETER", None)
            if target is not None:
                cls, pname = target
                check_params(cls, {pname: solver})
            asked, overrides = solver_for(solver, every), {}
            if hasattr(mod, "solver_request"):  # per-role solvers among the run's parameters
                asked, overrides = mod.solver_request(point, asked)
            assign_solvers(asked, roles, owner=f"the {name} task", all_roles=every, overrides=overrides)
        except ParameterError as exc:
            problems.append(str(exc))
    return list(dict.fromkeys(problems))


def method_search(name: str, params: Mapping[str, Any], *, grid: bool = False) -> str | None:
    """What a method does instead of solving, when none of its runs has an optimization problem; else None.

    The refusal of a config's ``solver``/``preset`` for such a method quotes it (the task's ``SEARCH``).
    """
    if any(method_solver_roles(name, p) != {} for p in _points(params, grid)):
        return None
    mod = task_schema(name)
    return str(getattr(mod, "SEARCH", "") or "its search solves no LP or MILP")
