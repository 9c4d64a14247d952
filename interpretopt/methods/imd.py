r"""Interpretable model differencing (IMD) with Joint Surrogate Trees, and its baselines.

Haldar, Saha, Wei, Nair, Daly, "Interpretable Differencing of Machine Learning Models",
UAI 2023. Given two classifiers :math:`M_1, M_2` and unlabelled data :math:`X`, a diff model
:math:`\hat D(x)` predicts the 0-1 dissimilarity :math:`D = [M_1(x) \ne M_2(x)]`.

* :class:`IMDExplainer` (alias :class:`JointSurrogateTree`) grows a JST (Section 4.1,
  Algorithm 2) with :func:`interpretopt.heuristics.jst.grow_joint_tree`, extracts the diff
  rules (eq. 3, Algorithm 3) and optionally refines them (``refine=k`` gives
  :math:`\mathrm{IMD}_{h+k}`).
* :class:`SeparateSurrogates`: two independent trees (the JST with :math:`\alpha = 1`).
* :class:`DirectDT`: a depth-6 scikit-learn tree on :math:`D`; rules are its ``D = 1`` leaves.
* :class:`DirectGB`: scikit-learn gradient boosting (``max_depth=6``) on :math:`D`; no rules.
* :class:`BRCGDiff`: a BRCG rule set per model (binary tasks), the second grounded in the
  first; its diff rules are the exact region where the two rule sets disagree, as a DNF.

Every estimator has ``fit(X, a, b)`` where ``a``/``b`` are the models' labels on ``X`` or
fitted models with ``predict``, ``predict_diff(X)``, ``diff_rules_`` (a
:class:`~interpretopt.rules.RuleSet`, or ``None``) and ``metrics(X, a, b)`` returning the
Section 5 metrics (``diffs, precision, recall, f1, n_rules, n_predicates`` and, for the
surrogate methods, ``fidelity1, fidelity2``), and :meth:`rule_stats` the support and
precision of every diff rule. ``X`` may be a DataFrame with string or category columns: they
are one-hot encoded (:class:`interpretopt.data.OneHotFrame`) and the rules name the
indicator columns (``colour=red``).

Example
-------
>>> import numpy as np
>>> X = np.random.default_rng(0).normal(size=(500, 3))
>>> y1 = (X[:, 0] > 0).astype(int); y2 = ((X[:, 0] > 0) & (X[:, 1] < 1)).astype(int)
>>> imd = IMDExplainer(max_depth=3).fit(X, y1, y2)
>>> print(imd.render_rules())   # doctest: +SKIP
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions

from interpretopt._validation import (
    RANDOM_STATE,
    ContractMixin,
    check_fitted,
    check_in_range,
    check_int,
    validate_data,
)
from interpretopt.evaluation.diff_metrics import diff_metrics, fidelity as _fidelity
from interpretopt.exceptions import InputError, InterpretoptError
from interpretopt.heuristics import jst as _jst

from interpretopt.rules import Condition, Conjunction, RuleSet

__all__ = [
    "DiffRule",
    "xor_dnf",
    "difference_dnf",
    "IMDExplainer",
    "JointSurrogateTree",
    "SeparateSurrogates",
    "DirectDT",
    "DirectGB",
    "BRCGDiff",
    "DIFF_METHODS",
    "make_diff_model",
]


@dataclass(frozen=True)
class DiffRule:
    """A diff rule with its context: the or-node it comes from and the two leaf labels."""

    rule: Conjunction
    or_node: int
    label1: Any
    label2: Any

    def render(self, feature_names=None) -> str:
        return f"{self.rule.render(feature_names)}  [M1: {self.label1}, M2: {self.label2}]"


# --------------------------------------------------------------------------------------
# shared input handling
# --------------------------------------------------------------------------------------
def _labels_from(X_raw: Any, source: Any, name: str, n: int) -> np.ndarray:
    """Labels given directly, or a fitted model's predictions on ``X``."""
    if hasattr(source, "predict") and callable(source.predict):
        try:
            y = source.predict(X_raw)
        except Exception as exc:  # the user's model: report what it said
            raise InputError(
                f"{name} could not predict on X ({type(exc).__name__}: {exc}); pass a fitted model "
                f"whose predict accepts X with {n} rows, or its predicted labels"
            ) from exc
    else:
        y = source
    y = np.asarray(y)
    if y.ndim == 2 and 1 in y.shape:
        y = y.ravel()
    if y.ndim != 1:
        raise InputError(f"{name} must give one label per row of X, got an array of shape {y.shape}")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise InputError(f"{name} contains NaN or infinite labels")
    if y.dtype.kind == "f" and y.size and not np.all(y == np.round(y)):
        raise InputError(f"{name} gives continuous values (e.g. {y[np.flatnonzero(y != np.round(y))[0]]!r}), not "
                         "class labels; pass a classifier or its predicted labels")
    return y


def _label_set(source: Any, y: np.ndarray) -> tuple[list, bool]:
    """The labels a model can give (its ``classes_``), else those seen in ``y``; and whether from ``classes_``."""
    classes = getattr(source, "classes_", None)
    if classes is not None and hasattr(source, "predict"):
        return list(np.asarray(classes).tolist()), True
    return list(np.unique(y).tolist()), False


def _label_kind(labels: list) -> str:
    return "number" if all(isinstance(v, (int, float, bool, np.number)) for v in labels) else "text"


