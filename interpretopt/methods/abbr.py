"""Explaining confident black-box predictions (Yao, Levi, Avrahami, Meidan, TMLR 2025).

Estimators that explain when a black box ranks samples highly:

* :class:`RuleListSearch` (Algorithm 1): a disjunction of at most M rules of order at most L
  maximizing the ABBR interpolated at target support s;
* :class:`ChecklistSearch` (Algorithm 2): "at least t of these K conditions";
* :class:`GloballyConsistentRuleSearch`: the baseline of Section 5.2, whose pool holds one
  globally consistent rule (Rudin and Shaposhnik 2023, a MILP per sample with ``b > p``)
  per seed sample, combined by the same annealing.

Each ``fit(X, scores)`` takes the black box's predicted probabilities of class 1 on X (a
vector, or an (n, 2) ``predict_proba`` array), or ``fit(X, black_box)`` a fitted model with
``predict_proba``. Ranks follow :func:`interpretopt.evaluation.abbr.rank_scores`.
``evaluate(X, scores)`` measures support, ABBR and the ABBR at s (with the optimality
ratio of eq. 12) on other data. Metrics: :mod:`interpretopt.evaluation.abbr`; search cores:
:mod:`interpretopt.heuristics.abbr_search`; MILPs: :mod:`interpretopt.formulations.abbr_certify`
and :mod:`interpretopt.formulations.abbr_baseline`.

Readings of the paper where it leaves a choice open
---------------------------------------------------
* Ranks: ties in the black box's probability are broken by sample position (stable sort).
* Annealing (eq. 15, Section 4.3.3, Appendix D), ``anneal_schedule="linear"``: a worse
  candidate is accepted with probability ``exp(delta / tau_i)``, ``tau_i = K (1 - i/T)``,
  delta in normalized ABBR. Eq. 15 as printed, ``exp(K (i/T) delta)`` with K = 0.03 and
  |delta| < 1, accepts every worse move with probability >= 0.97 (a random walk), which
  contradicts the text ("as i approaches T, the algorithm will exploit by only take steps that
  strictly increase"); the linear temperature is the reading that meets every property the
  text states (improvements always taken, acceptance falling with how much worse and with
  i/T, strictly improving steps at i = T). ``"eq15"`` keeps the printed formula (with
  ``anneal_scale``: its delta unit, ``"n"`` = ranks), ``"greedy"`` and ``"random_walk"`` are
  the references of the tests. K = 0.03 and T = 500 as published.
  Against hill climbing at equal steps (T = 500, the same start, best state kept), on the
  fixed pools of adult and heloc (split 0 of Table 2, L in {2, 3, 4}, s in {0.1, 0.2},
  M in {3, 5}, 5 seeds; 24 cells), no reading of eq. 15 beats greedy climbing that also takes
  equal moves: the linear schedule at K = 0.03 is 0.0028 below it on average (0.008 at most,
  above it in 2 cells); the printed formula is 0.0024 below with delta in ranks, 0.0072 with
  delta in ABBR (a random walk: 0.0067); Algorithm 1's literal draw, which may put a rule
  already in the list (a deletion), changes the linear schedule by +0.0001; strict climbing
  (only strictly better moves, the text's end state) is 0.0018 below. Only a starting
  temperature ten times below the published K (0.003, not a reading of the text) ties greedy
  climbing (+0.0000; above it in 12 cells, +0.0004 on the small L >= 3 pools where greedy
  climbing stops in local optima, -0.0009 on the L = 2 pools of 271-1,550 rules, which 500
  steps do not exhaust). At this budget the steps are too few for exploration to pay. With more
  steps it starts to (synthetic pools of tests/heuristics/test_abbr_search.py, 3 seeds x 3 walks,
  12 cells each): on L = 4 forest pools (~53 rules) the linear schedule is -0.0011 from greedy at
  T = 500, +0.0007 at T = 2,000 and +0.0017 at T = 5,000 (above it in 7 cells, below in 4); on
  the ~425-rule L = 2 pools it stays below (-0.0090, -0.0033, -0.0041).
* ``keep="best"`` (default) returns the best list the walk visited; ``keep="last"`` returns
  l(T) as Algorithm 1 line 31 prints. At K = 0.03 the walk is hot for most of its T steps
  (a move 0.01 worse is taken with probability 0.72 at i = 1 and 0.51 at i = T/2), so l(T)
  was 0.002-0.041 below the best visited list in-sample (adult and heloc, L = 4, split 0,
  s in {0.1, 0.2}, M in {3, 5}, 3 seeds). A swap draws the incoming rule among the pool rules
  not already in the list.
* Warm start (``warm_start_M=3``, default; a departure from Algorithm 1, which starts every
  search from the M rules of highest ABBR; ``warm_start_M=None`` is that published start): for
  M > 3, Phase 3 first anneals a list of at most 3 rules (T steps, Algorithm 1's start) and then
  anneals the M-rule list from that answer, completed by the rules of highest ABBR (T more
  steps); the answer is the better of the two (``keep="best"``), since a list of at most 3
  rules is a list of at most M. Reason: M = 5's lists include M = 3's, yet at T = 500 the cold
  search for M = 5 scored below M = 3 in-sample. Measured (in-sample abbr(l, 0.2), 6 seeds,
  T = 500, a stratified 70/30 split with RF500 fitted on half of the training rows and the
  search on the other half as in Table 2; L = 2 pools): adult (367 rules) M = 3 0.8335, M = 5
  cold 0.8224 (below M = 3 in 4 of 6 seeds, by up to 0.053), warm 0.8404 (never below);
  heloc (1,550 rules) 0.8327 / 0.8356 / 0.8372; compas (300 rules) 0.7967 / 0.7994 / 0.8017
  (cold below M = 3 in 3 of 6 seeds on each); cdc_diabetes (471 rules) 0.8119 / 0.8103 / 0.8128.
  It is the search, not the method: the cold M = 5 search passes M = 3 with more steps (adult
  0.8367 at T = 1,000, the warm start's total steps, and 0.8431 at T = 2,000; cdc_diabetes
  0.8177 and 0.8231). The warm start is what guarantees M = 5 >= M = 3, not the best use of
  1,000 steps everywhere: on adult it beats the cold T = 1,000 search and two restarts of
  T = 500 (0.8338), on cdc_diabetes both beat it (0.8177, 0.8158), its M = 5 walk staying near
  the M = 3 answer. On the L = 3, 4 forest pools (59-71 rules), where cold
  M = 5 is already above M = 3 on average, the warm start moves the mean by +0.0005 to +0.0042.
  Cost: the annealing of an M = 5 run doubles (adult L = 2: 0.044 to 0.077 CPU s), against
  about 5 CPU s per split for the black box.
* Phase 1 forest (L >= 3): ``max_features=1/3``, Breiman's (2001) regression-forest rule of
  a third of the features per split, the "Random Forest" the paper cites. With all features
  per split (``max_features=1.0``, scikit-learn's default for a regressor and the literal
  reading, bootstrap only) the 50 trees are near copies: on adult (split 0) 182 unique rules,
  63 after eq. 10, and the pool caps the search: held-out optimality ratio at L = 4, s = 0.1,
  M = 5 of 0.863 against 0.928 with a third (heloc 0.855 against 0.860-0.875).
* Footnote 1's dummy rule: when the whole list covers less than s, the remainder of the
  "support exactly s" set is an average over the samples the list does not cover.
* Checklists (``reading="set"``, default): ``abbr(k_t, s)`` is the interpolation of
  Section 4.1 for the one set "at least t of K" (a rule list of length 1, completed by the
  uncovered samples when it covers less than s); ``t = argmax_t`` (ties to the largest t)
  then picks a level whose support is near s, so the rendered "at least t" covers about s,
  as the paper's Figure 7 checklists do (support 0.095-0.135 at s = 0.1).
  ``reading="nested"`` interpolates over the nested levels "at least K", ..., "at least t"
  instead: the value at s then mixes level t+1 with part of level t, and the rendered
  "at least t" covers far more than s. Eq. 11's strict support bounds are used.
* L <= 2 pools: conditions are quantile thresholds (9 per numerical feature, both directions)
  and equalities for discrete features; same-feature pairs only as intervals.
* Baseline: the support of at least 0.1 is a share of the samples with ``b > p`` (see
  :class:`GloballyConsistentRuleSearch`); a rule counts literals, at most k.

Example
-------
>>> from sklearn.ensemble import RandomForestClassifier
>>> rf = RandomForestClassifier(n_estimators=50).fit(X_train, y_train)   # doctest: +SKIP
>>> est = RuleListSearch(s=0.1, L=3, M=3, random_state=0).fit(X_train, rf)  # doctest: +SKIP
>>> print(est.render(feature_names))  # doctest: +SKIP
>>> est.evaluate(X_test, rf)["optimality_ratio"]  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from numbers import Integral, Real
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from interpretopt._validation import (
    RANDOM_STATE,
    ContractMixin,
    Interval,
    StrOptions,
    as_generator,
    check_fitted,
    check_in_range,
    check_solver_available,
    check_X,
    feature_names_of,
    fitted_names,
    render_names,
    validate_data,
)
from interpretopt.evaluation import abbr as metrics
from interpretopt.exceptions import InputError
from interpretopt.solvers._roles import SolverRole, assign_solvers
from interpretopt.heuristics import abbr_search as H

__all__ = ["RuleListSearch", "ChecklistSearch", "GloballyConsistentRuleSearch", "scores_of"]

#: ABBR's optimization problems and what each needs of its solver; the searches of rule lists and
#: checklists (simulated annealing over mined rules) solve none
SOLVER_ROLES = {
    "baseline": SolverRole("baseline", ("milp", "mixed_integer"),
                           "the MILP per seed sample of the globally consistent rule baseline (Section 5.2)"),
    "certificate": SolverRole("certificate", ("milp", "mixed_integer"),
                              "the exact MILP over the filtered rule pool that certifies an annealed rule list"),
}

#: the best state the walk visited; Algorithm 1, line 31 and Algorithm 2, line 27 output its final state l(T)
#: (keep="last"), which the measurements in the module docstring show to be 0.002-0.041 worse in-sample
KEEP_DEFAULT = "best"
#: default limits of :meth:`RuleListSearch.certify`: the node limit shapes the answer, the time
#: limit (seconds) is a safety net only
CERTIFY_LIMITS = {"node_limit": 1000, "time_limit": 600.0}
#: feature subsampling of the Phase 1 forest (see :class:`RuleListSearch`)
MAX_FEATURES_DEFAULT = 1.0 / 3.0
#: a search for M > 3 rules starts from the answer of a search for at most 3 (the smallest M of the
#: paper's grid, Section 5.1); None is Algorithm 1's start (see "Warm start" in the module docstring)
WARM_START_M_DEFAULT = 3


# ---------------------------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------------------------

def _matrix(X) -> tuple[np.ndarray, list[str], list[int]]:
    """Float matrix, feature names and the indices of categorical (pandas ``category``) columns."""
    names = feature_names_of(X)
    cats: list[int] = []
    if isinstance(X, pd.DataFrame):
        cols = []
        for j, (_, col) in enumerate(X.items()):
            if isinstance(col.dtype, pd.CategoricalDtype):
                cats.append(j)
                cats_vals = col.cat.categories
                if pd.api.types.is_numeric_dtype(cats_vals.dtype):
                    cols.append(col.astype(float).to_numpy())
                else:
                    cols.append(col.cat.codes.to_numpy().astype(float))
            else:
                cols.append(col)
        X = pd.DataFrame(dict(enumerate(cols))) if cats else X
    return check_X(X), names, cats


def scores_of(X_raw, scores_or_model, n: int) -> np.ndarray:
    """Predicted probabilities of class 1: given directly, or from a fitted model's ``predict_proba``."""
    obj = scores_or_model
    if obj is None:
        raise InputError("give the black box's scores (predicted probabilities of class 1) or a fitted model")
    if hasattr(obj, "fit") or hasattr(obj, "predict"):
        if not hasattr(obj, "predict_proba"):
            raise InputError(
                f"the black box {type(obj).__name__} has no predict_proba; ABBR ranks samples by the predicted "
                "probability, so pass a probabilistic model or the scores themselves")
        try:
            proba = np.asarray(obj.predict_proba(X_raw))
        except Exception as exc:  # the user's model: report what it said
            raise InputError(f"the black box {type(obj).__name__} could not predict_proba on X ({type(exc).__name__}: "
                             f"{exc}); pass a fitted probabilistic model, or its scores (one number per row)") from None
        classes = list(getattr(obj, "classes_", [0, 1]))
        if proba.ndim != 2 or proba.shape[1] != 2:
            raise InputError(
                f"predict_proba returned shape {proba.shape}; ABBR explains a binary black box, expected (n, 2). "
                "For a multi-class model pass the scores of the class to explain (one value per row)")
        col = classes.index(1) if 1 in classes else 1
        s = proba[:, col]
    else:
        s = _numeric_scores(obj)
        if s.ndim == 2 and s.shape[1] == 2:
            s = s[:, 1]
    if s.ndim != 1 or s.shape[0] != n:
        raise InputError(f"scores must have one value per row of X ({n}), got shape {np.shape(s)}")
    if not np.isfinite(s).all():
        raise InputError("scores contain NaN or infinite values")
    return s


