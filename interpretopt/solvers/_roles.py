"""Solver roles: which optimization problems a method solves, and which solver each one gets.

A method declares its roles once, by name, with the capabilities each problem needs
(``SOLVER_ROLES``: BRCG's ``master``, ``pricing`` and ``integer``; MTRE-PAN's ``node``;
ABBR's ``baseline`` and ``certificate``). A user names the solvers in one of two forms:

* one name, ``solver="scipy"``: it goes to every role it fits (has every capability of);
  the roles it does not fit keep the default, :data:`DEFAULT_SOLVER`; a name that fits
  none of the roles is an error;
* a mapping, ``solver={"master": "ortools_glop", "integer": "cbc"}``: one name per role
  given, each checked against its role (an unknown role or a solver lacking a capability is
  an error naming the solvers that qualify); the roles not given keep the default.

Nothing is substituted: a solver given for a role either fills it or is refused, before any
solve (at config load time for an experiment). :func:`assign_solvers` returns, per role, the
string the user gave (``""`` when the role took the default) and the backend name to run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from interpretopt.exceptions import ParameterError

__all__ = ["DEFAULT_SOLVER", "SolverRole", "RoleAssignment", "assign_solvers", "merge_solver_records", "roles_text",
           "qualifying_solvers", "solver_columns", "solver_fits", "solver_for"]

#: the solver of every role no solver was given for
DEFAULT_SOLVER = "highs"


@dataclass(frozen=True)
class SolverRole:
    """One optimization problem of a method.

    Attributes
    ----------
    name : str
        The role's key in a config's or an estimator's ``solver`` mapping (``"master"``).
    needs : tuple of str
        Capabilities (:class:`~interpretopt.solvers.Capabilities` fields) the problem needs.
    problem : str
        What is solved, for messages and documentation.
    """

    name: str
    needs: tuple[str, ...]
    problem: str = ""


@dataclass(frozen=True)
class RoleAssignment:
    """The solver of one role: what was asked for (``""``: nothing, the default) and what runs."""

    role: str
    requested: str
    solver: str


def _known() -> list[str]:
    from interpretopt.solvers import PYOMO_SOLVER_NAMES, SOLVERS

    return list(SOLVERS.names()) + [n for n in PYOMO_SOLVER_NAMES if n not in SOLVERS]


def solver_fits(name: str, needs) -> bool:
    """Whether the solver ``name`` (registered or known to Pyomo) has every capability in ``needs``."""
    from interpretopt._validation import solver_capabilities

    caps = solver_capabilities(name)
    return caps is not None and all(caps.get(k, False) for k in needs)


def qualifying_solvers(needs) -> list[str]:
    """The known solvers (registered, then Pyomo's probed names) with every capability in ``needs``."""
    return [n for n in _known() if solver_fits(n, needs)]


def roles_text(roles: Mapping[str, SolverRole]) -> str:
    """``master (LP duals, an incremental model), integer (MILPs, ...)`` for messages."""
    from interpretopt._validation import _CAPABILITY_WORDS

    return "; ".join(f"{r.name} ({', '.join(_CAPABILITY_WORDS.get(k, k) for k in r.needs)}: "
                     f"{', '.join(qualifying_solvers(r.needs))})" for r in roles.values())


def _one_name(name: str, roles: Mapping[str, SolverRole], owner: str) -> dict[str, RoleAssignment]:
    from interpretopt._validation import check_solver

    check_solver(name, (), owner=owner)  # an unknown name: did-you-mean and the known solvers
    fits = {r: RoleAssignment(r, name, name) for r, spec in roles.items() if solver_fits(name, spec.needs)}
    if roles and not fits:
        raise ParameterError(f"{owner}: solver {name!r} fits none of its roles; the roles and the solvers that "
                             f"qualify for each: {roles_text(roles)}")
    return fits


def _mapping(value: Mapping, roles: Mapping[str, SolverRole], owner: str, *, all_roles=None) -> dict:
    from interpretopt._validation import check_solver, did_you_mean

    out = {}
    valid = all_roles if all_roles is not None else roles
    for role, name in value.items():
        if role not in valid:
            raise ParameterError(f"{owner} has no solver role {role!r}{did_you_mean(str(role), list(valid))}; "
                                 f"its roles: {', '.join(valid) or '(none)'}")
        check_solver(name, valid[role].needs, owner=owner, what=f"{role} solver")
        if role in roles:  # else a role of the method that this run does not have (pricing by beam search only)
            out[role] = RoleAssignment(role, name, name)
    return out


def assign_solvers(solver: Any, roles: Mapping[str, SolverRole], *, owner: str,
                   overrides: Mapping[str, Any] | None = None, all_roles: Mapping[str, SolverRole] | None = None,
                   default: str = DEFAULT_SOLVER) -> dict[str, RoleAssignment]:
    """The solver of every role in ``roles``, checked against the role's capabilities.

    Parameters
    ----------
    solver : str, mapping of role to str, or None
        One name for every role it fits, or a name per role (see the module docstring).
    roles : mapping of str to SolverRole
        The roles this fit (or run) has.
    owner : str
        Named in messages (``"BRCGClassifier"``, ``"the brcg task"``).
    overrides : mapping of role to str or None, optional
        Per-role names given apart (an estimator's ``pricing_solver``); a ``None`` is not given.
        They win over ``solver``.
    all_roles : mapping, optional
        Every role the method may have; a mapping may name one of them that this fit lacks.
    default : str

    Raises
    ------
    ParameterError
        A solver that is unknown, fits none of the roles (one name), or lacks a capability of
        the role it is given for; an unknown role. The message names the qualifying solvers.
    """
    if solver is None:
        given: dict[str, RoleAssignment] = {}
    elif isinstance(solver, str) and solver:
        given = _one_name(solver, roles, owner)
    elif isinstance(solver, Mapping):
        given = _mapping(solver, roles, owner, all_roles=all_roles)
    else:
        raise ParameterError(f"{owner}: solver must be a solver name or a mapping of role to solver name "
                             f"({', '.join(roles) or 'no roles'}), got {type(solver).__name__} {solver!r}")
    given.update(_mapping({k: v for k, v in (overrides or {}).items() if v is not None}, roles, owner,
                          all_roles=all_roles))
    return {r: given.get(r, RoleAssignment(r, "", default)) for r in roles}


def merge_solver_records(records) -> dict:
    """One ``solvers_`` record (role -> requested, solver) from several fits of one method (e.g. the two
    rule sets of BRCG Diff): the first requested string of each role, the backends that ran joined by ``+``
    when they differ."""
    out: dict[str, dict] = {}
    for rec in records:
        for role, entry in (rec or {}).items():
            cur = out.setdefault(role, {"requested": entry.get("requested", ""), "solver": ""})
            ran = entry.get("solver", "")
            if ran and ran not in cur["solver"].split("+"):
                cur["solver"] = f"{cur['solver']}+{ran}" if cur["solver"] else ran
    return out


def solver_columns(solvers: Mapping | None) -> dict:
    """Result-row columns of a fit's ``solvers_``: ``solver_<role>_requested`` (the string given, ``""``
    for the default) and ``solver_<role>`` (the backend that ran, ``""`` when the role solved nothing)."""
    out = {}
    for role, entry in (solvers or {}).items():
        out[f"solver_{role}_requested"] = str(entry.get("requested", "") or "")
        out[f"solver_{role}"] = str(entry.get("solver", "") or "")
    return out


def solver_for(solver: Any, roles: Mapping[str, SolverRole]) -> Any:
    """A config's ``solver`` as one method sees it: a mapping keeps only that method's roles (the others are
    other methods' of a multi-method config, checked when the config loads); a name passes unchanged."""
    if isinstance(solver, Mapping):
        return {k: v for k, v in solver.items() if k in roles}
    return solver
