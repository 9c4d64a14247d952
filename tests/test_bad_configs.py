"""Bad configs and command lines around the runner and its output directory: each is refused with a clear
message naming the offending value (exit code 2 from the CLI, no traceback), and nothing runs, escapes
its root or is written elsewhere.

One row per case: ``(id, kind, payload, regex)``. ``kind`` is ``yaml`` (the payload is a config file's
text, run with ``interpretopt run FILE``), ``cli`` (extra arguments to ``run ok.yaml``) or ``api`` (a
callable of the test's folder that must raise :class:`~interpretopt.exceptions.InterpretoptError`).
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from interpretopt.exceptions import InterpretoptError

OK = "name: ok\nmethod: noop\ndatasets: [breast_cancer]\n"


def _y(text: str) -> str:
    return textwrap.dedent(text)


def _grid(n_axes: int) -> str:
    return "{" + ", ".join(f"a{i}: [0,1,2,3,4,5,6,7,8,9]" for i in range(n_axes)) + "}"


def _table_named(name: str) -> str:
    return OK + f"tables: [{{name: {name}, metric: value}}]\n"


def _plot_named(name: str) -> str:
    return OK + f"plots: [{{name: {name}, kind: bar, x: dataset, y: value}}]\n"


def _preset(preset: str) -> str:
    return f"name: p\nmethod: noop\ndatasets: [breast_cancer]\npreset: {preset}\n"


YAML = [
    # duplicate keys (YAML keeps the last one silently)
    ("duplicate top-level key", OK + "seed: 1\nseed: 2\n", r"duplicate key 'seed' at line 5 \(first given at line 4\)"),
    ("duplicate method key", OK + "method: imd\n", r"duplicate key 'method' at line 4 \(first given at line 2\)"),
    ("duplicate parameter", OK + "params:\n  k: [1]\n  k: [2]\n", r"duplicate key 'k' at line 6"),
    ("duplicate setting", OK + "settings: {time_limit: 5, time_limit: 9}\n", r"duplicate key 'time_limit' at line 4"),
    ("duplicate dataset option", "name: d\nmethod: noop\ndatasets: [{name: adult, name: iris}]\n",
     r"duplicate key 'name' at line 3"),
    ("duplicate table key", OK + "tables: [{name: t, metric: m, metric: n}]\n", r"duplicate key 'metric'"),
    ("duplicate split key", OK + "split:\n  test_size: 0.2\n  test_size: 0.3\n", r"duplicate key 'test_size'"),
    ("duplicate key in smoke", OK + "smoke:\n  repetitions: 1\n  repetitions: 2\n", r"duplicate key 'repetitions'"),
    # paths that would leave their root
    ("table name up four levels", _table_named("../../../../x"),
     r"tables\[0\]\.name: table name '\.\./\.\./\.\./\.\./x' is not a plain file name"),
    ("table name absolute", _table_named("/tmp/x"), r"table name '/tmp/x'"),
    ("table name dot-dot", _table_named("'..'"), r"table name '\.\.'"),
    ("table name hidden", _table_named(".bashrc"), r"table name '\.bashrc'"),
    ("table name backslash", _table_named("'..\\x'"), r"table name '\.\.\\\\x'"),
    ("table name in a folder", _table_named("sub/t"), r"table name 'sub/t'"),
    ("plot name up", _plot_named("../../p"), r"plots\[0\]\.name: plot name '\.\./\.\./p'"),
    ("plot name absolute", _plot_named("/tmp/p"), r"plot name '/tmp/p'"),
    ("preset up three levels", _preset("../../.."), r"preset: preset '\.\./\.\./\.\.' is not a plain file name"),
    ("preset absolute", _preset("/etc/passwd"), r"preset '/etc/passwd' is not a plain file name"),
    ("preset through solvers", _preset("x/../../smoke"), r"preset 'x/\.\./\.\./smoke'"),
    ("preset dot-dot", _preset("'..'"), r"preset '\.\.'"),
    ("runs_from a path", OK + "runs_from: ../other/table1\n", r"runs_from: expected the file stem"),
    ("config name a path", "name: ../../x\nmethod: noop\ndatasets: [breast_cancer]\n", r"must not contain '/'"),
    ("dataset data_dir option", "name: d\nmethod: noop\ndatasets: [{name: adult, options: {data_dir: /etc}}]\n",
     r"datasets\[0\]\.options\.data_dir: a config cannot name a data directory \(got '/etc'\)"),
    ("dataset label a path", "name: l\nmethod: noop\ndatasets: [{name: breast_cancer, label: ../x}]\n",
     r"dataset labels cannot contain '/'"),
    # code named by a config: only by opt-in
    ("module:function method", "name: i\nmethod: 'os:system'\ndatasets: [breast_cancer]\n",
     r"'os:system' would import module 'os' and call 'system'.*--allow-import"),
    ("module:function in methods", "name: i\nmethods: [{method: 'subprocess:run'}]\ndatasets: [breast_cancer]\n",
     r"methods\[0\]\.method: 'subprocess:run' would import.*--allow-import"),
    ("builtins eval", "name: i\nmethod: 'builtins:eval'\ndatasets: [breast_cancer]\n", r"'builtins:eval'.*opt in"),
    ("local module", "name: i\nmethod: 'evil:run'\ndatasets: [breast_cancer]\n", r"module 'evil'.*--allow-import"),
    ("python object tag", "name: t\nmethod: !!python/object/apply:os.system ['touch {d}/MARKER']\n",
     r"not valid YAML.*python/object/apply:os\.system"),
    ("python name tag", "name: t\nmethod: !!python/name:os.system ''\ndatasets: [breast_cancer]\n",
     r"not valid YAML.*python/name:os\.system"),
    # plans too large to build
    ("a billion repetitions", OK + "repetitions: 1000000000\n",
     r"plans 1,000,000,000 runs.*limit of 100,000 runs.*--max-runs"),
    ("ten million grid points", f"name: g\nmethod: noop\nparams: {_grid(7)}\ndatasets: [breast_cancer]\n",
     r"10,000,000 .*limit of 100,000.*--max-runs 10000000"),
    ("grid of a method task", f"name: g\nmethod: imd\nparams: {_grid(6)}\ndatasets: [breast_cancer]\n",
     r"params: the grid has 1,000,000 points"),
    ("grid times repetitions", f"name: g\nmethod: noop\nparams: {_grid(3)}\ndatasets: [breast_cancer]\n"
     "repetitions: 1000\n", r"plans 1,000,000 runs"),
    ("many models and datasets", "name: m\nmethod: noop\nparams: " + _grid(4) + "\nmodels: [LR, DT1, GNB]\n"
     "datasets: [breast_cancer, circle, german]\nrepetitions: 2\n", r"plans 180,000 runs"),
]

CLI = [
    ("n-jobs -5", ["--n-jobs", "-5"], r"n_jobs must be a number of worker processes >= 1, or -1 for all cores, got -5"),
    ("n-jobs -2", ["--n-jobs", "-2"], r"got -2"),
    ("n-jobs -100", ["--n-jobs", "-100"], r"got -100"),
    ("max-runs 0", ["--max-runs", "0"], r"max_runs must be a positive number of runs, got 0"),
    ("max-runs -3", ["--max-runs", "-3"], r"got -3"),
    ("max-runs a word", ["--max-runs", "ten"], r"--max-runs: invalid int value: 'ten'"),
    ("out is a file", ["--out", "{d}/afile"], r"cannot write the output directory .*afile"),
    ("out under a file", ["--out", "{d}/afile/sub"], r"cannot write the output directory .*afile/sub"),
]


def _run_cli(argv, capsys):
    from interpretopt.cli import main

    try:
        code = main(argv)
    except SystemExit as e:  # argparse
        code = e.code
    return code, capsys.readouterr().err


@pytest.fixture
def folder(tmp_path) -> Path:
    (tmp_path / "ok.yaml").write_text(OK)
    (tmp_path / "afile").write_text("not a folder")
    return tmp_path


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("case", YAML, ids=[c[0] for c in YAML])
def test_bad_config_file(case, folder, capsys, monkeypatch):
    monkeypatch.delenv("INTERPRETOPT_MAX_RUNS", raising=False)
    _, text, match = case
    cfg = folder / "case.yaml"
    cfg.write_text(text.replace("{d}", str(folder)))
    before = _files(folder.parent)
    code, err = _run_cli(["run", str(cfg), "--quiet", "--out", str(folder / "out")], capsys)
    assert code == 2, err
    assert re.search(match, err, flags=re.S), err
    assert "Traceback" not in err
    assert not (folder / "MARKER").exists()
    assert _files(folder.parent) - before <= {str(Path(folder.name) / "case.yaml")}  # nothing written


@pytest.mark.parametrize("case", CLI, ids=[c[0] for c in CLI])
def test_bad_command_line(case, folder, capsys, monkeypatch):
    monkeypatch.delenv("INTERPRETOPT_MAX_RUNS", raising=False)
    _, extra, match = case
    argv = ["run", str(folder / "ok.yaml"), "--quiet"] + [a.format(d=folder) for a in extra]
    if "--out" not in extra:
        argv += ["--out", str(folder / "out")]
    code, err = _run_cli(argv, capsys)
    assert code == 2, err
    assert re.search(match, err, flags=re.S), err
    said = [ln for ln in err.strip().splitlines() if not ln.startswith(("usage:", " "))]  # argparse's usage aside
    assert "Traceback" not in err and len(said) == 1, err
    assert not (folder / "out" / "runs").exists()


def _config(**changes):
    from interpretopt.experiments.config import parse_config

    return dataclasses.replace(parse_config({"name": "a", "method": "noop", "datasets": ["breast_cancer"]}),
                               **changes)


def _write_table(d: Path, name: str):
    from interpretopt.experiments.config import TableSpec
    from interpretopt.experiments.tables import write_tables

    cfg = _config(tables=(TableSpec(name=name, metric="value"),))
    return write_tables(pd.DataFrame({"run_status": ["ok"], "value": [1.0], "dataset": ["d"],
                                      "method_variant": ["m"]}), cfg, d / "out")


def _write_plot(d: Path, name: str):
    from interpretopt.experiments.config import PlotSpec
    from interpretopt.experiments.plots import write_plots

    cfg = _config(plots=(PlotSpec(name=name, kind="bar", x="dataset", y="value"),))
    return write_plots(pd.DataFrame({"run_status": ["ok"], "value": [1.0], "dataset": ["d"]}), cfg, d / "out")


def _run(d: Path, **kw):
    from interpretopt.experiments.runner import run_experiment

    return run_experiment(_config(), out_dir=d / "out", progress=False, **kw)


def _load_preset(d: Path, name: str):
    from interpretopt.experiments.config import load_preset

    return load_preset(name)


def _load(d: Path, text: str, **kw):
    from interpretopt.experiments.config import load_config

    (d / "c.yaml").write_text(text)
    return load_config(d / "c.yaml", **kw)


API = [
    ("write_tables escaping name", lambda d: _write_table(d, "../../../x"), r"table name '\.\./\.\./\.\./x'"),
    ("write_tables absolute name", lambda d: _write_table(d, "/tmp/x"), r"table name '/tmp/x'"),
    ("write_plots escaping name", lambda d: _write_plot(d, "../../p"), r"plot name '\.\./\.\./p'"),
    ("load_preset escaping name", lambda d: _load_preset(d, "../../../etc/passwd"), r"preset '\.\./\.\./\.\./etc"),
    ("load_preset absolute", lambda d: _load_preset(d, "/etc/passwd"), r"preset '/etc/passwd'"),
    ("run_experiment n_jobs -5", lambda d: _run(d, n_jobs=-5), r"got -5"),
    ("run_experiment n_jobs 0", lambda d: _run(d, n_jobs=0), r"got 0"),
    ("run_experiment n_jobs 2.0", lambda d: _run(d, n_jobs=2.0), r"got 2\.0"),
    ("run_experiment scheduler_timeout 0", lambda d: _run(d, scheduler_timeout=0), r"scheduler_timeout .*got 0"),
    ("run_experiment claim_max_age -1", lambda d: _run(d, claim_max_age=-1), r"claim_max_age .*got -1"),
    ("run_experiment max_runs 0", lambda d: _run(d, max_runs=0), r"max_runs must be a positive number of runs"),
    ("run_experiment max_runs fractional", lambda d: _run(d, max_runs=0.5), r"max_runs .*got 0\.5"),
    ("load_config module:function", lambda d: _load(d, "name: i\nmethod: 'os:getcwd'\ndatasets: [breast_cancer]\n"),
     r"'os:getcwd' would import.*allow_import=True"),
    ("load_config duplicate key", lambda d: _load(d, OK + "name: again\n"), r"duplicate key 'name' at line 4"),
    ("load_config max_runs text", lambda d: _load(d, OK, max_runs="many"), r"max_runs must be a positive"),
]


@pytest.mark.parametrize("case", API, ids=[c[0] for c in API])
def test_bad_api_call(case, folder, monkeypatch):
    monkeypatch.delenv("INTERPRETOPT_MAX_RUNS", raising=False)
    _, call, match = case
    before = _files(folder.parent)
    with pytest.raises(InterpretoptError, match=match) as info:
        call(folder)
    assert "Traceback" not in str(info.value)
    assert not {f for f in _files(folder.parent) - before if not f.endswith("c.yaml")}  # nothing written


def test_environment_limit_is_checked(folder, capsys, monkeypatch):
    monkeypatch.setenv("INTERPRETOPT_MAX_RUNS", "lots")
    code, err = _run_cli(["run", str(folder / "ok.yaml"), "--quiet", "--out", str(folder / "out")], capsys)
    assert code == 2 and "INTERPRETOPT_MAX_RUNS must be a positive number of runs, got 'lots'" in err, err


def test_allow_import_opts_in(folder, capsys):
    (folder / "imp.yaml").write_text("name: i\nmethod: 'interpretopt.experiments.tasks._builtin:run_noop'\n"
                                     "datasets: [breast_cancer]\n")
    code, err = _run_cli(["run", str(folder / "imp.yaml"), "--quiet", "--out", str(folder / "o")], capsys)
    assert code == 2 and "--allow-import" in err
    code, _ = _run_cli(["run", str(folder / "imp.yaml"), "--quiet", "--allow-import", "--out", str(folder / "o")],
                       capsys)
    assert code == 0 and len(list((folder / "o" / "runs").glob("*.json"))) == 1


def test_rows_in_total():
    assert len(YAML) + len(CLI) + len(API) >= 55
