"""Tree growth for global translation: MTRE-PAN (hyperplane splits) and TRE-PAN (axis splits).

Almerri et al., "Global translation of classification models", Sections 3.1-3.2,
Algorithms 1 and 2. A black box ``f`` (the *oracle*, labels in {0, 1}) is translated into
a binary tree whose node ``k`` holds the polytope ``{x : C_k x <= b_k}`` of the
constraints on its root path (eqs. 1-2): a split ``c . x <= b`` sends the left child the
row ``(c, b)`` and the right child ``(-c, -b)`` (the right side ``c . x > b`` is stored
closed; the two differ on a set of measure zero). The root's polytope is the bounding box
of the training data, so the leaves partition that box.

Growth (Algorithm 1), depth first: a node receives the part of its parent's data inside
its polytope, then samples on demand (Algorithm 2); its entropy (eq. 4, from the point
estimate of the positive rate, eqs. 5-6) decides whether it is *uncertain* (entropy above
``cutoff_entropy``); an uncertain node above ``max_depth`` is split by ``split_fn`` and
its data pass to the children.

Sampling on demand (Algorithm 2): the sampling box is the bounding box of the node's data
widened by ``box_margin`` times each feature's range (clipped to the root box), as Section
3.2 and the release (``HCUBE_MARGIN 0.05``) do. It is not intersected with the parent's box
(the release's ``Data_List::Add_Constraint`` neither): a child's data reach its parent's box
faces, so the pad pushes the child's box past them wherever its polytope reaches them, and
the child's region is then not nested in the parent's (``warm_starts`` in ``sampling``
handles those nodes); points are drawn uniformly from the node's
polytope inside that box in batches (:mod:`interpretopt.heuristics.polytope_sampling`:
rejection where it accepts enough, hit-and-run where the region is too thin for it, so
sampling never gives up), labelled by the oracle, and batches continue until the variance
of the positive-rate estimate, ``p (1 - p) / N`` (eq. 7), falls to ``cutoff_variance`` or
below. ``N`` counts the node's inherited data as well; at least one batch is drawn at
every node (as in the authors' release), so a node holding a few inherited points of one
class is not declared certain on them alone. Each node's :class:`SamplingTrace` records
whether eq. 7 was met; only an explicit cap (``max_node_samples``, or ``max_draws`` of the
rejection sampler) or a region without interior can stop sampling before it is.

Depth follows the paper's tables: the root has depth 1, and ``max_depth = D`` leaves at
most ``D`` levels of nodes (a depth-1 tree is the root alone, a depth-2 tree has one
split). Every node draws its random numbers from its own generator, seeded by
``(seed, path)``, so a tree grown to depth ``D`` truncated at ``d < D`` is exactly the tree
grown to depth ``d``, and the result does not depend on the order nodes are processed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from interpretopt.exceptions import InputError, SolverError
from interpretopt.rules import Polytope

__all__ = [
    "NodeSolveError",
    "Split",
    "SamplingTrace",
    "TreeNode",
    "TranslationTree",
    "binary_entropy",
    "node_rng",
    "sample_on_demand",
    "best_axis_split",
    "grow_translation_tree",
]


class NodeSolveError(SolverError):
    """A node classifier that could not be trained (LP infeasible, unbounded, failed); names the node's path."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"node {path_label(path)}: {message}")


def path_label(path: str) -> str:
    """``"root"`` or the root path as a string of L/R moves (``"root/LRL"``)."""
    return "root" if not path else f"root/{path}"


@dataclass(frozen=True)
class Split:
    """A split ``c . x <= b`` (left) / ``c . x > b`` (right) and the label each side stands for."""

    c: np.ndarray
    b: float
    left_label: int = 0
    right_label: int = 1
    info: dict = field(default_factory=dict, compare=False)


@dataclass
class SamplingTrace:
    """What sampling on demand did at one node.

    ``stopped_by`` is ``"variance"`` (eq. 7 met), ``"max_samples"`` (the per-node cap was
    reached first), ``"draw_limit"`` (rejection's ``max_draws`` was reached first) or
    ``"empty_region"`` (the sampling region has no interior); ``eq7_met`` says whether the
    variance of the positive-rate estimate ended at or below the cutoff. ``method``,
    ``acceptance``, ``n_draws``, ``n_steps``, ``n_chains``, ``burn_in``, ``thin`` and
    ``tightened``, ``uniform_starts`` (chains started at inherited points already uniform in
    the node's region, without burn-in; 0 on the burn-in path) and ``n_chain_steps`` come
    from :class:`~interpretopt.heuristics.polytope_sampling.PolytopeSampler`.
    ``variance_inflation`` (hit-and-run nodes): the variance of the node's positive-rate
    estimate divided by eq. 7's ``p (1 - p) / N`` for independent points; above 1 when
    points are correlated, so that eq. 7 understates the estimate's variance by that factor.
    On the burn-in path (nodes with at least two points per chain) it is estimated from the
    spread of the chains' own rates (correlation of successive points of a chain); on the
    uniform-start path from the correlation ``rho`` of the labels of each chain's start (an
    inherited point) and of its first point, as ``1 + 2 rho m / N`` for ``m`` such pairs
    among the node's ``N`` data (later points of a cycling chain are not counted).
    """

    n_inherited: int = 0
    n_sampled: int = 0
    n_draws: int = 0
    n_batches: int = 0
    variance: float = float("nan")
    stopped_by: str = ""
    eq7_met: bool = False
    method: str = ""
    acceptance: float = float("nan")
    n_steps: int = 0
    n_chains: int = 0
    burn_in: int = 0
    thin: int = 0
    tightened: bool = False
    uniform_starts: int = 0
    n_chain_steps: int = 0
    warm_starts: int = 0
    outside_share: float = float("nan")
    variance_inflation: float = float("nan")
    variances: list = field(default_factory=list)


