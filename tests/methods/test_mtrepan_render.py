"""Rendering and export of translations: the 2-D plot, JSON and the DataFrame of inequalities; point
explanations and the boundary estimate of Section 4.1."""

from __future__ import annotations

import json

import numpy as np
import pytest

from interpretopt.blackbox import CircleTarget
from interpretopt.methods.mtrepan import MTREPANClassifier, TREPANClassifier
from interpretopt.methods.mtrepan_render import leaves_frame, polygon_2d, translation_to_dict
from interpretopt.rules import Polytope

FAST = dict(batch_size=100, cutoff_variance=1e-3)


@pytest.fixture(scope="module")
def fitted():
    X = np.random.default_rng(0).uniform(-3, 3, (300, 2))
    est = MTREPANClassifier(max_depth=5, cutoff_entropy=0.0, leaf_label="side", random_state=0, **FAST).fit(
        X, CircleTarget())
    return X, est


def test_json_round_trip_gives_the_same_partition(fitted):
    _, est = fitted
    data = json.loads(est.to_json(depth=4))
    assert data["method"] == "MTREPANClassifier" and data["feature_names"] == ["x0", "x1"]
    assert len(data["leaves"]) == est.leaf_count(4) == sum(n["leaf"] for n in data["nodes"])
    V = np.random.default_rng(1).uniform(*est.root_box_, (2000, 2))
    ids = est.apply(V, depth=4)
    for leaf in data["leaves"]:
        P = Polytope.from_dict(leaf["inequalities"])
        assert np.array_equal(P.contains(V, tol=1e-9), ids == leaf["id"]) or \
            np.mean(P.contains(V, tol=1e-9) == (ids == leaf["id"])) > 0.999
    node0 = data["nodes"][0]
    assert node0["id"] == 0 and "split" in node0 and len(node0["split"]["c"]) == 2
    assert data["nodes"][0]["sampling"]["eq7_met"] is True
    assert translation_to_dict(est)["depth"] == est.tree_.max_depth


def test_frame_has_one_row_per_minimal_inequality(fitted):
    _, est = fitted
    df = est.to_frame(depth=3)
    leaves = est.leaves(depth=3)
    assert len(df) == sum(e.polytope.n_constraints for e in leaves)
    assert set(df.kind) <= {"bound", "split"} and set(df.leaf_id) == {e.node_id for e in leaves}
    row = df.iloc[0]
    leaf = next(e for e in leaves if e.node_id == row.leaf_id)
    assert row.x0 == leaf.polytope.C[0, 0] and row.rhs == leaf.polytope.b[0]
    with pytest.raises(Exception, match="clash"):
        leaves_frame(leaves, ["rhs", "x1"])


def test_explain_one_point(fitted):
    _, est = fitted
    x = np.array([0.1, -0.2])
    e = est.explain(x, depth=5)
    assert e.leaf.polytope.contains(x) and e.leaf.node_id == est.apply(x[None, :], depth=5)[0]
    assert e.predicted_label == est.predict(x[None, :], depth=5)[0]
    assert e.nearest_other is not None and e.nearest_other.predicted_label != e.predicted_label
    z = e.nearest_point
    assert e.nearest_other.polytope.contains(z, tol=1e-7)
    lo, hi = est.root_box_
    assert e.distance == pytest.approx(float(np.sum(np.abs(z - x) / (hi - lo))), rel=1e-6)
    # brute force: no point of another label is closer (grid in range units)
    g = np.stack(np.meshgrid(np.linspace(lo[0], hi[0], 241), np.linspace(lo[1], hi[1], 241)), -1).reshape(-1, 2)
    other = est.predict(g, depth=5) != e.predicted_label
    dist = np.sum(np.abs(g[other] - x) / (hi - lo), axis=1)
    assert e.distance <= dist.min() + 1e-9
    assert "nearest leaf of another label" in e.render()


def test_boundary_estimate_pieces_separate_different_labels(fitted):
    _, est = fitted
    pieces = est.boundary_estimate(depth=4)
    shared = [p for p in pieces if p.kind == "shared_constraint"]
    assert shared
    for p in shared:
        a, b = p.leaves
        assert p.labels[0] != p.labels[1]
        # points on the hyperplane inside the face, nudged to each side, fall in the two leaves
        cc = p.face.add(p.c, p.b).add(-p.c, -p.b).chebyshev_center()
        assert cc is not None
        x0 = cc[0]
        n = p.c / np.linalg.norm(p.c)
        ids = est.apply(np.vstack([x0 - 1e-6 * n, x0 + 1e-6 * n]), depth=4)
        assert ids.tolist() == [a, b]
    assert all(p.kind == "uncertain_leaf" for p in pieces if p.kind != "shared_constraint")
    assert "where" in shared[0].render()


def test_plot_and_polygon(fitted, tmp_path):
    _, est = fitted
    ax = est.plot_2d(CircleTarget(), resolution=40)
    assert len(ax.patches) == est.leaf_count()
    ax.figure.savefig(tmp_path / "fig3.png")
    sq = polygon_2d(Polytope.bounding_box([0, 0], [1, 1]).add([1, 1], 1.0), [0, 0], [1, 1])
    assert sq.shape == (3, 2)
    t = TREPANClassifier(max_depth=2, random_state=0, **FAST).fit(np.random.default_rng(0).uniform(0, 1, (50, 3)),
                                                                   lambda Z: Z[:, 0] > 0.5)
    with pytest.raises(Exception, match="two-feature"):
        t.plot_2d()
