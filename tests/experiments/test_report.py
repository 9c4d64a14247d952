"""Reproduction records: cell statuses, tolerance, the report over papers, the plan, and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from interpretopt.exceptions import InterpretoptError
from interpretopt.experiments import report as R
from interpretopt.experiments.config import load_config, parse_config
from interpretopt.experiments.fingerprint import config_runs_hash
from tests.instances import run_cli as _cli
from tests.instances import demo_table, write_demo_configs


TABLE = demo_table(
    {"breast_cancer": '{"1": {value: 0.90, std: 0.5}, "2": {value: 0.10, std: 0.0}}',
     "juvenile": '{"1": 0.8}', "imaginary": '{"1": 0.8}'},
    notes="# Protocol: Demo et al. (2020), Section 5.\n"
          "# - data: breast cancer as published; 2 repetitions (Table 1).\n",
    runs="smoke: {repetitions: 1, max_grid: 1}\nreduced: {repetitions: 1}\n",
    source="Demo et al. (2020), Table 1")


@pytest.fixture
def project(tmp_path, monkeypatch):
    write_demo_configs(tmp_path, TABLE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_protocol_notes_are_the_config_header(project):
    notes = R.protocol_notes(project / "configs" / "imd" / "t1.yaml")
    assert notes.splitlines() == ["Protocol: Demo et al. (2020), Section 5.",
                                  "- data: breast cancer as published; 2 repetitions (Table 1)."]


def test_reference_values_take_a_std_and_a_tolerance():
    cfg = parse_config({"name": "t", "method": "noop", "datasets": ["breast_cancer"], "tables": [{
        "name": "a", "metric": "m", "reference": {"tolerance": 3, "values": {"r": {"c": {"value": 1, "std": 0.2},
                                                                                   "d": 2}}}}]})
    ref = cfg.tables[0].reference
    assert ref.values == {"r": {"c": 1.0, "d": 2.0}} and ref.stds == {"r": {"c": 0.2}} and ref.tolerance == 3


def test_bad_reference_cells_are_config_errors():
    from interpretopt.exceptions import ConfigError

    with pytest.raises(ConfigError, match=r"values\.r\.c\.std: expected a number >= 0, got -1"):
        parse_config({"name": "t", "method": "noop", "datasets": ["breast_cancer"], "tables": [{
            "name": "a", "metric": "m", "reference": {"values": {"r": {"c": {"value": 1, "std": -1}}}}}]})
    with pytest.raises(ConfigError, match=r"values\.r\.c\.sd: unknown key; allowed keys: std, value"):
        parse_config({"name": "t", "method": "noop", "datasets": ["breast_cancer"], "tables": [{
            "name": "a", "metric": "m", "reference": {"values": {"r": {"c": {"value": 1, "sd": 1}}}}}]})


def test_cells_say_compared_no_data_or_not_run_with_the_reason(project):
    path = project / "configs" / "imd" / "t1.yaml"
    rec = R.reproduce_config(path, "smoke", project / "out", paper="imd")
    cells = rec.cells.set_index(["row", "column"])
    assert list(rec.cells.columns) == list(R.CELL_COLUMNS)
    # smoke keeps max_depth 1 only: depth 2 is held data that did not run at this scale
    assert cells.loc[("breast_cancer", "1"), "status"] == "compared"
    assert cells.loc[("breast_cancer", "1"), "n_runs"] == 1
    assert cells.loc[("breast_cancer", "2"), "status"] == "not_run"
    assert "column '2' did not run at smoke scale" in cells.loc[("breast_cancer", "2"), "reason"]
    assert cells.loc[("juvenile", "1"), "status"] == "no_data"
    assert "not redistributable" in cells.loc[("juvenile", "1"), "reason"]
    assert "not among this config's datasets" in cells.loc[("imaginary", "1"), "reason"]
    assert set(rec.cells["scale"]) == {"smoke"}


def test_cells_carry_the_range_of_their_runs(project):
    rec = R.reproduce_config(project / "configs" / "imd" / "t1.yaml", "full", project / "out", paper="imd")
    from interpretopt.experiments.results import read_results

    runs = read_results(project / "out")
    for depth in (1, 2):
        acc = runs.loc[runs["max_depth"] == depth, "accuracy"]
        cell = rec.cells[(rec.cells.row == "breast_cancer") & (rec.cells.column == str(depth))].iloc[0]
        assert cell.n_runs == 2 and (cell.ours_min, cell.ours_max) == (acc.min(), acc.max())
        assert cell.ours_min <= cell.ours <= cell.ours_max
    assert rec.cells.loc[rec.cells.status != "compared", ["ours_min", "ours_max"]].isna().all().all()


def test_regression_a_dataset_left_out_at_smoke_scale_is_not_run_not_no_data(project):
    # the smoke section keeps one of the two held datasets: the other's cells are held data
    # that did not run at this scale (counting them as "no data" overstated the compared share)
    path = project / "configs" / "imd" / "t2.yaml"
    path.write_text(TABLE.format(name="imd_t2", paper="imd")
                    .replace("datasets: [breast_cancer]", "datasets: [breast_cancer, circle]")
                    .replace("smoke: {repetitions: 1, max_grid: 1}",
                             "smoke: {repetitions: 1, max_grid: 1, datasets: [breast_cancer]}")
                    .replace("        juvenile:", '        circle: {"1": 0.7}\n        juvenile:'))
    rec = R.reproduce_config(path, "smoke", project / "out2", paper="imd")
    cells = rec.cells.set_index(["row", "column"])
    assert cells.loc[("circle", "1"), "status"] == "not_run"
    assert cells.loc[("circle", "1"), "reason"] == "circle is not among the smoke scale's datasets"
    assert cells.loc[("breast_cancer", "1"), "status"] == "compared"
    s = R.summarize_cells(rec.cells).set_index("paper")
    assert s.loc["imd", "with_data"] == 3 and s.loc["imd", "no_data"] == 2


def test_the_report_draws_the_smallest_stored_jsts(tmp_path):
    import numpy as np

    from interpretopt.methods import IMDExplainer
    from interpretopt.methods.imd_render import graph_to_json, jst_graph

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    rows = []
    for i, depth in enumerate((1, 3)):
        y1, y2 = (X[:, 0] > 0).astype(int), ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)
        imd = IMDExplainer(max_depth=depth).fit(X, y1, y2)
        (tmp_path / "artifacts" / f"k{i}").mkdir(parents=True)
        (tmp_path / "artifacts" / f"k{i}" / "jst.json").write_text(graph_to_json(jst_graph(imd)))
        rows.append({"run_key": f"k{i}", "dataset": f"d{i}", "variant": "imd", "pair_tag": "max",
                     "run_status": "ok"})
    rows.append({"run_key": "k9", "dataset": "d9", "variant": "separate", "pair_tag": "max", "run_status": "ok"})
    figs = R.jst_figures(pd.DataFrame(rows), tmp_path, limit=1)
    assert [f.name for f in figs] == ["jst_d0_max.png"] and figs[0].stat().st_size > 0
    assert R.jst_figures(pd.DataFrame(rows), tmp_path, limit=5, max_leaves=1) == []


def test_cells_are_judged_by_the_agreement_rule(project):
    from interpretopt.experiments import agreement as A

    cfg = load_config(project / "configs" / "imd" / "t1.yaml", scale="reduced")
    rec = R.reproduce_config(project / "configs" / "imd" / "t1.yaml", "reduced", project / "out", paper="imd")
    cells = rec.cells.set_index(["row", "column"])
    acc1 = cells.loc[("breast_cancer", "1")]  # 0.90 +- 0.5 over the config's 2 repetitions; one run of ours
    assert acc1["rule"] == "welch" and acc1["paper_n"] == 2 and acc1["n_runs"] == 1
    assert acc1["tolerance"] == pytest.approx(A.K_SIGMA * (0.5 ** 2 / 2 + 0.5 ** 2 / 1) ** 0.5)
    assert bool(acc1["within_tolerance"]) == (abs(acc1["ours"] - 0.9) <= acc1["tolerance"])
    acc2 = cells.loc[("breast_cancer", "2")]  # its printed std is 0.00 and ours is one run: the absolute band
    assert acc2["rule"] == "absolute" and acc2["tolerance"] == A.ABSOLUTE_TOLERANCE["fraction"]
    assert acc2["verdict"] == "differs" and acc2["within_tolerance"] is False  # ours ~0.9 vs 0.10
    assert acc2["diff"] == pytest.approx(acc2["ours"] - 0.10)
    assert acc2["unit"] == "fraction" and acc2["kind"] == "fraction"
    assert cfg.scale == "reduced"


def test_a_mean_rank_tables_cells_are_judged_in_its_metrics_unit_and_its_mean_rank_as_ranks(tmp_path, monkeypatch):
    """Regression: every cell of a ``mean_rank`` table was judged as a rank (an absolute band of half a rank),
    so an F1 of 0.75 agreed with a published 0.92. Its cells hold the metric; only ``mean rank`` is a rank."""
    from interpretopt.experiments import agreement as A

    table = demo_table({"breast_cancer": '{"1": {value: 0.90, std: 0.5}, "2": {value: 0.10, std: 0.0}}',
                        '"mean rank"': '{"1": 1.0, "2": 2.0}'},
                       runs="reduced: {repetitions: 1}\n").replace("    metric: accuracy\n",
                                                                   "    metric: accuracy\n    aggregate: mean_rank\n")
    write_demo_configs(tmp_path, table)
    monkeypatch.chdir(tmp_path)
    rec = R.reproduce_config(tmp_path / "configs" / "imd" / "t1.yaml", "reduced", tmp_path / "out", paper="imd")
    cells = rec.cells.set_index(["row", "column"])
    body = cells.loc[("breast_cancer", "2")]   # ours ~0.9 against a published 0.10 (std 0.0)
    assert body["unit"] == "fraction" and body["kind"] == "fraction"
    assert body["rule"] == "absolute" and body["tolerance"] == A.ABSOLUTE_TOLERANCE["fraction"]
    assert body["verdict"] == "differs"   # half a rank would have let 0.9 and 0.1 agree
    rank = cells.loc[("mean rank", "1")]
    assert rank["kind"] == "rank" and rank["tolerance"] == A.ABSOLUTE_TOLERANCE["rank"]


def test_a_cell_from_fewer_runs_than_planned_is_partial_not_compared(project):
    from interpretopt.experiments.runner import stored_results

    path = project / "configs" / "imd" / "t1.yaml"
    rec = R.reproduce_config(path, "full", project / "full", paper="imd")  # 2 depths x 2 repetitions
    full = load_config(path)
    results = stored_results(full, project / "full")
    assert len(results) == 4 and rec.n_planned == 4
    one_short = results[~((results["max_depth"] == 2) & (results["rep"] == 1))]
    cells = R.cell_records(full, one_short, paper="imd", n_planned=4).set_index(["row", "column"])
    assert cells.loc[("breast_cancer", "2"), "status"] == "partial"
    assert cells.loc[("breast_cancer", "2"), "n_runs"] == 1 and cells.loc[("breast_cancer", "2"), "n_planned"] == 2
    assert "made from 1 of the 2 runs" in cells.loc[("breast_cancer", "2"), "reason"]
    assert cells.loc[("breast_cancer", "1"), "status"] == "compared"  # this cell has all of its runs
    s = R.summarize_cells(cells.reset_index()).set_index("paper")
    assert s.loc["imd", "partial"] == 1 and s.loc["imd", "compared"] == 1


def test_runs_stopped_by_a_time_limit_are_counted_per_cell(project):
    from interpretopt.experiments.runner import stored_results

    path = project / "configs" / "imd" / "t1.yaml"
    R.reproduce_config(path, "full", project / "full", paper="imd")
    full = load_config(path)
    results = stored_results(full, project / "full")
    assert "n_limited" in R.cell_records(full, results, paper="imd").columns  # without the column: zero
    flagged = results.assign(limited_by_time=(results["max_depth"] == 1))
    cells = R.cell_records(full, flagged, paper="imd").set_index(["row", "column"])
    assert cells.loc[("breast_cancer", "1"), "n_limited"] == 2 and cells.loc[("breast_cancer", "2"), "n_limited"] == 0


def test_scale_changes_list_what_the_scale_section_changes(project):
    full = load_config(project / "configs" / "imd" / "t1.yaml")
    changes = R.scale_changes(full, full.with_scale("smoke"))
    assert "repetitions: 1 (the paper's protocol: 2)" in changes
    assert "rows per dataset: at most 500 (the paper's: all)" in changes
    assert "dummy_tree max_depth: 1 (the paper's: 1, 2)" in changes
    assert R.scale_changes(full, full) == []


def test_summary_counts_cells_with_data(project):
    rec = R.reproduce_config(project / "configs" / "imd" / "t1.yaml", "smoke", project / "out", paper="imd")
    s = R.summarize_cells(rec.cells).set_index("paper")
    assert s.loc["imd", "published"] == 4 and s.loc["imd", "no_data"] == 2 and s.loc["imd", "with_data"] == 2
    assert s.loc["imd", "compared"] == 1 and s.loc["imd", "not_run"] == 1 and s.loc["imd", "partial"] == 0
    assert R.compared_share(rec.cells) == pytest.approx(0.5)


def test_reproduce_all_writes_cells_report_and_costs(project):
    out = project / "rep"
    records = R.reproduce_all("smoke", out, configs_root=project / "configs", command="interpretopt reproduce --all")
    assert [(r.paper, Path(r.path).stem) for r in records] == [("imd", "t1"), ("crl", "t1")]
    cells = pd.read_csv(out / "cells.csv")
    assert set(cells["paper"]) == {"imd", "crl"} and len(cells) == 8
    text = (out / "REPORT.md").read_text()
    assert "# Reproduction report: smoke scale" in text and "<!-- compared-share smoke: 0.5000 -->" in text
    assert "Protocol notes (from the config header)" in text and "Demo et al. (2020), Section 5." in text
    assert "- runs: 2 stored, " in text and " CPU hours in all" in text
    assert "1 no data: juvenile (ICPSR 3986) is not redistributable" in text
    # per cell: ours (+- std, n), the paper's (+- std, n), the verdict; the scale's changes; no protocol caption
    assert "| row | column | ours ± std (n) | paper ± std (n) | verdict | rule: band |" in text
    assert "| 0.900 ± 0.500 (n=2) | " in text and ("✓ agrees" in text or "✗ differs" in text)
    assert "Settings the smoke scale changes against the paper's protocol" in text
    assert "repetitions: 1 (the paper's protocol: 2)" in text
    assert (out / "REPORT.html").is_file()
    costs = json.loads((out / "run_costs.json").read_text())
    assert costs["imd/t1"]["smoke"]["n_runs"] == 1 and costs["imd/t1"]["smoke"]["per_run_s"] >= 0
    assert costs["imd/t1"]["smoke"]["config"] == config_runs_hash(project / "configs" / "imd" / "t1.yaml")


def test_a_cost_measured_with_another_version_of_the_config_is_not_used(project, tmp_path):
    """Regression: "What changed?" at full scale was estimated at 2.1 h from runs made before its
    pricing changed (3.0 CPU s a run); the config's runs cost 0.2 s a run since."""
    path = project / "configs" / "imd" / "t1.yaml"
    today = config_runs_hash(path)
    costs = tmp_path / "run_costs.json"
    costs.write_text(json.dumps({"imd/t1": {"smoke": {"cpu_per_run_s": 1.0, "n_runs": 1, "config": today},
                                            "reduced": {"cpu_per_run_s": 9.0, "n_runs": 2, "config": "0123456789ab"},
                                            "full": {"cpu_per_run_s": 3.0, "n_runs": 4}}}))
    read = R.read_costs(costs, configs_root=project / "configs")["imd/t1"]
    assert set(read) == {"smoke", "full"}  # the reduced cost is another config's; an untagged one is kept
    df = R.plan(papers=["imd"], costs=R.read_costs(costs, configs_root=project / "configs"),
                configs_root=project / "configs").set_index("scale")
    assert pd.isna(df.loc["reduced", "estimate_s"]) and df.loc["smoke", "estimate_s"] == 1.0
    path.write_text(path.read_text().replace("reduced: {repetitions: 1}", "reduced: {repetitions: 2}"))
    assert "smoke" not in R.read_costs(costs, configs_root=project / "configs")["imd/t1"]  # the runs part moved


