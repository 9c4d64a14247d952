"""CORELS: certifiably optimal rule lists by prefix branch-and-bound (Angelino et al., KDD 2017).

A rule list ``d = (d_p, delta_p, q_0, K)`` is a prefix of ``K`` antecedents from a pool, each
labelled by the majority class of the samples it captures, followed by a default label (the
majority of the samples no antecedent captures). CORELS minimizes the regularized risk

    R(d, x, y) = l(d, x, y) + c K,

the misclassification rate plus ``c`` (here ``lam``) per rule, by best-first search over
prefixes with the bounds of the paper, as the reference implementation (``corels`` C++ core
used by pycorels, which the CRL paper ran) applies them:

- hierarchical objective lower bound (Theorem 1): ``b(d_p) = l_p(d_p) + c K`` (errors of the
  prefix alone); a child with ``b >= R*`` is not evaluated further;
- lower bounds on antecedent support (Theorems 3 and 4): an antecedent must capture at least
  ``c n`` samples, and classify at least ``c n`` of them correctly;
- equivalent-points bound (Theorem 20): the minority of each group of samples with identical
  pool coverage is misclassified whatever the list; the share of them not captured by the
  prefix is added to ``b``;
- one-step lookahead (Lemma 2): a child is queued only when ``b + c < R*``;
- permutation bound (Corollary 16), the reference's default "prefix" map: of prefixes that use
  the same antecedents, only the one with the smallest ``b`` is kept (a better one deletes the
  worse one's subtree).

Search policies as the reference's queue orders: ``"bfs"`` (shallowest first), ``"dfs"``
(deepest first), ``"lower_bound"`` (smallest ``b``), ``"objective"`` (smallest ``R``) and
``"curious"`` (smallest ``(b - eq) n / captured``, where ``eq`` is the node's equivalent-points
share, i.e. the prefix's own bound per captured sample).

``max_nodes`` is the reference's budget in its own units: the number of nodes in the prefix
trie (the cache). A node is counted when it is inserted; it leaves the count when it is
pruned (evaluated with no viable child, recursively up the tree), garbage-collected after an
improvement of ``R*`` (interior nodes at once, queued leaves when they are popped), or popped
with ``b + c >= R*``. The search stops when the count reaches ``max_nodes`` or the queue is
empty; only the latter certifies optimality. The pycorels ``n_iter`` that the CRL paper's
Algorithm 3 tunes (100k-300k) is this budget.

Coverage is bit-packed in ``uint64`` words; the children of a node are evaluated for all
antecedents at once (one AND and one popcount over the antecedents, their label-0 samples and
their equivalent-points samples stacked), and their permutation-map keys (the sorted antecedent
indices, as bytes) are built for all of them at once; the map keeps the best prefix's node itself. The search runs with Python's cyclic garbage collector paused: its
full passes over the millions of live trie nodes were most of the CPU time of a large search
(compas, ``curious``, 10^6 nodes: over 4 CPU minutes with it, 6 s without); nodes are freed by
reference counting as they leave the trie (a deleted subtree's links are cut), so memory does
not depend on the collector. The reference package (GPL) is not a dependency; ``benchmarks/bench_corels.py`` (CPU and
memory) and ``benchmarks/bench_crl.py`` compare with it when it is installed.
"""

from __future__ import annotations

import contextlib
import gc
import heapq
from dataclasses import dataclass, field, replace

import numpy as np

from interpretopt._validation import check_in_range, check_int
from interpretopt.exceptions import InputError
from interpretopt.heuristics.mining import pack_bool

__all__ = ["CorelsResult", "POLICIES", "corels", "rule_list_objective"]

POLICIES = ("curious", "lower_bound", "objective", "bfs", "dfs")


