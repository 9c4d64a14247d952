"""Translate a linear Pyomo model into a :class:`~interpretopt._lp.LinearProgram`, and map array
solutions back into it (the direction for models written in Pyomo by a user; the project's own
formulations are written as programs and their Pyomo models built from them).

The matrix form is

.. math::

    \\min / \\max \\; c^T x + c_0 \\quad \\text{s.t.} \\quad
    r^L \\le A x \\le r^U, \\quad l \\le x \\le u, \\quad x_j \\in \\mathbb{Z} \\; (j \\in I)

with one row per active Pyomo constraint (a ranged constraint stays one row), one column
per unfixed variable that appears in the objective or a constraint. Fixed variables are
moved into the row bounds and the objective offset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from interpretopt._lp import LinearProgram
from interpretopt.exceptions import InputError, SolverError

__all__ = ["MatrixForm", "to_matrix_form"]


@dataclass
class MatrixForm(LinearProgram):
    """A :class:`~interpretopt._lp.LinearProgram` compiled from a Pyomo model, with the map back.

    Attributes (beyond those of the program)
    ----------------------------------------
    variables : list
        Pyomo ``VarData`` of each column.
    constraints : list
        Pyomo ``ConstraintData`` of each row.
    objective : Pyomo ``ObjectiveData`` or None
    """

    variables: list = field(default_factory=list, repr=False)
    constraints: list = field(default_factory=list, repr=False)
    objective: Any = field(default=None, repr=False)

    def load_primal(self, x: np.ndarray) -> None:
        """Write ``x`` into the Pyomo variables (integers rounded when within 1e-6)."""
        x = np.asarray(x, dtype=float)
        if x.shape != (self.n_cols,):
            raise InputError(f"x must have shape ({self.n_cols},), got {x.shape}")
        vals = x.copy()
        if self.integrality.any():
            ints = self.integrality
            r = np.round(vals[ints])
            close = np.abs(r - vals[ints]) <= 1e-6
            vals[ints] = np.where(close, r, vals[ints])
        for v, val in zip(self.variables, vals.tolist()):
            v.set_value(val, skip_validation=True)

    def load_duals(self, model, duals: np.ndarray) -> None:
        """Fill the Pyomo ``dual`` suffix of ``model`` with row duals (created when missing)."""
        suffix = dual_suffix(model)
        suffix.clear()
        for con, y in zip(self.constraints, np.asarray(duals, dtype=float).tolist()):
            suffix[con] = y


def dual_suffix(model):
    """The model's import suffix named ``dual``, created when missing."""
    import pyomo.environ as pe

    comp = model.component("dual")
    if comp is None:
        model.dual = pe.Suffix(direction=pe.Suffix.IMPORT)
        return model.dual
    if not isinstance(comp, pe.Suffix):
        raise InputError(
            f"the model has a component named 'dual' of type {type(comp).__name__}; "
            "duals are returned in a Suffix of that name, so rename the component"
        )
    if not comp.import_enabled():
        raise InputError("the model's 'dual' Suffix is not an IMPORT suffix; declare it with direction=Suffix.IMPORT")
    return comp


def to_matrix_form(model) -> MatrixForm:
    """Translate a linear Pyomo model into a :class:`MatrixForm`.

    Uses Pyomo's linear standard-form compiler (one pass over the expressions, matrices
    assembled by scipy), so a 50,000-row model takes seconds.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
        A model with at most one active objective and only linear expressions.

    Returns
    -------
    MatrixForm

    Raises
    ------
    SolverError
        When the model has a nonlinear expression, more than one active objective, or a
        constraint that is infeasible by itself.
    """
    objectives, info = _compile(model)
    columns = list(info.columns)
    n = len(columns)
    objective = objectives[0] if objectives else None
    c, offset, sense = _objective_arrays(info, objective, n)
    A, lower, upper, cons = _row_arrays(info, n)
    col_lower, col_upper, integ = _column_arrays(columns)
    A = sp.csr_array(A, dtype=float)
    A.sort_indices()
    _check_finite(c, A, lower, upper, col_lower, col_upper, cons, columns)
    return MatrixForm(
        c=c.astype(float),
        offset=offset,
        sense=sense,
        A=A,
        row_lower=lower.astype(float),
        row_upper=upper.astype(float),
        col_lower=col_lower,
        col_upper=col_upper,
        integrality=integ,
        variables=columns,
        constraints=cons,
        objective=objective,
    )