def test_a_report_without_running_reads_what_is_stored(project):
    out = project / "rep"
    R.reproduce_all("smoke", out, configs_root=project / "configs", papers=["imd"])
    (out / "REPORT.md").unlink()
    # reduced scale plans 2 runs per table; the stored smoke run belongs to another config hash
    records = R.reproduce_all("reduced", out, configs_root=project / "configs", papers=["imd"], run=False)
    assert records[0].n_runs == 0 and records[0].n_planned == 2
    assert set(records[0].cells["status"]) == {"not_run", "no_data"}
    assert "Runs: 0 of 2 planned" in (out / "REPORT.md").read_text()
    records = R.reproduce_all("smoke", out, configs_root=project / "configs", papers=["imd"], run=False)
    assert records[0].n_runs == 1 and (records[0].cells["status"] == "compared").sum() == 1
    assert "Runs: 1 of 1 planned" in (out / "REPORT.md").read_text()


def test_plan_counts_runs_and_estimates_from_measured_costs(project):
    costs = {"imd/t1": {"reduced": {"per_run_s": 2.0, "n_runs": 2}}}
    df = R.plan(papers=["imd"], costs=costs, configs_root=project / "configs").set_index("scale")
    assert df.loc["smoke", "runs"] == 1 and df.loc["reduced", "runs"] == 2 and df.loc["full", "runs"] == 4
    assert df.loc["reduced", "estimate_s"] == 4.0
    assert df.loc["full", "estimate_s"] == 8.0 and "reduced" in df.loc["full", "basis"]
    cpu = {"imd/t1": {"reduced": {"per_run_s": 2.0, "cpu_per_run_s": 0.5, "n_runs": 2}}}
    df = R.plan(papers=["imd"], costs=cpu, configs_root=project / "configs").set_index("scale")
    assert df.loc["reduced", "estimate_s"] == 1.0 and df.loc["reduced", "basis"].startswith("CPU per run")
    assert pd.isna(df.loc["smoke", "estimate_s"]) and df.loc["smoke", "basis"] == "no measurement"


