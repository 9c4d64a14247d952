"""The runner-owned task memo and the hashed seeds of ``RunContext``."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.experiments import runner as R
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.results import ResultStore, read_results
from interpretopt.experiments.runner import (
    RunContext,
    digest,
    memo_stats,
    plan_runs,
    run_experiment,
    run_name,
    run_seed,
)
from interpretopt.experiments.tasks import _builtin, get_task


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


def _warns(text):
    """A memo ``make`` that warns ``text`` and counts its calls."""
    calls = []

    def make():
        calls.append(1)
        warnings.warn(text, UserWarning)
        return len(calls)

    return make, calls


def test_regression_memo_hit_replays_the_warnings_of_make():
    """Regression: a memo value's warnings were raised only in the run that computed it."""
    make, calls = _warns("make warned")
    for ctx in (_ctx(rep=0), _ctx(rep=1), _ctx(rep=0)):
        with pytest.warns(UserWarning, match="make warned"):
            assert ctx.memo("w", make) == 1
    assert calls == [1] and memo_stats()["hits"] == 2


def test_memo_inside_another_memo_passes_its_warnings_to_the_outer_value():
    inner, _ = _warns("inner warned")
    a, b = _ctx(rep=0), _ctx(rep=1)
    with pytest.warns(UserWarning, match="inner warned"):
        a.memo("inner", inner)  # cached first: the outer make below gets a hit
    with pytest.warns(UserWarning, match="inner warned"):
        a.memo("outer", lambda: a.memo("inner", inner) + 10)
    with warnings.catch_warnings(record=True) as caught:  # a hit on the outer value alone
        warnings.simplefilter("always")
        assert b.memo("outer", lambda: -1) == 11
    assert [str(w.message) for w in caught] == ["inner warned"]


def test_memo_exception_keeps_its_warnings_and_is_not_cached():
    ctx = _ctx()

    def boom():
        warnings.warn("before failing", UserWarning)
        raise RuntimeError("no")

    with pytest.warns(UserWarning, match="before failing"), pytest.raises(RuntimeError):
        ctx.memo("x", boom)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the failed make left no warning behind to replay
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


# -----------------------------------------------------------------------------
# Runner: names, hashed seeds, resume, failures, missing data, parallel and Dask execution.


METRIC_COLS = ["run_name", "seed", "fidelity", "accuracy", "n_leaves"]


def _cfg(**kw):
    d = {"name": "t", "method": "dummy_tree", "params": {"max_depth": [1, 3]}, "datasets": ["breast_cancer"],
         "repetitions": 2}
    d.update(kw)
    return parse_config(d)


def _sorted(df):
    return df.sort_values("run_name").reset_index(drop=True)


# ----------------------------------------------------------------------------- names and seeds


def test_run_name_format():
    assert run_name("imd", {"variant": "jst", "max_depth": 6}, "adult", ("RF1", "GNB"), 0) == \
        "imd[max_depth=6,variant=jst]@adult/RF1-GNB/0"
    assert run_name("noop", {}, "breast_cancer", (), 2) == "noop@breast_cancer/-/2"


def test_names_and_seeds_do_not_depend_on_order():
    a = _cfg(params={"max_depth": [1, 3], "criterion": ["gini", "entropy"]},
             datasets=["breast_cancer", "circle"])
    b = _cfg(params={"criterion": ["entropy", "gini"], "max_depth": [3, 1]},
             datasets=["circle", "breast_cancer"])
    ra = {r.name: (r.seed, r.key) for r in plan_runs(a)}
    rb = {r.name: (r.seed, r.key) for r in plan_runs(b)}
    assert ra == rb
    seeds = [s for s, _ in ra.values()]
    assert len(set(seeds)) == len(seeds)
    r = plan_runs(a)[0]
    assert r.seed == run_seed(0, r.dataset.label, r.method, r.params, r.rep)
    # another root seed gives other run seeds
    assert {x.seed for x in plan_runs(_cfg(seed=1))}.isdisjoint({x.seed for x in plan_runs(_cfg())})


def test_results_do_not_depend_on_run_order(tmp_path):
    c = _cfg()
    runs = plan_runs(c)
    run_experiment(c, out_dir=tmp_path / "a", runs=runs, progress=False)
    R.clear_caches()
    run_experiment(c, out_dir=tmp_path / "b", runs=runs[::-1], progress=False)
    a, b = _sorted(read_results(tmp_path / "a")), _sorted(read_results(tmp_path / "b"))
    pd.testing.assert_frame_equal(a[METRIC_COLS], b[METRIC_COLS])