def _check_label_sets(a: Any, b: Any, y1: np.ndarray, y2: np.ndarray) -> None:
    """Labels are compared by value: a row differs when the two labels are different values.

    Two label sets that cannot mean the same classes are refused: numbers against text
    (``{0, 1}`` and ``{"no", "yes"}``), or two full label sets (a model's ``classes_``, or
    two or more labels each) with no value in common. A model that can give labels the other
    cannot is warned about (those rows always count as differences).
    """
    s1, full1 = _label_set(a, y1)
    s2, full2 = _label_set(b, y2)
    k1, k2 = _label_kind(s1), _label_kind(s2)
    common = set(s1) & set(s2) if k1 == k2 else set()
    if not common and (k1 != k2 or (len(s1) > 1 and len(s2) > 1)):
        raise InputError(
            f"the two models' labels cannot be matched by value: model1 gives {s1[:6]} and model2 gives {s2[:6]} "
            f"({'numbers against text' if k1 != k2 else 'no label in common'}), so every row would count as a "
            "difference. Encode both the same way (e.g. fit both on the same y, or map 'no'->0, 'yes'->1) "
            "before comparing them")
    if full1 and full2 and set(s1) != set(s2):
        only1, only2 = sorted(set(s1) - set(s2), key=str), sorted(set(s2) - set(s1), key=str)
        warnings.warn(f"the two models know different labels (only model1: {only1}, only model2: {only2}); rows "
                      "with such a label always count as differences", UserWarning, stacklevel=4)


class _Encoded(np.ndarray):
    """A feature matrix this estimator has already validated and encoded (internal calls)."""


def _mark(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=float).view(_Encoded)


def _sk_seed(random_state: Any) -> Any:
    """scikit-learn accepts None, an int or a RandomState; a Generator gives one drawn int."""
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    return random_state


def _box_rule(lo: np.ndarray, hi: np.ndarray) -> Conjunction:
    conds = []
    for f in np.nonzero(np.isfinite(lo) | np.isfinite(hi))[0]:
        if np.isfinite(lo[f]):
            conds.append(Condition(int(f), ">=", float(lo[f])))
        if np.isfinite(hi[f]):
            conds.append(Condition(int(f), "<", float(hi[f])))
    return Conjunction(tuple(conds))