def test_plan_with_a_reproduction_folder_counts_the_runs_done_and_estimates_those_left(project):
    out = project / "rep"
    R.reproduce_all("smoke", out, configs_root=project / "configs", papers=["imd"])
    costs = {"imd/t1": {"smoke": {"per_run_s": 2.0, "n_runs": 1}, "reduced": {"per_run_s": 3.0, "n_runs": 2}}}
    df = R.plan("smoke", papers=["imd"], costs=costs, configs_root=project / "configs", out_root=out)
    row = df.set_index("table").loc["imd/t1"]
    assert (row["runs"], row["done"], row["left"], row["estimate_s"]) == (1, 1, 0, 0.0)
    # the smoke run is not a reduced run (another config hash): nothing done there
    row = R.plan("reduced", papers=["imd"], costs=costs, configs_root=project / "configs",
                 out_root=out).set_index("table").loc["imd/t1"]
    assert (row["done"], row["left"], row["estimate_s"]) == (0, 2, 6.0)
    with pytest.raises(InterpretoptError, match="at one scale: give --scale"):
        R.plan(papers=["imd"], costs=costs, configs_root=project / "configs", out_root=out)


def test_plan_says_which_runs_done_were_made_by_other_code(project, capsys):
    """Regression: ``--plan`` counted a stale table's stored runs as done (34,452 of 34,452 while the code
    every table imports had changed), so nothing said that the record needed remaking."""
    from interpretopt.experiments.cli_commands import _print_plan

    out = project / "rep"
    R.reproduce_all("smoke", out, configs_root=project / "configs", papers=["imd"])
    costs = {"imd/t1": {"smoke": {"per_run_s": 2.0, "n_runs": 1}}}

    def row():
        df = R.plan("smoke", papers=["imd"], costs=costs, configs_root=project / "configs", out_root=out)
        return df, df.set_index("table").loc["imd/t1"]

    df, fresh = row()
    assert (fresh["done"], fresh["stale"], fresh["left"], fresh["stale_estimate_s"]) == (1, 0, 0, 0.0)
    path = project / "configs" / "imd" / "t1.yaml"  # the runs part changes (full scale's repetitions only)
    path.write_text(path.read_text().replace("repetitions: 2\n", "repetitions: 3\n"))
    df, stale = row()
    assert (stale["done"], stale["stale"], stale["left"], stale["stale_estimate_s"]) == (1, 1, 0, 2.0)
    capsys.readouterr()
    _print_plan(df)
    text = capsys.readouterr().out
    assert "1 already done (1 of them stale, made by other code than today's, in 1 tables; rerunning them " \
           "(--rerun-stale) is estimated at" in text
    assert _cli("reproduce", "imd/t1", "--smoke", "--out", out / "imd" / "t1") == 0  # one table: kept, and said
    assert "1 of the 1 runs stored were made by other code than today's" in capsys.readouterr().out
    # one table remade (a record remade table by table): its stale run forgotten and made again by today's code
    assert _cli("reproduce", "imd/t1", "--smoke", "--out", out / "imd" / "t1", "--rerun-stale") == 0
    assert "(forgot 1 runs made by other code than today's)" in capsys.readouterr().out
    assert row()[1]["stale"] == 0 and row()[1]["done"] == 1


