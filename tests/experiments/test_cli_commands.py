"""CLI handlers (called directly): run, table, plot, reproduce, list configs, and configs/smoke.yaml."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd
import pytest

from interpretopt.experiments.cli_commands import resolve_config_path
from interpretopt.experiments.results import read_results
from tests.instances import demo_table, write_demo_configs
from tests.instances import run_cli as _cli

REPO_CONFIGS = Path(__file__).resolve().parents[2] / "configs"


TABLE = demo_table({"breast_cancer": '{"1": 0.5, "2": 0.99}'}, runs="preset: highs_fast\n",
                   source="Demo et al. (2020), Table 1",
                   after="plots:\n  - {name: acc, kind: line, x: max_depth, y: accuracy}\n")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A working directory with configs/ (solver presets and one paper table, demo/table1)."""
    write_demo_configs(tmp_path, TABLE, papers=("demo",), stem="table1")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_run_table_plot_and_resume(project, capsys):
    assert _cli("run", "demo/table1", "--quiet") == 0
    out = capsys.readouterr().out
    assert "4 runs: 0 already done, 4 ok, 0 failed" in out
    assert len(read_results(project / "results" / "demo_table1")) == 4
    assert _cli("run", "configs/demo/table1.yaml", "--quiet") == 0
    assert "4 already done" in capsys.readouterr().out
    assert _cli("table", "demo/table1") == 0
    out = capsys.readouterr().out
    assert "| breast_cancer |" in out and "Ours beside the paper (Demo et al. (2020), Table 1)" in out
    assert "| row | column | ours | paper | diff |" in out and "| breast_cancer | 2 |" in out
    assert (project / "results" / "demo_table1" / "tables" / "table1.tex").is_file()
    assert _cli("table", "demo/table1", "--format", "csv") == 0
    assert "row,column,mean,std,count,cell,paper,diff" in capsys.readouterr().out
    assert _cli("plot", "demo/table1") == 0
    assert (project / "results" / "demo_table1" / "plots" / "acc.svg").is_file()


def test_reproduce_prints_comparison(project, capsys):
    assert _cli("reproduce", "demo-table1", "--quiet", "--smoke", "--out", project / "o") == 0
    out = capsys.readouterr().out
    assert "2 ok" in out and "| row | column | ours | paper | diff |" in out and "| breast_cancer | 1 |" in out
    assert len(read_results(project / "o")) == 2  # smoke: one repetition


def test_errors_are_reported_with_exit_codes(project, capsys):
    assert _cli("table", "demo/table1") == 2
    assert "no results of 'demo_table1'" in capsys.readouterr().err
    assert _cli("run", "nope/none") == 2
    assert "interpretopt list configs" in capsys.readouterr().err
    (project / "configs" / "demo" / "bad.yaml").write_text("name: b\nmethod: noop\ndatasets: [breast_cancer]\nx: 1\n")
    assert _cli("run", "demo/bad") == 2
    assert "x: unknown key" in capsys.readouterr().err
    (project / "configs" / "demo" / "fails.yaml").write_text(
        "name: f\nmethod: fail\ndatasets: [breast_cancer]\n")
    assert _cli("run", "demo/fails", "--quiet") == 1
    assert "failed runs:" in capsys.readouterr().out


def test_list_configs(project, capsys):
    (project / "configs" / "demo" / "bad.yaml").write_text("name: b\nmethod: noop\n")
    assert _cli("list", "configs") == 1
    out = capsys.readouterr().out
    assert "demo/table1.yaml" in out and "dummy_tree" in out and "runs=     4" in out
    assert "demo/bad.yaml" in out and "INVALID" in out
    assert "solvers" not in out


def test_resolve_config_path(project):
    expected = (project / "configs" / "demo" / "table1.yaml").resolve()
    for name in ("demo/table1", "demo/table1.yaml", "demo-table1", "demo:table1", "configs/demo/table1.yaml"):
        assert resolve_config_path(name).resolve() == expected


def test_repo_smoke_config_runs_end_to_end(tmp_path, capsys):
    cfg = REPO_CONFIGS / "smoke.yaml"
    assert _cli("run", cfg, "--smoke", "--out", tmp_path, "--quiet") == 0
    assert _cli("table", cfg, "--smoke", "--out", tmp_path) == 0
    assert _cli("plot", cfg, "--smoke", "--out", tmp_path) == 0
    df = read_results(tmp_path)
    assert (df.run_status == "ok").all() and len(df) > 0


