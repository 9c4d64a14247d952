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
import interpretopt.experiments.tasks as tasks
from interpretopt.experiments.tasks import get_task

def _modules() -> list[str]:
    """The modules whose exported estimators must all be registered: each registered estimator's module
    and, for a private module (``blackbox._mtrepan_net``), its package; derived from the registry, so
    that a method added by the recipe is covered without editing this file."""
    mods = {e.module for e in M.ESTIMATORS.values()}
    mods |= {m.rsplit(".", 1)[0] for m in mods if m.rsplit(".", 1)[-1].startswith("_")}
    return sorted(mods)


def test_every_exported_estimator_is_registered_once():
    registered = {M.estimator_class(n) for n in M.ESTIMATORS}
    exported = set()
    for mod in map(importlib.import_module, _modules()):
        for name in getattr(mod, "__all__", ()):
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
    assert tuple(sorted(m.key for m in M.METHODS)) == tasks.METHOD_TASKS
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
    assert set(rows) == set(tasks.METHOD_TASKS) and all(r["available"] for r in rows.values())
    assert "GroundedBRCGClassifier" in rows["brcg"]["estimators"]


def test_import_is_cheap():
    code = "import sys, interpretopt, interpretopt.methods; print(any(m.startswith('sklearn') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"


# ----------------------------------------------------------------------------- the recipe of CONTRIBUTING.md
_TOY_CONFIG = {"params": {"n_thresholds": [1, 3], "max_features": 4},
               "datasets": [{"name": "breast_cancer", "max_rows": 200}], "models": ["DT1"], "repetitions": 2}


@pytest.fixture
def toy_method():
    """Step 2 of "Adding a method" through the public registration, undone after the test: the method
    (its task module ``tests.toy_method``, its check config) and its estimator."""
    import tests.toy_method as toy

    M.register_method("toy", "a toy method", "one threshold rule", task="tests.toy_method", check_config=_TOY_CONFIG)
    M.register_estimator("ToyStump", "tests.toy_method", "toy", n_thresholds=2)
    try:
        yield toy
    finally:
        M.unregister_method("toy")


def test_a_method_added_by_the_recipe_runs_through_the_runner(toy_method, tmp_path):
    import pandas as pd

    from interpretopt.exceptions import ConfigError
    from interpretopt.experiments.config import parse_config
    from interpretopt.experiments.runner import run_experiment

    assert M.estimator_class("ToyStump") is toy_method.ToyStump is interpretopt.ToyStump
    assert "ToyStump" in interpretopt.__all__ and "toy" in tasks.METHOD_TASKS
    assert {r["method"]: r for r in M.list_methods()}["toy"]["available"]
    raw = {"name": "toy_check", "method": "toy", **_TOY_CONFIG}
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


def test_the_shared_tests_cover_a_method_added_by_the_recipe(toy_method, tmp_path):
    """Step 5: no test file lists the methods; the shared tests read the registries and take the toy
    as it is registered (here called with it, as pytest collects them once it is registered)."""
    from sklearn.utils.estimator_checks import check_estimator

    import tests.experiments.test_tasks as TT
    from interpretopt.estimator_checks import check_instance, expected_failed_checks

    assert "tests.toy_method" in _modules() and "toy" in TT.grids()
    test_every_exported_estimator_is_registered_once()
    test_every_method_key_has_a_task_and_estimators()
    test_exports_come_from_the_registry()
    test_list_methods_reports_every_method()
    TT.test_every_method_task_has_a_grid_here()
    TT.test_each_task_declares_its_parameters("toy")
    TT.test_grid_in_both_orders_gives_identical_rows("toy", tmp_path)
    est = check_instance("ToyStump")  # scikit-learn's checks, as tests/test_estimator_checks.py runs them
    check_estimator(est, expected_failed_checks=expected_failed_checks(est))


def test_unregistering_removes_the_method_and_its_estimators(toy_method):
    M.unregister_method("toy")
    assert "toy" not in tasks.METHOD_TASKS and "ToyStump" not in M.ESTIMATORS and "ToyStump" not in interpretopt.__all__
    M.register_method("toy", "a toy method", "one threshold rule", task="tests.toy_method")  # for the fixture
    with pytest.raises(ValueError, match="already registered"):
        M.register_method("toy", "again", "x")
    with pytest.raises(ValueError, match="identifier"):
        M.register_method("no-key", "x", "y")


def test_without_the_registration_the_toy_is_an_unknown_method():
    from interpretopt.exceptions import ConfigError
    from interpretopt.experiments.config import parse_config

    with pytest.raises(ConfigError, match="unknown method 'toy'; valid methods: abbr, brcg"):
        parse_config({"name": "x", "method": "toy", "datasets": ["breast_cancer"]})