def test_plan_estimates_the_runs_left_by_dataset(project):
    """Regression: "What changed?"'s full grid was estimated at 23 min for its 1,440 runs left, from the mean of
    the 1,080 done (adult, bc, mushroom: 0.97 CPU s a run); its heloc runs cost 80 s a run."""
    from interpretopt.experiments.runner import run_experiment

    path = project / "configs" / "imd" / "t1.yaml"
    path.write_text(path.read_text().replace("datasets: [breast_cancer]", "datasets: [breast_cancer, circle]"))
    config = load_config(path, scale="smoke")
    run_experiment(config.with_datasets(["breast_cancer"]), out_dir=project / "rep" / "imd" / "t1", progress=False)
    n = R.count_runs(config.with_datasets(["circle"]))
    cost = {"per_run_s": 2.0, "cpu_per_run_s": 2.0, "n_runs": 1}
    for by_dataset, per_left, note in (({"breast_cancer": 1.0, "circle": 10.0}, 10.0, "by dataset"),
                                       ({"breast_cancer": 1.0}, 2.0, "circle at the mean: not measured"),
                                       (None, 2.0, "")):
        entry = {**cost, "cpu_by_dataset": by_dataset} if by_dataset else cost
        row = R.plan("smoke", papers=["imd"], costs={"imd/t1": {"smoke": entry}}, configs_root=project / "configs",
                     out_root=project / "rep").set_index("table").loc["imd/t1"]
        assert (row["done"], row["left"]) == (R.count_runs(config) - n, n)
        assert row["estimate_s"] == pytest.approx(per_left * n) and note in row["basis"]
    # what a record writes into run_costs.json for it
    runs = pd.DataFrame({"dataset": ["adult", "adult", "heloc"], "cpu_time": [1.0, 3.0, 80.0]})
    assert R._cpu_by_dataset(runs) == {"adult": 2.0, "heloc": 80.0}


