"""A direct, incremental LP/MILP model for re-solve loops (column generation, pricing).

The model is held by the solver itself (a ``highspy.Highs`` object, or an OR-Tools
``pywraplp`` GLOP solver); rows and columns are appended in place, costs, bounds and
integrality are changed in place, and each ``solve`` warm-starts from the previous basis
(HiGHS keeps its basis when columns are added: the new columns start nonbasic). HiGHS'
own choice of simplex variant is kept; ``options={"simplex_strategy": 4}`` asks for the
primal simplex, which continues from a basis that stays primal feasible when only columns
were added; whether that is faster depends on the instance (measured both ways).

Row duals follow the convention ``d objective / d rhs``: in a minimization, a binding
``>=`` row has a dual ``>= 0`` and a binding ``<=`` row a dual ``<= 0``; in a maximization
the signs flip. Reduced costs are ``c - A^T y`` with the same convention, so in a
minimization a column with a negative reduced cost improves the objective when it enters.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from interpretopt import _clock
from interpretopt.exceptions import InputError, SolverError, UnknownNameError
from interpretopt.solvers._types import (SolveResult, SolveSettings, SolveStatus, guard_after, map_status,
                                         relative_gap, require, tell_infeasible_from_unbounded)

__all__ = ["IncrementalModel", "make_incremental", "INCREMENTAL_SOLVERS"]



def _vec(name: str, value, k: int, *, allow_inf: bool) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        arr = np.full(k, float(arr))
    elif arr.shape != (k,):
        raise InputError(f"{name} must be a scalar or have shape ({k},), got shape {arr.shape}")
    if np.isnan(arr).any():
        raise InputError(f"{name} contains NaN at position(s) {np.flatnonzero(np.isnan(arr))[:5].tolist()}")
    if not allow_inf and np.isinf(arr).any():
        raise InputError(f"{name} must be finite; infinite at position(s) {np.flatnonzero(np.isinf(arr))[:5].tolist()}")
    return np.ascontiguousarray(arr)


def _bounds(lower, upper, k: int) -> tuple[np.ndarray, np.ndarray]:
    lo = _vec("lower", lower, k, allow_inf=True)
    hi = _vec("upper", upper, k, allow_inf=True)
    if np.any(lo > hi):
        raise InputError("lower bound above upper bound")
    return lo, hi


def _idx(name: str, idx, n: int) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(idx))
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise InputError(f"boolean {name} must have shape ({n},), got {arr.shape}")
        arr = np.flatnonzero(arr)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise InputError(f"{name} must be integer indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int32, copy=False)
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        raise InputError(f"{name} out of range [0, {n}): min {arr.min()}, max {arr.max()}")
    return arr


def _block(A, starts, indices, values, k: int, n_other: int, *, by: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Compressed (starts, indices, values) of k new columns (by="col") or rows (by="row")."""
    if A is not None and (starts is not None or indices is not None or values is not None):
        raise InputError("give either A or starts/indices/values, not both")
    if A is None and starts is None:
        return np.zeros(k, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0)
    if A is not None:
        shape = (n_other, k) if by == "col" else (k, n_other)
        if sp.issparse(A):
            M = A.tocsc() if by == "col" else A.tocsr()
        else:
            dense = np.asarray(A, dtype=float)
            if dense.ndim == 1 and by == "col" and k == 1:
                dense = dense.reshape(-1, 1)
            if dense.ndim == 1 and by == "row" and k == 1:
                dense = dense.reshape(1, -1)
            M = sp.csc_array(dense) if by == "col" else sp.csr_array(dense)
        if M.shape != shape:
            what = "existing rows" if by == "col" else "existing columns"
            raise InputError(f"the coefficient block must have shape {shape} ({n_other} {what}), got {M.shape}")
        M.sum_duplicates()
        s = np.asarray(M.indptr[:-1], dtype=np.int32)
        i = np.asarray(M.indices, dtype=np.int32)
        v = np.asarray(M.data, dtype=float)
    else:
        if indices is None or values is None:
            raise InputError("starts, indices and values must be given together")
        s = np.asarray(starts, dtype=np.int32).reshape(-1)
        i = np.asarray(indices, dtype=np.int32).reshape(-1)
        v = np.asarray(values, dtype=float).reshape(-1)
        if s.shape == (k + 1,):
            if s[-1] != i.size:
                raise InputError(f"starts ends at {s[-1]} but there are {i.size} indices")
            s = s[:-1]
        if s.shape != (k,):
            raise InputError(f"starts must have length {k} (or {k + 1}), got {s.shape[0]}")
        if i.shape != v.shape:
            raise InputError(f"indices ({i.size}) and values ({v.size}) differ in length")
        if k and (s[0] != 0 or np.any(np.diff(s) < 0) or s[-1] > i.size):
            raise InputError("starts must begin at 0 and be non-decreasing within the number of indices")
        if i.size and (i.min() < 0 or i.max() >= n_other):
            raise InputError(f"indices out of range [0, {n_other}): min {i.min()}, max {i.max()}")
    if not np.isfinite(v).all():
        raise InputError("the coefficient block contains NaN or infinite values")
    return np.ascontiguousarray(s), np.ascontiguousarray(i), np.ascontiguousarray(v)


