"""The same config gives the same rows on a machine ten times slower (an injected slow clock).

Every limit that shapes a result is a work limit (nodes, iterations, sampler evaluations);
wall-clock limits are safety nets that read :mod:`interpretopt._clock`. Running a smoke-size
config in this process with :func:`~interpretopt._clock.slowed_clock` (every safety net
then fires ten times sooner, in real seconds) and without must give identical rows in every
column except timings. A config whose result a wall-clock limit shapes fails this test: the
last test shows the comparison catching one.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from interpretopt._clock import Deadline, slowed_clock, use_clock
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.results import read_results
from interpretopt.experiments.runner import clear_caches, run_experiment

#: columns that differ between two runs of the same work: timings and bookkeeping
_TIMING_SUFFIXES = ("seconds", "_time", "_at")
_BOOKKEEPING = {"worker", "pid", "host", "run_id", "out_dir", "warnings", "traceback", "message"}

#: a fixed safety net: far above what these runs need, so it never fires on the real clock
SAFETY = {"time_limit": 600.0}


def _configs() -> list[dict]:
    """Smoke-size configs of ABBR (rule list with its certificate, the MILP baseline), CRL
    (CRL, CORELS, SBRL), MTRE-PAN / TRE-PAN and IMD (joint and separate surrogate trees)."""
    return [
        {"name": "det_abbr",
         "methods": [
             {"method": "abbr", "params": {"mode": "rule_list", "L": 3, "M": 3, "n_iter": 60, "certify": True}},
             {"method": "abbr", "params": {"mode": "baseline", "M": 2, "k": 2, "n_seeds": 2, "n_iter": 30,
                                           "max_rows": 100}},
         ],
         "datasets": [{"name": "breast_cancer", "max_rows": 300}], "models": ["RF1"],
         "settings": {"node_limit": 200, **SAFETY, "threads": 1}},
        {"name": "det_crl",
         "methods": [
             {"method": "crl", "params": {"learner": "crl", "alpha": 0.002, "n_iter": 200, "oof_folds": 2,
                                          "max_card": 1}},
             {"method": "crl", "params": {"learner": "corels", "corels_policies": [["curious"]],
                                          "corels_max_nodes": [[200]], "max_card": 1}},
             {"method": "crl", "params": {"learner": "sbrl", "sbrl_lams": [[3]], "sbrl_chains": [[1]],
                                          "sbrl_n_iter": 60, "max_card": 1}},
         ],
         "datasets": [{"name": "breast_cancer", "max_rows": 200}], "models": ["DT1"]},
        {"name": "det_mtrepan", "method": "mtrepan",
         "params": {"variant": ["mtrepan", "trepan"], "depth": [2, 4], "grow_depth": 4, "evaluation": "paper",
                    "eval_fraction": 0.5, "test_size": 0, "cutoff_variance": 1.0e-3, "batch_size": 200,
                    "C": 10.0, "boundary_estimates": False, "trepan_splitter": "svm_1d", "radius": 1.0},
         "datasets": [{"name": "circle", "options": {"n_samples": 300, "half_width": 3.0, "random_state": 0}}],
         "settings": {**SAFETY, "threads": 1}},
        {"name": "det_imd", "method": "imd", "params": {"variant": ["imd", "separate"], "max_depth": [3]},
         "datasets": [{"name": "breast_cancer", "max_rows": 300}], "pairs": {"list": [["RF1", "GNB"]]}},
    ]


def _shaping_columns(df: pd.DataFrame) -> list[str]:
    def timing(c: str) -> bool:
        if c == "limited_by_time":  # a flag, not a timing: it must not differ either
            return False
        return c.endswith(_TIMING_SUFFIXES) or c.startswith("time_") or "cpu" in c

    return sorted(c for c in df.columns if c not in _BOOKKEEPING and not timing(c))


def _rows(raw: dict, out) -> pd.DataFrame:
    # allow_import: the clock-shaped task below is this module's function
    cfg = parse_config({"repetitions": 1, "seed": 0, **raw}, allow_import=":" in str(raw.get("method", "")))
    clear_caches()  # every run computes again on the clock it is given: no memoized tree, pool or black box
    report = run_experiment(cfg, out_dir=out, progress=False)
    df = read_results(out)
    assert report.n_failed == 0, df.get("error")
    return df.sort_values("run_name" if "run_name" in df.columns else list(df.columns[:3])).reset_index(drop=True)


def differences(a: pd.DataFrame, b: pd.DataFrame) -> list[str]:
    """Every (run, column) whose value differs between two result tables, timings excluded."""
    cols = _shaping_columns(a)
    if cols != _shaping_columns(b) or len(a) != len(b):
        return [f"columns or rows differ: {set(cols) ^ set(_shaping_columns(b))}, {len(a)} vs {len(b)} rows"]
    out = []
    for c in cols:
        for i, (x, y) in enumerate(zip(a[c], b[c])):
            same = (x == y) or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))
            if not same and not (pd.isna(x) and pd.isna(y)):
                out.append(f"row {i} column {c}: {x!r} != {y!r}")
    return out


@pytest.mark.parametrize("raw", _configs(), ids=lambda r: r["name"])
def test_a_slowed_clock_gives_identical_rows(raw, tmp_path):
    normal = _rows(raw, tmp_path / "normal")
    with slowed_clock(10):
        slow = _rows(raw, tmp_path / "slow")
    compared = _shaping_columns(normal)
    assert {"limited_by_time", "run_status"} <= set(compared) and len(compared) > 15
    assert differences(normal, slow) == []
    assert "limited_by_time" in normal.columns and not normal["limited_by_time"].astype(bool).any()


def clock_shaped(ctx) -> dict:
    """A task whose result a wall-clock limit shapes: it counts work until 20 ms pass (or 10^6 steps)."""
    deadline = Deadline(0.02)
    steps = 0
    while steps < 10**6 and not deadline.expired():
        steps += 1
    return {"steps": steps, "limited_by_time": deadline.hit}


def _ticking():
    """A clock that advances 1 ms per reading: time passing, independent of the machine's speed."""
    now = [0.0]

    def clock() -> float:
        now[0] += 0.001
        return now[0]

    return clock


def test_the_comparison_catches_a_result_shaped_by_a_wall_clock_limit(tmp_path):
    raw = {"name": "det_clock", "method": f"{__name__}:clock_shaped", "datasets": ["breast_cancer"]}
    with use_clock(_ticking()):
        normal = _rows(raw, tmp_path / "normal")
    with use_clock(_ticking()), slowed_clock(10):
        slow = _rows(raw, tmp_path / "slow")
    found = differences(normal, slow)
    assert any("column steps" in d for d in found), found
    assert bool(normal["limited_by_time"].iloc[0]) and bool(slow["limited_by_time"].iloc[0])
    assert slow["steps"].iloc[0] < normal["steps"].iloc[0] <= 20