def test_plan_without_a_folder_estimates_by_dataset_and_says_what_was_measured(project):
    """Regression: ABBR's certify was estimated at 2.5 CPU h from adult's 16 runs (111 CPU s each) while
    its other datasets cost about 500 s a run; --plan said neither that 16 of its 80 runs were measured
    nor that four of its five datasets never were."""
    path = project / "configs" / "imd" / "t1.yaml"
    one_dataset = path.read_text()
    path.write_text(one_dataset.replace("datasets: [breast_cancer]", "datasets: [breast_cancer, circle]"))
    config = load_config(path, scale="smoke")
    per_ds = {d: R.count_runs(config.with_datasets([d])) for d in ("breast_cancer", "circle")}
    entry = {"per_run_s": 2.0, "cpu_per_run_s": 2.0, "n_runs": 1}
    for by_dataset, expected, note in (({"breast_cancer": 1.0, "circle": 10.0}, per_ds["breast_cancer"] * 1.0
                                        + per_ds["circle"] * 10.0, "by dataset"),
                                       ({"breast_cancer": 1.0}, per_ds["breast_cancer"] * 1.0 + per_ds["circle"] * 2.0,
                                        "by dataset (circle at the mean: not measured)")):
        row = R.plan("smoke", papers=["imd"], costs={"imd/t1": {"smoke": {**entry, "cpu_by_dataset": by_dataset}}},
                     configs_root=project / "configs").set_index("table").loc["imd/t1"]
        assert row["estimate_s"] == pytest.approx(expected) and note in row["basis"]
        assert f"(1 of {sum(per_ds.values())} runs)" in row["basis"]
    # a table of one dataset records its cost with that dataset, so that --plan can tell which were measured
    path.write_text(one_dataset)
    out = project / "rep"
    R.reproduce_all("smoke", out, configs_root=project / "configs", papers=["imd"])
    recorded = R.read_costs(out, configs_root=project / "configs")["imd/t1"]["smoke"]
    assert set(recorded["cpu_by_dataset"]) == {"breast_cancer"}