class IncrementalModel:
    """An LP/MILP held by the solver and changed in place between solves.

    Create one with :func:`make_incremental` or :meth:`IncrementalModel.from_pyomo`.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> m = make_incremental("highs")                      # min
    >>> m.add_rows(lower=[1.0, 2.0], upper=[np.inf, np.inf])   # x >= 1, x >= 2
    array([0, 1], dtype=int32)
    >>> m.add_columns(cost=[1.0], A=sp.csc_array(np.array([[1.0], [1.0]])))
    array([0], dtype=int32)
    >>> r = m.solve()
    >>> float(r.objective), r.duals.round(6).tolist()
    (2.0, [0.0, 1.0])
    """

    solver = ""

    def __init__(self, sense: str = "min") -> None:
        if sense not in ("min", "max"):
            raise InputError(f"sense must be 'min' or 'max', got {sense!r}")
        self.sense = sense
        self._n_rows = 0
        self._n_cols = 0
        self._integer = np.zeros(0, dtype=bool)
        self._start: tuple[np.ndarray, np.ndarray] | None = None
        self.matrix_form = None
        self.pyomo_model = None

    # -- shape ------------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        return self._n_rows

    @property
    def n_cols(self) -> int:
        return self._n_cols

    @property
    def is_mip(self) -> bool:
        return bool(self._integer.any())

    # -- building ---------------------------------------------------------------------
    def add_rows(self, lower, upper, A=None, *, starts=None, indices=None, values=None) -> np.ndarray:
        """Append rows ``lower <= a_i x <= upper``; coefficients over existing columns are optional.

        Parameters
        ----------
        lower, upper : array-like of shape (k,)
            Row bounds (``-inf`` / ``inf`` for none).
        A : scipy.sparse matrix or ndarray of shape (k, n_cols), optional
            Coefficients of the new rows on the existing columns (or give CSR
            ``starts``, ``indices``, ``values``).

        Returns
        -------
        numpy.ndarray
            Indices of the new rows.
        """
        lo = np.atleast_1d(np.asarray(lower, dtype=float))
        k = lo.shape[0] if lo.ndim == 1 else -1
        if k < 0:
            raise InputError(f"lower must be 1-D, got shape {lo.shape}")
        lo = _vec("lower", lo, k, allow_inf=True)
        hi = _vec("upper", upper, k, allow_inf=True)
        if np.any(lo > hi):
            bad = np.flatnonzero(lo > hi)[:5].tolist()
            raise InputError(f"row lower bound above upper bound at new row(s) {bad}")
        s, i, v = _block(A, starts, indices, values, k, self._n_cols, by="row")
        self._add_rows(lo, hi, s, i, v)
        first = self._n_rows
        self._n_rows += k
        return np.arange(first, self._n_rows, dtype=np.int32)

    def add_columns(self, cost, lower=0.0, upper=np.inf, A=None, *, starts=None, indices=None, values=None,
                    integer=False) -> np.ndarray:
        """Append columns with their coefficients on the existing rows.

        Parameters
        ----------
        cost : array-like of shape (k,)
            Objective coefficients.
        lower, upper : float or array-like of shape (k,), default 0 and inf
            Column bounds.
        A : scipy.sparse matrix or ndarray of shape (n_rows, k), optional
            The column block over the existing rows (or give CSC ``starts``, ``indices``,
            ``values``; ``starts`` may have k or k + 1 entries).
        integer : bool or array-like of bool, default False

        Returns
        -------
        numpy.ndarray
            Indices of the new columns.
        """
        c = np.atleast_1d(np.asarray(cost, dtype=float))
        if c.ndim != 1:
            raise InputError(f"cost must be 1-D, got shape {c.shape}")
        k = c.shape[0]
        c = _vec("cost", c, k, allow_inf=False)
        lo = _vec("lower", lower, k, allow_inf=True)
        hi = _vec("upper", upper, k, allow_inf=True)
        if np.any(lo > hi):
            raise InputError(f"column lower bound above upper bound at new column(s) {np.flatnonzero(lo > hi)[:5].tolist()}")
        integ = np.asarray(integer, dtype=bool)
        integ = np.full(k, bool(integ)) if integ.ndim == 0 else integ
        if integ.shape != (k,):
            raise InputError(f"integer must be a bool or have shape ({k},), got {integ.shape}")
        s, i, v = _block(A, starts, indices, values, k, self._n_rows, by="col")
        if integ.any():
            self._check_integer_ok()
        self._add_cols(c, lo, hi, s, i, v, integ)
        first = self._n_cols
        self._n_cols += k
        self._integer = np.concatenate([self._integer, integ])
        return np.arange(first, self._n_cols, dtype=np.int32)

    def set_costs(self, idx, values) -> None:
        """Change objective coefficients of columns ``idx``."""
        ix = _idx("idx", idx, self._n_cols)
        self._set_costs(ix, _vec("values", values, ix.size, allow_inf=False))

    def set_bounds(self, idx, lower, upper) -> None:
        """Change bounds of columns ``idx``."""
        ix = _idx("idx", idx, self._n_cols)
        self._set_bounds(ix, *_bounds(lower, upper, ix.size))

    def set_row_bounds(self, idx, lower, upper) -> None:
        """Change bounds of rows ``idx``."""
        ix = _idx("idx", idx, self._n_rows)
        self._set_row_bounds(ix, *_bounds(lower, upper, ix.size))

    def set_integrality(self, idx, integer) -> None:
        """Make columns ``idx`` integer (True) or continuous (False)."""
        ix = _idx("idx", idx, self._n_cols)
        flags = np.asarray(integer, dtype=bool)
        flags = np.full(ix.size, bool(flags)) if flags.ndim == 0 else flags
        if flags.shape != (ix.size,):
            raise InputError(f"integer must be a bool or have shape ({ix.size},)")
        if flags.any():
            self._check_integer_ok()
        self._set_integrality(ix, flags)
        self._integer[ix] = flags

    def set_objective_offset(self, offset: float) -> None:
        """Set the constant term of the objective."""
        if not math.isfinite(float(offset)):
            raise InputError(f"offset must be finite, got {offset!r}")
        self._set_offset(float(offset))

    def set_start(self, x, idx=None) -> None:
        """MIP start for the next solve: full vector ``x`` (n_cols,), or values ``x`` at columns ``idx``."""
        if idx is None:
            vals = _vec("x", x, self._n_cols, allow_inf=False)
            ix = np.arange(self._n_cols, dtype=np.int32)
        else:
            ix = _idx("idx", idx, self._n_cols)
            vals = _vec("x", x, ix.size, allow_inf=False)
        self._start = (ix, vals)

    # -- solving ----------------------------------------------------------------------
    _presolve: bool | None = None

    def solve(self, settings: SolveSettings | None = None, *, duals: bool = True,
              presolve: bool | None = None) -> SolveResult:
        """Solve the current model (warm-started) and return a result with ``x``, ``duals``, ``reduced_costs``.

        With a time limit on a MILP, a wall-clock guard of our own interrupts the solver
        when it runs past the limit (noted in ``message``); the best incumbent is returned
        with status ``feasible``. ``presolve`` asks a backend that has a presolve switch to
        turn it on or off for this solve (``None``: its default); an option of the same
        name in ``settings.options`` wins over it.
        """
        from interpretopt.solvers._base import _as_settings

        from interpretopt.solvers._base import _lookup
        from interpretopt.solvers._types import check_work_limits

        settings = _as_settings(settings)
        backend = _lookup(self.solver)
        if backend is not None:
            check_work_limits(settings, self.solver, backend.capabilities)
        self._presolve = presolve
        t0 = time.perf_counter()
        res = self._solve(settings, duals)
        res.wall_time = time.perf_counter() - t0
        return res

    # -- programs and the Pyomo bridge ----------------------------------------------------
    @classmethod
    def from_lp(cls, lp, solver: str = "highs") -> IncrementalModel:
        """Load a :class:`~interpretopt._lp.LinearProgram` (rows, columns, integrality, offset) into a
        new incremental model held by ``solver``; columns and rows keep the program's order."""
        inc = make_incremental(solver, sense=lp.sense)
        inc.add_rows(lp.row_lower, lp.row_upper)
        inc.add_columns(lp.c, lp.col_lower, lp.col_upper, A=lp.A.tocsc(), integer=lp.integrality)
        if lp.offset:
            inc.set_objective_offset(lp.offset)
        return inc

    @classmethod
    def from_pyomo(cls, model, solver: str = "highs") -> IncrementalModel:
        """Translate a linear Pyomo model (via :func:`to_matrix_form`) into an incremental model.

        Columns and rows keep the order of ``inc.matrix_form.variables`` / ``.constraints``;
        :meth:`load_solution` writes a result back into the Pyomo model.
        """
        from interpretopt.solvers._matrix import to_matrix_form

        mf = to_matrix_form(model)
        inc = cls.from_lp(mf, solver)
        inc.matrix_form = mf
        inc.pyomo_model = model
        return inc

    def load_solution(self, result: SolveResult, *, duals: bool = True) -> None:
        """Write ``result.x`` into the Pyomo variables (and duals into ``model.dual``) of the source model."""
        if self.matrix_form is None:
            raise InputError("this model was not built by IncrementalModel.from_pyomo; there is no Pyomo model to load into")
        mf = self.matrix_form
        if result.x is None:
            return
        if result.x.shape[0] != mf.n_cols:
            raise InputError(f"columns were added after from_pyomo ({result.x.shape[0]} vs {mf.n_cols}); "
                             "only the original columns map back to Pyomo variables")
        mf.load_primal(result.x)
        if duals and result.duals is not None:
            mf.load_duals(self.pyomo_model, result.duals[: mf.n_rows])

    # -- backend hooks ----------------------------------------------------------------
    def _check_integer_ok(self) -> None:
        pass

    def _add_rows(self, lo, hi, s, i, v) -> None:  # pragma: no cover
        raise NotImplementedError

    def _add_cols(self, c, lo, hi, s, i, v, integ) -> None:  # pragma: no cover
        raise NotImplementedError

    def _set_costs(self, ix, vals) -> None:  # pragma: no cover
        raise NotImplementedError

    def _set_bounds(self, ix, lo, hi) -> None:  # pragma: no cover
        raise NotImplementedError

    def _set_row_bounds(self, ix, lo, hi) -> None:  # pragma: no cover
        raise NotImplementedError

    def _set_integrality(self, ix, flags) -> None:  # pragma: no cover
        raise NotImplementedError

    def _set_offset(self, offset) -> None:  # pragma: no cover
        raise NotImplementedError

    def _solve(self, settings, duals) -> SolveResult:  # pragma: no cover
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<IncrementalModel {self.solver} {self.sense} rows={self._n_rows} cols={self._n_cols}>"


