"""The black-box model zoo: named, unfitted, seeded scikit-learn models as the papers specify them."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from interpretopt._registry import Registry
from interpretopt.exceptions import InputError, InterpretoptError

__all__ = ["ModelSpec", "MODELS", "ModelUnavailableError", "make_model", "list_models", "model_available"]


class ModelUnavailableError(InterpretoptError, ImportError):
    """A model whose optional dependency is not installed."""


@dataclass(frozen=True)
class ModelSpec:
    """A registered model: ``factory(seed) -> unfitted estimator``.

    ``seed`` is the integer seed to use for estimators that take a ``random_state`` (ignored by
    the others). ``paper_seed`` is the seed the paper fixes (IMD Table 5: ``random_state=1234``
    for LR, MLP1, MLP2, RF2): such a model always gets it, whatever seed a caller (the
    experiment runner, which hashes one per run) passes, unless the caller asks for
    ``make_model(..., override_paper_seed=True)``. Models whose paper fixes no seed take the
    caller's.
    """

    name: str
    factory: Callable[[int], Any]
    description: str
    paper: str
    paper_seed: int | None = None
    requires: str | None = None


MODELS: Registry[ModelSpec] = Registry("model")

#: Seed used for seedable models whose paper fixes none, when the caller gives none.
DEFAULT_SEED = 0


def _register(name: str, description: str, paper: str, paper_seed: int | None = None,
              requires: str | None = None) -> Callable[[Callable[[int], Any]], Callable[[int], Any]]:
    def deco(factory: Callable[[int], Any]) -> Callable[[int], Any]:
        MODELS.register(name, ModelSpec(name, factory, description, paper, paper_seed, requires))
        return factory

    return deco


def _import_xgboost():
    try:
        import xgboost
    except ImportError:
        raise ModelUnavailableError(
            "this model needs the optional package xgboost, which is not installed; "
            "install it with: pip install interpretopt[xgboost]"
        ) from None
    return xgboost


def model_available(name: str) -> bool:
    """Whether the model's dependencies are importable."""
    spec = MODELS.get(name)
    if spec.requires is None:
        return True
    try:
        __import__(spec.requires)
    except ImportError:
        return False
    return True


def _seed(random_state: Any, spec: ModelSpec, override_paper_seed: bool = False) -> int:
    if spec.paper_seed is not None and not override_paper_seed:
        if random_state is not None and not isinstance(random_state, (numbers.Integral, np.random.Generator,
                                                                       np.random.RandomState)):
            raise InputError(f"random_state must be None, an int or a numpy Generator, got {random_state!r}")
        return spec.paper_seed
    if random_state is None:
        return spec.paper_seed if spec.paper_seed is not None else DEFAULT_SEED
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise InputError(f"random_state must be None, an int or a numpy Generator, got {random_state!r}")
    return int(random_state)


def make_model(name: str, random_state: Any = None, *, override_paper_seed: bool = False, **overrides: Any) -> Any:
    """An unfitted model by name.

    Parameters
    ----------
    name : str
        A name from ``list_models()`` (``LR``, ``RF1``, ``CRL_XGB``, ``MTREPAN_NET``, ...).
    random_state : None, int or numpy Generator
        Seed for models that take one and whose paper fixes none (``None`` gives 0, so every
        model is deterministic). A model whose paper fixes its seed keeps it (1234 for the
        IMD models LR, MLP1, MLP2, RF2 of Table 5; 0 for the CRL authors' RF and AdaBoost):
        ``random_state`` is then ignored.
    override_paper_seed : bool, default False
        Use ``random_state`` even for a model whose paper fixes the seed (e.g. to study the
        spread over seeds).
    **overrides
        Estimator parameters to change (``set_params``); unknown ones raise.

    Raises
    ------
    UnknownNameError
        Unknown model name (lists the valid ones).
    ModelUnavailableError
        An optional dependency (xgboost) is missing.
    InputError
        An override the estimator does not have (lists the valid parameters).
    """
    spec = MODELS.get(name)
    model = spec.factory(_seed(random_state, spec, override_paper_seed))
    if overrides:
        valid = model.get_params(deep=False)
        bad = sorted(k for k in overrides if k.split("__")[0] not in valid)
        if bad:
            raise InputError(f"model {name!r} ({type(model).__name__}) has no parameter(s) {bad}; "
                             f"valid parameters: {', '.join(sorted(valid))}")
        model.set_params(**overrides)
    return model


def list_models() -> list[dict[str, Any]]:
    """One entry per model: name, description, paper, estimator class and whether it is available."""
    return [{"name": n, "description": MODELS.get(n).description, "paper": MODELS.get(n).paper,
             "requires": MODELS.get(n).requires, "available": model_available(n)} for n in MODELS.names()]


# --------------------------------------------------------------------------------------------
# IMD paper (Haldar et al., "Interpretable Model Differencing"), Appendix B, Table 5
# --------------------------------------------------------------------------------------------
IMD = "IMD (Interpretable model differencing), Appendix B Table 5"


