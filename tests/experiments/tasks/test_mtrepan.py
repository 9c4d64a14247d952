"""The ``mtrepan`` experiment task and the configs under configs/mtrepan/."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from interpretopt.experiments import load_config, make_table, read_results, run_experiment
from interpretopt.experiments.tasks.mtrepan import make_translator, release_split

REPO = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
CONFIGS = sorted((REPO / "configs" / "mtrepan").glob("*.yaml"))


def test_every_mtrepan_config_validates_and_carries_the_papers_numbers():
    stems = {p.stem for p in CONFIGS}
    assert stems >= {"tables2_3_circle", "tables4_5_abalone", "tables6_7_adult", "tables8_9_pima"}
    for path in CONFIGS:
        cfg = load_config(path)
        params = {k: (v[0] if isinstance(v, (list, tuple)) and k != "depth" and len(v) == 1 else v)
                  for k, v in cfg.methods[0].params.items()}
        n = 12 if "circle" in path.stem else 10
        assert list(params["depth"]) == list(range(1, n + 1))
        # the release's protocol (side labels, negative root) and both readings of the evaluation points
        assert params["evaluation"] == "both" and params["leaf_label"] == "side" and params["test_size"] == 0.3
        assert params["root_label"] == "negative" and params["cutoff_variance"] == 1e-5
        assert params["cutoff_entropy"] == (0 if "circle" in path.stem else 0.0808)
        refs = [t for t in cfg.tables if t.reference is not None]
        assert {t.metric for t in refs} == {"model_parity", "certain_model_parity", "boundary_model_parity_release",
                                            "leaf_count", "model_parity_held_out", "certain_model_parity_held_out"}
        # each reading labelled, the paper's values beside both
        by_metric = {t.metric: t for t in refs}
        for metric in ("model_parity", "certain_model_parity"):
            box, held = by_metric[metric], by_metric[metric + "_held_out"]
            assert "uniform points in the training box" in box.caption and "release" in box.caption
            assert "over the total number of samples in the validation set" in held.caption
            assert held.reference.values == box.reference.values
        for t in refs:
            assert "Almerri" in t.reference.source and list(t.rows) == ["depth"]
            assert sorted(int(r) for r in t.reference.values) == list(range(1, n + 1))
            for row in t.reference.values.values():
                assert set(row) == {"mtrepan", "trepan"}
        # the paper's depth 1 is the root alone: one leaf for both methods
        leaf = next(t for t in refs if t.metric == "leaf_count")
        assert leaf.reference.values["1"] == {"mtrepan": 1.0, "trepan": 1.0}
        # the protocol header is the first thing in the file
        assert path.read_text().startswith("# Protocol of the paper")
        # smoke keeps every depth and variant (every published cell gets a number)
        smoke = load_config(path, smoke=True)
        assert len(smoke.methods[0].params["depth"]) == n and len(smoke.methods[0].params["variant"]) == 3
        assert list(params["variant"]) == ["mtrepan", "trepan", "trepan_c45"]


def test_release_split_balances_and_holds_out_the_release_count():
    y = np.array([1] * 70 + [0] * 30)
    tr, va = release_split(y, 0.3, 0, balance=True)
    kept = np.concatenate([tr, va])
    assert (y[kept] == 1).sum() == (y[kept] == 0).sum() == 30
    assert va.size == int(np.floor((60 - 1) * 0.3)) + 1 and np.intersect1d(tr, va).size == 0
    tr2, va2 = release_split(y, 0, 0, balance=False)
    assert tr2.size == 100 and va2.size == 0
    assert np.array_equal(release_split(y, 0.3, 5, True)[0], release_split(y, 0.3, 5, True)[0])


def test_circle_smoke_runs_end_to_end(tmp_path):
    path = next(p for p in CONFIGS if p.stem == "tables2_3_circle")
    cfg = load_config(path, smoke=True)
    run_experiment(cfg, out_dir=tmp_path, progress=False)
    df = read_results(tmp_path)
    assert (df.run_status == "ok").all(), df.get("error")
    assert set(df.variant) == {"mtrepan", "trepan", "trepan_c45"}
    for col in ("model_parity", "certain_model_parity", "boundary_model_parity", "boundary_model_parity_release",
                "leaf_count", "n_queries", "n_eval", "lp_seconds", "sampling_seconds", "n_eq7_unmet",
                "target_fingerprint"):
        assert col in df.columns
    assert "status" not in df.columns or df["status"].isna().all()  # a greedy tree carries no status
    assert (df.n_eq7_unmet == 0).all()
    assert (df.target_fingerprint == "circle(r=1)").all()
    d1 = df[df.depth == 1]
    assert (d1.leaf_count == 1).all() and (d1.certain_model_parity == 0).all()
    # depth 1: the root alone, labelled negative: model parity is the box's negative share
    assert np.allclose(d1.model_parity, d1.target_negative_share)
    # the release's evaluation count: half the root's data
    assert (df.n_eval == np.floor(0.5 * df.n_root)).all()
    # the paper's text's reading: the validation rows (30% of the 400 smoke rows), never training rows
    assert (df.n_eval_held_out == 120).all() and (df.n_train == 280).all()
    assert df.model_parity_held_out.between(0, 100).all() and "certain_model_parity_held_out" in df.columns
    assert (df[df.depth == 1].certain_model_parity_held_out == 0).all()
    for _, g in df.groupby("variant"):
        g = g.sort_values("depth")
        assert g.leaf_count.is_monotonic_increasing
        assert g.certain_model_parity.is_monotonic_increasing
    table = make_table(df, cfg.tables[0])
    assert table.comparison is not None and len(table.comparison) == 24
    svgs = sorted(tmp_path.glob("artifacts/*/polytopes_depth12.svg"))
    assert len(svgs) == 3 and all("<svg" in p.read_text()[:500] for p in svgs)
    assert sorted(tmp_path.glob("artifacts/*/tree_depth4.json"))


def test_make_translator_names():
    assert type(make_translator({"variant": "mtrepan"}, 0)).__name__ == "MTREPANClassifier"
    t = make_translator({"variant": "trepan"}, 0)
    assert type(t).__name__ == "TREPANClassifier" and t.splitter == "svm_1d"
    assert make_translator({"variant": "trepan_c45"}, 0).splitter == "c45"
    with pytest.raises(ValueError, match="mtrepan"):
        make_translator({"variant": "cart"}, 0)


def test_results_name_the_network_each_row_translated():
    from interpretopt.blackbox import CircleTarget, MTREPANNetwork
    from interpretopt.experiments.tasks.mtrepan import _fingerprint

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] > 0).astype(int)
    nets = [MTREPANNetwork(n_rounds=1, samples_per_round=300, random_state=s).fit(X, y) for s in (0, 0, 1)]
    fps = [_fingerprint(n) for n in nets]
    assert fps[0] == fps[1] != fps[2] and len(fps[0]) == 16
    assert _fingerprint(CircleTarget(0.5)) == "circle(r=0.5)"
