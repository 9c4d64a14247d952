"""What a run prints while it runs: the plan line and the progress lines off a terminal (injected clock)."""

from __future__ import annotations

import io
import itertools

from interpretopt._clock import use_clock
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.progress import Estimate, LineProgress, format_seconds, plan_line, progress_bar
from interpretopt.experiments.runner import run_experiment


class _Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_lines_every_n_seconds_with_an_eta():
    clock, out = _Clock(), io.StringIO()
    with use_clock(clock):
        p = LineProgress("exp", 10, every_s=30, every_runs=100, stream=out)
        for i in range(10):
            clock.t += 10.0  # each run takes 10 s: a line after every third run
            p.set_postfix(ok=i + 1, failed=0)
            p.update(1)
        p.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "exp: 3/10 runs (3 ok, 0 failed), 30 s, ETA 70 s"
    assert lines[1] == "exp: 6/10 runs (6 ok, 0 failed), 60 s, ETA 40 s"
    assert lines[2] == "exp: 9/10 runs (9 ok, 0 failed), 90 s, ETA 10 s"
    assert lines[3] == "exp: 10/10 runs (10 ok, 0 failed), 100 s"  # the end, once a line was printed
    assert len(lines) == 4


def test_lines_every_n_runs_and_silence_for_a_short_experiment():
    clock, out = _Clock(), io.StringIO()
    with use_clock(clock):
        p = LineProgress("exp", 4, every_s=30, every_runs=2, stream=out)
        for _ in range(4):
            clock.t += 1.0
            p.update(1)
        p.close()
        assert out.getvalue().splitlines() == ["exp: 2/4 runs, 2 s, ETA 2 s", "exp: 4/4 runs, 4 s"]
        quiet = io.StringIO()
        p = LineProgress("exp", 4, every_s=30, stream=quiet)  # default: every 10 runs at least
        for _ in range(4):
            clock.t += 1.0
            p.update(1)
        p.close()
    assert quiet.getvalue() == ""


def test_progress_bar_choice(monkeypatch):
    assert progress_bar("x", 5, False) is None
    assert progress_bar("x", 0, True) is None
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert isinstance(progress_bar("x", 5, None), LineProgress)


def test_plan_line():
    est = Estimate(2.0, "CPU per run measured at smoke scale")
    assert plan_line("t1", "smoke", 100, 40, est, 2) == (
        "t1 (smoke scale): 100 runs, 40 already done; estimated 60 s on 2 workers (2.00 s per run, CPU per run "
        "measured at smoke scale)")
    assert plan_line("t1", "full", 3, 0, Estimate(None, "no measured cost of x at full scale")) == (
        "t1 (full scale): 3 runs, 0 already done; no time estimate (no measured cost of x at full scale)")
    assert format_seconds(59) == "59 s" and format_seconds(600) == "10 min" and format_seconds(9000) == "2.5 h"


def test_the_runner_prints_progress_lines_off_a_terminal(tmp_path, capsys):
    """Off a terminal (pytest's captured stderr) the runner prints a line every 30 s of its clock."""
    cfg = parse_config({"name": "lines", "method": "noop", "params": {"k": [1, 2, 3]},
                        "datasets": [{"name": "breast_cancer", "max_rows": 60}]})
    ticks = itertools.count(0.0, 31.0)  # every reading of the clock is 31 s after the last
    with use_clock(lambda: next(ticks)):
        rep = run_experiment(cfg, out_dir=tmp_path, progress=None)
    assert rep.n_ok == 3
    err = capsys.readouterr().err
    assert "lines: 1/3 runs (1 ok, 0 failed)" in err and "ETA" in err and "lines: 3/3 runs (3 ok, 0 failed)" in err