@_register("LR", "LogisticRegression(random_state=1234)", IMD, paper_seed=1234)
def _lr(seed: int):
    """IMD Table 5 LR: ``LogisticRegression(random_state=1234)`` (scikit-learn defaults otherwise)."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(random_state=seed)


@_register("KN1", "KNeighborsClassifier(n_neighbors=3)", IMD)
def _kn1(seed: int):
    """IMD Table 5 KN1: ``KNeighborsClassifier(n_neighbors=3)``."""
    from sklearn.neighbors import KNeighborsClassifier

    return KNeighborsClassifier(n_neighbors=3)


@_register("KN2", "KNeighborsClassifier() (5 neighbours)", IMD)
def _kn2(seed: int):
    """IMD Table 5 KN2: ``KNeighborsClassifier()`` (defaults: 5 neighbours)."""
    from sklearn.neighbors import KNeighborsClassifier

    return KNeighborsClassifier()


@_register("MLP1", "MLPClassifier(alpha=1e-05, hidden_layer_sizes=(15,), random_state=1234, solver='lbfgs')",
           IMD, paper_seed=1234)
def _mlp1(seed: int):
    """IMD Table 5 MLP1: ``MLPClassifier(alpha=1e-05, hidden_layer_sizes=(15,), random_state=1234, solver='lbfgs')``."""
    from sklearn.neural_network import MLPClassifier

    return MLPClassifier(alpha=1e-05, hidden_layer_sizes=(15,), random_state=seed, solver="lbfgs")


@_register("MLP2", "MLPClassifier(hidden_layer_sizes=(100, 100), random_state=1234)", IMD, paper_seed=1234)
def _mlp2(seed: int):
    """IMD Table 5 MLP2: ``MLPClassifier(hidden_layer_sizes=(100,100), random_state=1234)``."""
    from sklearn.neural_network import MLPClassifier

    return MLPClassifier(hidden_layer_sizes=(100, 100), random_state=seed)


@_register("DT1", "DecisionTreeClassifier(max_depth=5)", IMD)
def _dt1(seed: int):
    """IMD Table 5 DT1: ``DecisionTreeClassifier(max_depth=5)`` (seeded here; the paper gives no seed)."""
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_depth=5, random_state=seed)


@_register("DT2", "DecisionTreeClassifier(max_depth=10)", IMD)
def _dt2(seed: int):
    """IMD Table 5 DT2: ``DecisionTreeClassifier(max_depth=10)`` (seeded here; the paper gives no seed)."""
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_depth=10, random_state=seed)


@_register("GB", "GradientBoostingClassifier() (100 trees of depth 3, learning rate 0.1)", IMD)
def _gb(seed: int):
    """IMD Table 5 GB: ``GradientBoostingClassifier()`` (seeded here; the paper gives no seed)."""
    from sklearn.ensemble import GradientBoostingClassifier

    return GradientBoostingClassifier(random_state=seed)


@_register("RF1", "RandomForestClassifier() (100 trees)", IMD)
def _rf1(seed: int):
    """IMD Table 5 RF1: ``RandomForestClassifier()`` (seeded here; the paper gives no seed)."""
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(random_state=seed)


@_register("RF2", "RandomForestClassifier(max_depth=6, random_state=1234)", IMD, paper_seed=1234)
def _rf2(seed: int):
    """IMD Table 5 RF2: ``RandomForestClassifier(max_depth=6, random_state=1234)``."""
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(max_depth=6, random_state=seed)


@_register("GNB", "GaussianNB()", IMD)
def _gnb(seed: int):
    """IMD Table 5 GNB: ``GaussianNB()``."""
    from sklearn.naive_bayes import GaussianNB

    return GaussianNB()


# --------------------------------------------------------------------------------------------
# ABBR (Explaining confident black-box predictions), Section 5 Setup
# --------------------------------------------------------------------------------------------
@_register("RF500", "RandomForestClassifier(n_estimators=500)",
           "ABBR (Explaining confident black-box predictions), Section 5: Random Forest with 500 estimators")
def _rf500(seed: int):
    """ABBR Section 5: "a Random Forest Classifier trained with 500 estimators" (other settings: defaults)."""
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=500, random_state=seed)


# --------------------------------------------------------------------------------------------
# CRL (Interpretable companions for black-box models). The paper names RandomForest, AdaBoost and
# XGBoost (Section 6.1) without hyper-parameters; the settings below are those of the authors'
# code (danqingpan/Companion-rule-list, paper/baselines/base_models.py).
# --------------------------------------------------------------------------------------------
CRL = "CRL (Interpretable companions for black-box models), Section 6.1; settings from the authors' code"


@_register("CRL_RF", "RandomForestClassifier(n_estimators=400, max_depth=15, min_samples_split=12, random_state=0)",
           CRL, paper_seed=0)
def _crl_rf(seed: int):
    """CRL RandomForest: ``RandomForestClassifier(n_estimators=400, max_depth=15, random_state=0,
    min_samples_split=12)`` as in the authors' code (their ``n_jobs=-1`` is left to the caller)."""
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=400, max_depth=15, min_samples_split=12, random_state=seed)


