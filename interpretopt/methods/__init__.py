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
import sys
from dataclasses import dataclass, field, replace

from interpretopt._registry import Registry

__all__ = [
    "MethodInfo", "EstimatorInfo", "METHODS", "ESTIMATORS", "FIT_SIGNATURES", "list_methods", "load_estimator",
    "method_info", "estimator_class", "register_method", "register_estimator", "unregister_method",
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
    task_module: str | None = None  # default interpretopt.experiments.tasks.<key>
    #: the small experiment (``params`` and ``datasets``, ``models`` or ``pairs``) the shared task tests
    #: run, in two orders (``tests/experiments/test_tasks.py``): seconds, and runs sharing memoized values
    check_config: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def task(self) -> str:
        """The module of the method's experiment task (``run(ctx)``, ``PARAMETERS``, ...)."""
        return self.task_module or f"interpretopt.experiments.tasks.{self.key}"


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


def _method(key: str, paper: str, learns: str, *, task: str | None = None, check_config: dict | None = None) -> None:
    _METHODS.register(key, MethodInfo(key, paper, learns, task_module=task, check_config=dict(check_config or {})))


def _estimator(name: str, module: str, method: str | None, fit: str = "X, y", *, aliases: tuple[str, ...] = (),
               **check_params) -> None:
    if fit not in FIT_SIGNATURES:
        raise ValueError(f"estimator {name}: fit signature {fit!r} is not one of {FIT_SIGNATURES}")
    if method is not None:
        _METHODS.get(method)  # the method is declared first
    ESTIMATORS.register(name, EstimatorInfo(name, module, method, fit, dict(check_params), tuple(aliases)))


# ----------------------------------------------------------------------------- the registrations

# check_config: one small grid per task, chosen so that runs share memoized values (a rule set, a grown
# tree, out-of-fold answers) and differ in what a cache might leave out of its key (the split)
_BC = {"name": "breast_cancer", "max_rows": 160}
_method("brcg", "Boolean rules via column generation; What changed? (grounded BRCG+, rule-set comparison)",
        "DNF rule set by column generation (LP/MILP)",
        check_config={"params": {"experiment": "perturbation", "test_size": [0.2, 0.5], "p": [1.0, 0.5], "max_iter": 5,
                                 "max_literals": 3, "n_thresholds": 3, "time_limit": 20, "mip_time_limit": 10},
                      "datasets": [_BC], "models": ["DT1"]})
_method("imd", "Interpretable differencing of machine learning models", "joint surrogate tree and diff rules",
        check_config={"params": {"variant": ["imd", "separate"], "max_depth": [2, 3]}, "datasets": [_BC],
                      "pairs": {"list": [["DT1", "GNB"]]}})
_method("crl", "Companion rule list (AUTAC)", "rule list consulted before the black box",
        check_config={"params": {"learner": ["crl", "cart"], "n_iter": 150, "alpha": 0.001, "oof_folds": 2,
                                 "n_folds": 2}, "datasets": [_BC], "models": ["DT1"], "repetitions": 2})
_method("abbr", "Explaining confident black-box predictions (ABBR)", "rule list or checklist covering top-ranked points",
        check_config={"params": {"mode": "rule_list", "L": 2, "M": 2, "n_iter": 30, "s": [0.1, 0.2],
                                 "test_size": [0.3, 0.5]}, "datasets": [_BC], "models": ["DT1"]})
_method("mtrepan", "Global translation of classification models (MTRE-PAN vs TRE-PAN)",
        "tree with linear-SVM (LP) splits; leaves are polytopes",
        check_config={"params": {"variant": ["mtrepan", "trepan"], "depth": [1, 2], "grow_depth": 2, "batch_size": 100,
                                 "cutoff_variance": 0.01},
                      "datasets": [{"name": "circle", "options": {"n_samples": 300, "random_state": 0}}]})

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

_ORDER = ["brcg", "imd", "crl", "abbr", "mtrepan"]  # the order of METHODS; registered methods follow
_BUILTIN_ALL = list(__all__)
METHODS: tuple[MethodInfo, ...] = ()
_EXPORTS: dict[str, EstimatorInfo] = {}


def _refresh() -> None:
    """Derive METHODS, the exports and the task names from the two registries (after a registration)."""
    global METHODS, _EXPORTS, __all__
    METHODS = tuple(replace(m, estimators=tuple(e.path for e in ESTIMATORS.values() if e.method == m.key))
                    for m in map(_METHODS.get, _ORDER))
    _EXPORTS = {alias: e for e in ESTIMATORS.values() if e.method is not None for alias in (e.name, *e.aliases)}
    __all__ = _BUILTIN_ALL + sorted(_EXPORTS)
    tasks = sys.modules.get("interpretopt.experiments.tasks")
    if tasks is not None:  # its task names are the method keys
        tasks.METHOD_TASKS = tasks._method_keys()
    top = sys.modules.get("interpretopt")
    if top is not None and hasattr(top, "_refresh_exports"):
        top._refresh_exports()


_refresh()


def register_method(key: str, paper: str, learns: str, *, task: str | None = None,
                    check_config: dict | None = None) -> MethodInfo:
    """Register a method: its key (the ``method:`` of configs), paper and what it learns.

    ``task`` is the module of its experiment task (default ``interpretopt.experiments.tasks.<key>``);
    ``check_config`` the small experiment the shared task tests run (``params`` and ``datasets``,
    ``models`` or ``pairs``; see ``MethodInfo.check_config``). Register its estimators next with
    :func:`register_estimator`. The method then appears in ``interpretopt list methods`` and
    configs accept its key.

    Raises
    ------
    ValueError
        The key is taken or is not an identifier.
    """
    if not isinstance(key, str) or not key.isidentifier():
        raise ValueError(f"a method key is an identifier (the task module's name), got {key!r}")
    _method(key, paper, learns, task=task, check_config=check_config)
    _ORDER.append(key)
    _refresh()
    return method_info(key)


def register_estimator(name: str, module: str, method: str | None, fit: str = "X, y", *,
                       aliases: tuple[str, ...] = (), **check_params) -> EstimatorInfo:
    """Register an estimator class ``module:name`` of a registered method (imported on first use).

    ``fit`` is its ``fit`` signature (one of :data:`FIT_SIGNATURES`); ``check_params`` the
    parameters of the small, fast instance scikit-learn's checks run on
    (``tests/test_estimator_checks.py``). It is then exported from ``interpretopt.methods`` and
    ``interpretopt`` (with its ``aliases``).

    Raises
    ------
    ValueError
        The name is taken or the signature is not one of :data:`FIT_SIGNATURES`.
    UnknownNameError
        ``method`` is not a registered method.
    """
    _estimator(name, module, method, fit, aliases=aliases, **check_params)
    _refresh()
    return ESTIMATORS.get(name)


def unregister_method(key: str) -> None:
    """Remove a method registered with :func:`register_method`, and its estimators (a plug-in unloaded,
    a test's toy)."""
    _METHODS.get(key)
    for e in [e for e in ESTIMATORS.values() if e.method == key]:
        ESTIMATORS._items.pop(e.name)
    _METHODS._items.pop(key)
    _ORDER.remove(key)
    _refresh()


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


def _with_aliases(name: str) -> str:
    """``IMDExplainer (= JointSurrogateTree)``: an estimator with the other names it is exported as."""
    aliases = ESTIMATORS.get(name).aliases if name in ESTIMATORS else ()
    return name + (f" (= {', '.join(aliases)})" if aliases else "")


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
        rows.append({"method": info.key, "estimators": ", ".join(_with_aliases(p.split(":")[1]) for p in info.estimators),
                     "available": not problem, "learns": info.learns, "paper": info.paper, "problem": problem})
    return rows
