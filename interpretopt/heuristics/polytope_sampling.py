"""Uniform points in a polytope intersected with a box, in any dimension, without giving up.

The region is ``R = {x : C x <= b, lo <= x <= hi}`` (MTRE-PAN's sampling region: a node's
polytope inside the bounding box of its data widened by a margin, Section 3.2). Two exact
methods, chosen per region by :class:`PolytopeSampler`:

**Rejection** from a box: points uniform in the box, kept when they satisfy ``C x <= b``.
The kept points are exactly uniform in ``R``. It is used while its acceptance rate is at
least ``min_acceptance``. When the acceptance in the given box is lower, the box is first
shrunk by bound propagation (:meth:`interpretopt.rules.Polytope.propagate_bounds`: every
point of ``R`` stays inside, no LP), which can only raise the acceptance; thin cells along
an axis then become cheap for rejection.

**Hit-and-run** (Smith 1984) when the acceptance stays below ``min_acceptance`` (oblique
cells in 8-13 dimensions accept 0.1% or less of a box's points; a 10-D simplex accepts
``1/10! ~ 3e-7``): ``n_chains`` chains start at points of ``R`` (the node's own data, or
the Chebyshev centre when there is none); each step draws a direction ``u`` from a fixed
centred Gaussian, computes the chord ``{x + t u} cap R`` from the slacks of every row, and
moves to a point uniform on it. With a direction law that is symmetric (``u`` and ``-u``
alike) and independent of the state, the chain is reversible with respect to the uniform
law on ``R``, so uniform is its stationary distribution. Every chain first makes
``burn_in`` steps (default ``10 d + 20``) in four rounds; the Gaussian's covariance is that
of the starting points (or of the box, when they are too few) in the first round and is
re-fitted to the chains' positions after each round, which rounds elongated cells. It is
then fixed, and every chain emits one point each ``thin`` steps (default ``3 d``). Successive
points of a chain are correlated; measured on an 8-D oblique cell, the variance of a
positive-rate estimate is 3.2 times eq. 7's ``p (1 - p) / N`` with ``thin = d`` and 1.5
times with ``3 d`` (sampling on demand records this factor per node). Tests check both methods with a
Kolmogorov-Smirnov test against exact marginals in 2 and 10 dimensions, from good and bad
starting points.

**Chains started at uniform points** (no burn-in). When the caller knows points that are
already uniform in ``R`` (``uniform_starts``: in a translation tree, the points a node's
parent sampled that fell to the node), hit-and-run starts one chain at each of them, in a
random order, makes no burn-in, and returns a chain's position after ``thin`` steps
(default ``d``): one chain per point asked while unused starts last, then the chains again
in the same order. Why this is exact, with ``pi`` the uniform law on ``R``:

1. *Restriction.* If ``X ~ Uniform(A)`` and ``R`` is a subset of ``A`` of positive volume,
   then ``P(X in E | X in R) = vol(E & R) / vol(R)`` for every ``E``: given ``X in R``,
   ``X ~ Uniform(R)``; independent uniform points of ``A`` that fall in ``R`` are, given
   their number, independent uniform points of ``R``. A tree node's region is
   ``R_k = P_k & B_k`` (polytope, sampling box); its child's polytope ``P_c`` adds one row
   to ``P_k``, so ``R_c = P_c & B_c`` is a subset of ``R_k`` as soon as it lies inside
   ``B_k``, and then the points node ``k`` sampled inside ``P_c`` (all lie in ``B_c``, which
   contains the child's data) are uniform in ``R_c``; by induction, so are the points any
   ancestor sampled while every region on the way down was nested. The tree checks
   ``R_c in B_k`` exactly (faces of ``B_c`` inside ``B_k`` need nothing, the others bound
   propagation, then one LP each) and passes those points only when it holds
   (:func:`interpretopt.heuristics.trepan.grow_translation_tree`); a child whose region
   sticks out of its parent's box gets none and burns in.
2. *Stationarity.* The hit-and-run kernel ``K`` (direction law symmetric and independent of
   the state, here a Gaussian whose covariance is fitted to the starts once, before any
   step, and never re-fitted) is reversible with respect to ``pi``, so ``pi K = pi``: a chain
   with ``X_0 ~ pi`` has ``X_t ~ pi`` for every ``t >= 0``. Every point returned is therefore
   uniform in ``R`` after any number of steps; a burn-in would only discard uniform points.
   ``thin`` only decorrelates a point from its start, which is one of the node's data.

Where the tree departs from the lemma's hypotheses, and why it does not matter much: the
child's polytope is the parent's SVM hyperplane, fitted to the same points (the restriction
lemma is exact for a region fixed before the points are drawn; the hyperplane's ``d + 1``
parameters come from thousands of points); the number of points a node samples depends on
their labels (eq. 7's stopping rule); the covariance is a function of all starts; and points
emitted by a burned-in chain are uniform only approximately. None of these errors grows along
the walk: for any starting law ``mu``, ``|mu K - pi|_TV <= |mu - pi|_TV``. Tests check the path
by Kolmogorov-Smirnov in 10-D from uniform starts restricted to a sub-polytope.

Correlation with the starts, measured on the 10-D simplex from exactly uniform starts
(``/`` lists three half-and-half labels: ``x_0 > 0.067``, ``x_0 > x_1``, ``x_0 + ... + x_4 > 0.45``):
the correlation of a start's label and its point's is 0.86 / 0.84 / 0.89 after 1 step,
0.47 / 0.44 / 0.60 after ``d`` steps and 0.21 / 0.22 / 0.37 after ``3 d``. Each point costs
``thin`` steps, against ``3 d`` per point plus ``10 d + 20`` per chain on the burn-in path;
sampling on demand records the resulting variance inflation per node
(:class:`interpretopt.heuristics.trepan.SamplingTrace`).

**Chains started at warm points** (option ``warm_starts``; a short, measured burn-in). A
tree node's sampling box is the bounding box of its data widened by 5% of their range, as the
authors' release does (``Data_List::Add_Constraint``: ``innerHcube_`` is the child's data
box plus ``HCUBE_MARGIN``, never intersected with the parent's box). The child's data fill its
parent's box up to the parent's faces, so wherever the child's polytope reaches such a face
the 5% pad pushes the child's box out of the parent's, and ``R_c`` is not nested. The
inherited points the parent sampled are then uniform in ``A = R_c & B_k`` (the restriction
lemma above, applied to ``R_k & P_c``), not in ``R_c``: the part ``O = R_c - B_k`` holds
none of them. The law ``mu = Uniform(A)`` of such a start is warm: its density against
``pi = Uniform(R_c)`` is ``1_A / pi(A) <= M = 1 / pi(A)``. Two facts bound what starting
there costs, with ``K`` the hit-and-run kernel (reversible with respect to ``pi``):

1. ``|mu K^t - pi|_TV <= |mu - pi|_TV = pi(O)`` for every ``t`` (a ``pi``-stationary kernel
   contracts total variation), and ``mu K^t`` stays ``M``-warm; so the error of any share
   (a positive rate, eq. 7's ``p``) estimated from such chains is at most ``pi(O)``, the
   share of the region outside the parent's box, from the first step on. Lovasz and
   Vempala (2006, hit-and-run from a warm start) bound the steps to reach ``eps`` by a
   polynomial in ``d`` times ``log(M / eps)``: logarithmic in the warmth. A start at one of
   the node's data (the burn-in path) is a point mass, not warm at all.
2. The defect of ``mu`` is known: it misses ``O``. ``s_t``, the share of chains in ``O``
   after ``t`` steps, starts at 0 and rises to ``pi(O)`` as the chains mix into ``O``. The
   burn-in walks the first ``n_chains`` chains ``t = d, 2 d, 4 d, ...`` steps and stops at
   the first ``t >= 2 d`` where ``s_t`` differs from ``s_{t/2}`` by at most two standard
   errors of a difference of binomial shares: the second half of the walk did not move the
   missing mass measurably (at most ``burn_in`` steps, default ``10 d + 20``, as the burn-in
   path); every later chain makes the same number of steps before its first point. This is a
   diagnostic of the one way the start is wrong, not a proof of mixing in every direction.
   Where ``O`` is slabs along faces (a tree node: the 5% pad beyond the parent's faces) the
   chains fill it in a few ``d`` steps; into narrow corners (the ten vertices of a 10-D
   simplex beyond 0.3) hit-and-run needs about ``15 d`` steps from any start, more than
   either path's ``burn_in``.

After the burn-in the chains emit as on the uniform-start path (one chain per inherited
point, ``thin`` steps per point, default ``d``, chain-group variance inflation). The tree
passes warm starts only when ``R_c`` sticks out of the parent's box
(:func:`interpretopt.heuristics.trepan.grow_translation_tree`, ``warm_starts=True``, the
default; ``False`` keeps the burn-in path from the node's data for those nodes). A KS test in
10-D checks the warm path on a region that sticks out of the box its starts are uniform in.

Both methods always return the number of points asked for; a region of zero volume (an
empty interior) is reported by ``empty``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from interpretopt.exceptions import InputError
from interpretopt.rules import Polytope

__all__ = ["PolytopeSampler", "SamplerStats", "SAMPLING_METHODS"]

SAMPLING_METHODS = ("auto", "rejection", "hit_and_run")


@dataclass
class SamplerStats:
    """What a :class:`PolytopeSampler` did."""

    method: str = ""
    acceptance: float = float("nan")  # estimated acceptance of rejection in the final box
    n_draws: int = 0  # box points drawn by rejection (pilot included)
    n_steps: int = 0  # hit-and-run steps per chain (burn-in included)
    n_chains: int = 0
    burn_in: int = 0
    thin: int = 0
    tightened: bool = False  # the box was shrunk by bound propagation before rejection
    n_lps: int = 0
    uniform_starts: int = 0  # hit-and-run chains started at points already uniform in R (no burn-in)
    n_chain_steps: int = 0  # hit-and-run steps summed over chains (the walk's cost)
    warm_starts: int = 0  # chains started at warm points (uniform in a part of R), burned in briefly
    outside_share: float = float("nan")  # warm path: share of the chains outside the starts' box after burn-in


def _inside(U: np.ndarray, C: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rows of ``U`` with ``C u <= b``, in their order; the last rows are tested first and only
    the survivors go on (the newest split of a tree node rejects most)."""
    for k in range(C.shape[0] - 1, -1, -1):
        U = U[U @ C[k] <= b[k]]
        if U.shape[0] == 0:
            break
    return U


