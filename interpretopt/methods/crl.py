"""Companion rule lists (Pan, Wang and Hara, "Interpretable Companions for Black-Box Models").

A companion rule list (CRL) ``R = ((d_m, z_m))_{m=1..M}`` is paired with a pre-trained black
box ``f_b``; a user may answer an input covered by the first ``m`` rules with the rule and
every other input with ``f_b``. Training maximizes (eq. 4)

    O_{M,alpha}(R) = AUTAC_M(R) - alpha M,
    AUTAC_M(R) = 1/2 sum_{m=1}^{M} (A_m + A_{m-1}) (T_m - T_{m-1})      (Proposition 4)

over lists of rules mined by FP-Growth (:mod:`interpretopt.heuristics.mining`), by the
stochastic local search of Algorithm 1: start from three rules; each step adds, removes,
swaps or replaces a rule (probability 1/4 each) and accepts the neighbour with probability
``exp(delta O / (C0 / log2(1 + n)))`` at step ``n``; the best list seen is returned.

The objective is updated incrementally (:class:`CompanionSearch`): for every list the search
keeps, per position, the bit-packed union of the coverage of the rules up to that position
and three counts (newly covered, correct by the rule, correct by the black box). A move
that first changes position ``p`` only recomputes positions ``p..M`` with a handful of
vectorized word operations. :func:`interpretopt.evaluation.autac.autac_reference`
recomputes the objective from the definitions and is the test oracle.

Also here: the tuning of alpha (Algorithm 2), the stochastic CRL of Definition 3
(:meth:`CompanionRuleList.predict_stochastic`), and the baselines of Section 6: rule lists
learnt without the black box (CORELS, SBRL) and then paired with it
(:class:`PairedRuleList`), and stand-alone trees (:func:`tree_marker`; CART, and an
entropy-criterion tree standing in for C4.5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from interpretopt._validation import as_generator, check_in_range, check_int, feature_names_of
from interpretopt.evaluation.autac import (
    TradeoffCurve,
    autac_reference,
    first_cover_from_coverage,
    stochastic_crl_predict,
    tradeoff_curve,
)
from interpretopt.exceptions import InputError
from interpretopt.heuristics.annealing import AnnealResult, anneal
from interpretopt.heuristics.mining import MiningReport, QuantileOneHotBinarizer, RulePool, mine_rules, pack_bool

__all__ = [
    "ALPHA_CANDIDATES",
    "CompanionSearch",
    "ListState",
    "crl_acceptance",
    "search_companion_list",
    "CompanionRuleList",
    "PairedRuleList",
    "tree_marker",
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
    rule_labels : {"mined", "majority"}, default "mined"
        "mined": each pool rule predicts its own label ``z_j`` (Algorithm 1's pool of pairs
        ``(d_j, z_j)``); "majority": a rule predicts the majority class of the samples it
        captures at its position in the list (as the authors' script does); ``labels`` is then
        ignored.
    """

    def __init__(self, packed, labels, y, blackbox_pred, *, alpha: float = 0.0, coverage=None,
                 rule_labels: str = "mined", backend: str = "auto"):
        if backend not in ("auto", "int", "numpy"):
            raise InputError(f"backend must be 'auto', 'int' or 'numpy', got {backend!r}")
        self.backend = "int" if backend == "auto" else backend
        backend = self.backend
        if rule_labels not in ("mined", "majority"):
            raise InputError(f"rule_labels must be 'mined' or 'majority', got {rule_labels!r}")
        self.majority = rule_labels == "majority"
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
    def value_from_counts(self, cov: np.ndarray, cor: np.ndarray, bbc: np.ndarray) -> float:
        """``AUTAC - alpha M`` from the per-position counts."""
        M = len(cov)
        if M == 0:
            return 0.0
        A = np.empty(M + 1)
        A[0] = self.bb_total
        A[1:] = np.cumsum(cor) + self.bb_total - np.cumsum(bbc)
        area = 0.5 * float(np.dot(A[1:] + A[:-1], cov)) / (self.n * self.n)
        return area - self.alpha * M

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
        return ListState(tuple(rules), cum, cov, cor, bbc, self.value_from_counts(cov, cor, bbc))

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
        return autac_reference(cov, self.labels_of(rules, cov), self.y, self.bb, alpha=self.alpha)

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


