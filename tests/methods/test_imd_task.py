"""The ``imd`` experiment task and the configs under configs/imd/."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from interpretopt.experiments import load_config, make_table, read_results, run_experiment
from interpretopt.experiments.tasks.imd import make_variant, random_rule

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs" / "imd").glob("*.yaml"))


def test_every_imd_config_validates_and_references_name_its_rows():
    assert {p.stem for p in CONFIGS} >= {"table1", "table2", "table3", "table7", "depth_sweep", "alpha_sweep",
                                         "perturbation"}
    for path in CONFIGS:
        cfg = load_config(path)
        labels = {d.label for d in cfg.datasets}
        for t in cfg.tables:
            if t.reference is None:
                continue
            assert "Haldar" in t.reference.source
            for row in t.reference.values:
                ds, tag = row.split(" / ")
                assert ds in labels and tag in ("max", "min"), (path.name, row)


def test_table1_smoke_runs_end_to_end(tmp_path):
    cfg = load_config(CONFIGS[[p.stem for p in CONFIGS].index("table1")], smoke=True)
    report = run_experiment(cfg, out_dir=tmp_path, progress=False)
    df = read_results(tmp_path)
    assert (df.run_status == "ok").all(), df.get("error")
    assert set(df.variant) == {"imd", "separate"}
    for col in ("precision", "recall", "f1", "n_rules", "n_predicates", "fidelity1", "fidelity2", "diffs"):
        assert col in df.columns
    imd_rules = df.loc[df.variant == "imd", "n_rules"].iloc[0]
    sep_rules = df.loc[df.variant == "separate", "n_rules"].iloc[0]
    assert imd_rules <= sep_rules
    table = make_table(df, cfg.tables[1])
    assert table.comparison is not None and len(table.comparison) > 0
    assert report is not None


def test_make_variant_names():
    assert type(make_variant("imd", {"alpha": 0.5}, 0)).__name__ == "IMDExplainer"
    assert make_variant("imd", {"alpha": 0.5}, 0).divergence == "general"
    assert make_variant("imd", {}, 0).divergence == "simplified"
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
