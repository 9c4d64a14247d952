"""The ``imd`` experiment task and the configs under configs/imd/."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from interpretopt.experiments import (
    load_config,
    make_table,
    read_results,
    run_experiment,
)
from interpretopt.experiments.tasks.imd import make_variant, random_rule

# Table 4 (Appendix A) of the paper: rows x columns after its preprocessing
TABLE4 = {"adult": (41034, 13), "bankm": (10578, 7), "banknote": (1372, 4), "diabetes": (768, 8),
          "magic": (19020, 10), "heloc": (9871, 23), "mushroom": (8124, 22), "tictactoe": (958, 9), "bc": (569, 30),
          "waveform": (5000, 40), "eye": (10936, 26), "whitewine": (4898, 11), "redwine": (1599, 11)}
# datasets whose Table 4 count is the raw count although the files hold duplicate rows
RAW_COUNT_LABELS = {"banknote", "magic", "heloc", "redwine", "whitewine"}
REPO = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
CONFIGS = sorted((REPO / "configs" / "imd").glob("*.yaml"))


def test_every_imd_config_validates_and_references_name_its_rows():
    assert {p.stem for p in CONFIGS} >= {"table1", "table2", "table3", "table6", "table7", "table8", "importance",
                                         "refinement_depths", "depth_sweep", "alpha_sweep", "perturbation"}
    summary_rows = {"mean rank"} | {f"{r} {b}" if r.startswith("%") else r.format(b) for b in ("imd", "separate")
                                    for r in ("p (Wilcoxon vs {})", "# {} greater", "% change from")}
    for path in CONFIGS:
        cfg = load_config(path)
        labels = {d.label for d in cfg.datasets}
        for d in cfg.datasets:  # the paper's preprocessing everywhere; duplicates kept where Table 4 has raw counts
            assert d.options.get("one_hot") is True, (path.name, d)
            assert d.options.get("drop_duplicates") is (d.label not in RAW_COUNT_LABELS), (path.name, d)
        per = cfg.pairs.per_dataset if cfg.pairs is not None else {}
        for t in cfg.tables:
            if t.reference is None:
                continue
            assert "Haldar" in t.reference.source
            for row in t.reference.values:
                if row in summary_rows:
                    continue
                if " / " not in row:
                    assert row in labels, (path.name, row)
                    continue
                ds, tag = row.split(" / ")
                assert ds in labels and tag in dict(per.get(ds, ())), (path.name, row)
            # the published pair of every row is the pair we run
            for row, pair in t.reference.pairs.items():
                ds, tag = row.split(" / ")
                assert "-".join(dict(per[ds])[tag]) == pair, (path.name, row, pair)


def test_table1_datasets_have_table4_row_counts(data_dir):
    """Every dataset of Table 1 as configured gives Table 4's rows (adult: 42,468 of 41,034, a known deviation)
    and its columns before one-hot encoding."""
    from interpretopt.data import load_dataset

    cfg = load_config(CONFIGS[[p.stem for p in CONFIGS].index("table1")])
    assert {d.label for d in cfg.datasets} == set(TABLE4)
    for d in cfg.datasets:
        options = {k: v for k, v in d.options.items() if k != "one_hot"}
        ds = load_dataset(d.name, data_dir=data_dir, **options)
        rows, cols = TABLE4[d.label]
        assert ds.X.shape[1] == cols, (d.label, ds.X.shape)
        if d.label == "adult":
            assert ds.n_samples == 42468
        else:
            assert ds.n_samples == rows, (d.label, ds.n_samples, rows)


def test_paper_pairs_are_fixed_per_dataset_not_reselected():
    cfg = load_config(CONFIGS[[p.stem for p in CONFIGS].index("table1")])
    per = {d: dict(v) for d, v in cfg.pairs.per_dataset.items()}
    assert per["heloc"] == {"max": ("KN1", "RF2"), "min": ("GB", "RF1")}
    assert per["mushroom"] == {"max": ("KN1", "GNB"), "min": ("RF2", "GNB")}
    assert len(per) == 13
    from interpretopt.experiments.runner import plan_runs

    runs = plan_runs(cfg)
    assert {(r.dataset.label, r.pair_tag, r.models) for r in runs if r.dataset.label == "adult"} == {
        ("adult", "max", ("MLP1", "GB")), ("adult", "min", ("MLP2", "DT2"))}


@pytest.mark.parametrize("scale", ["full", "reduced", "smoke"])
def test_table7_tabulates_the_runs_of_table1(scale, tmp_path):
    """Table 7 (surrogate fidelity) is measured on Table 1's runs: the same run keys, stored once in table1's
    directory of a reproduction (<root>/imd/table1)."""
    from interpretopt.experiments.runner import plan_runs, runs_source

    t7 = load_config(CONFIGS[[p.stem for p in CONFIGS].index("table7")], scale=scale)
    src, where = runs_source(t7, tmp_path / "imd" / "table7")
    assert Path(src.path).stem == "table1" and where == tmp_path / "imd" / "table1"
    assert [r.key for r in plan_runs(t7)] == [r.key for r in plan_runs(src)]


def test_table1_smoke_runs_end_to_end(tmp_path, data_dir):
    import dataclasses

    cfg = load_config(CONFIGS[[p.stem for p in CONFIGS].index("table1")], smoke=True)
    # two of the paper's datasets, subsampled, with the paper's pairs (the whole smoke table is a slow check)
    keep = tuple(d for d in cfg.datasets if d.label in ("banknote", "tictactoe"))
    cfg = dataclasses.replace(cfg, datasets=tuple(dataclasses.replace(d, max_rows=300) for d in keep))
    report = run_experiment(cfg, out_dir=tmp_path, progress=False, data_dir=data_dir)
    df = read_results(tmp_path)
    assert (df.run_status == "ok").all(), df.get("error")
    assert set(df.variant) == {"imd", "separate"}
    for col in ("precision", "recall", "f1", "n_rules", "n_predicates", "fidelity1", "fidelity2", "diffs"):
        assert col in df.columns
    imd_rules = df.loc[df.variant == "imd", "n_rules"].iloc[0]
    sep_rules = df.loc[df.variant == "separate", "n_rules"].iloc[0]
    assert imd_rules <= sep_rules
    assert set(df.models) == {"KN1-GNB", "LR-DT1", "LR-GNB", "DT2-KN2"}
    assert (df.scale == "smoke").all()
    table = make_table(df, cfg.tables[1])
    assert table.comparison is not None
    cells = table.comparison[table.comparison.row.str.contains(" / ")]  # the per-pair cells
    summary = table.comparison[~table.comparison.row.str.contains(" / ")]  # Section 5.1's % change and p
    assert cells["ours"].notna().sum() == 8
    assert set(summary.row) == {"% change from separate", "p (Wilcoxon vs separate)"}
    assert summary["ours"].notna().all() and set(summary.column) == {"imd"}
    assert set(cells.dropna(subset=["ours"]).pair_ours) == {"KN1-GNB", "LR-DT1", "LR-GNB", "DT2-KN2"}
    assert (cells.dropna(subset=["ours"]).pair_ours == cells.dropna(subset=["ours"]).pair_paper).all()
    from interpretopt.experiments.tables import to_markdown

    md = to_markdown(table)
    assert "smoke scale" in md and "pair (paper)" in md and "LR-GNB" in md
    for col in ("n_rules_empty", "mean_rule_precision", "min_rule_support"):
        assert col in df.columns
    assert report is not None


def test_make_variant_names():
    assert type(make_variant("imd", {"alpha": 0.5}, 0)).__name__ == "IMDExplainer"
    # the divergence is chosen by alpha (None: eq. 6; a number: eq. 5), the estimator's own default
    assert make_variant("imd", {"alpha": 0.5}, 0)._alpha() == 0.5
    assert make_variant("imd", {}, 0)._alpha() is None
    assert make_variant("direct_dt", {"max_depth": 3}, 7).get_params() == {"max_depth": 3, "criterion": "gini",
                                                                           "random_state": 7}
    assert make_variant("brcg_diff", {"construction": "union"}, 0).construction == "union"
    with pytest.raises(ValueError, match="valid"):
        make_variant("nope", {}, 0)


def test_random_rule_support_in_band():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 5))
    rule = random_rule(X, rng)
    assert len(rule) == 2
    assert 0.05 <= rule.evaluate(X).mean() <= 0.3


@pytest.mark.repro
def test_breast_cancer_imd_is_far_more_concise_than_separate_surrogates():
    """Section 5.1 at reduced scale: comparable precision, an order of magnitude fewer rules."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    from interpretopt.methods.imd import IMDExplainer, SeparateSurrogates

    X, y = load_breast_cancer(return_X_y=True)
    X_fit, _, y_fit, _ = train_test_split(X, y, test_size=0.3, random_state=0)
    m1 = RandomForestClassifier(n_estimators=50, random_state=0).fit(X_fit, y_fit)
    m2 = GaussianNB().fit(X_fit, y_fit)
    ratios, dprec = [], []
    for rep in range(3):
        tr, te = train_test_split(X, test_size=0.3, random_state=rep)
        imd = IMDExplainer(max_depth=6).fit(tr, m1, m2)
        sep = SeparateSurrogates(max_depth=6).fit(tr, m1, m2)
        a, b = imd.metrics(te, m1, m2), sep.metrics(te, m1, m2)
        ratios.append(b["n_rules"] / max(a["n_rules"], 1))
        dprec.append(a["precision"] - b["precision"])
    assert np.mean(ratios) >= 2.0
    assert np.mean(dprec) > -0.3