# =========================================================================== helpers
def _numeric(X: Any) -> np.ndarray:
    """Features for the black box: categoricals as integer codes, everything float."""
    if isinstance(X, pd.DataFrame):
        cols = []
        for c in X.columns:
            s = X[c]
            if isinstance(s.dtype, pd.CategoricalDtype):
                cols.append(s.cat.codes.to_numpy(dtype=float))
            elif s.dtype == object:
                cols.append(pd.Categorical(s).codes.astype(float))
            else:
                cols.append(s.to_numpy(dtype=float))
        return np.column_stack(cols) if cols else np.zeros((len(X), 0))
    return np.asarray(X, dtype=float)


def _check_black_box(black_box: Any, *, need_fit: bool) -> None:
    if black_box is None:
        raise InputError("black_box is required: pass an estimator with fit/predict (or a fitted one with refit=False)")
    if not callable(getattr(black_box, "predict", None)):
        raise InputError(f"black_box must have a predict method; got {type(black_box).__name__}")
    if need_fit and not callable(getattr(black_box, "fit", None)):
        raise InputError(f"black_box must have a fit method to be trained; got {type(black_box).__name__} "
                         "(pass refit=False to use it as already trained)")


def _binary_target(y: Any, n: int, owner: str) -> tuple[np.ndarray, np.ndarray]:
    arr = np.asarray(y)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise InputError(f"y must be 1-D, got shape {arr.shape}")
    if len(arr) != n:
        raise InputError(f"y has {len(arr)} labels but X has {n} rows")
    classes = np.unique(arr)
    if len(classes) > 2:
        raise InputError(
            f"{owner} is for binary classification (the companion-rule-list setting); "
            f"y has {len(classes)} classes {classes.tolist()[:10]}. Binarize the target first"
        )
    if len(classes) < 2:
        raise InputError(f"y has a single class {classes.tolist()}; two classes are required")
    return classes, (arr == classes[1]).astype(np.int8)


def _conjunction(items):
    from interpretopt.rules import Conjunction

    conds = []
    for it in items:
        conds.extend(it.conditions())
    return Conjunction(tuple(conds))


