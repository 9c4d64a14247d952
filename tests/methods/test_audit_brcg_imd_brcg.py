"""BRCG checks not covered elsewhere: the direct pricing MILP against enumeration, the
incremental master path, several columns per iteration, and rule-set assignment optimality."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.evaluation.similarity import compare_rule_sets, rule_similarity_matrix
from interpretopt.formulations import brcg as F
from interpretopt.methods import brcg as M
from interpretopt.rules import Condition, Conjunction, RuleSet
from interpretopt.solvers import SolveSettings


def tiny(seed: int, n: int = 12, J: int = 5):
    rng = np.random.default_rng(seed)
    X = rng.random((n, J)) < 0.5
    y = rng.integers(0, 2, n).astype(np.int8)
    if y.sum() in (0, n):
        y[0] = 1 - y[0]
    return X, y


def min_reduced_cost(X, r, a, b, D, exclude=()):
    best, arg = np.inf, None
    for d in range(1, D + 1):
        for c in itertools.combinations(range(X.shape[1]), d):
            if c in exclude:
                continue
            rc = F.reduced_costs(X[:, list(c)].all(axis=1)[:, None], [d], r, a, b)[0]
            if rc < best:
                best, arg = rc, c
    return best, arg


@settings(max_examples=12)
@given(seed=st.integers(0, 10_000), D=st.integers(1, 3), light=st.booleans(), use_start=st.booleans())
def test_direct_pricing_milp_finds_a_negative_column_whenever_one_exists(seed, D, light, use_start):
    """The pricer used inside column generation (HiGHS direct path, objective cutoff, optional
    start clause) returns a clause of negative reduced cost exactly when enumeration finds one."""
    X, y = tiny(seed)
    rng = np.random.default_rng(seed + 1)
    mu = rng.random(int(y.sum())) * rng.integers(0, 2, int(y.sum())) * 2.0
    lam = float(rng.random() * 0.5)
    spec = (F.MasterSpec(form="light", lambda0=0.05, lambda1=0.02, n_samples=12) if light
            else F.MasterSpec(form="constraint", C=5, n_samples=12))
    if light:
        mu = mu / 12.0
    r, a, b = F.pricing_weights(y, mu, lam, spec)
    exclude = [(0,)]
    best, arg = min_reduced_cost(X, r, a, b, D, exclude=exclude)
    pricer = M._MilpPricer(X, y, D, exclude, "highs", SolveSettings())
    assert pricer.direct
    start = arg if use_start else None
    clause, res = pricer.price(r, a, b, 10.0, start)
    if best < -1e-7:
        assert clause is not None, res.message
        assert clause != (0,) and 1 <= len(clause) <= D
        rc = F.reduced_costs(X[:, list(clause)].all(axis=1)[:, None], [len(clause)], r, a, b)[0]
        assert rc < 0
        assert rc == pytest.approx(best, abs=1e-7)
    elif best > 1e-7:
        # no negative column: either proven by the objective cutoff, or an optimal clause that
        # re-prices to a nonnegative cost (column generation then stops as converged)
        assert res.info.get("proven_none") or str(res.status) == "optimal"
        if clause is not None:
            rc = F.reduced_costs(X[:, list(clause)].all(axis=1)[:, None], [len(clause)], r, a, b)[0]
            assert rc >= 0
    # a second call on the same (persistent) model with other duals is exact as well
    r2 = r.copy()
    r2[y.astype(bool)] *= 3.0
    best2, _ = min_reduced_cost(X, r2, a, b, D, exclude=exclude)
    clause2, _ = pricer.price(r2, a, b, 10.0)
    if best2 < -1e-7:
        rc2 = F.reduced_costs(X[:, list(clause2)].all(axis=1)[:, None], [len(clause2)], r2, a, b)[0]
        assert rc2 == pytest.approx(best2, abs=1e-7)
    elif best2 > 1e-7 and clause2 is not None:
        assert F.reduced_costs(X[:, list(clause2)].all(axis=1)[:, None], [len(clause2)], r2, a, b)[0] >= 0


def test_pricing_milp_uses_the_solver_notes_settings(monkeypatch):
    """Aggregated form with binary delta on positives, HiGHS presolve off, beam column as start."""
    X, y = tiny(3, n=30, J=8)
    seen = {"starts": 0}
    orig_price = M._MilpPricer.price

    def spy(self, r, a, b, time_limit, start_clause=None):
        if start_clause is not None:
            seen["starts"] += 1
        return orig_price(self, r, a, b, time_limit, start_clause)

    monkeypatch.setattr(M._MilpPricer, "price", spy)
    from interpretopt.solvers import _incremental

    captured = []
    orig_solve = _incremental.IncrementalModel.solve

    def solve_spy(self, settings=None, **kw):
        captured.append((self.is_mip, settings))
        return orig_solve(self, settings, **kw)

    monkeypatch.setattr(_incremental.IncrementalModel, "solve", solve_spy)
    spec = F.MasterSpec(form="light", lambda0=0.001, lambda1=0.001, n_samples=30)
    res = M.column_generation(X, y, spec, pricing="beam+milp", max_literals=3, beam_width=3)
    assert res.converged
    assert any("milp" in h.get("pricing", "") for h in res.history)
    pricing_calls = [s for mip, s in captured if mip and s.options.get("highs", {}).get("objective_bound") is not None]
    assert pricing_calls, "the pricing MILP was not solved on the direct HiGHS path"
    assert all(s.options["highs"].get("presolve") == "off" for s in pricing_calls)
    assert seen["starts"] >= 1  # the beam's best clause is handed to the MILP as a start
    arr = F.pricing_arrays(X, y, np.zeros(30), 0.0, 0.0, 3)
    # one aggregated row per positive and per negative sample (+ the size row): not one per (sample, literal)
    assert arr.A.shape[0] == 30 + 1
    assert arr.integer[arr.n_literals:].tolist() == y.astype(bool).tolist()


def test_master_translated_once_and_columns_appended(monkeypatch):
    """Column generation re-solves one incremental model (no rebuild) and adds several columns per iteration."""
    from interpretopt.solvers import IncrementalModel

    calls = {"from_pyomo": 0, "add_columns": []}
    orig_from = IncrementalModel.from_pyomo.__func__

    def from_spy(cls, *args, **kw):
        calls["from_pyomo"] += 1
        model = orig_from(cls, *args, **kw)
        orig_add = model.add_columns

        def add_spy(cost, *a, **k):
            calls["add_columns"].append(len(np.atleast_1d(cost)))
            return orig_add(cost, *a, **k)

        model.add_columns = add_spy
        return model

    monkeypatch.setattr(IncrementalModel, "from_pyomo", classmethod(from_spy))
    X, y = tiny(11, n=40, J=8)
    spec = F.MasterSpec(form="constraint", C=6, n_samples=40)
    res = M.column_generation(X, y, spec, pricing="beam", max_literals=3, beam_width=4, columns_per_iter=5)
    assert calls["from_pyomo"] == 1
    added = [h["n_added"] for h in res.history if "n_added" in h]
    assert sum(calls["add_columns"]) == len(res.clauses) == sum(added)
    assert max(added) > 1  # several negative columns enter in one iteration
    assert len(calls["add_columns"]) == len(res.history) - 1  # one append per iteration that found columns


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
