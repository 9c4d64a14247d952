"""Figures read as a paper's: words for keys, integer ticks, the paper's values beside ours, CRL's curves."""

from __future__ import annotations

import numpy as np
import yaml
import pandas as pd

from interpretopt.experiments.config import parse_config
from interpretopt.experiments.plots import (make_figure, paper_points, paper_vs_ours_figure, readable,
                                            transparency_columns, transparency_figure, write_plots)

CONFIG = """
name: demo
method: dummy_tree
params: {max_depth: [1, 2]}
datasets: [breast_cancer]
tables:
  - name: autac
    metric: autac
    rows: [dataset]
    columns: [learner]
    reference:
      values:
        breast_cancer: {crl: {value: 0.8, std: 0.02}, sbrl: 0.7}
plots:
  - name: table2_autac
    kind: bar
    x: dataset
    y: autac
    hue: learner
    formats: [png]
  - name: leaves_vs_depth
    kind: line
    x: depth
    y: leaf_count
    formats: [png]
"""


def _runs() -> pd.DataFrame:
    rows = []
    for rep in range(3):
        for learner, base in (("crl", 0.78), ("sbrl", 0.69), ("corels", 0.7), ("cart", 0.66), ("c45", 0.67)):
            row = {"dataset": "breast_cancer", "learner": learner, "rep": rep, "autac": base + 0.01 * rep,
                   "run_status": "ok", "blackbox_accuracy": 0.9, "accuracy_full": base, "depth": rep + 2,
                   "leaf_count": 4 * (rep + 1)}
            row.update({f"acc_t{t:03d}": 0.9 - 0.2 * t / 100 for t in range(0, 101, 25)})
            rows.append(row)
    return pd.DataFrame(rows)


def test_readable_names():
    assert readable("acc_t050") == "accuracy at transparency 0.50"
    assert readable("autac") == "AUTAC"
    assert readable("n_rules") == "number of rules"
    assert readable("some_new_metric") == "some new metric"


def test_paper_points_come_from_the_table_that_publishes_the_plotted_metric():
    cfg = parse_config(yaml.safe_load(CONFIG))
    bar, line = cfg.plots
    assert paper_points(cfg, bar) == {("breast_cancer", "crl"): (0.8, 0.02), ("breast_cancer", "sbrl"): (0.7, None)}
    assert paper_points(cfg, line) is None


def test_a_bar_plot_shows_the_papers_values_beside_ours_with_a_readable_title():
    cfg = parse_config(yaml.safe_load(CONFIG))
    fig = make_figure(_runs(), cfg.plots[0], paper=paper_points(cfg, cfg.plots[0]))
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "paper" in labels and ax.get_ylabel().startswith("AUTAC")
    assert ax.get_title() == "table2 AUTAC"  # the plot's name in words, not the raw key


def test_integer_axes_get_integer_ticks(tmp_path):
    cfg = parse_config(yaml.safe_load(CONFIG))
    fig = make_figure(_runs(), cfg.plots[1])
    ax = fig.axes[0]
    xt, yt = ax.get_xticks(), ax.get_yticks()
    assert np.allclose(xt, np.round(xt)) and np.allclose(yt, np.round(yt))
    assert ax.get_xlabel() == "depth" and ax.get_ylabel() == "leaf count"
    files = write_plots(_runs(), cfg, tmp_path)
    assert sorted(f.name for f in files) == ["leaves_vs_depth.png", "table2_autac.png"]


def test_transparency_figure_draws_curves_and_tree_marks():
    assert transparency_columns(["acc_t050", "x", "acc_t000"]) == [(0.0, "acc_t000"), (0.5, "acc_t050")]
    fig = transparency_figure(_runs(), "breast_cancer")
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["CRL", "CORELS", "SBRL", "CART", "C4.5", "black box"]
    assert transparency_figure(_runs(), "no_such_dataset") is None
    assert transparency_figure(_runs().drop(columns=[f"acc_t{t:03d}" for t in range(0, 101, 25)]), "x") is None


def test_paper_vs_ours_colours_cells_by_verdict():
    cells = pd.DataFrame({"status": ["compared", "compared", "compared", "not_run"], "kind": ["fraction"] * 3 + ["pvalue"],
                          "paper_value": [0.8, 0.7, 0.6, 0.01], "ours": [0.79, 0.5, 0.61, np.nan],
                          "paper_std": [0.02, np.nan, np.nan, np.nan], "ours_std": [0.01, 0.02, np.nan, np.nan],
                          "verdict": ["agrees", "differs", "agrees", None]})
    fig = paper_vs_ours_figure(cells, "t")
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert sorted(labels) == ["agrees (2)", "differs (1)", "ours = paper"]
    assert paper_vs_ours_figure(cells[cells["status"] != "compared"], "t") is None
