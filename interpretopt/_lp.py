"""One neutral value for a linear (mixed-integer) program, shared by formulations and solvers.

.. math::

    \\min / \\max \\; c^T x + c_0 \\quad \\text{s.t.} \\quad
    r^L \\le A x \\le r^U, \\quad l \\le x \\le u, \\quad x_j \\in \\mathbb{Z} \\; (j \\in I)

A formulation states its LP/MILP once, as a :class:`LinearProgram` whose columns and rows
come in named blocks (``"xi"``, ``"w"``, ``"cover"``, ...; each block optionally labelled by
the index it has in the paper, e.g. the sample indices of the positive rows). Every solver
path uses that value: the incremental backends load its arrays directly, and the Pyomo
model is built *from* it by :meth:`LinearProgram.to_pyomo` (one direction only), so any
solver Pyomo knows solves the same program. This module imports neither the formulations
nor the solvers; both import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from interpretopt.exceptions import InputError

__all__ = ["ColumnBlock", "LinearProgram", "RowBlock"]


@dataclass(frozen=True)
class ColumnBlock:
    """Columns of one kind: ``cost``, bounds and integrality, one entry per column.

    ``labels`` are the indices of the block's Pyomo variable (default ``0..k-1``);
    ``scalar=True`` (one column) makes it a scalar variable.
    """

    name: str
    cost: Any
    lower: Any = 0.0
    upper: Any = np.inf
    integer: Any = False
    labels: Sequence | None = None
    scalar: bool = False


@dataclass(frozen=True)
class RowBlock:
    """Rows of one kind: ``A`` (k x number of columns of the program) and row bounds.

    ``labels`` and ``scalar`` as in :class:`ColumnBlock`.
    """

    name: str
    A: Any
    lower: Any = -np.inf
    upper: Any = np.inf
    labels: Sequence | None = None
    scalar: bool = False


def _vec(what: str, value, k: int, dtype=float) -> np.ndarray:
    arr = np.asarray(value, dtype=dtype)
    if arr.ndim == 0:
        return np.full(k, arr, dtype=dtype)
    arr = arr.reshape(-1)
    if arr.shape[0] != k:
        raise InputError(f"{what} has {arr.shape[0]} entries for a block of {k}")
    return arr


@dataclass
class LinearProgram:
    """A linear (mixed-integer) program as arrays, with named blocks of columns and rows.

    Attributes
    ----------
    c : numpy.ndarray, shape (n,)
        Objective coefficients in the program's own sense.
    offset : float
        Constant term of the objective.
    sense : {"min", "max"}
    A : scipy.sparse.csr_array, shape (m, n)
    row_lower, row_upper : numpy.ndarray, shape (m,)
        Row bounds, ``-inf`` / ``inf`` when absent (equal for equality rows).
    col_lower, col_upper : numpy.ndarray, shape (n,)
    integrality : numpy.ndarray of bool, shape (n,)
    col_blocks, row_blocks : dict of str to slice
        Where each named block of columns / rows lies.
    col_labels, row_labels : dict of str to list
        The index of each column / row of a block in its Pyomo component (absent: a scalar).
    name : str
    """

    c: np.ndarray
    offset: float
    sense: str
    A: sp.csr_array
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    integrality: np.ndarray
    col_blocks: dict = field(default_factory=dict, repr=False)
    row_blocks: dict = field(default_factory=dict, repr=False)
    col_labels: dict = field(default_factory=dict, repr=False)
    row_labels: dict = field(default_factory=dict, repr=False)
    name: str = ""

    # -- construction -------------------------------------------------------------------
    @classmethod
    def assemble(cls, columns: Sequence[ColumnBlock], rows: Sequence[RowBlock], *, offset: float = 0.0,
                 sense: str = "min", name: str = "") -> LinearProgram:
        """Stack blocks of columns (left to right) and rows (top to bottom) into one program."""
        if sense not in ("min", "max"):
            raise InputError(f"sense must be 'min' or 'max', got {sense!r}")
        c, lo, hi, integ = [], [], [], []
        col_blocks, col_labels, start = {}, {}, 0
        for b in columns:
            cost = np.asarray(b.cost, dtype=float).reshape(-1)
            k = cost.shape[0]
            c.append(cost)
            lo.append(_vec(f"lower bounds of {b.name}", b.lower, k))
            hi.append(_vec(f"upper bounds of {b.name}", b.upper, k))
            integ.append(_vec(f"integrality of {b.name}", b.integer, k, dtype=bool))
            col_blocks[b.name] = slice(start, start + k)
            if not b.scalar:
                col_labels[b.name] = list(range(k)) if b.labels is None else [_label(v) for v in b.labels]
            start += k
        n = start
        mats, rlo, rhi, row_blocks, row_labels, start = [], [], [], {}, {}, 0
        for b in rows:
            M = sp.csr_array(b.A, dtype=float) if sp.issparse(b.A) else sp.csr_array(np.atleast_2d(
                np.asarray(b.A, dtype=float)))
            if M.shape[1] != n:
                raise InputError(f"row block {b.name} has {M.shape[1]} columns for a program of {n}")
            k = M.shape[0]
            mats.append(M)
            rlo.append(_vec(f"lower bounds of {b.name}", b.lower, k))
            rhi.append(_vec(f"upper bounds of {b.name}", b.upper, k))
            row_blocks[b.name] = slice(start, start + k)
            if not b.scalar:
                row_labels[b.name] = list(range(k)) if b.labels is None else [_label(v) for v in b.labels]
            start += k
        A = sp.csr_array(sp.vstack(mats, format="csr")) if mats else sp.csr_array((0, n))
        A.sort_indices()
        cat = (lambda parts, dtype=float: np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype))
        return cls(c=cat(c), offset=float(offset), sense=sense, A=A, row_lower=cat(rlo), row_upper=cat(rhi),
                   col_lower=cat(lo), col_upper=cat(hi), integrality=cat(integ, bool), col_blocks=col_blocks,
                   row_blocks=row_blocks, col_labels=col_labels, row_labels=row_labels, name=name)

    def with_changes(self, **changes) -> LinearProgram:
        """A copy with some arrays replaced (e.g. new costs); the blocks are kept."""
        return replace(self, **changes)

    # -- shape ----------------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        return self.A.shape[0]

    @property
    def n_cols(self) -> int:
        return self.A.shape[1]

    @property
    def is_mip(self) -> bool:
        return bool(self.integrality.any())

    def cols(self, name: str) -> slice:
        """Position of the column block ``name``."""
        return _block(self.col_blocks, name, "column")

    def rows(self, name: str) -> slice:
        """Position of the row block ``name``."""
        return _block(self.row_blocks, name, "row")

    def objective_value(self, x: np.ndarray) -> float:
        """``c @ x + offset``."""
        return float(self.c @ np.asarray(x, dtype=float) + self.offset)

    # -- Pyomo (built from the arrays; the other direction is solvers.to_matrix_form) ------
    def to_pyomo(self):
        """The program as a Pyomo ``ConcreteModel``: one ``Var`` per column block, one
        ``Constraint`` per row block (named as the blocks, indexed by their labels), ``obj``.

        Integer columns within [0, 1] are ``Binary``; rows without a finite bound are left
        out of their constraint (they constrain nothing).
        """
        import pyomo.environ as pyo
        from pyomo.core.expr.numeric_expr import LinearExpression

        m = pyo.ConcreteModel(name=self.name or "lp")
        var_of: list = [None] * self.n_cols
        for name, sl in self.col_blocks.items():
            labels = self.col_labels.get(name)
            idx = list(range(sl.start, sl.stop))

            def domain(j):
                if not self.integrality[j]:
                    return pyo.Reals
                return pyo.Binary if self.col_lower[j] >= 0 and self.col_upper[j] <= 1 else pyo.Integers

            def bounds(j):
                lo, hi = self.col_lower[j], self.col_upper[j]
                return (None if np.isinf(lo) else float(lo), None if np.isinf(hi) else float(hi))

            if labels is None:
                comp = pyo.Var(domain=domain(idx[0]), bounds=bounds(idx[0]))
                m.add_component(name, comp)
                var_of[idx[0]] = comp
            else:
                pos = dict(zip(labels, idx))
                comp = pyo.Var(labels, domain=lambda m, i: domain(pos[i]), bounds=lambda m, i: bounds(pos[i]))
                m.add_component(name, comp)
                for i, j in pos.items():
                    var_of[j] = comp[i]
        A = self.A.tocsr()

        def row_expr(r):
            s, e = A.indptr[r], A.indptr[r + 1]
            lo, hi = self.row_lower[r], self.row_upper[r]
            if np.isinf(lo) and np.isinf(hi):
                return pyo.Constraint.Skip
            expr = LinearExpression(constant=0.0, linear_coefs=A.data[s:e].tolist(),
                                    linear_vars=[var_of[j] for j in A.indices[s:e].tolist()])
            if lo == hi:
                return expr == float(lo)
            return (None if np.isinf(lo) else float(lo), expr, None if np.isinf(hi) else float(hi))

        for name, sl in self.row_blocks.items():
            labels = self.row_labels.get(name)
            if labels is None:
                expr = row_expr(sl.start)
                if expr is not pyo.Constraint.Skip:
                    m.add_component(name, pyo.Constraint(expr=expr))
            else:
                pos = dict(zip(labels, range(sl.start, sl.stop)))
                m.add_component(name, pyo.Constraint(labels, rule=lambda m, i: row_expr(pos[i])))
        nz = np.flatnonzero(self.c)
        m.obj = pyo.Objective(expr=LinearExpression(constant=float(self.offset), linear_coefs=self.c[nz].tolist(),
                                                    linear_vars=[var_of[j] for j in nz.tolist()]),
                              sense=pyo.maximize if self.sense == "max" else pyo.minimize)
        return m

    def pyomo_variables(self, model) -> list:
        """The ``VarData`` of each column, in column order, of a model built by :meth:`to_pyomo`."""
        return _pyomo_items(model, self.col_blocks, self.col_labels, self.n_cols)

    def pyomo_constraints(self, model) -> list:
        """The ``ConstraintData`` of each row (``None`` for a row left out), in row order."""
        return _pyomo_items(model, self.row_blocks, self.row_labels, self.n_rows)


def _pyomo_items(model, blocks: dict, labels: dict, n: int) -> list:
    """The component data of each position of the named blocks (``None`` where the model has none)."""
    out: list = [None] * n
    for name, sl in blocks.items():
        comp = model.component(name)
        if comp is None:
            continue
        if name not in labels:
            out[sl.start] = comp
            continue
        for j, i in zip(range(sl.start, sl.stop), labels[name]):
            out[j] = comp[i] if i in comp else None
    return out


def _label(v):
    """A Pyomo index from a numpy scalar or tuple."""
    if isinstance(v, np.generic):
        return v.item()
    return v


def _block(blocks: dict, name: str, what: str) -> slice:
    try:
        return blocks[name]
    except KeyError:
        raise InputError(f"the program has no {what} block {name!r}; it has {', '.join(blocks) or 'none'}") from None