def test_regression_stored_results_hold_only_the_runs_the_config_plans(tmp_path):
    """A grid value dropped from a config leaves its rows (same config hash) in the directory; the
    tables must not read them."""
    wide = _cfg(params={"max_depth": [1, 3]}, repetitions=2)
    run_experiment(wide, out_dir=tmp_path, progress=False)
    narrow = _cfg(params={"max_depth": [3]}, repetitions=1)
    assert narrow.config_hash == wide.config_hash
    assert len(read_results(tmp_path, config_hash=narrow.config_hash)) == 4
    kept = R.stored_results(narrow, tmp_path)
    assert sorted(kept["run_name"]) == sorted(r.name for r in plan_runs(narrow))
    assert len(R.stored_results(wide, tmp_path)) == 4


def test_regression_stored_results_check_the_models_a_config_fixes(tmp_path):
    two = parse_config({"name": "t", "method": "noop", "datasets": ["breast_cancer"], "models": ["LR", "GNB"]})
    run_experiment(two, out_dir=tmp_path, progress=False)
    one = parse_config({"name": "t", "method": "noop", "datasets": ["breast_cancer"], "models": ["GNB"]})
    assert list(R.stored_results(one, tmp_path)["models"]) == ["GNB"]


def test_context_splits_shared_across_methods_and_deterministic():
    c = parse_config({
        "name": "t", "datasets": ["breast_cancer"], "repetitions": 2,
        "methods": [{"method": "noop"}, {"method": "dummy_tree"}]})
    env = R.RunEnv.from_config(c)
    runs = plan_runs(c)
    loaded = R._load(runs[0].dataset, None, 0)
    ctxs = {(r.method, r.rep): RunContext(r, env, loaded) for r in runs}
    tr1, te1 = ctxs[("noop", 0)].split()
    tr2, te2 = ctxs[("dummy_tree", 0)].split()
    np.testing.assert_array_equal(te1, te2)
    assert not np.array_equal(te1, ctxs[("noop", 1)].split()[1])
    assert not np.array_equal(te1, ctxs[("noop", 0)].split(key="other")[1])
    folds = ctxs[("noop", 0)].kfold(3)
    assert len(folds) == 3 and sum(len(t) for _, t in folds) == loaded.X.shape[0]
    np.testing.assert_array_equal(folds[0][1], ctxs[("dummy_tree", 0)].kfold(3)[0][1])
    assert ctxs[("noop", 0)].rng.integers(1 << 30) == np.random.default_rng(runs[0].seed).integers(1 << 30)


# ----------------------------------------------------------------------------- resume


def test_resume_after_interruption_does_not_redo_finished_runs(tmp_path, monkeypatch):
    c = parse_config({"name": "r", "method": "noop", "params": {"k": [1, 2, 3, 4]}, "datasets": ["breast_cancer"],
                      "repetitions": 2})
    calls = []

    def interrupting(ctx):
        calls.append(ctx.run_name)
        if len(calls) == 4:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the grid
        return {"value": ctx.params["k"]}

    monkeypatch.setattr(_builtin, "run_noop", interrupting)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(c, out_dir=tmp_path, progress=False)
    store = ResultStore(tmp_path)
    first = store.statuses()
    assert len(first) == 3 and set(first.values()) == {"ok"}
    assert (tmp_path / "results.parquet").is_file()  # consolidated even when interrupted
    mtimes = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "runs").iterdir()}
    done_names = set(calls[:3])

    calls.clear()
    monkeypatch.setattr(_builtin, "run_noop", lambda ctx: (calls.append(ctx.run_name), {"value": 1})[1])
    rep = run_experiment(c, out_dir=tmp_path, progress=False)
    assert rep.n_skipped == 3 and rep.n_ok == 5 and rep.n_failed == 0
    assert done_names.isdisjoint(calls) and len(calls) == 5
    for p in (tmp_path / "runs").iterdir():
        if p.name in mtimes:
            assert p.stat().st_mtime_ns == mtimes[p.name]  # finished runs untouched
    assert len(read_results(tmp_path)) == 8
    # nothing left: a third call runs nothing; --force reruns everything
    assert run_experiment(c, out_dir=tmp_path, progress=False).n_skipped == 8
    calls.clear()
    assert run_experiment(c, out_dir=tmp_path, progress=False, force=True).n_ok == 8 and len(calls) == 8