def _numeric_scores(obj) -> np.ndarray:
    """Scores given as an array: numbers, not labels (strings or booleans are refused, saying what to pass)."""
    raw = np.asarray(obj)
    if raw.dtype == bool or raw.dtype.kind in "USO":
        first = raw.ravel()[0] if raw.size else None
        example = first.item() if isinstance(first, np.generic) else first
        if raw.dtype == bool or not all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
                                        for v in raw.ravel().tolist()):
            raise InputError(
                f"scores must be numbers (the black box's predicted probability of class 1, one per row), got "
                f"{'booleans' if raw.dtype == bool else 'labels'} such as {example!r}; ABBR ranks rows by score: "
                "pass model.predict_proba(X)[:, 1] or the fitted model itself")
    return np.asarray(raw, dtype=float)


def _check_ranking(scores: np.ndarray) -> None:
    """Scores that rank nothing are refused: ABBR explains the rows the black box ranks highest."""
    values = np.unique(scores)
    if values.size < 2:
        raise InputError(f"every score is {float(values[0])!r}: constant scores carry no ranking, so there is no "
                         "top-ranked set to explain; pass the black box's predicted probabilities of class 1 "
                         "(they must differ between rows)")


def _discrete(X: np.ndarray, discrete, names: list[str], cats: list[int], max_values: int) -> np.ndarray:
    if isinstance(discrete, str) and discrete == "auto":
        mask = H.discrete_mask(X, None, max_values)
        mask[cats] = True
        return mask
    if discrete is None:
        mask = np.zeros(X.shape[1], bool)
        mask[cats] = True
        return mask
    items = list(discrete)
    if items and isinstance(items[0], str):
        missing = [c for c in items if c not in names]
        if missing:
            raise InputError(f"discrete features {missing} are not columns of X; columns: {names[:10]}...")
        items = [names.index(c) for c in items]
    return H.discrete_mask(X, np.asarray(items, dtype=int) if items else np.zeros(0, int))