# ----------------------------------------------------------------------------------------
# HiGHS (highspy)


def _option_value(got):
    """highspy's getOptionValue returns (status, value) in recent versions, the value in older ones."""
    return got[1] if isinstance(got, tuple) and len(got) == 2 else got


_HIGHS_THREADS: list[int | None] = [None]  # thread count HiGHS' global scheduler was last started with


def prepare_highs_threads(threads: int | None) -> None:
    """Restart HiGHS' process-wide thread scheduler when a solve asks for a different thread count.

    HiGHS refuses to run when the ``threads`` option differs from the count its global
    scheduler started with; the scheduler is reset (between solves) so the request is honoured.
    """
    if threads is None:
        return
    if threads != _HIGHS_THREADS[0]:
        import highspy

        highspy.Highs.resetGlobalScheduler(True)
        _HIGHS_THREADS[0] = threads


_HIGHS_BANNER_SEEN = False


def _new_highs(highspy: Any) -> Any:
    """A ``Highs`` object, without the copyright banner HiGHS writes to stdout at its first construction.

    The banner is written by the C++ library before any option can be set, so the first
    construction in a process runs with file descriptor 1 pointed at /dev/null.
    """
    global _HIGHS_BANNER_SEEN
    if _HIGHS_BANNER_SEEN:
        return highspy.Highs()
    _HIGHS_BANNER_SEEN = True
    import os
    import sys

    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError, AttributeError):  # no real stdout (e.g. some notebook kernels)
        return highspy.Highs()
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 1)
            return highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _highs_statuses(M) -> dict:
    """HiGHS' one status map (``HighsModelStatus`` -> :class:`SolveStatus`, see :func:`map_status`)."""
    St = SolveStatus
    limit = (St.FEASIBLE, St.LIMIT)
    table = {M.kOptimal: St.OPTIMAL, M.kModelEmpty: St.OPTIMAL, M.kInfeasible: St.INFEASIBLE,
             M.kUnbounded: St.UNBOUNDED, M.kUnboundedOrInfeasible: St.INFEASIBLE_OR_UNBOUNDED,
             M.kTimeLimit: (St.FEASIBLE, St.TIME_LIMIT)}
    table.update({c: limit for c in (M.kIterationLimit, M.kObjectiveBound, M.kObjectiveTarget, M.kInterrupt,
                                      getattr(M, "kSolutionLimit", M.kIterationLimit))})
    table.update({c: St.ERROR for c in (M.kLoadError, M.kModelError, M.kPresolveError, M.kSolveError,
                                         M.kPostsolveError)})
    return table


