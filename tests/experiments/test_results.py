"""Results store: unreadable row files and the provenance of every row."""

from __future__ import annotations

import json
import math
import platform

import numpy as np
import pandas as pd
import pytest

from interpretopt.experiments.config import parse_config
from interpretopt.experiments.results import (
    RESERVED_COLUMNS,
    ResultStore,
    atomic_write_text,
    checkout_commit,
    git_commit,
    provenance,
    read_results,
)
from interpretopt.experiments.runner import run_experiment


def _cfg():
    return parse_config({"name": "p", "method": "noop", "params": {"k": [1, 2]}, "datasets": ["breast_cancer"]})


def test_rows_record_python_platform_version_and_commit(tmp_path):
    run_experiment(_cfg(), out_dir=tmp_path, progress=False)
    df = read_results(tmp_path)
    for col in ("python_version", "platform", "git_commit", "version_interpretopt"):
        assert col in RESERVED_COLUMNS and col in df.columns
    assert (df["python_version"] == platform.python_version()).all()
    assert (df["platform"] == platform.platform()).all()
    import interpretopt

    assert (df["version_interpretopt"] == interpretopt.__version__).all()
    commit = git_commit()  # a checkout (the test suite runs from one) has a commit; an installed package none
    assert df["git_commit"].isna().all() if commit is None else (df["git_commit"] == commit).all()
    if commit is not None:
        assert len(commit.split("-")[0]) == 40
    assert provenance()["python_version"] == platform.python_version()


def test_commit_is_dirty_only_for_changes_to_what_shapes_results(tmp_path):
    """Regression: the runner writes into ``records/``, which git tracks, so every row of a record run said
    ``<sha>-dirty`` although its code was the commit's."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                       check=True, capture_output=True)

    for rel in ("pyproject.toml", "interpretopt/m.py", "configs/p/t.yaml", "records/full/rows.txt", "README.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("a\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "c")
    sha = checkout_commit(tmp_path)
    assert sha is not None and len(sha) == 40
    for rel in ("records/full/rows.txt", "README.md"):
        (tmp_path / rel).write_text("b\n")
    (tmp_path / "new_untracked.py").write_text("b\n")
    assert checkout_commit(tmp_path) == sha
    for rel in ("interpretopt/m.py", "configs/p/t.yaml", "pyproject.toml"):
        git("checkout", "-q", "--", ".")
        (tmp_path / rel).write_text("b\n")
        assert checkout_commit(tmp_path) == f"{sha}-dirty", rel


def test_a_row_file_holding_other_json_is_run_again_not_a_crash(tmp_path, capsys):
    """Regression: a run file holding valid non-object JSON crashed `run` and `table`."""
    from interpretopt.cli import main

    cfg_path = tmp_path / "p.yaml"
    cfg_path.write_text("name: p\nmethod: noop\nparams: {k: [1, 2]}\ndatasets: [breast_cancer]\n")
    out = tmp_path / "out"
    assert main(["run", str(cfg_path), "--out", str(out), "--quiet"]) == 0
    store = ResultStore(out)
    files = sorted(store.runs_dir.glob("*.json"))
    files[0].write_text("[1, 2, 3]")  # valid JSON, not a row
    files[1].write_text("{not json")
    assert {p.name for p in store.unreadable()} == {files[0].name, files[1].name}
    assert store.statuses() == {} and store.rows() == []
    capsys.readouterr()
    assert main(["run", str(cfg_path), "--out", str(out), "--quiet"]) == 0  # both runs again
    assert "2 ok" in capsys.readouterr().out
    assert len(store.rows()) == 2 and not store.unreadable()
    files[0].write_text(json.dumps("a string"))
    assert main(["table", str(cfg_path), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"1 row file(s) under {out / 'runs'} are not readable result rows" in err and files[0].name in err


# -----------------------------------------------------------------------------
# Results store: atomic row files, consolidation to Parquet with mixed columns, read back.


def _row(key, **kw):
    r = {"run_key": key, "run_name": f"m@d/-/{key}", "config_hash": "h1", "run_status": "ok", "rep": 0}
    r.update(kw)
    return r


def test_write_is_atomic_and_leaves_no_temporaries(tmp_path):
    store = ResultStore(tmp_path)
    store.write(_row("a", f1=np.float64(0.5), n=np.int64(3), bad=float("nan")), {"rules.txt": "x <= 1"})
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["a.json"]
    row = json.loads((tmp_path / "runs" / "a.json").read_text())
    assert row["f1"] == 0.5 and row["n"] == 3 and row["bad"] is None
    assert (tmp_path / "artifacts" / "a" / "rules.txt").read_text() == "x <= 1"
    assert store.status_of("a") == "ok" and store.status_of("zz") is None


def test_atomic_write_keeps_old_content_when_interrupted(tmp_path, monkeypatch):
    path = tmp_path / "f.txt"
    atomic_write_text(path, "old")

    class Boom(Exception):
        pass

    import os

    def fail(*a, **k):
        raise Boom

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(Boom):
        atomic_write_text(path, "new")
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def test_unreadable_row_counts_as_not_run(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "x.json").write_text("{trunc")
    assert ResultStore(tmp_path).status_of("x") is None and ResultStore(tmp_path).statuses() == {}


def test_consolidate_mixed_columns_and_read_back(tmp_path):
    store = ResultStore(tmp_path)
    store.write(_row("a", variant="jst", alpha=0.1, rules=["r1", "r2"], run_status="ok"))
    store.write(_row("b", variant=3, alpha=None, f1=0.7, config_hash="h2"))
    store.write(_row("c", run_status="failed", error="RuntimeError: x"))
    path = store.consolidate()
    pq = pd.read_parquet(path)
    assert len(pq) == 3 and set(pq.run_key) == {"a", "b", "c"}
    assert pq.set_index("run_key").loc["b", "variant"] == "3"  # mixed str/int column stored as text
    df = read_results(tmp_path)
    front = [c for c in RESERVED_COLUMNS if c in df.columns]
    assert list(df.columns[: len(front)]) == front
    assert len(read_results(tmp_path, config_hash="h1")) == 2
    assert read_results(tmp_path, ok_only=True).run_key.tolist() == ["a", "b"]
    assert math.isclose(df.set_index("run_key").loc["b", "f1"], 0.7)


def test_empty_store_reads_as_empty_frame(tmp_path):
    df = read_results(tmp_path / "nothing")
    assert len(df) == 0 and "run_name" in df.columns
    assert ResultStore(tmp_path).consolidate().is_file()
