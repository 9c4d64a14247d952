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