@_register("CRL_ADA", "AdaBoostClassifier(DecisionTreeClassifier(max_depth=20, min_samples_leaf=2), "
                      "n_estimators=200, learning_rate=1, random_state=0)", CRL, paper_seed=0)
def _crl_ada(seed: int):
    """CRL AdaBoost: ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=20, min_samples_split=2,
    min_samples_leaf=2), n_estimators=200, learning_rate=1, random_state=0)`` as in the authors' code."""
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    base = DecisionTreeClassifier(max_depth=20, min_samples_split=2, min_samples_leaf=2, random_state=seed)
    return AdaBoostClassifier(estimator=base, n_estimators=200, learning_rate=1.0, random_state=seed)


@_register("CRL_XGB", "XGBClassifier(n_estimators=100, learning_rate=0.08, max_depth=3, min_child_weight=2)",
           CRL, requires="xgboost")
def _crl_xgb(seed: int):
    """CRL XGBoost: ``XGBClassifier(learning_rate=0.08, max_depth=3, min_child_weight=2)`` as in the
    authors' code. Their ``n_estimatores=20`` is a misspelt keyword that XGBoost ignores, so the
    number of trees there was XGBoost's default of 100, set explicitly here. Needs
    ``pip install interpretopt[xgboost]``."""
    xgb = _import_xgboost()
    return xgb.XGBClassifier(n_estimators=100, learning_rate=0.08, max_depth=3, min_child_weight=2,
                             random_state=seed, n_jobs=1)


# --------------------------------------------------------------------------------------------
# "What changed? Interpretable model comparison" (BRCG grounding), Section 5: "a standard logistic
# regression classifier with l2 regularization, Random Forest, and XGBoost"; no further settings.
# --------------------------------------------------------------------------------------------
WC = "What changed? Interpretable model comparison, Section 5 (Algorithms)"


@_register("WC_LR", "LogisticRegression (l2, C=1, max_iter=1000)", WC)
def _wc_lr(seed: int):
    """"What changed" LR: logistic regression with l2 regularisation (scikit-learn's default penalty,
    C=1); ``max_iter=1000`` so that the solver converges on unscaled data."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=1.0, max_iter=1000, random_state=seed)


@_register("WC_RF", "RandomForestClassifier() (100 trees)", WC)
def _wc_rf(seed: int):
    """"What changed" RF: ``RandomForestClassifier()`` with scikit-learn defaults (the paper gives none)."""
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(random_state=seed)


@_register("WC_XGB", "XGBClassifier() (xgboost defaults)", WC, requires="xgboost")
def _wc_xgb(seed: int):
    """"What changed" XGB: ``XGBClassifier()`` with xgboost defaults (the paper gives none).
    Needs ``pip install interpretopt[xgboost]``."""
    xgb = _import_xgboost()
    return xgb.XGBClassifier(random_state=seed, n_jobs=1)


@_register("WC_XGB_PRE1", "XGBClassifier(max_depth=3, learning_rate=0.1, n_estimators=100) (xgboost < 1.0 "
                          "defaults)", WC, requires="xgboost")
def _wc_xgb_pre1(seed: int):
    """"What changed" XGB with the scikit-learn-API defaults of xgboost before 1.0 (``max_depth=3``,
    ``learning_rate=0.1``, ``n_estimators=100``; xgboost 1.0 left them to the core library, whose
    defaults are depth 6 and rate 0.3). The paper gives neither settings nor version; this is the
    other reading of "library defaults" for code of its time. Needs ``pip install interpretopt[xgboost]``."""
    xgb = _import_xgboost()
    return xgb.XGBClassifier(max_depth=3, learning_rate=0.1, n_estimators=100, random_state=seed, n_jobs=1)


# --------------------------------------------------------------------------------------------
# MTRE-PAN (Global translation of classification models), Section 4
# --------------------------------------------------------------------------------------------
@_register("MTREPAN_NET", "MLP with two sigmoid hidden layers of n_features units, squared loss, RMSProp, "
                          "100 training calls of 100,000 sample visits, best validation call kept (the release)",
           "MTRE-PAN (Global translation of classification models), Section 4")
def _mtrepan_net(seed: int):
    """MTRE-PAN target network: input layer, two hidden layers with as many units as inputs, one
    sigmoid output unit, sigmoid activations, inputs scaled to [-1, 1]; trained as the authors'
    release trains it (mlpack ``FFN`` with ``MeanSquaredError``, weights uniform in [-1, 1],
    ``n_rounds`` calls of RMSProp over 100,000 sample visits each, keeping the call with the best
    accuracy on the validation rows). The release uses 100 calls for diabetes and the 13-input
    census file and 1,000 for abalone (``n_rounds=1000``), and feeds diabetes raw
    (``scale_inputs=False``). See :class:`~interpretopt.blackbox.MTREPANNetwork`."""
    from interpretopt.blackbox._mtrepan_net import MTREPANNetwork

    return MTREPANNetwork(random_state=seed)