def test_resume_after_process_is_killed(tmp_path):
    script = textwrap.dedent(f"""
        from interpretopt.experiments.config import parse_config
        from interpretopt.experiments.runner import run_experiment
        c = parse_config({{"name": "k", "method": "sleep", "params": {{"seconds": 0.25, "i": list(range(40))}},
                          "datasets": ["breast_cancer"]}})
        run_experiment(c, out_dir={str(tmp_path)!r}, progress=False)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    runs_dir = tmp_path / "runs"
    deadline = time.time() + 60
    try:
        while time.time() < deadline:
            if runs_dir.is_dir() and len(list(runs_dir.glob("*.json"))) >= 3:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
    n_done = len(list(runs_dir.glob("*.json")))
    assert 3 <= n_done < 40
    for p in runs_dir.glob("*.json"):  # every stored row is complete JSON
        assert json.loads(p.read_text())["run_status"] == "ok"
    # the same grid again; the remaining runs are made instant by keeping their names and keys
    c = parse_config({"name": "k", "method": "sleep", "params": {"seconds": 0.25, "i": list(range(40))},
                      "datasets": ["breast_cancer"]})
    fast = [dataclasses.replace(r, params={**r.params, "seconds": 0.0}) for r in plan_runs(c)]
    rep = run_experiment(c, out_dir=tmp_path, runs=fast, progress=False)
    assert rep.n_skipped == n_done and rep.n_ok == 40 - n_done


# ----------------------------------------------------------------------------- failures


def test_failed_runs_are_recorded_and_the_rest_go_on(tmp_path):
    c = parse_config({"name": "f", "method": "fail", "params": {"fail_reps": [[1]], "message": "boom"},
                      "datasets": ["breast_cancer"], "repetitions": 3})
    rep = run_experiment(c, out_dir=tmp_path, progress=False)
    assert rep.n_ok == 2 and rep.n_failed == 1
    df = read_results(tmp_path)
    bad = df[df.run_status == "failed"].iloc[0]
    assert bad.rep == 1 and bad.error == "RuntimeError: boom" and "run_fail" in bad.traceback
    assert df[df.run_status == "ok"].value.tolist() == [1, 1]
    # failed runs are retried on the next call, finished ones are not
    rep2 = run_experiment(c, out_dir=tmp_path, progress=False)
    assert rep2.n_skipped == 2 and rep2.n_failed == 1
    assert run_experiment(c, out_dir=tmp_path, progress=False, retry_failed=False).n_skipped == 3


def test_missing_dataset_fails_its_runs_only(tmp_path):
    c = _cfg(datasets=["breast_cancer", "adult"], repetitions=1)
    rep = run_experiment(c, out_dir=tmp_path / "out", data_dir=tmp_path / "empty", progress=False)
    df = read_results(tmp_path / "out")
    assert rep.n_ok == 2 and rep.n_failed == 2
    adult = df[df.dataset == "adult"]
    assert (adult.run_status == "failed").all()
    assert all("DataError" in e and "adult" in e for e in adult.error)
    assert (df[df.dataset == "breast_cancer"].run_status == "ok").all()


def test_unknown_task_module_gives_clear_error(monkeypatch):
    import importlib

    real = importlib.import_module

    def fake(name, *a, **k):
        if name == "interpretopt.experiments.tasks.crl":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real(name, *a, **k)

    monkeypatch.setattr(importlib, "import_module", fake)
    with pytest.raises(ImportError, match="task 'crl' needs module interpretopt.experiments.tasks.crl"):
        get_task("crl")


def test_task_returning_special_keys_and_artifacts(tmp_path, monkeypatch):
    def task(ctx):
        return {"solver": "highs", "status": "optimal", "objective": 1.5, "bound": 1.5, "gap": 0.0,
                "n_rules": np.int64(3), "seed": 7, "rules": ["a", "b"], "artifacts": {"rules.txt": "a\nb"}}

    monkeypatch.setattr(_builtin, "run_noop", task)
    c = parse_config({"name": "s", "method": "noop", "datasets": ["breast_cancer"]})
    run_experiment(c, out_dir=tmp_path, progress=False)
    row = read_results(tmp_path).iloc[0]
    assert row.solver == "highs" and row.status == "optimal" and row.objective == 1.5 and row.gap == 0.0
    assert row.n_rules == 3 and row.metric_seed == 7 and row.rules == '["a","b"]'
    assert (tmp_path / "artifacts" / row.run_key / "rules.txt").read_text() == "a\nb"
    assert row.version_numpy == np.__version__ and row.wall_time >= 0 and row.cpu_time >= 0
    pq = pd.read_parquet(tmp_path / "results.parquet")
    assert pq.run_name.tolist() == [row.run_name]


def test_record_keeps_only_listed_metrics(tmp_path):
    c = _cfg(params={"max_depth": 2}, repetitions=1, record=["fidelity"])
    run_experiment(c, out_dir=tmp_path, progress=False)
    df = read_results(tmp_path)
    assert "fidelity" in df.columns and "accuracy" not in df.columns and "n_leaves" not in df.columns


def test_smoke_subsamples_rows(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(_builtin, "run_noop", lambda ctx: (seen.append((ctx.smoke, ctx.X.shape[0])), {"value": 0})[1])
    c = parse_config({"name": "s", "method": "noop", "datasets": ["breast_cancer"], "repetitions": 3,
                      "smoke": {"max_rows": 100}}).with_smoke()
    run_experiment(c, out_dir=tmp_path, progress=False)
    assert seen == [(True, 100)]
    y = R._load(c.datasets[0], None, 0).y
    assert set(np.unique(y)) == {0, 1}  # stratified subsample keeps both classes


# ----------------------------------------------------------------------------- black boxes and pairs


def _fake_models(monkeypatch):
    from sklearn.dummy import DummyClassifier
    from sklearn.tree import DecisionTreeClassifier

    fits = []
    zoo = {"D1": lambda rs: DecisionTreeClassifier(max_depth=1, random_state=rs),
           "D4": lambda rs: DecisionTreeClassifier(max_depth=4, random_state=rs),
           "MAJ": lambda rs: DummyClassifier(),
           "D2": lambda rs: DecisionTreeClassifier(max_depth=2, random_state=rs)}

    def fit(name, X, y, rs):
        fits.append(name)
        return zoo[name](rs).fit(X, y)

    monkeypatch.setattr(R, "_fit_model", fit)
    return fits


def test_black_box_cache_in_memory_refit_identically(tmp_path, monkeypatch):
    """Fitted models stay in memory (a results folder holds no pickles); a new process refits the same model."""
    fits = _fake_models(monkeypatch)
    c = parse_config({"name": "b", "method": "noop", "datasets": ["breast_cancer"], "repetitions": 2},
                     check_names=False)
    R.clear_caches()
    env = R.RunEnv.from_config(c, tmp_path)
    runs = plan_runs(c)
    loaded = R._load(runs[0].dataset, None, 0)
    ctx0, ctx1 = RunContext(runs[0], env, loaded), RunContext(runs[1], env, loaded)
    tr, _ = ctx0.split()
    m1 = ctx0.black_box("D4", tr)
    assert ctx0.black_box("D4", tr) is m1 and fits == ["D4"]
    ctx1.black_box("D4", tr)  # same rows in another run: cached
    assert fits == ["D4"]
    ctx1.black_box("D4", ctx1.split()[0])  # other rows: fitted
    ctx1.black_box("D4", tr, y=1 - loaded.y)  # other labels: fitted
    assert fits == ["D4"] * 3
    assert not (tmp_path / "blackbox").exists()  # nothing written that a later process would unpickle
    R.clear_caches()  # a new process fits it again, from the same hashed seed
    m2 = RunContext(runs[0], env, R._load(runs[0].dataset, None, 0)).black_box("D4", tr)
    assert fits == ["D4"] * 4 and m2 is not m1
    np.testing.assert_array_equal(m1.predict(loaded.X), m2.predict(loaded.X))


def _warning_column(tmp_path, monkeypatch, task, repetitions=3):
    """The ``warnings`` column of ``repetitions`` runs of ``task`` in this process, by repetition."""
    monkeypatch.setattr(_builtin, "run_noop", task)
    c = parse_config({"name": "w", "method": "noop", "datasets": ["breast_cancer"], "repetitions": repetitions})
    rep = run_experiment(c, out_dir=tmp_path, n_jobs=1, progress=False)
    assert rep.n_ok == repetitions, rep.failed
    return read_results(tmp_path).sort_values("rep")["warnings"].tolist()


def test_regression_every_run_using_a_cached_black_box_records_its_fit_warnings(tmp_path, monkeypatch):
    """Regression: lbfgs's ConvergenceWarning was recorded by the run that fitted the (cached) black box
    only, so a run's warnings column depended on what the process had run before it."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    fits = []

    def fit(name, X, y, rs):
        fits.append(name)
        return LogisticRegression(max_iter=2, random_state=rs).fit(X, y)

    monkeypatch.setattr(R, "_fit_model", fit)
    col = _warning_column(tmp_path, monkeypatch, lambda ctx: {"value": float(ctx.black_box("LR").predict(ctx.X[:1])[0])})
    assert fits == ["LR"]  # one fit shared by the three runs
    assert [str(w).split(":")[0] for w in col] == [ConvergenceWarning.__name__] * 3, col
    assert "lbfgs failed to converge" in col[0] and len(set(col)) == 1


def test_regression_every_run_using_a_cached_memo_value_records_its_warnings(tmp_path, monkeypatch):
    make, calls = _warns("the shared value warned")
    col = _warning_column(tmp_path, monkeypatch, lambda ctx: {"value": ctx.memo("shared", make)})
    assert calls == [1] and col == ["UserWarning: the shared value warned"] * 3


def test_every_run_of_a_cached_dataset_records_its_load_warnings(tmp_path, monkeypatch):
    import interpretopt.data as D

    real = D.load_dataset

    def load(*a, **k):
        warnings.warn("loading warned", UserWarning)
        return real(*a, **k)

    monkeypatch.setattr(D, "load_dataset", load)
    assert _warning_column(tmp_path, monkeypatch, lambda ctx: {"value": 0}) == ["UserWarning: loading warned"] * 3


def test_black_box_on_given_features(tmp_path, monkeypatch):
    """``features`` replaces the data the model learns from, and is part of the cache key."""
    fits = _fake_models(monkeypatch)
    c = parse_config({"name": "b", "method": "noop", "datasets": ["breast_cancer"]}, check_names=False)
    R.clear_caches()
    env = R.RunEnv.from_config(c, tmp_path)
    run = plan_runs(c)[0]
    loaded = R._load(run.dataset, None, 0)
    ctx = RunContext(run, env, loaded)
    tr, _ = ctx.split()
    raw = ctx.black_box("D4", tr)
    above = loaded.X > np.median(loaded.X, axis=0)
    F = np.hstack([above, ~above]).astype(np.float32)  # twice as many columns as the data
    m = ctx.black_box("D4", tr, features=F)
    assert m is not raw and fits == ["D4", "D4"] and m.n_features_in_ == F.shape[1]
    assert ctx.black_box("D4", tr, features=F.copy()) is m  # same content: cached
    ctx.black_box("D4", tr, features=F[:, ::-1])  # other features: fitted
    assert fits == ["D4"] * 3
    with pytest.raises(ValueError, match="features must be a matrix"):
        ctx.black_box("D4", tr, features=F[:10])
    assert ctx.blackbox_fingerprints["D4"]  # predicted from the features it learned from


def test_black_box_fingerprint_tells_models_apart_and_is_stored_with_the_run(tmp_path, monkeypatch):
    _fake_models(monkeypatch)
    c = parse_config({"name": "b", "method": "noop", "datasets": ["breast_cancer"]}, check_names=False)
    env = R.RunEnv.from_config(c, tmp_path)
    run = plan_runs(c)[0]
    loaded = R._load(run.dataset, None, 0)
    a = RunContext(run, env, loaded)
    a.black_box("D4")
    a.black_box("D1")
    R.clear_caches()  # a new process: the model from disk has the same fingerprint
    b = RunContext(run, env, R._load(run.dataset, None, 0))
    b.black_box("D4")
    assert b.blackbox_fingerprints["D4"] == a.blackbox_fingerprints["D4"] != a.blackbox_fingerprints["D1"]
    b.black_box("D4", y=1 - loaded.y)  # a second D4 (other labels) in the same run: both enter its fingerprint
    assert b.blackbox_fingerprints["D4"] != a.blackbox_fingerprints["D4"]
    c1 = RunContext(run, env, loaded)  # the model from memory, and a value shared through memo, count too
    c1.black_box("D1")
    assert c1.blackbox_fingerprints == {"D1": a.blackbox_fingerprints["D1"]}
    c2, c3 = RunContext(run, env, loaded), RunContext(run, env, loaded)
    for ctx in (c2, c3):
        ctx.memo("fp-test", lambda ctx=ctx: ctx.black_box("D1").predict(loaded.X[:3]))
    assert c3.blackbox_fingerprints == c2.blackbox_fingerprints == c1.blackbox_fingerprints

    def task(ctx):
        ctx.black_box("D2")
        return {"value": 1}

    monkeypatch.setattr(R, "get_task", lambda name: task, raising=False)
    import interpretopt.experiments.tasks as T

    monkeypatch.setattr(T, "get_task", lambda name: task)
    row, _ = R.execute_run(run, env)
    assert row["run_status"] == "ok", row["error"]
    assert row["blackbox_fingerprint"].startswith("D2:") and len(row["blackbox_fingerprint"]) == 3 + 12


def test_pair_selection_max_min_accuracy_gap(tmp_path, monkeypatch):
    fits = _fake_models(monkeypatch)
    R.clear_caches()
    c = parse_config({"name": "p", "method": "dummy_tree", "params": {"max_depth": 2}, "datasets": ["breast_cancer"],
                      "pairs": {"candidates": ["D1", "D4", "MAJ", "D2"], "select": "max_min_accuracy_gap"}},
                     check_names=False)
    runs = plan_runs(c, out_dir=tmp_path)
    tags = {r.pair_tag: r.models for r in runs}
    assert set(tags) == {"max", "min"}
    # the majority classifier is far the worst, so the largest gap pairs it with the best tree
    assert tags["max"][1] == "MAJ" and tags["max"][0] in ("D4", "D2")
    acc = json.loads(next((tmp_path / "pairs").glob("*.json")).read_text())["payload"]  # with its key and hash
    gaps = {(a, b): abs(acc[a] - acc[b]) for a in acc for b in acc if a < b}
    assert abs(acc[tags["min"][0]] - acc[tags["min"][1]]) == pytest.approx(min(gaps.values()))
    assert acc[tags["max"][0]] - acc[tags["max"][1]] == pytest.approx(max(gaps.values()))
    n_fits = len(fits)
    R.clear_caches()
    assert {r.name for r in plan_runs(c, out_dir=tmp_path)} == {r.name for r in runs}
    assert len(fits) == n_fits  # accuracies come from the cache
    rep = run_experiment(c, out_dir=tmp_path, progress=False)
    df = read_results(tmp_path)
    assert rep.n_ok == 2 and set(df.pair_tag) == {"max", "min"} and df.pair_agreement.notna().all()
    top = parse_config({"name": "p", "method": "noop", "datasets": ["breast_cancer"],
                        "pairs": {"candidates": ["D1", "D4", "MAJ", "D2"], "select": "top_accuracy_gap", "n": 3}},
                       check_names=False)
    assert [r.pair_tag for r in plan_runs(top, out_dir=tmp_path)] == ["gap1", "gap2", "gap3"]


def test_pair_selection_on_missing_dataset_fails_those_runs(tmp_path, monkeypatch):
    _fake_models(monkeypatch)
    c = parse_config({"name": "p", "method": "noop", "datasets": ["adult", "breast_cancer"],
                      "pairs": {"candidates": ["D1", "MAJ"], "select": "max_min_accuracy_gap"}}, check_names=False)
    rep = run_experiment(c, out_dir=tmp_path / "o", data_dir=tmp_path / "none", progress=False)
    df = read_results(tmp_path / "o")
    assert rep.n_failed == 1 and rep.n_ok == 1
    assert "adult" in df[df.dataset == "adult"].error.iloc[0]


# ----------------------------------------------------------------------------- parallel


def test_parallel_two_workers_equals_serial(tmp_path):
    c = _cfg()
    run_experiment(c, out_dir=tmp_path / "s", n_jobs=1, progress=False)
    rep = run_experiment(c, out_dir=tmp_path / "p", n_jobs=2, progress=False)
    assert rep.n_ok == 4
    a, b = _sorted(read_results(tmp_path / "s")), _sorted(read_results(tmp_path / "p"))
    pd.testing.assert_frame_equal(a[METRIC_COLS], b[METRIC_COLS])


def test_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    c = _cfg(params={"max_depth": [2]})
    run_experiment(c, out_dir=tmp_path / "s", progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        rep = run_experiment(c, out_dir=tmp_path / "d", scheduler=cluster.scheduler_address, progress=False)
    assert rep.n_ok == 2 and rep.n_failed == 0
    a, b = _sorted(read_results(tmp_path / "s")), _sorted(read_results(tmp_path / "d"))
    pd.testing.assert_frame_equal(a[METRIC_COLS], b[METRIC_COLS])


def test_dask_runs_keep_their_own_joblib_calls_in_the_worker(tmp_path):
    """Regression: joblib's Dask backend travelled with the runs, so a random forest inside a run sent
    each of its trees to the cluster as a task (5-25 x the CPU of a local run)."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    c = parse_config({"name": "w", "method": "worker", "params": {"k": [0, 1]}, "datasets": ["breast_cancer"],
                      "repetitions": 2})
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        rep = run_experiment(c, out_dir=tmp_path, scheduler=cluster.scheduler_address, progress=False)
    df = read_results(tmp_path)
    assert rep.n_ok == 4 and set(df.nested_backend) == {"SequentialBackend"}


def test_runs_execute_on_one_thread_in_process_and_in_workers(tmp_path):
    """Regression: in-process runs (n_jobs=1) used the process's BLAS threads, loky workers one, so
    an unconverged logistic regression (adult) gave other predictions, and other rule sets, with
    --n-jobs 1 than with --n-jobs 2 (120 of 360 adult runs of the "What changed?" grid differed)."""
    from threadpoolctl import threadpool_limits

    c = parse_config({"name": "w", "method": "worker", "params": {"k": [0, 1]}, "datasets": ["breast_cancer"],
                      "repetitions": 2})
    with threadpool_limits(limits=2):
        run_experiment(c, out_dir=tmp_path / "s", n_jobs=1, progress=False)
    run_experiment(c, out_dir=tmp_path / "p", n_jobs=2, progress=False)
    for d in ("s", "p"):
        assert set(read_results(tmp_path / d).max_threads) == {1}


def test_progress_bar_reports_counts(tmp_path, capsys):
    c = parse_config({"name": "pb", "method": "fail", "params": {"fail_reps": [[0]]}, "datasets": ["breast_cancer"],
                      "repetitions": 2})
    run_experiment(c, out_dir=tmp_path, progress=True)
    err = capsys.readouterr().err
    assert "2/2" in err and "failed=1" in err and "ok=1" in err


# ----------------------------------------------------------------------------- work units


def _grid_runs(reps=3, params=4, datasets=("breast_cancer", "pima")):
    c = parse_config({"name": "u", "method": "noop", "params": {"k": list(range(params))}, "datasets": list(datasets),
                      "repetitions": reps}, check_names=False)
    return plan_runs(c)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 6), st.lists(st.booleans(), min_size=40, max_size=40))
def test_work_units_partition_the_runs_by_group_in_plan_order(reps, params, workers, keep):
    runs = [r for r, k in zip(_grid_runs(reps, params), keep * 2) if k]
    units = R.work_units(runs, workers)
    flat = [r.key for u in units for r in u]
    assert sorted(flat) == sorted(r.key for r in runs) and len(flat) == len(set(flat))  # a partition
    order = {r.key: i for i, r in enumerate(runs)}
    for u in units:
        assert u and [order[r.key] for r in u] == sorted(order[r.key] for r in u)  # plan order within a unit
    groups = {(r.dataset.label, r.models, r.rep) for r in runs}
    if len(groups) >= 2 * workers:  # enough groups: a unit is exactly one group
        assert len(units) == len(groups)
        assert all(len({(r.dataset.label, r.models, r.rep) for r in u}) == 1 for u in units)
    else:  # too few: groups are cut, never mixed, into at least 2 x workers units (or one per run)
        assert all(len({(r.dataset.label, r.models, r.rep) for r in u}) == 1 for u in units)
        assert len(units) >= min(2 * workers, len(runs))


def test_parallel_runs_of_a_repetition_share_one_process_and_its_memo(tmp_path):
    """Regression: sent one by one, the runs of a (model, repetition) spread over the worker processes,
    and each process computed what they share (the lambda search, rule set A) again."""
    c = parse_config({"name": "w", "method": "worker", "params": {"k": list(range(6))}, "datasets": ["breast_cancer"],
                      "repetitions": 4})
    rep = run_experiment(c, out_dir=tmp_path, n_jobs=2, progress=False)
    df = read_results(tmp_path)
    assert rep.n_ok == 24
    by_rep = df.groupby("rep")
    assert (by_rep.pid.nunique() == 1).all() and (df.memo_pid == df.pid).all()
