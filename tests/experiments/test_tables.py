"""Tables and plots are pure functions of a results DataFrame."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sst

from interpretopt.exceptions import InputError
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.plots import pareto_front, write_plots
from interpretopt.experiments.tables import make_table, to_csv, to_latex, to_markdown, write_tables


def _results():
    """3 datasets x 3 variants x 2 reps with known values; one failed row that must be ignored."""
    rows = []
    base = {"d1": 0.9, "d2": 0.8, "d3": 0.7}
    shift = {"A": 0.0, "B": -0.05, "C": 0.02}
    for d, b in base.items():
        for v, s in shift.items():
            for rep in (0, 1):
                rows.append({"dataset": d, "variant": v, "rep": rep, "run_status": "ok", "depth": 2 + rep,
                             "f1": b + s + (0.01 if rep else -0.01),
                             "n_rules": 10 * (rep + 1) + {"A": 1, "B": 3, "C": 2}[v]})
    rows.append({"dataset": "d1", "variant": "A", "rep": 2, "run_status": "failed", "f1": None, "depth": 2,
                 "n_rules": None})
    return pd.DataFrame(rows)


def _spec(**kw):
    t = {"name": "t", "metric": "f1", "rows": ["dataset"], "columns": ["variant"]}
    t.update(kw)
    return parse_config({"name": "x", "method": "noop", "datasets": ["breast_cancer"], "tables": [t]}).tables[0]


def test_mean_std_cells_and_failed_rows_ignored():
    tr = make_table(_results(), _spec(aggregate="mean_std", digits=3))
    assert list(tr.mean.index) == ["d1", "d2", "d3"] and list(tr.mean.columns) == ["A", "B", "C"]
    assert tr.mean.loc["d1", "A"] == pytest.approx(0.9)
    assert tr.std.loc["d1", "A"] == pytest.approx(np.std([0.89, 0.91], ddof=1))
    assert tr.count.loc["d1", "A"] == 2
    assert tr.cells.loc["d2", "B"] == "0.750 ± 0.014"
    md = to_markdown(tr)
    assert "| d1 | 0.900 ± 0.014 | 0.850 ± 0.014 | 0.920 ± 0.014 |" in md
    assert tr.n_runs == 18 and tr.n_failed == 1 and "18 runs; 1 failed runs left out" in md


def test_mean_rank_and_friedman_wilcoxon_holm():
    tr = make_table(_results(), _spec(aggregate="mean_rank", tests=["friedman", "wilcoxon", "holm"], baseline="B"))
    # C > A > B on every dataset
    assert tr.cells.loc["d1", "C"] == "1.0" and tr.cells.loc["d3", "B"] == "3.0"
    assert tr.extra_rows["mean rank"] == {"A": "2.000", "B": "3.000", "C": "1.000"}
    fr = tr.tests[tr.tests.test == "friedman"].iloc[0]
    ref = sst.friedmanchisquare(*tr.mean.to_numpy().T)
    assert fr.pvalue == pytest.approx(ref.pvalue)
    w = tr.tests[tr.tests.test == "wilcoxon"].set_index("column")
    assert set(w.index) == {"A", "C"} and (w.baseline == "B").all()
    assert w.loc["A", "pvalue"] == pytest.approx(sst.wilcoxon(tr.mean["B"], tr.mean["A"]).pvalue)
    assert w.loc["A", "pvalue_holm"] == pytest.approx(min(1.0, 2 * w.pvalue.min()))
    assert "p Holm (Wilcoxon vs B)" in tr.extra_rows


def test_lower_is_better_ranks_and_filter():
    tr = make_table(_results(), _spec(metric="n_rules", aggregate="mean", higher_is_better=False,
                                      tests=["friedman"], filter={"depth": 2}))
    assert tr.mean.loc["d1", "A"] == 11 and tr.count.loc["d1", "A"] == 1
    assert tr.extra_rows["mean rank"]["A"] == "1.000"


def test_reference_numbers_beside_ours():
    ref = {"source": "Paper (2023), Table 1", "values": {"d1": {"A": 0.95, "B": 0.80}, "d9": {"A": 0.5}}}
    tr = make_table(_results(), _spec(reference=ref, digits=2))
    comp = tr.comparison.set_index(["row", "column"])
    assert comp.loc[("d1", "A"), "ours"] == pytest.approx(0.9)
    assert comp.loc[("d1", "A"), "paper"] == 0.95
    assert comp.loc[("d1", "A"), "diff"] == pytest.approx(-0.05)
    assert np.isnan(comp.loc[("d9", "A"), "ours"])  # published cell we did not run
    md = to_markdown(tr)
    assert "Ours beside the paper (Paper (2023), Table 1)" in md and "| d1 | A | 0.90 | 0.95 | -0.05 |" in md
    tex = to_latex(tr)
    assert r"\begin{tabular}" in tex and "paper" in tex and r"\pm" in tex
    csv = pd.read_csv(__import__("io").StringIO(to_csv(tr)))
    row = csv[(csv["row"] == "d1") & (csv["column"] == "A")].iloc[0]
    assert row["paper"] == 0.95 and row["diff"] == pytest.approx(-0.05)


def test_multi_column_labels_and_numeric_order():
    df = _results()
    df["depth"] = df["rep"].map({0: 10, 1: 2})
    tr = make_table(df, _spec(rows=["dataset", "variant"], columns=["depth"]))
    assert list(tr.mean.columns) == ["2", "10"]  # numeric order, not text order
    assert "d1 / A" in tr.mean.index


def test_missing_columns_are_named():
    with pytest.raises(InputError, match="metric 'nope'"):
        make_table(_results(), _spec(metric="nope"))
    with pytest.raises(InputError, match="filter column 'zz'"):
        make_table(_results(), _spec(filter={"zz": 1}))
    with pytest.raises(InputError, match="baseline 'Z'"):
        make_table(_results(), _spec(tests=["wilcoxon"], baseline="Z"))


def test_write_tables_and_plots(tmp_path):
    cfg = parse_config({
        "name": "x", "method": "noop", "datasets": ["breast_cancer"],
        "tables": [{"name": "t", "metric": "f1", "columns": "variant"}],
        "plots": [{"name": "line", "kind": "line", "x": "depth", "y": "f1", "hue": "variant"},
                  {"name": "bars", "kind": "bar", "x": "dataset", "y": "f1", "hue": "variant", "formats": ["png"]},
                  {"name": "trade", "kind": "tradeoff", "x": "n_rules", "y": "f1", "hue": "variant",
                   "pareto": True, "logx": True, "facet": "dataset", "formats": ["svg"]}],
    })
    done = write_tables(_results(), cfg, tmp_path)
    assert set(done) == {"t"}
    for ext in ("md", "tex", "csv"):
        assert (tmp_path / "tables" / f"t.{ext}").stat().st_size > 0
    files = write_plots(_results(), cfg, tmp_path)
    names = sorted(p.name for p in files)
    assert names == ["bars.png", "line.png", "line.svg", "trade_d1.svg", "trade_d2.svg", "trade_d3.svg"]
    assert all(p.stat().st_size > 500 for p in files)
    assert (tmp_path / "plots" / "line.png").read_bytes()[:4] == b"\x89PNG"
    assert b"<svg" in (tmp_path / "plots" / "line.svg").read_bytes()[:400]


def test_pareto_front():
    x = np.array([1, 2, 3, 4, 5.0])
    y = np.array([0.5, 0.4, 0.7, 0.6, 0.9])
    assert pareto_front(x, y).tolist() == [0, 2, 4]


def test_fold_ttest_bolds_per_row_as_the_crl_tables():
    """Per dataset: the best column, and the columns a paired t-test over the folds cannot tell from it."""
    from interpretopt.experiments.config import TableSpec

    rng = np.random.default_rng(0)
    rows = []
    base = {"d1": {"a": 0.80, "b": 0.70, "c": 0.799}, "d2": {"a": 0.60, "b": 0.65, "c": 0.50}}
    for d, cols in base.items():
        fold = rng.normal(scale=0.02, size=5)  # a fold effect shared by the columns: pairing matters
        for c, mu in cols.items():
            for r in range(5):
                rows.append({"dataset": d, "learner": c, "rep": r, "run_status": "ok",
                             "autac": mu + fold[r] + rng.normal(scale=0.002)})
    df = pd.DataFrame(rows)
    spec = TableSpec(name="t", metric="autac", rows=("dataset",), columns=("learner",), tests=("fold_ttest",))
    tr = make_table(df, spec)
    assert tr.marks[("d1", "a")] == "best" and tr.marks[("d1", "c")] == "tie" and ("d1", "b") not in tr.marks
    assert tr.marks[("d2", "b")] == "best" and ("d2", "a") not in tr.marks and ("d2", "c") not in tr.marks
    t = tr.tests[tr.tests["test"] == "fold_ttest"]
    assert set(zip(t["row"], t["column"], t["baseline"])) == {("d1", "b", "a"), ("d1", "c", "a"),
                                                                ("d2", "a", "b"), ("d2", "c", "b")}
    assert (t["n"] == 5).all()
    # the p-value is the paired test over folds (pairs matched by rep), not over dataset means
    a = df[(df.dataset == "d1") & (df.learner == "a")].sort_values("rep")["autac"].to_numpy()
    b = df[(df.dataset == "d1") & (df.learner == "b")].sort_values("rep")["autac"].to_numpy()
    p = float(t[(t["row"] == "d1") & (t["column"] == "b")]["pvalue"].iloc[0])
    assert p == pytest.approx(sst.ttest_rel(a, b).pvalue)
    md = to_markdown(tr)
    assert "**_" in md and "Bold:" in md and "[d1] b vs a" in md
    assert r"\underline{\textbf{" in to_latex(tr)
