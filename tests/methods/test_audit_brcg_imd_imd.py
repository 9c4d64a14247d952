"""IMD checks not covered elsewhere: the Graphviz image path and the BRCG Diff baseline fitted end to end."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from interpretopt.methods.imd import BRCGDiff, IMDExplainer


def synthetic(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y1 = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    y2 = ((X[:, 0] + 0.3 * X[:, 1] > 0) | (X[:, 2] > 1.0)).astype(int)
    return X, y1, y2


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_image_path_draws_the_dot_layout(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y1, y2 = synthetic()
    imd = IMDExplainer(max_depth=3).fit(X, y1, y2)
    assert imd.n_rules_ > 0
    for engine in ("graphviz", "auto"):
        ax = imd.plot(engine=engine)
        images = ax.get_images()
        assert len(images) == 1  # the PNG rendered by dot, not the matplotlib node layout
        h, w = images[0].get_array().shape[:2]
        assert h > 50 and w > 50
        assert not ax.texts  # the pure-matplotlib layout writes node labels as texts
        ax.figure.savefig(tmp_path / f"jst_{engine}.png")
        assert (tmp_path / f"jst_{engine}.png").stat().st_size > 0
        plt.close(ax.figure)
    ax = imd.plot(engine="matplotlib")
    assert not ax.get_images() and len(ax.texts) > 0
    plt.close(ax.figure)


def test_graphviz_engine_without_dot_is_a_clear_error(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from interpretopt.methods import imd_render

    X, y1, y2 = synthetic(n=200)
    imd = IMDExplainer(max_depth=2).fit(X, y1, y2)
    monkeypatch.setattr(imd_render.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="dot"):
        imd.plot(engine="graphviz")
    ax = imd.plot(engine="auto")  # falls back to the matplotlib layout
    assert not ax.get_images() and len(ax.texts) > 0
    plt.close(ax.figure)


def test_brcg_diff_predicts_where_the_two_rule_sets_differ():
    pytest.importorskip("interpretopt.methods.brcg")
    X, y1, y2 = synthetic()
    params = dict(pricing="beam", max_literals=2, n_thresholds=4, mip_time_limit=5, time_limit=10)
    bd = BRCGDiff(brcg_params=params).fit(X, y1, y2)
    m1, m2 = bd.models_
    assert m1 is not None and m2 is not None
    # the second rule set is grounded in the first (BRCG+)
    assert type(m2).__name__ == "GroundedBRCGClassifier" and m2.grounding is m1.rules_
    p1, p2 = m1.predict(X), m2.predict(X)
    assert np.array_equal(bd.predict_diff(X), (p1 != p2).astype(np.int8))
    assert np.array_equal(np.asarray(m1.rules_.predict(X)), p1)
    met = bd.metrics(X, y1, y2)
    # #r counts the diff rules (the disagreement DNF), not the two surrogates' rules
    assert met["n_rules"] == len(bd.diff_rules_)
    assert np.array_equal(bd.diff_rules_.predict(X), (p1 != p2).astype(np.int8))
    d = y1 != y2
    pred = bd.predict_diff(X).astype(bool)
    assert met["recall"] == pytest.approx((d & pred).sum() / max(d.sum(), 1))
    # the two models differ only on x2 > 1: the rule sets should localize most of it
    assert met["f1"] > 0.5
    plain = BRCGDiff(brcg_params=params, grounded=False).fit(X, y1, y2)
    assert type(plain.models_[1]).__name__ == "BRCGClassifier"


def test_refinement_splits_every_impure_diff_leaf_once():
    """IMD_{h+1}: each impure leaf taking part in a diff region gains one split (by its own
    model's best split); pure leaves and leaves outside diff regions stay leaves."""
    from interpretopt.heuristics.jst import best_split, diff_regions, grow_joint_tree, refine

    rng = np.random.default_rng(4)
    X = rng.normal(size=(600, 3))
    y1 = ((X[:, 0] + X[:, 1] > 0) ^ (rng.random(600) < 0.1)).astype(int)
    y2 = ((X[:, 0] - X[:, 2] > 0.3) ^ (rng.random(600) < 0.1)).astype(int)
    jst = grow_joint_tree(X, y1, y2, 2)
    regions = diff_regions(jst)
    assert regions
    new = refine(jst, X, y1, y2, 1)
    n_split = 0
    for tree, new_tree, y, in_diff in ((jst.tree1, new.tree1, y1, {r.leaf1 for r in regions}),
                                       (jst.tree2, new.tree2, y2, {r.leaf2 for r in regions})):
        leaf_of = tree.apply(X)
        for leaf in np.flatnonzero(tree.is_leaf):
            idx = np.flatnonzero(leaf_of == leaf)
            splittable = idx.size >= 2 and best_split(X[idx], y[idx], 2)[0] >= 0
            if leaf in in_diff and not tree.pure[leaf] and splittable:
                assert new_tree.feature[leaf] >= 0
                f, t, _ = best_split(X[idx], y[idx], 2)
                assert (new_tree.feature[leaf], new_tree.threshold[leaf]) == (f, pytest.approx(t))
                n_split += 1
            else:
                assert new_tree.feature[leaf] < 0
    assert n_split > 0
    assert new.height == jst.height + 1