def _run(tmp_path, raw):
    from interpretopt.experiments.config import parse_config

    cfg = parse_config(raw)
    rep = run_experiment(cfg, out_dir=tmp_path, progress=False)
    df = read_results(tmp_path)
    assert rep.n_failed == 0, df.get("error")
    return df


def test_accuracy_experiment_measures_each_model_on_the_pair_split(tmp_path):
    df = _run(tmp_path, {"name": "acc", "method": "imd", "params": {"experiment": "accuracy"},
                         "datasets": [{"name": "breast_cancer", "max_rows": 300}], "models": ["LR", "DT1"]})
    assert set(df.models) == {"LR", "DT1"}
    assert ((df.accuracy > 0.8) & (df.accuracy <= 1.0)).all() and (df.n_test == 90).all()


def test_importance_experiment_compares_jst_and_direct_dt_with_the_models(tmp_path):
    import json

    df = _run(tmp_path, {"name": "imp", "method": "imd",
                         "params": {"experiment": "importance", "variant": ["imd", "direct_dt"], "max_depth": 4},
                         "datasets": [{"name": "breast_cancer", "max_rows": 400}],
                         "pairs": {"per_dataset": {"breast_cancer": {"dt": ["DT1", "DT2"]}}}})
    assert set(df.variant) == {"imd", "direct_dt"}
    for col in ("importance_l1", "top5_overlap", "top1_agreement"):
        assert df[col].between(0, 2).all()
    art = next(tmp_path.rglob("importances.json"))
    doc = json.loads(art.read_text())
    assert len(doc["features"]) == 30 and len(doc["model1"]) == 30