class _HighsIncremental(IncrementalModel):
    solver = "highs"

    def __init__(self, sense: str = "min") -> None:
        super().__init__(sense)
        highspy = require("highspy", "highspy")
        self._hs = highspy
        h = _new_highs(highspy)
        h.setOptionValue("output_flag", False)
        if sense == "max":
            h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self._h = h
        self._defaults: dict[str, Any] = {}
        self._current: dict[str, Any] = {}
        self._deadline: float | None = None
        self._guard_subscribed = False
        self._offset = 0.0
        self._set_keys: set[str] = set()
        self._version = f"{h.versionMajor()}.{h.versionMinor()}.{h.versionPatch()}"

    @property
    def highs(self):
        """The underlying ``highspy.Highs`` object (for advanced use)."""
        return self._h

    def _add_rows(self, lo, hi, s, i, v):
        self._h.addRows(lo.size, lo, hi, i.size, s, i, v)

    def _add_cols(self, c, lo, hi, s, i, v, integ):
        k = c.size
        self._h.addCols(k, c, lo, hi, i.size, s, i, v)
        if integ.any():
            ix = (self._n_cols + np.flatnonzero(integ)).astype(np.int32)
            self._h.changeColsIntegrality(ix.size, ix, np.ones(ix.size, dtype=np.uint8))

    def _set_costs(self, ix, vals):
        self._h.changeColsCost(ix.size, ix, vals)

    def _set_bounds(self, ix, lo, hi):
        self._h.changeColsBounds(ix.size, ix, lo, hi)

    def _set_row_bounds(self, ix, lo, hi):
        self._h.changeRowsBounds(ix.size, ix, lo, hi)

    def _set_integrality(self, ix, flags):
        self._h.changeColsIntegrality(ix.size, ix, flags.astype(np.uint8))

    def _set_offset(self, offset):
        self._h.changeObjectiveOffset(offset)
        self._offset = offset

    def _set_option(self, key: str, value) -> None:
        h = self._h
        if key not in self._defaults:
            try:
                self._defaults[key] = _option_value(h.getOptionValue(key))
            except Exception:
                raise SolverError(f"HiGHS has no option {key!r}") from None
        status = h.setOptionValue(key, value)
        if status == self._hs.HighsStatus.kError:
            raise SolverError(f"HiGHS rejected option {key}={value!r}")
        self._set_keys.add(key)

    def _apply_settings(self, settings: SolveSettings) -> dict[str, Any]:
        from interpretopt.solvers._base import PYOMO_SOLVER_NAMES, SOLVERS

        wanted: dict[str, Any] = {
            "time_limit": float(settings.time_limit) if settings.time_limit is not None else math.inf,
            "random_seed": int(settings.seed),
            "output_flag": bool(settings.verbose),
        }
        if settings.mip_gap is not None:
            wanted["mip_rel_gap"] = float(settings.mip_gap)
        if settings.node_limit is not None:
            wanted["mip_max_nodes"] = int(settings.node_limit)
        if settings.iteration_limit is not None:
            wanted["simplex_iteration_limit"] = int(settings.iteration_limit)
        if settings.threads is not None:
            wanted["threads"] = int(settings.threads)
        if self._presolve is not None:
            wanted["presolve"] = "on" if self._presolve else "off"
        names = frozenset(SOLVERS.names()) | frozenset(PYOMO_SOLVER_NAMES) | {"highs_direct"}
        opts = settings.options_for("highs", names)
        opts.update(settings.options_for("highs_direct", names) if "highs_direct" in settings.options else {})
        wanted.update(opts)
        # options set by an earlier solve and not wanted now go back to their defaults
        for key in list(self._set_keys):
            if key not in wanted and key in self._defaults:
                self._h.setOptionValue(key, self._defaults[key])
                self._set_keys.discard(key)
                self._current.pop(key, None)
        for key, value in wanted.items():
            if key in self._current and self._current[key] == value and type(self._current[key]) is type(value):
                continue
            self._set_option(key, value)
            self._current[key] = value
        return wanted

    def _guard_callback(self, event) -> None:
        # set the flag explicitly on every call: HiGHS keeps a raised flag for later solves
        event.interrupt(self._deadline is not None and _clock.monotonic() > self._deadline)

    def _run(self, guard_seconds: float | None) -> bool:
        """Run HiGHS; with ``guard_seconds`` interrupt it ourselves after that many seconds. True when interrupted."""
        h = self._h
        if guard_seconds is None:
            self._deadline = None
            h.run()
            return False
        if not self._guard_subscribed:
            h.cbMipInterrupt.subscribe(self._guard_callback)
            self._guard_subscribed = True
        self._deadline = _clock.monotonic() + guard_seconds
        try:
            h.run()
        finally:
            fired = _clock.monotonic() > self._deadline
            self._deadline = None
        return fired and h.getModelStatus() == self._hs.HighsModelStatus.kInterrupt

    def _mip_feasibility_check(self, ms):
        """Tell "infeasible" from "unbounded" by solving with a zero objective (then restore)."""
        h, hs = self._h, self._hs
        n = self._n_cols
        lp = h.getLp()
        costs = np.asarray(lp.col_cost_, dtype=float)
        ix = np.arange(n, dtype=np.int32)
        h.changeColsCost(n, ix, np.zeros(n))
        h.run()
        check = h.getModelStatus()
        feasible = h.getInfo().primal_solution_status == 2
        h.changeColsCost(n, ix, costs)
        M, St = hs.HighsModelStatus, SolveStatus
        verdict = tell_infeasible_from_unbounded(
            St.FEASIBLE if feasible else St.INFEASIBLE if check == M.kInfeasible else St.UNKNOWN)
        return {St.UNBOUNDED: M.kUnbounded, St.INFEASIBLE: M.kInfeasible}.get(verdict, ms)

    def _solve(self, settings, duals):
        hs = self._hs
        h = self._h
        wanted = self._apply_settings(settings)
        mip = self.is_mip
        if mip and self._start is not None:
            ix, vals = self._start
            h.setSolution(ix.size, ix, vals)
        self._start = None
        # our own guard follows the common time limit (HiGHS's own limit may be overridden in options)
        tl = settings.time_limit if settings.time_limit is not None else wanted.get("time_limit", math.inf)
        guard = guard_after(tl) if (mip and math.isfinite(tl)) else None
        prepare_highs_threads(wanted.get("threads"))
        t0 = time.perf_counter()
        interrupted = self._run(guard)
        ms = h.getModelStatus()
        if ms == hs.HighsModelStatus.kNotset:
            raise SolverError("HiGHS refused to run (model status 'not set'); check the options "
                              f"{ {k: v for k, v in wanted.items() if k != 'output_flag'} }")
        if ms == hs.HighsModelStatus.kUnboundedOrInfeasible and not mip:
            # presolve could not tell which: ask the simplex without presolve
            old = _option_value(h.getOptionValue("presolve"))
            h.setOptionValue("presolve", "off")
            h.run()
            h.setOptionValue("presolve", old)
            ms = h.getModelStatus()
        if ms == hs.HighsModelStatus.kUnboundedOrInfeasible and mip:
            ms = self._mip_feasibility_check(ms)
        solve_time = time.perf_counter() - t0
        info = h.getInfo()
        sol = h.getSolution()
        has_sol = info.primal_solution_status == 2 and sol.value_valid
        M = hs.HighsModelStatus
        code = M.kTimeLimit if (interrupted and ms == M.kInterrupt) else ms
        status = map_status(code, _highs_statuses(M), has_sol)
        has_sol = ms == M.kModelEmpty or (has_sol and status.has_solution)
        message = h.modelStatusToString(ms)
        if interrupted:
            message += (f"; HiGHS ran past its time limit of {tl:g} s and was interrupted by the wall-clock "
                        f"guard after {solve_time:.2f} s")
        x = y = rc = None
        objective = bound = None
        if has_sol:
            if ms == M.kModelEmpty:
                x = np.zeros(self._n_cols)
                objective = self._offset
            else:
                x = np.asarray(sol.col_value, dtype=float) + 0.0  # no negative zeros
                objective = float(info.objective_function_value)
            if mip:
                b = float(info.mip_dual_bound)
                bound = b if math.isfinite(b) else None
                if status is SolveStatus.OPTIMAL and bound is None:
                    bound = objective
            elif status is SolveStatus.OPTIMAL:
                bound = objective
            if not mip and sol.dual_valid and duals:
                y = np.asarray(sol.row_dual, dtype=float) + 0.0
                rc = np.asarray(sol.col_dual, dtype=float) + 0.0
        res_info = {
            "simplex_iterations": int(info.simplex_iteration_count),
            "mip_nodes": int(info.mip_node_count) if mip else 0,
        }
        if interrupted:
            res_info["guard_interrupted"] = True
        return SolveResult(status=status, objective=objective, bound=bound, gap=relative_gap(objective, bound),
                           solver=self.solver, version=self._version, message=message,
                           termination=str(ms.name) if hasattr(ms, "name") else str(ms), solve_time=solve_time,
                           x=x, duals=y, reduced_costs=rc, info=res_info,
                           limited_by_time=bool(interrupted or code == M.kTimeLimit))


