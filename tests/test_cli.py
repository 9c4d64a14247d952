"""The command line: --version, and configs found from any directory."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import interpretopt
from interpretopt.cli import build_parser, main
from interpretopt.experiments.config import configs_root, find_configs


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as e:
        assert e.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"interpretopt {interpretopt.__version__}") and "Python" in out


def test_configs_ship_with_the_package_and_are_found_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no configs/ here: the package's
    root = configs_root()
    assert root == __import__("pathlib").Path(interpretopt.__file__).resolve().parent / "configs"
    assert (root / "smoke.yaml").is_file() and (root / "imd" / "table1.yaml").is_file()
    assert len(find_configs()) >= 20
    code = "from interpretopt.cli import main; raise SystemExit(main(['list', 'configs']))"
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "imd/table1.yaml" in res.stdout and "smoke.yaml" in res.stdout


def test_package_data_lists_the_configs():
    """The wheel takes the configs (interpretopt/configs) as package data."""
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")

    meta = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    data = meta["tool"]["setuptools"]["package-data"]["interpretopt"]
    assert "configs/*.yaml" in data and "configs/*/*.yaml" in data


def test_readme_config_paths_work_from_another_directory(tmp_path, monkeypatch, capsys):
    """`interpretopt run configs/smoke.yaml` outside the checkout: the shipped config, and which file it was."""
    from interpretopt.experiments.cli_commands import resolve_config_path

    monkeypatch.chdir(tmp_path)
    shipped = configs_root() / "smoke.yaml"
    assert resolve_config_path("configs/smoke.yaml").resolve() == shipped.resolve()
    assert resolve_config_path("smoke").resolve() == shipped.resolve()
    assert main(["plot", "configs/smoke.yaml", "--smoke", "--name", "nope"]) == 2
    err = capsys.readouterr().err
    assert f"(config: {shipped})" in err and "no plot 'nope'" in err


def test_list_methods_shows_every_exported_name(capsys):
    assert main(["list", "methods"]) == 0
    assert "IMDExplainer (= JointSurrogateTree)" in capsys.readouterr().out


@pytest.mark.parametrize("argv, option", [(["list"], "what"), (["table"], "--out"), (["plot"], "--out"),
                                          (["run"], "--set"), (["reproduce"], "--set")])
def test_every_option_has_help(argv, option, capsys):
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    out = capsys.readouterr().out
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices[argv[0]]
    undocumented = [a.dest for a in sub._actions if not a.help]
    assert not undocumented, undocumented
    assert option in out


@pytest.mark.parametrize("before", [None, "/data/of/the/caller"])
@pytest.mark.parametrize("outcome", ["ok", "error", "interrupt"])
def test_data_dir_is_set_for_the_command_and_restored_after_it(tmp_path, monkeypatch, capsys, before, outcome):
    """Regression: main(["--data-dir", D, ...]) left INTERPRETOPT_DATA=D set after it returned, so a later
    call in the same process read D's data without being given it."""
    import os

    from interpretopt import cli
    from interpretopt.exceptions import InterpretoptError

    if before is None:
        monkeypatch.delenv("INTERPRETOPT_DATA", raising=False)
    else:
        monkeypatch.setenv("INTERPRETOPT_DATA", before)
    seen = []

    def command(args):
        seen.append(os.environ.get("INTERPRETOPT_DATA"))
        if outcome == "error":
            raise InterpretoptError("boom")
        if outcome == "interrupt":
            raise KeyboardInterrupt
        return 0

    monkeypatch.setattr(cli, "_cmd_demo", command)
    code = main(["--data-dir", str(tmp_path), "demo"])
    assert code == {"ok": 0, "error": 2, "interrupt": 130}[outcome]
    assert seen == [str(tmp_path)]  # the command, and the worker processes it starts, see --data-dir
    assert os.environ.get("INTERPRETOPT_DATA") == before
    assert main(["demo"]) == code and seen[-1] == before  # a later call without --data-dir does not inherit it


def _session_workers(sid: int) -> list[int]:
    """The loky worker processes of session ``sid`` (read from /proc)."""
    from pathlib import Path

    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:  # the process ended meanwhile
            continue
        if int(fields[3]) == sid and b"popen_loky" in cmdline:  # fields after the name: state ppid pgrp session
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc")
def test_sigterm_stops_the_worker_processes_and_keeps_the_finished_runs(tmp_path):
    """Regression: `kill` of a `reproduce --n-jobs 2` left its two loky workers computing runs for 11 more
    minutes, runs no process would store. Each run here sleeps 600 s: only a stop of the workers ends them
    within the 60 s waited for."""
    import signal
    import time

    config = tmp_path / "slow.yaml"
    config.write_text("name: slow\nmethod: sleep\nparams: {seconds: 600}\ndatasets: [breast_cancer]\nrepetitions: 4\n")
    proc = subprocess.Popen([sys.executable, "-m", "interpretopt", "run", str(config), "--n-jobs", "2", "--out",
                             str(tmp_path / "out"), "--quiet"], start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while len(_session_workers(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert len(_session_workers(proc.pid)) == 2, proc.communicate(timeout=5)
        time.sleep(1.0)  # the runs are in the workers' hands
        proc.send_signal(signal.SIGTERM)
        stop = time.monotonic() + 60
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and "interrupted" in err, err
        while _session_workers(proc.pid) and time.monotonic() < stop:
            time.sleep(0.2)
        assert _session_workers(proc.pid) == []
        assert not list((tmp_path / "out" / "claims").glob("*.claim"))  # free for the next process
    finally:
        for pid in _session_workers(proc.pid):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
