r"""Joint Surrogate Tree (JST) growth: vectorized greedy split search over arrays.

Two decision-tree surrogates for two classifiers :math:`M_1, M_2` are grown together
(Haldar et al., "Interpretable Differencing of Machine Learning Models", UAI 2023,
Section 4.1 and Algorithms 1-3 of Appendix E).

At a node :math:`v` with samples :math:`X_v` and labels :math:`y_{1v}, y_{2v}` the
split :math:`s(v) = (f < t)` minimizes the weighted impurity of the two children,

.. math:: H(f, t, X_v, y_v) = \tfrac{n_L}{n} \mathrm{imp}(y_L) + \tfrac{n_R}{n} \mathrm{imp}(y_R),

with entropy (the paper's choice) or Gini impurity. The best separate splits give
:math:`\mathrm{imp}(X_v, y_{1v})` and :math:`\mathrm{imp}(X_v, y_{2v})` (eq. 2); the best
joint split minimizes the sum of the two (eq. 4). The surrogates diverge into an
*or-node* when

* eq. (6), the default: :math:`\mathrm{imp}(X_v, y_{1v}) = 0 \lor \mathrm{imp}(X_v, y_{2v}) = 0`
  (the joint split is then never computed), or
* eq. (5), with ``alpha``: :math:`\mathrm{imp}(X_v, y_{1v}) + \mathrm{imp}(X_v, y_{2v})
  \le \alpha\, \mathrm{imp}(X_v, y_{1v}, y_{2v})`; :math:`\alpha = 1` always diverges at the
  root and gives exactly the two separately grown surrogates.

A node where either label vector is already pure, or the height limit is reached,
is an or-node as well (Algorithm 2, line 4). Below an or-node each surrogate grows by
itself (Algorithm 1). The height counts decision edges only.

Split search (exact, bounded memory). Each feature's values are replaced once by their rank
among its distinct values (``uint8`` codes for most tabular features). At a node only the
row indices are kept; features are scored in chunks whose scratch arrays hold at most
about a quarter of the data's elements: a feature with few distinct values at the node by
one class histogram over (code, label of model 1, label of model 2), any other by sorting
its codes with the labels; cumulative class counts then give the left/right counts of
every threshold, for both label vectors at once. A split partitions the index array (no
copies of per-feature blocks). Impurities use a table of :math:`c \log_2 c` (entropy) so
that equal counts give bit-identical scores. Thresholds are midpoints between consecutive
distinct values present at the node; a sample goes left when ``x[f] < t``. Ties go to the
lowest feature index, then the lowest threshold. :func:`split_scores` (all thresholds of
sorted blocks) and :func:`best_split_reference` (brute force) are kept as references.

Diff regions (eq. 3, Algorithm 3): under every or-node, pairs of leaves of the two
sub-trees with different labels whose boxes (path conditions, half-open intervals
``lo <= x < hi``) intersect. Refinement (end of Section 4.1) splits impure leaves that
take part in a diff region, ``k`` times.

Everything here is a pure function of arrays; labels are integer codes ``0..K-1``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "CRITERIA",
    "SurrogateTree",
    "OrNode",
    "DiffRegion",
    "JointTree",
    "split_scores",
    "best_split",
    "best_joint_split",
    "best_split_reference",
    "impurity",
    "grow_tree",
    "grow_joint_tree",
    "diff_regions",
    "predict_diff_regions",
    "refine",
    "feature_importances",
]

CRITERIA = ("entropy", "gini")
_ZERO = 1e-9  # scores of pure splits are exactly 0; this only absorbs rounding
_BUDGET = 1 << 20  # elements of the split search's scratch arrays per chunk of features (at most)
_BUDGET_MIN = 1 << 14  # (at least)
_HIST_FACTOR = 2  # a feature is scored by histogram when n_values * K <= _HIST_FACTOR * m, else by sorting


# --------------------------------------------------------------------------------------
# value objects
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SurrogateTree:
    """One surrogate decision tree as flat arrays (node 0 is the root).

    ``feature[i] == -1`` marks a leaf; otherwise samples with ``x[feature] < threshold``
    go to ``left[i]``, the others to ``right[i]``. ``value[i]`` holds the class counts of
    the training samples at node ``i``; ``depth[i]`` counts decision edges from the JST
    root; ``shared[i]`` marks the JST's shared decision nodes.
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    depth: np.ndarray
    shared: np.ndarray

    @property
    def n_nodes(self) -> int:
        return int(self.feature.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        return self.feature < 0

    @property
    def label(self) -> np.ndarray:
        """Majority class code of every node (lowest code on ties)."""
        return np.argmax(self.value, axis=1)

    @property
    def n_samples(self) -> np.ndarray:
        return self.value.sum(axis=1)

    @property
    def pure(self) -> np.ndarray:
        """True where every training sample of the node has the node's label."""
        return self.value.max(axis=1) == self.value.sum(axis=1)

    @property
    def height(self) -> int:
        return int(self.depth[self.is_leaf].max()) if self.n_nodes else 0

    def leaves(self, node: int = 0) -> np.ndarray:
        """Leaf ids of the sub-tree rooted at ``node``, left to right."""
        out: list[int] = []
        stack = [node]
        while stack:
            i = stack.pop()
            if self.feature[i] < 0:
                out.append(i)
            else:
                stack.append(int(self.right[i]))
                stack.append(int(self.left[i]))
        return np.asarray(out, dtype=np.int64)

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf id reached by every row of ``X``."""
        X = np.asarray(X, dtype=float)
        node = np.zeros(X.shape[0], dtype=np.int64)
        rows = np.arange(X.shape[0])
        for _ in range(self.height + 1):
            f = self.feature[node]
            internal = f >= 0
            if not internal.any():
                break
            go_left = X[rows, np.where(internal, f, 0)] < self.threshold[node]
            node = np.where(internal, np.where(go_left, self.left[node], self.right[node]), node)
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Class codes predicted for the rows of ``X``."""
        return self.label[self.apply(X)]

    def boxes(self, n_features: int) -> tuple[np.ndarray, np.ndarray]:
        """Path condition of every node as a box ``lo <= x < hi``, arrays ``(n_nodes, d)``."""
        lo = np.full((self.n_nodes, n_features), -np.inf)
        hi = np.full((self.n_nodes, n_features), np.inf)
        for i in range(self.n_nodes):  # parents precede children in the arrays
            f = self.feature[i]
            if f < 0:
                continue
            t = self.threshold[i]
            a, b = self.left[i], self.right[i]
            lo[a], hi[a] = lo[i], hi[i]
            lo[b], hi[b] = lo[i], hi[i]
            hi[a, f] = min(hi[i, f], t)
            lo[b, f] = max(lo[i, f], t)
        return lo, hi


@dataclass(frozen=True, eq=False)
class OrNode:
    """Where the surrogates diverge: ``node1`` in tree 1 and ``node2`` in tree 2 root the
    two separate sub-trees; ``lo``/``hi`` is the path condition from the JST root."""

    node1: int
    node2: int
    depth: int
    lo: np.ndarray
    hi: np.ndarray


@dataclass(frozen=True, eq=False)
class DiffRegion:
    """One diff region (eq. 3): leaves ``leaf1``/``leaf2`` under or-node ``or_node`` with
    labels ``label1 != label2`` and the intersection box ``lo <= x < hi``."""

    or_node: int
    leaf1: int
    leaf2: int
    label1: int
    label2: int
    lo: np.ndarray
    hi: np.ndarray


@dataclass(frozen=True, eq=False)
class JointTree:
    """A fitted JST: two surrogate trees, their shared decision nodes and the or-nodes.

    ``twin`` maps each shared node of tree 1 to the same node of tree 2.
    """

    tree1: SurrogateTree
    tree2: SurrogateTree
    or_nodes: tuple[OrNode, ...]
    twin: dict[int, int]
    n_features: int
    n_classes: int
    max_depth: int
    criterion: str = "entropy"
    alpha: float | None = None
    refinements: int = 0

    @property
    def height(self) -> int:
        """Maximum number of decision edges on a root-to-leaf path."""
        return max(self.tree1.height, self.tree2.height)

    @property
    def n_shared(self) -> int:
        return len(self.twin)

    def predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.tree1.predict(X), self.tree2.predict(X)

    def predict_diff(self, X: np.ndarray) -> np.ndarray:
        """``D-hat(x) = 1`` where the two surrogates disagree."""
        p1, p2 = self.predict(X)
        return (p1 != p2).astype(np.int8)

    def or_node_of(self, X: np.ndarray) -> np.ndarray:
        """Index (into ``or_nodes``) of the or-node each row reaches."""
        tree1 = self.tree1
        lookup = {on.node1: k for k, on in enumerate(self.or_nodes)}
        X = np.asarray(X, dtype=float)
        node = np.zeros(X.shape[0], dtype=np.int64)
        rows = np.arange(X.shape[0])
        for _ in range(tree1.height + 1):
            sh = tree1.shared[node]
            if not sh.any():
                break
            go_left = X[rows, np.where(sh, tree1.feature[node], 0)] < tree1.threshold[node]
            node = np.where(sh, np.where(go_left, tree1.left[node], tree1.right[node]), node)
        return np.array([lookup[int(i)] for i in node], dtype=np.int64)


# --------------------------------------------------------------------------------------
# impurity and the vectorized split search
# --------------------------------------------------------------------------------------
def _xlogx_table(n: int) -> np.ndarray:
    c = np.arange(n + 1, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = c * np.log2(c)
    t[0] = 0.0
    return t


def impurity(counts: np.ndarray, criterion: str = "entropy") -> float:
    """Impurity of one node from its class counts (entropy in bits, or Gini)."""
    counts = np.asarray(counts, dtype=float)
    n = counts.sum()
    if n == 0:
        return 0.0
    p = counts[counts > 0] / n
    if criterion == "entropy":
        return float(-(p * np.log2(p)).sum())
    return float(1.0 - (p * p).sum())


def split_scores(vals: np.ndarray, ys: np.ndarray, n_classes: int, criterion: str = "entropy",
                 table: np.ndarray | None = None) -> np.ndarray:
    """Impurity of every threshold of every feature, in one pass.

    Parameters
    ----------
    vals : float array (d, m)
        Each feature's values at the node, sorted ascending along axis 1.
    ys : int array (d, m)
        The labels in the same order (row ``j`` follows feature ``j``'s order).
    n_classes : int
    criterion : {"entropy", "gini"}
    table : array, optional
        ``c * log2(c)`` for ``c = 0..m`` (entropy only), reused across nodes.

    Returns
    -------
    float array (d, m - 1)
        ``m`` times the weighted child impurity of the split between sorted positions
        ``i`` and ``i + 1``; ``inf`` where the two values are equal (no threshold there).
    """
    d, m = ys.shape
    if m < 2:
        return np.full((d, 0), np.inf)
    nl = np.arange(1, m, dtype=np.int64)  # left sizes for positions 0..m-2
    nr = m - nl
    totals = np.bincount(ys[0], minlength=n_classes)
    if criterion == "entropy":
        if table is None or table.shape[0] <= m:
            table = _xlogx_table(m)
        score = np.broadcast_to(table[nl] + table[nr], (d, m - 1)).copy()
    elif criterion == "gini":
        score = np.zeros((d, m - 1))
        nl_f = nl.astype(float)
        nr_f = nr.astype(float)
    else:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    present = np.nonzero(totals)[0]
    last = present[-1] if present.size else 0
    rest = np.broadcast_to(nl, (d, m - 1)).copy()  # left count of the last present class
    for k in present:
        if k == last:
            cl = rest
        else:
            cl = np.cumsum(ys[:, :-1] == k, axis=1, dtype=np.int64)
            rest -= cl
        cr = totals[k] - cl
        if criterion == "entropy":
            score -= table[cl]
            score -= table[cr]
        else:
            score -= cl * cl / nl_f
            score -= cr * cr / nr_f
    if criterion == "gini":
        score += m  # sum over children of n_c (1 - sum p^2) = m - sum c^2 / n_c
    score[vals[:, 1:] == vals[:, :-1]] = np.inf
    return score


def _threshold(vals: np.ndarray, f: int, pos: int) -> float:
    a, b = vals[f, pos], vals[f, pos + 1]
    t = (a + b) / 2.0
    if not (a < t <= b):  # midpoint rounded onto a neighbour
        t = b
    return float(t)


def best_split(X: np.ndarray, y: np.ndarray, n_classes: int | None = None,
               criterion: str = "entropy") -> tuple[int, float, float]:
    """Best single split ``(feature, threshold, weighted impurity)`` of ``(X, y)``.

    Returns ``(-1, nan, inf)`` when no feature has two distinct values.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=np.int64)
    k = int(n_classes if n_classes is not None else y.max() + 1)
    order = np.argsort(X, axis=0, kind="stable").T
    vals = np.take_along_axis(X.T, order, axis=1)
    s = split_scores(vals, y[order], k, criterion)
    if s.size == 0 or not np.isfinite(s).any():
        return -1, float("nan"), float("inf")
    f, pos = np.unravel_index(int(np.argmin(s)), s.shape)
    return int(f), _threshold(vals, int(f), int(pos)), float(s[f, pos] / X.shape[0])


def best_joint_split(X: np.ndarray, y1: np.ndarray, y2: np.ndarray, n_classes: int | None = None,
                     criterion: str = "entropy") -> tuple[int, float, float]:
    """Best common split for two label vectors: minimizes the sum of their weighted child
    impurities (eq. 4). Returns ``(feature, threshold, summed impurity)``."""
    X = np.asarray(X, dtype=float)
    y1 = np.asarray(y1, dtype=np.int64)
    y2 = np.asarray(y2, dtype=np.int64)
    k = int(n_classes if n_classes is not None else max(y1.max(), y2.max()) + 1)
    order = np.argsort(X, axis=0, kind="stable").T
    vals = np.take_along_axis(X.T, order, axis=1)
    s = split_scores(vals, y1[order], k, criterion) + split_scores(vals, y2[order], k, criterion)
    if s.size == 0 or not np.isfinite(s).any():
        return -1, float("nan"), float("inf")
    f, pos = np.unravel_index(int(np.argmin(s)), s.shape)
    return int(f), _threshold(vals, int(f), int(pos)), float(s[f, pos] / X.shape[0])


def best_split_reference(X: np.ndarray, ys: list[np.ndarray], criterion: str = "entropy",
                         ) -> tuple[int, float, float]:
    """Brute force over every feature and midpoint threshold: minimizes the sum over the
    label vectors in ``ys`` of the weighted child impurity (eq. 2 for one vector, eq. 4
    for two). Slow; kept as the reference the vectorized search is tested against."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    best = (-1, float("nan"), float("inf"))
    for f in range(d):
        v = np.unique(X[:, f])
        for t in (v[:-1] + v[1:]) / 2.0:
            left = X[:, f] < t
            total = 0.0
            for y in ys:
                y = np.asarray(y)
                for part in (y[left], y[~left]):
                    if part.size:
                        total += part.size / n * impurity(np.bincount(part), criterion)
            if total < best[2] - 1e-12:
                best = (f, float(t), total)
    return best


# --------------------------------------------------------------------------------------
# growth
# --------------------------------------------------------------------------------------
@dataclass
class _Builder:
    n_classes: int
    feature: list = field(default_factory=list)
    threshold: list = field(default_factory=list)
    left: list = field(default_factory=list)
    right: list = field(default_factory=list)
    value: list = field(default_factory=list)
    depth: list = field(default_factory=list)
    shared: list = field(default_factory=list)

    def add(self, counts: np.ndarray, depth: int, shared: bool = False) -> int:
        self.feature.append(-1)
        self.threshold.append(np.nan)
        self.left.append(-1)
        self.right.append(-1)
        self.value.append(np.asarray(counts, dtype=np.int64))
        self.depth.append(depth)
        self.shared.append(shared)
        return len(self.feature) - 1

    def set_split(self, node: int, f: int, t: float, left: int, right: int) -> None:
        self.feature[node] = f
        self.threshold[node] = t
        self.left[node] = left
        self.right[node] = right

    def freeze(self) -> SurrogateTree:
        k = self.n_classes
        value = np.vstack(self.value) if self.value else np.zeros((0, k), dtype=np.int64)
        return SurrogateTree(
            feature=np.asarray(self.feature, dtype=np.int64),
            threshold=np.asarray(self.threshold, dtype=float),
            left=np.asarray(self.left, dtype=np.int64),
            right=np.asarray(self.right, dtype=np.int64),
            value=value,
            depth=np.asarray(self.depth, dtype=np.int64),
            shared=np.asarray(self.shared, dtype=bool),
        )

    @classmethod
    def thaw(cls, tree: SurrogateTree, n_classes: int) -> "_Builder":
        return cls(n_classes, tree.feature.tolist(), tree.threshold.tolist(), tree.left.tolist(),
                   tree.right.tolist(), list(tree.value), tree.depth.tolist(), tree.shared.tolist())


class _Codes:
    """Each feature's values as integer codes ``0..nb_j-1`` (rank among its distinct values).

    Built once per fit: ``codes`` is ``(d, n)`` in the smallest unsigned type that holds the
    codes (``uint8`` for most tabular features), ``values[j]`` the sorted distinct values of
    feature ``j``. A split ``x[f] < t`` with ``t`` between two consecutive distinct values
    is the code test ``code <= b``.
    """

    def __init__(self, X: np.ndarray) -> None:
        n, d = X.shape
        self.values: list[np.ndarray] = []
        inv = []
        for j in range(d):
            u, c = np.unique(X[:, j], return_inverse=True)
            self.values.append(u)
            inv.append(c)
        self.nb = np.array([u.size for u in self.values], dtype=np.int64)
        top = int(self.nb.max()) if d else 1
        dtype = np.uint8 if top <= 2**8 else np.uint16 if top <= 2**16 else np.uint32
        self.codes = np.empty((d, n), dtype=dtype)
        for j, c in enumerate(inv):
            self.codes[j] = c
        self.n, self.d = n, d

    def threshold(self, f: int, b_lo: int, b_hi: int) -> float:
        a, b = self.values[f][b_lo], self.values[f][b_hi]
        t = (a + b) / 2.0
        if not (a < t <= b):  # midpoint rounded onto a neighbour
            t = b
        return float(t)


@dataclass
class _Best:
    """Lexicographically smallest ``(score, feature)`` seen, with its split ``code <= b_lo``."""

    score: float = np.inf
    f: int = -1
    b_lo: int = -1

    def offer(self, score: float, f: int, b_lo: int) -> None:
        if score < self.score or (score == self.score and f < self.f):
            self.score, self.f, self.b_lo = float(score), int(f), int(b_lo)


class _Grower:
    """Greedy growth over integer codes: exact split search, bounded memory.

    At a node with sample indices ``idx`` (``m`` rows) every feature is scored in chunks of
    features whose scratch arrays hold at most ``budget`` elements:

    * a feature with few distinct values (``nb_j * K <= 2 m``) by a class histogram over its
      codes (one ``bincount`` for the chunk), then cumulative counts over its codes;
    * any other feature by sorting ``code * K + label`` keys of its ``m`` rows.

    Both give the left/right class counts of every threshold between consecutive distinct
    values present at the node, scored with the same table of ``c log2 c`` (entropy) or
    Gini sums, so equal counts give bit-identical scores. Ties go to the lowest feature, then
    the lowest threshold. Children receive index arrays (a stable partition of ``idx``), never
    copies of per-feature sorted blocks.
    """

    def __init__(self, X, n_classes, max_depth, criterion, codes=None, budget=None):
        self.k = n_classes
        self.max_depth = max_depth
        self.criterion = criterion
        self.c = codes if codes is not None else _Codes(X)
        n = self.c.n
        self.table = _xlogx_table(n) if criterion == "entropy" else None
        # scratch arrays of a chunk: at most a quarter of the data's elements, within [2^14, 2^20]
        self.budget = int(budget) if budget is not None else int(min(_BUDGET, max(_BUDGET_MIN, n * self.c.d // 4)))

    # -- scoring -------------------------------------------------------------------------
    def _score(self, cl: np.ndarray, nl: np.ndarray, m: int, totals: np.ndarray) -> np.ndarray:
        """``m`` x weighted child impurity; ``cl`` is (P, K) left class counts, ``nl`` (P,)."""
        nr = m - nl
        if self.criterion == "entropy":
            t = self.table
            s = t[nl] + t[nr]
            for k in range(self.k):
                if totals[k]:
                    c = cl[:, k]
                    s -= t[c]
                    s -= t[totals[k] - c]
            return s
        nl_f = np.maximum(nl, 1).astype(float)
        nr_f = np.maximum(nr, 1).astype(float)
        s = np.zeros(nl.shape[0])
        for k in range(self.k):
            if totals[k]:
                c = cl[:, k].astype(float)
                r = totals[k] - c
                s -= c * c / nl_f
                s -= r * r / nr_f
        return s + m

    def search(self, idx: np.ndarray, ys: list, joint: bool = False) -> tuple[list, "_Best | None"]:
        """Best split of each label vector in ``ys`` at the node ``idx``, and of their sum
        (eq. 4) when ``joint``. Returns ``([_Best per y], _Best or None)``."""
        m = idx.size
        K = self.k
        yl = [y[idx] for y in ys]
        totals = [np.bincount(y, minlength=K) for y in yl]
        best = [_Best() for _ in ys]
        bj = _Best() if joint else None
        c = self.c
        nb = c.nb
        hist = np.nonzero(nb * K <= _HIST_FACTOR * m)[0]
        srt = np.nonzero((nb * K > _HIST_FACTOR * m) & (nb > 1))[0]
        hist = hist[nb[hist] > 1]
        # -- histogram features, in chunks of at most `budget` bins x classes (and gathered codes)
        s = 0
        while s < hist.size:
            e = s + 1
            while e < hist.size and (nb[hist[s:e + 1]].sum() * K <= self.budget) and (e + 1 - s) * m <= self.budget:
                e += 1
            self._hist_chunk(hist[s:e], idx, yl, totals, best, bj, m)
            s = e
        # -- sorted features
        per = max(1, self.budget // max(m, 1))
        for s in range(0, srt.size, per):
            self._sort_chunk(srt[s:s + per], idx, yl, totals, best, bj, m)
        return best, bj

    def _hist_chunk(self, feats, idx, yl, totals, best, bj, m):
        c, K = self.c, self.k
        nbs = c.nb[feats]
        off = np.zeros(feats.size + 1, dtype=np.int64)
        np.cumsum(nbs, out=off[1:])
        L = int(off[-1])
        kt = np.int32 if L * K ** len(yl) < 2**31 else np.int64
        key = c.codes[feats[:, None], idx[None, :]].astype(kt)
        key += off[:-1, None].astype(kt)
        for y in yl:  # one histogram over (code, y1, y2) for both label vectors
            key *= K
            key += y[None, :].astype(kt)
        hh = np.bincount(key.ravel(), minlength=L * K ** len(yl)).reshape((L,) + (K,) * len(yl))
        del key
        seg = np.repeat(np.arange(feats.size), nbs)
        scores = []
        for i, tot in enumerate(totals):
            h = hh.sum(axis=tuple(a + 1 for a in range(len(yl)) if a != i)) if len(yl) > 1 else hh
            cs = np.cumsum(h, axis=0)
            start = np.zeros((feats.size, K), dtype=np.int64)
            start[1:] = cs[off[1:-1] - 1]
            cl = cs - start[seg]
            nl = cl.sum(axis=1)
            present = h.sum(axis=1) > 0
            sc = self._score(cl, nl, m, tot)
            sc[~(present & (nl < m))] = np.inf
            scores.append(sc)
        for b, sc in zip(best, scores):
            self._offer_flat(b, sc, feats, off)
        if bj is not None:
            self._offer_flat(bj, scores[0] + scores[1], feats, off)

    @staticmethod
    def _offer_flat(b: _Best, sc: np.ndarray, feats, off) -> None:
        if not sc.size:
            return
        p = int(np.argmin(sc))
        if not np.isfinite(sc[p]):
            return
        j = int(np.searchsorted(off, p, side="right") - 1)
        b.offer(sc[p], feats[j], p - off[j])

    def _sort_chunk(self, feats, idx, yl, totals, best, bj, m):
        c, K = self.c, self.k
        G = c.codes[feats[:, None], idx[None, :]].astype(np.int64)
        scores = []
        codes_sorted = None
        if bj is not None and len(yl) == 2:  # one sort for both label vectors
            key = np.sort((G * K + yl[0][None, :]) * K + yl[1][None, :], axis=1)
            codes_sorted = key // (K * K)
            labs = [(key // K) % K, key % K]
        else:
            labs = []
            for y in yl:
                key = np.sort(G * K + y[None, :], axis=1)
                if codes_sorted is None:
                    codes_sorted = key // K
                labs.append(key % K)
        valid = codes_sorted[:, 1:] != codes_sorted[:, :-1]
        nl = np.broadcast_to(np.arange(1, m, dtype=np.int64), valid.shape).ravel()
        for lab, tot in zip(labs, totals):
            cl = np.empty((valid.size, K), dtype=np.int64)
            for k in range(K):
                cl[:, k] = np.cumsum(lab[:, :-1] == k, axis=1, dtype=np.int64).ravel()
            sc = self._score(cl, nl, m, tot).reshape(valid.shape)
            sc[~valid] = np.inf
            scores.append(sc)
        cands = list(zip(best, scores))
        if bj is not None:
            cands.append((bj, scores[0] + scores[1]))
        for b, sc in cands:
            if not sc.size:
                continue
            p = int(np.argmin(sc))
            r, q = divmod(p, sc.shape[1])
            if np.isfinite(sc[r, q]):
                b.offer(sc[r, q], feats[r], int(codes_sorted[r, q]))

    # -- splitting -----------------------------------------------------------------------
    def split(self, idx: np.ndarray, b: _Best) -> tuple[float, np.ndarray, np.ndarray]:
        """Threshold of ``b`` and the stable partition of ``idx`` (left: ``x[f] < t``)."""
        col = self.c.codes[b.f][idx]
        left = col <= b.b_lo
        b_hi = int(col[~left].min())
        return self.c.threshold(b.f, b.b_lo, b_hi), idx[left], idx[~left]

    # Algorithm 1
    def grow(self, bld: _Builder, y, idx, depth, first: "_Best | None" = None) -> int:
        m = idx.size
        counts = np.bincount(y[idx], minlength=self.k)
        node = bld.add(counts, depth)
        if counts.max() == m or depth >= self.max_depth or m < 2:
            return node
        b = first if first is not None else self.search(idx, [y])[0][0]
        if b.f < 0:
            return node
        t, li, ri = self.split(idx, b)
        a = self.grow(bld, y, li, depth + 1)
        c = self.grow(bld, y, ri, depth + 1)
        bld.set_split(node, b.f, t, a, c)
        return node


def _check_common(X, max_depth, criterion):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    if isinstance(max_depth, bool) or int(max_depth) != max_depth or max_depth < 1:
        raise ValueError(f"max_depth must be an integer >= 1, got {max_depth!r}")
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    if not np.isfinite(X).all():
        raise ValueError("X contains NaN or infinite values; impute or drop them first")
    return X


def _n_classes(n_classes, *ys) -> int:
    top = max((int(y.max()) + 1 if y.size else 1) for y in ys)
    if n_classes is None:
        return top
    if int(n_classes) < top:
        raise ValueError(f"n_classes={n_classes} but the labels use codes up to {top - 1}")
    return int(n_classes)


def _codes(y, n, name):
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {y.shape}")
    if y.dtype.kind not in "iub" or (y.size and y.min() < 0):
        raise ValueError(f"{name} must hold integer class codes 0..K-1")
    return y.astype(np.int64)


def grow_tree(X: np.ndarray, y: np.ndarray, max_depth: int, *, n_classes: int | None = None,
              criterion: str = "entropy") -> SurrogateTree:
    """One greedy surrogate tree (Algorithm 1): split until pure or ``max_depth``."""
    X = _check_common(X, max_depth, criterion)
    y = _codes(y, X.shape[0], "y")
    k = _n_classes(n_classes, y)
    g = _Grower(X, k, int(max_depth), criterion)
    b = _Builder(k)
    g.grow(b, y, np.arange(X.shape[0]), 0)
    return b.freeze()


def grow_joint_tree(X: np.ndarray, y1: np.ndarray, y2: np.ndarray, max_depth: int, *,
                    n_classes: int | None = None, criterion: str = "entropy",
                    alpha: float | None = None) -> JointTree:
    """Grow a Joint Surrogate Tree (Algorithm 2).

    Parameters
    ----------
    X : float array (n, d)
    y1, y2 : int arrays (n,)
        Class codes ``0..K-1`` given by the two models (one shared coding).
    max_depth : int >= 1
        Height limit, counted in decision edges.
    n_classes : int, optional
        ``K``; by default one more than the largest code.
    criterion : {"entropy", "gini"}
    alpha : float in [0, 1], optional
        ``None`` (default) uses the simplified divergence condition (eq. 6); a number uses
        the general condition (eq. 5) with that alpha.

    Returns
    -------
    JointTree
    """
    X = _check_common(X, max_depth, criterion)
    n, d = X.shape
    y1 = _codes(y1, n, "y1")
    y2 = _codes(y2, n, "y2")
    if alpha is not None and not (0.0 <= float(alpha) <= 1.0):
        raise ValueError(f"alpha must be in [0, 1] for the general divergence condition (eq. 5), got {alpha!r}")
    k = _n_classes(n_classes, y1, y2)
    max_depth = int(max_depth)
    g = _Grower(X, k, max_depth, criterion)
    b1, b2 = _Builder(k), _Builder(k)
    or_nodes: list[OrNode] = []
    twin: dict[int, int] = {}

    def or_node(idx, depth, lo, hi, s1=None, s2=None):
        n1 = g.grow(b1, y1, idx, depth, s1)
        n2 = g.grow(b2, y2, idx, depth, s2)
        or_nodes.append(OrNode(n1, n2, depth, lo.copy(), hi.copy()))
        return n1, n2

    def joint(idx, depth, lo, hi):
        m = idx.size
        c1 = np.bincount(y1[idx], minlength=k)
        c2 = np.bincount(y2[idx], minlength=k)
        if c1.max() == m or c2.max() == m or depth >= max_depth or m < 2:
            return or_node(idx, depth, lo, hi)
        # eq. (2) for each model and eq. (4) together: the joint sum costs one more array
        # addition per chunk, so it is not deferred as eq. (6) would allow
        (s1, s2), sj = g.search(idx, [y1, y2], joint=True)
        i1, i2 = s1.score, s2.score
        if not np.isfinite(i1):  # no two distinct values in any feature
            return or_node(idx, depth, lo, hi, s1, s2)
        tol = _ZERO * m
        if alpha is None:
            diverge = i1 <= tol or i2 <= tol  # eq. (6)
        elif alpha >= 1.0:
            diverge = True  # eq. (5) always holds for alpha = 1
        else:
            diverge = (i1 + i2) <= alpha * sj.score + tol  # eq. (5)
        if diverge:
            return or_node(idx, depth, lo, hi, s1, s2)
        f = sj.f
        t, li, ri = g.split(idx, sj)
        n1 = b1.add(c1, depth, shared=True)
        n2 = b2.add(c2, depth, shared=True)
        twin[n1] = n2
        hl = hi.copy()
        hl[f] = min(hl[f], t)
        a1, a2 = joint(li, depth + 1, lo, hl)
        lr = lo.copy()
        lr[f] = max(lr[f], t)
        r1, r2 = joint(ri, depth + 1, lr, hi)
        b1.set_split(n1, f, t, a1, r1)
        b2.set_split(n2, f, t, a2, r2)
        return n1, n2

    joint(np.arange(n), 0, np.full(d, -np.inf), np.full(d, np.inf))
    return JointTree(b1.freeze(), b2.freeze(), tuple(or_nodes), twin, d, k, max_depth, criterion,
                     None if alpha is None else float(alpha))


# --------------------------------------------------------------------------------------
# diff regions (Algorithm 3) and refinement
# --------------------------------------------------------------------------------------
def diff_regions(jst: JointTree, *, max_elements: int = 2_000_000) -> list[DiffRegion]:
    """All diff regions of a JST (eq. 3), or-node by or-node, in tree order.

    Leaf pairs are intersected in blocks of at most ``max_elements`` box coordinates.
    """
    d = jst.n_features
    lo1, hi1 = jst.tree1.boxes(d)
    lo2, hi2 = jst.tree2.boxes(d)
    lab1, lab2 = jst.tree1.label, jst.tree2.label
    out: list[DiffRegion] = []
    for k, on in enumerate(jst.or_nodes):
        L1 = jst.tree1.leaves(on.node1)
        L2 = jst.tree2.leaves(on.node2)
        chunk = max(1, max_elements // max(1, L2.size * d))
        for s in range(0, L1.size, chunk):
            a = L1[s : s + chunk]
            lo = np.maximum(lo1[a][:, None, :], lo2[L2][None, :, :])
            hi = np.minimum(hi1[a][:, None, :], hi2[L2][None, :, :])
            ok = (lo < hi).all(axis=2) & (lab1[a][:, None] != lab2[L2][None, :])
            for i, j in zip(*np.nonzero(ok)):
                out.append(DiffRegion(k, int(a[i]), int(L2[j]), int(lab1[a[i]]), int(lab2[L2[j]]),
                                      lo[i, j].copy(), hi[i, j].copy()))
    return out


def predict_diff_regions(regions: list[DiffRegion], X: np.ndarray) -> np.ndarray:
    """``D-hat(x) = 1`` where ``x`` lies in some diff region (``lo <= x < hi``)."""
    X = np.asarray(X, dtype=float)
    out = np.zeros(X.shape[0], dtype=bool)
    for r in regions:
        out |= ((X >= r.lo) & (X < r.hi)).all(axis=1)
    return out.astype(np.int8)


def refine(jst: JointTree, X: np.ndarray, y1: np.ndarray, y2: np.ndarray, iterations: int = 1) -> JointTree:
    """Selective refinement (Section 4.1): ``iterations`` times, split every impure leaf
    that takes part in a diff region with its own best split for its model; other leaves
    are left alone. ``IMD_{h+k}`` is ``refine(grow_joint_tree(..., h), ..., k)``."""
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    y1 = _codes(y1, n, "y1")
    y2 = _codes(y2, n, "y2")
    if isinstance(iterations, bool) or int(iterations) != iterations or iterations < 0:
        raise ValueError(f"iterations must be an integer >= 0, got {iterations!r}")
    k = jst.n_classes
    codes = None
    for _ in range(int(iterations)):
        regions = diff_regions(jst)
        in1 = sorted({r.leaf1 for r in regions})
        in2 = sorted({r.leaf2 for r in regions})
        trees = []
        changed = False
        if codes is None and (in1 or in2):
            codes = _Codes(X)
        for tree, y, leaves in ((jst.tree1, y1, in1), (jst.tree2, y2, in2)):
            b = _Builder.thaw(tree, k)
            leaf_of = tree.apply(X)
            g = _Grower(X, k, 0, jst.criterion, codes=codes) if leaves else None
            for leaf in leaves:
                if tree.pure[leaf]:
                    continue
                idx = np.nonzero(leaf_of == leaf)[0]
                if idx.size < 2:
                    continue
                best = g.search(idx, [y])[0][0]
                if best.f < 0:
                    continue
                t, li, ri = g.split(idx, best)
                depth = int(tree.depth[leaf]) + 1
                a = b.add(np.bincount(y[li], minlength=k), depth)
                c = b.add(np.bincount(y[ri], minlength=k), depth)
                b.set_split(leaf, best.f, t, a, c)
                changed = True
            trees.append(b.freeze())
        jst = JointTree(trees[0], trees[1], jst.or_nodes, jst.twin, jst.n_features, k, jst.max_depth,
                        jst.criterion, jst.alpha, jst.refinements + 1)
        if not changed:
            break
    return jst


def feature_importances(tree: SurrogateTree, n_features: int, criterion: str = "entropy", *,
                        normalize: bool = True) -> np.ndarray:
    """Total impurity decrease of each feature's splits in ``tree`` (scikit-learn's definition).

    Each split ``t`` with children ``L, R`` adds ``N_t imp(t) - N_L imp(L) - N_R imp(R)``
    (class counts of the training samples; impurity by ``criterion``) to its feature. With
    ``normalize`` the vector sums to 1 (all zeros for a tree without split).
    """
    out = np.zeros(n_features)
    value = tree.value
    for i in np.nonzero(tree.feature >= 0)[0]:
        a, b = tree.left[i], tree.right[i]
        dec = (tree.n_samples[i] * impurity(value[i], criterion) - tree.n_samples[a] * impurity(value[a], criterion)
               - tree.n_samples[b] * impurity(value[b], criterion))
        out[tree.feature[i]] += dec
    if normalize:
        total = out.sum()
        return out / total if total > 0 else out
    return out