def test_cli_plan_with_out_says_what_is_left(project, capsys):
    out = project / "rep"
    R.reproduce_all("smoke", out, configs_root=project / "configs", papers=["imd"])
    capsys.readouterr()
    assert _cli("reproduce", "--plan", "--smoke", "--paper", "imd", "--out", out) == 0
    text = capsys.readouterr().out
    assert "done  stale  left" in text and "smoke: 1 runs in 1 tables; 1 already done, 0 left in 0 tables" in text
    assert _cli("reproduce", "--plan", "--paper", "imd", "--out", out) == 0  # every scale: no counts
    assert "already done" not in capsys.readouterr().out


def test_plan_does_not_estimate_full_from_a_reduced_scale_on_other_datasets(project):
    """Regression: the full "What changed?" grid (7 datasets) was estimated at 24 min from the reduced
    scale's bc and pima runs; heloc's runs alone cost hours."""
    path = project / "configs" / "imd" / "t1.yaml"
    path.write_text(path.read_text().replace("datasets: [breast_cancer]", "datasets: [breast_cancer, circle]")
                    .replace("reduced: {repetitions: 1}", "reduced: {repetitions: 1, datasets: [breast_cancer]}"))
    costs = {"imd/t1": {"reduced": {"per_run_s": 2.0, "n_runs": 2}}}
    df = R.plan(papers=["imd"], costs=costs, configs_root=project / "configs").set_index("scale")
    assert df.loc["reduced", "estimate_s"] == 4.0
    assert pd.isna(df.loc["full", "estimate_s"])
    assert df.loc["full", "basis"] == "no measurement (reduced scale runs other datasets)"


