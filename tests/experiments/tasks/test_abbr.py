"""The ``abbr`` experiment task end to end on a bundled dataset, and the configs of Tables 2, 4, 5."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

config_mod = pytest.importorskip("interpretopt.experiments.config")
runner = pytest.importorskip("interpretopt.experiments.runner")
results = pytest.importorskip("interpretopt.experiments.results")

REPO = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
CONFIGS = REPO / "configs" / "abbr"


def _config(methods):
    return config_mod.parse_config({
        "name": "abbr_task_test",
        "methods": methods,
        "datasets": [{"name": "breast_cancer", "max_rows": 400}],
        "models": ["RF1"],
        "repetitions": 1,
        "seed": 0,
        "settings": {"node_limit": 500, "time_limit": 60},  # a work limit; the time limit a safety net
    })


def test_task_modes_end_to_end(tmp_path):
    cfg = _config([
        {"method": "abbr", "params": {"mode": "rule_list", "L": [2, 3], "M": 2, "n_iter": 60, "certify": True,
                                      "certify_max_rules": 8}},
        {"method": "abbr", "params": {"mode": "rule_list", "L": 3, "M": 3, "n_iter": 60, "certify": True}},
        {"method": "abbr", "params": {"mode": "checklist", "K": 3, "n_iter": 60}},
        {"method": "abbr", "params": {"mode": "random_rules", "n_rules": 30}},
        {"method": "abbr", "params": {"mode": "baseline", "M": 2, "k": 2, "n_seeds": 2, "n_iter": 30,
                                      "max_rows": 100, "node_limit": 100}},
    ])
    report = runner.run_experiment(cfg, out_dir=tmp_path, progress=False)
    df = results.read_results(tmp_path)
    assert report.n_failed == 0, df.get("error")
    assert len(df) == 6
    rl = df[df["mode"] == "rule_list"]
    assert np.isfinite(rl["abbr_at_s"]).all() and (rl["abbr_at_s"] <= 1).all()
    restricted = rl[rl["certify_pool"] == "restricted"]
    full = rl[rl["certify_pool"] == "filtered"]
    assert len(restricted) == 2 and len(full) == 1
    # a MILP over a restricted pool is labelled so and never becomes the run's status or bound
    assert restricted["status"].isna().all() and restricted["bound"].isna().all()
    assert (restricted["restricted_objective"] >= restricted["abbr_at_s_train"] - 1e-6).all()
    assert (full["objective"] >= full["abbr_at_s_train"] - 1e-6).all()  # certificate >= annealing (same pool)
    assert (full["certify_start_value"] - full["abbr_at_s_train"]).abs().max() < 1e-9  # MIP start = annealed list
    assert (full["certify_rules"] == full["certify_pool_rules"]).all()
    # shared per split: the black box's scores once, as arrays (no forest, no pickle on disk); pools
    # and condition tables are shared in memory only
    cache = sorted(p.name for p in (tmp_path / "abbr-cache").iterdir())
    assert len(cache) == 1 and cache[0].startswith("scores-") and cache[0].endswith(".npz")
    assert not (tmp_path / "blackbox").exists()
    l3 = rl[rl["L"] == 3]
    assert l3["n_filtered"].nunique() == 1 and l3["n_pool"].nunique() == 1
    cl = df[df["mode"] == "checklist"].iloc[0]
    assert 1 <= cl["threshold"] <= 3
    rr = df[df["mode"] == "random_rules"].iloc[0]
    assert np.isfinite(rr["gap_abbr"]) and np.isfinite(rr["gap_consistency"])
    base = df[df["mode"] == "baseline"].iloc[0]
    assert base["n_seeds"] == 2 and base["milp_outcome"] in ("all_solved", "node_limit", "infeasible")
    assert pd.isna(base.get("status"))  # an annealed list claims no status
    assert set(df["label"]) >= {"rule list L=2 M=2", "checklist K=3", "baseline p=0.5"}


@pytest.mark.parametrize("name", ["table2", "table4", "table5", "certify"])
def test_paper_configs_validate(name):
    cfg = config_mod.load_config(CONFIGS / f"{name}.yaml")
    assert cfg.tables and all(m.method == "abbr" for m in cfg.methods)
    smoke = config_mod.load_config(CONFIGS / f"{name}.yaml", smoke=True)
    assert smoke.repetitions <= 2


def test_random_rules_gaps_match_brute_force():
    import pandas as pd

    from interpretopt.evaluation.abbr import rank_scores
    from interpretopt.experiments.tasks.abbr import _random_rules
    from interpretopt.heuristics import abbr_search as H

    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=(500, 3)), rng.integers(0, 3, size=500)])
    sc = 1 / (1 + np.exp(-(X[:, 0] + X[:, 3] - 1 + 0.5 * rng.normal(size=500))))
    tr, te = np.arange(350), np.arange(350, 500)
    params = {"n_rules": 40, "max_conditions": 5, "p": 0.5}
    out = _random_rules(pd.DataFrame(X[tr]), pd.DataFrame(X[te]), sc[tr], sc[te], params,
                        np.random.default_rng(9))
    disc = H.discrete_mask(X[tr])
    rules = H.random_rules(X[tr], disc, 40, max_conditions=5, rng=np.random.default_rng(9))
    ranks = rank_scores(sc[tr])

    def cov(Z, r):
        c = np.ones(len(Z), bool)
        for cond in r:
            c &= H.evaluate_condition(Z, cond)
        return c

    stats = []
    for i, r in enumerate(rules):
        c = cov(X[tr], r)
        stats.append((ranks[c].mean(), (sc[tr][c] > 0.5).mean(), c.sum(), i))
    best_abbr = max(stats, key=lambda t: (t[0], t[2], -t[3]))[3]
    best_cons = max(stats, key=lambda t: (t[1], t[2], -t[3]))[3]

    def gap(i):
        return 100 * (stats[i][1] - (sc[te][cov(X[te], rules[i])] > 0.5).mean())

    assert out["gap_abbr"] == pytest.approx(gap(best_abbr))
    assert out["gap_consistency"] == pytest.approx(gap(best_cons))


def test_task_matrix_gives_the_fit_on_the_dataframe():
    """The task hands the estimators the float matrix and the discrete features by index (one
    conversion per dataset); the result must be the one of the fit on the DataFrame itself."""
    from types import SimpleNamespace

    from interpretopt.experiments.tasks.abbr import _data_matrix, _discrete_indices
    from interpretopt.methods.abbr import ChecklistSearch, RuleListSearch

    rng = np.random.default_rng(3)
    n = 400
    df = pd.DataFrame({
        "age": rng.normal(40, 10, n).round(),
        "job": pd.Categorical(rng.choice(["clerk", "nurse", "pilot", "smith"], n),
                              categories=["clerk", "farmer", "nurse", "pilot", "smith"]),  # "farmer" unused
        "hours": rng.integers(10, 60, n).astype(float),
        "kids": rng.integers(0, 3, n),
    })
    scores = 1 / (1 + np.exp(-(0.05 * (df["age"] - 40) + (df["job"] == "pilot") + 0.02 * df["hours"])))
    scores = np.asarray(scores) + rng.normal(0, 0.05, n)
    ctx = SimpleNamespace(dataset=SimpleNamespace(X=df), memo=lambda name, make, **deps: make())
    Xall, cats = _data_matrix(ctx)
    rows = np.sort(rng.choice(n, 300, replace=False))
    names = list(df.columns)
    for cls, kw in ((RuleListSearch, {"L": 2, "M": 3}), (RuleListSearch, {"L": 3, "M": 2}), (ChecklistSearch, {"K": 3})):
        ref = cls(**kw, n_iter=80, random_state=0).fit(df.iloc[rows].reset_index(drop=True), scores[rows])
        disc = _discrete_indices(Xall[rows], "auto", names, cats, 10)
        got = cls(**kw, n_iter=80, random_state=0, discrete=disc).fit(Xall[rows], scores[rows])
        assert got.abbr_ == ref.abbr_ and got.render(names) == ref.render()
        assert np.array_equal(got.discrete_, ref.discrete_)


def test_rule_list_runs_differing_in_M_share_draws_so_M5_is_never_below_M3(tmp_path):
    """The annealing is seeded by (split, L, s): every M = 5 run's warm start repeats the M = 3 run's
    search, so in-sample M = 5 >= M = 3 in every cell (and the published start stays a parameter)."""
    cfg = config_mod.parse_config({
        "name": "abbr_task_m", "methods": [
            {"method": "abbr", "params": {"mode": "rule_list", "s": [0.1, 0.2], "L": [2, 3], "M": [3, 5],
                                          "n_iter": 80}}],
        "datasets": [{"name": "breast_cancer", "max_rows": 400}], "models": ["RF1"], "repetitions": 2, "seed": 0})
    report = runner.run_experiment(cfg, out_dir=tmp_path, progress=False)
    df = results.read_results(tmp_path)
    assert report.n_failed == 0 and len(df) == 16
    wide = df.pivot_table(index=["rep", "s", "L"], columns="M", values="abbr_at_s_train")
    assert len(wide) == 8 and (wide[5] >= wide[3] - 1e-12).all()