@dataclass(frozen=True)
class CorelsResult:
    """The best list found.

    Attributes
    ----------
    prefix : tuple of pool indices (antecedents in order).
    labels : tuple of 0/1 labels, one per antecedent.
    default : the default label.
    objective : ``R(d)``.
    status : "optimal" when the queue was exhausted (``objective`` is the optimum over the
        pool, within ``max_length`` if set), else "feasible" (the node budget ran out).
    bound : a valid lower bound on the optimal ``R``: ``objective`` when optimal, else the
        smallest ``b + c`` over the prefixes still queued (capped by ``objective``).
    gap : ``objective - bound`` (absolute, in units of ``R``).
    n_nodes : nodes in the prefix trie when the search stopped (the budget's units).
    n_expanded : prefixes whose children were evaluated.
    max_nodes : the budget.
    snapshots : ``{budget: CorelsResult}`` for every extra budget asked for with
        ``snapshot_nodes``: the result a run with that budget would have returned (the search
        is deterministic, so a run with a smaller budget is a prefix of this one).
    """

    prefix: tuple[int, ...]
    labels: tuple[int, ...]
    default: int
    objective: float
    status: str
    bound: float
    gap: float
    n_nodes: int
    n_expanded: int
    max_nodes: int
    snapshots: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def certified(self) -> bool:
        """True when the objective is proven optimal (the queue was exhausted)."""
        return self.status == "optimal"


def _count(words: np.ndarray) -> np.ndarray:
    return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)


def rule_list_objective(packed, y, prefix, lam: float) -> tuple[float, tuple[int, ...], int]:
    """From-scratch ``R(d)`` of a prefix with majority labels; returns (objective, labels, default).

    Ties go to label 1, as the reference (``c0 > c1`` predicts 0).
    """
    P = np.asarray(packed, dtype=np.uint64)
    y = np.asarray(y).astype(np.int64).ravel()
    n = len(y)
    y1 = pack_bool(y == 1)
    cum = np.zeros(P.shape[1], dtype=np.uint64)
    errors = 0
    labels = []
    for a in prefix:
        new = P[a] & ~cum
        c = int(_count(new))
        c1 = int(_count(new & y1))
        labels.append(int(not (c - c1 > c1)))
        errors += min(c1, c - c1)
        cum |= P[a]
    rest = n - int(_count(cum))
    rest1 = int(_count(y1)) - int(_count(cum & y1))
    default = int(not (rest - rest1 > rest1))
    errors += min(rest1, rest - rest1)
    return errors / n + lam * len(prefix), tuple(labels), default