@dataclass
class TreeNode:
    """One node of a translation tree (fields end without ``_``: this is a value, not an estimator)."""

    node_id: int
    path: str
    depth: int
    polytope: Polytope
    n_samples: int = 0
    n_positive: int = 0
    entropy: float = 0.0
    uncertain: bool = False
    majority_label: int = 0
    side_label: int = 0
    split: Split | None = None
    left: int | None = None
    right: int | None = None
    stop_reason: str = ""
    data_lo: np.ndarray | None = None
    data_hi: np.ndarray | None = None
    sampling: SamplingTrace | None = None
    boundary: Split | None = None

    @property
    def is_leaf(self) -> bool:
        return self.split is None

    @property
    def positive_rate(self) -> float:
        return self.n_positive / self.n_samples if self.n_samples else float("nan")


def binary_entropy(p: Any) -> np.ndarray:
    """``E(p) = -(p log2 p + (1 - p) log2 (1 - p))`` (eq. 4), 0 at p in {0, 1}."""
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    return np.where((p <= 0) | (p >= 1), 0.0, e)


def node_rng(seed: int, path: str) -> np.random.Generator:
    """The generator of the node at ``path`` (a string of L/R): independent of processing order."""
    key = tuple(1 if ch == "L" else 2 for ch in path)
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=key))


def sample_on_demand(polytope: Polytope, lo: np.ndarray, hi: np.ndarray, oracle: Callable[[np.ndarray], np.ndarray],
                     rng: np.random.Generator, *, n_inherited: int, n_positive: int, cutoff_variance: float,
                     batch_size: int = 1000, min_batches: int = 1, max_samples: int | None = None,
                     starts: np.ndarray | None = None, sampler: str = "auto", min_acceptance: float = 0.02,
                     burn_in: int | None = None, thin: int | None = None, max_draws: int | None = None,
                     uniform_starts: np.ndarray | None = None, uniform_starts_y: np.ndarray | None = None,
                     warm_starts: np.ndarray | None = None, warm_box: tuple[np.ndarray, np.ndarray] | None = None,
                     ) -> tuple[np.ndarray, np.ndarray, SamplingTrace]:
    """Algorithm 2: sample the node's region in batches until ``p (1 - p) / N <= cutoff_variance`` (eq. 7).

    Points are uniform in ``{x : C x <= b, lo <= x <= hi}`` (the node's polytope inside its
    sampling box), drawn by :class:`~interpretopt.heuristics.polytope_sampling.PolytopeSampler`
    (rejection while it accepts at least ``min_acceptance`` of its proposals, else
    hit-and-run), so sampling never gives up on a thin region: only ``max_samples`` or
    ``max_draws``, when set, stop it before eq. 7 is met, and the trace says so.

    Parameters
    ----------
    polytope, lo, hi : Polytope, ndarray (d,), ndarray (d,)
        The node's region ``C x <= b`` and its sampling box.
    oracle, rng : callable ``oracle(X) -> {0, 1}`` labels, numpy.random.Generator
    n_inherited, n_positive : int
        Data the node already holds (they count towards ``N`` and ``p``).
    cutoff_variance : float
        Stop once the variance of the positive-rate estimate is at most this (eq. 7).
    batch_size, min_batches : int, default 1000 and 1
        Points per batch; batches drawn before the variance rule may stop sampling.
    max_samples : int or None
        Cap on the points sampled at this node (``None``: no cap; the variance rule alone
        stops, after at most ``1 / (4 cutoff_variance)`` points).
    starts : ndarray (k, d), optional
        Points of the region (the node's data) to start hit-and-run chains from.
    sampler : {"auto", "rejection", "hit_and_run"}, default "auto"
    min_acceptance, burn_in, thin : see :class:`~interpretopt.heuristics.polytope_sampling.PolytopeSampler`
    max_draws : int or None
        Only with ``sampler="rejection"``: cap on box points drawn at this node.
    uniform_starts : ndarray (k, d), optional
        Points known to be uniform in the region (inherited points the parent sampled): where
        hit-and-run is needed its chains start there without burn-in.
    uniform_starts_y : ndarray (k,), optional
        Their labels (for ``variance_inflation`` on that path), or those of ``warm_starts``.
    warm_starts : ndarray (k, d), optional
        Points uniform in the region inside ``warm_box`` only (inherited points when the
        region sticks out of the parent's box): where hit-and-run is needed its chains start
        there after a measured burn-in (:mod:`~interpretopt.heuristics.polytope_sampling`,
        "Chains started at warm points"). Ignored when ``uniform_starts`` is given.
    warm_box : (lo, hi), optional
        The box the warm starts are uniform in (the parent's sampling box).

    Returns
    -------
    X_new, y_new, trace : ndarray (m, d), ndarray (m,) of {0, 1}, SamplingTrace
    """
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    trace = SamplingTrace(n_inherited=int(n_inherited))
    counts = _SampleCounts(N=int(n_inherited), pos=int(n_positive))
    tally = _ChainTally()
    make_sampler = partial(_node_sampler, polytope, lo, hi, rng, starts=starts, sampler=sampler,
                           min_acceptance=min_acceptance, batch_size=batch_size, burn_in=burn_in, thin=thin,
                           max_draws=max_draws, uniform_starts=uniform_starts, warm_starts=warm_starts,
                           warm_box=warm_box)
    ps = None
    while True:
        stop = _stop_before_batch(trace, counts, cutoff_variance, min_batches, max_samples)
        if stop:
            trace.stopped_by = stop
            break
        want = batch_size if max_samples is None else min(batch_size, max_samples - trace.n_sampled)
        if ps is None:
            ps = make_sampler()
        stop = _draw_batch(ps, want, oracle, trace, counts, tally)
        if stop:
            trace.stopped_by = stop
            break
    _finish_trace(trace, counts, tally, ps, cutoff_variance, uniform_starts_y, int(n_positive))
    d = lo.shape[0]
    X_new = np.vstack(tally.X_parts) if tally.X_parts else np.empty((0, d))
    y_new = np.concatenate(tally.y_parts) if tally.y_parts else np.empty(0, dtype=np.int8)
    return X_new, y_new, trace