class _DiffModel(ContractMixin, BaseEstimator):
    """Common surface of the diff models: ``predict_diff``, ``metrics``, ``score``, ``rule_stats``.

    Input handling (every public method): ``X`` is validated by the project's
    ``validate_data`` (shape, numbers, NaN, the columns seen in fit); string and category
    columns are one-hot encoded by the :class:`~interpretopt.data.OneHotFrame` fitted in
    ``fit`` (``encoder_``), so the rules refer to ``feature_names_`` (the indicator columns).
    Parameters are checked against ``_parameter_constraints`` at the top of ``fit``.
    """

    diff_rules_: Any = None
    _parameter_constraints: dict = {}

    def _encode(self, Xv: Any) -> np.ndarray:
        enc = getattr(self, "encoder_", None)
        return Xv.to_numpy(dtype=float) if enc is None else enc.transform(Xv)

    def _fit_input(self, X: Any, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Validate the fit input and the two label sources; fit the one-hot encoder."""
        from interpretopt.data import OneHotFrame

        self._validate_params()
        Xv = validate_data(self, X, reset=True, categorical=True, min_samples=2)
        cats = [c for c in Xv.columns if isinstance(Xv[c].dtype, pd.CategoricalDtype)]
        self.encoder_ = OneHotFrame(tuple(cats)).fit(Xv) if cats else None
        Xa = self._encode(Xv)
        names = [str(c) for c in Xv.columns]
        self.feature_names_ = list(self.encoder_.feature_names_out_) if self.encoder_ is not None else names
        self.n_features_ = Xa.shape[1]
        y1, y2 = self._labels(X, a, b, Xa.shape[0])
        _check_label_sets(a, b, y1, y2)
        return _mark(Xa), y1, y2

    @staticmethod
    def _labels(X_raw: Any, a: Any, b: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
        y1 = _labels_from(X_raw, a, "model1 / y1", n)
        y2 = _labels_from(X_raw, b, "model2 / y2", n)
        if y1.shape[0] != y2.shape[0]:
            raise InputError(f"the two label vectors differ in length: y1 has {y1.shape[0]}, y2 has {y2.shape[0]}")
        if y1.shape[0] != n:
            raise InputError(f"X has {n} rows but the labels have {y1.shape[0]}")
        return y1, y2

    def _check_X(self, X: Any) -> np.ndarray:
        check_fitted(self, "n_features_in_")
        if isinstance(X, _Encoded):
            return X
        return _mark(self._encode(validate_data(self, X, reset=False, categorical=True)))

    def _prepare(self, X: Any, a: Any, b: Any, *, match_labels: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Checked ``X`` and the two label vectors; ``match_labels=False`` for a caller that checks the
        labels against ``classes_`` itself (stricter than :func:`_check_label_sets`)."""
        Xa = self._check_X(X)
        y1, y2 = self._labels(X, a, b, Xa.shape[0])
        if match_labels:
            _check_label_sets(a, b, y1, y2)
        return Xa, y1, y2

    def _rule_masks(self, Xa: np.ndarray) -> np.ndarray:
        """Coverage (n_rules, n) of the diff rules."""
        rules = self.diff_rules_
        if rules is None or len(rules) == 0:
            return np.zeros((0, Xa.shape[0]), dtype=bool)
        return np.stack([np.asarray(r.evaluate(Xa), dtype=bool) for r in rules])

    def rule_stats(self, X: Any, model1: Any, model2: Any) -> dict[str, np.ndarray]:
        """Support and precision of every diff rule on ``X``.

        Returns a dict of arrays over the rules: ``support`` (rows the rule covers),
        ``n_diff`` (covered rows where the two models disagree) and ``precision``
        (``n_diff / support``, NaN for a rule covering no row).
        """
        from interpretopt.evaluation.diff_metrics import rule_support_precision

        Xa, y1, y2 = self._prepare(X, model1, model2)
        return rule_support_precision(self._rule_masks(Xa), y1 != y2)

    def _train_rule_support(self, Xa: np.ndarray, y1: np.ndarray, y2: np.ndarray) -> None:
        from interpretopt.evaluation.diff_metrics import rule_support_precision

        st = rule_support_precision(self._rule_masks(Xa), y1 != y2)
        self.diff_rule_support_ = st["support"]
        self.diff_rule_precision_ = st["precision"]

    def _rule_metrics(self, Xa: np.ndarray, y1: np.ndarray, y2: np.ndarray) -> dict[str, float]:
        from interpretopt.evaluation.diff_metrics import rule_support_precision, summarize_rule_stats

        test = rule_support_precision(self._rule_masks(Xa), y1 != y2)
        return summarize_rule_stats(getattr(self, "diff_rule_support_", None), test)

    def predict_diff(self, X: Any) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def predict(self, X: Any) -> np.ndarray:
        """Same as :meth:`predict_diff`."""
        return self.predict_diff(X)

    def metrics(self, X: Any, a: Any, b: Any) -> dict[str, float]:
        """Section 5 metrics on ``X`` against the models (or labels) ``a``, ``b``, with the
        per-rule summaries of :func:`~interpretopt.evaluation.diff_metrics.summarize_rule_stats`
        for a model with rules."""
        Xa, y1, y2 = self._prepare(X, a, b)
        out = diff_metrics(y1, y2, self.predict_diff(Xa), self.diff_rules_)
        if self.diff_rules_ is not None:
            out.update(self._rule_metrics(Xa, y1, y2))
        return out

    def render_rules(self, feature_names: Any = None) -> str:
        """The diff rules as numbered text, each with its training support and precision."""
        check_fitted(self, "n_features_in_")
        names = feature_names if feature_names is not None else getattr(self, "feature_names_", None)
        rules = self.diff_rules_
        if rules is None:
            return f"{type(self).__name__} has no diff rules"
        sup = getattr(self, "diff_rule_support_", None)
        prec = getattr(self, "diff_rule_precision_", None)
        lines = [f"{len(rules)} diff rule(s); D-hat = 1 where any holds"]
        for i, r in enumerate(rules):
            extra = ""
            if sup is not None:
                p = "-" if sup[i] == 0 or np.isnan(prec[i]) else f"{prec[i]:.2f}"
                extra = f"  [support {int(sup[i])}, precision {p}]"
            lines.append(f"  {i + 1}. IF {r.render(names) or 'TRUE'}{extra}")
        return "\n".join(lines)

    def score(self, X: Any, a: Any, b: Any) -> float:
        """F1 of the diff prediction."""
        return self.metrics(X, a, b)["f1"]

    @property
    def n_rules_(self) -> int:
        return 0 if self.diff_rules_ is None else len(self.diff_rules_)


# --------------------------------------------------------------------------------------
# IMD
# --------------------------------------------------------------------------------------
class IMDExplainer(_DiffModel):
    """Joint Surrogate Tree for interpretable model differencing.

    Parameters
    ----------
    max_depth : int, default 6
        Height of the JST in decision edges (the paper's ``k``; 6 in its experiments).
    criterion : {"entropy", "gini"}, default "entropy"
        Impurity ``H`` of eq. (1); the paper uses entropy.
    divergence : {None, "simplified", "general"}, default None
        Divergence condition: ``"simplified"`` is eq. (6) (diverge when one best separate
        split is pure; the paper's experiments), ``"general"`` is eq. (5) with ``alpha``.
        ``None`` chooses by ``alpha``: eq. (6) when ``alpha`` is None, eq. (5) otherwise, so
        ``IMDExplainer(alpha=0.0)`` is eq. (5) with alpha 0 (AIX360's ``split_criterion=2``;
        its default ``alpha=0.0`` under ``split_criterion=1`` is ignored, as eq. (6) has none).
    alpha : float in [0, 1], optional
        The alpha of eq. (5). ``alpha = 1`` gives the separate surrogates; smaller values
        favour shared splits; ``alpha = 0`` diverges only where both best separate splits
        are pure. Giving it with ``divergence="simplified"`` is an error.
    refine : int, default 0
        Iterations of selective refinement (Section 4.1): ``IMD_{max_depth + refine}``.

    Attributes
    ----------
    jst_ : interpretopt.heuristics.jst.JointTree
    surrogate1_, surrogate2_ : interpretopt.heuristics.jst.SurrogateTree
        The two surrogates (class codes index ``classes_``).
    or_nodes_ : tuple of OrNode
    diff_regions_ : list of DiffRegion
    diff_rules_ : RuleSet
        One rule per diff region, over feature indices (``x < t`` / ``x >= t``).
    diff_rule_info_ : list of DiffRule
        The same rules with their or-node and the two surrogates' labels.
    diff_rule_support_, diff_rule_precision_ : arrays over the diff rules
        Training rows in each diff region, and the fraction of them where the two models
        disagree (NaN for a region holding no training row: the intersection of two leaf
        boxes can be empty of data although it is not empty as a box).
    feature_importances_ : array (n_features,)
        Importance of each feature in the JST: the total impurity decrease of its splits in
        both surrogates, each split scored with its own model's labels (a shared split counts
        for both, as in eq. 4), normalised to sum 1 (0 everywhere for a tree without split).
        Appendix F.4 compares it with the models' and Direct DT's importances.
    surrogate_importances_ : tuple of two arrays
        The same for each surrogate alone (scikit-learn's definition with this criterion).
    classes_ : array
        Union of the two models' labels.
    fidelity_ : tuple of float
        Training fidelity of each surrogate to its model.
    feature_names_in_ : list of str
        Input columns; ``feature_names_`` are the columns the rules refer to (the one-hot
        indicator columns when ``X`` had string or category columns, see ``encoder_``).
    """

    _parameter_constraints: dict = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "criterion": [StrOptions(set(_jst.CRITERIA))],
        "divergence": [StrOptions({"simplified", "general"}), None],
        "alpha": [Interval(Real, 0, 1, closed="both"), None],
        "refine": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(self, *, max_depth: int = 6, criterion: str = "entropy", divergence: str | None = None,
                 alpha: float | None = None, refine: int = 0) -> None:
        self.max_depth = max_depth
        self.criterion = criterion
        self.divergence = divergence
        self.alpha = alpha
        self.refine = refine

    def _alpha(self) -> float | None:
        if self.divergence is None:
            return None if self.alpha is None else check_in_range("alpha", self.alpha, 0.0, 1.0)
        if self.divergence == "simplified":
            if self.alpha is not None:
                raise InputError("alpha is used only by divergence='general' (eq. 5); "
                                 "leave alpha=None with divergence='simplified' (eq. 6)")
            return None
        if self.divergence == "general":
            if self.alpha is None:
                raise InputError("divergence='general' (eq. 5) needs alpha in [0, 1]; alpha=1 gives separate surrogates")
            return check_in_range("alpha", self.alpha, 0.0, 1.0)
        raise InputError(f"divergence must be None (chosen by alpha), 'simplified' (eq. 6) or 'general' (eq. 5), "
                         f"got {self.divergence!r}")

    def fit(self, X: Any, model1: Any, model2: Any) -> "IMDExplainer":
        """Grow the JST on ``X`` labelled by ``model1`` and ``model2`` (models or label vectors)."""
        max_depth = check_int("max_depth", self.max_depth, 1)
        refine = check_int("refine", self.refine, 0)
        if self.criterion not in _jst.CRITERIA:
            raise InputError(f"criterion must be one of {_jst.CRITERIA}, got {self.criterion!r}")
        alpha = self._alpha()
        Xa, y1, y2 = self._fit_input(X, model1, model2)
        try:
            classes, codes = np.unique(np.concatenate([y1, y2]), return_inverse=True)
        except TypeError as exc:
            raise InputError(f"the two models' labels cannot be compared ({exc}); use one label type") from None
        n = Xa.shape[0]
        c1, c2 = codes[:n].astype(np.int64), codes[n:].astype(np.int64)
        jst = _jst.grow_joint_tree(Xa, c1, c2, max_depth, n_classes=len(classes),
                                   criterion=self.criterion, alpha=alpha)
        if refine:
            jst = _jst.refine(jst, Xa, c1, c2, refine)
        self.classes_ = classes
        self._set_tree(jst, Xa, c1, c2)
        return self

    def _set_tree(self, jst: _jst.JointTree, Xa: np.ndarray, c1: np.ndarray, c2: np.ndarray) -> None:
        self.jst_ = jst
        self.surrogate1_ = jst.tree1
        self.surrogate2_ = jst.tree2
        self.or_nodes_ = jst.or_nodes
        self.diff_regions_ = _jst.diff_regions(jst)
        self._rules_cache = None
        p1, p2 = jst.predict(Xa)
        self.fidelity_ = (float(np.mean(p1 == c1)), float(np.mean(p2 == c2)))
        st = self._region_stats(Xa, c1 != c2)
        self.diff_rule_support_ = st["support"]
        self.diff_rule_precision_ = st["precision"]
        i1 = _jst.feature_importances(jst.tree1, jst.n_features, jst.criterion, normalize=False)
        i2 = _jst.feature_importances(jst.tree2, jst.n_features, jst.criterion, normalize=False)
        self.surrogate_importances_ = (_normalized(i1), _normalized(i2))
        self.feature_importances_ = _normalized(i1 + i2)

    def _region_stats(self, Xa: np.ndarray, d_true: np.ndarray) -> dict[str, np.ndarray]:
        """Support and precision of each diff region, from the leaves the rows reach.

        A region is the intersection of a leaf of each surrogate under one or-node, so a row
        is in region ``(l1, l2)`` exactly when it reaches ``l1`` in tree 1 and ``l2`` in tree 2.
        """
        from interpretopt.evaluation.diff_metrics import support_precision_from_counts

        regions = self.diff_regions_
        if not regions:
            return support_precision_from_counts(np.zeros(0), np.zeros(0))
        n2 = self.surrogate2_.n_nodes
        key = self.surrogate1_.apply(Xa) * n2 + self.surrogate2_.apply(Xa)
        rk = np.array([r.leaf1 * n2 + r.leaf2 for r in regions], dtype=np.int64)
        uniq, inv = np.unique(key, return_inverse=True)
        total = np.bincount(inv, minlength=uniq.size)
        diff = np.bincount(inv, weights=np.asarray(d_true, dtype=float), minlength=uniq.size)
        pos = np.searchsorted(uniq, rk)
        pos = np.clip(pos, 0, max(uniq.size - 1, 0))
        hit = uniq[pos] == rk
        return support_precision_from_counts(np.where(hit, total[pos], 0), np.where(hit, diff[pos], 0))

    def rule_stats(self, X: Any, model1: Any, model2: Any) -> dict[str, np.ndarray]:
        """Support and precision of every diff rule on ``X`` (see :meth:`_DiffModel.rule_stats`)."""
        check_fitted(self, "n_features_in_")
        Xa, y1, y2 = self._prepare(X, model1, model2)
        return self._region_stats(Xa, y1 != y2)

    def _rules(self) -> list[DiffRule]:
        if not hasattr(self, "diff_regions_"):
            raise AttributeError("diff rules exist after fit")
        if self._rules_cache is None:
            cache: dict = {}

            def cond(f, op, v):
                key = (f, op, v)
                c = cache.get(key)
                if c is None:
                    c = cache[key] = Condition(f, op, v)
                return c

            def label(code):
                v = self.classes_[code]
                return v.item() if hasattr(v, "item") else v

            out = []
            for r in self.diff_regions_:
                conds = [cond(int(f), ">=", float(r.lo[f])) for f in np.nonzero(np.isfinite(r.lo))[0]]
                conds += [cond(int(f), "<", float(r.hi[f])) for f in np.nonzero(np.isfinite(r.hi))[0]]
                out.append(DiffRule(Conjunction(tuple(conds)), r.or_node, label(r.label1), label(r.label2)))
            self._rules_cache = out
        return self._rules_cache

    @property
    def diff_rules_(self) -> RuleSet:
        """The diff rules (eq. 3) as a RuleSet over feature indices (built on first access); fitted on
        named columns, it carries the names of the columns the indices refer to (``feature_names_``)."""
        named = getattr(self, "feature_names_in_", None) is not None
        return RuleSet(tuple(r.rule for r in self._rules()), tuple(self.feature_names_) if named else None)

    @property
    def diff_rule_info_(self) -> list[DiffRule]:
        """The diff rules with their or-node and the two surrogates' labels."""
        return list(self._rules())

    @property
    def n_rules_(self) -> int:
        return len(self.diff_regions_)

    @property
    def n_predicates_(self) -> int:
        """Distinct predicates over all diff rules (``#p``), counted on the diff boxes."""
        if not self.diff_regions_:
            return 0
        lo = np.vstack([r.lo for r in self.diff_regions_])
        hi = np.vstack([r.hi for r in self.diff_regions_])
        keys = set()
        for side, arr in ((0, lo), (1, hi)):
            rows, cols = np.nonzero(np.isfinite(arr))
            keys.update(zip([side] * rows.size, cols.tolist(), arr[rows, cols].tolist()))
        return len(keys)

    # -- predictions
    def predict1(self, X: Any) -> np.ndarray:
        """Surrogate of model 1."""
        return self.classes_[self.surrogate1_.predict(self._check_X(X))]

    def predict2(self, X: Any) -> np.ndarray:
        """Surrogate of model 2."""
        return self.classes_[self.surrogate2_.predict(self._check_X(X))]

    def predict_diff(self, X: Any, *, source: str = "surrogates") -> np.ndarray:
        """``D-hat(x)`` (int8 0/1).

        ``source="surrogates"`` (default) compares the two surrogates; ``"rules"`` evaluates
        the diff rule set; ``"regions"`` tests the diff boxes directly. All three agree.
        """
        Xa = self._check_X(X)
        if source == "rules":
            return np.asarray(self.diff_rules_.predict(Xa), dtype=np.int8) if self.diff_regions_ else \
                np.zeros(Xa.shape[0], dtype=np.int8)
        if source == "surrogates":
            return self.jst_.predict_diff(Xa)
        if source == "regions":
            return _jst.predict_diff_regions(self.diff_regions_, Xa)
        raise InputError(f"source must be 'rules', 'surrogates' or 'regions', got {source!r}")

    def fidelity(self, X: Any, model1: Any, model2: Any) -> tuple[float, float]:
        """Fidelity of each surrogate to its model on ``X``."""
        Xa, y1, y2 = self._prepare(X, model1, model2)
        return _fidelity(y1, self.predict1(Xa)), _fidelity(y2, self.predict2(Xa))

    def metrics(self, X: Any, model1: Any, model2: Any) -> dict[str, float]:
        """Section 5 metrics on ``X``; ``D-hat`` from the surrogates (equal to the rules')."""
        from interpretopt.evaluation.diff_metrics import summarize_rule_stats

        Xa, y1, y2 = self._prepare(X, model1, model2)
        out = diff_metrics(y1, y2, self.predict_diff(Xa, source="surrogates"))
        out["n_rules"] = self.n_rules_
        out["n_predicates"] = self.n_predicates_
        out.update(summarize_rule_stats(self.diff_rule_support_, self._region_stats(Xa, y1 != y2)))
        out["fidelity1"] = _fidelity(y1, self.predict1(Xa))
        out["fidelity2"] = _fidelity(y2, self.predict2(Xa))
        out["n_or_nodes"] = len(self.or_nodes_)
        out["n_shared"] = self.jst_.n_shared
        out["height"] = self.jst_.height
        return out

    def refined(self, X: Any, model1: Any, model2: Any, iterations: int = 1) -> "IMDExplainer":
        """A copy refined ``iterations`` more times on ``(X, model1, model2)``."""
        check_fitted(self, "n_features_in_")
        iterations = check_int("iterations", iterations, 0)
        Xa, y1, y2 = self._prepare(X, model1, model2, match_labels=False)
        index = {v: i for i, v in enumerate(self.classes_.tolist())}
        try:
            codes1 = np.array([index[v] for v in y1.tolist()], dtype=np.int64)
            codes2 = np.array([index[v] for v in y2.tolist()], dtype=np.int64)
        except KeyError as exc:
            raise InputError(f"label {exc.args[0]!r} was not seen in fit; classes: {self.classes_.tolist()}") from None
        other = type(self)(**self.get_params())
        other.refine = self.refine + iterations
        other.classes_ = self.classes_
        for attr in ("n_features_in_", "feature_names_in_", "feature_names_", "n_features_", "encoder_",
                     "_feature_kinds", "_feature_categories"):
            if hasattr(self, attr):
                setattr(other, attr, getattr(self, attr))
        other._set_tree(_jst.refine(self.jst_, Xa, codes1, codes2, iterations), Xa, codes1, codes2)
        return other

    # -- rendering
    def render_rules(self, feature_names: Any = None) -> str:
        """Diff rules as text, grouped by or-node."""
        from interpretopt.methods.imd_render import render_diff_rules

        check_fitted(self, "n_features_in_")
        return render_diff_rules(self, feature_names)

    def to_dot(self, feature_names: Any = None, **kwargs: Any) -> str:
        """The JST as Graphviz DOT text (Figure 2 style)."""
        from interpretopt.methods.imd_render import jst_to_dot

        check_fitted(self, "n_features_in_")
        return jst_to_dot(self, feature_names, **kwargs)

    def plot(self, ax: Any = None, feature_names: Any = None, **kwargs: Any):
        """Draw the JST with matplotlib (Graphviz ``dot`` layout when installed)."""
        from interpretopt.methods.imd_render import plot_jst

        check_fitted(self, "n_features_in_")
        return plot_jst(self, ax=ax, feature_names=feature_names, **kwargs)


JointSurrogateTree = IMDExplainer


def _normalized(v: np.ndarray) -> np.ndarray:
    total = float(v.sum())
    return v / total if total > 0 else np.zeros_like(v)


class SeparateSurrogates(IMDExplainer):
    """Two independently grown surrogate trees; diff rules from intersecting leaf pairs with
    different labels (the JST with the general divergence condition and ``alpha = 1``)."""

    _parameter_constraints: dict = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "criterion": [StrOptions(set(_jst.CRITERIA))],
    }

    def __init__(self, *, max_depth: int = 6, criterion: str = "entropy") -> None:
        self.max_depth = max_depth
        self.criterion = criterion

    divergence = "general"
    alpha = 1.0
    refine = 0