def _compile(model):
    """The active objectives (at most one) and Pyomo's linear standard form of ``model``
    (mixed form: one row per constraint side); a model that cannot be compiled is a :class:`SolverError`."""
    import pyomo.environ as pe
    from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

    if not isinstance(model, pe.Block):
        raise InputError(f"expected a Pyomo model (ConcreteModel), got {type(model).__name__}")
    objectives = list(model.component_data_objects(pe.Objective, active=True, descend_into=True))
    if len(objectives) > 1:
        raise SolverError(
            f"the model has {len(objectives)} active objectives "
            f"({', '.join(o.name for o in objectives[:5])}); deactivate all but one"
        )
    try:
        info = LinearStandardFormCompiler().write(model, mixed_form=True, set_sense=None)
    except Exception as exc:  # nonlinear terms, infeasible constant rows, unknown components
        name = type(exc).__name__
        if "nonlinear" in str(exc).lower() or "Invalid" in name:
            raise SolverError(f"the model is not linear, so it cannot be passed as a matrix: {exc}") from None
        if "Infeasible" in name:
            raise SolverError(f"the model is infeasible by construction: {exc}") from None
        raise SolverError(f"could not translate the model into matrix form: {name}: {exc}") from None
    return objectives, info


def _objective_arrays(info, objective, n: int):
    """``(c, c_0, sense)`` of the objective over the ``n`` columns; zeros, 0 and "min" without one."""
    import pyomo.environ as pe

    if objective is not None:
        c = np.asarray(info.c.toarray()).reshape(-1) if info.c.shape[0] else np.zeros(n)
        offset = float(info.c_offset[0]) if len(info.c_offset) else 0.0
        sense = "max" if objective.sense == pe.maximize else "min"
    else:
        c, offset, sense = np.zeros(n), 0.0, "min"
    if c.shape[0] != n:
        c = np.zeros(n)
    return c, offset, sense


def _row_arrays(info, n: int):
    """``(A, r^L, r^U, constraints)``, one row per constraint: the standard form's rows with their
    bound types read as ``<=``, ``>=`` or ``==``, and a ranged constraint's two rows merged into one."""
    rows = info.rows
    m_raw = len(rows)
    rhs = np.asarray(info.rhs, dtype=float).reshape(-1) if m_raw else np.zeros(0)
    btype = np.fromiter((r.bound_type for r in rows), dtype=np.int8, count=m_raw)
    A = sp.csr_array(info.A) if m_raw else sp.csr_array((0, n))
    lower = np.where(btype <= 0, rhs, -np.inf)
    upper = np.where(btype >= 0, rhs, np.inf)
    cons = [r.constraint for r in rows]
    # a ranged constraint comes out as two consecutive rows (upper then lower): merge them
    if m_raw > 1:
        dup = np.zeros(m_raw, dtype=bool)
        idx = [i for i in range(1, m_raw) if cons[i] is cons[i - 1]]
        if idx:
            dup[idx] = True
            first = np.asarray(idx) - 1
            lower[first] = np.maximum(lower[first], lower[dup])
            upper[first] = np.minimum(upper[first], upper[dup])
            keep = ~dup
            A = A[keep]
            lower, upper = lower[keep], upper[keep]
            cons = [cn for cn, k in zip(cons, keep.tolist()) if k]
    return A, lower, upper, cons


def _column_arrays(columns):
    """``(l, u, integrality)`` of the columns' Pyomo variables (a missing bound is infinite)."""
    n = len(columns)
    col_lower = np.empty(n)
    col_upper = np.empty(n)
    integ = np.zeros(n, dtype=bool)
    for j, v in enumerate(columns):
        lb, ub = v.bounds
        col_lower[j] = -np.inf if lb is None else lb
        col_upper[j] = np.inf if ub is None else ub
        if not v.is_continuous():
            integ[j] = True
    return col_lower, col_upper, integ


def _check_finite(c, A, row_lower, row_upper, col_lower, col_upper, cons, columns) -> None:
    """Raise :class:`SolverError` naming the first component with a NaN or infinite coefficient."""
    if not np.isfinite(c).all():
        j = int(np.flatnonzero(~np.isfinite(c))[0])
        raise SolverError(f"the objective has a non-finite coefficient ({c[j]}) on variable {columns[j].name}; "
                          "check the data the model was built from")
    data = A.data
    if data.size and not np.isfinite(data).all():
        k = int(np.flatnonzero(~np.isfinite(data))[0])
        i = int(np.searchsorted(A.indptr, k, side="right") - 1)
        j = int(A.indices[k])
        raise SolverError(f"constraint {cons[i].name} has a non-finite coefficient ({data[k]}) on variable "
                          f"{columns[j].name}; check the data the model was built from")
    for what, arr, comps in (("lower bound", row_lower, cons), ("upper bound", row_upper, cons),
                             ("lower bound", col_lower, columns), ("upper bound", col_upper, columns)):
        if np.isnan(arr).any():
            i = int(np.flatnonzero(np.isnan(arr))[0])
            raise SolverError(f"{comps[i].name} has a NaN {what}; check the data the model was built from")
