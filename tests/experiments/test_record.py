"""Results of record: rows kept as Parquet, resumed from, checked by value, and the committed record
regenerated exactly from its rows."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from interpretopt.exceptions import InterpretoptError
from interpretopt.experiments import record as REC
from interpretopt.experiments import runner as R
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.results import read_results
from interpretopt.experiments.tasks import _builtin

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh():
    R.clear_caches()
    yield
    R.clear_caches()


def _config(k=(1, 2, 3, 4)):
    return parse_config({"name": "r", "method": "noop", "params": {"k": list(k)}, "datasets": ["breast_cancer"],
                         "repetitions": 2})


def _record(c, folder, **kw):
    rec = SimpleNamespace(paper="p", path="p/r.yaml", config=c, out_dir=folder, freshness=kw.pop("freshness", ""))
    return REC.write_record_rows([rec], folder.parent.parent, "full", **kw)[0]


def _node(i, kind, children):
    return {"id": i, "kind": kind, "label": f"node {i}", "fill": "#ffffff", "in_diff": False, "children": children}


def _mixed_task(ctx):
    k = ctx.params["k"]
    # a column that is an int in some rows and a float or a text in others, a list, a missing value
    tree = [_node(0, "split", [[i, "yes" if i == 1 else "no", False] for i in range(1, k + 1)])]
    tree += [_node(i, "leaf", []) for i in range(1, k + 1)]  # a joint surrogate tree of k leaves
    return {"value": k if k % 2 else k + 0.5, "label": "x" if k == 1 else k, "vec": [k, 2.5],
            "maybe": None if k == 3 else 1.0, "variant": "imd",
            "artifacts": {"jst.json": json.dumps(tree), "rules.txt": "x" * 1000}}


def test_recorded_rows_read_back_exactly_as_the_row_files(tmp_path, monkeypatch):
    monkeypatch.setattr(_builtin, "run_noop", _mixed_task)
    c = _config()
    folder = tmp_path / "p" / "r"
    R.run_experiment(c, out_dir=folder, progress=False)
    before = read_results(folder)
    assert _record(c, folder) == 8
    shutil.rmtree(folder / "runs")
    after = read_results(folder)
    pd.testing.assert_frame_equal(before, after)
    assert (tmp_path / REC.RECORD_FILE).is_file()


def test_only_the_trees_the_report_draws_are_recorded(tmp_path, monkeypatch):
    from interpretopt.experiments.report import jst_figures

    monkeypatch.setattr(_builtin, "run_noop", _mixed_task)
    c = _config()
    folder = tmp_path / "p" / "r"
    R.run_experiment(c, out_dir=folder, progress=False)
    drawn = jst_figures(read_results(folder), folder)
    _record(c, folder)
    kept = sorted(folder.glob("artifacts/*/jst.json"))
    # one dataset, no pair: the report draws one tree, the smallest (k=1); the other seven are not kept
    assert len(kept) == 1 and len(json.loads(kept[0].read_text())) == 2 and len(drawn) == 1
    shutil.rmtree(folder / "runs")
    assert [p.name for p in jst_figures(read_results(folder), folder)] == [p.name for p in drawn]


def test_runner_resumes_from_recorded_rows(tmp_path, monkeypatch):
    c = _config()
    folder = tmp_path / "p" / "r"
    R.run_experiment(c, out_dir=folder, progress=False)
    _record(c, folder)
    shutil.rmtree(folder / "runs")  # a fresh clone: the record only
    calls = []
    monkeypatch.setattr(_builtin, "run_noop", lambda ctx: (calls.append(ctx.run_name), {"value": 1})[1])
    bigger = _config(k=(1, 2, 3, 4, 5))  # the grid grew: only the new runs run
    rep = R.run_experiment(bigger, out_dir=folder, progress=False)
    assert rep.n_skipped == 8 and rep.n_ok == 2 and len(calls) == 2
    _record(bigger, folder)
    assert len(REC.record_rows(folder)) == 10


def test_a_failed_recorded_run_is_retried_and_its_traceback_cut(tmp_path, monkeypatch):
    def fail_deep(ctx, depth=30):
        if depth:
            return fail_deep(ctx, depth - 1)
        raise ValueError("boom")

    monkeypatch.setattr(_builtin, "run_noop", fail_deep)
    c = _config(k=(1,))
    folder = tmp_path / "p" / "r"
    R.run_experiment(c, out_dir=folder, progress=False)
    _record(c, folder)
    shutil.rmtree(folder / "runs")
    row = REC.record_rows(folder)[0]
    assert row["run_status"] == "failed" and row["error"] == "ValueError: boom"
    assert row["traceback"].count("\n") <= REC.TRACEBACK_LINES + 1
    monkeypatch.setattr(_builtin, "run_noop", lambda ctx: {"value": 1})
    rep = R.run_experiment(c, out_dir=folder, progress=False)
    assert rep.n_ok == 2 and rep.n_skipped == 0


def _missing_data_errors(tmp_path, monkeypatch) -> list[str]:
    """The errors the runner stores for a dataset file that is not there: no data directory set, a
    directory that does not exist, a directory without the file (interpretopt.data's own messages)."""
    from interpretopt.data import load_dataset
    from interpretopt.exceptions import DataError

    monkeypatch.delenv("INTERPRETOPT_DATA", raising=False)
    (tmp_path / "empty").mkdir()
    out = []
    for data_dir in (None, tmp_path / "nowhere", tmp_path / "empty"):
        with pytest.raises(DataError) as info:
            load_dataset("adult", data_dir=data_dir)
        out.append(f"DataError: {info.value}")
    return out


def test_missing_data_is_told_from_other_failures(tmp_path, monkeypatch):
    for error in _missing_data_errors(tmp_path, monkeypatch):
        assert REC.failed_for_missing_data({"run_status": "failed", "error": error}), error
        assert not REC.failed_for_missing_data({"run_status": "ok", "error": error})
    for error in ("DataError: dataset 'adult': '/d/adult.tsv.gz' lacks column(s) ['target']; found []. Is it "
                  "the right file?", "ValueError: file 'x' not found (looked for 'x')", "RuntimeError: boom", None):
        assert not REC.failed_for_missing_data({"run_status": "failed", "error": error}), error


def test_runs_that_failed_for_missing_data_are_never_recorded(tmp_path, monkeypatch):
    monkeypatch.delenv("INTERPRETOPT_DATA", raising=False)
    c = parse_config({"name": "r", "method": "noop", "params": {"k": [1]}, "datasets": ["breast_cancer", "adult"],
                      "repetitions": 2})
    folder = tmp_path / "p" / "r"
    rep = R.run_experiment(c, out_dir=folder, progress=False)
    assert rep.n_ok == 2 and rep.n_failed == 2  # adult: no data directory
    rec = SimpleNamespace(paper="p", path="p/r.yaml", config=c, out_dir=folder, freshness="")
    assert REC.write_record_rows([rec], tmp_path, "full") == (2, 2)
    assert [r["dataset"] for r in REC.record_rows(folder)] == ["breast_cancer", "breast_cancer"]
    # a failure of another kind is a result of the code, and is recorded
    monkeypatch.setattr(_builtin, "run_noop", lambda ctx: 1 / 0)
    R.run_experiment(c, out_dir=folder, progress=False, force=True)
    assert REC.write_record_rows([rec], tmp_path, "full") == (2, 2)
    assert {(r["dataset"], r["error"]) for r in REC.record_rows(folder)} == {
        ("breast_cancer", "ZeroDivisionError: division by zero")}


# ----------------------------------------------------------------------------- bad input


def test_stale_runs_are_refused_without_the_override(tmp_path):
    c = _config(k=(1,))
    folder = tmp_path / "p" / "r"
    R.run_experiment(c, out_dir=folder, progress=False)
    with pytest.raises(InterpretoptError, match=r"p/r .*--rerun-stale.*--allow-stale"):
        _record(c, folder, freshness="**Stale: 2 of 2 runs ...")
    assert not (folder / REC.ROWS_FILE).exists()
    assert _record(c, folder, freshness="**Stale: 2 of 2 runs ...", allow_stale=True) == 2


def test_a_record_of_another_scale_is_refused(tmp_path):
    (tmp_path / REC.RECORD_FILE).write_text('{"scale": "smoke"}')
    with pytest.raises(InterpretoptError, match=r"made at smoke scale, not reduced.*--record records/reduced"):
        REC.check_record_scale(tmp_path, "reduced")
    REC.check_record_scale(tmp_path, "smoke")


def test_no_runs_and_another_config_hash_are_refused(tmp_path):
    c = _config(k=(1,))
    rec = SimpleNamespace(paper="p", path="p/r.yaml", config=c, out_dir=tmp_path / "p" / "r", freshness="")
    with pytest.raises(InterpretoptError, match="no runs are stored under"):
        REC.check_stored_runs([rec], tmp_path, "smoke")
    R.run_experiment(parse_config({"name": "r", "method": "noop", "params": {"k": [1]}, "datasets": ["breast_cancer"],
                                   "repetitions": 2, "seed": 7}), out_dir=rec.out_dir, progress=False)
    with pytest.raises(InterpretoptError, match=rf"p/r: runs of config hash .* now hashes to {c.config_hash}"):
        REC.check_stored_runs([rec], tmp_path, "smoke")
    R.run_experiment(c, out_dir=rec.out_dir, progress=False)
    REC.check_stored_runs([rec], tmp_path, "smoke")  # runs of the current hash: fine


# ----------------------------------------------------------------------------- the value guard


def _cells(values):
    return pd.DataFrame([{"paper": "imd", "table": "t1", "row": r, "column": "acc", "ours": v,
                          "status": "compared" if v == v else "not_run", "n_runs": 2 if v == v else 0}
                         for r, v in values.items()])


def test_value_guard_passes_on_float_noise_and_fails_on_a_moved_cell(tmp_path):
    committed = _cells({"adult": 0.8125, "bc": 1234.0, "heloc": np.nan})
    committed.to_csv(tmp_path / "cells.csv", index=False)
    same = _cells({"adult": 0.8125 * (1 + 1e-12), "bc": 1234.0, "heloc": np.nan})
    assert REC.moved_cells_against(same, tmp_path).empty
    moved = REC.moved_cells_against(_cells({"adult": 0.8150, "bc": 1234.0, "heloc": 0.5}), tmp_path)
    assert list(moved["row"]) == ["adult", "heloc"]
    first = moved.iloc[0]
    assert (first["committed"], first["now"], first["what"]) == (0.8125, 0.815, "value")
    assert "status not_run -> compared" in moved.iloc[1]["what"]
    lost = REC.moved_cells_against(_cells({"adult": 0.8125, "bc": 1234.0}), tmp_path)
    assert list(lost["what"]) == ["only in the record"]


def test_value_guard_cli_prints_the_moved_cells(tmp_path, capsys):
    from interpretopt.experiments.cli_commands import _moved

    _cells({"adult": 0.8125}).to_csv(tmp_path / "cells.csv", index=False)
    assert not _moved(_cells({"adult": 0.8125}), str(tmp_path), None)
    assert _moved(_cells({"adult": 0.75}), str(tmp_path), None)
    out = capsys.readouterr()
    assert "1 published cell(s) moved" in out.err and "adult" in out.out and "0.8125" in out.out


def test_value_guard_without_a_record_says_what_to_give(tmp_path):
    with pytest.raises(InterpretoptError, match="no cells.csv there"):
        REC.moved_cells_against(_cells({"a": 1.0}), tmp_path)


# ----------------------------------------------------------------------------- code changed during the runs


def _stamps(folder: Path) -> dict[int, str | None]:
    return {r["k"] * 10 + r["rep"]: r["code_fingerprint"] for r in
            (json.loads(p.read_text()) for p in (folder / "runs").glob("*.json"))}


def test_rows_written_while_their_code_changed_are_unstamped(tmp_path):
    # regression: the runner stamps every row with the fingerprint taken when it started; rows of runs
    # made after an edit of their code carried the old one, and a half-edited module's rows were recorded
    import os

    from interpretopt.experiments.config import load_config
    from interpretopt.experiments.fingerprint import method_fingerprints

    path = tmp_path / "c.yaml"
    path.write_text("name: c\nmethod: noop\nparams: {k: [1, 2]}\ndatasets: [breast_cancer]\nrepetitions: 1\n")
    folder = tmp_path / "out"
    R.run_experiment(load_config(path), out_dir=folder, progress=False)  # before the invocation
    for p in (folder / "runs").glob("*.json"):
        os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns - 10**10))
    since = REC.file_clock_ns(folder)
    old = method_fingerprints(load_config(path))["noop"][0]
    # the invocation: one run (k=3) stamped with the code of its start; then the config's runs part is
    # edited, and a process started after the edit stores two runs of its own (today's code)
    R.run_experiment(load_config(path, overrides=["k=[1, 2, 3]"]), out_dir=folder, progress=False)
    path.write_text(path.read_text().replace("repetitions: 1", "repetitions: 2"))
    R.run_experiment(load_config(path), out_dir=folder, progress=False)
    new = method_fingerprints(load_config(path))["noop"][0]
    assert _stamps(folder) == {10: old, 20: old, 30: old, 11: new, 21: new}
    found = REC.distrust_runs_changed_during(folder, path, since)
    assert [(g["method"], g["fingerprint"], g["n_runs"], g["changed"]) for g in found] == [
        ("noop", old, 1, ["config:c.yaml"])]
    # before the invocation: stale, but known to be the old code's; today's: untouched
    assert _stamps(folder) == {10: old, 20: old, 30: None, 11: new, 21: new}
    assert read_results(folder)["code_fingerprint"].isna().sum() == 1
    assert pd.read_parquet(folder / "results.parquet")["code_fingerprint"].isna().sum() == 1
    assert REC.distrust_runs_changed_during(folder, path, since) == []  # nothing left to distrust


