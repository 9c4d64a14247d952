"""Estimators of the five methods; each combines formulations, solvers and heuristics.

This module is the one registry of methods and estimators. A method (``brcg``, ``imd``,
``crl``, ``abbr``, ``mtrepan``) is declared once with :func:`_method` (paper, what it
learns; its experiment task is ``interpretopt.experiments.tasks.<key>``) and each estimator
once with :func:`_estimator` (class, module, method, ``fit`` signature). Everything else is
derived from these registrations: the lazy re-exports here and in ``interpretopt``
(``__all__``), the method keys of the experiment tasks, ``interpretopt list methods`` and the
scikit-learn check over every estimator (``tests/test_estimator_checks.py``).

Estimators are imported lazily, so ``import interpretopt.methods`` stays cheap.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from interpretopt._registry import Registry

__all__ = [
    "MethodInfo", "EstimatorInfo", "METHODS", "ESTIMATORS", "FIT_SIGNATURES", "list_methods", "load_estimator",
    "method_info", "estimator_class",
]

#: The ``fit`` signatures an estimator may have (the check adapters know how to feed each).
FIT_SIGNATURES = ("X, y", "X, model1, model2", "X, model", "X, scores")


@dataclass(frozen=True)
class MethodInfo:
    """A method key with its paper and what it learns; its task is ``interpretopt.experiments.tasks.<key>``."""

    key: str
    paper: str
    learns: str
    estimators: tuple[str, ...] = ()  # "module:Class", filled by the estimator registrations

    @property
    def task(self) -> str:
        return f"interpretopt.experiments.tasks.{self.key}"


@dataclass(frozen=True)
class EstimatorInfo:
    """One registered estimator.

    Attributes
    ----------
    name : str
        Class name, exported from ``interpretopt.methods`` and ``interpretopt``.
    module : str
        Module defining it.
    method : str or None
        Method key it belongs to (``None`` for a black box, e.g. the MTRE-PAN target network).
    fit : str
        Its ``fit`` signature, one of :data:`FIT_SIGNATURES`.
    check_params : dict
        Parameters of the small, fast instance the scikit-learn checks run on.
    aliases : tuple of str
        Other exported names of the same class.
    """

    name: str
    module: str
    method: str | None
    fit: str = "X, y"
    check_params: dict = field(default_factory=dict)
    aliases: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        return f"{self.module}:{self.name}"


_METHODS: Registry[MethodInfo] = Registry("method")
ESTIMATORS: Registry[EstimatorInfo] = Registry("estimator")


def _method(key: str, paper: str, learns: str) -> None:
    _METHODS.register(key, MethodInfo(key, paper, learns))


def _estimator(name: str, module: str, method: str | None, fit: str = "X, y", *, aliases: tuple[str, ...] = (),
               **check_params) -> None:
    if fit not in FIT_SIGNATURES:
        raise ValueError(f"estimator {name}: fit signature {fit!r} is not one of {FIT_SIGNATURES}")
    if method is not None:
        _METHODS.get(method)  # the method is declared first
    ESTIMATORS.register(name, EstimatorInfo(name, module, method, fit, dict(check_params), tuple(aliases)))


# ----------------------------------------------------------------------------- the registrations

_method("brcg", "Boolean rules via column generation; What changed? (grounded BRCG+, rule-set comparison)",
        "DNF rule set by column generation (LP/MILP)")
_method("imd", "Interpretable differencing of machine learning models", "joint surrogate tree and diff rules")
_method("crl", "Companion rule list (AUTAC)", "rule list consulted before the black box")
_method("abbr", "Explaining confident black-box predictions (ABBR)", "rule list or checklist covering top-ranked points")
_method("mtrepan", "Global translation of classification models (MTRE-PAN vs TRE-PAN)",
        "tree with linear-SVM (LP) splits; leaves are polytopes")

_B = "interpretopt.methods.brcg"
_estimator("BRCGClassifier", _B, "brcg", max_iter=5, mip_time_limit=10.0)
_estimator("GroundedBRCGClassifier", _B, "brcg", max_iter=5, mip_time_limit=10.0)
_I = "interpretopt.methods.imd"
_estimator("IMDExplainer", _I, "imd", "X, model1, model2", aliases=("JointSurrogateTree",), max_depth=3)
_estimator("SeparateSurrogates", _I, "imd", "X, model1, model2", max_depth=3)
_estimator("DirectDT", _I, "imd", "X, model1, model2", max_depth=3)
_estimator("DirectGB", _I, "imd", "X, model1, model2", max_depth=2)
_estimator("BRCGDiff", _I, "imd", "X, model1, model2")
_C = "interpretopt.methods.crl"
_estimator("CompanionRuleList", _C, "crl", n_iter=200, alpha=0.001)
_estimator("PairedRuleList", _C, "crl")
_A = "interpretopt.methods.abbr"
_estimator("RuleListSearch", _A, "abbr", "X, scores", L=2, M=3, n_iter=50)
_estimator("ChecklistSearch", _A, "abbr", "X, scores", K=3, n_iter=50)
_estimator("GloballyConsistentRuleSearch", _A, "abbr", "X, scores", M=3, n_iter=50, n_seeds=5, node_limit=200,
           rule_min_support=0.01, k=6)
_M = "interpretopt.methods.mtrepan"
_estimator("MTREPANClassifier", _M, "mtrepan", "X, model", max_depth=3, cutoff_variance=1e-3, batch_size=100)
_estimator("TREPANClassifier", _M, "mtrepan", "X, model", max_depth=3, cutoff_variance=1e-3, batch_size=100)
_estimator("MTREPANNetwork", "interpretopt.blackbox._mtrepan_net", None, n_rounds=2, samples_per_round=2000)

METHODS: tuple[MethodInfo, ...] = tuple(
    MethodInfo(m.key, m.paper, m.learns, tuple(e.path for e in ESTIMATORS.values() if e.method == m.key))
    for m in map(_METHODS.get, ("brcg", "imd", "crl", "abbr", "mtrepan")))

_EXPORTS = {alias: e for e in ESTIMATORS.values() if e.method is not None
            for alias in (e.name, *e.aliases)}
__all__ += sorted(_EXPORTS)


def __getattr__(name: str):
    info = _EXPORTS.get(name)
    if info is None:
        raise AttributeError(f"module 'interpretopt.methods' has no attribute {name!r}")
    return getattr(importlib.import_module(info.module), info.name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


def method_info(key: str) -> MethodInfo:
    """The :class:`MethodInfo` of a method key; an unknown key lists the valid ones."""
    _METHODS.get(key)
    return next(m for m in METHODS if m.key == key)


def estimator_class(name: str) -> type:
    """The class of a registered estimator (imported on first use); an unknown name lists the valid ones."""
    info = ESTIMATORS.get(name)
    return getattr(importlib.import_module(info.module), info.name)


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