def test_importance_agreement_by_hand():
    from interpretopt.experiments.tasks.imd import importance_agreement

    a = np.array([0.5, 0.5, 0, 0, 0, 0])
    same = importance_agreement(a, [a, a])
    assert same == {"importance_l1": 0.0, "top5_overlap": 1.0, "top1_agreement": 1.0}
    other = importance_agreement(a, [np.array([0, 0, 1.0, 0, 0, 0])] * 2)
    assert other == {"importance_l1": 2.0, "top5_overlap": 0.0, "top1_agreement": 0.0}


def test_direct_baselines_are_the_papers():
    """Section 5.2: Direct DT is a depth-6 tree, Direct GB is GradientBoosting(max_depth=6), defaults otherwise."""
    from interpretopt.methods.imd import DirectDT, DirectGB

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y1, y2 = (X[:, 0] > 0).astype(int), (X[:, 1] > 0).astype(int)
    dt = make_variant("direct_dt", {}, 7).fit(X, y1, y2)
    assert isinstance(dt, DirectDT) and dt.tree_.get_params()["max_depth"] == 6
    assert dt.tree_.get_params()["criterion"] == "gini"
    gb = make_variant("direct_gb", {}, 7).fit(X, y1, y2)
    p = gb.model_.get_params()
    assert isinstance(gb, DirectGB) and p["max_depth"] == 6 and p["n_estimators"] == 100 and p["learning_rate"] == 0.1


