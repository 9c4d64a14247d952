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
antecedents at once. The reference package (GPL) is not a dependency; ``benchmarks/bench_crl.py``
compares with it when it is installed.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field

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
    __slots__ = ("parent", "rid", "depth", "lb", "obj", "eq", "children", "done", "deleted", "ncap")

    def __init__(self, parent, rid, depth, lb, obj, eq, ncap):
        self.parent, self.rid, self.depth = parent, rid, depth
        self.lb, self.obj, self.eq, self.ncap = lb, obj, eq, ncap
        self.children: dict = {}
        self.done = False
        self.deleted = False

    def prefix(self) -> tuple[int, ...]:
        out = []
        node = self
        while node.parent is not None:
            out.append(node.rid)
            node = node.parent
        return tuple(reversed(out))


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
        enter it. The reference then runs on in C++; here one expansion costs milliseconds and the
        permutation map grows with every push (compas, ``lam = 0``, ``"dfs"``, 100k nodes: more
        than 35 CPU minutes and 11 GB on one fold). A search stopped by this cap is
        ``"feasible"`` with its bound, as one stopped by ``max_nodes``.
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
    max_exp = np.inf if max_expansions is None else max_expansions
    if max_length is not None:
        check_int("max_length", max_length, 0, None)
    if policy not in POLICIES:
        raise InputError(f"unknown CORELS policy {policy!r}; valid policies are {POLICIES}")
    if P.ndim != 2 or P.shape[1] * 64 < len(y):
        raise InputError(f"packed must be (J, ceil(n/64)) uint64 words for n={len(y)}, got shape {P.shape}")
    snaps = sorted({int(s) for s in snapshot_nodes if int(s) < max_nodes})
    n = len(y)
    J = P.shape[0]
    L = np.inf if max_length is None else max_length
    zeros = pack_bool(y == 0)
    n0 = int(_count(zeros))
    E = _equivalent_minority(P, y) if equivalent_points and J else None
    threshold = lam * n
    everything = pack_bool(np.ones(n, dtype=bool))

    counter = itertools.count()

    def priority(node: _Node):
        k = next(counter)
        if policy == "bfs":
            return (node.depth, k)
        if policy == "dfs":
            return (-node.depth, k)
        if policy == "lower_bound":
            return (node.lb, k)
        if policy == "objective":
            return (node.obj, k)
        return ((node.lb - node.eq) * n / max(node.ncap, 1), k)  # curious

    # root: the empty prefix, default label only (ties to 1, as the reference)
    eq0 = float(_count(E)) / n if E is not None else 0.0
    root = _Node(None, -1, 0, eq0, min(n0, n - n0) / n, eq0, 0)
    state = {"n_nodes": 1, "min_obj": root.obj, "best": root, "best_prefix": (), "n_expanded": 0}
    queue: list = [(priority(root), root)]
    pmap: dict = {}

    def delete_subtree(node: _Node) -> None:
        if node.done:
            for ch in list(node.children.values()):
                delete_subtree(ch)
            state["n_nodes"] -= 1
        else:
            node.deleted = True  # a queued leaf: counted until it is popped

    def prune_up(node: _Node) -> None:
        while not node.children:
            if node.parent is not None:
                del node.parent.children[node.rid]
                state["n_nodes"] -= 1
                node = node.parent
            else:
                state["n_nodes"] -= 1
                break

    def garbage_collect() -> None:
        stack = [root]
        m = state["min_obj"]
        while stack:
            node = stack.pop()
            for rid, ch in list(node.children.items()):
                if ch.lb + lam >= m:
                    del node.children[rid]
                    delete_subtree(ch)
                else:
                    stack.append(ch)

    def find(prefix) -> _Node | None:
        node = root
        for r in prefix:
            node = node.children.get(r)
            if node is None:
                return None
        return node

    def result(status: str) -> CorelsResult:
        obj = state["min_obj"]
        if status == "optimal":
            bound = obj
        else:
            live = [nd.lb + lam for _, nd in queue if not nd.deleted]
            bound = min([obj] + live)
        objective, labels, default = rule_list_objective(P, y, state["best_prefix"], lam)
        return CorelsResult(state["best_prefix"], labels, default, objective, status, float(bound),
                            float(max(objective - bound, 0.0)), int(state["n_nodes"]), int(state["n_expanded"]),
                            int(max_nodes))

    snapshots: dict = {}
    while True:
        while snaps and state["n_nodes"] >= snaps[0]:
            snapshots[snaps.pop(0)] = result("feasible" if queue else "optimal")
        if not (state["n_nodes"] < max_nodes and state["n_expanded"] < max_exp and queue):
            break
        # ---- select (the reference's Queue::select)
        node = None
        while queue:
            _, cand = heapq.heappop(queue)
            if cand.deleted or cand.lb + lam >= state["min_obj"]:
                state["n_nodes"] -= 1
                if not cand.deleted and cand.parent is not None and cand.parent.children.get(cand.rid) is cand:
                    del cand.parent.children[cand.rid]
                continue
            node = cand
            break
        if node is None:
            break
        state["n_expanded"] += 1
        prefix = node.prefix()
        captured = np.zeros(P.shape[1], dtype=np.uint64)
        for a in prefix:
            captured |= P[a]
        not_cap = everything & ~captured
        # ---- evaluate_children, vectorized over the antecedents
        new = P & not_cap
        cap = _count(new)
        c0 = _count(new & zeros)
        c1 = cap - c0
        pred = (c0 <= c1).astype(np.int64)
        correct = np.where(pred == 1, c1, c0)
        ok = (cap >= threshold) & (correct >= threshold)
        if prefix:
            ok[list(prefix)] = False
        cand_idx = np.flatnonzero(ok)
        length = node.depth + 1
        improved = False
        n_before = len(node.children)
        if cand_idx.size:
            lb = node.lb - node.eq + (cap[cand_idx] - correct[cand_idx]) / n + lam
            rest = int(_count(not_cap))
            rest0 = int(_count(not_cap & zeros))
            nn = rest - cap[cand_idx]
            d0 = rest0 - c0[cand_idx]
            d1 = nn - d0
            obj = lb + np.minimum(d0, d1) / n  # ties to 1: errors = d0 when d0 <= d1
            # the running R* each child sees (children are evaluated in antecedent order)
            before = np.minimum.accumulate(np.concatenate([[state["min_obj"]], obj]))
            seen, after = before[:-1], before[1:]
            alive = lb < seen
            upd = np.flatnonzero(alive & (obj < seen))
            if upd.size:
                j = int(upd[-1])
                state["min_obj"] = float(after[-1])
                state["best_prefix"] = prefix + (int(cand_idx[j]),)
                improved = True
            if E is not None:
                e_rest = int(_count(E & not_cap))
                eq = (e_rest - _count(E & new[cand_idx])) / n
            else:
                eq = np.zeros(cand_idx.size)
            lb_eq = lb + eq
            push = np.flatnonzero(alive & (lb_eq + lam < after))
            if length < L and push.size:
                pset = prefix
                plen = len(pset)
                sorted_p = tuple(sorted(pset))
                a_list = cand_idx[push].tolist()
                b_list = lb_eq[push].tolist()
                o_list = obj[push].tolist()
                e_list = np.asarray(eq, dtype=float)[push].tolist()
                c_list = (n - nn[push]).tolist()
                if policy == "curious":
                    pr_list = [(b - e) * n / max(c, 1) for b, e, c in zip(b_list, e_list, c_list)]
                elif policy == "lower_bound":
                    pr_list = b_list
                elif policy == "objective":
                    pr_list = o_list
                else:
                    pr_list = [length if policy == "bfs" else -length] * len(a_list)
                children = node.children
                for a, b, o, e, c, pr in zip(a_list, b_list, o_list, e_list, c_list, pr_list):
                    if plen == 0:
                        key = (a,)
                    elif plen == 1:
                        key = (sorted_p[0], a) if sorted_p[0] < a else (a, sorted_p[0])
                    else:
                        key = tuple(sorted(sorted_p + (a,)))
                    prev = pmap.get(key)
                    if prev is not None:
                        if not b < prev[0]:
                            continue
                        old = find(prev[1])
                        if old is not None:
                            del old.parent.children[old.rid]
                            delete_subtree(old)
                    pmap[key] = (b, pset + (a,))
                    child = _Node(node, a, length, b, o, e, c)
                    children[a] = child
                    heapq.heappush(queue, ((pr, next(counter)), child))
                state["n_nodes"] += len(children) - n_before
        if not node.children:
            prune_up(node)
        else:
            node.done = True
        if improved:
            garbage_collect()
    status = "feasible" if (queue and any(not nd.deleted and nd.lb + lam < state["min_obj"] for _, nd in queue)) \
        else "optimal"
    out = result(status)
    for s in snaps:  # budgets never reached: the run would have ended the same way
        snapshots[s] = out
    return CorelsResult(**{**out.__dict__, "snapshots": snapshots})
