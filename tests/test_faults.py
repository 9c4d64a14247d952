"""Faults while running a small config: killed processes (SIGKILL, SIGTERM, Ctrl-C), corrupt row files,
a full, read-only or unusable output directory, and a Dask cluster that loses its workers.

After each fault the same command is run again; the tests count the runs lost (planned but never
stored) and the runs computed twice (a computation finished twice), and check the message a user
sees: one line, no traceback, no temporary files left behind.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from interpretopt.cli import main
from interpretopt.experiments import runner as R
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.results import read_results
from interpretopt.experiments.runner import OutputError, plan_runs, run_experiment

ROOT = Path(__file__).resolve().parents[1]
TASK = "tests.test_faults:logged_task"


HOLD_AT = 4  # the process's 4th run to start waits (see logged_task) until the test has killed it


def logged_task(ctx) -> dict:
    """Appends the run's name to ``<out>/computed.log`` when done.

    In a process started with ``INTERPRETOPT_TEST_HOLD=1``, the ``HOLD_AT``-th run to start writes
    ``<out>/holding`` and waits there (a 300 s safety net), so a test kills the process mid-run
    whatever the machine's speed or load, never after the last run.
    """
    started = ctx.out_dir / f"started-{os.getpid()}.log"
    with open(started, "a") as fh:
        fh.write(ctx.run_name + "\n")
    if os.environ.get("INTERPRETOPT_TEST_HOLD") == "1" and len(started.read_text().split()) == HOLD_AT:
        (ctx.out_dir / "holding").write_text(ctx.run_name)
        end = time.monotonic() + 300
        while time.monotonic() < end:
            time.sleep(0.05)
    with open(ctx.out_dir / "computed.log", "a") as fh:
        fh.write(ctx.run_name + "\n")
    return {"value": int(ctx.params.get("k", 0)) * 10 + ctx.rep}


CONFIG = f"""\
name: faults
method: "{TASK}"
params: {{k: [1, 2, 3]}}
datasets: [breast_cancer]
repetitions: 4
"""


def _write_config(tmp_path: Path) -> Path:
    path = tmp_path / "faults.yaml"
    path.write_text(CONFIG)
    return path


def _planned(cfg_path: Path) -> set[str]:
    from interpretopt.experiments.config import load_config

    return {r.name for r in plan_runs(load_config(cfg_path, allow_import=True))}


def _counts(out: Path, planned: set[str]) -> tuple[int, int]:
    """(runs lost, runs computed twice) after the rerun."""
    df = read_results(out)
    stored = set(df.loc[df["run_status"] == "ok", "run_name"])
    log = out / "computed.log"
    done = Counter(log.read_text().split()) if log.is_file() else Counter()
    return len(planned - stored), sum(1 for n in planned if done[n] > 1)


def _leftovers(out: Path) -> list[Path]:
    return [p for p in out.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=["SIGKILL", "SIGTERM", "SIGINT"])
def test_killed_mid_run_then_rerun_loses_nothing(tmp_path, sig):
    cfg = _write_config(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "INTERPRETOPT_TEST_HOLD": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "interpretopt", "run", str(cfg), "--allow-import", "--quiet",
                             "--out", str(out)], cwd=str(ROOT), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    holding = out / "holding"
    end = time.monotonic() + 300  # a safety net only: the 4th run waits until it is killed
    while not holding.is_file() and proc.poll() is None:
        assert time.monotonic() < end, "the run did not start"
        time.sleep(0.02)
    assert proc.poll() is None, "the process ended before its 4th run"
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode != 0
    if sig == signal.SIGINT:
        assert "Traceback" not in stderr and "interrupted" in stderr
    planned = _planned(cfg)
    assert 0 < len(read_results(out)) < len(planned)  # killed mid-run, with runs stored
    assert main(["run", str(cfg), "--allow-import", "--quiet", "--out", str(out)]) == 0
    lost, twice = _counts(out, planned)
    assert lost == 0
    assert twice <= 1  # at most the run in flight when killed (finished, not yet stored)
    assert not list((out / "claims").glob("*.claim")) and not _leftovers(out)


def test_corrupt_and_truncated_row_files_are_recomputed(tmp_path):
    cfg_path = _write_config(tmp_path)
    out = tmp_path / "out"
    assert main(["run", str(cfg_path), "--allow-import", "--quiet", "--out", str(out)]) == 0
    files = sorted((out / "runs").glob("*.json"))
    files[0].write_text("{not json")
    files[1].write_bytes(files[1].read_bytes()[:40])
    files[2].write_text("[1, 2, 3]")
    files[3].write_bytes(b"\xff\xfe\x00garbage")
    rep = run_experiment(parse_config(_yaml(cfg_path), allow_import=True), out_dir=out, progress=False)
    assert rep.n_ok == 4 and rep.n_skipped == len(files) - 4
    lost, twice = _counts(out, _planned(cfg_path))
    assert lost == 0 and twice == 4  # exactly the four whose rows were destroyed


def _yaml(path: Path) -> dict:
    import yaml

    return yaml.safe_load(path.read_text())


class _FailingReplace:
    """``os.replace`` that writes ``ok`` run rows (files under ``runs/``), then fails with ``err`` on every
    write (a disk that fills up or turns read-only); other files before that are written as usual."""

    def __init__(self, ok: int, err: int) -> None:
        self.ok, self.err, self.real = ok, err, os.replace

    def __call__(self, src, dst, *a, **k):
        if self.ok <= 0:
            raise OSError(self.err, os.strerror(self.err), str(dst))
        if Path(dst).parent.name == "runs":
            self.ok -= 1
        return self.real(src, dst, *a, **k)


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EROFS], ids=["disk full", "read-only"])
def test_output_becoming_unwritable_ends_in_one_line_and_keeps_finished_runs(tmp_path, monkeypatch, capsys, err):
    cfg_path = _write_config(tmp_path)
    out = tmp_path / "out"
    # 5 rows; the 6th row cannot be written
    monkeypatch.setattr(os, "replace", _FailingReplace(5, err))
    code = main(["run", str(cfg_path), "--allow-import", "--quiet", "--out", str(out)])
    monkeypatch.undo()
    stderr = capsys.readouterr().err.strip()
    assert code == 2 and "Traceback" not in stderr and len(stderr.splitlines()) == 1, stderr
    assert os.strerror(err) in stderr and str(out) in stderr and "5 of 12 runs are stored" in stderr
    assert len(read_results(out)) == 5 and not _leftovers(out)
    assert not list((out / "claims").glob("*.claim"))
    rep = run_experiment(parse_config(_yaml(cfg_path), allow_import=True), out_dir=out, progress=False)
    assert (rep.n_skipped, rep.n_ok) == (5, 7)


def test_an_output_directory_that_cannot_be_created_is_one_line(tmp_path, capsys):
    cfg_path = _write_config(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code = main(["run", str(cfg_path), "--allow-import", "--quiet", "--out", str(blocker / "out")])
    stderr = capsys.readouterr().err.strip()
    assert code == 2 and len(stderr.splitlines()) == 1 and "cannot write the output directory" in stderr, stderr
    assert "0 of ? runs" in stderr or "0 of 12 runs" in stderr


def test_consolidation_failure_removes_its_temporary_file(tmp_path, monkeypatch):
    from interpretopt.experiments import results as RS

    cfg = parse_config(_yaml(_write_config(tmp_path)), allow_import=True)
    out = tmp_path / "out"
    run_experiment(cfg, out_dir=out, progress=False)

    def full(df, path):
        Path(path).write_bytes(b"PAR1 half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(RS, "_to_parquet", full)
    with pytest.raises(OutputError, match=r"cannot write results.parquet .*No space left.*12 of 12 runs"):
        run_experiment(cfg, out_dir=out, progress=False, force=True)
    assert not _leftovers(out)


@pytest.mark.skipif(os.environ.get("INTERPRETOPT_SKIP_DASK") == "1", reason="Dask tests disabled")
def test_a_dask_cluster_without_workers_stops_with_a_message(tmp_path):
    distributed = pytest.importorskip("distributed")
    cfg = parse_config({"name": "d", "method": "sleep", "params": {"seconds": 0.2}, "datasets": ["breast_cancer"],
                        "repetitions": 12})
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        import threading

        def retire():
            while not list((tmp_path / "runs").glob("*.json")):
                time.sleep(0.02)
            client.retire_workers(close_workers=True)

        threading.Thread(target=retire, daemon=True).start()
        with pytest.raises(Exception) as info:
            run_experiment(cfg, out_dir=tmp_path, scheduler=client, scheduler_timeout=1.0, progress=False,
                           batch_size=1)
    assert type(info.value).__name__ in ("InterpretoptError",), repr(info.value)
    assert "has had no worker for 1 s (--scheduler-timeout)" in str(info.value), str(info.value)
    assert len(read_results(tmp_path)) >= 1  # what finished before is stored
    assert not list((tmp_path / "claims").glob("*.claim"))
    R.clear_caches()


@pytest.mark.skipif(os.environ.get("INTERPRETOPT_SKIP_DASK") == "1", reason="Dask tests disabled")
def test_a_lost_dask_scheduler_is_a_clear_message(tmp_path):
    distributed = pytest.importorskip("distributed")
    cfg = parse_config({"name": "d", "method": "sleep", "params": {"seconds": 0.2}, "datasets": ["breast_cancer"],
                        "repetitions": 12})
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        import threading

        def stop_scheduler():
            while not list((tmp_path / "runs").glob("*.json")):
                time.sleep(0.02)
            cluster.close()

        threading.Thread(target=stop_scheduler, daemon=True).start()
        with pytest.raises(Exception) as info:
            run_experiment(cfg, out_dir=tmp_path, scheduler=client, scheduler_timeout=1.0, progress=False,
                           batch_size=1)
    finally:
        client.close()
        cluster.close()
    assert type(info.value).__name__ == "InterpretoptError", repr(info.value)
    assert "Cancelled" not in type(info.value).__name__
    assert "lost the Dask scheduler" in str(info.value) or "no worker" in str(info.value), str(info.value)
    assert len(read_results(tmp_path)) >= 1