# --------------------------------------------------------------------------------------
# direct baselines
# --------------------------------------------------------------------------------------
class _DirectModel(_DiffModel):
    """A model fitted directly on the 0-1 dissimilarity ``D = 1[y1 != y2]`` (Section 5.2's direct baselines)."""

    def _dissimilarity_input(self, X: Any, model1: Any, model2: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                              np.ndarray]:
        """The checked fit input ``Xa``, both label vectors, and ``D``."""
        check_int("max_depth", self.max_depth, 1)
        Xa, y1, y2 = self._fit_input(X, model1, model2)
        return Xa, y1, y2, (y1 != y2).astype(np.int8)


class DirectDT(_DirectModel):
    """A decision tree on the 0-1 dissimilarity ``D``; diff rules are its ``D = 1`` leaves.

    Parameters
    ----------
    max_depth : int, default 6
    criterion : str, default "gini"
        scikit-learn's criterion (its default, as in the paper's setup).
    random_state : int, optional
    """

    _parameter_constraints: dict = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "criterion": [StrOptions({"gini", "entropy", "log_loss"})],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, max_depth: int = 6, criterion: str = "gini", random_state: Any = None) -> None:
        self.max_depth = max_depth
        self.criterion = criterion
        self.random_state = random_state

    def fit(self, X: Any, model1: Any, model2: Any) -> "DirectDT":
        from sklearn.tree import DecisionTreeClassifier

        from interpretopt.rules import tree_to_rules

        Xa, y1, y2, d = self._dissimilarity_input(X, model1, model2)
        tree = DecisionTreeClassifier(max_depth=self.max_depth, criterion=self.criterion,
                                      random_state=_sk_seed(self.random_state))
        tree.fit(Xa, d)
        self.tree_ = tree
        self.feature_importances_ = tree.feature_importances_
        leaves = tree_to_rules(tree)
        self.diff_rules_ = RuleSet(tuple(r.conjunction for r in leaves if r.prediction == 1))
        self._train_rule_support(Xa, y1, y2)
        return self

    def predict_diff(self, X: Any) -> np.ndarray:
        Xa = self._check_X(X)
        return self.tree_.predict(Xa).astype(np.int8)


