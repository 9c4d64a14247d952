"""The "What changed?" experiment task: perturbation helpers and a smoke run of the configs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from interpretopt.evaluation.similarity import compare_rule_sets
from interpretopt.exceptions import InputError
from interpretopt.experiments.tasks.brcg import (
    _grid,
    exclusive_region,
    perturb_labels,
    recovery_metrics,
    select_lambdas,
)
from interpretopt.rules import Condition, Conjunction, RuleSet

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


def _r(*conds):
    return Conjunction(tuple(Condition(f, op, v) for f, op, v in conds))


A_RULES = RuleSet((_r((0, "<=", 1.0)), _r((1, ">", 2.0), (2, "==", "a")), _r((3, "<=", 5.0))))


def test_recovery_metrics_separate_detection_from_churn():
    # B changes only the perturbed rule 1: a clean detection
    B = RuleSet((A_RULES[0], _r((1, ">", 3.0), (2, "==", "a")), A_RULES[2]))
    m = recovery_metrics(compare_rule_sets(A_RULES, B), 1)
    assert m == {"detected": 1.0, "false_change": 0.0, "kept": pytest.approx(2 / 3), "detection_lift": 1.0}
    # B shares no rule with A: the perturbed rule "changed", and so did every other one (churn)
    churn = RuleSet((_r((5, "<=", 0.0)), _r((6, ">", 1.0))))
    m = recovery_metrics(compare_rule_sets(A_RULES, churn), 1)
    assert m["detected"] == 1.0 and m["false_change"] == 1.0 and m["kept"] == 0.0 and m["detection_lift"] == 0.0
    # B = A: nothing detected, nothing changed
    m = recovery_metrics(compare_rule_sets(A_RULES, A_RULES), 0)
    assert m == {"detected": 0.0, "false_change": 0.0, "kept": 1.0, "detection_lift": 0.0}
    # an empty B drops every rule
    m = recovery_metrics(compare_rule_sets(A_RULES, RuleSet(())), 2)
    assert m["detected"] == 1.0 and m["false_change"] == 1.0 and m["kept"] == 0.0
    # one rule in A: no unperturbed rule, false change undefined
    one = RuleSet((A_RULES[0],))
    m = recovery_metrics(compare_rule_sets(one, RuleSet(())), 0)
    assert m["detected"] == 1.0 and np.isnan(m["false_change"]) and np.isnan(m["detection_lift"])
    with pytest.raises(InputError, match="perturbed rule index 3"):
        recovery_metrics(compare_rule_sets(A_RULES, A_RULES), 3)


def test_recovery_metrics_kept_is_membership_not_assignment():
    """A rule of A present in B counts as kept even when the assignment pairs it elsewhere."""
    a = RuleSet((_r((0, "<=", 1.0), (1, "<=", 1.0)), _r((0, "<=", 1.0))))
    b = RuleSet((_r((0, "<=", 1.0)),))
    m = recovery_metrics(compare_rule_sets(a, b), 0)
    assert m["kept"] == 0.5


def _pt(l0, l1, fid, lit):
    return {"lambda0": l0, "lambda1": l1, "fidelity": fid, "n_literals": lit}


def test_select_lambdas_criterion():
    pts = [_pt(1e-4, 1e-4, 0.95, 40), _pt(1e-3, 1e-3, 0.945, 12), _pt(1e-2, 1e-2, 0.90, 3),
           _pt(1e-2, 1e-3, 0.945, 12)]
    # fewest literals within 0.01 of the best fidelity (0.95); ties: larger lambdas
    assert select_lambdas(pts, tol=0.01) == pts[3]
    # no tolerance: the best fidelity
    assert select_lambdas(pts, tol=0.0) == pts[0]
    # the tolerance reaches the 3-literal point
    assert select_lambdas(pts, tol=0.06) == pts[2]
    # the mushroom exception: at least 7 literals
    assert select_lambdas(pts, tol=0.06, min_literals=7)["n_literals"] == 12
    # no point reaches min_literals: the criterion over all points
    assert select_lambdas(pts, tol=0.06, min_literals=100) == pts[2]
    # the complexity budget: the best fidelity among points of at most 30 literals (heloc's case:
    # 0.911 at 103 literals against 0.901 at 41, a gap just above tol)
    assert select_lambdas(pts, tol=0.0, max_total_literals=30) == pts[3]   # pts[1] ties; larger lambdas
    assert select_lambdas(pts, tol=0.0, max_total_literals=40) == pts[0]
    # no point in [min_literals, max_total_literals]: the budget is dropped, min_literals kept
    assert select_lambdas(pts, tol=0.0, min_literals=20, max_total_literals=30) == pts[0]
    assert select_lambdas(pts, tol=0.0, max_total_literals=2) == pts[0]
    with pytest.raises(InputError, match="at least one grid point"):
        select_lambdas([])


def test_select_lambdas_never_picks_an_empty_rule_set():
    """Regression: on imbalanced labels the empty rule set (all 'else') can be within tol of the best fidelity."""
    pts = [_pt(1e-2, 1e-2, 0.850, 0), _pt(1e-3, 1e-3, 0.855, 4), _pt(1e-4, 1e-4, 0.856, 20)]
    assert select_lambdas(pts, tol=0.01) == pts[1]
    empty = [_pt(1e-2, 1e-2, 0.85, 0), _pt(1e-3, 1e-3, 0.84, 0)]
    assert select_lambdas(empty, tol=0.01) == empty[0]


def test_lambda_grid_is_checked():
    assert _grid({"lambda0": [0.1, 0.2], "lambda1": 0.5}) == [(0.1, 0.5), (0.2, 0.5)]
    with pytest.raises(InputError, match="keys 'lambda0' and 'lambda1'"):
        _grid({"lambda0": [0.1], "lamda1": [0.1]})
    with pytest.raises(InputError, match=r"lambda_grid\['lambda1'\]"):
        _grid({"lambda0": [0.1], "lambda1": [-1]})


def test_lambda_search_in_a_run(tmp_path, data_dir):
    """The search chooses a grid point, records it, and A is fitted with it."""
    pytest.importorskip("xgboost")
    from interpretopt.experiments.config import load_config
    from interpretopt.experiments.runner import run_experiment

    cfg = load_config(CONFIGS / "model_comparison.yaml").with_smoke()
    run_experiment(cfg, out_dir=tmp_path, progress=False)
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert (df["run_status"] == "ok").all(), df.get("error")
    row = df.iloc[0]
    for tag in ("A", "B"):
        assert row[f"lambda0_{tag}"] == 0.001 and row[f"lambda1_{tag}"] in (0.001, 0.01)
        assert 0 <= row[f"lambda_val_fidelity_{tag}"] <= 1
    grids = sorted(tmp_path.glob("artifacts/*/lambda_search_WC_RF.csv"))
    assert grids, "the lambda search's grid is written as an artifact"
    grid = pd.read_csv(grids[0])
    assert len(grid) == 2 and grid["chosen"].sum() == 1
    assert grid.loc[grid["chosen"], "lambda1"].item() == row["lambda1_A"]


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
    for col in ("sim_sem_B", "sim_stat_B", "sim_sem_Bg", "sim_stat_Bg", "detected_Bg", "kept_Bg", "kept_B"):
        assert ((df[col] >= 0) & (df[col] <= 1)).all()
    assert (df["recovered_Bg"] == df["detected_Bg"]).all()
    # B+ keeps at least the grounding rules it selected (kept counts identical rules, also non-grounding ones)
    assert (df["kept_Bg"] + 1e-9 >= df["grounding_kept"]).all()
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


def test_model_inputs_binarized_trains_the_black_box_on_brcg_features():
    """``model_inputs: binarized``: the model learns from the binarizer BRCG uses (fitted on the
    training rows), so its labels are a function of a row's binary features."""
    from interpretopt.data import QuantileBinarizer
    from interpretopt.experiments import runner as R
    from interpretopt.experiments.config import parse_config
    from interpretopt.experiments.tasks.brcg import _model_inputs, _model_labels

    cfg = parse_config({"name": "mi", "method": "brcg", "seed": 0,
                        "params": {"experiment": "compare", "model_inputs": "binarized", "n_thresholds": 3},
                        "datasets": [{"name": "breast_cancer", "max_rows": 200}], "pairs": {"list": [["DT1", "GNB"]]}})
    R.clear_caches()
    run = R.plan_runs(cfg)[0]
    ctx = R.RunContext(run, R.RunEnv.from_config(cfg), R._load(run.dataset, None, 0))
    train, _ = ctx.split(test_size=0.3, key="whatchanged")
    F = _model_inputs(ctx, ctx.params, train)
    expected = QuantileBinarizer(n_thresholds=3, negations=True).fit(ctx.dataset.X.iloc[train]).transform(ctx.dataset.X)
    np.testing.assert_array_equal(F, np.asarray(expected, dtype=np.float32))
    assert F.shape[1] != ctx.X.shape[1]
    y = _model_labels(ctx, "DT1", train, params=ctx.params)
    labels: dict = {}
    for row, lab in zip(map(bytes, F.astype(np.uint8)), y):
        labels.setdefault(row, set()).add(int(lab))
    assert all(len(v) == 1 for v in labels.values())
    assert ctx.black_box("DT1", train, features=F).n_features_in_ == F.shape[1]
    assert _model_inputs(ctx, dict(ctx.params, model_inputs="raw"), train) is None


def test_grounded_pricing_takes_every_pricing_strategy():
    from interpretopt.experiments.tasks import check_method_params
    from interpretopt.methods.brcg import PRICING_STRATEGIES

    for strategy in PRICING_STRATEGIES:
        assert check_method_params("brcg", {"experiment": "perturbation", "grounded_pricing": strategy}) == []
    assert check_method_params("brcg", {"experiment": "perturbation", "grounded_pricing": "exact"})
    assert check_method_params("brcg", {"experiment": "compare", "model_inputs": "onehot"})


def test_status_of_a_fit_with_no_solve_names_no_solver():
    """Labels of one class: the rule set is proven by argument, no solver ran, and the row says so."""
    from interpretopt.experiments.tasks.brcg import _status
    from interpretopt.methods.brcg import BRCGClassifier

    X = np.random.default_rng(0).random((20, 3))
    est = BRCGClassifier().fit(X, np.zeros(20, dtype=int))
    row = _status(est)
    assert row["solver"] == "none" and row["status"] == "optimal" and row["gap"] == 0.0
    assert row["bound"] == 0.0 == row["objective"]