_COMMON_CONSTRAINTS = {
    "s": [Interval(Real, 0, 1, closed="neither")],
    "n_iter": [Interval(Integral, 0, None, closed="left")],
    "anneal_K": [Interval(Real, 0, None, closed="neither")],
    "anneal_schedule": [StrOptions(set(H.SCHEDULES))],
    "anneal_scale": [StrOptions({"n"}), Interval(Real, 0, None, closed="neither")],
    "keep": [StrOptions({"best", "last"})],
    "discrete": [StrOptions({"auto"}), list, tuple, None],
    "max_discrete_values": [Interval(Integral, 1, None, closed="left")],
    "random_state": RANDOM_STATE,
}


class _Shared(NamedTuple):
    """What a search's :meth:`fit` can take already built by Phases 1 and 2 (a rule pool, a condition table)."""

    arg: str  # fit's argument
    cls: type
    builder: str  # the method that builds it
    what: str  # in messages: "the <what> was built on other data, ranks or <kind> parameters"
    kind: str
    params: str  # the name of the class attribute listing the parameters it depends on


class _ABBRBase(ContractMixin, BaseEstimator):
    """Shared fit-time checks and evaluation."""

    _SHARED: _Shared

    def _prepare(self, X, scores):
        self._validate_params()
        Xv = validate_data(self, X, reset=True, categorical=True, min_samples=2)
        Xa, names, cats = _matrix(Xv)
        sc = scores_of(X, scores, Xa.shape[0])
        _check_ranking(sc)
        ranks = metrics.rank_scores(sc)
        self._train_scores = sc
        self._train_matrix = Xa
        self.categorical_features_ = cats
        return Xa, names, cats, ranks

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True  # category / string columns give equality conditions
        tags.input_tags.string = True
        return tags

    def _prepared(self, X, scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(Xa, ranks, discrete columns)`` of a fit or of Phases 1 and 2 alone."""
        Xa, names, cats, ranks = self._prepare(X, scores)
        return Xa, ranks, _discrete(Xa, self.discrete, names, cats, self.max_discrete_values)

    def _shared_key(self, ranks) -> str:
        """What Phases 1 and 2 depend on (the ranks and the parameters ``_SHARED.params`` names), hashed: a
        pool or table built elsewhere is taken by :meth:`fit` only with this key."""
        h = hashlib.sha1(np.ascontiguousarray(ranks, dtype=np.int64).tobytes())
        h.update(repr([(k, getattr(self, k)) for k in getattr(self, self._SHARED.params)]).encode())
        return h.hexdigest()[:16]

    def _phases_1_2(self, given, ranks, build):
        """The filtered pool of Phases 1 and 2: ``build()``, or ``given`` (from ``build_pool`` /
        ``build_conditions``) once checked to be of the same ranks and parameters; sets ``timings_``
        (the given pool's build times once, under ``pool_shared``)."""
        if given is None:
            pool = build()
            self.timings_ = dict(pool.timings)
            return pool
        arg, cls, builder, what, kind, params = self._SHARED
        if not isinstance(given, cls):
            raise InputError(f"{arg} must be a {cls.__name__} from {builder}, got {type(given).__name__}")
        if getattr(given, "key", None) != self._shared_key(ranks):
            raise InputError(f"the {what} was built on other data, ranks or {kind} parameters "
                             f"({', '.join(getattr(self, params))}); build it with this estimator's {builder}")
        self.timings_ = {"pool_shared": float(sum(given.timings.values()))}
        return given

    def _rendered(self, head: str, items: list[str], stats: bool, feature_names) -> str:
        """``head``, one line per item, what the explanation says of the black box and, with ``stats``,
        the support, ABBR and consistency of each part on the training data."""
        lines = [head, *items, "then the black box ranks the sample highly (predicts 1 confidently)."]
        if stats:
            lines += [""] + self._stats_lines(feature_names)
        return "\n".join(lines)

    def _checked(self, X) -> np.ndarray:
        """``X`` checked against the fit (columns, types) as the float matrix the rules read."""
        check_fitted(self, "abbr_")
        return _matrix(validate_data(self, X, reset=False, categorical=True))[0]

    def _scale(self, n: int) -> float:
        if self.anneal_scale == "n":
            return float(n)
        return float(check_in_range("anneal_scale", self.anneal_scale, 0.0, None, low_open=True))

    def render(self, feature_names=None) -> str:
        check_fitted(self, "abbr_")
        return self._model().render(render_names(self, feature_names))

    def explanation_table(self, X=None, scores=None, feature_names=None) -> pd.DataFrame:
        """Support, ABBR and consistency of each part of the explanation and of the whole
        (the layout of the paper's Table 3 / Figure 4), on (X, scores) or by default on the
        training data.

        Rows: one per rule of the list (each rule alone, as in Table 3) or per condition of
        the checklist, then the whole explanation (``"rule list"`` / ``"at least t of K"``).
        ``consistency`` is Definition 3 at the rank threshold of the black box's top s share
        (m = N - floor(sN) + 1): the share of the covered samples that the black box ranks in
        its top s.
        """
        check_fitted(self, "abbr_")
        if (X is None) != (scores is None):
            raise InputError("give both X and scores, or neither (the training data)")
        if X is None:
            Xa, ranks = self._train_matrix, metrics.rank_scores(self._train_scores)
        else:
            Xa = self._checked(X)
            ranks = metrics.rank_scores(scores_of(X, scores, Xa.shape[0]))
        names = render_names(self, feature_names)
        n = ranks.size
        m = n - int(np.floor(self.s * n + 1e-9)) + 1
        rows = []
        for label, cover in self._parts(Xa, names):
            rows.append({"part": label, "support": metrics.support(cover), "abbr": metrics.abbr(cover, ranks),
                         "consistency": metrics.consistency(cover, ranks, min(max(m, 1), n))})
        return pd.DataFrame(rows)

    def _stats_lines(self, feature_names) -> list[str]:
        table = self.explanation_table(feature_names=feature_names)
        width = max(len(p) for p in table["part"])
        out = [f"  {'(training data)':<{width}}  support   ABBR   consistency (top s = {self.s:g})"]
        for _, r in table.iterrows():
            out.append(f"  {r['part']:<{width}}  {r['support']:7.3f}  {r['abbr']:6.3f}  {r['consistency']:6.3f}")
        return out

    def predict(self, X) -> np.ndarray:
        """int8 (n,): 1 where the explanation holds (the sample is explained as ranked highly)."""
        return self._predict_matrix(self._checked(X))

    def evaluate(self, X, scores, s: float | None = None) -> dict:
        """Support, ABBR, ABBR at s and the optimality ratio (eq. 12) on (X, scores)."""
        Xa = self._checked(X)
        s = self.s if s is None else check_in_range("s", s, 0.0, 1.0, low_open=True, high_open=True)
        ranks = metrics.rank_scores(scores_of(X, scores, Xa.shape[0]))
        value = self._abbr_at(Xa, ranks, s)
        cover = self._predict_matrix(Xa).astype(bool)
        return {"abbr_at_s": value, "optimality_ratio": metrics.optimality_ratio(value, s),
                "support": metrics.support(cover), "abbr": metrics.abbr(cover, ranks)}


# ---------------------------------------------------------------------------------------------
# Rule List Search
# ---------------------------------------------------------------------------------------------

class RuleListSearch(_ABBRBase):
    """Rule List Search (Section 4.3, Algorithm 1).

    Parameters
    ----------
    s : float, default 0.1
        Target support in (0, 1).
    L : int, default 4
        Maximum order of a rule. L >= 3: leaves of a random-forest regressor of depth L;
        L <= 2: exhaustive enumeration of conjunctions of up to L conditions.
    M : int, default 5
        Maximum number of rules.
    n_iter : int, default 500
        Annealing iterations T.
    anneal_K : float, default 0.03
        K of eq. 15.
    anneal_scale : "n" or float, default "n"
        Unit of the objective change in eq. 15: ``"n"`` measures ABBR in ranks (times N).
    keep : {"best", "last"}, default "best"
        Return the best list seen or the walk's final list l(T).
    warm_start_M : int or None, default 3
        For M > ``warm_start_M``, Phase 3 first searches a list of at most ``warm_start_M`` rules
        and starts the search for M from it (each with T steps); with ``keep="best"`` the answer
        is the better of the two, so never below the smaller search's. None (or M <=
        ``warm_start_M``): Algorithm 1's start, the M rules of highest ABBR, alone. A departure
        from the paper; see "Warm start" in the module docstring.
    n_trees : int, default 50
    min_support : float, default 0.02
        gamma: minimum leaf fraction (L >= 3) / minimum support (L <= 2).
    filter_factor : float or None, default 1.1
        Factor of the approximate Pareto filter (eq. 10); None disables the filter.
    n_thresholds : int, default 9
        Quantile thresholds per numerical feature for the enumeration (L <= 2).
    discrete : "auto", None or list of features, default "auto"
        Features treated as discrete (``==`` conditions); "auto": categorical columns and
        those with at most ``max_discrete_values`` distinct values.
    max_discrete_values : int, default 10
    max_features : float, int or str, default 1.0
        Passed to the random-forest regressor.
    random_state : None, int or Generator
    n_jobs : int or None, default 1
        Threads for the random forest.

    Attributes
    ----------
    rule_list_ : RuleList
        Final list truncated to m* + 1 rules (labels 1, default 0: a sample is explained when
        any rule holds).
    rules_ : tuple of Conjunction
    abbr_, support_ : in-sample ABBR at s and support of the final list.
    m_star_ : m* of eq. 9 on the training data.
    pool_ : RulePool (filtered), n_pool_ / n_filtered_ : sizes of R and R~.
    anneal_ : RuleListAnneal (history, initial value, ...).
    timings_ : dict phase -> seconds ("pool", "filter", "anneal").
    """

    _parameter_constraints: dict = {
        **_COMMON_CONSTRAINTS,
        "L": [Interval(Integral, 1, None, closed="left")],
        "M": [Interval(Integral, 1, None, closed="left")],
        "n_trees": [Interval(Integral, 1, None, closed="left")],
        "min_support": [Interval(Real, 0, 1, closed="left")],
        "filter_factor": [Interval(Real, 1, None, closed="left"), None],
        "warm_start_M": [Interval(Integral, 1, None, closed="left"), None],
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "max_features": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0, 1, closed="right"),
                         StrOptions({"sqrt", "log2"}), None],
        "n_jobs": [Integral, None],
    }

    def __init__(self, *, s: float = 0.1, L: int = 4, M: int = 5, n_iter: int = 500, anneal_K: float = 0.03,
                 anneal_schedule: str = "linear", anneal_scale: Any = "n", keep: str = KEEP_DEFAULT,
                 warm_start_M: int | None = WARM_START_M_DEFAULT, n_trees: int = 50, min_support: float = 0.02,
                 filter_factor: float | None = 1.1, n_thresholds: int = 9, discrete: Any = "auto",
                 max_discrete_values: int = 10, max_features: Any = MAX_FEATURES_DEFAULT, random_state: Any = None,
                 n_jobs: int | None = 1):
        self.s = s
        self.L = L
        self.M = M
        self.n_iter = n_iter
        self.anneal_K = anneal_K
        self.anneal_schedule = anneal_schedule
        self.anneal_scale = anneal_scale
        self.keep = keep
        self.warm_start_M = warm_start_M
        self.n_trees = n_trees
        self.min_support = min_support
        self.filter_factor = filter_factor
        self.n_thresholds = n_thresholds
        self.discrete = discrete
        self.max_discrete_values = max_discrete_values
        self.max_features = max_features
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _build_pool(self, Xa, ranks, disc, rng) -> H.RulePool:
        t0 = time.perf_counter()
        if self.L <= 2:
            timings: dict = {}
            pool = H.pair_rule_pool(Xa, ranks, disc, max_order=self.L, min_support=self.min_support,
                                    n_thresholds=self.n_thresholds, filter_factor=self.filter_factor,
                                    timings=timings)
            pool.n_raw = int(timings["n_rules"])
            pool.timings = {"pool": timings["enumerate"], "filter": timings["filter"],
                            "materialize": timings["materialize"]}
        else:
            pool = H.forest_rule_pool(Xa, ranks, self.L, n_estimators=self.n_trees,
                                      min_leaf_fraction=self.min_support, max_features=self.max_features,
                                      rng=rng, n_jobs=self.n_jobs)
            t1 = time.perf_counter()
            n_raw = len(pool)
            if self.filter_factor is not None:
                pool = pool.subset(np.flatnonzero(H.pareto_filter(pool.counts, pool.abbr, self.filter_factor)))
            pool.n_raw = n_raw
            pool.timings = {"pool": t1 - t0, "filter": time.perf_counter() - t1}
        pool.key = self._shared_key(ranks)
        return pool

    _POOL_PARAMS = ("L", "n_trees", "min_support", "filter_factor", "n_thresholds", "discrete",
                    "max_discrete_values", "max_features")
    _SHARED = _Shared("pool", H.RulePool, "build_pool", "pool", "pool", "_POOL_PARAMS")

    def build_pool(self, X, scores=None, random_state: Any = None) -> H.RulePool:
        """Phases 1 and 2 alone: the filtered pool R~ of (X, scores), to be shared by several fits.

        The pool depends on the data, the ranks and the pool parameters (L, n_trees,
        min_support, filter_factor, n_thresholds, discrete, max_discrete_values,
        max_features), not on s or M; ``random_state`` (default: the estimator's) seeds the
        forest. Pass it to :meth:`fit` as ``pool=`` with estimators that differ in s, M or the
        annealing settings.
        """
        Xa, ranks, disc = self._prepared(X, scores)
        rs = self.random_state if random_state is None else random_state
        return self._build_pool(Xa, ranks, disc, as_generator(rs))

    def fit(self, X, scores=None, *, pool: H.RulePool | None = None) -> "RuleListSearch":
        """Search a rule list explaining the top of the black box's ranking on X.

        Parameters
        ----------
        X : array-like (n, d) numeric, or DataFrame (category columns are treated as discrete).
        scores : array (n,) / (n, 2) of predicted probabilities, or a fitted model with predict_proba.
        pool : RulePool, optional
            A pool from :meth:`build_pool` on the same (X, scores) and pool parameters; Phases 1
            and 2 are then skipped (``timings_`` holds the pool's own build times once, under
            ``pool_shared``).
        """
        Xa, ranks, disc = self._prepared(X, scores)
        rng = as_generator(self.random_state)
        pool = self._phases_1_2(pool, ranks, lambda: self._build_pool(Xa, ranks, disc, rng))
        self.n_pool_ = int(pool.n_raw) if pool.n_raw >= 0 else len(pool)
        self.n_filtered_ = len(pool)
        if len(pool) == 0:
            raise InputError(f"the rule pool is empty after filtering (|R| = {self.n_pool_}); lower "
                             "min_support or change L")
        return self._anneal(pool, ranks, disc, rng)

    def _anneal(self, pool, ranks, disc, rng):
        """Phase 3 (Section 4.3.3) over the filtered ``pool``, then the fitted attributes."""
        t0 = time.perf_counter()
        res = H.warm_started_rule_list(pool, ranks, self.s, self.M, self.warm_start_M, n_iter=self.n_iter,
                                       K=self.anneal_K, schedule=self.anneal_schedule, scale=self._scale(pool.n),
                                       keep=self.keep, rng=rng)
        self.timings_["anneal"] = time.perf_counter() - t0
        self.pool_ = pool
        self.anneal_ = res
        self.history_ = res.history
        self.discrete_ = disc
        self._finish(pool, res, ranks)
        return self

    def _finish(self, pool, res, ranks):
        from interpretopt.rules import Conjunction, RuleList

        rules = tuple(Conjunction(tuple(_cond(c) for c in pool.rule_conditions(i))) for i in res.rules)
        self.rule_indices_ = tuple(res.rules)
        self.rules_ = rules
        self.rule_list_ = RuleList(rules, (1,) * len(rules), 0, feature_names=fitted_names(self))
        self.abbr_ = res.value
        self.m_star_ = res.m_star
        self.init_abbr_ = res.init_value
        union = np.zeros(pool.n, bool)
        for i in res.rules:
            union |= pool.cover(i)
        self.support_ = float(union.mean())

    def _model(self):
        return self.rule_list_

    def _covers(self, Xa: np.ndarray) -> np.ndarray:
        if not self.rules_:
            return np.zeros((Xa.shape[0], 0), bool)
        return np.column_stack([r.evaluate(Xa) for r in self.rules_])

    def rule_covers(self, X) -> np.ndarray:
        """Boolean (n, m) coverage of each rule of the final list."""
        return self._covers(self._checked(X))

    def _predict_matrix(self, Xa: np.ndarray) -> np.ndarray:
        """int8 (n,): 1 where some rule of the list holds."""
        return self._covers(Xa).any(axis=1).astype(np.int8)

    def _abbr_at(self, Xa, ranks, s) -> float:
        return metrics.abbr_at_support(self._covers(Xa), ranks, s)

    def render(self, feature_names=None, stats: bool = True) -> str:
        """``If any of the following rules is satisfied:`` and one rule per line; with ``stats``, the
        support, ABBR and consistency of each rule and of the list on the training data."""
        check_fitted(self, "abbr_")
        names = render_names(self, feature_names)
        return self._rendered("If any of the following rules is satisfied:",
                              [f"  ({r.render(names)})" for r in self.rules_], stats, feature_names)

    def _parts(self, Xa, names):
        covers = self._covers(Xa)
        parts = [(f"({r.render(names)})", covers[:, j]) for j, r in enumerate(self.rules_)]
        return parts + [("rule list", covers.any(axis=1) if covers.shape[1] else np.zeros(Xa.shape[0], bool))]

    def certify(self, solver: Any = "highs", settings=None, max_rules: int | None = None) -> dict:
        """Solve the exact MILP (:mod:`interpretopt.formulations.abbr_certify`) over the filtered pool.

        By default the MILP sees the whole filtered pool R~, so its optimum and bound are the
        pool's: ``pool = "filtered"``. ``max_rules`` keeps only the pool's ``max_rules`` rules
        of highest ABBR plus those of the annealed list (a smaller MILP); its optimum and bound
        then hold over that subset only, ``pool = "restricted"``, and are not a bound over R~.
        ``solver`` is a solver name or a mapping ``{"certificate": name}`` (role
        ``certificate`` of :data:`SOLVER_ROLES`: MILPs with continuous variables). The annealed
        list is given to the solver as a MIP start when the backend takes one (capabilities
        ``incremental`` and ``warm_start``: ``mip_start`` in the result says so), so an
        interrupted solve never returns worse than the annealing; a backend without MIP starts solves
        cold, and when its incumbent is worse (or it has none) the annealed list is reported
        as the incumbent (``incumbent = "start"``), the solver's bound unchanged.

        ``settings`` default to :data:`CERTIFY_LIMITS`: a node limit shapes the answer (the same
        on any machine; a solve it stops is ``feasible``, with its bound), and a wall-clock time
        limit is only a safety net, reported as ``limited_by_time``. A backend that cannot honour
        a node limit (``Capabilities.node_limit``, e.g. glpk) refuses these defaults; give it
        ``settings`` without one, knowing that its answer then depends on the machine.

        Returns a dict: ``status`` (the solver's), ``objective``, ``bound``, ``gap`` (from the
        solver; the bound is a proof only over the pool named by ``pool``), ``pool``,
        ``n_rules`` (rules the MILP saw) of ``pool_rules`` (|R~|), ``annealing`` (its value),
        ``start_value`` (the MIP start's objective, equal to ``annealing``), ``gap_to_anneal``
        (bound minus annealing), ``rules`` (pool indices of the MILP's list) and
        ``limited_by_time`` (the safety net stopped the solve).
        """
        from interpretopt.formulations import abbr_certify as F
        from interpretopt.solvers import SolveSettings, relative_gap

        check_fitted(self, "abbr_")
        role = assign_solvers(solver, {"certificate": SOLVER_ROLES["certificate"]}, owner=type(self).__name__,
                              all_roles=SOLVER_ROLES)["certificate"]
        if max_rules is not None:
            max_rules = int(check_in_range("max_rules", max_rules, 1, None))
        settings = settings if settings is not None else SolveSettings(**CERTIFY_LIMITS)
        pool = self.pool_
        idx = np.arange(len(pool))
        restricted = max_rules is not None and len(pool) > max_rules
        if restricted:
            top = np.argsort(-pool.abbr, kind="stable")[:max_rules]
            idx = np.unique(np.concatenate([top, np.asarray(self.anneal_.full_rules)]))
        cover = pool.cover_matrix(idx)
        ranks = self._train_ranks
        data = F.patterns(cover, ranks, self.s, self.M)
        model = F.build(data)
        col = {int(r): j for j, r in enumerate(idx)}
        listed = [col[int(r)] for r in self.anneal_.rules]
        A, nxt = listed[: self.m_star_], (listed[self.m_star_] if self.m_star_ < len(listed) else None)
        start_value = F.start(model, A, nxt)
        res = _solve_with_start(model, role.solver, settings)
        out = {"status": str(res.status), "objective": res.objective, "bound": res.bound, "gap": res.gap,
               "solver": res.solver, "solver_requested": role.requested, "mip_start": bool(res.info.get("mip_start")),
               "wall_time": res.wall_time, "annealing": self.abbr_,
               "start_value": start_value, "pool": "restricted" if restricted else "filtered",
               "n_rules": int(len(idx)), "pool_rules": int(len(pool)), "n_patterns": int(data.count.size)}
        if res.bound is not None:
            out["gap_to_anneal"] = float(res.bound) - self.abbr_
        if res.has_solution:
            sol = F.extract(model)
            out["rules"] = tuple(int(idx[r]) for r in sol.rules) + (
                (int(idx[sol.next_rule]),) if sol.next_rule is not None else ())
        if start_value is not None and (res.objective is None or float(res.objective) < start_value - 1e-12):
            # a solver that took no MIP start and stopped early (or found nothing): the annealed
            # list is feasible and better, so it is the incumbent; the solver's bound still holds
            out.update(objective=float(start_value), incumbent="start",
                       rules=tuple(int(r) for r in self.anneal_.rules[: self.m_star_ + 1]))
            out["gap"] = relative_gap(start_value, res.bound)
        out["limited_by_time"] = bool(res.limited_by_time)
        out["nodes"] = res.info.get("mip_nodes")
        self.certificate_ = out
        return out

    def _prepare(self, X, scores):
        out = super()._prepare(X, scores)
        self._train_ranks = out[3]
        return out


