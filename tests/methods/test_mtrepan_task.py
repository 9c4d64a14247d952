"""The ``mtrepan`` experiment task and the configs under configs/mtrepan/."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpretopt.experiments import load_config, make_table, read_results, run_experiment
from interpretopt.experiments.tasks.mtrepan import make_translator

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs" / "mtrepan").glob("*.yaml"))


def test_every_mtrepan_config_validates_and_carries_the_papers_numbers():
    stems = {p.stem for p in CONFIGS}
    assert stems >= {"tables2_3_circle", "tables4_5_abalone", "tables6_7_adult", "tables8_9_pima"}
    for path in CONFIGS:
        cfg = load_config(path)
        depths = cfg.methods[0].params["depth"] if hasattr(cfg.methods[0], "params") else None
        refs = [t for t in cfg.tables if t.reference is not None]
        assert {t.metric for t in refs} == {"model_parity", "certain_model_parity", "boundary_model_parity",
                                            "leaf_count"}
        for t in refs:
            assert "Almerri" in t.reference.source
            assert t.rows == ("depth",) or list(t.rows) == ["depth"]
            n = 12 if "circle" in path.stem else 10
            assert sorted(int(r) for r in t.reference.values) == list(range(1, n + 1))
            for row in t.reference.values.values():
                assert set(row) == {"mtrepan", "trepan"}
        # the paper's depth 1 is the root alone: one leaf for both methods
        leaf = next(t for t in refs if t.metric == "leaf_count")
        assert leaf.reference.values["1"] == {"mtrepan": 1.0, "trepan": 1.0}
        assert depths is None or len(depths) == n


def test_circle_smoke_runs_end_to_end(tmp_path):
    path = next(p for p in CONFIGS if p.stem == "tables2_3_circle")
    cfg = load_config(path, smoke=True)
    run_experiment(cfg, out_dir=tmp_path, progress=False)
    df = read_results(tmp_path)
    assert (df.run_status == "ok").all(), df.get("error")
    assert set(df.variant) == {"mtrepan", "trepan"}
    for col in ("model_parity", "certain_model_parity", "boundary_model_parity", "leaf_count", "n_queries",
                "boundary_model_parity_uniform", "lp_seconds"):
        assert col in df.columns
    d1 = df[df.depth == 1]
    assert (d1.leaf_count == 1).all() and (d1.certain_model_parity == 0).all()
    # deeper truncations of the same tree never have fewer leaves
    for _, g in df.groupby("variant"):
        g = g.sort_values("depth")
        assert g.leaf_count.is_monotonic_increasing
    table = make_table(df, cfg.tables[0])
    assert table.comparison is not None and len(table.comparison) > 0
    # Figure 3 at the smoke depth, one per variant
    svgs = sorted(tmp_path.glob("artifacts/*/polytopes_depth3.svg"))
    assert len(svgs) == 2 and all("<svg" in p.read_text()[:500] for p in svgs)


def test_make_translator_names():
    assert type(make_translator({"variant": "mtrepan"}, 0)).__name__ == "MTREPANClassifier"
    assert type(make_translator({"variant": "trepan"}, 0)).__name__ == "TREPANClassifier"
    with pytest.raises(ValueError, match="mtrepan"):
        make_translator({"variant": "cart"}, 0)