def test_commands_through_the_main_cli(project, capsys, monkeypatch):
    cli = pytest.importorskip("interpretopt.cli")
    # main() exports --data-dir as INTERPRETOPT_DATA: restore the variable after the test
    monkeypatch.setenv("INTERPRETOPT_DATA", str(project))
    if "run" not in cli.build_parser()._subparsers._group_actions[0].choices:
        pytest.skip("the experiment commands are not wired into interpretopt.cli")
    assert cli.main(["--data-dir", str(project), "run", "demo/table1", "--smoke", "--quiet"]) == 0
    assert cli.main(["table", "demo/table1", "--smoke"]) == 0
    assert cli.main(["list", "configs"]) == 0
    out = capsys.readouterr().out
    assert "2 ok" in out and "Ours at smoke scale beside the paper" in out and "demo/table1.yaml" in out
    assert "[smoke scale, not the published protocol]" in out


def test_scale_option_runs_the_reduced_section_into_its_own_directory(project, capsys):
    assert _cli("run", "demo/table1", "--scale", "reduced", "--quiet") == 0
    assert (project / "results" / "demo_table1-reduced" / "results.parquet").is_file()
    df = read_results(project / "results" / "demo_table1-reduced")
    assert set(df["scale"]) == {"reduced"}
    assert _cli("table", "demo/table1", "--scale", "reduced") == 0
    assert "[reduced scale, not the published protocol]" in capsys.readouterr().out


def test_smoke_and_another_scale_together_is_an_error(project, capsys):
    assert _cli("run", "demo/table1", "--smoke", "--scale", "full", "--quiet") == 2
    assert "--smoke contradicts --scale full" in capsys.readouterr().err


def test_seed_option_runs_other_splits_into_their_own_directory(project, capsys):
    assert _cli("run", "demo/table1", "--quiet") == 0
    assert _cli("run", "demo/table1", "--seed", "7", "--quiet") == 0
    assert "4 runs: 0 already done, 4 ok" in capsys.readouterr().out
    base = read_results(project / "results" / "demo_table1")
    seeded = read_results(project / "results" / "demo_table1-seed7")
    assert len(seeded) == 4 and set(seeded["config_hash"]).isdisjoint(base["config_hash"])
    assert set(seeded["seed"]).isdisjoint(base["seed"])  # the runs' hashed seeds follow the root seed
    assert _cli("table", "demo/table1", "--seed", "7") == 0
    assert "| breast_cancer |" in capsys.readouterr().out
    assert _cli("reproduce", "demo/table1", "--seed", "7", "--no-run", "--quiet",
                "--out", project / "results" / "demo_table1-seed7") == 0
    assert "| breast_cancer |" in capsys.readouterr().out


def test_datasets_option_runs_part_of_a_table_as_the_whole_tables_runs(project, capsys):
    (project / "configs" / "demo" / "two.yaml").write_text(textwrap.dedent("""
        name: demo_two
        method: dummy_tree
        params: {max_depth: [1]}
        datasets: [breast_cancer, circle]
        repetitions: 2
        preset: highs_fast
        tables:
          - name: acc
            metric: accuracy
            columns: [max_depth]
            reference:
              source: "Demo et al. (2020), Table 2"
              values: {breast_cancer: {"1": 0.9}, circle: {"1": 0.6}}
    """))
    assert _cli("run", "demo/two", "--datasets", "circle", "--quiet") == 0
    assert "2 runs: 0 already done, 2 ok" in capsys.readouterr().out
    assert _cli("table", "demo/two", "--datasets", "circle") == 0
    out = capsys.readouterr().out
    assert "| circle |" in out and "breast_cancer" not in out
    assert _cli("reproduce", "demo/two", "--datasets", "circle", "--no-run", "--quiet",
                "--out", project / "results" / "demo_two") == 0
    cells = pd.read_csv(project / "results" / "demo_two" / "cells.csv").set_index("row")
    assert cells.loc["circle", "status"] == "compared"
    assert cells.loc["breast_cancer", "reason"] == "breast_cancer is not among the datasets selected (--datasets)"
    capsys.readouterr()
    assert _cli("run", "demo/two", "--quiet") == 0  # the whole table reuses the selection's runs
    assert "4 runs: 2 already done, 2 ok" in capsys.readouterr().out
    assert set(read_results(project / "results" / "demo_two")["dataset"]) == {"breast_cancer", "circle"}
    assert _cli("run", "demo/two", "--datasets", "adult", "--quiet") == 2
    assert "unknown dataset label(s) 'adult'; valid labels: breast_cancer, circle" in capsys.readouterr().err
    assert _cli("reproduce", "--all", "--datasets", "circle", "--quiet") == 2
    assert "--datasets applies to one table" in capsys.readouterr().err