@pytest.mark.parametrize("name", ["table2", "table8"])
@pytest.mark.parametrize("scale", ["smoke", "reduced", "full"])
def test_brcg_diff_is_limited_by_work_and_its_time_limits_are_safety_nets(name, scale):
    """At every scale BRCG Diff stops by work (column-generation iterations, the integer master's nodes);
    its wall-clock limits are far above what a run needs, so that they never decide a result."""
    from interpretopt.experiments.config import load_config

    cfg = load_config(REPO / "configs" / "imd" / f"{name}.yaml", scale=scale)
    assert cfg.settings.get("node_limit") == 1000
    found = False
    for method in cfg.methods:
        for value in method.params.get("brcg", ()):
            found = True
            assert value["max_iter"] == 100
            assert float(value["time_limit"]) >= 600 and float(value["mip_time_limit"]) >= 600
    assert found


def test_brcg_diff_gets_the_runs_settings_and_reports_a_time_stop():
    """BRCG Diff's solves run under the run's settings (the integer master's node limit), unless its
    ``brcg`` parameters give their own; a BRCG fit that a wall-clock limit stopped makes the run
    ``limited_by_time``, a fit stopped by its work limits does not."""
    from types import SimpleNamespace

    from interpretopt.experiments.tasks.imd import limited_by_time, make_variant
    from interpretopt.solvers import SolveSettings

    settings = SolveSettings(node_limit=5, time_limit=600)
    est = make_variant("brcg_diff", {"brcg": {"max_iter": 3}}, 0, settings=settings)
    assert est.brcg_params["settings"] is settings and est.brcg_params["max_iter"] == 3
    own = SolveSettings(node_limit=9)
    assert make_variant("brcg_diff", {"brcg": {"settings": own}}, 0, settings=settings).brcg_params["settings"] is own
    assert "settings" not in make_variant("brcg_diff", {}, 0).brcg_params

    def fitted(*reasons):
        return SimpleNamespace(models_=[None if r is None else SimpleNamespace(stop_reason_=r) for r in reasons])

    assert not limited_by_time(fitted("iteration_limit", "heuristic_pricing_exhausted"))
    assert not limited_by_time(fitted(None, "proven_optimal"))
    assert limited_by_time(fitted("iteration_limit", "time_limit"))
    assert limited_by_time(fitted("pricing_time_limit", None))
    flagged = SimpleNamespace(models_=[SimpleNamespace(stop_reason_="iteration_limit", limited_by_time_=True)])
    assert limited_by_time(flagged) and not limited_by_time(make_variant("imd", {}, 0))