# ----------------------------------------------------------------------------------------
# OR-Tools GLOP (pywraplp keeps the solver object and its basis between solves)


class _GlopIncremental(IncrementalModel):
    solver = "ortools_glop"

    def __init__(self, sense: str = "min") -> None:
        super().__init__(sense)
        pywraplp = require("ortools.linear_solver.pywraplp", "ortools")
        s = pywraplp.Solver.CreateSolver("GLOP")
        if s is None:  # pragma: no cover
            raise SolverError("OR-Tools was built without GLOP")
        self._pw = pywraplp
        self._s = s
        self._inf = s.infinity()
        self._rows: list = []
        self._cols: list = []
        self._costs: list[float] = []
        self._obj = s.Objective()
        if sense == "max":
            self._obj.SetMaximization()
        else:
            self._obj.SetMinimization()

    def _check_integer_ok(self) -> None:
        raise SolverError("ortools_glop solves LPs only; use make_incremental('highs') for integer columns")

    def _b(self, a: np.ndarray) -> list[float]:
        return np.clip(a, -self._inf, self._inf).tolist()

    def _add_rows(self, lo, hi, s, i, v):
        lo_l, hi_l = self._b(lo), self._b(hi)
        new = [self._s.Constraint(a, b) for a, b in zip(lo_l, hi_l)]
        if i.size:
            ends = np.append(s[1:], i.size).tolist()
            cols = self._cols
            for r, (a, b) in enumerate(zip(s.tolist(), ends)):
                ct = new[r]
                for j, val in zip(i[a:b].tolist(), v[a:b].tolist()):
                    ct.SetCoefficient(cols[j], val)
        self._rows.extend(new)

    def _add_cols(self, c, lo, hi, s, i, v, integ):
        lo_l, hi_l = self._b(lo), self._b(hi)
        solver, obj, rows = self._s, self._obj, self._rows
        ends = np.append(s[1:], i.size).tolist() if s.size else []
        idx_l, val_l = i.tolist(), v.tolist()
        for j, (a, b) in enumerate(zip(s.tolist(), ends)):
            var = solver.NumVar(lo_l[j], hi_l[j], "")
            obj.SetCoefficient(var, float(c[j]))
            for r, val in zip(idx_l[a:b], val_l[a:b]):
                rows[r].SetCoefficient(var, val)
            self._cols.append(var)
        self._costs.extend(c.tolist())

    def _set_costs(self, ix, vals):
        for j, val in zip(ix.tolist(), vals.tolist()):
            self._obj.SetCoefficient(self._cols[j], val)
            self._costs[j] = val

    def _set_bounds(self, ix, lo, hi):
        for j, a, b in zip(ix.tolist(), self._b(lo), self._b(hi)):
            self._cols[j].SetBounds(a, b)

    def _set_row_bounds(self, ix, lo, hi):
        for r, a, b in zip(ix.tolist(), self._b(lo), self._b(hi)):
            self._rows[r].SetBounds(a, b)

    def _set_integrality(self, ix, flags):
        pass  # only reached with all-False flags (integer is refused earlier)

    def _set_offset(self, offset):
        self._obj.SetOffset(offset)

    def _solve(self, settings, duals):
        from interpretopt.solvers._base import PYOMO_SOLVER_NAMES, SOLVERS
        from interpretopt.solvers._ortools import _proto_value, ortools_version

        pw, s = self._pw, self._s
        opts = settings.options_for("ortools_glop", frozenset(SOLVERS.names()) | frozenset(PYOMO_SOLVER_NAMES))
        tl = opts.pop("time_limit", settings.time_limit)
        s.SetTimeLimit(int(math.ceil(float(tl) * 1000)) if tl is not None else 0)
        if settings.verbose:
            s.EnableOutput()
        else:
            s.SuppressOutput()
        params = {"random_seed": int(settings.seed)}
        if settings.iteration_limit is not None:
            params["max_number_of_iterations"] = int(settings.iteration_limit)
        raw = opts.pop("parameters_string", "")
        params.update(opts)
        text = " ".join(f"{k}: {_proto_value(val)}" for k, val in params.items())
        if raw:
            text += " " + raw
        if not s.SetSolverSpecificParametersAsString(text):
            raise SolverError(f"GLOP rejected the parameters {text!r}")
        t0 = time.perf_counter()
        code = s.Solve()
        if code == pw.Solver.INFEASIBLE:
            # GLOP says "infeasible" for "infeasible or unbounded": a zero objective tells which
            for var in self._cols:
                self._obj.SetCoefficient(var, 0.0)
            check = s.Solve()
            for var, cj in zip(self._cols, self._costs):
                self._obj.SetCoefficient(var, cj)
            found = SolveStatus.FEASIBLE if check in (pw.Solver.OPTIMAL, pw.Solver.FEASIBLE) else SolveStatus.UNKNOWN
            if tell_infeasible_from_unbounded(found) is SolveStatus.UNBOUNDED:
                code = pw.Solver.UNBOUNDED
        solve_time = time.perf_counter() - t0
        names = {pw.Solver.OPTIMAL: "OPTIMAL", pw.Solver.FEASIBLE: "FEASIBLE", pw.Solver.INFEASIBLE: "INFEASIBLE",
                 pw.Solver.UNBOUNDED: "UNBOUNDED", pw.Solver.ABNORMAL: "ABNORMAL", pw.Solver.NOT_SOLVED: "NOT_SOLVED",
                 pw.Solver.MODEL_INVALID: "MODEL_INVALID"}
        has_sol = code in (pw.Solver.OPTIMAL, pw.Solver.FEASIBLE)
        if code == pw.Solver.MODEL_INVALID:
            raise SolverError("GLOP reports the model as invalid (check for NaN or inconsistent bounds)")
        St = SolveStatus
        status = map_status(code, {pw.Solver.OPTIMAL: St.OPTIMAL, pw.Solver.FEASIBLE: St.FEASIBLE,
                                   pw.Solver.INFEASIBLE: St.INFEASIBLE, pw.Solver.UNBOUNDED: St.UNBOUNDED,
                                   pw.Solver.NOT_SOLVED: St.TIME_LIMIT if tl is not None else St.LIMIT},
                            has_sol, default=St.ERROR)
        x = y = rc = None
        objective = bound = None
        if has_sol:
            x = np.fromiter((var.solution_value() for var in self._cols), dtype=float, count=len(self._cols))
            objective = float(self._obj.Value())
            if status is SolveStatus.OPTIMAL:
                bound = objective
            if duals:
                y = np.fromiter((ct.dual_value() for ct in self._rows), dtype=float, count=len(self._rows))
                rc = np.fromiter((var.reduced_cost() for var in self._cols), dtype=float, count=len(self._cols))
        name = names.get(code, str(code))
        return SolveResult(status=status, objective=objective, bound=bound, gap=relative_gap(objective, bound),
                           solver=self.solver, version=ortools_version(), message=name,
                           termination=name, solve_time=solve_time, x=x, duals=y, reduced_costs=rc,
                           info={"iterations": int(s.iterations())},
                           limited_by_time=tl is not None and code == pw.Solver.NOT_SOLVED
                           and not (settings.iteration_limit is not None
                                    and int(s.iterations()) >= int(settings.iteration_limit)))


