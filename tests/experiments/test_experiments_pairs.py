"""Per-dataset model pairs in the config schema, and tables that print the pair beside each row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from interpretopt.exceptions import ConfigError
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.runner import plan_runs
from interpretopt.experiments.tables import make_table, to_markdown


def _cfg(pairs, datasets=("breast_cancer",), **kw):
    raw = {"name": "x", "method": "noop", "datasets": list(datasets), "pairs": pairs}
    raw.update(kw)
    return parse_config(raw)


def test_per_dataset_pairs_give_the_runs_their_models_and_tags():
    c = _cfg({"per_dataset": {"breast_cancer": {"max": ["MLP1", "GB"], "min": ["MLP2", "DT2"]}}}, repetitions=2)
    runs = plan_runs(c)
    assert [(r.models, r.pair_tag, r.rep) for r in runs] == [
        (("MLP1", "GB"), "max", 0), (("MLP1", "GB"), "max", 1), (("MLP2", "DT2"), "min", 0),
        (("MLP2", "DT2"), "min", 1)]
    assert runs[0].name == "noop@breast_cancer/MLP1-GB/0"  # the paper's order, model 1 first
    assert c.model_sets == (("MLP1", "GB"), ("MLP2", "DT2"))


def test_per_dataset_pairs_are_validated():
    with pytest.raises(ConfigError, match="no pairs for dataset"):
        _cfg({"per_dataset": {"other": {"max": ["LR", "GB"]}}})
    with pytest.raises(ConfigError, match="unknown model 'XX'"):
        _cfg({"per_dataset": {"breast_cancer": {"max": ["XX", "GB"]}}})
    with pytest.raises(ConfigError, match=r"expected a pair \[model1, model2\]"):
        _cfg({"per_dataset": {"breast_cancer": {"max": ["LR"]}}})
    with pytest.raises(ConfigError, match="cannot be combined"):
        _cfg({"per_dataset": {"breast_cancer": {"max": ["LR", "GB"]}}, "select": "max_min_accuracy_gap"})
    with pytest.raises(ConfigError, match="listed twice"):
        _cfg({"per_dataset": {"breast_cancer": {"max": ["LR", "GB"], "min": ["LR", "GB"]}}})


def _results():
    rows = []
    for ds, tag, pair, base in (("d1", "max", "A-B", 0.8), ("d1", "min", "C-D", 0.5), ("d2", "max", "A-C", 0.6)):
        for v, s in (("imd", 0.0), ("sep", 0.1), ("dt", -0.2)):
            for rep in (0, 1):
                rows.append({"dataset": ds, "pair_tag": tag, "models": pair, "variant": v, "rep": rep,
                             "run_status": "ok", "f1": base + s, "scale": "reduced"})
    return pd.DataFrame(rows)


def _table(**kw):
    t = {"name": "t", "metric": "f1", "rows": ["dataset", "pair_tag"], "columns": ["variant"], "pair": "models"}
    t.update(kw)
    return parse_config({"name": "x", "method": "noop", "datasets": ["breast_cancer"], "tables": [t]}).tables[0]


def test_tables_print_our_pair_and_the_papers_beside_each_cell():
    ref = {"source": "Paper, Table 1", "values": {"d1 / max": {"imd": 0.7}, "d1 / min": {"imd": 0.5}},
           "pairs": {"d1 / max": "A-B", "d1 / min": "X-Y"}}
    tr = make_table(_results(), _table(reference=ref))
    assert tr.pairs == {"d1 / max": "A-B", "d1 / min": "C-D", "d2 / max": "A-C"}
    comp = tr.comparison.set_index("row")
    assert comp.loc["d1 / max", "pair_ours"] == "A-B" and comp.loc["d1 / max", "pair_paper"] == "A-B"
    assert comp.loc["d1 / min", "pair_ours"] == "C-D" and comp.loc["d1 / min", "pair_paper"] == "X-Y"
    md = to_markdown(tr)
    assert "pair (models)" in md and "| d1 / min | C-D |" in md
    assert "pair (ours)" in md and "X-Y" in md and "reduced scale" in md


def test_wins_and_pct_change_rows_and_published_summary_cells():
    ref = {"source": "Paper, Table 8", "values": {"# imd greater": {"sep": 0, "dt": 3},
                                                   "% change from imd": {"sep": 10.0}, "mean rank": {"imd": 2.0}}}
    tr = make_table(_results(), _table(tests=["wins", "pct_change", "friedman"], baseline="imd", reference=ref,
                                       aggregate="mean_rank"))
    assert tr.extra_rows["# imd greater"] == {"dt": "3/3", "sep": "0/3", "imd": "-"}
    want = np.mean([0.1 / 0.8, 0.1 / 0.5, 0.1 / 0.6]) * 100
    assert tr.extra_rows["% change from imd"]["sep"] == f"{want:+.2f}%"
    comp = tr.comparison.set_index(["row", "column"])
    assert comp.loc[("# imd greater", "dt"), "ours"] == 3 and comp.loc[("mean rank", "imd"), "ours"] == 2.0
    assert comp.loc[("% change from imd", "sep"), "ours"] == pytest.approx(round(want, 2))
