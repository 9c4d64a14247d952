"""Polytopes ``{x : C x <= b}``: the leaves of trees with oblique (hyperplane) splits.

A MTRE-PAN leaf is the conjunction of the half-spaces on its root path; each split
``w . x + w0 <= 0`` adds the row ``C_i = w``, ``b_i = -w0`` (its other side ``-w . x < w0``
is stored as ``-w . x <= w0``).

Besides membership, a polytope answers small linear programs about itself (solved with
scipy's HiGHS, so that this layer needs no solver registry): its exact bounding box
(:meth:`Polytope.bounds`, ``2 d`` LPs), a Chebyshev centre (:meth:`Polytope.chebyshev_center`),
and its minimal description (:meth:`Polytope.minimal`: every row implied by the others is
removed). :meth:`Polytope.render` prints axis-aligned rows as intervals ``lo <= x <= hi`` and
the others as inequalities; :meth:`Polytope.to_dict` / :meth:`Polytope.from_dict` export it.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from interpretopt.exceptions import InputError
from interpretopt.rules._condition import as_matrix, feature_name, format_value

__all__ = ["Polytope"]


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float, copy=True)
    a.setflags(write=False)
    return a


def _as_points(X: Any) -> np.ndarray:
    """Points as a float array; non-numeric input raises :class:`InputError`."""
    try:
        return np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"polytope points must be numeric: {exc}") from None


@dataclass(frozen=True, eq=False)
class Polytope:
    """The set ``{x in R^d : C x <= b}``.

    Parameters
    ----------
    C : array-like (m, d)
        One row per linear inequality; ``m = 0`` (shape ``(0, d)``) is the whole space.
    b : array-like (m,)

    Examples
    --------
    >>> P = Polytope.bounding_box([0, 0], [1, 2])
    >>> P.contains([[0.5, 1.0], [2.0, 0.0]]).tolist()
    [True, False]
    """

    C: np.ndarray
    b: np.ndarray

    def __post_init__(self) -> None:
        try:
            C = np.asarray(self.C, dtype=float)
            b = np.asarray(self.b, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InputError(f"Polytope C and b must be numeric arrays: {exc}") from None
        if C.ndim != 2:
            raise InputError(f"Polytope C must be 2-D (m constraints, d features), got shape {C.shape}; "
                             "use np.empty((0, d)) for no constraints")
        if b.ndim == 0:
            b = b.reshape(1)
        if b.ndim != 1 or b.shape[0] != C.shape[0]:
            raise InputError(f"Polytope C has shape {C.shape} but b has shape {b.shape}; b needs one entry per row of C "
                             f"({C.shape[0]})")
        if not np.isfinite(C).all():
            raise InputError("Polytope C contains NaN or infinite coefficients")
        if np.isnan(b).any():
            raise InputError("Polytope b contains NaN")
        object.__setattr__(self, "C", _frozen(C))
        object.__setattr__(self, "b", _frozen(b))

    # -- construction
    @classmethod
    def universe(cls, d: int) -> Polytope:
        """The whole space R^d (no constraints)."""
        return cls(np.empty((0, int(d))), np.empty(0))

    @classmethod
    def bounding_box(cls, lo: Any, hi: Any) -> Polytope:
        """The box ``lo <= x <= hi`` as ``2 d`` rows (infinite bounds are skipped)."""
        lo = np.asarray(lo, dtype=float).ravel()
        hi = np.asarray(hi, dtype=float).ravel()
        if lo.shape != hi.shape:
            raise InputError(f"bounding_box: lo has {lo.size} entries but hi has {hi.size}")
        if (lo > hi).any():
            j = int(np.nonzero(lo > hi)[0][0])
            raise InputError(f"bounding_box: lo[{j}] = {lo[j]} exceeds hi[{j}] = {hi[j]}")
        d = lo.size
        eye = np.eye(d)
        rows, rhs = [], []
        for j in range(d):
            if np.isfinite(hi[j]):
                rows.append(eye[j]); rhs.append(hi[j])
            if np.isfinite(lo[j]):
                rows.append(-eye[j]); rhs.append(-lo[j])
        C = np.array(rows, dtype=float).reshape(-1, d)
        return cls(C, np.array(rhs, dtype=float))

    def add(self, c: Any, b: float) -> Polytope:
        """A new polytope with the inequality ``c . x <= b`` appended."""
        c = np.asarray(c, dtype=float).ravel()
        if c.shape[0] != self.dim:
            raise InputError(f"Polytope.add: c has {c.shape[0]} coefficients but the polytope lives in R^{self.dim}")
        if not isinstance(b, numbers.Real) and np.ndim(b) != 0:
            raise InputError(f"Polytope.add: b must be a scalar, got shape {np.shape(b)}")
        return Polytope(np.vstack([self.C, c[None, :]]), np.append(self.b, float(b)))

    def intersect(self, other: Polytope) -> Polytope:
        """The intersection (rows of both)."""
        if other.dim != self.dim:
            raise InputError(f"cannot intersect polytopes in R^{self.dim} and R^{other.dim}")
        return Polytope(np.vstack([self.C, other.C]), np.concatenate([self.b, other.b]))

    def __and__(self, other: Polytope) -> Polytope:
        return self.intersect(other)

    # -- value semantics
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Polytope):
            return NotImplemented
        return self.C.shape == other.C.shape and np.array_equal(self.C, other.C) and np.array_equal(self.b, other.b)

    def __hash__(self) -> int:
        return hash((self.C.shape, self.C.tobytes(), self.b.tobytes()))

    def __repr__(self) -> str:
        return f"Polytope(m={self.n_constraints}, d={self.dim})"

    @property
    def dim(self) -> int:
        """Dimension d of the space."""
        return self.C.shape[1]

    @property
    def n_constraints(self) -> int:
        """Number m of inequalities."""
        return self.C.shape[0]

    def __len__(self) -> int:
        return self.n_constraints

    # -- evaluation
    def contains(self, X: Any, tol: float = 1e-9) -> np.ndarray:
        """Boolean (n,): rows ``x`` of ``X`` with ``C x <= b + tol``; a 1-D ``X`` is one point."""
        X = _as_points(X)
        single = X.ndim == 1
        if single:
            X = X.reshape(1, -1)
        X = as_matrix(X)
        if X.shape[1] != self.dim:
            raise InputError(f"X has {X.shape[1]} columns but the polytope lives in R^{self.dim}")
        if self.n_constraints == 0:
            out = np.ones(X.shape[0], dtype=bool)
        else:
            out = (X @ self.C.T <= self.b + tol).all(axis=1)
        return out

    evaluate = contains

    def slack(self, X: Any) -> np.ndarray:
        """``b - C x`` per point and row, (n, m); negative entries are violated inequalities."""
        X = _as_points(X)
        if X.ndim == 1:
            X = X.reshape(1, -1)
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise InputError(f"X must have shape (n, {self.dim}) for a polytope in R^{self.dim}, got {X.shape}")
        return self.b - X @ self.C.T

    # -- linear programs about the polytope
    @staticmethod
    def _bounds_list(lo: Any, hi: Any, d: int) -> list[tuple[float | None, float | None]]:
        lo = np.full(d, -np.inf) if lo is None else np.broadcast_to(np.asarray(lo, dtype=float), (d,))
        hi = np.full(d, np.inf) if hi is None else np.broadcast_to(np.asarray(hi, dtype=float), (d,))
        return [(None if not np.isfinite(a) else float(a), None if not np.isfinite(c) else float(c))
                for a, c in zip(lo, hi)]

    def bounds(self, lo: Any = None, hi: Any = None) -> tuple[np.ndarray, np.ndarray] | None:
        """Exact bounding box of ``{x : C x <= b, lo <= x <= hi}`` by ``2 d`` LPs.

        Returns ``(lower, upper)`` (entries may be infinite when the set is unbounded in
        that direction), or ``None`` when the set is empty.
        """
        from scipy.optimize import linprog  # local: keeps `import interpretopt.rules` light

        d = self.dim
        bnds = self._bounds_list(lo, hi, d)
        A = self.C if self.n_constraints else None
        rhs = self.b if self.n_constraints else None
        out_lo, out_hi = np.empty(d), np.empty(d)
        for j in range(d):
            for sign, store in ((1.0, out_lo), (-1.0, out_hi)):
                c = np.zeros(d)
                c[j] = sign
                res = linprog(c, A_ub=A, b_ub=rhs, bounds=bnds, method="highs")
                if res.status == 2:
                    return None
                if res.status == 3:
                    store[j] = -np.inf * sign
                elif res.status == 0:
                    store[j] = float(res.x[j])
                else:
                    raise RuntimeError(f"polytope bounding-box LP failed: {res.message}")
        return out_lo, np.maximum(out_hi, out_lo)

    def propagate_bounds(self, lo: Any, hi: Any, passes: int = 20, tol: float = 1e-12
                         ) -> tuple[np.ndarray, np.ndarray] | None:
        """A box containing ``{x : C x <= b, lo <= x <= hi}``, shrunk by bound propagation (no LP).

        Each row ``c . x <= b`` bounds every ``x_j`` with ``c_j != 0`` by what the other
        coordinates' current bounds leave: ``c_j x_j <= b - sum_{k != j} min_box(c_k x_k)``.
        Repeated ``passes`` times (or until nothing moves), this is the interval
        constraint propagation of MILP presolvers: every point of the set stays in the box,
        which is never larger than ``[lo, hi]`` and is often much smaller for thin axis-near
        cells; it is not always the exact bounding box (:meth:`bounds` is). Returns ``None``
        when the propagation proves the set empty.
        """
        lo = np.array(np.broadcast_to(np.asarray(lo, dtype=float), (self.dim,)))
        hi = np.array(np.broadcast_to(np.asarray(hi, dtype=float), (self.dim,)))
        if (lo > hi).any():
            return None
        C, b = self.C, self.b
        if C.shape[0] == 0:
            return lo, hi
        pos, neg = C > 0, C < 0
        with np.errstate(invalid="ignore", divide="ignore"):
            for _ in range(int(passes)):
                mins = np.where(pos, C * lo, np.where(neg, C * hi, 0.0))  # (m, d): min of c_k x_k on the box
                total = mins.sum(axis=1)
                if (total > b + tol * (1.0 + np.abs(b))).any():
                    return None
                rest = (b - total)[:, None] + mins  # b - sum_{k != j} min(c_k x_k)
                cand = rest / np.where(C != 0, C, np.nan)
                new_hi = np.nanmin(np.where(pos, cand, np.nan), axis=0, initial=np.inf)
                new_lo = np.nanmax(np.where(neg, cand, np.nan), axis=0, initial=-np.inf)
                nlo, nhi = np.maximum(lo, new_lo), np.minimum(hi, new_hi)
                if (nlo > nhi + tol * (1.0 + np.abs(nhi))).any():
                    return None
                nhi = np.maximum(nhi, nlo)
                moved = np.any(nlo > lo + 1e-12 * (1.0 + np.abs(lo))) or np.any(nhi < hi - 1e-12 * (1.0 + np.abs(hi)))
                lo, hi = nlo, nhi
                if not moved:
                    break
        return lo, hi

    def chebyshev_center(self, lo: Any = None, hi: Any = None) -> tuple[np.ndarray, float] | None:
        """Centre and radius of the largest ball inside ``{x : C x <= b, lo <= x <= hi}`` (one LP).

        Returns ``None`` when the set is empty; the radius is 0 for a set without interior
        and ``inf`` for one that contains arbitrarily large balls.
        """
        from scipy.optimize import linprog

        d = self.dim
        lo_a = np.full(d, -np.inf) if lo is None else np.broadcast_to(np.asarray(lo, dtype=float), (d,))
        hi_a = np.full(d, np.inf) if hi is None else np.broadcast_to(np.asarray(hi, dtype=float), (d,))
        rows, rhs = [self.C], [self.b]
        eye = np.eye(d)
        fin_hi, fin_lo = np.isfinite(hi_a), np.isfinite(lo_a)
        rows += [eye[fin_hi], -eye[fin_lo]]
        rhs += [hi_a[fin_hi], -lo_a[fin_lo]]
        A = np.vstack(rows)
        bb = np.concatenate(rhs)
        norms = np.linalg.norm(A, axis=1)
        A_ub = np.column_stack([A, norms])  # a_i x + r ||a_i|| <= b_i
        c = np.zeros(d + 1)
        c[-1] = -1.0
        res = linprog(c, A_ub=A_ub if A_ub.shape[0] else None, b_ub=bb if A_ub.shape[0] else None,
                      bounds=[(None, None)] * d + [(0, None)], method="highs")
        if res.status == 2:
            return None
        if res.status == 3:
            return np.zeros(d), float("inf")
        if res.status != 0:
            raise RuntimeError(f"Chebyshev-centre LP failed: {res.message}")
        return np.asarray(res.x[:d], dtype=float), float(res.x[-1])

    def minimal(self, tol: float = 1e-9) -> Polytope:
        """The same set without redundant rows (each row implied by the others is removed by an LP).

        Rows are first normalized (largest coefficient magnitude 1) and exact duplicates
        dropped; then, in order, a row ``i`` is removed when ``max c_i . x`` over the other
        remaining rows (and ``c_i . x <= b_i + 1``, which keeps the LP bounded) is at most
        ``b_i + tol``. An empty set keeps its rows. The result describes the same set up to
        ``tol``; the row order of the survivors is kept.
        """
        from scipy.optimize import linprog

        m, d = self.C.shape
        if m <= 1:
            return self
        s = np.max(np.abs(self.C), axis=1)
        zero = s == 0
        if (zero & (self.b < 0)).any() or self.is_empty():
            return self
        keep_rows = np.flatnonzero(~zero)  # rows 0 . x <= b with b >= 0 hold everywhere
        C = self.C[keep_rows] / s[keep_rows, None]
        b = self.b[keep_rows] / s[keep_rows]
        _, first = np.unique(np.round(np.column_stack([C, b]), 12), axis=0, return_index=True)
        order = np.sort(first)
        C, b = C[order], b[order]
        alive = np.ones(C.shape[0], dtype=bool)
        for i in range(C.shape[0]):
            others = alive.copy()
            others[i] = False
            A_ub = np.vstack([C[others], C[i][None, :]])
            b_ub = np.concatenate([b[others], [b[i] + 1.0]])
            res = linprog(-C[i], A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * d, method="highs")
            if res.status == 0 and -res.fun <= b[i] + tol:
                alive[i] = False
        return Polytope(C[alive], b[alive])

    def axis_bounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(lo, hi, oblique)``: the bounds the axis-aligned rows put on each feature (``-inf`` /
        ``inf`` where none), and the boolean mask of the other (oblique) rows."""
        d = self.dim
        lo, hi = np.full(d, -np.inf), np.full(d, np.inf)
        nz = self.C != 0
        axis = nz.sum(axis=1) == 1
        for i in np.flatnonzero(axis):
            j = int(np.flatnonzero(nz[i])[0])
            v = self.b[i] / self.C[i, j]
            if self.C[i, j] > 0:
                hi[j] = min(hi[j], v)
            else:
                lo[j] = max(lo[j], v)
        return lo, hi, ~axis

    def to_dict(self) -> dict:
        """``{"C": [[...], ...], "b": [...]}`` (plain lists, JSON-ready)."""
        return {"C": self.C.tolist(), "b": [float(v) for v in self.b]}

    @classmethod
    def from_dict(cls, data: dict) -> Polytope:
        """Inverse of :meth:`to_dict`."""
        try:
            C, b = data["C"], data["b"]
        except (KeyError, TypeError):
            raise InputError("a polytope dict needs the keys 'C' (rows) and 'b' (right-hand sides)") from None
        C = np.asarray(C, dtype=float)
        if C.size == 0:
            C = C.reshape(0, int(data.get("dim", 0)))
        return cls(C, b)

    def is_empty(self, tol: float = 1e-9) -> bool:
        """Whether ``{x : C x <= b}`` has no point (an LP feasibility check with scipy's HiGHS)."""
        if self.n_constraints == 0:
            return False
        from scipy.optimize import linprog  # local: keeps `import interpretopt.rules` light

        res = linprog(np.zeros(self.dim), A_ub=self.C, b_ub=self.b + tol, bounds=[(None, None)] * self.dim,
                      method="highs")
        return res.status == 2

    # -- rendering
    def render(self, feature_names: Sequence[str] | None = None, *, precision: int = 4,
               intervals: bool = False) -> str:
        """One linear inequality per line, e.g. ``0.5*age - 2*income <= 3``.

        With ``intervals=True`` the axis-aligned rows are gathered per feature and printed
        first as ``lo <= x <= hi`` (or a one-sided bound), followed by the oblique rows.
        """
        if self.n_constraints == 0:
            return "true"
        if not intervals:
            return "\n".join(self._render_row(i, feature_names, precision) for i in range(self.n_constraints))
        lo, hi, oblique = self.axis_bounds()
        lines = []
        for j in range(self.dim):
            a, c = lo[j], hi[j]
            if not (np.isfinite(a) or np.isfinite(c)):
                continue
            name = feature_name(j, feature_names)
            fa = format_value(float(f"{a:.{precision}g}")) if np.isfinite(a) else None
            fc = format_value(float(f"{c:.{precision}g}")) if np.isfinite(c) else None
            if fa is not None and fc is not None:
                lines.append(f"{fa} <= {name} <= {fc}")
            elif fc is not None:
                lines.append(f"{name} <= {fc}")
            else:
                lines.append(f"{name} >= {fa}")
        lines += [self._render_row(i, feature_names, precision) for i in np.flatnonzero(oblique)]
        return "\n".join(lines) if lines else "true"

    def _render_row(self, i: int, feature_names: Sequence[str] | None, precision: int) -> str:
        terms = []
        for j, a in enumerate(self.C[i]):
            if a == 0:
                continue
            name = feature_name(j, feature_names)
            mag = abs(a)
            coef = "" if mag == 1 else f"{float(f'{mag:.{precision}g}'):g}*"
            sign = "-" if a < 0 else "+"
            terms.append((sign, f"{coef}{name}"))
        if not terms:
            lhs = "0"
        else:
            first_sign, first = terms[0]
            lhs = ("-" if first_sign == "-" else "") + first
            lhs += "".join(f" {s} {t}" for s, t in terms[1:])
        rhs = float(f"{self.b[i]:.{precision}g}") if np.isfinite(self.b[i]) else self.b[i]
        return f"{lhs} <= {format_value(rhs)}"

    def __str__(self) -> str:
        return self.render()