def test_seed_option_rejects_bad_values_and_all(project, capsys):
    with pytest.raises(SystemExit):
        _cli("run", "demo/table1", "--seed", "-1")
    assert "expected an integer >= 0, got '-1'" in capsys.readouterr().err
    assert _cli("reproduce", "--all", "--seed", "1", "--quiet") == 2
    assert "--seed applies to one table" in capsys.readouterr().err


# ----------------------------------------------------------------------------- --set, the plan, messages


def test_set_overrides_on_run_table_plot_and_reproduce(project, capsys):
    assert _cli("run", "demo/table1", "--set", "max_depth=3", "--set", "repetitions=1", "--quiet") == 0
    df = read_results(project / "results" / "demo_table1")
    assert len(df) == 1 and df["max_depth"].tolist() == [3] and df["overrides"].tolist() == ["max_depth=3 repetitions=1"]
    assert _cli("table", "demo/table1", "--set", "max_depth=3", "--set", "repetitions=1") == 0
    assert "| dataset \\ max_depth | 3 |" in capsys.readouterr().out
    assert _cli("plot", "demo/table1", "--set", "max_depth=3", "--set", "repetitions=1") == 0
    assert _cli("reproduce", "demo/table1", "--smoke", "--quiet", "--set", "methods.0.params.max_depth=[2]",
                "--out", project / "o") == 0
    df = read_results(project / "o")
    assert df["max_depth"].tolist() == [2] and df["overrides"].tolist() == ["methods.0.params.max_depth=[2]"]
    capsys.readouterr()
    assert _cli("run", "demo/table1", "--set", "max_dept=3") == 2
    assert "(did you mean 'max_depth'?)" in capsys.readouterr().err
    assert _cli("table", "demo/table1", "--set", "settings.time_limt=3") == 2
    assert "(did you mean 'time_limit'?)" in capsys.readouterr().err
    assert _cli("reproduce", "--all", "--smoke", "--set", "seed=1") == 2
    assert "--set applies to one table" in capsys.readouterr().err


def test_run_prints_its_plan_first_with_the_measured_estimate(project, capsys):
    out = project / "results" / "demo_table1"
    out.mkdir(parents=True)
    (out / "run_costs.json").write_text('{"demo/table1": {"full": {"cpu_per_run_s": 2.5, "n_runs": 4}}}')
    assert _cli("run", "demo/table1", "--quiet") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("demo_table1 (full scale): 4 runs, 0 already done; estimated 10 s on 1 worker "
                        "(2.50 s per run, CPU per run measured at full scale)")
    assert _cli("run", "demo/table1", "--quiet", "--scale", "reduced") == 0
    assert "4 runs, 0 already done; no time estimate (no measured cost of demo/table1 at reduced scale)" in \
        capsys.readouterr().out
    assert _cli("run", "demo/table1", "--quiet") == 0
    assert capsys.readouterr().out.startswith("demo_table1 (full scale): 4 runs, 4 already done; estimated 0 s")


def test_datasets_not_held_are_one_message_naming_them_and_data_dir(project, capsys, monkeypatch):
    monkeypatch.delenv("INTERPRETOPT_DATA", raising=False)
    (project / "configs" / "demo" / "data.yaml").write_text(textwrap.dedent("""
        name: demo_data
        method: dummy_tree
        params: {max_depth: 1}
        datasets: [adult, breast_cancer, pima]
        tables: [{name: t, metric: accuracy, columns: [max_depth]}]
    """))
    (project / "nodata").mkdir()
    assert _cli("run", "demo/data", "--quiet", "--data-dir", project / "nodata") == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "DataError" not in err
    assert "2 of 3 datasets of demo_data are not in the data directory" in err
    assert "adult (adult.tsv.gz), pima (pima.tsv.gz)" in err and "--data-dir DIR" in err and "data_dir=" not in err
    assert read_results(project / "results" / "demo_data")["dataset"].tolist() == ["breast_cancer"]
    (project / "configs" / "demo" / "nodata.yaml").write_text(
        "name: demo_nodata\nmethod: dummy_tree\ndatasets: [adult, pima]\n")
    for cmd in (("run", "demo/nodata"), ("reproduce", "demo/nodata", "--smoke")):
        assert _cli(*cmd, "--quiet") == 2
        err = capsys.readouterr().err
        assert err.count("error:") == 1 and "2 of 2 datasets of demo_nodata are not found: no data directory is set" in err