# =========================================================================== shared companion API
class _CompanionBase(ClassifierMixin, BaseEstimator):
    """Prediction, curves and rendering for a rule list paired with a black box."""

    def _prepare(self, X, y, blackbox_pred, *, refit: bool, train_pred: str, cv: int, rng):
        n = np.shape(X)[0] if np.ndim(X) == 2 else None
        if n is None:
            raise InputError(f"X must be 2-D (n_samples, n_features), got {np.ndim(X)} dimension(s)")
        if n < 2:
            raise InputError("X needs at least two rows")
        classes, y01 = _binary_target(y, n, type(self).__name__)
        self.classes_ = classes
        self.feature_names_in_ = feature_names_of(X, np.shape(X)[1])
        Xn = _numeric(X)
        bb = self.black_box
        if blackbox_pred is None:
            _check_black_box(bb, need_fit=refit)
        elif bb is not None and not callable(getattr(bb, "predict", None)):
            raise InputError(f"black_box must have a predict method; got {type(bb).__name__}")
        if refit and bb is not None:
            from sklearn.base import clone

            self.black_box_ = clone(bb).fit(Xn, np.asarray(y).ravel())
        else:
            self.black_box_ = bb
        if blackbox_pred is not None:
            p = np.asarray(blackbox_pred).ravel()
            if len(p) != n:
                raise InputError(f"blackbox_pred has {len(p)} entries but X has {n} rows")
            bb01 = self._to01(p)
        elif train_pred == "oof":
            from sklearn.base import clone
            from sklearn.model_selection import StratifiedKFold, cross_val_predict

            k = int(min(cv, np.bincount(y01).min()))
            if k < 2:
                raise InputError("out-of-fold black-box predictions need at least two samples of each class")
            folds = StratifiedKFold(n_splits=k, shuffle=True, random_state=int(rng.integers(2**31 - 1)))
            p = cross_val_predict(clone(bb), Xn, np.asarray(y).ravel(), cv=folds)
            bb01 = self._to01(p)
        elif train_pred == "in_sample":
            bb01 = self._to01(self.black_box_.predict(Xn))
        else:
            raise InputError(f"blackbox_train_pred must be 'oof' or 'in_sample', got {train_pred!r}")
        return y01, bb01

    def _to01(self, pred) -> np.ndarray:
        pred = np.asarray(pred).ravel()
        if np.isin(pred, self.classes_).all():
            return (pred == self.classes_[1]).astype(np.int8)
        if np.isin(pred, [0, 1]).all():
            return pred.astype(np.int8)
        raise InputError(f"black-box predictions {np.unique(pred)[:10].tolist()} are not among the classes "
                         f"{self.classes_.tolist()}")

    def _check_fitted(self):
        if not hasattr(self, "rule_labels_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def _blackbox01(self, X, blackbox_pred=None) -> np.ndarray:
        if blackbox_pred is not None:
            return self._to01(blackbox_pred)
        if self.black_box_ is None:
            raise InputError("no black box to answer uncovered inputs; pass blackbox_pred")
        return self._to01(self.black_box_.predict(_numeric(X)))

    def first_cover(self, X) -> np.ndarray:
        """Index of the rule covering each row (-1: none, the black box answers)."""
        self._check_fitted()
        return first_cover_from_coverage(self._rule_coverage(X))

    def predict(self, X, n_rules: int | None = None, *, blackbox_pred=None) -> np.ndarray:
        """Answer with the first ``n_rules`` rules (default all), the black box for the rest."""
        self._check_fitted()
        M = len(self.rule_labels_)
        m = M if n_rules is None else check_int("n_rules", n_rules, 0, M)
        fc = self.first_cover(X)
        out = self._blackbox01(X, blackbox_pred).astype(np.int64)
        use = (fc >= 0) & (fc < m)
        out[use] = np.asarray(self.rule_labels_)[fc[use]]
        return self.classes_[out]

    def transparency_accuracy_curve(self, X, y, *, blackbox_pred=None) -> TradeoffCurve:
        """Points ``(T_m, A_m)``, m = 0..M, and AUTAC (Proposition 4 and completed to t = 1) on ``(X, y)``."""
        self._check_fitted()
        arr = np.asarray(y).ravel()
        if len(arr) != np.shape(X)[0]:
            raise InputError(f"y has {len(arr)} labels but X has {np.shape(X)[0]} rows")
        if not np.isin(arr, self.classes_).all():
            raise InputError(f"y has labels outside the fitted classes {self.classes_.tolist()}")
        y01 = (arr == self.classes_[1]).astype(np.int8)
        return tradeoff_curve(self.first_cover(X), self.rule_labels_, y01, self._blackbox01(X, blackbox_pred))

    def predict_stochastic(self, X, t: float, *, random_state=None, blackbox_pred=None) -> np.ndarray:
        """The stochastic CRL of Definition 3 with transparency ``t`` (measured on the training data)."""
        self._check_fitted()
        out = stochastic_crl_predict(self.first_cover(X), self.rule_labels_, self._blackbox01(X, blackbox_pred),
                                     self.train_curve_.transparency, t, as_generator(random_state))
        return self.classes_[out]

    def rule_table(self, X=None, y=None, *, blackbox_pred=None) -> pd.DataFrame:
        """Table 3 of the paper: rule, prediction, cover, rule accuracy, black-box accuracy on the covered samples.

        Statistics are on ``(X, y)`` when given, else on the training data.
        """
        self._check_fitted()
        curve = self.train_curve_ if X is None else self.transparency_accuracy_curve(X, y, blackbox_pred=blackbox_pred)
        rows = []
        for m, lab in enumerate(self.rule_labels_):
            rows.append({
                "": "if" if m == 0 else "else if",
                "rule": self.rule_text_[m],
                "prediction": self.classes_[lab].item() if hasattr(self.classes_[lab], "item") else self.classes_[lab],
                "cover": curve.rule_cover[m],
                "rule_accuracy": curve.rule_accuracy[m],
                "blackbox_accuracy": curve.blackbox_accuracy[m],
                "transparency": curve.transparency[m + 1],
                "hybrid_accuracy": curve.accuracy[m + 1],
            })
        return pd.DataFrame(rows)

    def render(self, X=None, y=None, *, blackbox_pred=None) -> str:
        """The rule list as text in the layout of the paper's Table 3 (statistics on ``(X, y)`` or the training data)."""
        tab = self.rule_table(X, y, blackbox_pred=blackbox_pred)
        lines = [f"{'':8s} {'companion rule':60s} {'y':>5s} {'cover':>7s} {'rule acc':>9s} {'BLX acc':>8s}"]
        for _, r in tab.iterrows():
            ra = "   -   " if np.isnan(r.rule_accuracy) else f"{100 * r.rule_accuracy:6.1f}%"
            ba = "   -   " if np.isnan(r.blackbox_accuracy) else f"{100 * r.blackbox_accuracy:6.1f}%"
            lines.append(f"{r['']:8s} {r.rule:60s} {str(r.prediction):>5s} {100 * r.cover:6.1f}% {ra:>9s} {ba:>8s}")
        lines.append(f"{'else':8s} {'black box':60s}")
        return "\n".join(lines)

    # ---- rule material shared by subclasses
    def _set_rules(self, itemsets, labels):
        items = self.binarizer_.items_
        self.rule_itemsets_ = [tuple(s) for s in itemsets]
        self.rule_labels_ = np.asarray(labels, dtype=np.int64)
        self.rule_text_ = [" and ".join(items[i].render(self.feature_names_in_) for i in s) or "true"
                           for s in self.rule_itemsets_]
        try:
            from interpretopt.rules import RuleList

            self.rules_ = RuleList(tuple(_conjunction([items[i] for i in s]) for s in self.rule_itemsets_),
                                   tuple(self.classes_[lab] for lab in self.rule_labels_), None)
        except ImportError:  # pragma: no cover - the rules layer is part of the package
            self.rules_ = None

    def _rule_coverage(self, X) -> np.ndarray:
        B = self.binarizer_.transform(X).astype(bool)
        out = np.ones((B.shape[0], len(self.rule_itemsets_)), dtype=bool)
        for c, s in enumerate(self.rule_itemsets_):
            for i in s:
                out[:, c] &= B[:, i]
        return out

    @property
    def n_rules_(self) -> int:
        self._check_fitted()
        return len(self.rule_labels_)

    @property
    def n_conditions_(self) -> int:
        """Number of items (binary conditions) used by the list."""
        self._check_fitted()
        return int(sum(len(s) for s in self.rule_itemsets_))


def _mine(self, X, y01, rng) -> tuple[QuantileOneHotBinarizer, np.ndarray, RulePool]:
    check_in_range("min_support", self.min_support, 0.0, 1.0, low_open=True, high_open=True)
    check_int("max_card", self.max_card, 1, None)
    binarizer = QuantileOneHotBinarizer(n_quantiles=self.n_quantiles, feature_types=self.feature_types).fit(X)
    B = binarizer.transform(X)
    pool = mine_rules(B, y01, min_support=self.min_support, max_card=self.max_card,
                      max_rules_per_class=self.max_rules_per_class, memory_limit_mb=self.memory_limit_mb,
                      max_mining_samples=self.max_mining_samples, random_state=rng)
    return binarizer, B, pool


# =========================================================================== CRL estimator
class CompanionRuleList(_CompanionBase):
    """Companion rule list trained on the AUTAC objective (eq. 4) by Algorithm 1.

    Parameters
    ----------
    black_box : estimator with ``fit``/``predict`` (cloned and trained on the training data
        unless ``refit=False``, in which case it must already be trained).
    alpha : float or "auto", default "auto"
        Length penalty; "auto" tunes it by Algorithm 2 over :data:`ALPHA_CANDIDATES`
        (highest training AUTAC among lists with fewer than ``max_rules`` rules).
    C0 : float, default 0.001
        Initial temperature of Algorithm 1.
    n_iter : int, default 50_000
        Annealing steps ``N``.
    min_support : float in (0, 1), default 0.05
        FP-Growth minimum support ``gamma`` (within the class a rule predicts).
    max_card : int, default 2
        Maximum items per rule.
    n_quantiles : int, default 7
        Quantile bins per numerical feature (Section 6.1).
    blackbox_train_pred : {"oof", "in_sample"}, default "oof"
        Black-box answers on the training data used in the objective: out-of-fold predictions
        of ``cv`` clones (a forest predicts its own training rows almost perfectly), or the
        trained black box's in-sample predictions. ``fit(..., blackbox_pred=...)`` overrides both.
    cv : int, default 5
    refit : bool, default True
    max_rules : int, default 20
        ``I_max`` of Algorithm 2.
    max_rules_per_class, memory_limit_mb, max_mining_samples : mining options
        (see :func:`interpretopt.heuristics.mining.mine_rules`).
    feature_types : dict, optional, passed to the binarizer.
    rule_labels : {"mined", "majority"}, default "mined"
        "mined": a rule mined on class ``c`` predicts ``c`` (Algorithm 1); "majority": a rule
        predicts the majority class of the samples it captures at its position (the authors'
        script).
    random_state : int, Generator or None.

    Attributes
    ----------
    rules_ : :class:`interpretopt.rules.RuleList` over the original features (default ``None``:
        the black box answers uncovered inputs).
    rule_labels_, rule_itemsets_, rule_text_ : the list.
    alpha_ : the alpha used; ``tuning_`` : Algorithm 2's table (alpha, n_rules, training AUTAC, objective).
    objective_ : training objective of the returned list; ``train_curve_`` : its trade-off curve.
    anneal_ : :class:`AnnealResult` of the final search (``history`` per step).
    pool_ : :class:`RulePool`; ``mining_report_`` : :class:`MiningReport`.
    black_box_ : the trained black box.
    """

    def __init__(self, *, black_box=None, alpha: float | str = "auto", C0: float = 0.001, n_iter: int = 50_000,
                 min_support: float = 0.05, max_card: int = 2, n_quantiles: int = 7,
                 blackbox_train_pred: str = "oof", cv: int = 5, refit: bool = True, max_rules: int = 20,
                 max_rules_per_class: int | None = None, memory_limit_mb: float | None = None,
                 max_mining_samples: int | None = None, feature_types: dict | None = None,
                 rule_labels: str = "mined", random_state=None):
        self.black_box = black_box
        self.alpha = alpha
        self.rule_labels = rule_labels
        self.C0 = C0
        self.n_iter = n_iter
        self.min_support = min_support
        self.max_card = max_card
        self.n_quantiles = n_quantiles
        self.blackbox_train_pred = blackbox_train_pred
        self.cv = cv
        self.refit = refit
        self.max_rules = max_rules
        self.max_rules_per_class = max_rules_per_class
        self.memory_limit_mb = memory_limit_mb
        self.max_mining_samples = max_mining_samples
        self.feature_types = feature_types
        self.random_state = random_state

    def fit(self, X, y, *, blackbox_pred=None) -> "CompanionRuleList":
        """Mine the pool, (tune alpha and) search the list.

        Parameters
        ----------
        X : array or DataFrame (n, d).
        y : binary labels (n,).
        blackbox_pred : optional black-box answers on ``X`` to use in the objective.
        """
        rng = as_generator(self.random_state)
        check_in_range("C0", self.C0, 0.0, None, low_open=True)
        check_int("n_iter", self.n_iter, 0, None)
        check_int("max_rules", self.max_rules, 1, None)
        if not (self.alpha == "auto" or (isinstance(self.alpha, (int, float)) and not isinstance(self.alpha, bool))):
            raise InputError(f"alpha must be a non-negative number or 'auto', got {self.alpha!r}")
        if self.alpha != "auto":
            check_in_range("alpha", self.alpha, 0.0, None)
        check_in_range("min_support", self.min_support, 0.0, 1.0, low_open=True, high_open=True)
        y01, bb01 = self._prepare(X, y, blackbox_pred, refit=self.refit, train_pred=self.blackbox_train_pred,
                                  cv=self.cv, rng=rng)
        self.binarizer_, B, self.pool_ = _mine(self, X, y01, rng)
        self.mining_report_: MiningReport = self.pool_.report
        if self.rule_labels not in ("mined", "majority"):
            raise InputError(f"rule_labels must be 'mined' or 'majority', got {self.rule_labels!r}")
        if self.rule_labels == "majority":  # labels come from the data: one candidate per antecedent
            first: dict[tuple, int] = {}
            for r, s in enumerate(self.pool_.itemsets):
                first.setdefault(s, r)
            cand = np.fromiter(first.values(), dtype=np.int64)
        else:
            cand = np.arange(len(self.pool_))
        problem = CompanionSearch(self.pool_.packed[cand], self.pool_.labels[cand], y01, bb01,
                                  rule_labels=self.rule_labels)
        alphas = ALPHA_CANDIDATES if self.alpha == "auto" else (float(self.alpha),)
        seeds = rng.integers(2**63 - 1, size=len(alphas))
        best = None
        self.tuning_ = []
        for a, seed in zip(alphas, seeds):
            problem.alpha = a
            res = search_companion_list(problem, n_iter=self.n_iter, C0=self.C0, rng=np.random.default_rng(seed))
            st = res.best_state
            area = st.value + a * len(st)
            self.tuning_.append({"alpha": a, "n_rules": len(st), "autac": area, "objective": st.value})
            ok = len(st) < self.max_rules
            key = (ok, area)
            if best is None or key > best[0]:
                best = (key, a, res)
        _, self.alpha_, self.anneal_ = best
        state = self.anneal_.best_state
        self.objective_ = float(state.value)
        chosen = [int(cand[r]) for r in state.rules]
        self._set_rules([self.pool_.itemsets[r] for r in chosen], problem.labels_of(state.rules))
        self.rule_pool_indices_ = tuple(chosen)
        self.train_curve_ = tradeoff_curve(
            first_cover_from_coverage(self.pool_.coverage(B, chosen)), self.rule_labels_, y01, bb01)
        self.blackbox_train_pred_ = bb01
        return self


# =========================================================================== baselines paired with the black box
class PairedRuleList(_CompanionBase):
    """A rule list learnt without the black box (CORELS or SBRL), then paired with it (Section 3.2).

    The learnt list's default rule is kept as its last rule (a condition that always holds),
    so the paired model reaches transparency 1.

    Parameters
    ----------
    learner : {"corels", "sbrl"}
    black_box : as in :class:`CompanionRuleList`.
    params : dict of learner options (see :func:`interpretopt.heuristics.corels.corels` and
        :func:`interpretopt.heuristics.sbrl.sbrl`).
    min_support, max_card, n_quantiles, ... : mining, as in :class:`CompanionRuleList`.
    """

    def __init__(self, *, learner: str = "corels", black_box=None, params: dict | None = None,
                 min_support: float = 0.05, max_card: int = 2, n_quantiles: int = 7, refit: bool = True,
                 max_rules_per_class: int | None = None, memory_limit_mb: float | None = None,
                 max_mining_samples: int | None = None, feature_types: dict | None = None, random_state=None):
        self.learner = learner
        self.black_box = black_box
        self.params = params
        self.min_support = min_support
        self.max_card = max_card
        self.n_quantiles = n_quantiles
        self.refit = refit
        self.max_rules_per_class = max_rules_per_class
        self.memory_limit_mb = memory_limit_mb
        self.max_mining_samples = max_mining_samples
        self.feature_types = feature_types
        self.random_state = random_state

    def fit(self, X, y, *, blackbox_pred=None) -> "PairedRuleList":
        rng = as_generator(self.random_state)
        if self.learner not in ("corels", "sbrl"):
            raise InputError(f"learner must be 'corels' or 'sbrl', got {self.learner!r}")
        # the black box is only needed at prediction time; training ignores it
        y01, _ = self._prepare(X, y, np.zeros(np.shape(X)[0]) if blackbox_pred is None else blackbox_pred,
                               refit=self.refit, train_pred="in_sample", cv=2, rng=rng)
        if self.refit and self.black_box is not None:
            _check_black_box(self.black_box, need_fit=True)
        self.binarizer_, B, self.pool_ = _mine(self, X, y01, rng)
        self.mining_report_ = self.pool_.report
        # antecedents without their mined labels (both learners choose labels themselves)
        uniq: dict[tuple, int] = {}
        for r, s in enumerate(self.pool_.itemsets):
            uniq.setdefault(s, r)
        idx = np.fromiter(uniq.values(), dtype=np.int64)
        packed = self.pool_.packed[idx]
        params = dict(self.params or {})
        if self.learner == "corels":
            from interpretopt.heuristics.corels import corels

            self.result_ = corels(packed, y01, rng=rng, **params)
        else:
            from interpretopt.heuristics.sbrl import sbrl

            params.setdefault("cards", [len(self.pool_.itemsets[i]) for i in idx])
            self.result_ = sbrl(packed, y01, rng=rng, **params)
        prefix = [self.pool_.itemsets[idx[r]] for r in self.result_.prefix]
        labels = list(self.result_.labels) + [self.result_.default]
        self._set_rules(prefix + [()], labels)
        self.train_curve_ = tradeoff_curve(self.first_cover(X), self.rule_labels_, y01,
                                           self._blackbox01(X, blackbox_pred) if self.black_box_ is not None or blackbox_pred is not None
                                           else np.zeros(len(y01), dtype=np.int8))
        return self

    def rules_prediction(self, X) -> np.ndarray:
        """The learnt rule list alone (its default rule answers what no antecedent covers)."""
        self._check_fitted()
        fc = self.first_cover(X)
        return self.classes_[np.asarray(self.rule_labels_)[fc]]


def tree_marker(X_train, y_train, X_test, y_test, *, criterion: str = "gini", max_leaf_nodes: int = 20,
                random_state=None) -> dict:
    """A stand-alone tree at transparency 1 (Figure 3's markers).

    ``criterion="gini"`` is CART; ``criterion="entropy"`` stands in for C4.5 (information-gain
    splits; no C4.5 pruning or multiway splits). ``max_leaf_nodes=20`` keeps the tree to at most
    19 splits, Appendix A's "fewer than 20 conditions".
    """
    from sklearn.tree import DecisionTreeClassifier

    seed = int(as_generator(random_state).integers(2**31 - 1))
    tree = DecisionTreeClassifier(criterion=criterion, max_leaf_nodes=max_leaf_nodes, random_state=seed)
    tree.fit(_numeric(X_train), np.asarray(y_train).ravel())
    acc = float(np.mean(tree.predict(_numeric(X_test)) == np.asarray(y_test).ravel()))
    return {"transparency": 1.0, "accuracy": acc, "n_leaves": int(tree.get_n_leaves()),
            "n_splits": int(tree.tree_.node_count - tree.get_n_leaves())}