@dataclass
class _SampleCounts:
    """The node's running ``N`` (inherited plus sampled points) and positives (eqs. 5 and 7)."""

    N: int
    pos: int

    def variance(self) -> float:
        """``var[alpha_bar] = alpha_bar (1 - alpha_bar) / N`` (eq. 7), with ``alpha_bar = pos / N`` (eq. 5)."""
        p = self.pos / self.N
        return p * (1 - p) / self.N


@dataclass
class _ChainTally:
    """The batches drawn at a node and, for hit-and-run, which chain emitted each point."""

    X_parts: list = field(default_factory=list)
    y_parts: list = field(default_factory=list)
    chain_of: list = field(default_factory=list)
    chain_pos: np.ndarray | None = None
    chain_n: np.ndarray | None = None

    def add(self, ps: Any, Xb: np.ndarray, yb: np.ndarray) -> None:
        """Keep a labelled batch; on the burn-in path, point ``i`` of a batch comes from chain ``i``."""
        if ps.last_chains is not None:
            self.chain_of.append(ps.last_chains)
        elif ps.stats.method == "hit_and_run":
            k = ps.stats.n_chains
            if self.chain_pos is None:
                self.chain_pos, self.chain_n = np.zeros(k), np.zeros(k)
            m = yb.shape[0]
            self.chain_pos[:m] += yb
            self.chain_n[:m] += 1
        self.X_parts.append(Xb)
        self.y_parts.append(yb)


def _node_sampler(polytope: Polytope, lo: np.ndarray, hi: np.ndarray, rng: np.random.Generator, *,
                  starts: np.ndarray | None, sampler: str, min_acceptance: float, batch_size: int,
                  burn_in: int | None, thin: int | None, max_draws: int | None,
                  uniform_starts: np.ndarray | None, warm_starts: np.ndarray | None,
                  warm_box: tuple[np.ndarray, np.ndarray] | None) -> Any:
    """Algorithm 2's sampler of the node's region inside its bounding box (Section 3.2: "the bounding
    box is uniformly sampled ... if the sample fits within the constraints of the leaf node, it is
    added"): rejection from the box, or hit-and-run where rejection accepts too little; the same law.

    One hit-and-run chain per point of a batch, so each batch is one step of thinning; warm starts
    are ignored when uniform starts are given.
    """
    from interpretopt.heuristics.polytope_sampling import PolytopeSampler

    return PolytopeSampler(polytope, lo, hi, rng, starts=starts, method=sampler, min_acceptance=min_acceptance,
                           n_chains=min(1000, int(batch_size)), burn_in=burn_in, thin=thin,
                           max_draws=max_draws, uniform_starts=uniform_starts,
                           warm_starts=None if uniform_starts is not None else warm_starts,
                           warm_lo=None if warm_box is None else warm_box[0],
                           warm_hi=None if warm_box is None else warm_box[1])


def _stop_before_batch(trace: SamplingTrace, counts: _SampleCounts, cutoff_variance: float, min_batches: int,
                       max_samples: int | None) -> str:
    """Algorithm 2's loop test: ``"variance"`` once eq. 7's variance is at most the cutoff (after
    ``min_batches`` batches), ``"max_samples"`` at the per-node cap, else ``""`` (draw another batch)."""
    if trace.n_batches >= min_batches and counts.N > 0:
        trace.variance = counts.variance()
        if trace.variance <= cutoff_variance:
            return "variance"
    if max_samples is not None and trace.n_sampled >= max_samples:
        return "max_samples"
    return ""


def _draw_batch(ps: Any, want: int, oracle: Callable[[np.ndarray], np.ndarray], trace: SamplingTrace,
                counts: _SampleCounts, tally: _ChainTally) -> str:
    """Algorithm 2's loop body: draw ``want`` points of the region, label them with the oracle, add them
    to the node's data and update eq. 7's variance. Returns why sampling must stop (``"empty_region"``,
    ``"draw_limit"``) or ``""``."""
    Xb = ps.draw(want)
    if Xb.shape[0] == 0:
        return "empty_region" if ps.empty else "draw_limit"
    yb = np.asarray(oracle(Xb)).astype(np.int8).ravel()
    tally.add(ps, Xb, yb)
    trace.n_batches += 1
    trace.n_sampled += Xb.shape[0]
    counts.N += Xb.shape[0]
    counts.pos += int(yb.sum())
    trace.variances.append(counts.variance())
    if Xb.shape[0] < want:  # rejection reached max_draws
        trace.variance = trace.variances[-1]
        return "draw_limit"
    return ""