def test_plan_counts_a_table_that_tabulates_another_tables_runs_as_no_work(project):
    """Regression: IMD's Table 7 (runs_from: table1) was estimated at Table 1's 54 minutes again."""
    src = project / "configs" / "imd" / "t1.yaml"
    (src.parent / "t7.yaml").write_text("runs_from: t1\n" + src.read_text())
    costs = {"imd/t1": {"reduced": {"per_run_s": 2.0, "n_runs": 2}}, "imd/t7": {"reduced": {"per_run_s": 2.0}}}
    df = R.plan("reduced", papers=["imd"], costs=costs, configs_root=project / "configs").set_index("table")
    assert df.loc["imd/t1", "estimate_s"] == 4.0
    assert df.loc["imd/t7", "runs"] == 0 and df.loc["imd/t7", "estimate_s"] == 0.0
    assert df.loc["imd/t7", "basis"] == "tabulates the runs of imd/t1 (2 runs)"


def test_unknown_paper_is_an_error_naming_the_valid_ones(project):
    with pytest.raises(InterpretoptError, match="unknown paper.*'imdd'.*valid papers: whatchanged, imd, crl"):
        R.table_configs(project / "configs", ["imdd"])


def test_cli_reproduce_all_writes_the_report_and_cells(project, capsys):
    out = project / "cli"
    assert _cli("reproduce", "--all", "--scale", "smoke", "--out", out, "--quiet") == 0
    text = capsys.readouterr().out
    assert "imd/t1: 1 runs (0 failed)" in text and "all: 8 published cells, 4 with data, 2 compared (50%)" in text
    assert (out / "REPORT.md").is_file() and (out / "cells.csv").is_file()


def test_cli_single_table_writes_cells_and_protocol(project, capsys):
    out = project / "one"
    assert _cli("reproduce", "imd/t1", "--smoke", "--out", out, "--quiet") == 0
    text = capsys.readouterr().out
    assert "1 runs: 0 already done, 1 ok" in text and "[smoke scale, not the published protocol]" in text
    cells = pd.read_csv(out / "cells.csv")
    assert len(cells) == 4 and "Section 5" in (out / "protocol.md").read_text()


def test_cli_plan_runs_nothing(project, capsys):
    assert _cli("reproduce", "--plan", "--paper", "crl") == 0
    text = capsys.readouterr().out
    assert "crl/t1" in text and "imd/t1" not in text and "full: 4 runs" in text
    assert not (project / "results").exists()


def test_cli_plan_shows_a_config_that_does_not_load(project, capsys):
    """Regression: one config that failed to load crashed --plan (int() of a NaN run count)."""
    (project / "configs" / "crl" / "t2.yaml").write_text("name: broken\nmethod: dummy_tree\n")
    assert _cli("reproduce", "--plan", "--paper", "crl") == 0
    text = capsys.readouterr().out
    assert "crl/t2" in text and "config does not load" in text and "crl/t1" in text