class PolytopeSampler:
    """Uniform points in ``R = {x : C x <= b, lo <= x <= hi}``, drawn on demand.

    Parameters
    ----------
    polytope : Polytope
    lo, hi : array-like (d,)
        The box (finite); ``lo <= hi``.
    rng : numpy.random.Generator
    starts : ndarray (k, d), optional
        Points of ``R`` to start hit-and-run chains from (e.g. the node's data). Points
        outside ``R`` are ignored.
    method : {"auto", "rejection", "hit_and_run"}, default "auto"
        ``"auto"``: rejection while its acceptance is at least ``min_acceptance`` (after
        tightening the box by LPs if needed), else hit-and-run.
    min_acceptance : float, default 0.02
    pilot : int, default 4096
        Box points drawn to estimate the acceptance.
    n_chains : int, default 1000
    burn_in : int or None
        Hit-and-run steps before the first point; ``None``: ``10 d + 20``.
    thin : int or None
        Hit-and-run steps between two points of a chain; ``None``: ``3 d``.
    max_draws : int or None, default None
        Only for ``method="rejection"``: stop after this many box points (``draw`` then
        returns fewer points than asked); ``None``: no limit.
    uniform_starts : ndarray (k, d), optional
        Points known to be uniform in ``R`` (e.g. a tree node's inherited points that its
        parent sampled; see the module docstring, "Chains started at uniform points").
        With at least ``min_uniform_starts`` of them inside ``R``, hit-and-run starts its
        chains there and makes no burn-in; every point it returns is then ``thin`` steps
        (default ``d``) from a distinct start, one chain per point asked while starts last.
    min_uniform_starts : int or None
        Fewer uniform starts than this fall back to the burn-in path; ``None``: ``2 (d + 1)``.
    warm_starts : ndarray (k, d), optional
        Points uniform in ``R & [warm_lo, warm_hi]`` (a tree node's inherited points when its
        region sticks out of its parent's box; module docstring, "Chains started at warm
        points"). Used like ``uniform_starts`` after a burn-in measured by the share of chains
        outside ``[warm_lo, warm_hi]``; ignored when ``uniform_starts`` are used.
    warm_lo, warm_hi : array-like (d,), optional
        The box the warm starts are uniform in (the parent's sampling box); required with
        ``warm_starts``.
    """

    def __init__(self, polytope: Polytope, lo: Any, hi: Any, rng: np.random.Generator, *, starts: Any = None,
                 method: str = "auto", min_acceptance: float = 0.02, pilot: int = 4096, n_chains: int = 1000,
                 burn_in: int | None = None, thin: int | None = None, max_draws: int | None = None,
                 uniform_starts: Any = None, min_uniform_starts: int | None = None, warm_starts: Any = None,
                 warm_lo: Any = None, warm_hi: Any = None) -> None:
        if method not in SAMPLING_METHODS:
            raise InputError(f"sampling method must be one of {', '.join(SAMPLING_METHODS)}, got {method!r}")
        lo = np.asarray(lo, dtype=float).ravel()
        hi = np.asarray(hi, dtype=float).ravel()
        if lo.shape != (polytope.dim,) or hi.shape != (polytope.dim,):
            raise InputError(f"the sampling box needs {polytope.dim} bounds per side, got {lo.shape} and {hi.shape}")
        if not (np.isfinite(lo).all() and np.isfinite(hi).all()) or (lo > hi).any():
            raise InputError("the sampling box must be finite with lo <= hi")
        if not 0.0 < min_acceptance <= 1.0:
            raise InputError(f"min_acceptance must be in (0, 1], got {min_acceptance!r}")
        self.d = polytope.dim
        self.rng = rng
        self.lo, self.hi = lo, hi
        self.requested = method
        self.min_acceptance = float(min_acceptance)
        self.pilot = int(pilot)
        self.n_chains = int(n_chains)
        self.burn_in = int(burn_in) if burn_in is not None else 10 * self.d + 20
        self._thin_given = thin is not None
        self.thin = int(thin) if thin is not None else 3 * max(1, self.d)
        self.max_draws = max_draws
        self.min_uniform_starts = (2 * (self.d + 1) if min_uniform_starts is None else max(1, int(min_uniform_starts)))
        C, b = polytope.C, polytope.b
        if C.shape[0]:
            # rows that no point of the box can violate need no test (a node's root-box rows)
            worst = np.maximum(C * lo, C * hi).sum(axis=1)
            keep = worst > b
            C, b = C[keep], b[keep]
        self.polytope = polytope
        self.C, self.b = C, b + 1e-12
        self.starts = None if starts is None else np.asarray(starts, dtype=float).reshape(-1, self.d)
        self.uniform_starts = (None if uniform_starts is None
                               else np.asarray(uniform_starts, dtype=float).reshape(-1, self.d))
        self.warm_starts = None if warm_starts is None else np.asarray(warm_starts, dtype=float).reshape(-1, self.d)
        if self.warm_starts is not None:
            if warm_lo is None or warm_hi is None:
                raise InputError("warm_starts need the box they are uniform in (warm_lo, warm_hi)")
            self.warm_lo = np.asarray(warm_lo, dtype=float).ravel()
            self.warm_hi = np.asarray(warm_hi, dtype=float).ravel()
        #: on the uniform-start path: the row of ``uniform_starts`` each chain started from, and
        #: after each ``draw`` the chain of every returned point (an index into that array)
        self.chain_start_rows: np.ndarray | None = None
        self.last_chains: np.ndarray | None = None
        self.stats = SamplerStats(method="")
        self.empty = False
        self._mode: str | None = None
        self._chains: np.ndarray | None = None
        self._slack: np.ndarray | None = None
        self._L: np.ndarray | None = None
        self._buffer: list[np.ndarray] = []

    # -- choosing the method
    def _box_points(self, n: int, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        return lo + self.rng.random((n, self.d)) * (hi - lo)

    def _estimate(self, lo: np.ndarray, hi: np.ndarray) -> float:
        U = self._box_points(self.pilot, lo, hi)
        self.stats.n_draws += self.pilot
        inside = _inside(U, self.C, self.b)
        if inside.shape[0]:
            self._buffer.append(inside)  # exactly uniform in R: kept
        return inside.shape[0] / self.pilot

    def _choose(self) -> None:
        if self.C.shape[0] == 0:  # the box is the region
            self._mode, self.stats.acceptance = "rejection", 1.0
            self.stats.method = "rejection"
            return
        if self.requested == "hit_and_run":
            self._start_chains()
            return
        acc = self._estimate(self.lo, self.hi)
        if acc < self.min_acceptance and self.requested == "auto" or acc == 0.0:
            # shrink the box by bound propagation (it keeps all of R), then estimate again
            tight = self.polytope.propagate_bounds(self.lo, self.hi)
            self.stats.tightened = True
            if tight is None:
                self.empty = True
                self._mode = "empty"
                self.stats.method = "empty"
                self._buffer.clear()
                return
            t_lo, t_hi = tight
            self.lo, self.hi = np.maximum(t_lo, self.lo), np.minimum(t_hi, self.hi)
            self._buffer.clear()  # points from the old box would mix two proposal laws: dropped
            acc = self._estimate(self.lo, self.hi)
        self.stats.acceptance = acc
        if self.requested == "rejection" or acc >= self.min_acceptance:
            self._mode = "rejection"
            self.stats.method = "rejection"
            return
        self._buffer.clear()
        self._start_chains()

    # -- hit-and-run
    def _start_chains(self) -> None:
        d, k = self.d, self.n_chains
        C_all = np.vstack([self.C, np.eye(d), -np.eye(d)])
        b_all = np.concatenate([self.b, self.hi, -self.lo])
        width = self.hi - self.lo
        self._movable = width > 1e-12 * np.maximum(1.0, np.abs(self.hi))
        self._width = width
        self._C_all, self._b_all = C_all, b_all

        def inside(P: np.ndarray) -> np.ndarray:  # the points of P in R (box rows included)
            return (P @ C_all.T <= b_all + 1e-9).all(axis=1)

        for cand, warm in ((self.uniform_starts, False), (self.warm_starts, True)):
            if cand is None or cand.shape[0] < self.min_uniform_starts:
                continue
            rows = np.flatnonzero(inside(cand))
            if rows.shape[0] >= self.min_uniform_starts:
                self.uniform_starts = cand
                self._start_uniform(rows)
                if warm:
                    self._warm_burn_in()
                return
        pts = None
        if self.starts is not None and self.starts.shape[0]:
            pts = self.starts[inside(self.starts)]
        if pts is None or pts.shape[0] == 0:
            cc = self.polytope.chebyshev_center(self.lo, self.hi)
            self.stats.n_lps += 1
            if cc is None:
                self.empty = True
                self._mode = "empty"
                self.stats.method = "empty"
                return
            pts = cc[0][None, :]
        idx = self.rng.integers(pts.shape[0], size=k)
        X = pts[idx].copy()
        self._chains = X
        self._slack = np.maximum(b_all - X @ C_all.T, 0.0)
        self._set_directions(pts if pts.shape[0] > 2 * d else None)
        self._mode = "hit_and_run"
        self.stats.method = "hit_and_run"
        self.stats.n_chains, self.stats.burn_in, self.stats.thin = k, self.burn_in, self.thin
        # burn-in in rounds: after each round the direction law is re-fitted to the chains'
        # positions (rounding); it is then fixed for the sampling phase
        rounds = 4
        per = [self.burn_in // rounds + (1 if r < self.burn_in % rounds else 0) for r in range(rounds)]
        for r, n_r in enumerate(per):
            self._steps(n_r)
            if r < rounds - 1:
                self._set_directions(self._chains)

    def _start_uniform(self, rows: np.ndarray) -> None:
        """Chains at the uniform starts ``rows`` (in a random order), no burn-in; directions fixed now."""
        order = rows[self.rng.permutation(rows.shape[0])]
        self._frontier = self.uniform_starts[order].copy()  # current state of every chain
        self.chain_start_rows = order
        self._cursor = 0
        self._emitted = 0
        if not self._thin_given:
            self.thin = max(1, self.d)
        self._set_directions(self._frontier if self._frontier.shape[0] > 2 * self.d else None)
        self._mode = "uniform_starts"
        self.stats.method = "hit_and_run"
        self.stats.uniform_starts = int(rows.shape[0])
        self.stats.n_chains, self.stats.burn_in, self.stats.thin = int(rows.shape[0]), 0, self.thin
        self._warm_T = 0
        self._burned = np.ones(rows.shape[0], dtype=bool)

    def _outside_share(self, X: np.ndarray) -> float:
        tol = 1e-9 * np.maximum(1.0, np.maximum(np.abs(self.warm_lo), np.abs(self.warm_hi)))
        out = ((X < self.warm_lo - tol) | (X > self.warm_hi + tol)).any(axis=1)
        return float(out.mean()) if X.shape[0] else 0.0

    def _warm_burn_in(self) -> None:
        """Burn in the first ``n_chains`` chains ``d, 2 d, 4 d, ...`` steps until the share of them
        outside the starts' box is stable (module docstring); later chains get as many steps."""
        K = self._frontier.shape[0]
        g = min(K, self.n_chains)
        X = self._frontier[:g]
        S = np.maximum(self._b_all - X @ self._C_all.T, 0.0)
        prev = self._outside_share(X)
        cur, T, target = prev, 0, max(1, self.d)
        while T < self.burn_in:
            n = min(target, self.burn_in) - T  # rounds end at d, 2 d, 4 d, ...: each doubles the walk
            self._walk_steps(X, S, n)
            T += n
            self.stats.n_chain_steps += n * g
            cur = self._outside_share(X)
            se = np.sqrt(2.0 * max(cur * (1.0 - cur), 1.0 / g) / g)  # of a difference of two shares
            if T >= 2 * max(1, self.d) and abs(cur - prev) <= 2.0 * se:
                break
            prev, target = cur, 2 * T
        self._frontier[:g] = X
        self._warm_T = T
        self._burned = np.zeros(K, dtype=bool)
        self._burned[:g] = True
        self.stats.burn_in = T
        self.stats.warm_starts = self.stats.uniform_starts
        self.stats.uniform_starts = 0
        self.stats.outside_share = cur

    def _walk_uniform(self, n: int) -> np.ndarray:
        """``n`` points: the next ``n`` chains (cycling) each walk ``thin`` steps and emit their position."""
        K = self._frontier.shape[0]
        out, src = [], []
        got = 0
        while got < n:
            m = min(n - got, K - self._cursor)
            sl = slice(self._cursor, self._cursor + m)
            X = self._frontier[sl].copy()
            S = np.maximum(self._b_all - X @ self._C_all.T, 0.0)
            fresh = ~self._burned[sl]
            if fresh.any():  # warm path: a chain's first use is preceded by the measured burn-in
                Xf, Sf = X[fresh], S[fresh]
                self._walk_steps(Xf, Sf, self._warm_T)
                X[fresh], S[fresh] = Xf, Sf
                self._burned[sl] = True
                self.stats.n_chain_steps += self._warm_T * int(fresh.sum())
            self._walk_steps(X, S, self.thin)
            self._frontier[sl] = X
            out.append(X.copy())
            src.append(np.arange(self._cursor, self._cursor + m))
            self.stats.n_chain_steps += self.thin * m
            self._emitted += m
            got += m
            self._cursor = (self._cursor + m) % K
        self.stats.n_steps = self._warm_T + self.thin * -(-self._emitted // K)  # the chains that moved most
        self.last_chains = np.concatenate(src)
        return np.vstack(out)

    def _set_directions(self, pts: np.ndarray | None) -> None:
        """Directions ``u ~ N(0, cov)``: ``cov`` of ``pts`` (rounding), else of the box."""
        d, movable, width = self.d, self._movable, self._width
        if pts is not None:
            cov = np.cov(pts, rowvar=False).reshape(d, d)
        else:
            cov = np.diag((width / np.sqrt(12.0)) ** 2)
        cov[~movable, :] = 0.0
        cov[:, ~movable] = 0.0
        # regularize: a flat cloud of points must not freeze a direction
        cov += np.diag(np.where(movable, (1e-3 * width) ** 2, 0.0))
        w, V = np.linalg.eigh(cov)
        self._L = V * np.sqrt(np.clip(w, 0.0, None))

    def _steps(self, n: int) -> None:
        self._walk_steps(self._chains, self._slack, n)
        self.stats.n_steps += n
        self.stats.n_chain_steps += n * self._chains.shape[0]

    def _walk_steps(self, X: np.ndarray, S: np.ndarray, n: int) -> None:
        """``n`` hit-and-run steps of the chains ``X`` (rows) with slacks ``S``, both updated in place.

        The walk keeps the slacks and the direction products as (constraints, chains) arrays, so
        that the max and min over a chain's constraints are reductions across the first axis,
        which numpy runs over all chains at once (about 20% less time per step than reducing the
        short rows of a (chains, constraints) array). The draws are the same; the products
        ``C @ U.T`` may differ from ``(U @ C.T).T`` in the last bit (BLAS), and slacks are kept
        at >= 1e-300 rather than >= 0, the floor the division used anyway.
        """
        C, L = self._C_all, self._L
        k = X.shape[0]
        rng = self.rng
        ST = np.maximum(S.T, 1e-300)  # (m, k), C-ordered
        bT = self._b_all[:, None]
        for step in range(n):
            U = rng.standard_normal((k, self.d)) @ L.T
            RT = C @ U.T
            # the chord {x + t u} in R is t_lo <= t <= t_hi with t_hi = min over rows with
            # r > 0 of s / r and t_lo = max over rows with r < 0; as s >= 0, that is
            # 1 / max(r / s) and 1 / min(r / s) (a row at s = 0 stops the move that way)
            with np.errstate(divide="ignore", over="ignore"):
                Q = RT / ST
                q_hi = Q.max(axis=0)
                q_lo = Q.min(axis=0)
                t_hi = np.where(q_hi > 0, 1.0 / q_hi, 0.0)
                t_lo = np.where(q_lo < 0, 1.0 / q_lo, 0.0)
            t = t_lo + rng.random(k) * (t_hi - t_lo)
            X += t[:, None] * U
            RT *= t
            ST -= RT
            np.maximum(ST, 1e-300, out=ST)
            if step % 64 == 63:  # refresh the slacks against rounding drift
                np.maximum(bT - C @ X.T, 1e-300, out=ST)
        S[...] = ST.T

    # -- drawing
    def draw(self, n: int) -> np.ndarray:
        """``n`` points uniform in ``R`` (fewer only when ``empty`` or ``max_draws`` stopped rejection)."""
        n = int(n)
        if self._mode is None:
            self._choose()
        if self._mode == "empty" or n <= 0:
            return np.empty((0, self.d))
        out = []
        have = 0
        while self._buffer and have < n:
            B = self._buffer.pop(0)
            take = B[: n - have]
            if take.shape[0] < B.shape[0]:
                self._buffer.insert(0, B[take.shape[0]:])
            out.append(take)
            have += take.shape[0]
        self.last_chains = None
        if have < n:
            if self._mode == "rejection":
                out.append(self._reject(n - have))
            elif self._mode == "uniform_starts":
                out.append(self._walk_uniform(n - have))
            else:
                out.append(self._walk(n - have))
        return np.vstack(out) if out else np.empty((0, self.d))

    def _reject(self, n: int) -> np.ndarray:
        acc: list[np.ndarray] = []
        got = 0
        rate = self.stats.acceptance if np.isfinite(self.stats.acceptance) and self.stats.acceptance > 0 else 0.01
        while got < n:
            if self.max_draws is not None and self.stats.n_draws >= self.max_draws:
                break
            chunk = int(min(max((n - got) / max(rate, 1e-4) * 1.2, 256), 200_000))
            if self.max_draws is not None:
                chunk = max(1, min(chunk, int(self.max_draws) - self.stats.n_draws))
            U = self._box_points(chunk, self.lo, self.hi)
            self.stats.n_draws += chunk
            Uin = _inside(U, self.C, self.b)
            if Uin.shape[0]:
                acc.append(Uin)
                got += Uin.shape[0]
            rate = max(got, 1) / max(self.stats.n_draws, 1)
        if not acc:
            return np.empty((0, self.d))
        P = np.vstack(acc)
        if P.shape[0] > n:
            self._buffer.append(P[n:])
            P = P[:n]
        return P

    def _walk(self, n: int) -> np.ndarray:
        k = self._chains.shape[0]
        out = []
        got = 0
        while got < n:
            self._steps(self.thin)
            take = min(k, n - got)
            out.append(self._chains[:take].copy())  # row i of every emission comes from chain i
            got += take
        return np.vstack(out)