def _equivalent_minority(packed: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Packed mask of the samples the equivalent-points bound counts: in each group of samples
    with identical pool coverage, every sample of the minority label (label 1 on ties, as the
    reference's ``minority``)."""
    n = len(y)
    from interpretopt.rules import unpack_coverage

    cov = unpack_coverage(packed, n) if packed.shape[0] else np.zeros((n, 0), dtype=bool)
    keys = np.packbits(cov, axis=1) if cov.shape[1] else np.zeros((n, 1), dtype=np.uint8)
    _, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.ravel()
    n_groups = inv.max() + 1
    ones = np.bincount(inv, weights=(y == 1), minlength=n_groups)
    zeros = np.bincount(inv, minlength=n_groups) - ones
    ones_minor = ones <= zeros  # ties: the ones are the minority
    mask = np.where(y == 1, ones_minor[inv], ~ones_minor[inv])
    return pack_bool(mask)


class _Node:
    """A prefix in the trie; ``children`` stays None until the node is expanded."""

    __slots__ = ("parent", "rid", "depth", "lb", "eq", "children", "done", "deleted")

    def __init__(self, parent, rid, depth, lb, eq):
        self.parent, self.rid, self.depth, self.lb, self.eq = parent, rid, depth, lb, eq
        self.children = None
        self.done = False
        self.deleted = False

    def prefix(self) -> tuple[int, ...]:
        out = []
        node = self
        while node.parent is not None:
            out.append(node.rid)
            node = node.parent
        return tuple(reversed(out))


@contextlib.contextmanager
def _collector_paused():
    """Pause Python's cyclic garbage collector (restored on exit): see the module docstring."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Search:
    """One CORELS search: the reference's cache trie, queue, permutation map and incumbent.

    Queue entries are ``(priority, insertion counter, node)``; the permutation map sends the
    sorted antecedent indices of a prefix (bytes) to the node of the best prefix of that set seen
    so far (its ``lb`` is that prefix's ``b``), which may since have left the trie. A prefix is
    created at most once (each node is expanded once), so that node is the only one its path ever
    held.
    """

    def __init__(self, P, y, lam, policy, max_length, equivalent_points):
        self.P, self.y, self.lam, self.policy = P, y, lam, policy
        self.n = n = len(y)
        self.L = np.inf if max_length is None else max_length
        self.zeros = pack_bool(y == 0)
        n0 = int(_count(self.zeros))
        self.E = _equivalent_minority(P, y) if equivalent_points and P.shape[0] else None
        self.threshold = lam * n
        self.everything = pack_bool(np.ones(n, dtype=bool))
        self.key_dtype = np.uint16 if P.shape[0] < 2**16 else np.uint32
        self.M = self._count_rows(P)
        eq0 = float(_count(self.E)) / n if self.E is not None else 0.0
        # root: the empty prefix, default label only (ties to 1, as the reference)
        self.root = _Node(None, -1, 0, eq0, eq0)
        self.n_nodes, self.n_expanded = 1, 0
        self.min_obj = min(n0, n - n0) / n
        self.best_prefix: tuple[int, ...] = ()
        self.queue: list = [(0.0, 0, self.root)]  # alone in the queue: its priority is never compared
        self.counter = 1
        self.pmap: dict = {}

    def _count_rows(self, P: np.ndarray) -> np.ndarray:
        """The rows whose captures one expansion counts, stacked so that one AND and one popcount
        give them all: the antecedents, the antecedents' label-0 samples, their equivalent-points
        samples, then everything, the label-0 samples and the equivalent-points samples."""
        E = self.E if self.E is not None else np.zeros_like(self.zeros)
        P = P & self.everything  # no padding bit is ever counted
        return np.ascontiguousarray(np.vstack([P, P & self.zeros, P & E, self.everything, self.zeros, E]))

    # ---- the trie's bookkeeping (the reference's CacheTree)
    def delete_subtree(self, node: _Node) -> None:
        if node.done:
            for ch in list((node.children or {}).values()):
                self.delete_subtree(ch)
            node.children = None  # cut the links: reference counting frees the subtree
            self.n_nodes -= 1
        else:
            node.deleted = True  # a queued leaf: counted until it is popped

    def prune_up(self, node: _Node) -> None:
        while not node.children:
            self.n_nodes -= 1
            node.children = None  # an empty dict: the permutation map may keep the node
            parent = node.parent
            if parent is None:
                break
            del parent.children[node.rid]
            node = parent

    def garbage_collect(self) -> None:
        """After ``R*`` improved: delete every subtree whose ``b + c >= R*``."""
        stack = [self.root]
        m, lam = self.min_obj, self.lam
        while stack:
            node = stack.pop()
            if not node.children:
                continue
            for rid, ch in list(node.children.items()):
                if ch.lb + lam >= m:
                    del node.children[rid]
                    self.delete_subtree(ch)
                else:
                    stack.append(ch)

    @staticmethod
    def in_trie(node: _Node) -> bool:
        """Whether ``node`` is still linked from the root (no ancestor left the trie)."""
        parent = node.parent
        while parent is not None:
            siblings = parent.children
            if not siblings or siblings.get(node.rid) is not node:
                return False
            node, parent = parent, parent.parent
        return True

    # ---- the search (the reference's bbound loop)
    def select(self) -> _Node | None:
        """Pop the next live prefix (the reference's Queue::select); dead ones leave the count."""
        queue, lam = self.queue, self.lam
        while queue:
            cand = heapq.heappop(queue)[2]
            if cand.deleted or cand.lb + lam >= self.min_obj:
                self.n_nodes -= 1
                parent = cand.parent
                if not cand.deleted and parent is not None and parent.children.get(cand.rid) is cand:
                    del parent.children[cand.rid]
                continue
            return cand
        return None

    def expand(self, node: _Node) -> None:
        """Evaluate the children of ``node`` for all antecedents at once (evaluate_children)."""
        self.n_expanded += 1
        prefix = node.prefix()
        J = self.P.shape[0]
        if prefix:
            captured = np.bitwise_or.reduce(self.P[list(prefix)], axis=0)
            counts = np.add.reduce(np.bitwise_count(self.M & ~captured), axis=1, dtype=np.int64)
        else:
            counts = np.add.reduce(np.bitwise_count(self.M), axis=1, dtype=np.int64)
        cap, c0 = counts[:J], counts[J:2 * J]
        correct = np.maximum(c0, cap - c0)  # the captured majority (ties: label 1, as many)
        ok = correct >= self.threshold  # Theorem 4; it implies Theorem 3 (captured >= correct)
        if prefix:
            ok[list(prefix)] = False
        cand = ok.nonzero()[0]
        improved = self._bound_children(node, prefix, counts, correct, cand) if cand.size else False
        if not node.children:
            self.prune_up(node)
        else:
            node.done = True
        if improved:
            self.garbage_collect()

    def _bound_children(self, node, prefix, counts, correct, cand) -> bool:
        """Bounds and objectives of the children (Theorem 1, Theorem 20, Lemma 2); updates ``R*``
        as the reference does, children in antecedent order; returns whether ``R*`` improved.
        ``counts`` are the captures of :meth:`_count_rows`'s rows among the samples the prefix
        leaves uncaptured."""
        n, lam, J = self.n, self.lam, self.P.shape[0]
        cap_c = counts[cand]
        lb = node.lb - node.eq + (cap_c - correct[cand]) / n + lam
        rest, rest0, rest_e = counts[3 * J:].tolist()
        nn = rest - cap_c
        d0 = rest0 - counts[J + cand]
        obj = lb + np.minimum(d0, nn - d0) / n  # ties to 1: errors = d0 when d0 <= d1
        # the running R* each child sees (children are evaluated in antecedent order)
        before = np.minimum.accumulate(np.concatenate([[self.min_obj], obj]))
        seen, after = before[:-1], before[1:]
        alive = lb < seen
        upd = (alive & (obj < seen)).nonzero()[0]
        if upd.size:
            self.min_obj = float(after[-1])
            self.best_prefix = prefix + (int(cand[int(upd[-1])]),)
        if self.E is not None:
            eq = (rest_e - counts[2 * J + cand]) / n
        else:
            eq = np.zeros(cand.size)
        lb_eq = lb + eq
        push = (alive & (lb_eq + lam < after)).nonzero()[0]
        if node.depth + 1 < self.L and push.size:
            self._push_children(node, prefix, cand[push], lb_eq[push], obj[push], eq[push], n - nn[push])
        return bool(upd.size)

    def _priorities(self, length, b_arr, o_arr, e_arr, c_arr) -> list:
        """The queue orders of the reference's policies for a batch of children."""
        if self.policy == "curious":  # the prefix's own bound per captured sample (CacheTree::construct_node)
            return ((b_arr - e_arr) * self.n / np.maximum(c_arr, 1)).tolist()
        if self.policy == "lower_bound":
            return b_arr.tolist()
        if self.policy == "objective":
            return o_arr.tolist()
        return [length if self.policy == "bfs" else -length] * b_arr.size

    def _push_children(self, node, prefix, a_arr, b_arr, o_arr, e_arr, c_arr) -> None:
        """Insert the children that pass the permutation bound (Corollary 16) and queue them."""
        length, plen = node.depth + 1, len(prefix)
        mat = np.empty((a_arr.size, plen + 1), dtype=self.key_dtype)
        mat[:, :plen] = prefix
        mat[:, plen] = a_arr
        mat.sort(axis=1)
        keys = mat.view(np.dtype((np.void, (plen + 1) * mat.itemsize))).ravel().tolist()  # bytes
        pr_list = self._priorities(length, b_arr, o_arr, e_arr, c_arr)
        children = node.children = {} if node.children is None else node.children
        n_before = len(children)
        pmap, queue, counter, push = self.pmap, self.queue, self.counter, heapq.heappush
        for a, b, e, pr, key in zip(a_arr.tolist(), b_arr.tolist(), e_arr.tolist(), pr_list, keys):
            old = pmap.get(key)
            if old is not None:
                if not b < old.lb:
                    continue
                if self.in_trie(old):
                    del old.parent.children[old.rid]
                    self.delete_subtree(old)
            child = pmap[key] = _Node(node, a, length, b, e)
            children[a] = child
            push(queue, (pr, counter, child))
            counter += 1
        self.counter = counter
        self.n_nodes += len(children) - n_before

    def release(self) -> None:
        """Cut the trie's parent/child cycles so that reference counting frees it at once (the
        collector, resumed with a million young nodes, would otherwise traverse them all)."""
        stack = [self.root]
        while stack:  # the children dicts are the only downward links: dropping them leaves a forest
            node = stack.pop()
            if node.children:
                stack.extend([ch for ch in node.children.values() if ch.children])
            node.children = None
        self.queue = []
        self.pmap = {}

    def live_bound(self, queued_min_lb: float | None = None) -> float:
        """The smallest ``b + c`` over the live queued prefixes and ``R*`` (``min(b) + c`` is the
        same float: adding ``c`` is monotone under rounding)."""
        lo = self.queued_min_lb() if queued_min_lb is None else queued_min_lb
        return min(self.min_obj, lo + self.lam)

    def queued_min_lb(self) -> float:
        return min([nd.lb for _, _, nd in self.queue if not nd.deleted], default=np.inf)

    def result(self, status: str, max_nodes: int, queued_min_lb: float | None = None) -> CorelsResult:
        bound = self.min_obj if status == "optimal" else self.live_bound(queued_min_lb)
        objective, labels, default = rule_list_objective(self.P, self.y, self.best_prefix, self.lam)
        return CorelsResult(self.best_prefix, labels, default, objective, status, float(bound),
                            float(max(objective - bound, 0.0)), int(self.n_nodes), int(self.n_expanded),
                            int(max_nodes))

    def run(self, max_nodes: int, max_exp, snaps: list) -> CorelsResult:
        """Expand until the node budget, the expansion cap or the queue runs out."""
        snapshots: dict = {}
        while True:
            while snaps and self.n_nodes >= snaps[0]:
                snapshots[snaps.pop(0)] = self.result("feasible" if self.queue else "optimal", max_nodes)
            if not (self.n_nodes < max_nodes and self.n_expanded < max_exp and self.queue):
                break
            node = self.select()
            if node is None:
                break
            self.expand(node)
        lo = self.queued_min_lb()
        out = self.result("feasible" if lo + self.lam < self.min_obj else "optimal", max_nodes, lo)
        for s in snaps:  # budgets never reached: the run would have ended the same way
            snapshots[s] = out
        return replace(out, snapshots=snapshots)


def corels(
    packed,
    y,
    *,
    lam: float = 0.01,
    policy: str = "lower_bound",
    max_nodes: int = 10_000,
    max_length: int | None = None,
    max_expansions: int | None = None,
    equivalent_points: bool = True,
    snapshot_nodes=(),
    rng=None,
) -> CorelsResult:
    """Branch-and-bound search for the rule list minimizing ``errors / n + lam * K``.

    Parameters
    ----------
    packed : uint64 (J, W), bit-packed coverage of the candidate antecedents.
    y : labels (n,) in {0, 1}.
    lam : float, default 0.01 (the reference's ``c``; the CRL authors' script uses 0).
    policy : one of :data:`POLICIES`, default "lower_bound" (pycorels' default).
    max_nodes : int, default 10_000 (pycorels' ``n_iter``): the trie-node budget (module docstring).
    max_length : optional cap on the number of antecedents (the reference has none).
    max_expansions : optional cap on the number of nodes expanded (the reference has none). The
        trie count can stay below ``max_nodes`` indefinitely: when each expanded node's children
        are pruned at once (``lam = 0`` with ``"dfs"``, say), nodes leave the trie as fast as they
        enter it, while the permutation map grows with every push. A search stopped by this cap
        is ``"feasible"`` with its bound, as one stopped by ``max_nodes``.
    equivalent_points : use the equivalent-points bound.
    snapshot_nodes : smaller budgets whose results to record on the way (Algorithm 3's grid of
        ``N`` in one run).
    rng : unused (the search is deterministic); accepted for a uniform learner signature.
    """
    del rng
    P = np.ascontiguousarray(packed, dtype=np.uint64)
    y = np.asarray(y).astype(np.int64).ravel()
    check_in_range("lam", lam, 0.0, None)
    check_int("max_nodes", max_nodes, 1, None)
    if max_expansions is not None:
        check_int("max_expansions", max_expansions, 1, None)
    if max_length is not None:
        check_int("max_length", max_length, 0, None)
    if policy not in POLICIES:
        raise InputError(f"unknown CORELS policy {policy!r}; valid policies are {POLICIES}")
    if P.ndim != 2 or P.shape[1] * 64 < len(y):
        raise InputError(f"packed must be (J, ceil(n/64)) uint64 words for n={len(y)}, got shape {P.shape}")
    snaps = sorted({int(s) for s in snapshot_nodes if int(s) < max_nodes})
    search = _Search(P, y, lam, policy, max_length, equivalent_points)
    with _collector_paused():
        out = search.run(max_nodes, np.inf if max_expansions is None else max_expansions, snaps)
        search.release()
    return out
