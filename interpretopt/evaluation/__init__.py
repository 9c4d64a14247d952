"""Metrics of every paper, rule-set similarity and matching, statistical tests.

Modules: ``similarity`` (BRCG "What changed?"), ``diff_metrics`` (IMD), ``autac`` (CRL),
``abbr`` (ABBR), ``parity`` (MTRE-PAN), ``stats`` (Wilcoxon, Friedman, Holm, t-test).
The main entry points are re-exported here and imported on first access (the modules
``abbr`` and ``diff_metrics`` keep their names; their functions of the same name are
``interpretopt.evaluation.abbr.abbr`` and ``interpretopt.evaluation.diff_metrics.diff_metrics``).
"""

from __future__ import annotations

import importlib

__all__ = [
    "compare_rule_sets", "rule_set_similarity", "rule_similarity", "literal_similarity", "statistical_similarity",
    "diff_precision_recall_f1",
    "tradeoff_curve", "autac",
    "rank_scores", "consistency", "abbr_at_support", "optimality_ratio",
    "model_parity", "certain_model_parity", "boundary_model_parity", "parity_report",
    "wilcoxon_signed_rank", "friedman", "mean_ranks", "holm", "paired_ttest",
]

_LAZY = {
    **dict.fromkeys(["compare_rule_sets", "rule_set_similarity", "rule_similarity", "literal_similarity",
                     "statistical_similarity"], "similarity"),
    **dict.fromkeys(["diff_precision_recall_f1"], "diff_metrics"),
    **dict.fromkeys(["tradeoff_curve", "autac"], "autac"),
    **dict.fromkeys(["rank_scores", "consistency", "abbr_at_support", "optimality_ratio"], "abbr"),
    **dict.fromkeys(["model_parity", "certain_model_parity", "boundary_model_parity", "parity_report"], "parity"),
    **dict.fromkeys(["wilcoxon_signed_rank", "friedman", "mean_ranks", "holm", "paired_ttest"], "stats"),
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'interpretopt.evaluation' has no attribute {name!r}")
    return getattr(importlib.import_module(f"interpretopt.evaluation.{module}"), name)