@pytest.mark.parametrize("argv, message", [
    (["reproduce"], "give either PAPER/TABLE or --all"),
    (["reproduce", "imd/t1", "--all"], "give either PAPER/TABLE or --all"),
    (["reproduce", "imd/t1", "--plan"], "--plan covers every table"),
    (["reproduce", "--all", "--smoke", "--scale", "full"], "--smoke contradicts --scale full"),
    (["reproduce", "--all", "--paper", "nope"], "unknown paper(s) ['nope']"),
    (["reproduce", "imd/t1", "--smoke", "--record", "r.md"], "--record writes or checks the report of --all"),
])
def test_cli_reproduce_bad_input(project, capsys, argv, message):
    assert _cli(*argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("label, summary", [
    ("mean rank", True), ("p (Wilcoxon vs imd)", True), ("# imd greater", True), ("% change from separate", True),
    ("adult / max", False), ("p", False), ("mushroom", False),
])
def test_summary_rows_are_not_datasets(label, summary):
    """Regression: the summary rows of a table (mean rank, p-values, wins, % change) were counted as
    cells of an unknown dataset ("no data") instead of being compared."""
    spec = parse_config({"name": "t", "method": "noop", "datasets": ["breast_cancer"],
                         "tables": [{"name": "a", "metric": "m", "rows": ["dataset", "pair"]}]}).tables[0]
    assert R._is_summary_row(label) is summary
    assert (R._row_dataset(spec, label) is None) is summary


def _sharing_project(project, t2_extra: str = ""):
    """imd/t2 tabulates the runs of imd/t1 (``runs_from``), with a table of its own."""
    text = TABLE.format(name="imd_t2", paper="imd").replace("tables:\n", f"runs_from: t1\n{t2_extra}tables:\n", 1)
    (project / "configs" / "imd" / "t2.yaml").write_text(text.replace("- name: table1", "- name: table2"))


def test_a_config_with_runs_from_reads_and_makes_the_runs_of_the_config_it_names(project, capsys):
    _sharing_project(project)
    out = project / "rep"
    recs = R.reproduce_all("smoke", out, configs_root=project / "configs", papers=["imd"])
    assert [(Path(r.path).stem, r.n_runs) for r in recs] == [("t1", 1), ("t2", 1)]
    assert len(list((out / "imd" / "t1" / "runs").glob("*.json"))) == 1
    assert not (out / "imd" / "t2" / "runs").exists()  # nothing ran twice
    assert "0 ok" in recs[1].run_summary and "the runs of t1" in recs[1].run_summary
    assert (recs[1].cells["status"] == "compared").sum() == 1
    # t2 alone, first: it makes t1's runs in t1's directory; `table` then reads them
    one = project / "one"
    assert _cli("reproduce", "imd/t2", "--smoke", "--out", one / "imd" / "t2", "--quiet") == 0
    assert len(list((one / "imd" / "t1" / "runs").glob("*.json"))) == 1
    assert (one / "imd" / "t2" / "cells.csv").is_file()
    capsys.readouterr()
    assert _cli("table", "imd/t2", "--smoke", "--out", one / "imd" / "t2") == 0
    assert "table2" in capsys.readouterr().out


def test_a_seed_given_to_a_config_with_runs_from_reads_the_named_configs_runs_at_that_seed(project):
    _sharing_project(project)
    out = project / "rep" / "imd" / "t2"
    rec = R.reproduce_config(project / "configs" / "imd" / "t2.yaml", "smoke", out, seed=5)
    assert not rec.error and rec.n_runs == 1
    assert len(list((project / "rep" / "imd" / "t1" / "runs").glob("*.json"))) == 1
    seeded = R.reproduce_config(project / "configs" / "imd" / "t1.yaml", "smoke", project / "rep" / "imd" / "t1",
                                seed=5)
    assert "1 already done" in seeded.run_summary  # t1 at seed 5 finds the runs t2 made
    plain = R.reproduce_config(project / "configs" / "imd" / "t1.yaml", "smoke", project / "rep" / "imd" / "t1")
    assert "0 already done" in plain.run_summary  # the file's own seed is other runs


def test_runs_from_a_config_with_other_runs_is_an_error_naming_what_differs(project, capsys):
    _sharing_project(project, "seed: 7\n")
    rec = R.reproduce_config(project / "configs" / "imd" / "t2.yaml", "smoke", project / "rep" / "imd" / "t2")
    assert rec.error and "does not plan the same runs" in rec.error and "config hash" in rec.error
    assert not (project / "rep" / "imd" / "t1").exists()
    (project / "configs" / "imd" / "t2.yaml").write_text(
        (project / "configs" / "imd" / "t2.yaml").read_text().replace("runs_from: t1", "runs_from: nope"))
    assert _cli("table", "imd/t2", "--smoke", "--out", project / "x") == 2
    assert "runs_from: no config nope.yaml" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["t1.yaml", "../t1", "", 3])
def test_runs_from_takes_a_file_stem(value):
    with pytest.raises(InterpretoptError, match="runs_from"):
        parse_config({"name": "t", "method": "noop", "datasets": ["breast_cancer"], "runs_from": value})


def test_stored_runs_line_counts_a_shared_table_s_runs_once():
    """Regression: a table with ``runs_from`` (CRL Figure 3 reads Table 2's runs) added its source's
    runs and CPU a second time to the report's "runs: N stored, X CPU hours" line."""
    from types import SimpleNamespace as NS

    table2 = NS(config=NS(runs_from=None), n_runs=150, cpu_time=7200.0, commits=["a" * 40])
    figure3 = NS(config=NS(runs_from="table2"), n_runs=150, cpu_time=7200.0, commits=["a" * 40])
    other = NS(config=NS(runs_from=None), n_runs=10, cpu_time=1800.0, commits=["b" * 40])
    line = R._stored_runs_line([table2, figure3, other])
    assert line.startswith("- runs: 160 stored, 2.50 CPU hours in all")
    assert R._stored_runs_line([figure3]) is None