def _finish_trace(trace: SamplingTrace, counts: _SampleCounts, tally: _ChainTally, ps: Any,
                  cutoff_variance: float, uniform_starts_y: np.ndarray | None, pos_inherited: int) -> None:
    """After Algorithm 2's loop: whether eq. 7 was met, the variance inflation of correlated
    (hit-and-run) points against eq. 7's independent-point variance, and the sampler's statistics."""
    N, pos = counts.N, counts.pos
    if N > 0 and not np.isfinite(trace.variance):
        trace.variance = counts.variance()
    trace.eq7_met = bool(N > 0 and trace.variance <= cutoff_variance)
    chain_n, chain_pos = tally.chain_n, tally.chain_pos
    if chain_n is not None and chain_n.min() >= 2:
        rates = chain_pos / chain_n
        n_h = chain_n.sum()
        p_h = chain_pos.sum() / n_h
        if 0.0 < p_h < 1.0:
            trace.variance_inflation = float(np.var(rates, ddof=1) / chain_n.shape[0]
                                             / (p_h * (1 - p_h) / n_h))
    if tally.chain_of and uniform_starts_y is not None and 0 < pos < N:
        trace.variance_inflation = _chain_group_inflation(
            np.concatenate(tally.chain_of), np.concatenate(tally.y_parts), ps.chain_start_rows,
            np.asarray(uniform_starts_y).astype(float).ravel(), N, pos, pos_inherited)
    if ps is not None:
        st = ps.stats
        trace.method, trace.acceptance, trace.n_draws = st.method, st.acceptance, st.n_draws
        trace.n_steps, trace.n_chains, trace.burn_in, trace.thin = st.n_steps, st.n_chains, st.burn_in, st.thin
        trace.tightened = st.tightened
        trace.uniform_starts, trace.n_chain_steps = st.uniform_starts, st.n_chain_steps
        trace.warm_starts, trace.outside_share = st.warm_starts, st.outside_share


def _chain_group_inflation(chains: np.ndarray, y_new: np.ndarray, start_rows: np.ndarray, y_starts: np.ndarray,
                           N: int, pos: int, pos_inherited: int) -> float:
    """Variance inflation of a node's positive rate on the uniform-start path (batch means by chain).

    Chains are independent given their starts, so the node's ``N`` labels fall into
    independent groups: each chain's start (an inherited point) with the points it emitted,
    and every other inherited point alone. ``Var(sum y) = sum_g Var(S_g)``, estimated by
    ``sum_g (S_g - n_g p)^2``; divided by the ``N p (1 - p)`` of independent points.
    """
    p = pos / N
    K = start_rows.shape[0]
    S = np.bincount(chains, weights=y_new.astype(float), minlength=K)
    n_g = np.bincount(chains, minlength=K).astype(float)
    used = n_g > 0
    S = S[used] + y_starts[start_rows[used]]
    n_g = n_g[used] + 1.0
    grouped = float(((S - n_g * p) ** 2).sum())
    # inherited points outside the groups: (y - p)^2 summed, from their count of positives
    n_rest = N - int(n_g.sum())
    pos_rest = pos_inherited - int(y_starts[start_rows[used]].sum())
    rest = pos_rest * (1 - p) ** 2 + (n_rest - pos_rest) * p ** 2
    return (grouped + rest) / (N * p * (1 - p))


def best_axis_split(X: np.ndarray, y: np.ndarray, *, criterion: str = "gain") -> Split | None:
    """The axis-aligned split ``x_j <= t`` of highest information gain (TRE-PAN's C4.5-style binary split).

    Thresholds are midpoints between consecutive distinct values of each feature. With
    ``criterion="gain_ratio"`` the gain is divided by the split information, as C4.5 does.
    The side with the higher positive rate carries label 1. Returns ``None`` when no
    split separates the data (all features constant) or no split has positive gain.
    """
    if criterion not in ("gain", "gain_ratio"):
        raise InputError(f"criterion must be 'gain' or 'gain_ratio', got {criterion!r}")
    X = np.asarray(X, dtype=float)
    y = np.asarray(y).astype(float).ravel()
    n, d = X.shape
    if n < 2:
        return None
    H = float(binary_entropy(y.mean()))
    best = (-np.inf, -1, 0.0)
    for j in range(d):
        order = np.argsort(X[:, j], kind="stable")
        xs = X[order, j]
        ys = y[order]
        cpos = np.cumsum(ys)[:-1]
        nl = np.arange(1, n, dtype=float)
        valid = xs[1:] > xs[:-1]
        if not valid.any():
            continue
        nl, cpos = nl[valid], cpos[valid]
        nr = n - nl
        rpos = y.sum() - cpos
        cond = (nl * binary_entropy(cpos / nl) + nr * binary_entropy(rpos / nr)) / n
        gain = H - cond
        if criterion == "gain_ratio":
            split_info = binary_entropy(nl / n)
            gain = np.where(split_info > 0, gain / np.maximum(split_info, 1e-12), 0.0)
        k = int(np.argmax(gain))
        if gain[k] > best[0] + 1e-15:
            idx = np.flatnonzero(valid)[k]
            best = (float(gain[k]), j, 0.5 * (xs[idx] + xs[idx + 1]))
    g, j, t = best
    if j < 0 or not g > 0:
        return None
    c = np.zeros(d)
    c[j] = 1.0
    left = X[:, j] <= t
    pl = y[left].mean()
    pr = y[~left].mean()
    ll, rl = (1, 0) if pl > pr else (0, 1)
    return Split(c=c, b=float(t), left_label=ll, right_label=rl, info={"feature": j, "gain": g})