class DirectGB(_DirectModel):
    """Gradient boosting (``max_depth=6``, other scikit-learn defaults) on ``D``; no rules."""

    _parameter_constraints: dict = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, max_depth: int = 6, random_state: Any = None) -> None:
        self.max_depth = max_depth
        self.random_state = random_state

    def fit(self, X: Any, model1: Any, model2: Any) -> "DirectGB":
        from sklearn.ensemble import GradientBoostingClassifier

        Xa, y1, y2, d = self._dissimilarity_input(X, model1, model2)
        self.constant_ = int(d[0]) if np.unique(d).size == 1 else None
        if self.constant_ is None:
            self.model_ = GradientBoostingClassifier(max_depth=self.max_depth,
                                                     random_state=_sk_seed(self.random_state)).fit(Xa, d)
        else:
            self.model_ = None
        self.diff_rules_ = None
        return self

    def predict_diff(self, X: Any) -> np.ndarray:
        Xa = self._check_X(X)
        if self.model_ is None:
            return np.full(Xa.shape[0], self.constant_, dtype=np.int8)
        return self.model_.predict(Xa).astype(np.int8)


class BRCGDiff(_DiffModel):
    """BRCG Diff: a BRCG rule set per model (binary labels), diff where the two disagree.

    The paper's baseline (Section 5.2) takes "diff rulesets obtained from Grounded BRCG
    [Nair et al., 2021] ruleset surrogates for the two models": a rule set ``R1`` for model 1
    and, unless ``grounded=False``, a rule set ``R2`` for model 2 grounded in ``R1`` (BRCG+ of
    "What changed?"). The paper does not say how diff rules are formed from two rule sets.
    With ``construction="xor"`` (default) the diff rules are the region where the two
    surrogates disagree, the analogue of eq. (3) for rule sets:

    .. math:: \\hat D = (R_1 \\wedge \\lnot R_2) \\vee (R_2 \\wedge \\lnot R_1),

    written as a DNF: each rule ``r`` of one set is conjoined with the negation of every rule
    of the other (``r AND NOT s`` is ``r`` when ``r`` and ``s`` are disjoint, else the
    disjunction over the literals ``l`` of ``s`` of ``r AND NOT l``); contradictory terms are
    dropped, bounds simplified and terms absorbed by a shorter term removed. Predictions
    are that rule set, so the rules describe exactly the predicted diffs, and ``#r`` / ``#p``
    count the diff rules. ``construction="union"`` takes the rules of both surrogates as the
    diff rules (``D-hat = R1 OR R2``); it reproduces the published pattern of this baseline
    (precision near the diff rate, recall near 1) but is not a model of the disagreement.

    Parameters
    ----------
    brcg_params : dict, optional
        Keyword arguments for :class:`interpretopt.methods.brcg.BRCGClassifier`, its ``solver``
        (one name, or one per role of BRCG: ``master``, ``pricing``, ``integer``) and
        ``settings`` included.
    grounded : bool, default True
    construction : {"xor", "union"}, default "xor"
    max_terms : int, default 2000
        Cap on the DNF terms of the ``xor`` expansion; beyond it the fit fails with
        ``DisagreementTooLargeError`` (simpler surrogates, e.g. larger ``lambda0``, give fewer
        terms). Not a setting of the paper: a diff rule set of thousands of terms explains
        nothing, and reaching 20,000 took minutes of absorption per fit (heloc, Table 8 pairs).

    Attributes
    ----------
    models_ : list
        The two fitted BRCG classifiers (``None`` for a model whose labels are constant).
    surrogate_rules_ : tuple of two RuleSet
        ``R1`` and ``R2`` over the input features (``TRUE`` / empty for a constant model).
    diff_rules_ : RuleSet
    solvers_ : dict
        Per BRCG role, the solver string given and the backend(s) that ran in the two fits.
    """

    #: Section 5.2's two readings of the diff rules: the surrogates' disagreement, or both rule sets.
    CONSTRUCTIONS = ("xor", "union")

    _parameter_constraints: dict = {
        "brcg_params": [dict, None],
        "grounded": ["boolean"],
        "construction": [StrOptions(set(CONSTRUCTIONS))],
        "max_terms": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, *, brcg_params: dict | None = None, grounded: bool = True, construction: str = "xor",
                 max_terms: int = 2000) -> None:
        self.brcg_params = brcg_params
        self.grounded = grounded
        self.construction = construction
        self.max_terms = max_terms

    @staticmethod
    def _brcg_classes():
        try:
            from interpretopt.methods.brcg import BRCGClassifier, GroundedBRCGClassifier
        except ImportError as exc:
            raise InterpretoptError(
                f"BRCG Diff needs interpretopt.methods.brcg.BRCGClassifier; BRCG is unavailable ({exc})"
            ) from exc
        return BRCGClassifier, GroundedBRCGClassifier

    def fit(self, X: Any, model1: Any, model2: Any) -> "BRCGDiff":
        if self.construction not in self.CONSTRUCTIONS:
            raise InputError(f"construction must be one of {', '.join(map(repr, self.CONSTRUCTIONS))}, "
                             f"got {self.construction!r}")
        max_terms = check_int("max_terms", self.max_terms, 1)
        plain, grounded = self._brcg_classes()
        Xa, y1, y2 = self._fit_input(X, model1, model2)
        labels = np.unique(np.concatenate([y1, y2]))
        if labels.size > 2:
            raise InputError(f"BRCG Diff applies to binary tasks only; the models predict {labels.size} classes")
        positive = labels[-1]
        self.classes_ = labels
        params = dict(self.brcg_params or {})
        self.constant_ = {}
        self.models_ = []
        sets = []
        for k, y in enumerate((y1, y2)):
            yb = (y == positive).astype(np.int8)
            if np.unique(yb).size == 1:
                self.models_.append(None)
                self.constant_[k] = int(yb[0])
                sets.append(RuleSet((Conjunction(()),)) if yb[0] else RuleSet(()))
                continue
            first = self.models_[0] if k == 1 else None
            if k == 1 and self.grounded and first is not None and len(first.rules_) > 0:
                model = grounded(grounding=first.rules_, **params)
            else:
                model = plain(**params)
            self.models_.append(model.fit(Xa, yb))
            sets.append(RuleSet(tuple(model.rules_)))
        self.surrogate_rules_ = (sets[0], sets[1])
        from interpretopt.solvers._roles import merge_solver_records

        self.solvers_ = merge_solver_records(getattr(m, "solvers_", None) for m in self.models_ if m is not None)
        if self.construction == "xor":
            self.diff_rules_ = RuleSet(tuple(xor_dnf(sets[0], sets[1], max_terms=max_terms)))
        else:
            self.diff_rules_ = RuleSet(tuple(dict.fromkeys(list(sets[0]) + list(sets[1]))))
        self._train_rule_support(Xa, y1, y2)
        return self

    def _predict_model(self, k: int, Xa: np.ndarray) -> np.ndarray:
        m = self.models_[k]
        if m is None:
            return np.full(Xa.shape[0], self.constant_[k], dtype=np.int8)
        return np.asarray(m.predict(Xa)).astype(np.int8)

    def predict_surrogates(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """The two BRCG surrogates' 0/1 predictions."""
        Xa = self._check_X(X)
        return self._predict_model(0, Xa), self._predict_model(1, Xa)

    def predict_diff(self, X: Any) -> np.ndarray:
        """``D-hat``: the diff rule set (for ``xor``, equal to the two surrogates' disagreement)."""
        Xa = self._check_X(X)
        if not len(self.diff_rules_):
            return np.zeros(Xa.shape[0], dtype=np.int8)
        return np.asarray(self.diff_rules_.predict(Xa), dtype=np.int8)


class DisagreementTooLargeError(InterpretoptError):
    """The exact disagreement DNF of two rule sets has more than ``max_terms`` terms (``xor_dnf``): the
    XOR of two DNFs can be exponentially larger than either, so BRCG Diff has no rule set to give."""


def _and_not(terms: list[Conjunction], rule: Conjunction, max_terms: int | None = None) -> list[Conjunction]:
    """``(OR of terms) AND NOT rule`` as a list of satisfiable, simplified terms.

    Raises ``InterpretoptError`` as soon as more than ``max_terms`` terms are produced (before
    absorption, which is the expensive part), so a blow-up fails fast instead of running for hours.
    """
    out: list[Conjunction] = []
    for t in terms:
        if not Conjunction(t.conditions + rule.conditions).is_satisfiable():
            out.append(t)  # t and rule are disjoint: t AND NOT rule = t
            continue
        for lit in rule.conditions:
            u = Conjunction(t.conditions + (lit.negate(),))
            if u.is_satisfiable():
                out.append(u.simplify())
        if max_terms is not None and len(out) > max_terms:
            raise DisagreementTooLargeError(
                f"the disagreement DNF of the two BRCG rule sets exceeds max_terms={max_terms} terms; "
                "raise max_terms or learn simpler rule sets (e.g. larger lambda0 / lambda1)")
    return _absorb(out)


def _absorb(terms: list[Conjunction]) -> list[Conjunction]:
    """Distinct terms without those that contain every condition of a shorter kept term.

    A kept term ``s`` absorbs ``t`` when ``s``'s conditions are a subset of ``t``'s. Each kept term
    is indexed under its rarest condition (fewest terms hold it), so a term is compared only with
    the kept terms filed under one of its own conditions; the terms of one ``A AND NOT B`` step all
    share the conditions of ``A``'s rule, which an index over every condition would visit for every
    pair.
    """
    from collections import Counter

    uniq = list(dict.fromkeys(terms))
    uniq.sort(key=len)
    if uniq and not uniq[0].conditions:  # the empty conjunction (TRUE) absorbs everything
        return [uniq[0]]
    freq = Counter(c for t in uniq for c in set(t.conditions))
    kept: list[Conjunction] = []
    filed: dict = {}
    for t in uniq:
        cs = frozenset(t.conditions)
        if any(s <= cs for c in cs for s in filed.get(c, ())):
            continue
        kept.append(t)
        filed.setdefault(min(cs, key=lambda c: (freq[c], repr(c))), []).append(cs)
    return kept


def difference_dnf(A: RuleSet, B: RuleSet, *, max_terms: int = 2000) -> list[Conjunction]:
    """``A AND NOT B`` as a DNF (list of conjunctions) over the same conditions' features."""
    out: list[Conjunction] = []
    for a in A:
        if not a.is_satisfiable():
            continue
        current = [a.simplify()]
        for b in B:
            current = _and_not(current, b, max_terms)
            if not current:
                break
        out.extend(current)
    return _absorb(out)


def xor_dnf(A: RuleSet, B: RuleSet, *, max_terms: int = 2000) -> list[Conjunction]:
    """The disagreement region ``(A AND NOT B) OR (B AND NOT A)`` of two DNF rule sets as a DNF."""
    terms = difference_dnf(A, B, max_terms=max_terms) + difference_dnf(B, A, max_terms=max_terms)
    if len(terms) > max_terms:
        raise DisagreementTooLargeError(f"the disagreement DNF has {len(terms)} terms, more than max_terms={max_terms}")
    return _absorb(terms)


DIFF_METHODS = {
    "imd": IMDExplainer,
    "separate": SeparateSurrogates,
    "direct_dt": DirectDT,
    "direct_gb": DirectGB,
    "brcg_diff": BRCGDiff,
}


def make_diff_model(name: str, **params: Any) -> _DiffModel:
    """A diff model by name: ``imd``, ``separate``, ``direct_dt``, ``direct_gb``, ``brcg_diff``."""
    from interpretopt.exceptions import UnknownNameError

    if name not in DIFF_METHODS:
        raise UnknownNameError("diff method", name, sorted(DIFF_METHODS))
    return DIFF_METHODS[name](**params)