def _solve_with_start(model, solver: str, settings):
    """Solve ``model`` with ``solver``, its variables' current values as a MIP start when the backend takes one.

    A backend declaring ``incremental`` and ``warm_start`` gets the start on its incremental
    model (``result.info["mip_start"] = True``); any other solves the same model cold.
    """
    from interpretopt.solvers import IncrementalModel, get_solver, solve

    caps = get_solver(solver).capabilities
    if not (caps.incremental and caps.warm_start):
        res = solve(model, solver, settings)
        res.info["mip_start"] = False
        return res
    inc = IncrementalModel.from_pyomo(model, solver)
    inc.set_start(np.array([float(v.value) for v in inc.matrix_form.variables]))
    res = inc.solve(settings, duals=False)
    if res.has_solution:
        inc.load_solution(res, duals=False)
    res.info["mip_start"] = True
    return res


def _cond(c):
    from interpretopt.rules import Condition

    f, op, v = c
    return Condition(int(f), op, float(v))



# ---------------------------------------------------------------------------------------------
# Checklist Search
# ---------------------------------------------------------------------------------------------

class ChecklistSearch(_ABBRBase):
    """Checklist Search (Section 4.4, Algorithm 2): "at least t of these K conditions".

    Parameters
    ----------
    s : float, default 0.1
    K : int, default 5
        Number of conditions.
    n_iter, anneal_K, anneal_scale, keep : as in :class:`RuleListSearch`.
    quantiles : sequence, default (0.2, 0.4, 0.6, 0.8)
        Thresholds of numerical features (both directions).
    min_support, max_support, min_abbr : float, defaults 0.02, 0.98, 0.5
        The filter of eq. 11 (strict support bounds).
    discrete, max_discrete_values, random_state : as in :class:`RuleListSearch`.

    Attributes
    ----------
    checklist_ : Checklist; conditions_ : tuple of Condition; threshold_ : t.
    abbr_, support_ : in-sample ABBR at s and support of "at least t".
    n_pool_, n_filtered_ : sizes of C and C~; timings_ ; anneal_ (ChecklistAnneal).
    """

    _parameter_constraints: dict = {
        **_COMMON_CONSTRAINTS,
        "K": [Interval(Integral, 1, None, closed="left")],
        "quantiles": [list, tuple],
        "min_support": [Interval(Real, 0, 1, closed="both")],
        "max_support": [Interval(Real, 0, 1, closed="both")],
        "min_abbr": [Interval(Real, 0, 1, closed="both")],
        "reading": [StrOptions(set(metrics.CHECKLIST_READINGS))],
    }

    def __init__(self, *, s: float = 0.1, K: int = 5, n_iter: int = 500, anneal_K: float = 0.03,
                 anneal_schedule: str = "linear", anneal_scale: Any = "n", keep: str = KEEP_DEFAULT,
                 reading: str = "set", quantiles=(0.2, 0.4, 0.6, 0.8),
                 min_support: float = 0.02, max_support: float = 0.98, min_abbr: float = 0.5,
                 discrete: Any = "auto", max_discrete_values: int = 10, random_state: Any = None):
        self.s = s
        self.K = K
        self.n_iter = n_iter
        self.anneal_K = anneal_K
        self.anneal_schedule = anneal_schedule
        self.reading = reading
        self.anneal_scale = anneal_scale
        self.keep = keep
        self.quantiles = quantiles
        self.min_support = min_support
        self.max_support = max_support
        self.min_abbr = min_abbr
        self.discrete = discrete
        self.max_discrete_values = max_discrete_values
        self.random_state = random_state

    _TABLE_PARAMS = ("quantiles", "min_support", "max_support", "min_abbr", "discrete", "max_discrete_values")
    _SHARED = _Shared("conditions", H.ConditionTable, "build_conditions", "condition table", "condition",
                      "_TABLE_PARAMS")

    def _build_table(self, Xa, ranks, disc) -> H.ConditionTable:
        t0 = time.perf_counter()
        table = H.checklist_conditions(Xa, disc, tuple(self.quantiles))
        t1 = time.perf_counter()
        mask = H.condition_filter(table, ranks, min_support=self.min_support, max_support=self.max_support,
                                  min_abbr=self.min_abbr)
        sub = table.subset(np.flatnonzero(mask))
        sub.n_raw = len(table)
        sub.timings = {"pool": t1 - t0, "filter": time.perf_counter() - t1}
        sub.key = self._shared_key(ranks)
        return sub

    def build_conditions(self, X, scores=None) -> H.ConditionTable:
        """Phases 1 and 2 alone: the filtered conditions C~ of (X, scores), shared by fits that differ
        only in s, K or the annealing settings (pass it to :meth:`fit` as ``conditions=``)."""
        Xa, ranks, disc = self._prepared(X, scores)
        return self._build_table(Xa, ranks, disc)

    def fit(self, X, scores=None, *, conditions: H.ConditionTable | None = None) -> "ChecklistSearch":
        """Search a checklist explaining the top of the black box's ranking on X.

        ``conditions``: a table from :meth:`build_conditions` on the same (X, scores) and
        condition parameters; Phases 1 and 2 are then skipped.
        """
        Xa, ranks, disc = self._prepared(X, scores)
        rng = as_generator(self.random_state)
        sub = self._phases_1_2(conditions, ranks, lambda: self._build_table(Xa, ranks, disc))
        self.n_pool_, self.n_filtered_ = int(sub.n_raw), len(sub)
        if len(sub) == 0:
            raise InputError(f"the condition pool is empty after the filter of eq. 11 (|C| = {sub.n_raw}): no "
                             f"condition has {self.min_support} < support < {self.max_support} and "
                             f"ABBR >= {self.min_abbr}")
        t2 = time.perf_counter()
        res = H.anneal_checklist(sub.cover, ranks, self.s, self.K, n_iter=self.n_iter, Kconst=self.anneal_K,
                                 schedule=self.anneal_schedule, scale=self._scale(Xa.shape[0]), keep=self.keep,
                                 reading=self.reading, rng=rng)
        self.timings_["anneal"] = time.perf_counter() - t2
        self.pool_ = sub
        self.anneal_ = res
        self.history_ = res.history
        self.discrete_ = disc
        from interpretopt.rules import Checklist

        conds = tuple(_cond(sub.conditions[i]) for i in res.conditions)
        self.conditions_ = conds
        self.threshold_ = int(res.threshold)
        self.checklist_ = Checklist(conds, self.threshold_, feature_names=fitted_names(self))
        self.abbr_ = res.value
        self.init_abbr_ = res.init_value
        count = sub.cover[list(res.conditions)].sum(axis=0)
        self.support_ = float((count >= self.threshold_).mean())
        return self

    def _model(self):
        return self.checklist_

    def _count(self, Xa: np.ndarray) -> np.ndarray:
        return np.column_stack([c.evaluate(Xa) for c in self.conditions_]).sum(axis=1)

    def count(self, X) -> np.ndarray:
        """Number of the checklist's conditions each row meets."""
        return self._count(self._checked(X))

    def _predict_matrix(self, Xa: np.ndarray) -> np.ndarray:
        return (self._count(Xa) >= self.threshold_).astype(np.int8)

    def _abbr_at(self, Xa, ranks, s) -> float:
        return metrics.checklist_abbr_at_support(self._count(Xa), ranks, s, len(self.conditions_),
                                                 t=self.threshold_, reading=self.reading)[0]

    def render(self, feature_names=None, stats: bool = True) -> str:
        """"If at least t of the following K conditions are satisfied:"; with ``stats``, the support,
        ABBR and consistency of each condition and of "at least t" on the training data."""
        check_fitted(self, "abbr_")
        names = render_names(self, feature_names)
        return self._rendered(f"If at least {self.threshold_} of the following {len(self.conditions_)} conditions "
                              "are satisfied:", [f"  - {c.render(names)}" for c in self.conditions_], stats,
                              feature_names)

    def _parts(self, Xa, names):
        parts = [(c.render(names), c.evaluate(Xa).astype(bool)) for c in self.conditions_]
        return parts + [(f"at least {self.threshold_} of {len(self.conditions_)}",
                         self._count(Xa) >= self.threshold_)]


