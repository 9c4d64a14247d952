"""Nothing read from an output directory runs code; caches are verified; row files are checked against
their names; plans are counted (and capped) before they are built; n_jobs is validated."""

from __future__ import annotations

import json
import os
import pickle
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest

from interpretopt.exceptions import InputError
from interpretopt.experiments import runner as R
from interpretopt.experiments._datacache import CacheWarning, load_arrays, load_json, save_arrays, save_json
from interpretopt.experiments._plansize import PlanTooLargeError, count_runs
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.results import RowKeyWarning, read_results
from interpretopt.experiments.runner import plan_runs, run_experiment


class _Planted:
    """Unpickling this touches ``marker``: the proof that a cache file was executed."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _plant(path: Path, marker: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(_Planted(marker)))


def _metrics(df, drop=("wall_time", "cpu_time", "started_at", "finished_at", "warnings", "fit_seconds", "host",
                       "time_pool", "time_pool_shared", "time_conditions", "time_search", "time_blackbox",
                       "blackbox_seconds", "time_certify")):
    cols = sorted(c for c in df.columns if c not in drop and not c.startswith("time") and "seconds" not in c)
    return df.sort_values("run_key")[cols].reset_index(drop=True)


ABBR = {"name": "abbr-cache", "method": "abbr", "models": ["DT1"],
        "params": {"mode": "rule_list", "L": 2, "M": 2, "n_iter": 20, "s": 0.2},
        "datasets": [{"name": "breast_cancer", "max_rows": 120}]}
PAIRS = {"name": "pairs-cache", "method": "dummy_tree", "params": {"max_depth": 2},
         "datasets": [{"name": "breast_cancer", "max_rows": 150}],
         "pairs": {"candidates": ["DT1", "GNB", "LR"], "select": "max_min_accuracy_gap"}}


@pytest.mark.parametrize("raw", [ABBR, PAIRS], ids=["abbr-scores", "pairs-and-blackboxes"])
def test_planted_pickles_in_every_cache_location_never_run(raw, tmp_path):
    """A pickle whose __reduce__ writes a marker, planted in each former and current cache location:
    nothing runs, the cache is ignored with a warning, and the rerun gives the same rows."""
    cfg = parse_config(raw)
    out, marker = tmp_path / "out", tmp_path / "EXECUTED"
    R.clear_caches()
    assert run_experiment(cfg, out_dir=out, progress=False).n_failed == 0
    first = _metrics(read_results(out))
    current = [p for d in ("abbr-cache", "pairs") for p in (out / d).glob("*") if p.is_file()]
    assert current, "the config writes a cache"
    for p in current:  # the new caches (npz, JSON) and their former pickle names
        _plant(p, marker)
        _plant(p.with_suffix(".pkl"), marker)
    for label in ("breast_cancer",):  # the former black-box cache: every name the old runner read
        for m in ("DT1", "GNB", "LR"):
            _plant(out / "blackbox" / f"{m}-{label}.joblib", marker)
    R.clear_caches()  # a new process: nothing in memory
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rep = run_experiment(cfg, out_dir=out, progress=False, force=True)
    assert not marker.exists(), "a planted pickle was executed"
    assert rep.n_ok == len(first)
    second = read_results(out)
    # the warning: raised at planning (pairs), or recorded in the run's row (a task's cache)
    said = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    said += [w for w in second["warnings"].dropna() if "CacheWarning: ignoring cache file" in w]
    assert said, "an ignored cache file is reported"
    assert _metrics(second).equals(first)


def test_no_unpickling_anywhere_in_a_run(tmp_path, monkeypatch):
    """The runner and the tasks never call an unpickler while they read an output directory."""
    calls = []

    def refuse(*a, **k):
        calls.append(a)
        raise AssertionError("unpickling during a run")

    import joblib

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(joblib, "load", refuse)
    cfg = parse_config(ABBR)
    R.clear_caches()
    run_experiment(cfg, out_dir=tmp_path, progress=False)
    R.clear_caches()
    rep = run_experiment(cfg, out_dir=tmp_path, progress=False, force=True)  # reads the caches written above
    assert rep.n_ok == 1 and calls == []


def test_array_cache_refuses_wrong_altered_and_object_files(tmp_path):
    path = tmp_path / "c.npz"
    a = {"search": np.arange(5.0), "test": np.linspace(0, 1, 3)}
    assert save_arrays(path, "k1", a)
    np.testing.assert_array_equal(load_arrays(path, "k1")["search"], a["search"])
    with pytest.warns(CacheWarning, match="content hash"):
        assert load_arrays(path, "k2") is None  # another key's file (copied or renamed)
    with np.load(path) as z:  # altered values under the old digest
        doc = {k: z[k] for k in z.files}
    doc["search"] = doc["search"] + 1
    np.savez(path, **doc)
    with pytest.warns(CacheWarning, match="content hash"):
        assert load_arrays(path, "k1") is None
    np.savez(path, search=np.array([object()], dtype=object), allow_pickle=True)  # a pickle inside an npz
    with pytest.warns(CacheWarning, match="not a data file"):
        assert load_arrays(path, "k1") is None
    with pytest.raises(TypeError, match="dtype object"):
        save_arrays(path, "k1", {"x": np.array([{}], dtype=object)})
    j = tmp_path / "c.json"
    assert save_json(j, "k", {"a": 0.5})
    assert load_json(j, "k") == {"a": 0.5}
    doc = json.loads(j.read_text())
    doc["payload"]["a"] = 0.9
    j.write_text(json.dumps(doc))
    with pytest.warns(CacheWarning):
        assert load_json(j, "k") is None


def _noop(reps=2, **extra):
    return parse_config({"name": "n", "method": "noop", "params": {"k": [1, 2]}, "datasets": ["breast_cancer"],
                         "repetitions": reps, **extra})


def test_a_copied_row_file_is_ignored_and_its_run_recomputed(tmp_path):
    cfg = _noop()
    assert run_experiment(cfg, out_dir=tmp_path, progress=False).n_ok == 4
    a, b = sorted((tmp_path / "runs").glob("*.json"))[:2]
    b.write_text(a.read_text())  # runs/A.json copied over runs/B.json
    with pytest.warns(RowKeyWarning, match=f"not of run {b.stem}"):
        rep = run_experiment(cfg, out_dir=tmp_path, progress=False)
    assert (rep.n_skipped, rep.n_ok) == (3, 1)  # B computed again, A not counted twice
    df = read_results(tmp_path)
    assert len(df) == 4 and df["run_key"].is_unique
    assert json.loads(b.read_text())["run_key"] == b.stem


def test_plan_size_is_counted_without_building_it():
    cfg = _noop(reps=3, models=["DT1", "GNB"])
    assert count_runs(cfg) == len(plan_runs(cfg)) == 2 * 2 * 3
    pairs = parse_config({**PAIRS, "repetitions": 2})
    assert count_runs(pairs) == 2 * 2  # at most the max and the min pair


def test_a_billion_repetitions_is_refused_before_memory_is_spent(tmp_path, monkeypatch):
    cfg = _noop(reps=1_000_000_000)
    monkeypatch.delenv("INTERPRETOPT_MAX_RUNS", raising=False)
    tracemalloc.start()
    try:
        with pytest.raises(PlanTooLargeError, match=r"2,000,000,000 runs.*limit of 100,000.*--max-runs"):
            run_experiment(cfg, out_dir=tmp_path, progress=False)
        with pytest.raises(PlanTooLargeError):
            plan_runs(cfg)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000  # bytes: nothing per run was built
    assert not (tmp_path / "runs").exists()
    monkeypatch.setenv("INTERPRETOPT_MAX_RUNS", "3")
    with pytest.raises(PlanTooLargeError, match="limit of 3 runs"):
        plan_runs(_noop(reps=2))
    assert len(plan_runs(_noop(reps=2), max_runs=4)) == 4
    with pytest.raises(InputError, match="positive number of runs"):
        plan_runs(_noop(), max_runs=0)


def test_a_ten_million_point_grid_is_refused_at_load_without_expanding(monkeypatch):
    monkeypatch.delenv("INTERPRETOPT_MAX_RUNS", raising=False)
    axes = {k: list(range(10)) for k in "abcdefg"}
    tracemalloc.start()
    try:
        with pytest.raises(Exception, match=r"10,000,000 points.*--max-runs"):
            parse_config({"name": "g", "method": "imd", "params": {"max_depth": list(range(1, 11)),
                                                                   **dict(list(axes.items())[:6])},
                          "datasets": ["breast_cancer"]})
        cfg = parse_config({"name": "g", "method": "noop", "params": axes, "datasets": ["breast_cancer"]},
                           max_runs=10**8)
        with pytest.raises(PlanTooLargeError, match="10,000,000 runs"):
            plan_runs(cfg)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000


@pytest.mark.parametrize("n_jobs", [0, -2, -5, 1.5, True, "2", None])
def test_n_jobs_positive_or_minus_one(n_jobs, tmp_path):
    with pytest.raises(InputError, match=r"n_jobs must be a number of worker processes >= 1, or -1"):
        run_experiment(_noop(), out_dir=tmp_path, n_jobs=n_jobs, progress=False)
    assert not (tmp_path / "runs").exists()


def test_artifact_names_stay_inside(tmp_path):
    from interpretopt.experiments.results import ResultStore

    store = ResultStore(tmp_path / "out")
    store.write({"run_key": "abc", "run_status": "ok"}, {"..": "x", "../../up": "y", ".hidden": "z"})
    files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert all(f.startswith(os.path.join("out", "")) for f in files), files
    assert not (tmp_path / "up").exists()


def test_pairs_cache_with_an_escaping_label_stays_inside(tmp_path):
    cfg = parse_config({**PAIRS, "datasets": [{"name": "breast_cancer", "max_rows": 150, "label": ".."}]})
    R.clear_caches()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan_runs(cfg, out_dir=tmp_path / "a" / "b")
    written = [p for p in tmp_path.rglob("*.json")]
    assert written and all((tmp_path / "a" / "b" / "pairs") in p.parents for p in written)
