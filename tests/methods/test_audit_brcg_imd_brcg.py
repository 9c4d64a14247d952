"""BRCG checks not covered elsewhere: rule-set assignment optimality and the What-changed configs
(column generation itself is tested in tests/methods/test_colgen.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.evaluation.similarity import compare_rule_sets, rule_similarity_matrix
from interpretopt.rules import Condition, Conjunction, RuleSet


def tiny(seed: int, n: int = 12, J: int = 5):
    rng = np.random.default_rng(seed)
    X = rng.random((n, J)) < 0.5
    y = rng.integers(0, 2, n).astype(np.int8)
    if y.sum() in (0, n):
        y[0] = 1 - y[0]
    return X, y


def _brute_rule_set_similarity(S: np.ndarray) -> float:
    m1, m2 = S.shape
    if m1 + m2 == 0:
        return 1.0
    best = 0.0
    if m1 <= m2:
        for perm in itertools.permutations(range(m2), m1):
            best = max(best, sum(S[i, j] for i, j in enumerate(perm)))
    else:
        for perm in itertools.permutations(range(m1), m2):
            best = max(best, sum(S[i, j] for j, i in enumerate(perm)))
    return 2 * best / (m1 + m2)


conditions = st.builds(Condition, st.integers(0, 2), st.sampled_from(["<=", ">", "<", ">="]),
                       st.sampled_from([0.5, 1.5]))
rules = st.lists(conditions, min_size=1, max_size=3).map(Conjunction)
rule_sets = st.lists(rules, min_size=0, max_size=4).map(RuleSet)


@settings(max_examples=30)
@given(A=rule_sets, B=rule_sets)
def test_rule_set_similarity_is_the_best_assignment_and_matching_is_consistent(A, B):
    m = compare_rule_sets(A, B)
    S = rule_similarity_matrix(A, B)
    assert m.score == pytest.approx(_brute_rule_set_similarity(S), abs=1e-12)
    # each rule appears once; matched pairs carry their matrix entry; the pairs sum to z*
    lefts = [x.i for x in m.matches if x.i is not None]
    rights = [x.j for x in m.matches if x.j is not None]
    assert sorted(lefts) == list(range(len(A))) and sorted(rights) == list(range(len(B)))
    pairs = [x for x in m.matches if x.i is not None and x.j is not None]
    assert len(pairs) == min(len(A), len(B))
    for x in pairs:
        assert x.score == pytest.approx(S[x.i, x.j])
    if len(A) + len(B):
        assert m.score == pytest.approx(min(1.0, 2 * sum(x.score for x in pairs) / (len(A) + len(B))))


def test_table2_smoke_caps_the_brcg_time():
    """--smoke of configs/imd/table2.yaml must not inherit the full run's BRCG time limits."""
    from pathlib import Path

    from interpretopt.experiments.config import load_config

    path = Path(__file__).resolve().parents[2] / "configs" / "imd" / "table2.yaml"
    cfg = load_config(path, smoke=True)
    found = False
    for method in cfg.methods:
        for value in method.params.get("brcg", ()):
            found = True
            assert float(value.get("time_limit", 300)) <= 10
            assert float(value.get("mip_time_limit", 60)) <= 10
    assert found


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