# ---------------------------------------------------------------------------------------------
# Baseline (Section 5.2)
# ---------------------------------------------------------------------------------------------

class GloballyConsistentRuleSearch(RuleListSearch):
    """Section 5.2 baseline: a pool of globally consistent rules (Rudin and Shaposhnik 2023), one per
    seed sample with ``b > p``, found by the MILP of :mod:`interpretopt.formulations.abbr_baseline`,
    then the annealing of Rule List Search (no Pareto filter unless ``filter_factor`` is set).

    Parameters
    ----------
    p : float, default 0.5
        Discretization threshold of the black box's probability.
    k : int, default 4
        Maximum conditions per rule.
    rule_min_support : float, default 0.1
        Minimum support of every rule in the pool (Section 5.2).
    support_of : {"positive", "all"}, default "positive"
        What ``rule_min_support`` is a share of: the samples with ``b > p`` (default) or all
        samples. A fully consistent rule covering 10% of *all* samples is infeasible whenever
        few samples have ``b > p`` (about 20% on adult at p = 0.5), while the paper reports
        rules there; so the default measures the support within the predicted-positive class,
        as the summary-explanation support of Rudin and Shaposhnik (2023) does.
    n_seeds : int or None, default None
        Seed samples (random among those with ``b > p``); None = every one, as in the paper.
    max_rows : int or None, default None
        Rows (a random subset) the MILPs see; global consistency is then enforced on them.
    n_thresholds : int, default 9
        Quantile thresholds per numerical feature for the literals.
    solver : str or dict, default "highs"
        The solver of role ``baseline`` (:data:`SOLVER_ROLES`: MILPs with continuous
        variables), or a mapping ``{"baseline": name}``.
    node_limit : int or None, default 1000
        Branch-and-bound nodes per MILP: the work limit that shapes the pool (the same on any
        machine). A MILP it stops keeps its incumbent rule (status ``feasible``). On adult,
        heloc and compas (1,000 rows, k = 4, p in {0.5, 0.9}) every MILP closed within 23 nodes.
    time_limit : float or None, default 120
        Seconds per MILP: a safety net only. A MILP it stops keeps its incumbent and the
        estimator reports ``limited_by_time_``.
    s, M, n_iter, anneal_K, anneal_scale, keep, warm_start_M, discrete, max_discrete_values, random_state :
        as in :class:`RuleListSearch`.

    Attributes
    ----------
    solve_statuses_ : Counter of the MILP statuses (``feasible`` / ``limit`` / ``time_limit``: stopped by a limit).
    solvers_ : dict
        ``{"baseline": {"requested": the string given, "solver": the backend that ran}}``.
    n_limited_ : MILPs stopped by a limit (nodes or time); n_timeouts_ : those stopped by the time limit.
    limited_by_time_ : bool, whether the time limit stopped any MILP; solve_seconds_ : total MILP wall time.
    """

    _parameter_constraints: dict = {
        **_COMMON_CONSTRAINTS,
        "p": [Interval(Real, 0, 1, closed="both")],
        "k": [Interval(Integral, 1, None, closed="left")],
        "rule_min_support": [Interval(Real, 0, 1, closed="both")],
        "support_of": [StrOptions({"positive", "all"})],
        "n_seeds": [Interval(Integral, 1, None, closed="left"), None],
        "max_rows": [Interval(Integral, 1, None, closed="left"), None],
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "solver": [str, dict],
        "node_limit": [Interval(Integral, 1, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "M": [Interval(Integral, 1, None, closed="left")],
        "filter_factor": [Interval(Real, 1, None, closed="left"), None],
        "warm_start_M": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, *, p: float = 0.5, k: int = 4, rule_min_support: float = 0.1, support_of: str = "positive",
                 n_seeds: int | None = None,
                 max_rows: int | None = None, n_thresholds: int = 9, solver: Any = "highs",
                 node_limit: int | None = 1000, time_limit: float | None = 120.0, s: float = 0.1, M: int = 5,
                 n_iter: int = 500,
                 anneal_K: float = 0.03, anneal_schedule: str = "linear", anneal_scale: Any = "n",
                 keep: str = KEEP_DEFAULT, warm_start_M: int | None = WARM_START_M_DEFAULT,
                 filter_factor: float | None = None, discrete: Any = "auto", max_discrete_values: int = 10,
                 random_state: Any = None):
        self.p = p
        self.k = k
        self.rule_min_support = rule_min_support
        self.support_of = support_of
        self.n_seeds = n_seeds
        self.max_rows = max_rows
        self.n_thresholds = n_thresholds
        self.solver = solver
        self.node_limit = node_limit
        self.time_limit = time_limit
        self.s = s
        self.M = M
        self.n_iter = n_iter
        self.anneal_K = anneal_K
        self.anneal_schedule = anneal_schedule
        self.anneal_scale = anneal_scale
        self.keep = keep
        self.warm_start_M = warm_start_M
        self.filter_factor = filter_factor
        self.discrete = discrete
        self.max_discrete_values = max_discrete_values
        self.random_state = random_state

    def _validate_params(self) -> None:
        super()._validate_params()
        self._solver_assignment = assign_solvers(self.solver, {"baseline": SOLVER_ROLES["baseline"]},
                                                 owner=type(self).__name__, all_roles=SOLVER_ROLES)
        for a in self._solver_assignment.values():
            check_solver_available(a.solver, owner=type(self).__name__)

    def fit(self, X, scores=None) -> "GloballyConsistentRuleSearch":
        from interpretopt.formulations import abbr_baseline as F
        from interpretopt.solvers import SolveSettings, SolveStatus, solve

        Xa, names, cats, ranks = self._prepare(X, scores)
        sc = self._train_scores
        rng = as_generator(self.random_state)
        disc = _discrete(Xa, self.discrete, names, cats, self.max_discrete_values)
        n = Xa.shape[0]
        rows = np.arange(n)
        if self.max_rows is not None and n > self.max_rows:
            rows = np.sort(rng.choice(n, self.max_rows, replace=False))
        Xm, pos = Xa[rows], sc[rows] > self.p
        base = int(pos.sum()) if self.support_of == "positive" else len(rows)
        qs = np.arange(1, self.n_thresholds + 1) / (self.n_thresholds + 1)
        thresholds = [[] if disc[j] else H._quantile_thresholds(Xa[:, j], qs) for j in range(Xa.shape[1])]
        seeds = np.flatnonzero(sc > self.p)
        if self.n_seeds is not None and seeds.size > self.n_seeds:
            seeds = np.sort(rng.choice(seeds, self.n_seeds, replace=False))
        settings = SolveSettings(node_limit=self.node_limit, time_limit=self.time_limit, threads=1)
        statuses: Counter = Counter()
        timeouts = 0
        rules = []
        role, ran = self._solver_assignment["baseline"], ""
        t0 = time.perf_counter()
        solve_seconds = 0.0
        for i in seeds:
            data = F.prepare(Xm, pos, Xa[i], disc, thresholds, k=self.k, min_support=self.rule_min_support,
                             support_base=base)
            if data.trivially_infeasible or data.pos_count.sum() < data.min_count:
                # a negative sample satisfies every literal of the seed (or too few positives): no MILP needed
                statuses["infeasible_presolved"] += 1
                continue
            model = F.build(data)
            res = solve(model, role.solver, settings)
            ran = res.solver
            solve_seconds += res.wall_time
            statuses[str(res.status)] += 1
            timeouts += bool(res.limited_by_time or res.status is SolveStatus.TIME_LIMIT)
            if res.has_solution:
                rules.append(F.extract(model, data))
        t1 = time.perf_counter()
        self.solvers_ = {"baseline": {"requested": role.requested, "solver": ran}}
        self.solve_statuses_ = statuses
        self.n_seeds_ = int(seeds.size)
        self.n_limited_ = int(sum(statuses.get(k, 0) for k in ("time_limit", "feasible", "limit")))
        self.n_timeouts_ = int(timeouts)
        self.limited_by_time_ = timeouts > 0
        self.solve_seconds_ = solve_seconds
        pool = H.pool_from_rules(Xa, ranks, rules)
        self.n_pool_ = len(pool)
        if self.filter_factor is not None and len(pool):
            pool = pool.subset(np.flatnonzero(H.pareto_filter(pool.counts, pool.abbr, self.filter_factor)))
        self.n_filtered_ = len(pool)
        t2 = time.perf_counter()
        self.timings_ = {"pool": t1 - t0, "filter": t2 - t1}
        if len(pool) == 0:
            detail = ", ".join(f"{v} {k}" for k, v in sorted(statuses.items())) or "no seed sample above p"
            raise InputError(f"no globally consistent rule was found at p = {self.p} ({detail}); the rule pool "
                             "is empty, lower p, raise k or the node limit")
        return self._anneal(pool, ranks, disc, rng)
