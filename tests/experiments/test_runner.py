"""The runner-owned task memo and the hashed seeds of ``RunContext``."""

from __future__ import annotations

import numpy as np
import pytest

from interpretopt.experiments import runner as R
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.runner import RunContext, digest, memo_stats, plan_runs


def _ctx(seed=0, solver="highs", test_size=0.3, rep=0, method="noop"):
    c = parse_config({"name": "m", "method": method, "datasets": ["breast_cancer"], "seed": seed, "solver": solver,
                      "split": {"test_size": test_size}, "repetitions": 2})
    env = R.RunEnv.from_config(c)
    run = [r for r in plan_runs(c) if r.rep == rep][0]
    return RunContext(run, env, R._load(run.dataset, None, seed))


@pytest.fixture(autouse=True)
def _fresh():
    R.clear_caches()
    yield
    R.clear_caches()


def test_memo_computes_once_per_key_and_shares_between_runs():
    calls = []

    def make():
        calls.append(1)
        return object()

    a, b = _ctx(rep=0), _ctx(rep=1)
    rows = np.arange(10)
    v1 = a.memo("thing", make, rows=rows, params={"k": 1})
    v2 = b.memo("thing", make, rows=rows.copy(), params={"k": 1})  # another run, equal deps
    assert v1 is v2 and len(calls) == 1 and memo_stats()["hits"] == 1
    assert a.memo("thing", make, rows=rows[::-1], params={"k": 1}) is not v1  # other rows
    assert a.memo("thing", make, rows=rows, params={"k": 2}) is not v1  # other params
    assert a.memo("other", make, rows=rows, params={"k": 1}) is not v1  # other name
    assert len(calls) == 4


@pytest.mark.parametrize("change", [{"seed": 1}, {"solver": "ortools_glop"}, {"test_size": 0.5}])
def test_memo_key_holds_the_config_hash(change):
    """Regression: the BRCG task's own cache left out the seed, the solver and the split."""
    base = _ctx()
    other = _ctx(**change)
    v = base.memo("x", lambda: ["base"])
    assert other.memo("x", lambda: ["other"]) == ["other"] and base.memo("x", lambda: ["again"]) is v


def test_memo_does_not_cache_exceptions():
    ctx = _ctx()

    def boom():
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        ctx.memo("x", boom)
    assert ctx.memo("x", lambda: 5) == 5


def test_memo_rejects_dependencies_it_cannot_compare():
    with pytest.raises(TypeError, match="cannot key a cache"):
        _ctx().memo("x", lambda: 1, model=object())


def test_digest_by_value():
    assert digest(np.arange(3)) == digest(np.array([0, 1, 2]))
    assert digest(np.arange(3)) != digest(np.arange(3, dtype=np.int32))
    assert digest({"b": 1, "a": (1, 2)}) == digest({"a": [1, 2], "b": 1})


def test_seed_for_is_hashed_from_config_seed_dataset_and_parts():
    a, b = _ctx(rep=0), _ctx(rep=1)
    assert a.seed_for("rule", 3) == b.seed_for("rule", 3)  # independent of the run that asks
    assert a.seed_for("rule", 3) != a.seed_for("rule", 4)
    assert a.seed_for("rule", rows=np.arange(4)) != a.seed_for("rule", rows=np.arange(5))
    assert _ctx(seed=7).seed_for("rule", 3) != a.seed_for("rule", 3)
    assert a.rng_for("x").integers(1 << 30) == np.random.default_rng(a.seed_for("x")).integers(1 << 30)
