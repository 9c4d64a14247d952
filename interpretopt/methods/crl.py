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

from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from interpretopt._validation import (
    RANDOM_STATE,
    ContractMixin,
    HasMethods,
    Interval,
    StrOptions,
    as_generator,
    check_fitted,
    check_in_range,
    check_int,
    encode_binary_target,
    fitted_names,
    render_names,
    validate_data,
)
from interpretopt.evaluation.autac import (
    TradeoffCurve,
    first_cover_from_coverage,
    stochastic_crl_predict,
    tradeoff_curve,
)
from interpretopt.exceptions import InputError
from interpretopt.heuristics.companion import (  # noqa: F401  (re-exported: the search core lives in heuristics)
    ALPHA_CANDIDATES,
    MOVES,
    CompanionSearch,
    ListState,
    crl_acceptance,
    search_companion_list,
)
from interpretopt.heuristics.mining import MiningReport, QuantileOneHotBinarizer, mine_rules

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


def _refit_clone(black_box: Any, X: np.ndarray, y: np.ndarray) -> Any:
    """A fresh clone of ``black_box`` trained on ``(X, y)``; a model that cannot be cloned is refused clearly."""
    from sklearn.base import clone

    try:
        proto = clone(black_box)
    except Exception as exc:
        raise InputError(
            f"refit=True trains a fresh copy of the black box, but {type(black_box).__name__} cannot be copied "
            f"({type(exc).__name__}: {exc}); give a scikit-learn estimator (get_params/set_params, e.g. by "
            "subclassing sklearn.base.BaseEstimator), or pass an already trained model with refit=False") from None
    return proto.fit(X, y)


def _conjunction(items):
    from interpretopt.rules import Conjunction

    conds = []
    for it in items:
        conds.extend(it.conditions())
    return Conjunction(tuple(conds))