def test_rows_are_unstamped_when_the_code_does_not_read_after_the_runs(tmp_path):
    from interpretopt.experiments.config import load_config

    path = tmp_path / "c.yaml"
    path.write_text("name: c\nmethod: noop\ndatasets: [breast_cancer]\n")
    since = REC.file_clock_ns(tmp_path / "out")
    R.run_experiment(load_config(path), out_dir=tmp_path / "out", progress=False)
    path.write_text("name: c\nmethod: [noop\n")  # half-edited
    (found,) = REC.distrust_runs_changed_during(tmp_path / "out", path, since)
    assert found["n_runs"] == 1 and found["changed"][0].startswith("(the code does not read now: ")


# ----------------------------------------------------------------------------- the committed record


def _tracked(folder: Path) -> list[str]:
    """The files git keeps under ``folder``, relative to it."""
    import subprocess

    return subprocess.run(["git", "-C", str(folder), "ls-files"], capture_output=True, text=True,
                          check=True).stdout.split()


def _committed_files(src: Path, dst: Path) -> None:
    """Copy what git keeps of a record folder (see records/.gitignore)."""
    for rel in _tracked(src):
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, target)


def _data_held() -> bool:
    from interpretopt.data import list_datasets

    return all(r["available"] for r in list_datasets())  # as where the record was made