def test_brcg_diff_construction_is_passed_and_checked():
    """The task passes BRCG Diff's ``construction`` from the run's parameters; a value that is neither reading
    is refused, naming the accepted ones, at config load and when the diff model is made."""
    from interpretopt.exceptions import ConfigError
    from interpretopt.experiments.config import parse_config
    from interpretopt.experiments.tasks.imd import diff_model_label

    assert make_variant("brcg_diff", {"construction": "xor"}, 0).construction == "xor"
    assert make_variant("brcg_diff", {}, 0).construction == "xor"  # BRCGDiff's default
    assert diff_model_label("brcg_diff", {"construction": "union"}) == "brcg_diff (union)"
    assert diff_model_label("brcg_diff", {}) == "brcg_diff (xor)"
    assert diff_model_label("imd", {"construction": "union"}) == "imd"
    with pytest.raises(ValueError, match="'xor', 'union'.*got 'and'"):
        make_variant("brcg_diff", {"construction": "and"}, 0)
    with pytest.raises((ConfigError, ValueError), match="construction.*(union|xor)"):
        parse_config({"name": "t", "method": "imd", "datasets": ["breast_cancer"], "models": ["LR", "DT1"],
                      "params": {"variant": "brcg_diff", "construction": "intersection"}})


def test_both_brcg_diff_readings_are_separate_table_columns(tmp_path):
    """One config runs BRCG Diff under both constructions; each run is labelled by its reading
    (``diff_model``), the two readings are separate columns of a ``columns: [diff_model]`` table, and the
    union of the same two rule sets covers at least the xor's diffs (R1 or R2 contains R1 xor R2)."""
    df = _run(tmp_path, {"name": "both", "method": "imd",
                         "params": {"variant": "brcg_diff", "construction": ["xor", "union"],
                                    "brcg": {"max_iter": 5, "n_thresholds": 4}},
                         "datasets": [{"name": "breast_cancer", "max_rows": 300}],
                         "pairs": {"per_dataset": {"breast_cancer": {"p": ["LR", "DT2"]}}}})
    assert sorted(df.diff_model) == ["brcg_diff (union)", "brcg_diff (xor)"]
    by = df.set_index("diff_model")
    assert by.loc["brcg_diff (union)", "recall"] >= by.loc["brcg_diff (xor)", "recall"]
    from interpretopt.experiments.config import TableSpec

    table = make_table(df, TableSpec(name="f1", rows=("dataset",), columns=("diff_model",), metric="f1"))
    assert list(table.mean.columns) == ["brcg_diff (union)", "brcg_diff (xor)"]


@pytest.mark.parametrize("name,rank_tables", [("table2", ("f1_rank_xor", "f1_rank_union")),
                                              ("table8", ("summary_xor", "summary_union"))])
def test_imd_configs_run_and_tabulate_both_brcg_diff_readings(name, rank_tables):
    """Every IMD config that runs BRCG Diff runs both readings; its tables are by ``diff_model`` with the
    paper's BRCG Diff cells beside each reading, and each rank / test table ranks the paper's five
    methods with one reading (so mean ranks, Friedman and Holm stay those of five methods)."""
    cfg = load_config(REPO / "configs" / "imd" / f"{name}.yaml")
    brcg = [m for m in cfg.methods if m.params.get("variant") in ("brcg_diff", ("brcg_diff",))]
    assert brcg and all(tuple(m.params["construction"]) == ("xor", "union") for m in brcg)
    tables = {t.name: t for t in cfg.tables}
    for t in cfg.tables:
        assert tuple(t.columns) == ("diff_model",), t.name
    for t in cfg.tables:
        cols = {c for row in (t.reference.values if t.reference else {}).values() for c in row}
        assert "brcg_diff" not in cols, t.name
        if t.name not in rank_tables:
            assert ("brcg_diff (xor)" in cols) == ("brcg_diff (union)" in cols), t.name
    for reading, tname in zip(("xor", "union"), rank_tables):
        keep = tables[tname].filter["diff_model"]
        assert sorted(keep) == sorted(["imd", "separate", "direct_dt", "direct_gb", f"brcg_diff ({reading})"])
