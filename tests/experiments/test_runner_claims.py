"""Run claims: processes sharing an output directory split the runs; stale claims are taken over."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from interpretopt.experiments._claims import ClaimBook, claim_is_stale
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.results import read_results
from interpretopt.experiments.runner import plan_runs, run_experiment

ROOT = Path(__file__).resolve().parents[2]
TASK = "tests.experiments.test_runner_claims:counting_task"


def counting_task(ctx) -> dict:
    """Appends the run's name to ``<out>/computed.log`` (one line per computation); the first run of a
    process waits (bounded) for ``<out>/go``, so that the processes of a test overlap."""
    out = ctx.out_dir
    go = out / "go"
    deadline = time.monotonic() + 120
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(float(ctx.params.get("pause", 0.02)))
    with open(out / "computed.log", "a") as fh:
        fh.write(ctx.run_name + "\n")
    return {"pid": os.getpid()}


def _config(reps: int = 6, pause: float = 0.02, **extra):
    return parse_config({"name": "claims", "method": TASK, "params": {"k": [1, 2, 3, 4], "pause": pause},
                         "datasets": ["breast_cancer"], "repetitions": reps, **extra}, allow_import=True)


def _computed(out: Path) -> list[str]:
    log = out / "computed.log"
    return log.read_text().split() if log.is_file() else []


SCRIPT = textwrap.dedent("""
    import json, os, sys
    sys.path.insert(0, {root!r})
    from interpretopt.experiments.config import parse_config
    from interpretopt.experiments.runner import run_experiment
    cfg = parse_config({raw!r}, allow_import=True)
    open(os.path.join({out!r}, "ready-%d" % os.getpid()), "w").close()
    rep = run_experiment(cfg, out_dir={out!r}, progress=False, n_jobs={n_jobs})
    print(json.dumps({{"ok": rep.n_ok, "elsewhere": rep.n_claimed_elsewhere, "skipped": rep.n_skipped,
                      "summary": rep.summary()}}))
""")


def _raw(reps: int, pause: float) -> dict:
    return {"name": "claims", "method": TASK, "params": {"k": [1, 2, 3, 4], "pause": pause},
            "datasets": ["breast_cancer"], "repetitions": reps}


def _start(out: Path, raw: dict, n_jobs: int = 1) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = SCRIPT.format(root=str(ROOT), raw=raw, out=str(out), n_jobs=n_jobs)
    return subprocess.Popen([sys.executable, "-c", code], cwd=str(ROOT), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for(predicate, limit: float = 180.0) -> None:
    end = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting for the subprocesses to start")
        time.sleep(0.05)


@pytest.mark.parametrize("jobs", [(1, 1), (1, 2)], ids=["serial+serial", "serial+parallel"])
def test_two_processes_on_one_folder_compute_each_run_once(tmp_path, jobs):
    out = tmp_path / "out"
    out.mkdir()
    raw = _raw(reps=6, pause=0.03)
    procs = [_start(out, raw, n_jobs=j) for j in jobs]
    _wait_for(lambda: len(list(out.glob("ready-*"))) == 2 or any(p.poll() is not None for p in procs))
    (out / "go").touch()
    reports = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=600)
        assert p.returncode == 0, stderr[-2000:]
        reports.append(json.loads(stdout.strip().splitlines()[-1]))
    names = _computed(out)
    planned = {r.name for r in plan_runs(_config(reps=6, pause=0.03))}
    assert sorted(names) == sorted(planned), "each run computed exactly once in total"
    assert sum(r["ok"] for r in reports) == len(planned)
    df = read_results(out)
    assert len(df) == len(planned) and (df["run_status"] == "ok").all()
    assert not list((out / "claims").glob("*.claim"))  # every claim released
    for r in reports:  # what one process left to the other is said in its summary line
        if r["elsewhere"]:
            assert f"{r['elsewhere']} claimed by another process" in r["summary"]


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _plant_claim(out: Path, key: str, host: str, pid: int, started: float) -> Path:
    d = out / "claims"
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{key}.claim"
    path.write_text(json.dumps({"host": host, "pid": pid, "started": started}))
    return path


def test_a_live_claim_is_left_to_its_process_and_said_in_the_summary(tmp_path):
    cfg = _config(reps=1)
    (tmp_path / "go").touch()
    runs = plan_runs(cfg)
    _plant_claim(tmp_path, runs[0].key, socket.gethostname(), os.getpid(), time.time())
    rep = run_experiment(cfg, out_dir=tmp_path, progress=False)
    assert (rep.n_ok, rep.n_claimed_elsewhere) == (3, 1)
    assert "4 runs: 0 already done, 1 claimed by another process, 3 ok" in rep.summary()
    assert runs[0].name not in _computed(tmp_path)
    assert (tmp_path / "claims" / f"{runs[0].key}.claim").exists()  # not ours to remove


@pytest.mark.parametrize("whose", ["dead pid, this host", "old, other host", "old, live pid"])
def test_a_stale_claim_is_taken_over(tmp_path, whose):
    cfg = _config(reps=1)
    (tmp_path / "go").touch()
    runs = plan_runs(cfg)
    host, pid, started = {"dead pid, this host": (socket.gethostname(), _dead_pid(), time.time()),
                          "old, other host": ("elsewhere.invalid", 1, time.time() - 7200),
                          "old, live pid": (socket.gethostname(), os.getpid(), time.time() - 7200)}[whose]
    _plant_claim(tmp_path, runs[0].key, host, pid, started)
    rep = run_experiment(cfg, out_dir=tmp_path, progress=False, claim_max_age=3600)
    assert (rep.n_ok, rep.n_claimed_elsewhere) == (4, 0)
    assert sorted(_computed(tmp_path)) == sorted(r.name for r in runs)
    assert not list((tmp_path / "claims").glob("*"))


def test_a_recent_claim_of_another_host_is_not_taken_over(tmp_path):
    path = _plant_claim(tmp_path, "k", "elsewhere.invalid", 1, time.time())
    book = ClaimBook(tmp_path, max_age=3600)
    assert not claim_is_stale(json.loads(path.read_text()), path, 3600)
    assert book.claim("k") is False and book.claim("other") is True
    assert claim_is_stale(json.loads(path.read_text()), path, 3600, now=time.time() + 3601)
    book.release_all()
    assert sorted(p.name for p in (tmp_path / "claims").iterdir()) == ["k.claim"]


def test_two_claim_books_never_both_hold_a_run(tmp_path):
    a, b = ClaimBook(tmp_path), ClaimBook(tmp_path)
    got = [(a.claim(f"r{i}"), b.claim(f"r{i}")) for i in range(20)]
    assert all(x != y for x, y in got)  # exactly one of the two, every time
    a.release_all()
    assert all(b.claim(f"r{i}") for i in range(20))  # released runs can be claimed again
