"""The coverage benchmark script stays runnable and its two paths agree (no timing asserted)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_coverage.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/bench_coverage.py not present")
def test_bench_coverage_small_run(capsys):
    spec = importlib.util.spec_from_file_location("bench_coverage_script", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--samples", "300", "--columns", "12", "--rules", "40", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "results equal: True" in out and "speed-up" in out
