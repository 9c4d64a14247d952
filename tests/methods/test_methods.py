"""The one registry of methods and estimators (``interpretopt.methods``)."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import pytest
from sklearn.base import BaseEstimator

import interpretopt
import interpretopt.methods as M
from interpretopt.exceptions import UnknownNameError
from interpretopt.experiments.tasks import METHOD_TASKS, get_task

_MODULES = ("interpretopt.methods.brcg", "interpretopt.methods.imd", "interpretopt.methods.crl",
            "interpretopt.methods.abbr", "interpretopt.methods.mtrepan", "interpretopt.blackbox")


def test_every_exported_estimator_is_registered_once():
    registered = {M.estimator_class(n) for n in M.ESTIMATORS}
    exported = set()
    for mod in map(importlib.import_module, _MODULES):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                exported.add(obj)
    assert exported == registered, (exported ^ registered)


@pytest.mark.parametrize("name", M.ESTIMATORS.names())
def test_registered_fit_signature_is_the_real_one(name):
    info = M.ESTIMATORS.get(name)
    cls = M.estimator_class(name)
    params = [p for p in inspect.signature(cls.fit).parameters.values()
              if p.name != "self" and p.kind is p.POSITIONAL_OR_KEYWORD]
    assert ", ".join(p.name for p in params[:len(info.fit.split(", "))]) == info.fit
    cls(**info.check_params)  # the check instance builds


def test_every_method_key_has_a_task_and_estimators():
    assert tuple(sorted(m.key for m in M.METHODS)) == METHOD_TASKS
    for m in M.METHODS:
        assert callable(get_task(m.key)) and m.estimators
        assert importlib.import_module(m.task).run is get_task(m.key)


def test_exports_come_from_the_registry():
    for info in M.ESTIMATORS.values():
        if info.method is None:
            continue
        for alias in (info.name, *info.aliases):
            assert alias in M.__all__ and alias in interpretopt.__all__
            assert getattr(interpretopt, alias) is M.estimator_class(info.name) is getattr(M, alias)
    assert interpretopt.JointSurrogateTree is interpretopt.IMDExplainer
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        interpretopt.Nope  # noqa: B018
    with pytest.raises(UnknownNameError, match="unknown estimator 'Nope'; valid names: BRCGClassifier"):
        M.estimator_class("Nope")


def test_list_methods_reports_every_method():
    rows = {r["method"]: r for r in M.list_methods()}
    assert set(rows) == set(METHOD_TASKS) and all(r["available"] for r in rows.values())
    assert "GroundedBRCGClassifier" in rows["brcg"]["estimators"]


def test_import_is_cheap():
    code = "import sys, interpretopt, interpretopt.methods; print(any(m.startswith('sklearn') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"


# ----------------------------------------------------------------------------- the recipe of CONTRIBUTING.md
@pytest.fixture
def toy_method(monkeypatch):
    """Step 2 of "Adding a method", undone after the test: the method and its estimator in the
    registries of ``interpretopt.methods``, its task module ``interpretopt.experiments.tasks.toy``."""
    import interpretopt.experiments.tasks as T
    import tests.toy_method as toy

    monkeypatch.setitem(M._METHODS._items, "toy", M.MethodInfo("toy", "a toy method", "one threshold rule"))
    monkeypatch.setitem(M.ESTIMATORS._items, "ToyStump", M.EstimatorInfo("ToyStump", "tests.toy_method", "toy"))
    info = M.MethodInfo("toy", "a toy method", "one threshold rule", ("tests.toy_method:ToyStump",))
    monkeypatch.setattr(M, "METHODS", M.METHODS + (info,))
    monkeypatch.setattr(T, "METHOD_TASKS", tuple(sorted(T.METHOD_TASKS + ("toy",))))
    monkeypatch.setitem(sys.modules, "interpretopt.experiments.tasks.toy", toy)
    return toy


def test_a_method_added_by_the_recipe_runs_through_the_runner(toy_method, tmp_path):
    import pandas as pd

    from interpretopt.exceptions import ConfigError
    from interpretopt.experiments.config import parse_config
    from interpretopt.experiments.runner import run_experiment

    assert M.estimator_class("ToyStump") is toy_method.ToyStump
    assert {r["method"]: r for r in M.list_methods()}["toy"]["available"]
    raw = {"name": "toy_check", "method": "toy", "params": {"n_thresholds": [1, 3], "max_features": 4},
           "datasets": [{"name": "breast_cancer", "max_rows": 200}], "models": ["DT1"], "repetitions": 2}
    cfg = parse_config(raw)
    report = run_experiment(cfg, out_dir=tmp_path, progress=False)
    assert report.n_ok == 4, report.summary()
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert len(df) == 4 and df["fidelity"].between(0.5, 1.0).all() and (df["feature"] < 4).all()
    # step 2 wired the estimator's parameter schema into config validation (did-you-mean)
    with pytest.raises(ConfigError, match=r"toy has no parameter 'n_treshold' \(did you mean 'n_thresholds'\?\)"):
        parse_config({**raw, "params": {"n_treshold": 2}})
    with pytest.raises(ConfigError, match="n_thresholds"):
        parse_config({**raw, "params": {"n_thresholds": 0}})


def test_without_the_registration_the_toy_is_an_unknown_method():
    from interpretopt.exceptions import ConfigError
    from interpretopt.experiments.config import parse_config

    with pytest.raises(ConfigError, match="unknown method 'toy'; valid methods: abbr, brcg"):
        parse_config({"name": "x", "method": "toy", "datasets": ["breast_cancer"]})
