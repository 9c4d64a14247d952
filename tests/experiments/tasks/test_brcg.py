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
