"""Results store: unreadable row files and the provenance of every row."""

from __future__ import annotations

import json
import platform

from interpretopt.experiments.config import parse_config
from interpretopt.experiments.results import RESERVED_COLUMNS, ResultStore, git_commit, provenance, read_results
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