class TranslationTree:
    """A grown translation tree: nodes in creation order (depth first), node 0 the root.

    Parameters
    ----------
    nodes : list of TreeNode
    n_features : int
    leaf_label : {"majority", "side"}
        Label of a node acting as a leaf: the majority label of its data, or the label
        of the side of its parent's split it lies on (the paper's wording, "leaf nodes
        inherit a label from the SVM classifier according to the side of the split they
        fall into").
    root_label : {"majority", "negative"}
        Label of the root acting as a leaf (it lies on no side of a split): its majority
        label, or class 0 as the authors' release does (``Leaf_Node(..., -1)`` for the root).
    """

    def __init__(self, nodes: list[TreeNode], n_features: int, leaf_label: str = "majority",
                 root_label: str = "majority") -> None:
        self.nodes = nodes
        self.n_features = n_features
        self.leaf_label = leaf_label
        self.root_label = root_label

    @property
    def max_depth(self) -> int:
        return max(nd.depth for nd in self.nodes)

    def _is_leaf_at(self, node: TreeNode, depth: int | None) -> bool:
        return node.split is None or (depth is not None and node.depth >= depth)

    def label_of(self, node: TreeNode) -> int:
        """The label ``node`` gives when it acts as a leaf (see ``leaf_label`` and ``root_label``)."""
        if not node.path:
            return 0 if self.root_label == "negative" else node.majority_label
        return node.side_label if self.leaf_label == "side" else node.majority_label

    def leaves(self, depth: int | None = None) -> list[TreeNode]:
        """Nodes acting as leaves when the tree is truncated at ``depth`` (``None``: the full tree)."""
        out = []
        stack = [0]
        while stack:
            nd = self.nodes[stack.pop()]
            if self._is_leaf_at(nd, depth):
                out.append(nd)
            else:
                stack.extend([nd.right, nd.left])
        return out

    def leaf_count(self, depth: int | None = None) -> int:
        return len(self.leaves(depth))

    def apply(self, X: Any, depth: int | None = None) -> np.ndarray:
        """Id of the node each row lands in (every row lands in exactly one leaf): routing by the splits."""
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise InputError(f"X must have shape (n, {self.n_features}), got {X.shape}")
        out = np.full(X.shape[0], -1, dtype=np.int64)
        stack: list[tuple[int, np.ndarray]] = [(0, np.arange(X.shape[0]))]
        while stack:
            nid, idx = stack.pop()
            nd = self.nodes[nid]
            if self._is_leaf_at(nd, depth) or idx.size == 0:
                out[idx] = nid
                continue
            go_left = X[idx] @ nd.split.c <= nd.split.b
            stack.append((nd.right, idx[~go_left]))
            stack.append((nd.left, idx[go_left]))
        return out

    def node_arrays(self, depth: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per node id: the label it gives as a leaf, and whether it is uncertain as a leaf.

        A node truncated by ``depth`` was split because it was uncertain, so it counts as
        uncertain.
        """
        labels = np.array([self.label_of(nd) for nd in self.nodes], dtype=np.int8)
        unc = np.array([nd.uncertain or (nd.split is not None) for nd in self.nodes], dtype=bool)
        return labels, unc

    def predict_index(self, X: Any, depth: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(labels in {0, 1}, uncertain mask)`` of each row."""
        ids = self.apply(X, depth)
        labels, unc = self.node_arrays(depth)
        return labels[ids], unc[ids]


def _box_of(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return X.min(axis=0), X.max(axis=0)


def _region_inside(polytope: Polytope, lo: np.ndarray, hi: np.ndarray, p_lo: np.ndarray,
                   p_hi: np.ndarray) -> tuple[bool, int]:
    """Whether ``R = polytope & [lo, hi]`` lies inside the box ``[p_lo, p_hi]``, and the LPs it took.

    Only faces where ``[lo, hi]`` sticks out need a look: bound propagation settles most (no
    LP); the rest take one LP each, ``max x_j`` (or ``min``) over ``R``.
    """
    tol = 1e-9 * np.maximum(1.0, np.maximum(np.abs(p_lo), np.abs(p_hi)))
    out_lo = lo < p_lo - tol
    out_hi = hi > p_hi + tol
    if not (out_lo.any() or out_hi.any()):
        return True, 0
    tight = polytope.propagate_bounds(lo, hi)
    if tight is None:
        return True, 0  # empty: inside anything
    t_lo, t_hi = np.maximum(tight[0], lo), np.minimum(tight[1], hi)
    out_lo &= t_lo < p_lo - tol
    out_hi &= t_hi > p_hi + tol
    if not (out_lo.any() or out_hi.any()):
        return True, 0
    from scipy.optimize import linprog

    A = polytope.C if polytope.n_constraints else None
    rhs = polytope.b if polytope.n_constraints else None
    bnds = list(zip(t_lo.tolist(), t_hi.tolist()))
    n_lp = 0
    for j in np.flatnonzero(out_lo | out_hi):
        for sign, out, limit in ((1.0, out_lo, p_lo), (-1.0, out_hi, p_hi)):
            if not out[j]:
                continue
            c = np.zeros(polytope.dim)
            c[j] = sign
            res = linprog(c, A_ub=A, b_ub=rhs, bounds=bnds, method="highs")
            n_lp += 1
            if res.status == 2:
                return True, n_lp
            if res.status != 0:
                return False, n_lp  # undecided: treat as not nested (the burn-in path is always valid)
            x = float(res.x[j])
            if (sign > 0 and x < limit[j] - tol[j]) or (sign < 0 and x > limit[j] + tol[j]):
                return False, n_lp
    return True, n_lp


LEAF_LABELS = ("majority", "side")
ROOT_LABELS = ("majority", "negative")


def grow_translation_tree(X: np.ndarray, oracle: Callable[[np.ndarray], np.ndarray],
                          split_fn: Callable[[np.ndarray, np.ndarray, str], Split | None], *, max_depth: int = 10,
                          cutoff_entropy: float = 0.0808, cutoff_variance: float = 1e-5, box_margin: float = 0.05,
                          batch_size: int = 1000, min_batches: int = 1, max_node_samples: int | None = None,
                          seed: int = 0, leaf_label: str = "majority", root_label: str = "majority",
                          sampling: dict | None = None,
                          boundary_fn: Callable[[np.ndarray, np.ndarray, str], Split | None] | None = None,
                          relabel: bool = True, y: np.ndarray | None = None,
                          callback: Callable[[TreeNode], None] | None = None) -> tuple[TranslationTree, dict]:
    """Algorithm 1: grow the translation tree of ``oracle`` from the training rows ``X``.

    Depth first, each node in named steps (:class:`_Growth`): its sampling box (Section 3.2),
    sampling on demand (Algorithm 2, :func:`sample_on_demand`), its entropy (eqs. 4-6) and
    whether it is uncertain (Section 3.1), the split of an uncertain node and its children's
    data and constraints (eqs. 1-2).

    Parameters
    ----------
    X : ndarray (n, d)
        Training rows; their bounding box is the root polytope.
    oracle, split_fn : callable
        ``oracle(X) -> {0, 1}`` (the black box); ``split_fn(X_node, y_node, path) -> Split | None``
        (``None`` leaves the node a leaf).
    max_depth : int, default 10
        Paper's convention: root = depth 1 (Table 1).
    cutoff_entropy, cutoff_variance : float, default 0.0808 and 1e-5
        A node with entropy above ``cutoff_entropy`` is uncertain (0: every impure node, as the
        release's circle run); eq. 7's stopping rule of sampling on demand.
    box_margin : float, default 0.05
        Widening of the sampling box, as a fraction of each feature's range in the node's data.
    batch_size, min_batches, max_node_samples
        See :func:`sample_on_demand`.
    seed : int
        Root of the per-node generators (:func:`node_rng`).
    leaf_label, root_label : {"majority", "side"}, {"majority", "negative"}
        See :class:`TranslationTree`.
    sampling : dict, optional
        Options of :func:`sample_on_demand`: ``sampler``, ``min_acceptance``, ``burn_in``,
        ``thin``, ``max_draws``; and ``inherited_starts`` (default True: a node whose region
        lies inside its parent's sampling box starts hit-and-run at the inherited uniform
        points) and ``warm_starts`` (default True: a node whose region sticks out of
        its parent's box starts at those points after a measured burn-in instead of burning
        in from its data, :mod:`~interpretopt.heuristics.polytope_sampling`, "Chains started
        at warm points").
    boundary_fn : callable, optional
        Linear boundary estimate of uncertain leaves (``Split`` whose left side is class 0).
    relabel, callback
        Label the training rows with the oracle (otherwise ``y`` is used); called with every finished node.

    Returns
    -------
    tree, stats : TranslationTree, dict
        ``stats``: ``n_queries`` (oracle calls on rows), ``n_nodes``, wall seconds ``sampling_time``
        (drawing points, without the oracle), ``split_time``, ``boundary_time``, ``oracle_time``, the
        same in process CPU seconds (``*_cpu``), ``n_eq7_unmet`` (nodes whose sampling stopped before
        eq. 7 was met, by a cap or an empty region), ``sampling_methods`` (nodes per sampling method),
        ``n_nested`` (nodes whose region lies inside their parent's sampling box, so that the points an
        ancestor sampled are uniform in it) and ``nesting_lps`` (LPs that check cost).
    """
    X = np.asarray(X, dtype=float)
    sampling, inherited_starts, warm = _check_grow_inputs(X, leaf_label, root_label, sampling)
    clock = _GrowthClock(oracle)
    y0 = clock.oracle(X) if relabel or y is None else np.asarray(y).astype(np.int8).ravel()
    root_lo, root_hi = _box_of(X)
    g = _Growth(clock=clock, split_fn=split_fn, boundary_fn=boundary_fn, max_depth=max_depth,
                cutoff_entropy=cutoff_entropy, box_margin=box_margin, root_lo=root_lo, root_hi=root_hi,
                span=np.where(root_hi > root_lo, root_hi - root_lo, 1.0), seed=seed,
                inherited_starts=inherited_starts, warm=warm,
                sample_options=dict(cutoff_variance=cutoff_variance, batch_size=batch_size, min_batches=min_batches,
                                    max_samples=max_node_samples, **sampling))
    g.nodes.append(TreeNode(node_id=0, path="", depth=1, polytope=Polytope.bounding_box(root_lo, root_hi),
                            side_label=0))
    # depth first (left subtree first): only one root path holds data at a time (_NodeData)
    stack: list[_NodeData] = [_NodeData(g.nodes[0], X, y0, np.zeros(X.shape[0], dtype=bool), None)]
    while stack:
        item = stack.pop()
        stack.extend(reversed(g.grow_node(item)))
        if callback is not None:
            callback(item.node)
    clock.stats["n_nodes"] = len(g.nodes)
    return TranslationTree(g.nodes, X.shape[1], leaf_label, root_label), clock.stats


_SAMPLING_OPTIONS = ("sampler", "min_acceptance", "burn_in", "thin", "max_draws", "inherited_starts", "warm_starts")


def _check_grow_inputs(X: np.ndarray, leaf_label: str, root_label: str,
                       sampling: dict | None) -> tuple[dict, bool, bool]:
    """Validate :func:`grow_translation_tree`'s inputs; split ``sampling`` into the options of
    :func:`sample_on_demand` and the two start switches (``inherited_starts``, ``warm_starts``)."""
    if X.ndim != 2 or X.shape[0] == 0:
        raise InputError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    if leaf_label not in LEAF_LABELS:
        raise InputError(f"leaf_label must be one of {', '.join(LEAF_LABELS)}, got {leaf_label!r}")
    if root_label not in ROOT_LABELS:
        raise InputError(f"root_label must be one of {', '.join(ROOT_LABELS)}, got {root_label!r}")
    sampling = dict(sampling or {})
    unknown = sorted(set(sampling) - set(_SAMPLING_OPTIONS))
    if unknown:
        raise InputError(f"unknown sampling option(s) {unknown}; valid: {', '.join(_SAMPLING_OPTIONS)}")
    inherited_starts = bool(sampling.pop("inherited_starts", True))
    warm = bool(sampling.pop("warm_starts", True)) and inherited_starts
    return sampling, inherited_starts, warm


class _GrowthClock:
    """The growth's statistics: oracle queries, and wall and CPU seconds per part
    (``oracle``, ``sampling``, ``split``, ``boundary``)."""

    def __init__(self, oracle: Callable[[np.ndarray], np.ndarray]) -> None:
        self._oracle = oracle
        self.stats: dict[str, Any] = {"n_queries": 0, "n_eq7_unmet": 0, "sampling_methods": {}, "n_nested": 0,
                                      "nesting_lps": 0}
        for part in ("oracle", "sampling", "split", "boundary"):
            self.stats[f"{part}_time"] = 0.0
            self.stats[f"{part}_cpu"] = 0.0

    @staticmethod
    def now() -> tuple[float, float]:
        return time.perf_counter(), time.process_time()

    def add(self, part: str, t0: tuple[float, float], minus: tuple[float, float] = (0.0, 0.0)) -> None:
        self.stats[f"{part}_time"] += time.perf_counter() - t0[0] - minus[0]
        self.stats[f"{part}_cpu"] += time.process_time() - t0[1] - minus[1]

    def oracle(self, Z: np.ndarray) -> np.ndarray:
        """The oracle's labels of ``Z`` in {0, 1}, counted and timed."""
        t = self.now()
        out = np.asarray(self._oracle(Z)).astype(np.int8).ravel()
        self.add("oracle", t)
        self.stats["n_queries"] += Z.shape[0]
        if out.shape[0] != Z.shape[0]:
            raise InputError(f"the oracle returned {out.shape[0]} labels for {Z.shape[0]} rows")
        return out


@dataclass
class _NodeData:
    """A node waiting to grow, with its data ``Q_k`` (eqs. 1-2), their labels, the mask of rows
    uniform in the parent's sampling region, and the parent's sampling box.

    The mask marks rows some ancestor sampled while the regions stayed nested: a child whose
    region lies inside the parent's box (checked exactly, :func:`_region_inside`) holds those rows
    uniform in its own region (the restriction of a uniform law), and its hit-and-run chains start
    there without burn-in (:mod:`~interpretopt.heuristics.polytope_sampling`, "Chains started at
    uniform points").
    """

    node: TreeNode
    X: np.ndarray
    y: np.ndarray
    uniform: np.ndarray
    parent_box: Any


@dataclass
class _Growth:
    """Algorithm 1's settings and the nodes grown so far; :meth:`grow_node` is the loop's body."""

    clock: _GrowthClock
    split_fn: Callable[[np.ndarray, np.ndarray, str], Split | None]
    boundary_fn: Callable[[np.ndarray, np.ndarray, str], Split | None] | None
    max_depth: int
    cutoff_entropy: float
    box_margin: float
    root_lo: np.ndarray
    root_hi: np.ndarray
    span: np.ndarray
    seed: int
    inherited_starts: bool
    warm: bool
    sample_options: dict
    nodes: list = field(default_factory=list)

    def grow_node(self, item: _NodeData) -> list[_NodeData]:
        """Algorithm 1 at one node: sample on demand (Algorithm 2), measure the entropy, split an
        uncertain node above ``max_depth``; returns the children to grow (left first)."""
        node = item.node
        lo, hi = self.sampling_box(item.X)
        Xn, yn, un = self.sample(item, lo, hi)
        self.score(node, Xn, yn, self.cutoff_entropy)
        children = self.split(node, Xn, yn, un, (lo, hi))
        if node.split is None and node.uncertain and self.boundary_fn is not None:
            t = self.clock.now()
            node.boundary = self.boundary_fn(Xn, yn, node.path)
            self.clock.add("boundary", t)
        return children

    def sampling_box(self, Xn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Section 3.2: "a bounding box is built around these data ... plus a slight margin":
        the data's box widened by ``box_margin`` of each feature's range, clipped to the root box
        (the root box for a node without data)."""
        if not Xn.shape[0]:
            return self.root_lo.copy(), self.root_hi.copy()
        lo, hi = _box_of(Xn)
        pad = self.box_margin * np.maximum(hi - lo, 1e-6 * self.span)
        return np.maximum(lo - pad, self.root_lo), np.minimum(hi + pad, self.root_hi)

    def start_rows(self, item: _NodeData, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, Any, Any]:
        """Which inherited rows may start hit-and-run chains: the mask of rows uniform in this node's
        region (``un``; empty unless the region lies inside the parent's sampling box), that mask when
        it is used (``uni``), and the rows to warm-start from when the region sticks out of it."""
        un, warm_rows, nested = item.uniform, None, False
        if un.any() and self.inherited_starts:
            nested, n_lp = _region_inside(item.node.polytope, lo, hi, *item.parent_box)
            self.clock.stats["nesting_lps"] += n_lp
            if not nested:
                if self.warm:  # uniform in the region inside the parent's box only: warm starts
                    warm_rows = un
                un = np.zeros(item.X.shape[0], dtype=bool)
        self.clock.stats["n_nested"] += int(nested)
        uni = un if self.inherited_starts and un.any() else None
        return un, uni, warm_rows

    def sample(self, item: _NodeData, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Algorithm 2 (sampling on demand) at the node: its data with the sampled points appended,
        their labels, and the mask of rows uniform in its region; the trace goes to ``node.sampling``."""
        node, Xn, yn = item.node, item.X, item.y
        t = self.clock.now()
        stats = self.clock.stats
        o0 = (stats["oracle_time"], stats["oracle_cpu"])
        un, uni, warm_rows = self.start_rows(item, lo, hi)
        starts_y = yn[uni] if uni is not None else (yn[warm_rows] if warm_rows is not None else None)
        Xs, ys, trace = sample_on_demand(node.polytope, lo, hi, self.clock.oracle, node_rng(self.seed, node.path),
                                         n_inherited=Xn.shape[0], n_positive=int(yn.sum()), starts=Xn,
                                         uniform_starts=None if uni is None else Xn[uni], uniform_starts_y=starts_y,
                                         warm_starts=None if warm_rows is None else Xn[warm_rows],
                                         warm_box=item.parent_box if warm_rows is not None else None,
                                         **self.sample_options)
        # sampling time excludes the oracle's own time on the sampled points
        self.clock.add("sampling", t, (stats["oracle_time"] - o0[0], stats["oracle_cpu"] - o0[1]))
        if not trace.eq7_met:
            stats["n_eq7_unmet"] += 1
        if trace.method:
            stats["sampling_methods"][trace.method] = stats["sampling_methods"].get(trace.method, 0) + 1
        node.sampling = trace
        if Xs.shape[0]:
            Xn = np.vstack([Xn, Xs])
            yn = np.concatenate([yn, ys])
            un = np.concatenate([un, np.ones(Xs.shape[0], dtype=bool)])
        return Xn, yn, un

    @staticmethod
    def score(node: TreeNode, Xn: np.ndarray, yn: np.ndarray, cutoff_entropy: float) -> None:
        """The node's entropy from the point estimate of its positive rate (eqs. 4-6); above
        ``cutoff_entropy`` the node is uncertain (Section 3.1, "candidates for further splitting")."""
        node.n_samples = int(Xn.shape[0])
        node.n_positive = int(yn.sum())
        p = node.n_positive / node.n_samples if node.n_samples else 0.0
        node.entropy = float(binary_entropy(p))
        node.uncertain = node.entropy > cutoff_entropy
        node.majority_label = int(p > 0.5)
        if node.n_samples:
            node.data_lo, node.data_hi = _box_of(Xn)

    def split(self, node: TreeNode, Xn: np.ndarray, yn: np.ndarray, un: np.ndarray,
              box: tuple[np.ndarray, np.ndarray]) -> list[_NodeData]:
        """Algorithm 1's split of an uncertain node above ``max_depth`` by ``split_fn``; sets
        ``stop_reason`` and returns the two children with their data (eqs. 1-2), or no child."""
        if not node.uncertain:
            node.stop_reason = "certain"
            return []
        if node.depth >= self.max_depth:
            node.stop_reason = "max_depth"
            return []
        t = self.clock.now()
        split = self.split_fn(Xn, yn, node.path)
        self.clock.add("split", t)
        if split is None:
            node.stop_reason = "no_split"
            return []
        go_left = Xn @ split.c <= split.b
        if go_left.all() or not go_left.any():
            node.stop_reason = "split_does_not_separate"
            return []
        node.split = split
        node.stop_reason = "split"
        return [self.child(node, "L", Xn[go_left], yn[go_left], un[go_left], box),
                self.child(node, "R", Xn[~go_left], yn[~go_left], un[~go_left], box)]

    def child(self, node: TreeNode, side: str, Xc: np.ndarray, yc: np.ndarray, uc: np.ndarray,
              box: tuple[np.ndarray, np.ndarray]) -> _NodeData:
        """A child of ``node``: its polytope adds ``c . x <= b`` (left, eq. 1) or ``-c . x <= -b``
        (right, eq. 2, stored closed) to its parent's constraints."""
        split = node.split
        c, b, lab = (split.c, split.b, split.left_label) if side == "L" else (-split.c, -split.b, split.right_label)
        child = TreeNode(node_id=len(self.nodes), path=node.path + side, depth=node.depth + 1,
                         polytope=node.polytope.add(c, b), side_label=int(lab))
        self.nodes.append(child)
        if side == "L":
            node.left = child.node_id
        else:
            node.right = child.node_id
        return _NodeData(child, Xc, yc, uc, box)