# =========================================================================== shared companion API
class _CompanionBase(ContractMixin, ClassifierMixin, BaseEstimator):
    """Prediction, explanation, curves and rendering for a rule list paired with a black box."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # the companion setting is binary (Section 3)
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    def _validated(self, X, y):
        """``(X as a checked table, classes_, 0/1 codes of y)``; sets ``n_features_in_`` / ``feature_names_in_``."""
        X = validate_data(self, X, reset=True, categorical=True, min_samples=2)
        classes, y01 = encode_binary_target(self, y, n_samples=X.shape[0])
        return X, classes, y01

    def _checked(self, X):
        """``X`` checked against the fit (columns, types, no NaN) as the table the binarizer reads."""
        self._check_fitted()
        return validate_data(self, X, reset=False, categorical=True)

    def _prepare(self, X, y, blackbox_pred, *, refit: bool, train_pred: str, cv: int, rng):
        """X is the table of :meth:`_validated`."""
        n = X.shape[0]
        y01 = (np.asarray(y).ravel() == self.classes_[1]).astype(np.int8)
        Xn = _numeric(X)
        bb = self.black_box
        if train_pred not in ("auto", "oof", "in_sample"):
            raise InputError(f"blackbox_train_pred must be 'auto', 'oof' or 'in_sample', got {train_pred!r}")
        if train_pred == "auto":
            train_pred = "oof" if refit else "in_sample"
        if blackbox_pred is None:
            _check_black_box(bb, need_fit=refit)
        elif bb is not None and not callable(getattr(bb, "predict", None)):
            raise InputError(f"black_box must have a predict method; got {type(bb).__name__}")
        if refit and bb is not None:
            self.black_box_ = _refit_clone(bb, Xn, np.asarray(y).ravel())
        else:
            self.black_box_ = bb
        self.blackbox_train_pred_source_ = "given" if blackbox_pred is not None else train_pred
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
            try:
                proto = clone(bb)
                if not callable(getattr(proto, "fit", None)):
                    raise TypeError(f"{type(bb).__name__} has no fit method")
            except Exception as exc:
                raise InputError(
                    f"blackbox_train_pred='oof' trains {k} clones of the black box on folds of the training data, "
                    f"but this black box cannot be cloned and refitted ({type(exc).__name__}: {exc}). To use a "
                    "pre-trained, predict-only model as it is, pass refit=False with blackbox_train_pred='in_sample' "
                    "(its own answers on the training rows; optimistic if it was trained on them) or fit(X, y, "
                    "blackbox_pred=...) with its answers on rows it was not trained on") from None
            folds = StratifiedKFold(n_splits=k, shuffle=True, random_state=int(rng.integers(2**31 - 1)))
            p = cross_val_predict(proto, Xn, np.asarray(y).ravel(), cv=folds)
            bb01 = self._to01(p)
        else:
            bb01 = self._to01(self.black_box_.predict(Xn))
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
        check_fitted(self, "rule_labels_")

    def _blackbox01(self, X, blackbox_pred=None) -> np.ndarray:
        if blackbox_pred is not None:
            p = np.asarray(blackbox_pred).ravel()
            if len(p) != np.shape(X)[0]:
                raise InputError(f"blackbox_pred has {len(p)} entries but X has {np.shape(X)[0]} rows")
            return self._to01(p)
        if self.black_box_ is None:
            raise InputError("no black box to answer uncovered inputs; pass blackbox_pred")
        return self._to01(self.black_box_.predict(_numeric(X)))

    def first_cover(self, X) -> np.ndarray:
        """Index of the rule covering each row (-1: none, the black box answers)."""
        return self._first_cover(self._checked(X))

    def _first_cover(self, X) -> np.ndarray:
        return first_cover_from_coverage(self._rule_coverage(X))

    def n_rules_at(self, transparency: float) -> int:
        """Rules a user adopts at ``transparency``: the longest prefix whose training transparency is at most it.

        The deterministic reading of Definition 3 (``m^t = max{m : T_m <= t}`` on the training
        data); :meth:`predict_stochastic` reaches ``t`` exactly in expectation.
        """
        self._check_fitted()
        t = float(transparency)
        if not 0.0 <= t <= 1.0:
            raise InputError(f"transparency must lie in [0, 1], got {transparency!r}")
        T = self.train_curve_.transparency
        return int(np.searchsorted(T, t + 1e-12, side="right") - 1)

    def _n_rules(self, n_rules, transparency) -> int:
        M = len(self.rule_labels_)
        if n_rules is not None and transparency is not None:
            raise InputError("give n_rules or transparency, not both")
        if transparency is not None:
            return self.n_rules_at(transparency)
        return M if n_rules is None else check_int("n_rules", n_rules, 0, M)

    def predict(self, X, n_rules: int | None = None, *, transparency: float | None = None,
                blackbox_pred=None) -> np.ndarray:
        """Answer with the first ``n_rules`` rules (default all), the black box for the rest.

        ``transparency=t`` adopts the first :meth:`n_rules_at` ``(t)`` rules instead: ``t = 0`` is
        the black box alone, ``t = 1`` the whole list (which ends in a default rule when fitted
        with one, so no input reaches the black box).
        """
        X = self._checked(X)
        m = self._n_rules(n_rules, transparency)
        fc = self._first_cover(X)
        use = (fc >= 0) & (fc < m)
        if use.all():
            out = np.zeros(len(fc), dtype=np.int64)
        else:
            out = self._blackbox01(X, blackbox_pred).astype(np.int64)
        out[use] = np.asarray(self.rule_labels_)[fc[use]]
        return self.classes_[out]

    def predict_proba(self, X, n_rules: int | None = None, *, transparency: float | None = None) -> np.ndarray:
        """Class probabilities: a rule's share of each class among the training rows it captures,
        the black box's ``predict_proba`` for the rows it answers.

        Defined when every row is answered by a rule or the black box has ``predict_proba``;
        otherwise an :class:`InputError` says so.
        """
        X = self._checked(X)
        m = self._n_rules(n_rules, transparency)
        fc = self._first_cover(X)
        use = (fc >= 0) & (fc < m)
        out = np.empty((len(fc), 2))
        if not use.all():
            bb = self.black_box_
            if bb is None or not callable(getattr(bb, "predict_proba", None)):
                raise InputError(
                    f"{int((~use).sum())} row(s) go to the black box, which has no predict_proba "
                    f"({type(bb).__name__}); use predict, or a transparency at which the list answers every row")
            out[~use] = np.asarray(bb.predict_proba(_numeric(X)))[~use]
        p1 = np.asarray(self.rule_proba_)
        out[use, 1] = p1[fc[use]]
        out[use, 0] = 1.0 - p1[fc[use]]
        return out

    def explain(self, X, n_rules: int | None = None, *, transparency: float | None = None) -> pd.DataFrame:
        """Per input: the rule that answers it, or the black-box fallback.

        Columns: ``rule`` (position in the list, -1 for the black box), ``answered_by``
        ("rule" / "black box"), ``condition`` (the rule's text), ``prediction`` (the rule's label;
        the black box's answer for a fallback row), ``rule_accuracy`` (the rule's accuracy on the
        training rows it captures), ``blackbox_accuracy`` (the black box's accuracy on those same
        rows), ``cover`` (share of training rows the rule captures). A user compares the last
        two to decide whether to take the rule (Figure 1).
        """
        Xv = self._checked(X)
        m = self._n_rules(n_rules, transparency)
        fc = self._first_cover(Xv)
        use = (fc >= 0) & (fc < m)
        tc = self.train_curve_
        pred = self.predict(X, m) if not use.all() else self.classes_[np.asarray(self.rule_labels_)[fc]]
        k = np.where(use, fc, -1)
        text = np.array(list(self.rule_text_) + ["black box"], dtype=object)
        racc = np.append(tc.rule_accuracy, np.nan)
        bacc = np.append(tc.blackbox_accuracy, np.nan)
        cov = np.append(tc.rule_cover, np.nan)
        return pd.DataFrame({
            "rule": k,
            "answered_by": np.where(use, "rule", "black box"),
            "condition": text[k],
            "prediction": pred,
            "rule_accuracy": racc[k],
            "blackbox_accuracy": bacc[k],
            "cover": cov[k],
        })

    def transparency_accuracy_curve(self, X, y, *, blackbox_pred=None) -> TradeoffCurve:
        """Points ``(T_m, A_m)``, m = 0..M, and AUTAC (Proposition 4) on ``(X, y)``."""
        X = self._checked(X)
        arr = np.asarray(y).ravel()
        if len(arr) != np.shape(X)[0]:
            raise InputError(f"y has {len(arr)} labels but X has {np.shape(X)[0]} rows")
        if not np.isin(arr, self.classes_).all():
            bad = [v for v in np.unique(arr).tolist() if v not in self.classes_.tolist()][:5]
            raise InputError(f"y has labels {bad} outside the fitted classes {self.classes_.tolist()}")
        y01 = (arr == self.classes_[1]).astype(np.int8)
        return tradeoff_curve(self._first_cover(X), self.rule_labels_, y01, self._blackbox01(X, blackbox_pred))

    def plot_tradeoff(self, X=None, y=None, *, blackbox_pred=None, ax=None, label: str | None = None):
        """Draw the transparency-accuracy curve of this model (training data unless ``X, y``), with
        the black box's accuracy as a horizontal line; returns the matplotlib Axes."""
        import matplotlib.pyplot as plt

        self._check_fitted()
        curve = self.train_curve_ if X is None else self.transparency_accuracy_curve(X, y, blackbox_pred=blackbox_pred)
        if ax is None:
            _, ax = plt.subplots(figsize=(4.5, 3.5))
        ax.plot(curve.transparency, curve.accuracy, marker="o", ms=3,
                label=label or f"{type(self).__name__} (AUTAC {curve.autac:.3f})")
        ax.axhline(curve.accuracy[0], color="gray", ls="--", lw=1, label=f"black box ({curve.accuracy[0]:.3f})")
        ax.set_xlim(0, 1)
        ax.set_xlabel("transparency")
        ax.set_ylabel("accuracy")
        ax.legend(fontsize=7)
        ax.figure.tight_layout()
        return ax

    def predict_stochastic(self, X, t: float, *, random_state=None, blackbox_pred=None) -> np.ndarray:
        """The stochastic CRL of Definition 3 with transparency ``t`` (measured on the training data)."""
        X = self._checked(X)
        out = stochastic_crl_predict(self._first_cover(X), self.rule_labels_, self._blackbox01(X, blackbox_pred),
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
                "": "if" if m == 0 else ("else" if not self.rule_itemsets_[m] else "else if"),
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
        if not (len(self.rule_itemsets_) and not self.rule_itemsets_[-1]):
            lines.append(f"{'else':8s} {'black box':60s}")
        return "\n".join(lines)

    # ---- rule material shared by subclasses
    def _set_rules(self, itemsets, labels, y01):
        """Store the list; the last itemset may be ``()``, the default rule (always holds)."""
        items = self.binarizer_.items_
        self.rule_itemsets_ = [tuple(s) for s in itemsets]
        self.rule_labels_ = np.asarray(labels, dtype=np.int64)
        names = render_names(self)
        self.rule_text_ = [" and ".join(items[i].render(names) for i in s) or "default (always)"
                           for s in self.rule_itemsets_]
        has_default = bool(self.rule_itemsets_) and not self.rule_itemsets_[-1]
        body = self.rule_itemsets_[:-1] if has_default else self.rule_itemsets_
        fc = self._first_cover_train
        p1 = np.full(len(self.rule_itemsets_), np.nan)
        for m in range(len(self.rule_itemsets_)):
            mine = fc == m
            if mine.any():
                p1[m] = float(np.mean(y01[mine] == 1))
            else:
                p1[m] = float(self.rule_labels_[m])
        self.rule_proba_ = p1
        if all(items[i].expressible for s in body for i in s):
            from interpretopt.rules import RuleList

            self.rules_ = RuleList(tuple(_conjunction([items[i] for i in s]) for s in body),
                                   tuple(self.classes_[lab] for lab in self.rule_labels_[:len(body)]),
                                   self.classes_[self.rule_labels_[-1]] if has_default else None,
                                   feature_names=fitted_names(self))
        else:  # a negated middle bin is a disjunction: the list is still exact on binarized inputs
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
        """Rules in the list, the default rule included."""
        self._check_fitted()
        return len(self.rule_labels_)

    @property
    def n_conditions_(self) -> int:
        """Number of items (binary conditions) used by the list (the default rule has none)."""
        self._check_fitted()
        return int(sum(len(s) for s in self.rule_itemsets_))


def _mine(self, X, y01, rng, *, scope: str = "class", precision_filter: bool | None = None,
          negations: bool | None = None, min_support: float | None = None, cap_pool: bool = True):
    ms = self.min_support if min_support is None else min_support
    check_in_range("min_support", ms, 0.0, 1.0, low_open=True, high_open=True)
    check_int("max_card", self.max_card, 1, None)
    neg = bool(getattr(self, "negations", False)) if negations is None else negations
    binarizer = QuantileOneHotBinarizer(n_quantiles=self.n_quantiles, feature_types=self.feature_types,
                                        negations=neg).fit(X)
    B = binarizer.transform(X)
    pf = bool(getattr(self, "precision_filter", False)) if precision_filter is None else precision_filter
    pool = mine_rules(B, y01, min_support=ms, max_card=self.max_card,
                      max_rules_per_class=self.max_rules_per_class if (scope == "class" and cap_pool) else None,
                      precision_filter=pf and scope == "class", scope=scope,
                      memory_limit_mb=self.memory_limit_mb, max_mining_samples=self.max_mining_samples,
                      random_state=rng)
    return binarizer, B, pool


def _majority(y01: np.ndarray, mask: np.ndarray) -> int:
    k = int(mask.sum())
    k1 = int(np.sum(y01[mask] == 1))
    return int(k1 > k - k1)


DEFAULT_RULE_MODES = ("append", "search", "none")


# =========================================================================== CRL estimator
class CompanionRuleList(_CompanionBase):
    """Companion rule list trained on the AUTAC objective (eq. 4) by Algorithm 1.

    Parameters
    ----------
    black_box : estimator with ``predict`` (and ``fit`` unless ``refit=False``)
        Cloned and trained on the training data when ``refit=True``; with ``refit=False`` it is
        used as it is (a pre-trained model, which needs no ``fit``).
    alpha : float or "auto", default "auto"
        Length penalty; "auto" tunes it by Algorithm 2 over :data:`ALPHA_CANDIDATES`: the highest
        training AUTAC among the lists with fewer than ``max_conditions`` conditions.
    C0 : float, default 0.001
        Initial temperature of Algorithm 1.
    n_iter : int, default 50_000
        Annealing steps ``N``.
    min_support : float in (0, 1), default 0.05
        FP-Growth minimum support ``gamma`` within the class a rule predicts (Section 6's
        value; the authors' script passes 0.05 to pyfim, which reads it as 0.05%, i.e. 0.0005).
    max_card : int, default 2
        Maximum items per rule.
    n_quantiles : int, default 7
        Quantile bins per numerical feature (Section 6.1).
    negations : bool, default False
        Also mine the complement of every item (the authors' script's ``_rev`` columns).
    precision_filter : bool, default False
        Keep only rules more precise than their class's base rate (the authors' ``screen_rules``).
    max_rules_per_class : int, optional
        Keep the most precise rules per class (the authors' script: 200).
    default_rule : {"search", "append", "none"}, default "search"
        Every list but "none" ends in a default rule (the majority label of the training rows
        no other rule covers), so it reaches transparency 1 and its AUTAC is Proposition 4 on
        the complete list. "search": the search scores every list with its default rule (the
        area over ``[0, 1]`` minus ``alpha M``, ``M`` not counting the default), the quantity
        that is evaluated. "append": the search maximizes eq. (4) as printed (the area over
        ``[0, T_M]``, which grows with coverage alone), then the default rule is appended.
        "none": no default rule; the black box answers what the list leaves (``T_M < 1``).
    blackbox_train_pred : {"auto", "oof", "in_sample"}, default "auto"
        The black box's answers on the training rows that the objective uses. "oof": out-of-fold
        predictions of ``cv`` clones fitted on the other folds (a forest predicts its own
        training rows almost perfectly, which would make every rule look worse than it is);
        this refits clones, so it needs a black box with ``fit``. "in_sample": the (trained or
        given) black box's own answers. "auto" is "oof" with ``refit=True`` and "in_sample"
        with ``refit=False`` (a pre-trained model is used as it is, never refitted). Passing
        ``fit(..., blackbox_pred=...)`` (e.g. the model's answers on rows it was not trained
        on) overrides all three.
    cv : int, default 5
    refit : bool, default True
    max_conditions : int, default 20
        Appendix A's complexity budget: Algorithm 2 keeps lists with fewer conditions than this.
    max_rules : int, optional
        Algorithm 2's printed ``M < I_max`` on the number of rules, as an extra cap.
    memory_limit_mb, max_mining_samples : mining options (see :func:`interpretopt.heuristics.mining.mine_rules`).
    feature_types : dict, optional, passed to the binarizer.
    rule_labels : {"mined", "majority"}, default "mined"
        "mined": a rule mined on class ``c`` predicts ``c`` (Algorithm 1); "majority": a rule
        predicts the majority class of the samples it captures at its position (the authors'
        script).
    random_state : int, Generator or None.

    Attributes
    ----------
    rules_ : :class:`interpretopt.rules.RuleList` over the original features (``None`` when an
        item is a negated middle bin, which is a disjunction; the list then lives on the
        binarized items).
    rule_labels_, rule_itemsets_, rule_text_ : the list (a default rule is the itemset ``()``).
    alpha_ : the alpha chosen; ``tuning_`` : Algorithm 2's table (alpha, n_rules, n_conditions,
        training AUTAC, objective, meets_cap); ``cap_met_`` : whether some alpha met the budget
        (when none does, a warning says so and the list with the fewest conditions is kept).
    objective_ : training objective of the returned list; ``train_curve_`` : its trade-off curve.
    anneal_ : :class:`AnnealResult` of the final search (``history`` per step).
    pool_ : :class:`RulePool`; ``mining_report_`` : :class:`MiningReport`.
    black_box_ : the black box used.
    """

    _parameter_constraints: dict = {
        "black_box": [HasMethods(["predict"]), None],
        "alpha": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "C0": [Interval(Real, 0, None, closed="neither")],
        "n_iter": [Interval(Integral, 0, None, closed="left")],
        "min_support": [Interval(Real, 0, 1, closed="neither")],
        "max_card": [Interval(Integral, 1, None, closed="left")],
        "n_quantiles": [Interval(Integral, 2, None, closed="left")],
        "negations": ["boolean"],
        "precision_filter": ["boolean"],
        "max_rules_per_class": [Interval(Integral, 1, None, closed="left"), None],
        "default_rule": [StrOptions(set(DEFAULT_RULE_MODES))],
        "blackbox_train_pred": [StrOptions({"auto", "oof", "in_sample"})],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "refit": ["boolean"],
        "max_conditions": [Interval(Integral, 1, None, closed="left")],
        "max_rules": [Interval(Integral, 1, None, closed="left"), None],
        "memory_limit_mb": [Interval(Real, 0, None, closed="neither"), None],
        "max_mining_samples": [Interval(Integral, 1, None, closed="left"), None],
        "feature_types": [dict, None],
        "rule_labels": [StrOptions({"mined", "majority"})],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, black_box=None, alpha: float | str = "auto", C0: float = 0.001, n_iter: int = 50_000,
                 min_support: float = 0.05, max_card: int = 2, n_quantiles: int = 7, negations: bool = False,
                 precision_filter: bool = False, max_rules_per_class: int | None = None,
                 default_rule: str = "search", blackbox_train_pred: str = "auto", cv: int = 5, refit: bool = True,
                 max_conditions: int = 20, max_rules: int | None = None, memory_limit_mb: float | None = None,
                 max_mining_samples: int | None = None, feature_types: dict | None = None,
                 rule_labels: str = "mined", random_state=None):
        self.black_box = black_box
        self.alpha = alpha
        self.C0 = C0
        self.n_iter = n_iter
        self.min_support = min_support
        self.max_card = max_card
        self.n_quantiles = n_quantiles
        self.negations = negations
        self.precision_filter = precision_filter
        self.max_rules_per_class = max_rules_per_class
        self.default_rule = default_rule
        self.blackbox_train_pred = blackbox_train_pred
        self.cv = cv
        self.refit = refit
        self.max_conditions = max_conditions
        self.max_rules = max_rules
        self.memory_limit_mb = memory_limit_mb
        self.max_mining_samples = max_mining_samples
        self.feature_types = feature_types
        self.rule_labels = rule_labels
        self.random_state = random_state

    def fit(self, X, y, *, blackbox_pred=None) -> "CompanionRuleList":
        """Mine the pool, (tune alpha and) search the list.

        Parameters
        ----------
        X : array or DataFrame (n, d).
        y : binary labels (n,).
        blackbox_pred : optional black-box answers on ``X`` to use in the objective.
        """
        import warnings

        self._validate_params()
        X, self.classes_, _ = self._validated(X, y)
        rng = as_generator(self.random_state)
        y01, bb01 = self._prepare(X, y, blackbox_pred, refit=self.refit, train_pred=self.blackbox_train_pred,
                                  cv=self.cv, rng=rng)
        self.binarizer_, B, self.pool_ = _mine(self, X, y01, rng)
        self.mining_report_: MiningReport = self.pool_.report
        if self.rule_labels == "majority":  # labels come from the data: one candidate per antecedent
            first: dict[tuple, int] = {}
            for r, s in enumerate(self.pool_.itemsets):
                first.setdefault(s, r)
            cand = np.fromiter(first.values(), dtype=np.int64)
        else:
            cand = np.arange(len(self.pool_))
        problem = CompanionSearch(self.pool_.packed[cand], self.pool_.labels[cand], y01, bb01,
                                  rule_labels=self.rule_labels, default_rule=self.default_rule == "search")
        alphas = ALPHA_CANDIDATES if self.alpha == "auto" else (float(self.alpha),)
        seeds = rng.integers(2**63 - 1, size=len(alphas))
        self.tuning_ = []
        trials = []
        for a, seed in zip(alphas, seeds):
            problem.alpha = a
            res = search_companion_list(problem, n_iter=self.n_iter, C0=self.C0, rng=np.random.default_rng(seed))
            st = res.best_state
            chosen = [int(cand[r]) for r in st.rules]
            itemsets, labels, fc = self._complete(chosen, problem.labels_of(st.rules), B, y01)
            curve = tradeoff_curve(fc, labels, y01, bb01)
            n_cond = int(sum(len(s) for s in itemsets))
            ok = n_cond < self.max_conditions and (self.max_rules is None or len(st) < self.max_rules)
            self.tuning_.append({"alpha": a, "n_rules": len(itemsets), "n_conditions": n_cond,
                                 "autac": float(curve.autac), "objective": float(st.value), "meets_cap": bool(ok)})
            trials.append((a, res, itemsets, labels, fc, curve))
        feasible = [k for k, r in enumerate(self.tuning_) if r["meets_cap"]]
        self.cap_met_ = bool(feasible)
        if feasible:
            k = max(feasible, key=lambda i: self.tuning_[i]["autac"])
        else:
            k = min(range(len(trials)), key=lambda i: (self.tuning_[i]["n_conditions"], -self.tuning_[i]["autac"]))
            warnings.warn(
                f"no alpha in {list(alphas)} gives a list with fewer than {self.max_conditions} conditions "
                f"(Algorithm 2 finds none); keeping alpha={alphas[k]} with {self.tuning_[k]['n_conditions']} "
                "conditions. Raise alpha, lower max_card or mine fewer rules", stacklevel=2)
        self.alpha_, self.anneal_, itemsets, labels, fc, self.train_curve_ = trials[k]
        self.objective_ = float(self.anneal_.best_state.value)
        self._first_cover_train = fc
        self._set_rules(itemsets, labels, y01)
        self.rule_pool_indices_ = tuple(int(cand[r]) for r in self.anneal_.best_state.rules)
        self.blackbox_train_pred_ = bb01
        return self

    def _complete(self, chosen, labels, B, y01):
        """The searched list with its default rule (per ``default_rule``) and its first cover on ``B``."""
        itemsets = [self.pool_.itemsets[r] for r in chosen]
        labels = list(np.asarray(labels, dtype=np.int64))
        fc = first_cover_from_coverage(self.pool_.coverage(B, chosen))
        if self.default_rule != "none":
            unc = fc < 0
            itemsets.append(())
            labels.append(_majority(y01, unc))
            fc = np.where(unc, len(itemsets) - 1, fc)
        return itemsets, np.asarray(labels, dtype=np.int64), fc


# =========================================================================== baselines paired with the black box
#: How each baseline mines its antecedents, as the CRL paper's baseline scripts ran them:
#: pycorels' own miner (every binary column and its negation, conjunctions of at most
#: ``max_card`` with support in [min_support, 1 - min_support] on all rows; the authors' script
#: ``CorelsClassifier(max_card=2, min_support=0.05, c=0.0)``) and R ``sbrl``'s (binary columns as
#: factors, so both values of each column are items; support ``minsupport_pos`` /
#: ``minsupport_neg`` = 0.05 within each class, Algorithm 4).
BASELINE_MINING = {"corels": {"scope": "all", "negations": True},
                   "sbrl": {"scope": "class", "negations": True}}


class PairedRuleList(_CompanionBase):
    """A rule list learnt without the black box (CORELS or SBRL), then paired with it (Section 3.2).

    The learnt list's default rule is kept as its last rule (a condition that always holds),
    so the paired model reaches transparency 1.

    Parameters
    ----------
    learner : {"corels", "sbrl"}
    black_box : as in :class:`CompanionRuleList` (only needed at prediction time).
    params : dict of learner options (see :func:`interpretopt.heuristics.corels.corels` and
        :func:`interpretopt.heuristics.sbrl.sbrl`).
    mining : {"learner", "pool"}, default "learner"
        "learner": mine as the learner's own package does (:data:`BASELINE_MINING`); "pool":
        the per-class pool of :class:`CompanionRuleList` (``min_support`` etc. below).
    min_support, max_card, n_quantiles, ... : mining, as in :class:`CompanionRuleList`.
    """

    _parameter_constraints: dict = {
        "learner": [StrOptions({"corels", "sbrl"})],
        "black_box": [HasMethods(["predict"]), None],
        "params": [dict, None],
        "mining": [StrOptions({"learner", "pool"})],
        "min_support": [Interval(Real, 0, 1, closed="neither")],
        "max_card": [Interval(Integral, 1, None, closed="left")],
        "n_quantiles": [Interval(Integral, 2, None, closed="left")],
        "refit": ["boolean"],
        "max_rules_per_class": [Interval(Integral, 1, None, closed="left"), None],
        "memory_limit_mb": [Interval(Real, 0, None, closed="neither"), None],
        "max_mining_samples": [Interval(Integral, 1, None, closed="left"), None],
        "feature_types": [dict, None],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, learner: str = "corels", black_box=None, params: dict | None = None,
                 mining: str = "learner", min_support: float = 0.05, max_card: int = 2, n_quantiles: int = 7,
                 refit: bool = True, max_rules_per_class: int | None = None, memory_limit_mb: float | None = None,
                 max_mining_samples: int | None = None, feature_types: dict | None = None, random_state=None):
        self.learner = learner
        self.black_box = black_box
        self.params = params
        self.mining = mining
        self.min_support = min_support
        self.max_card = max_card
        self.n_quantiles = n_quantiles
        self.refit = refit
        self.max_rules_per_class = max_rules_per_class
        self.memory_limit_mb = memory_limit_mb
        self.max_mining_samples = max_mining_samples
        self.feature_types = feature_types
        self.random_state = random_state

    def mine(self, X, y) -> "PairedRuleList":
        """Binarize and mine only (the pool a grid of learner settings shares); returns self."""
        self._validate_params()
        X, self.classes_, y01 = self._validated(X, y)
        rng = as_generator(self.random_state)
        n = X.shape[0]
        kw = (dict(BASELINE_MINING[self.learner], cap_pool=False) if self.mining == "learner"
              else {"scope": "class"})
        self.binarizer_, self._B, self.pool_ = _mine(self, X, y01, rng, precision_filter=False, **kw)
        self.mining_report_ = self.pool_.report
        uniq: dict[tuple, int] = {}
        for r, s in enumerate(self.pool_.itemsets):
            uniq.setdefault(s, r)
        self._antecedents = np.fromiter(uniq.values(), dtype=np.int64)
        self._mined_for = (n, self.learner, self.mining)
        return self

    def fit(self, X, y, *, blackbox_pred=None, result=None) -> "PairedRuleList":
        """Mine and learn the list.

        ``result`` : a learner result already computed on the pool of a previous :meth:`mine`
        on the same rows (e.g. one budget of a CORELS run with snapshots, one ``Nc`` of an SBRL
        run); the pool is then kept and the learner is not run.
        """
        self._validate_params()
        X_raw = X
        X, self.classes_, _ = self._validated(X, y)
        rng = as_generator(self.random_state)
        # the black box is only needed at prediction time; training ignores it
        y01, _ = self._prepare(X, y, np.zeros(np.shape(X)[0]) if blackbox_pred is None else blackbox_pred,
                               refit=self.refit, train_pred="in_sample", cv=2, rng=rng)
        if self.refit and self.black_box is not None:
            _check_black_box(self.black_box, need_fit=True)
        if result is None:
            self.mine(X_raw, y)
        elif getattr(self, "_mined_for", None) != (len(y01), self.learner, self.mining):
            raise InputError("fit(..., result=...) needs the pool of mine(X, y) on the same rows; call mine first")
        idx = self._antecedents
        if result is None:
            result = self.run_learner(y01, rng=rng)
        self.result_ = result
        prefix = [self.pool_.itemsets[idx[r]] for r in self.result_.prefix]
        labels = list(self.result_.labels) + [self.result_.default]
        self._first_cover_train = first_cover_from_coverage(
            np.column_stack([self.pool_.coverage(self._B, [int(idx[r]) for r in self.result_.prefix]),
                             np.ones(len(y01), dtype=bool)]))
        self._set_rules(prefix + [()], labels, y01)
        bb = (self._blackbox01(X, blackbox_pred) if self.black_box_ is not None or blackbox_pred is not None
              else np.zeros(len(y01), dtype=np.int8))
        self.train_curve_ = tradeoff_curve(self._first_cover_train, self.rule_labels_, y01, bb)
        return self

    def run_learner(self, y01, *, rng=None, **overrides):
        """Run the learner on the mined antecedents with ``params`` updated by ``overrides``."""
        idx = self._antecedents
        packed = self.pool_.packed[idx]
        params = dict(self.params or {})
        params.update(overrides)
        if self.learner == "corels":
            from interpretopt.heuristics.corels import corels

            return corels(packed, y01, rng=rng, **params)
        from interpretopt.heuristics.sbrl import sbrl

        params.setdefault("cards", [len(self.pool_.itemsets[i]) for i in idx])
        return sbrl(packed, y01, rng=as_generator(rng), **params)

    def rules_prediction(self, X) -> np.ndarray:
        """The learnt rule list alone (its default rule answers what no antecedent covers)."""
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
