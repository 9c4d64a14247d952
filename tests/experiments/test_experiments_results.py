"""Results store: atomic row files, consolidation to Parquet with mixed columns, read back."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from interpretopt.experiments.results import RESERVED_COLUMNS, ResultStore, atomic_write_text, read_results


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