def test_docs_reproduction_is_what_the_committed_records_give():
    docs = REPO / "docs" / "reproduction.md"
    if not (REPO / "records").is_dir():
        pytest.skip("no records in this checkout")
    assert docs.read_text() == REC.render_docs(REPO / "records", docs.parent), (
        "docs/reproduction.md differs from the records: run `interpretopt reproduce --all --scale smoke --no-run "
        "--out records/smoke`")


#: what a record folder keeps (records/.gitignore): per scale its RECORD.json, REPORT.md and cells.csv;
#: per table its rows, code versions, pair choices and the artifacts the report draws
_RECORD_FILE = re.compile(
    rf"\.gitignore|[a-z]+/({re.escape(REC.RECORD_FILE)}|REPORT\.md|cells\.csv)"
    rf"|[a-z]+/[a-z]+/\w+/({re.escape(REC.ROWS_FILE)}|code\.json|pairs/[^/]+\.json"
    rf"|artifacts/[^/]+/({'|'.join(map(re.escape, REC.RECORD_ARTIFACTS))}))")


def _not_record_files(paths: list[str]) -> list[str]:
    return [p for p in paths if not _RECORD_FILE.fullmatch(p)]


def test_committed_records_hold_only_record_files():
    """Regression: ten tables' own cells.csv and protocol.md (what ``reproduce PAPER/TABLE --out`` writes
    beside the runs) were committed, with the absolute path of the worktree that made them."""
    if not (REPO / "records").is_dir() or not (REPO / ".git").exists():
        pytest.skip("no git checkout with records")
    listed = _tracked(REPO / "records")
    assert listed and _not_record_files(listed) == []
    assert _not_record_files(["full/imd/table6/cells.csv", "full/imd/table6/protocol.md",
                              "full/imd/table6/experiment.json", "full/imd/table6/rows.parquet"]) == [
        "full/imd/table6/cells.csv", "full/imd/table6/protocol.md", "full/imd/table6/experiment.json"]


