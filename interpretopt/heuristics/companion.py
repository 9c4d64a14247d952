"""Algorithm 1 of "Interpretable Companions for Black-Box Models" (Pan, Wang and Hara): the search core.

A companion rule list ``R = ((d_m, z_m))_{m=1..M}`` over a pool of mined rules is scored by
eq. (4),

    O_{M,alpha}(R) = AUTAC_M(R) - alpha M,
    AUTAC_M(R) = 1/2 sum_{m=1}^{M} (A_m + A_{m-1}) (T_m - T_{m-1})      (Proposition 4)

and searched by the stochastic local search of Algorithm 1: start from three rules; each step
adds, removes, swaps or replaces a rule (probability 1/4 each) and accepts the neighbour with
probability ``exp(delta O / (C0 / log2(1 + n)))`` at step ``n``; the best list seen is returned.

The objective is updated incrementally (:class:`CompanionSearch`): for every list the search
keeps, per position, the bit-packed union of the coverage of the rules up to that position
and three counts (newly covered, correct by the rule, correct by the black box). A move
that first changes position ``p`` only recomputes positions ``p..M``.
:func:`interpretopt.evaluation.autac.autac_reference` recomputes the objective from the
definitions and is the test oracle.

``default_rule=True`` adds, after the ``M`` rules, a default rule (empty antecedent) that
predicts the majority label of the samples no rule covers, so the list reaches ``T = 1``;
the objective is then Proposition 4's area over ``[0, 1]`` of that complete list (the default
is not counted in ``alpha M``). With ``default_rule=False`` the objective is eq. (4) as printed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from interpretopt._validation import as_generator
from interpretopt.evaluation.autac import autac_reference, first_cover_from_coverage
from interpretopt.exceptions import InputError
from interpretopt.heuristics.annealing import AnnealResult, anneal
from interpretopt.heuristics.mining import pack_bool

__all__ = [
    "ALPHA_CANDIDATES",
    "MOVES",
    "CompanionSearch",
    "ListState",
    "crl_acceptance",
    "search_companion_list",
]

#: Algorithm 2's candidates for alpha.
ALPHA_CANDIDATES = (0.01, 0.005, 0.001, 0.0008, 0.0005, 0.0002, 0.0001)
MOVES = ("add", "remove", "swap", "replace")


# =========================================================================== incremental search
def _draw(rng: np.random.Generator, k: int) -> int:
    """Uniform integer in ``[0, k)`` from one ``rng.random()`` (cheaper than ``rng.integers`` per call)."""
    return min(int(rng.random() * k), k - 1)


@dataclass(frozen=True)
class ListState:
    """A rule list (pool indices, in order) with its cached per-position statistics.

    ``cum[m]`` is the packed union of the coverage of rules ``0..m``; ``cov[m]``, ``cor[m]`` and
    ``bbc[m]`` count the samples first covered by rule ``m``, those the rule labels correctly,
    and those the black box labels correctly.
    """

    rules: tuple[int, ...]
    cum: np.ndarray = field(repr=False)
    cov: np.ndarray = field(repr=False)
    cor: np.ndarray = field(repr=False)
    bbc: np.ndarray = field(repr=False)
    value: float = 0.0

    def __len__(self) -> int:
        return len(self.rules)


class CompanionSearch:
    """The objective of eq. (4) over a pool of rules, evaluated incrementally on packed coverage.

    Parameters
    ----------
    packed : uint64 (K, W), coverage of each pool rule (bit i = sample i, padding zero).
    labels : int (K,), the label ``z`` of each pool rule (0/1).
    y : labels (n,) in {0, 1}.
    blackbox_pred : black-box answers (n,) in {0, 1}.
    alpha : length penalty.
    coverage : optional bool (n, K); needed only by :meth:`reference_value`.
    default_rule : bool, default False
        Score the list completed by a default rule (majority label of the samples no rule
        covers) so that it reaches transparency 1 (see the module docstring).
    rule_labels : {"mined", "majority"}, default "mined"
        "mined": each pool rule predicts its own label ``z_j`` (Algorithm 1's pool of pairs
        ``(d_j, z_j)``); "majority": a rule predicts the majority class of the samples it
        captures at its position in the list (as the authors' script does); ``labels`` is then
        ignored.
    """

    def __init__(self, packed, labels, y, blackbox_pred, *, alpha: float = 0.0, coverage=None,
                 rule_labels: str = "mined", backend: str = "auto", default_rule: bool = False):
        if backend not in ("auto", "int", "numpy"):
            raise InputError(f"backend must be 'auto', 'int' or 'numpy', got {backend!r}")
        self.backend = "int" if backend == "auto" else backend
        backend = self.backend
        if rule_labels not in ("mined", "majority"):
            raise InputError(f"rule_labels must be 'mined' or 'majority', got {rule_labels!r}")
        self.majority = rule_labels == "majority"
        self.default_rule = bool(default_rule)
        self.P = np.ascontiguousarray(packed, dtype=np.uint64)
        self.labels = np.asarray(labels).astype(np.int64)
        self.y = np.asarray(y).astype(np.int64).ravel()
        self.bb = np.asarray(blackbox_pred).astype(np.int64).ravel()
        self.n = len(self.y)
        self.K, self.W = self.P.shape
        if len(self.labels) != self.K:
            raise InputError(f"{self.K} pool rules but {len(self.labels)} labels")
        if len(self.bb) != self.n:
            raise InputError(f"y has {self.n} samples but blackbox_pred has {len(self.bb)}")
        self.alpha = float(alpha)
        y1 = pack_bool(self.y == 1)
        y0 = pack_bool(self.y == 0)
        self.Y1 = y1
        self.tot1 = int(np.bitwise_count(y1).sum())
        self.PC = np.where(self.labels[:, None] == 1, self.P & y1, self.P & y0)
        self.BBC = pack_bool(self.bb == self.y)
        self.bb_total = int(np.bitwise_count(self.BBC).sum())
        self.coverage = None if coverage is None else np.asarray(coverage, dtype=bool)
        if backend == "int":
            def to_int(row):
                return int.from_bytes(np.ascontiguousarray(row, dtype="<u8").tobytes(), "little")

            self._Pi = [to_int(r) for r in self.P]
            self._PCi = [to_int(r) for r in self.PC]
            self._Y1i = to_int(y1)
            self._BBCi = to_int(self.BBC)
        self._zero = np.zeros(self.W, dtype=np.uint64)
        self._empty = np.zeros((0, self.W), dtype=np.uint64)

    # ------------------------------------------------------------------ objective
    def _default_counts(self, covered: int, covered1: int) -> tuple[int, int]:
        """(uncovered samples, those the default rule's majority label gets right)."""
        u = self.n - covered
        d1 = self.tot1 - covered1
        return u, max(d1, u - d1)

    def value_from_counts(self, cov: np.ndarray, cor: np.ndarray, bbc: np.ndarray, last_union=None) -> float:
        """``AUTAC - alpha M`` from the per-position counts (``last_union``: packed coverage of
        the whole list, needed with ``default_rule``)."""
        M = len(cov)
        A = np.empty(M + 1)
        A[0] = self.bb_total
        A[1:] = np.cumsum(cor) + self.bb_total - np.cumsum(bbc)
        area = 0.5 * float(np.dot(A[1:] + A[:-1], cov)) if M else 0.0
        if self.default_rule:
            if last_union is None:
                covered = covered1 = 0
            else:
                covered = int(np.bitwise_count(last_union).sum())
                covered1 = int(np.bitwise_count(last_union & self.Y1).sum())
            u, dcor = self._default_counts(covered, covered1)
            a_last = float(A[-1])
            a_def = float(np.sum(cor)) + dcor if M else float(dcor)
            area += 0.5 * (a_last + a_def) * u
        return area / (self.n * self.n) - self.alpha * M

    def _build_int(self, prefix: ListState | None, p: int, rules: tuple[int, ...], suffix=None) -> ListState:
        if prefix is None or p == 0:
            cum, cov, cor, bbc, prev = [], [], [], [], 0
        else:
            cum, cov, cor, bbc = list(prefix.cum[:p]), list(prefix.cov[:p]), list(prefix.cor[:p]), list(prefix.bbc[:p])
            prev = cum[-1]
        P, PC, BBC, Y1, maj = self._Pi, self._PCi, self._BBCi, self._Y1i, self.majority
        # suffix = (q, off): rules[m] == prefix.rules[m + off] for m >= q. Once the union of the
        # rules before m equals the old union before m + off, every later position is unchanged.
        q, off = suffix if (suffix is not None and prefix is not None) else (len(rules) + 1, 0)
        old_cum = prefix.cum if prefix is not None else ()
        for m in range(p, len(rules)):
            if m >= q:
                k = m + off
                if prev == (old_cum[k - 1] if k > 0 else 0):
                    cum.extend(old_cum[k:])
                    cov.extend(prefix.cov[k:])
                    cor.extend(prefix.cor[k:])
                    bbc.extend(prefix.bbc[k:])
                    break
            x = P[rules[m]]
            new = x & ~prev
            prev = prev | x
            cum.append(prev)
            c = new.bit_count()
            cov.append(c)
            if maj:
                c1 = (new & Y1).bit_count()
                cor.append(c1 if c1 >= c - c1 else c - c1)
            else:
                cor.append((new & PC[rules[m]]).bit_count())
            bbc.append((new & BBC).bit_count())
        # AUTAC from the counts (pure Python: M is small)
        n, b0 = self.n, self.bb_total
        area, a_prev, sc, sb = 0, b0, 0, 0
        for c, k, b in zip(cov, cor, bbc):
            sc += k
            sb += b
            a = sc + b0 - sb
            area += (a + a_prev) * c
            a_prev = a
        if self.default_rule:
            last = cum[-1] if cum else 0
            u, dcor = self._default_counts(last.bit_count(), (last & Y1).bit_count())
            area += (a_prev + sc + dcor) * u
        value = 0.5 * area / (n * n) - self.alpha * len(cov)
        return ListState(tuple(rules), tuple(cum), tuple(cov), tuple(cor), tuple(bbc), value)

    def _build(self, prefix: ListState | None, p: int, rules: tuple[int, ...], suffix=None) -> ListState:
        """State of ``rules`` reusing positions ``< p`` of ``prefix`` (which must agree there).

        ``suffix = (q, off)`` says that ``rules[m] == prefix.rules[m + off]`` for ``m >= q``; the
        "int" backend then stops recomputing as soon as the union before a position matches the
        old one (positions after it capture exactly what they captured before).
        """
        if self.backend == "int":
            return self._build_int(prefix, p, rules, suffix)
        M = len(rules)
        if prefix is None or p == 0:
            head_cum, head_cov, head_cor, head_bbc = self._empty, (), (), ()
            prev = self._zero
        else:
            head_cum, head_cov = prefix.cum[:p], prefix.cov[:p]
            head_cor, head_bbc = prefix.cor[:p], prefix.bbc[:p]
            prev = prefix.cum[p - 1]
        if p >= M:
            cum = np.ascontiguousarray(head_cum[:M])
            cov, cor, bbc = (np.asarray(a[:M], dtype=np.int64) for a in (head_cov, head_cor, head_bbc))
        else:
            tail = np.fromiter(rules[p:], dtype=np.int64, count=M - p)
            rows = self.P[tail]
            acc = np.bitwise_or.accumulate(rows, axis=0)
            acc |= prev
            L = M - p
            # new[m] = rows[m] & ~(union of the rules before m); packed with the two masks for one popcount
            stack = np.empty((3, L, self.W), dtype=np.uint64)
            new = stack[0]
            np.invert(acc[:-1], out=new[1:])
            new[0] = ~prev
            new &= rows
            np.bitwise_and(new, self.Y1 if self.majority else self.PC[tail], out=stack[1])
            np.bitwise_and(new, self.BBC, out=stack[2])
            counts = np.bitwise_count(stack).sum(axis=2, dtype=np.int64)
            t_cov, t_c, t_bbc = counts[0], counts[1], counts[2]
            t_cor = np.maximum(t_c, t_cov - t_c) if self.majority else t_c
            if p == 0:
                cum, cov, cor, bbc = acc, t_cov, t_cor, t_bbc
            else:
                cum = np.concatenate([head_cum, acc])
                cov = np.concatenate([head_cov, t_cov])
                cor = np.concatenate([head_cor, t_cor])
                bbc = np.concatenate([head_bbc, t_bbc])
        last = cum[-1] if len(cov) else None
        return ListState(tuple(rules), cum, cov, cor, bbc, self.value_from_counts(cov, cor, bbc, last))

    def state(self, rules) -> ListState:
        """State of a list computed from scratch (still with packed coverage)."""
        rules = tuple(int(r) for r in rules)
        if len(set(rules)) != len(rules):
            raise InputError(f"a rule list may use each pool rule once, got {rules}")
        if rules and (min(rules) < 0 or max(rules) >= self.K):
            raise InputError(f"rule indices must lie in [0, {self.K - 1}]")
        return self._build(None, 0, rules)

    def reference_value(self, rules) -> float:
        """``O_{M,alpha}`` recomputed from the definitions (needs ``coverage``)."""
        if self.coverage is None:
            raise InputError("reference_value needs the boolean coverage; pass coverage= to CompanionSearch")
        rules = list(rules)
        cov = self.coverage[:, rules]
        labels = self.labels_of(rules, cov)
        if self.default_rule:
            unc = ~cov.any(axis=1) if rules else np.ones(self.n, dtype=bool)
            d1 = int(np.sum(self.y[unc] == 1))
            cov = np.column_stack([cov, np.ones(self.n, dtype=bool)])
            labels = np.append(labels, int(d1 > int(unc.sum()) - d1))
            return autac_reference(cov, labels, self.y, self.bb, alpha=self.alpha) + self.alpha
        return autac_reference(cov, labels, self.y, self.bb, alpha=self.alpha)

    def labels_of(self, rules, coverage=None) -> np.ndarray:
        """The label each rule of the list predicts (majority of its captured samples in "majority" mode)."""
        rules = list(rules)
        if not self.majority:
            return self.labels[rules]
        if coverage is None:
            from interpretopt.rules import unpack_coverage

            coverage = unpack_coverage(self.P[rules], self.n).reshape(self.n, len(rules))
        fc = first_cover_from_coverage(coverage)
        out = np.zeros(len(rules), dtype=np.int64)
        for m in range(len(rules)):
            mine = fc == m
            c1 = int(np.sum(self.y[mine] == 1))
            out[m] = int(c1 > mine.sum() - c1)
        return out

    # ------------------------------------------------------------------ moves (Algorithm 1)
    def _pool_rule_not_in(self, rules: tuple[int, ...], rng: np.random.Generator) -> int | None:
        if len(rules) >= self.K:
            return None
        used = set(rules)
        while True:
            r = _draw(rng, self.K)
            if r not in used:
                return r

    def move(self, state: ListState, kind: str, rng: np.random.Generator) -> ListState | None:
        """Apply one move of Algorithm 1; ``None`` when the move is impossible on this list."""
        rules = state.rules
        M = len(rules)
        if kind == "add":
            r = self._pool_rule_not_in(rules, rng)
            if r is None:
                return None
            pos = _draw(rng, M + 1)
            new = rules[:pos] + (r,) + rules[pos:]
            return self._build(state, pos, new, (pos + 1, -1))
        if kind == "remove":
            if M <= 1:
                return None
            pos = _draw(rng, M)
            return self._build(state, pos, rules[:pos] + rules[pos + 1:], (pos, 1))
        if kind == "swap":
            if M < 2:
                return None
            i = _draw(rng, M)
            j = _draw(rng, M - 1)
            if j >= i:
                j += 1
            if j < i:
                i, j = j, i
            lst = list(rules)
            lst[i], lst[j] = lst[j], lst[i]
            return self._build(state, i, tuple(lst), (j + 1, 0))
        if kind == "replace":
            if M == 0:
                return None
            r = self._pool_rule_not_in(rules, rng)
            if r is None:
                return None
            pos = _draw(rng, M)
            lst = list(rules)
            lst[pos] = r
            return self._build(state, pos, tuple(lst), (pos + 1, 0))
        raise InputError(f"unknown move {kind!r}; valid moves are {MOVES}")

    def propose(self, state: ListState, value: float, rng: np.random.Generator):
        """Algorithm 1's neighbour: add / remove / swap / replace with probability 1/4 each."""
        delta = rng.random()
        kind = MOVES[0] if delta < 0.25 else MOVES[1] if delta < 0.5 else MOVES[2] if delta < 0.75 else MOVES[3]
        cand = self.move(state, kind, rng)
        if cand is None:
            return None
        return cand, cand.value


def crl_acceptance(C0: float):
    """Algorithm 1's acceptance: keep the neighbour with probability ``exp(dO / (C0 / log2(1 + n)))``.

    ``n`` is the 1-based step; the annealing core counts steps from 0.
    """

    def accept(delta: float, k: int, rng: np.random.Generator) -> bool:
        if delta >= 0:
            return True
        temperature = C0 / math.log2(2 + k)
        return rng.random() < math.exp(delta / temperature)

    return accept


def search_companion_list(
    problem: CompanionSearch,
    *,
    n_iter: int = 50_000,
    C0: float = 0.001,
    init: tuple[int, ...] | None = None,
    n_init: int = 3,
    rng=None,
    callback=None,
) -> AnnealResult:
    """Algorithm 1: stochastic local search from ``n_init`` (3) random pool rules."""
    rng = as_generator(rng)
    if init is None:
        k = min(n_init, problem.K)
        init = tuple(int(v) for v in rng.choice(problem.K, size=k, replace=False))
    start = problem.state(init)
    return anneal(start, start.value, problem.propose, n_iter, rng, accept=crl_acceptance(C0), callback=callback)


