"""Estimators of the five methods; each combines formulations, solvers and heuristics.

Estimators are imported lazily so that ``import interpretopt.methods`` stays cheap; the
catalogue below is what ``interpretopt list methods`` shows.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

__all__ = [
    "MethodInfo", "METHODS", "list_methods", "load_estimator",
    # estimators (imported on first access)
    "BRCGClassifier", "GroundedBRCGClassifier", "IMDExplainer", "JointSurrogateTree", "SeparateSurrogates",
    "DirectDT", "DirectGB", "BRCGDiff", "CompanionRuleList", "PairedRuleList", "RuleListSearch",
    "ChecklistSearch", "GloballyConsistentRuleSearch", "MTREPANClassifier", "TREPANClassifier",
]

_LAZY = {
    "BRCGClassifier": "brcg", "GroundedBRCGClassifier": "brcg",
    "IMDExplainer": "imd", "JointSurrogateTree": "imd", "SeparateSurrogates": "imd", "DirectDT": "imd",
    "DirectGB": "imd", "BRCGDiff": "imd",
    "CompanionRuleList": "crl", "PairedRuleList": "crl",
    "RuleListSearch": "abbr", "ChecklistSearch": "abbr", "GloballyConsistentRuleSearch": "abbr",
    "MTREPANClassifier": "mtrepan", "TREPANClassifier": "mtrepan",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'interpretopt.methods' has no attribute {name!r}")
    return getattr(importlib.import_module(f"interpretopt.methods.{module}"), name)


@dataclass(frozen=True)
class MethodInfo:
    key: str
    estimators: tuple[str, ...]  # "module:Class"
    paper: str
    learns: str


METHODS: tuple[MethodInfo, ...] = (
    MethodInfo("brcg", ("interpretopt.methods.brcg:BRCGClassifier", "interpretopt.methods.brcg:GroundedBRCGClassifier"),
               "Boolean rules via column generation; What changed? (grounded BRCG+, rule-set comparison)",
               "DNF rule set by column generation (LP/MILP)"),
    MethodInfo("imd", ("interpretopt.methods.imd:IMDExplainer",),
               "Interpretable differencing of machine learning models",
               "joint surrogate tree and diff rules"),
    MethodInfo("crl", ("interpretopt.methods.crl:CompanionRuleList",),
               "Companion rule list (AUTAC)",
               "rule list consulted before the black box"),
    MethodInfo("abbr", ("interpretopt.methods.abbr:RuleListSearch", "interpretopt.methods.abbr:ChecklistSearch"),
               "Explaining confident black-box predictions (ABBR)",
               "rule list or checklist covering top-ranked points"),
    MethodInfo("mtrepan", ("interpretopt.methods.mtrepan:MTREPANClassifier", "interpretopt.methods.mtrepan:TREPANClassifier"),
               "Global translation of classification models (MTRE-PAN vs TRE-PAN)",
               "tree with linear-SVM (LP) splits; leaves are polytopes"),
)


def load_estimator(path: str):
    """Import ``"module:Class"`` and return the class."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def list_methods() -> list[dict]:
    """One row per method: key, estimators, whether they import on this installation, and why not."""
    rows = []
    for info in METHODS:
        problem = ""
        for path in info.estimators:
            try:
                load_estimator(path)
            except Exception as exc:  # report, do not hide: shown in `interpretopt list methods`
                problem = f"{path}: {type(exc).__name__}: {exc}"
                break
        rows.append({"method": info.key, "estimators": ", ".join(p.split(":")[1] for p in info.estimators),
                     "available": not problem, "learns": info.learns, "paper": info.paper, "problem": problem})
    return rows