@pytest.mark.parametrize("scale", ["smoke"])
def test_committed_report_and_cells_are_what_the_committed_rows_give(tmp_path, scale):
    from interpretopt.experiments.cli_commands import _after_reproduce
    from interpretopt.experiments.report import reproduce_all

    src = REPO / "records" / scale
    if not (src / REC.RECORD_FILE).is_file():
        pytest.skip(f"no {scale} record in this checkout")
    if not _data_held():
        pytest.skip("the datasets are not held here (INTERPRETOPT_DATA): cells would be no_data")
    out = tmp_path / "records" / scale
    _committed_files(src, out)
    records = reproduce_all(scale, out, run=False)
    args = SimpleNamespace(record=None, paper=None, allow_stale=False)
    _after_reproduce(args, scale, out, records)
    assert (out / "cells.csv").read_text() == (src / "cells.csv").read_text()
    assert (out / "REPORT.md").read_text() == (src / "REPORT.md").read_text(), (
        f"records/{scale}/REPORT.md differs from what its rows give: run "
        f"`{REC.regenerate_command(scale, f'records/{scale}')}`")


# ----------------------------------------------------------------------------- the command line


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A checkout with two papers of one small table each (configs/), docs/ and a pyproject.toml."""
    from tests.experiments.test_report import TABLE
    from tests.instances import write_demo_configs

    write_demo_configs(tmp_path, TABLE)
    (tmp_path / "docs").mkdir()
    (tmp_path / "pyproject.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _counting(monkeypatch):
    calls = []
    real = _builtin.run_dummy_tree
    monkeypatch.setattr(_builtin, "run_dummy_tree", lambda ctx: (calls.append(ctx.run_name), real(ctx))[1])
    return calls


def test_cli_record_regenerate_and_resume(project, monkeypatch, capsys):
    from tests.instances import run_cli as _cli

    calls = _counting(monkeypatch)
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet") == 0
    rec = project / "records" / "smoke"
    assert len(calls) == 2 and json.loads((rec / REC.RECORD_FILE).read_text()) == {"scale": "smoke"}
    assert (rec / "imd" / "t1" / REC.ROWS_FILE).is_file() and (rec / "imd" / "t1" / "code.json").is_file()
    report, cells = (rec / "REPORT.md").read_text(), (rec / "cells.csv").read_text()
    assert "- date:" not in report and "- machine:" not in report and "Stale" not in report
    assert "--no-run --out records/smoke" in report
    docs = (project / "docs" / "reproduction.md").read_text()
    assert docs == REC.render_docs(project / "records", project / "docs") and "<!-- begin smoke scale -->" in docs
    # a fresh clone holds the record only: the report is made from the rows alone, identically
    for d in rec.glob("*/*/runs"):
        shutil.rmtree(d)
    (rec / "REPORT.md").unlink()
    assert _cli("reproduce", "--all", "--smoke", "--no-run", "--out", rec, "--quiet") == 0
    assert (rec / "REPORT.md").read_text() == report and (rec / "cells.csv").read_text() == cells
    # and a run into the record resumes: nothing runs again
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet") == 0
    assert len(calls) == 2


def test_recording_beside_a_running_table_keeps_its_manifest(project, monkeypatch):
    """Regression: `--record` beside a run still going in the record's folder pruned the manifest that run
    had written when it started (no row used it yet), so its rows would read as made by unknown code."""
    from interpretopt.experiments.config import load_config
    from interpretopt.experiments.fingerprint import read_manifests, record_code
    from tests.instances import run_cli as _cli

    _counting(monkeypatch)
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet") == 0
    folder = project / "records" / "smoke" / "imd" / "t1"
    (rows_fp,) = read_manifests(folder)
    path = project / "configs" / "imd" / "t1.yaml"  # the code changes, and a run of it starts in the folder
    path.write_text(path.read_text().replace("repetitions: 2\n", "repetitions: 3\n"))
    running = record_code(load_config(path, scale="smoke"), folder)
    foreign = {**read_manifests(folder), "feedfeedfeedfeed": {"method": "x", "commit": None, "files": {}}}
    (folder / "code.json").write_text(json.dumps(foreign))
    assert _cli("reproduce", "--all", "--smoke", "--record", "--no-run", "--quiet", "--allow-stale") == 0
    assert set(read_manifests(folder)) == {rows_fp, *running.values()}  # the unused foreign one is pruned


def test_cli_stale_runs_refused_allowed_or_rerun(project, monkeypatch, capsys):
    from tests.instances import run_cli as _cli

    calls = _counting(monkeypatch)
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet") == 0
    # the runs part of the config changes (not its hash: more repetitions at full scale keep the runs)
    path = project / "configs" / "imd" / "t1.yaml"
    path.write_text(path.read_text().replace("repetitions: 2\n", "repetitions: 3\n"))
    capsys.readouterr()
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet") == 2
    err = capsys.readouterr().err
    assert "1 table(s) rest on runs made by other code than today's: imd/t1" in err and "--allow-stale" in err
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet", "--allow-stale") == 0
    report = (project / "records" / "smoke" / "REPORT.md").read_text()
    assert "**Stale: 1 of 1 runs" in report and "by code that differs from today's in `config:imd/t1.yaml`" in report
    assert "- imd/t1: **Stale" in (project / "docs" / "reproduction.md").read_text()
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet", "--rerun-stale") == 0
    assert len(calls) == 3 and "Stale" not in (project / "records" / "smoke" / "REPORT.md").read_text()


def _editing_on_first_run(monkeypatch, path: Path, interrupt_at: int | None = None) -> list[str]:
    """``run_dummy_tree`` counted, and editing the runs part of ``path`` while its first run runs (and
    interrupted by Ctrl-C at call ``interrupt_at``)."""
    calls = []
    real = _builtin.run_dummy_tree

    def run(ctx):
        if not calls:
            path.write_text(path.read_text().replace("repetitions: 2\n", "repetitions: 3\n"))
        calls.append(ctx.run_name)
        if len(calls) == interrupt_at:
            raise KeyboardInterrupt
        return real(ctx)

    monkeypatch.setattr(_builtin, "run_dummy_tree", run)
    return calls


def _row_stamps(folder: Path) -> list:
    return [json.loads(p.read_text())["code_fingerprint"] for p in sorted((folder / "runs").glob("*.json"))]


def test_cli_record_refuses_runs_made_while_their_code_changed(project, monkeypatch, capsys):
    # regression: the config (in the table's code) edited during the first run of imd/t1; its row claimed the
    # code the invocation started with (the runner stamps the fingerprint taken at its start on every row)
    from tests.instances import run_cli as _cli

    calls = _editing_on_first_run(monkeypatch, project / "configs" / "imd" / "t1.yaml")
    rec = project / "records" / "smoke"
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet") == 2
    err = capsys.readouterr().err
    assert "the code of a table changed while this command ran its runs: 1 run(s) of imd/t1 made while " \
           "`config:imd/t1.yaml` changed" in err and "crl/t1" not in err
    assert "marked as made by unknown code (stale)" in err and "Nothing was recorded" in err
    assert "`interpretopt reproduce --all --scale smoke --record records/smoke --rerun-stale`" in err
    assert not list(rec.glob("**/" + REC.ROWS_FILE)) and not (rec / REC.RECORD_FILE).exists()
    assert _row_stamps(rec / "imd" / "t1") == [None] and _row_stamps(rec / "crl" / "t1") != [None]
    report = (rec / "REPORT.md").read_text()
    assert "**Stale: 1 of 1 runs" in report and "(unknown: no code manifest)" in report
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet", "--rerun-stale") == 0
    assert len(calls) == 3 and "Stale" not in (rec / "REPORT.md").read_text()
    assert "changed while" not in capsys.readouterr().err
    assert all(isinstance(r["code_fingerprint"], str) for r in REC.record_rows(rec / "imd" / "t1"))


def test_cli_record_allow_stale_records_runs_made_while_their_code_changed_as_stale(project, monkeypatch, capsys):
    from tests.instances import run_cli as _cli

    _editing_on_first_run(monkeypatch, project / "configs" / "imd" / "t1.yaml")
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet", "--allow-stale") == 1
    assert "1 run(s) of imd/t1 made while `config:imd/t1.yaml` changed" in capsys.readouterr().err
    rec = project / "records" / "smoke"
    assert [r["code_fingerprint"] for r in REC.record_rows(rec / "imd" / "t1")] == [None]
    assert "**Stale: 1 of 1 runs" in (rec / "REPORT.md").read_text()


@pytest.mark.parametrize("argv", [["reproduce", "imd/t1"], ["run", "configs/imd/t1.yaml"]])
def test_cli_one_table_says_its_runs_were_made_while_their_code_changed(project, monkeypatch, capsys, argv):
    from tests.instances import run_cli as _cli

    _editing_on_first_run(monkeypatch, project / "configs" / "imd" / "t1.yaml")
    assert _cli(*argv, "--smoke", "--out", "out", "--quiet") == 1
    err = capsys.readouterr().err
    assert f"1 run(s) of {argv[1]} made while `config:imd/t1.yaml` changed" in err
    assert "Rerun them: the same command with --force" in err
    assert _row_stamps(project / "out") == [None]
    assert _cli(*argv, "--smoke", "--out", "out", "--quiet", "--force") == 0
    assert "changed while" not in capsys.readouterr().err and _row_stamps(project / "out") != [None]


@pytest.mark.parametrize("argv, table, rerun", [
    (["run", "configs/imd/t1.yaml", "--out", "out"], "configs/imd/t1.yaml", "the same command with --force"),
    (["reproduce", "imd/t1", "--out", "out"], "imd/t1", "the same command with --force"),
    (["reproduce", "--all", "--smoke", "--out", "out"], "imd/t1", "`interpretopt reproduce --all --scale smoke "
                                                                   "--out out --rerun-stale`"),
])
def test_cli_interrupted_runs_are_checked_for_a_code_change(project, monkeypatch, capsys, argv, table, rerun):
    from tests.instances import run_cli as _cli

    # full scale: imd/t1 plans 4 runs; smoke: imd/t1's run, then crl/t1's
    _editing_on_first_run(monkeypatch, project / "configs" / "imd" / "t1.yaml", interrupt_at=2)
    assert _cli(*argv, "--quiet") == 130
    err = capsys.readouterr().err
    assert f"1 run(s) of {table} made while `config:imd/t1.yaml` changed" in err and rerun in err
    assert "interrupted: finished runs are stored" in err
    assert _row_stamps(project / "out" / "imd" / "t1" if "--all" in argv else project / "out") == [None]


@pytest.mark.parametrize("argv, message", [
    (["--scale", "reduced", "--record", "records/smoke"],
     "records/smoke holds a record made at smoke scale, not reduced"),
    (["--smoke", "--no-run", "--out", "empty"], "--no-run: no runs are stored under empty"),
    (["--smoke", "--record", "docs/reproduction.md"], "--record takes the record folder (records/smoke)"),
    (["--smoke", "--record", "--out", "elsewhere"], "--record runs into the record folder itself"),
    (["--smoke", "--no-run", "--out", "records/smoke", "--paper", "imd"], "its report covers every paper"),
])
def test_cli_record_bad_input(project, capsys, argv, message):
    from tests.instances import run_cli as _cli

    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet") == 0
    capsys.readouterr()
    argv = [a for a in argv if a != "--smoke"] + (["--smoke"] if "--smoke" in argv else [])
    assert _cli("reproduce", "--all", *argv, "--quiet") == 2
    assert message in capsys.readouterr().err


def test_cli_record_refuses_before_any_run_when_the_data_is_not_there(project, monkeypatch, capsys):
    from tests.instances import run_cli as _cli

    calls = _counting(monkeypatch)
    path = project / "configs" / "crl" / "t1.yaml"
    path.write_text(path.read_text().replace("datasets: [breast_cancer]", "datasets: [breast_cancer, adult, pima]"))
    monkeypatch.delenv("INTERPRETOPT_DATA", raising=False)
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--record: nothing was run" in err
    assert ("no data directory is set (neither INTERPRETOPT_DATA nor --data-dir), and the tables planned at smoke "
            "scale need 2 dataset file(s): ") in err
    assert "adult.tsv.gz (adult), pima.tsv.gz (pima)" in err and "INTERPRETOPT_DATA=DIR or --data-dir DIR" in err
    data = project / "data"
    data.mkdir()
    (data / "pima.tsv.gz").write_bytes(b"")
    for where, words in ((project / "nowhere", f"the data directory {project / 'nowhere'} does not exist, and the "
                                               "tables planned at smoke scale need 2 dataset file(s) from it"),
                         (data, "the tables planned at smoke scale need 1 dataset file(s) that are missing from the "
                                f"data directory {data}: adult.tsv.gz (adult).")):
        assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet", "--data-dir", where) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err
    assert "pima" not in err  # the file that is there is not named
    monkeypatch.setenv("INTERPRETOPT_DATA", str(data))
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet") == 2
    assert f"missing from the data directory {data}: adult.tsv.gz (adult)" in capsys.readouterr().err
    assert calls == [] and not (project / "records").exists()
    # the data of the refused paper is not needed for another paper's record
    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet", "--paper", "imd") == 0
    assert len(calls) == 1


def test_cli_no_run_on_runs_of_another_config_hash(project, capsys):
    from tests.instances import run_cli as _cli

    assert _cli("reproduce", "--all", "--smoke", "--record", "--quiet") == 0
    path = project / "configs" / "imd" / "t1.yaml"
    path.write_text(path.read_text().replace("repetitions: 2\n", "repetitions: 2\nseed: 5\n"))
    capsys.readouterr()
    assert _cli("reproduce", "--all", "--smoke", "--no-run", "--out", "records/smoke", "--quiet") == 2
    err = capsys.readouterr().err
    assert "runs made with another config" in err and "imd/t1: runs of config hash" in err
    assert "reproduce --all --scale smoke --out records/smoke" in err


def test_record_costs_merge_the_records_measured_costs_at_its_scale(tmp_path):
    from interpretopt.experiments.record import record_costs

    out = tmp_path / "records" / "reduced"
    out.mkdir(parents=True)
    (out / "run_costs.json").write_text(json.dumps({
        "imd/table1": {"reduced": {"per_run_s": 2.5, "cpu_per_run_s": 2.0, "n_runs": 104}},
        "imd/table2": {"smoke": {"per_run_s": 0.3, "n_runs": 130}},   # another scale: not this record's
        "crl/table4": {"reduced": {"per_run_s": 1.0, "n_runs": 0}}}))   # no runs: nothing measured
    shipped = tmp_path / "run_costs.json"
    shipped.write_text(json.dumps({"imd/table1": {"full": {"per_run_s": 9.0, "n_runs": 520},
                                                  "reduced": {"per_run_s": 12.5, "n_runs": 4}}}))
    assert record_costs(out, "reduced", shipped) == ["imd/table1"]
    got = json.loads(shipped.read_text())
    assert got["imd/table1"]["reduced"] == {"per_run_s": 2.5, "cpu_per_run_s": 2.0, "n_runs": 104}
    assert got["imd/table1"]["full"]["n_runs"] == 520 and set(got) == {"imd/table1"}


def test_only_the_repositorys_own_record_writes_the_shipped_costs(tmp_path):
    from interpretopt.experiments.config import configs_root
    from interpretopt.experiments.record import repository_costs_file

    repo = configs_root().resolve().parent
    assert repository_costs_file(repo / "records" / "reduced") == configs_root().resolve() / "run_costs.json"
    assert repository_costs_file(tmp_path / "records" / "reduced") is None
    assert repository_costs_file(repo / "results" / "reduced") is None