# the incremental model of each backend that declares ``Capabilities.incremental``: one
# registration, in the registry (``SolverBackend.incremental_model``)
def _attach() -> None:
    """Attach the incremental models to their backends; called once the package has registered them."""
    from interpretopt.solvers._base import SOLVERS

    for name, cls in (("highs", _HighsIncremental), ("highs_direct", _HighsIncremental),
                      ("ortools_glop", _GlopIncremental)):
        SOLVERS.get(name).incremental_model = cls
    INCREMENTAL_SOLVERS.clear()
    for name in SOLVERS.names():
        backend = SOLVERS.get(name)
        if backend.capabilities.incremental:
            if getattr(backend, "incremental_model", None) is None:
                raise SolverError(f"solver {name!r} declares an incremental model but registers none")
            INCREMENTAL_SOLVERS[name] = backend.incremental_model


#: a view of the registry: backends with ``Capabilities.incremental`` and their model class
INCREMENTAL_SOLVERS: dict[str, type[IncrementalModel]] = {}


def make_incremental(solver: str = "highs", sense: str = "min") -> IncrementalModel:
    """An empty :class:`IncrementalModel` held by ``solver``, a backend with ``Capabilities.incremental``.

    Parameters
    ----------
    solver : str, default "highs"
        ``"highs"`` / ``"highs_direct"`` (highspy), ``"ortools_glop"``, or any backend
        registered later with an ``incremental_model``.
    sense : {"min", "max"}, default "min"
    """
    from interpretopt.solvers._base import _lookup

    backend = _lookup(solver) if isinstance(solver, str) and solver else None
    model = getattr(backend, "incremental_model", None) if backend is not None else None
    if backend is None or not backend.capabilities.incremental or model is None:
        from interpretopt.solvers._base import SOLVERS

        names = [n for n in SOLVERS.names() if SOLVERS.get(n).capabilities.incremental]
        raise UnknownNameError("incremental solver", solver, sorted(names))
    inc = model(sense)
    inc.solver = backend.name  # results name the backend asked for (``highs`` or ``highs_direct``), not the class
    return inc
