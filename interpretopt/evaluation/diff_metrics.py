r"""Metrics of model differencing (Haldar et al., UAI 2023, Section 5 and Appendix F.1).

With :math:`\mathcal{T}_{true} = \{x : M_1(x) \ne M_2(x)\}` and
:math:`\mathcal{T}_{pred} = \{x : \hat D(x) = 1\}` on a test set,

* precision :math:`|\mathcal{T}_{true} \cap \mathcal{T}_{pred}| / |\mathcal{T}_{pred}|`,
* recall :math:`|\mathcal{T}_{true} \cap \mathcal{T}_{pred}| / |\mathcal{T}_{true}|`,
* F1, their harmonic mean,
* ``#r``, the number of diff rules, and ``#p``, the number of distinct predicates
  (conditions) over all rules: each rule is first reduced to its tightest bounds per
  feature, and a predicate used by several rules counts once (this is how the published
  ``#p`` can be smaller than ``#r``),
* fidelity of a surrogate: the fraction of samples where it predicts what its model does,
* per diff rule: its support (rows it covers) and precision (the fraction of them where the
  two models disagree), and summaries of these over a rule set (:func:`summarize_rule_stats`).

An empty denominator gives 0 (no predicted diffs: precision 0; no true diffs: recall 0).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = [
    "diff_labels",
    "diff_precision_recall_f1",
    "count_rules",
    "count_unique_predicates",
    "fidelity",
    "diff_metrics",
    "rule_support_precision",
    "support_precision_from_counts",
    "summarize_rule_stats",
]


def diff_labels(y1: Any, y2: Any) -> np.ndarray:
    """0-1 dissimilarity ``D = [y1 != y2]`` as int8."""
    a, b = np.asarray(y1), np.asarray(y2)
    if a.shape != b.shape:
        from interpretopt.exceptions import InputError

        raise InputError(f"the two label vectors differ in length: {a.shape[0]} and {b.shape[0]}")
    return (a != b).astype(np.int8)


def diff_precision_recall_f1(d_true: Any, d_pred: Any) -> tuple[float, float, float]:
    """Precision, recall and F1 of the predicted diff samples against the true ones."""
    t = np.asarray(d_true).astype(bool)
    p = np.asarray(d_pred).astype(bool)
    if t.shape != p.shape:
        from interpretopt.exceptions import InputError

        raise InputError(f"d_true has {t.shape[0]} samples but d_pred has {p.shape[0]}")
    tp = int(np.count_nonzero(t & p))
    npred = int(np.count_nonzero(p))
    ntrue = int(np.count_nonzero(t))
    precision = tp / npred if npred else 0.0
    recall = tp / ntrue if ntrue else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


def _conditions(rule: Any) -> Iterable[Any]:
    simplify = getattr(rule, "simplify", None)
    if callable(simplify):
        rule = simplify()
    return getattr(rule, "conditions", rule)


def count_rules(rules: Any) -> int:
    """``#r``: the number of rules (``None`` for a method without rules gives 0)."""
    if rules is None:
        return 0
    return len(getattr(rules, "rules", rules))


def count_unique_predicates(rules: Any) -> int:
    """``#p``: distinct conditions over all rules, each rule reduced to its tightest bounds."""
    if rules is None:
        return 0
    seen = set()
    for rule in getattr(rules, "rules", rules):
        seen.update(_conditions(rule))
    return len(seen)


def fidelity(y_model: Any, y_surrogate: Any) -> float:
    """Fraction of samples on which the surrogate agrees with its model."""
    a, b = np.asarray(y_model), np.asarray(y_surrogate)
    if a.shape != b.shape:
        from interpretopt.exceptions import InputError

        raise InputError(f"y_model has {a.shape[0]} samples but y_surrogate has {b.shape[0]}")
    return float(np.mean(a == b)) if a.size else 0.0


def diff_metrics(y1: Any, y2: Any, d_pred: Any, rules: Any = None) -> dict[str, float]:
    """All Section 5 metrics of a diff model on one sample set.

    Parameters
    ----------
    y1, y2 : array (n,)
        The two models' predictions.
    d_pred : array (n,)
        The diff model's 0/1 predictions.
    rules : RuleSet or sequence of Conjunction, optional
        The diff rules, for ``n_rules`` and ``n_predicates`` (0 when absent).

    Returns
    -------
    dict
        ``diffs`` (fraction of true diff samples), ``precision``, ``recall``, ``f1``,
        ``n_rules``, ``n_predicates``.
    """
    d = diff_labels(y1, y2)
    pr, re, f1 = diff_precision_recall_f1(d, d_pred)
    return {
        "diffs": float(d.mean()) if d.size else 0.0,
        "precision": pr,
        "recall": re,
        "f1": f1,
        "n_rules": count_rules(rules),
        "n_predicates": count_unique_predicates(rules),
    }


def support_precision_from_counts(support: Any, n_diff: Any) -> dict[str, np.ndarray]:
    """``support``, ``n_diff`` and ``precision = n_diff / support`` (NaN where support is 0)."""
    sup = np.asarray(support, dtype=np.int64)
    nd = np.asarray(n_diff, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(sup > 0, nd / np.maximum(sup, 1), np.nan)
    return {"support": sup, "n_diff": nd, "precision": prec}


def rule_support_precision(masks: Any, d_true: Any) -> dict[str, np.ndarray]:
    """Per-rule support and precision from a coverage matrix.

    Parameters
    ----------
    masks : bool array (n_rules, n)
        Row ``k`` marks the samples rule ``k`` covers.
    d_true : array (n,)
        1 where the two models disagree.

    Returns
    -------
    dict
        ``support`` (covered samples), ``n_diff`` (covered samples with ``d_true = 1``) and
        ``precision`` (``n_diff / support``; NaN for a rule that covers nothing).
    """
    m = np.asarray(masks, dtype=bool)
    d = np.asarray(d_true).astype(bool)
    if m.ndim != 2 or (m.shape[0] and m.shape[1] != d.shape[0]):
        from interpretopt.exceptions import InputError

        raise InputError(f"masks must be (n_rules, {d.shape[0]}), got shape {m.shape}")
    return support_precision_from_counts(m.sum(axis=1), (m & d).sum(axis=1))


def summarize_rule_stats(train_support: Any, test: dict[str, np.ndarray]) -> dict[str, float]:
    """Summaries of per-rule statistics for a results row.

    ``n_rules_empty``: rules covering no training row (``None`` when unknown);
    ``n_rules_test_empty``: rules covering no test row; ``mean_rule_precision``: mean test
    precision over the rules that cover a test row; ``min_rule_support`` /
    ``median_rule_support``: test support (rows) over all rules. NaN where there is no rule.
    """
    sup = np.asarray(test["support"])
    prec = np.asarray(test["precision"], dtype=float)
    out: dict[str, float] = {
        "n_rules_empty": float(np.count_nonzero(np.asarray(train_support) == 0)) if train_support is not None
        else float("nan"),
        "n_rules_test_empty": float(np.count_nonzero(sup == 0)),
        "mean_rule_precision": float(np.nanmean(prec)) if np.isfinite(prec).any() else float("nan"),
        "min_rule_support": float(sup.min()) if sup.size else float("nan"),
        "median_rule_support": float(np.median(sup)) if sup.size else float("nan"),
    }
    return out