def test_tables_left_unmade_by_failed_runs_say_so_in_one_line(project, capsys):
    (project / "configs" / "demo" / "fails.yaml").write_text(textwrap.dedent("""
        name: demo_fails
        method: fail
        params: {k: [1, 2]}
        datasets: [breast_cancer]
        tables:
          - {name: t1, metric: accuracy, columns: [k]}
          - {name: t2, metric: fidelity, columns: [k]}
    """))
    assert _cli("run", "demo/fails", "--quiet") == 1
    capsys.readouterr()
    assert _cli("table", "demo/fails") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not in the results" not in err
    assert "tables t1, t2 cannot be made: 2 of 2 runs failed (first error: RuntimeError:" in err
    assert _cli("reproduce", "demo/fails", "--quiet", "--out", project / "r") == 1
    err = capsys.readouterr().err
    assert "problem: tables t1, t2 cannot be made: 2 of 2 runs failed (first error: RuntimeError" in err
    assert "not in the results" not in err


def _paper_tables(project, *names):
    """Copies of the demo table as tables of the paper ``crl`` (reproduce --all knows the papers by name)."""
    (project / "configs" / "crl").mkdir()
    text = (project / "configs" / "demo" / "table1.yaml").read_text()
    for n in names:
        (project / "configs" / "crl" / f"{n}.yaml").write_text(text.replace("demo_table1", f"crl_{n}"))


def test_reproduce_names_the_valid_tables_and_takes_paper_alone(project, capsys):
    assert _cli("reproduce", "demo/table99") == 2
    assert "no config 'demo/table99' (did you mean 'demo/table1'?); the tables of demo: table1" in \
        capsys.readouterr().err
    _paper_tables(project, "t1")
    assert _cli("reproduce", "--paper", "crl", "--smoke", "--quiet", "--out", project / "all") == 0
    captured = capsys.readouterr()
    assert "(every table of crl: the same as --all --paper crl)" in captured.err
    assert "smoke: 2 runs in 1 tables" in captured.out and (project / "all" / "REPORT.md").is_file()


def test_plan_names_the_tables_without_an_estimate(project, capsys):
    _paper_tables(project, "t1", "t2")
    (project / "o").mkdir()
    (project / "o" / "run_costs.json").write_text('{"crl/t1": {"smoke": {"cpu_per_run_s": 3.0, "n_runs": 2}}}')
    assert _cli("reproduce", "--plan", "--smoke", "--paper", "crl", "--out", project / "o") == 0
    out = capsys.readouterr().out
    assert ("smoke: 4 runs in 2 tables; 0 already done, 4 left in 2 tables; estimated 6 s on one worker for the 1 "
            "tables with a measured cost, plus 1 tables (2 left) without one, not in that total: crl/t2") in out


def test_reproduce_all_says_in_one_line_what_failed_runs_left_unmade(project, capsys, monkeypatch):
    monkeypatch.delenv("INTERPRETOPT_DATA", raising=False)
    _paper_tables(project, "t1")
    text = (project / "configs" / "crl" / "t1.yaml").read_text().replace("datasets: [breast_cancer]",
                                                                          "datasets: [breast_cancer, pima]")
    (project / "configs" / "crl" / "t1.yaml").write_text(text.replace("method: dummy_tree", "method: fail"))
    assert _cli("reproduce", "--all", "--paper", "crl", "--smoke", "--quiet", "--out", project / "all") == 1
    captured = capsys.readouterr()
    assert captured.err.count("warning:") == 1 and "1 datasets are not in the data directory (none is set): " \
        "pima (pima.tsv.gz)" in captured.err
    line = next(x for x in captured.out.splitlines() if x.startswith("crl/t1:"))
    assert "problem: table table1 and the figures cannot be made: 4 of 4 runs failed (first error: " in line
    assert "columns:" not in captured.out + captured.err and "data_dir=" not in captured.out
