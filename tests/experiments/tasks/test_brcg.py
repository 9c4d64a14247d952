"""The "What changed?" experiment task: perturbation helpers and a smoke run of the configs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from interpretopt.experiments.tasks.brcg import exclusive_region, perturb_labels

REPO = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
CONFIGS = REPO / "configs" / "whatchanged"


def test_exclusive_region_and_perturbation():
    cov = np.array([[1, 0], [1, 1], [0, 1], [1, 0], [0, 0]], dtype=bool)
    assert exclusive_region(cov, 0).tolist() == [True, False, False, True, False]
    y = np.array([1, 1, 0, 1, 0], dtype=np.int8)
    region = exclusive_region(cov, 0)
    y1, flipped = perturb_labels(y, region, 1.0, np.random.default_rng(0))
    assert flipped.tolist() == region.tolist()
    assert y1.tolist() == [0, 1, 0, 0, 0]
    y0, flipped0 = perturb_labels(y, region, 0.0, np.random.default_rng(0))
    assert not flipped0.any() and np.array_equal(y0, y)
    # with p = 0.5 about half of a large region is flipped, nothing outside it
    big = np.zeros(4000, bool)
    big[:2000] = True
    yb, fb = perturb_labels(np.zeros(4000, np.int8), big, 0.5, np.random.default_rng(1))
    assert not fb[2000:].any() and 900 < fb.sum() < 1100 and yb.sum() == fb.sum()


@pytest.mark.parametrize("name", ["perturbation", "perturbation_lending", "model_comparison"])
def test_configs_validate(name):
    from interpretopt.experiments.config import load_config

    cfg = load_config(CONFIGS / f"{name}.yaml")
    assert cfg.name.startswith("whatchanged")


@pytest.mark.repro
def test_perturbation_smoke_run(tmp_path):
    """Reduced-scale run of the perturbation config: a larger c_u keeps more of rule set A."""
    from interpretopt.experiments.config import load_config
    from interpretopt.experiments.runner import run_experiment

    cfg = load_config(CONFIGS / "perturbation.yaml").with_smoke()
    run_experiment(cfg, out_dir=tmp_path, progress=False)
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert (df["run_status"] == "ok").all(), df.get("error")
    big = df[df["c_u"] == df["c_u"].max()].iloc[0]
    small = df[df["c_u"] == df["c_u"].min()].iloc[0]
    assert big["grounding_kept"] >= small["grounding_kept"]
    assert big["grounding_kept"] > 0
    for col in ("sim_sem_B", "sim_stat_B", "sim_sem_Bg", "sim_stat_Bg"):
        assert ((df[col] >= 0) & (df[col] <= 1)).all()
    assert (df["bound"] <= df["objective"] + 1e-9).all()


def test_model_comparison_experiment_reports_matching_similarity_and_fidelity(tmp_path):
    """The 'compare' run of configs/whatchanged (two models, two rule sets, matching, similarity,
    fidelity), on a small bundled dataset; the reported scores follow from the written matching."""
    import pandas as pd
    import yaml

    from interpretopt.experiments.config import parse_config
    from interpretopt.experiments.runner import run_experiment

    raw = yaml.safe_load("""
name: whatchanged_compare_check
method: brcg
params: {experiment: compare, n_thresholds: 4, max_literals: 3, pricing: beam, time_limit: 5,
         mip_time_limit: 3, test_size: 0.3}
datasets: [{name: breast_cancer, max_rows: 200}]
pairs: {list: [[GNB, DT1]]}
repetitions: 1
seed: 0
""")
    cfg = parse_config(raw)
    run_experiment(cfg, out_dir=tmp_path, progress=False)
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert (df["run_status"] == "ok").all(), df.get("error")
    row = df.iloc[0]
    for key in ("fidelity_A", "fidelity_B", "accuracy_A", "accuracy_B", "sim_sem", "sim_stat"):
        assert 0.0 <= row[key] <= 1.0
    art = next((tmp_path / "artifacts").glob("*/matching_statistical.csv"))
    table = pd.read_csv(art)
    m, n = int(row["n_rules_A"]), int(row["n_rules_B"])
    assert len(table) == max(m, n)  # every rule once; the larger set's extra rules map to none
    assert row["sim_stat"] == pytest.approx(2 * table["similarity"].sum() / max(m + n, 1), abs=1e-3 * max(m, n, 1))
