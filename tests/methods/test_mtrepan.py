"""MTRE-PAN / TRE-PAN: partition, separable targets, sampling on demand, determinism, bad input."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.blackbox import CircleTarget
from interpretopt.exceptions import InputError
from interpretopt.heuristics.trepan import (
    NodeSolveError,
    best_axis_split,
    binary_entropy,
    sample_on_demand,
)
from interpretopt.methods.mtrepan import MTREPANClassifier, TREPANClassifier
from interpretopt.rules import Polytope
from tests.instances import defaults_of

# small but real settings: batches of 100, sampling stops once p(1-p)/N <= 1e-3
FAST = dict(batch_size=100, cutoff_variance=1e-3)


def _circle_data(n=300, seed=0):
    return np.random.default_rng(seed).uniform(-3, 3, (n, 2))


@pytest.fixture(scope="module")
def circle_fit():
    X = _circle_data()
    return X, MTREPANClassifier(max_depth=6, random_state=0, **FAST).fit(X, CircleTarget())


@pytest.fixture(scope="module")
def circle_fit_trepan():
    X = _circle_data()
    return X, TREPANClassifier(max_depth=6, random_state=0, **FAST).fit(X, CircleTarget())


@pytest.mark.parametrize("which", ["circle_fit", "circle_fit_trepan"])
def test_leaves_partition_the_root_box(which, request):
    X, est = request.getfixturevalue(which)
    lo, hi = est.root_box_
    P = np.random.default_rng(5).uniform(lo, hi, (4000, 2))
    leaves = est.tree_.leaves()
    cover = np.column_stack([nd.polytope.contains(P, tol=0.0) for nd in leaves])
    assert (cover.sum(axis=1) == 1).all()
    # routing by the splits agrees with polytope membership
    ids = est.apply(P)
    pos = {nd.node_id: k for k, nd in enumerate(leaves)}
    assert cover[np.arange(P.shape[0]), [pos[i] for i in ids]].all()
    # every training row lands in exactly one leaf, which contains it
    ids_train = est.apply(X)
    leaf_ids = {nd.node_id for nd in leaves}
    assert set(ids_train.tolist()) <= leaf_ids
    for nid in np.unique(ids_train):
        assert est.tree_.nodes[nid].polytope.contains(X[ids_train == nid]).all()


@pytest.mark.parametrize("which", ["circle_fit", "circle_fit_trepan"])
def test_truncated_partitions_are_partitions_too(which, request):
    X, est = request.getfixturevalue(which)
    P = np.random.default_rng(6).uniform(*est.root_box_, (1000, 2))
    for depth in range(1, est.tree_.max_depth + 1):
        leaves = est.tree_.leaves(depth)
        assert len(leaves) == est.leaf_count(depth)
        cover = np.column_stack([nd.polytope.contains(P, tol=0.0) for nd in leaves])
        assert (cover.sum(axis=1) == 1).all()
    assert est.leaf_count(1) == 1


def test_circle_translation_improves_with_depth(circle_fit):
    _, est = circle_fit
    target = CircleTarget()
    V = np.random.default_rng(9).uniform(-3, 3, (5000, 2))
    reps = [est.parity(target, V, depth=d) for d in range(1, est.tree_.max_depth + 1)]
    cert = [r["certain_model_parity"] for r in reps]
    assert cert[0] == 0.0  # the root alone is uncertain
    assert all(b >= a - 1e-9 for a, b in zip(cert, cert[1:]))  # a certain leaf stays certain
    assert cert[-1] > 60.0
    assert reps[-1]["model_parity"] > 90.0
    for r in reps:
        assert r["certain_model_parity"] <= r["model_parity"] + 1e-9


def test_linearly_separable_target_is_translated_by_one_split():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (400, 3))
    w = np.array([1.0, 2.0, -1.0])

    def target(Z):
        return (Z @ w > 0.3).astype(int)

    est = MTREPANClassifier(max_depth=2, random_state=0, cutoff_variance=1e-3).fit(X, target)
    assert est.leaf_count() == 2  # one split: the paper's depth 2 (root = depth 1)
    assert est.n_lp_solves_ == 1
    V = rng.uniform(-1, 1, (5000, 3))
    assert est.parity(target, X)["certain_model_parity"] == 100.0
    # fresh points: 100% away from a thin band around the boundary, >= 99.5% overall
    off_band = np.abs(V @ w - 0.3) / np.linalg.norm(w) > 0.02
    assert np.mean(est.predict(V[off_band]) == target(V[off_band])) == 1.0
    assert est.parity(target, V)["model_parity"] >= 99.5
    assert not est.predict_uncertain(X).any()
    # the split is the target's hyperplane (up to scale)
    c = est.tree_.nodes[0].split.c
    assert abs(abs(c @ w) / (np.linalg.norm(c) * np.linalg.norm(w)) - 1) < 0.02


def test_axis_aligned_target_is_translated_by_one_trepan_split():
    X = np.random.default_rng(2).uniform(0, 10, (300, 2))
    est = TREPANClassifier(max_depth=2, random_state=0, **FAST).fit(X, lambda Z: Z[:, 1] > 6.5)
    assert est.leaf_count() == 2
    assert np.mean(est.predict(X) == (X[:, 1] > 6.5)) == 1.0
    assert est.tree_.nodes[0].split.info["feature"] == 1


def test_sampling_on_demand_stops_by_the_variance_rule():
    P = Polytope.bounding_box([0, 0], [1, 1]).add([1.0, 1.0], 1.5)

    def oracle(Z):
        return (Z[:, 0] > 0.6).astype(int)

    rng = np.random.default_rng(123)
    Xs, ys, tr = sample_on_demand(P, np.zeros(2), np.ones(2), oracle, rng, n_inherited=0, n_positive=0,
                                  cutoff_variance=2e-4, batch_size=50)
    assert tr.stopped_by == "variance"
    assert tr.variance <= 2e-4
    assert tr.variances[-1] == tr.variance and all(v > 2e-4 for v in tr.variances[:-1])
    assert tr.n_batches >= 2 and tr.n_sampled == 50 * tr.n_batches == Xs.shape[0]
    assert P.contains(Xs).all()
    p = ys.mean()
    assert p * (1 - p) / len(ys) == pytest.approx(tr.variance)
    # same seed, same samples
    Xs2, ys2, tr2 = sample_on_demand(P, np.zeros(2), np.ones(2), oracle, np.random.default_rng(123),
                                     n_inherited=0, n_positive=0, cutoff_variance=2e-4, batch_size=50)
    assert np.array_equal(Xs, Xs2) and tr2.n_batches == tr.n_batches
    # inherited data count towards N: a pure node with many inherited points stops after one batch
    _, _, tr3 = sample_on_demand(P, np.zeros(2), np.ones(2), lambda Z: np.zeros(len(Z)), rng, n_inherited=500,
                                 n_positive=0, cutoff_variance=1e-5, batch_size=20)
    assert tr3.n_batches == 1 and tr3.variance == 0.0


def test_same_seed_same_tree_and_truncation_equals_smaller_depth():
    X = _circle_data(200, seed=4)
    kw = dict(random_state=7, **FAST)
    a = MTREPANClassifier(max_depth=4, **kw).fit(X, CircleTarget())
    b = MTREPANClassifier(max_depth=4, **kw).fit(X, CircleTarget())
    assert len(a.tree_.nodes) == len(b.tree_.nodes)
    for na, nb in zip(a.tree_.nodes, b.tree_.nodes):
        assert na.path == nb.path and na.polytope == nb.polytope and na.n_samples == nb.n_samples
    c = MTREPANClassifier(max_depth=3, **kw).fit(X, CircleTarget())
    V = np.random.default_rng(0).uniform(-3, 3, (2000, 2))
    assert np.array_equal(a.predict(V, depth=3), c.predict(V))
    assert np.array_equal(a.predict_uncertain(V, depth=3), c.predict_uncertain(V))
    assert a.leaf_count(3) == c.leaf_count()
    d = MTREPANClassifier(max_depth=4, random_state=8, **FAST).fit(X, CircleTarget())
    assert any(not np.array_equal(x.polytope.C, y.polytope.C) for x, y in zip(a.tree_.nodes, d.tree_.nodes)) or \
        len(a.tree_.nodes) != len(d.tree_.nodes)


def test_explanations_are_in_original_units(circle_fit):
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.uniform(0, 1000, 300), rng.uniform(-5, 5, 300)])

    def target(Z):
        return ((Z[:, 0] / 1000 - 0.5) ** 2 + (Z[:, 1] / 10) ** 2 < 0.1).astype(int)

    est = MTREPANClassifier(max_depth=4, random_state=0, **FAST).fit(X, target)
    leaves = est.leaves()
    assert len(leaves) == est.leaf_count()
    ids = est.apply(X)
    P = np.random.default_rng(4).uniform(*est.root_box_, (3000, 2))
    for e, nd in zip(leaves, sorted(est.tree_.leaves(), key=lambda n: n.node_id)):
        assert e.polytope.contains(X[ids == e.node_id], tol=1e-7).all()
        assert np.allclose(np.max(np.abs(e.polytope.C), axis=1), 1.0)
        # the minimal form has no more rows and describes the same set
        assert e.polytope.n_constraints <= nd.polytope.n_constraints
        assert np.array_equal(e.polytope.contains(P, tol=1e-9), nd.polytope.contains(P, tol=1e-9))
        lo, hi = e.bounding_box
        assert (lo <= hi).all()
        if e.uncertain:
            assert e.label == "uncertain" and e.boundary is not None and e.boundary.n_constraints == 1
        else:
            assert e.label in (0, 1) and e.boundary is None
    text = est.render(feature_names=["income", "age"])
    assert "income" in text and "<=" in text
    # uncertain leaves of a truncated tree report their split as the boundary estimate
    assert all(e.boundary is not None for e in est.leaves(depth=2) if e.uncertain)
    # box rows print as intervals
    assert " <= income <= " in text or "income >= " in text or "income <= " in text


def test_pandas_names_and_plot(circle_fit, tmp_path):
    import pandas as pd

    X, est = circle_fit
    df = pd.DataFrame(X, columns=["h", "v"])
    est2 = MTREPANClassifier(max_depth=3, random_state=0, **FAST).fit(df, CircleTarget())
    assert list(est2.feature_names_in_) == ["h", "v"]
    assert "h" in est2.render()
    ax = est.plot_2d(CircleTarget(), resolution=60)
    assert len(ax.patches) == est.leaf_count()
    ax.figure.savefig(tmp_path / "fig3.png")
    assert (tmp_path / "fig3.png").stat().st_size > 0


def test_best_axis_split_is_the_brute_force_best():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 6, (40, 2)).astype(float)
    y = ((X[:, 0] + rng.normal(0, 1.5, 40)) > 2.5).astype(int)
    s = best_axis_split(X, y)

    def gain(j, t):
        left = X[:, j] <= t
        n = len(y)
        h = binary_entropy(y.mean())
        return h - (left.sum() * binary_entropy(y[left].mean()) + (~left).sum() * binary_entropy(y[~left].mean())) / n

    cands = [(gain(j, t + 0.5), j, t + 0.5) for j in range(2) for t in range(5)]
    g, j, t = max(cands)
    assert s.info["gain"] == pytest.approx(g)
    assert s.c[j] == 1.0 and s.b == pytest.approx(t)


@pytest.mark.parametrize("bad", [
    dict(max_depth=0), dict(cutoff_entropy=1.5), dict(cutoff_entropy=-0.1), dict(cutoff_variance=0.0),
    dict(cutoff_variance=0.3), dict(margin=0.0), dict(margin=0.7), dict(box_margin=-0.1), dict(C=0.0),
    dict(leaf_label="vote"), dict(lp_path="fast"), dict(batch_size=0),
])
def test_bad_hyperparameters_are_rejected(bad):
    X = _circle_data(50)
    with pytest.raises(InputError):
        MTREPANClassifier(**bad).fit(X, CircleTarget())


def test_non_binary_target_is_rejected():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = rng.integers(0, 3, 60)
    model = LogisticRegression().fit(X, y)
    with pytest.raises(InputError, match="binary"):
        MTREPANClassifier(**FAST).fit(X, model)
    with pytest.raises(InputError, match="binary"):
        TREPANClassifier(**FAST).fit(X, lambda Z: np.arange(len(Z)) % 3)


@pytest.mark.parametrize("fail_at", [1, 2])
def test_node_lp_failure_is_reported_with_the_node_path(monkeypatch, fail_at):
    import interpretopt.solvers as solvers
    from interpretopt.solvers import SolveResult, SolveStatus

    real = solvers.solve_lp
    calls = {"n": 0}

    def fake(*a, **k):
        calls["n"] += 1
        if calls["n"] == fail_at:
            return SolveResult(status=SolveStatus.INFEASIBLE if fail_at == 1 else SolveStatus.UNBOUNDED,
                               solver="highs", message="forced")
        return real(*a, **k)

    monkeypatch.setattr(solvers, "solve_lp", fake)
    X = _circle_data(200)
    with pytest.raises(NodeSolveError) as info:
        MTREPANClassifier(max_depth=4, random_state=0, **FAST).fit(X, CircleTarget())
    expected = r"^node root: " if fail_at == 1 else r"^node root/[LR]+: "
    assert re.search(expected, str(info.value))
    assert info.value.path == ("" if fail_at == 1 else info.value.path) and len(info.value.path) == fail_at - 1
    assert ("infeasible" if fail_at == 1 else "unbounded") in str(info.value)


@pytest.mark.parametrize("other", [dict(lp_path="pyomo"), dict(lp_path="matrix"), dict(solver="ortools_glop")])
def test_other_lp_paths_and_backends_give_the_same_tree(other):
    X = _circle_data(150, seed=2)
    kw = dict(max_depth=3, random_state=1, **FAST)
    a = MTREPANClassifier(lp_path="dual", **kw).fit(X, CircleTarget())
    b = MTREPANClassifier(**{**kw, **other}).fit(X, CircleTarget())
    assert b.solve_results_[0]["solver"].startswith(other.get("solver", "highs"))
    assert [n.path for n in a.tree_.nodes] == [n.path for n in b.tree_.nodes]
    for na, nb in zip(a.tree_.nodes, b.tree_.nodes):
        if na.split is not None:
            assert np.allclose(na.split.c, nb.split.c, atol=1e-5) and na.split.b == pytest.approx(nb.split.b, abs=1e-5)


@settings(max_examples=5)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["mtrepan", "trepan"]), st.integers(2, 3))
def test_property_every_point_lands_in_exactly_one_leaf(seed, variant, d):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (80, d)) * rng.uniform(0.5, 50, d)
    W = rng.normal(size=(2, d))

    def target(Z):  # a wedge: the intersection of two random half-spaces
        return ((Z @ W[0] > 0) & (Z @ W[1] > 0.1)).astype(int)

    cls = MTREPANClassifier if variant == "mtrepan" else TREPANClassifier
    est = cls(max_depth=4, random_state=seed, **FAST).fit(X, target)
    P = rng.uniform(*est.root_box_, (1500, d))
    leaves = est.tree_.leaves()
    cover = np.column_stack([nd.polytope.contains(P, tol=0.0) for nd in leaves])
    assert (cover.sum(axis=1) == 1).all()
    assert np.isin(est.apply(P), [nd.node_id for nd in leaves]).all()
    assert est.leaf_count() == len(leaves) <= 2 ** 3


def test_side_labels_follow_the_svm_side_and_options_run():
    X = _circle_data(200, seed=1)
    est = MTREPANClassifier(max_depth=3, leaf_label="side", max_lp_samples=150, random_state=0, **FAST).fit(
        X, CircleTarget())
    for nd in est.tree_.leaves():
        if nd.path:
            assert est.tree_.label_of(nd) == (0 if nd.path[-1] == "L" else 1)
    assert max(est.lp_sizes_) <= 152
    tp = TREPANClassifier(max_depth=3, criterion="gain_ratio", random_state=0, **FAST).fit(X, CircleTarget())
    assert tp.leaf_count() >= 2


def test_regression_sampling_does_not_give_up_on_a_region_too_thin_to_hit():
    # The sampler used to stop after 100 x batch draws and label the node "empty_region"
    # silently; a sliver of width 1e-7 is now sampled in full (the box is tightened by LPs).
    P = Polytope.bounding_box([0, 0], [1, 1]).add([1.0, 0.0], 1e-7)
    Xs, ys, tr = sample_on_demand(P, np.zeros(2), np.ones(2), lambda Z: (Z[:, 1] > 0.5).astype(int),
                                  np.random.default_rng(0), n_inherited=0, n_positive=0, cutoff_variance=1e-3,
                                  batch_size=20)
    assert tr.stopped_by == "variance" and tr.eq7_met
    assert tr.tightened and tr.method == "rejection"
    assert Xs.shape[0] == tr.n_sampled >= 20 and P.contains(Xs, tol=0.0).all()


def test_a_cap_warns_and_the_node_records_that_eq7_was_not_met():
    from interpretopt.methods.mtrepan import SamplingCapWarning

    X = _circle_data(200)
    with pytest.warns(SamplingCapWarning, match="eq. 7"):
        est = MTREPANClassifier(max_depth=3, random_state=0, batch_size=50, cutoff_variance=1e-5,
                                max_node_samples=100).fit(X, CircleTarget())
    unmet = [nd for nd in est.tree_.nodes if not nd.sampling.eq7_met]
    assert est.n_eq7_unmet_ == len(unmet) > 0
    assert all(nd.sampling.stopped_by == "max_samples" and nd.sampling.n_sampled == 100 for nd in unmet)
    assert all(not e.eq7_met for e in est.leaves() if e.node_id in {nd.node_id for nd in unmet})
    with pytest.warns(SamplingCapWarning):
        MTREPANClassifier(max_depth=2, random_state=0, batch_size=50, cutoff_variance=1e-5, sampler="rejection",
                          max_draws=60).fit(X, CircleTarget())
    with pytest.raises(InputError, match="max_draws"):
        MTREPANClassifier(max_draws=60).fit(X, CircleTarget())


def _oblique_hit_and_run():
    """An oblique target in 5-D, with hit-and-run forced at every node: (rng, X, target, fit kwargs)."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (300, 5))
    w = np.array([1.0, -0.7, 0.4, 0.9, -0.5])

    def target(Z):
        return (np.sin(2 * Z @ w) > 0).astype(int)

    kw = dict(max_depth=4, random_state=0, batch_size=200, cutoff_variance=2e-4, sampler="hit_and_run",
              boundary_estimates=False)
    return rng, X, target, kw


def test_hit_and_run_nodes_start_at_inherited_uniform_points_only_when_boxes_nest():
    # an oblique target in 5-D with hit-and-run forced: children whose sampling box lies inside
    # their parent's start their chains at the parent's sampled points without burn-in; the
    # others (and every node with inherited_starts=False) burn in
    rng, X, target, kw = _oblique_hit_and_run()
    est = MTREPANClassifier(warm_starts=False, **kw).fit(X, target)  # warm starts: the next test
    uni = [nd for nd in est.tree_.nodes if nd.sampling.uniform_starts > 0]
    assert uni and all(nd.path for nd in uni)  # never the root: its data are the training rows
    for nd in uni:
        tr = nd.sampling
        assert tr.burn_in == 0 and tr.thin == 5 and tr.n_chain_steps == 5 * tr.n_sampled
        assert tr.eq7_met and (np.isfinite(tr.variance_inflation) or nd.n_positive in (0, nd.n_samples))
    assert any(np.isfinite(nd.sampling.variance_inflation) for nd in uni)
    burned = [nd for nd in est.tree_.nodes if nd.sampling.method == "hit_and_run" and nd.sampling.uniform_starts == 0]
    assert all(nd.sampling.burn_in == 10 * 5 + 20 for nd in burned)
    off = MTREPANClassifier(inherited_starts=False, **kw).fit(X, target)
    walked = [nd for nd in off.tree_.nodes if nd.sampling.method == "hit_and_run"]
    assert len(walked) > len(burned) and all(nd.sampling.uniform_starts == 0 and nd.sampling.burn_in == 70
                                             for nd in walked)
    U = rng.uniform(-1, 1, (4000, 5))
    assert abs(est.parity(target, U)["model_parity"] - off.parity(target, U)["model_parity"]) < 5
    assert sum(nd.sampling.n_chain_steps for nd in est.tree_.nodes) < sum(
        nd.sampling.n_chain_steps for nd in off.tree_.nodes)


def test_warm_starts_replace_the_burn_in_of_nodes_whose_box_sticks_out():
    # the same 5-D oblique target: with warm_starts=True the nodes that burned in from their
    # data (region sticking out of the parent's box) start at the inherited points and burn in
    # only until the share of chains outside the parent's box is stable
    rng, X, target, kw = _oblique_hit_and_run()
    base = MTREPANClassifier(warm_starts=False, **kw).fit(X, target)
    est = MTREPANClassifier(**kw).fit(X, target)
    warm = [nd for nd in est.tree_.nodes if nd.sampling.warm_starts > 0]
    assert warm and all(nd.path for nd in warm)
    for nd in warm:
        tr = nd.sampling
        assert tr.uniform_starts == 0 and 2 * 5 <= tr.burn_in <= 10 * 5 + 20 and tr.thin == 5
        assert np.isfinite(tr.outside_share) and tr.eq7_met
    assert est.stats_["n_nested"] >= 1
    U = rng.uniform(-1, 1, (4000, 5))
    assert abs(est.parity(target, U)["model_parity"] - base.parity(target, U)["model_parity"]) < 5
    assert sum(nd.sampling.n_chain_steps for nd in est.tree_.nodes) < sum(
        nd.sampling.n_chain_steps for nd in base.tree_.nodes)
    assert MTREPANClassifier().get_params()["warm_starts"] is True  # the default; False keeps the burn-in path


def test_without_a_cap_every_node_meets_eq7(circle_fit):
    _, est = circle_fit
    assert est.n_eq7_unmet_ == 0
    for nd in est.tree_.nodes:
        tr = nd.sampling
        assert tr.eq7_met and tr.stopped_by == "variance" and tr.variance <= est.cutoff_variance
        p = nd.n_positive / nd.n_samples
        assert p * (1 - p) / nd.n_samples == pytest.approx(tr.variance)


def test_root_label_negative_and_side_labels_reproduce_the_release_labels():
    X = _circle_data(300)
    est = MTREPANClassifier(max_depth=3, leaf_label="side", root_label="negative", random_state=0,
                            **FAST).fit(X, CircleTarget())
    V = np.random.default_rng(2).uniform(*est.root_box_, (2000, 2))
    # depth 1: every point is called negative, whatever the root's majority
    assert (est.predict(V, depth=1) == 0).all()
    assert est.parity(CircleTarget(), V, depth=1)["model_parity"] == pytest.approx(
        100 * np.mean(CircleTarget().predict(V) == 0))
    for nd in est.tree_.leaves():
        assert est.tree_.label_of(nd) == (0 if nd.path[-1] == "L" else 1)
    with pytest.raises(InputError, match="root_label"):
        MTREPANClassifier(root_label="positive").fit(X, CircleTarget())


def test_node_lp_results_use_the_shared_status_vocabulary(circle_fit):
    from interpretopt.methods.mtrepan import node_lp_status

    _, est = circle_fit
    assert est.solve_results_ and {r["status"] for r in est.solve_results_} == {"optimal"}
    assert sum(est.lp_status_counts_.values()) == est.n_lp_solves_
    for nd in est.tree_.nodes:
        if nd.split is not None:
            info = nd.split.info
            assert info["status"] == "optimal" and info["gap"] == 0.0 and info["bound"] == info["objective"]
    assert [node_lp_status(s) for s in ("optimal", "feasible", "time_limit", "limit", "unknown",
                                        "infeasible_or_unbounded", "infeasible", "unbounded", "error")] == \
        ["optimal", "feasible", "error", "error", "error", "error", "infeasible", "unbounded", "error"]


def test_trepan_release_splitter_picks_the_feature_with_the_smallest_svm_objective():
    from interpretopt.methods.mtrepan import fit_feature_svm_split, fit_node_svm

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, (400, 3))
    y = (X[:, 2] > 6.0).astype(int)  # feature 2 separates, the others carry no signal
    split, results = fit_feature_svm_split(X, y)
    assert len(results) == 3 and split.info["feature"] == 2
    assert np.count_nonzero(split.c) == 1 and abs(split.c[2]) == 1.0
    assert np.mean((X @ split.c <= split.b) == (y == 0)) > 0.98
    objs = [fit_node_svm(X[:, [j]], y, C=10.0)[0].info["objective"] for j in range(3)]
    assert split.info["objective"] == pytest.approx(min(objs)) and int(np.argmin(objs)) == 2
    est = TREPANClassifier(splitter="svm_1d", max_depth=2, random_state=0, **FAST).fit(X, lambda Z: Z[:, 2] > 6.0)
    assert est.leaf_count() == 2 and est.tree_.nodes[0].split.info["feature"] == 2
    assert est.n_lp_solves_ >= 3
    with pytest.raises(InputError, match="splitter"):
        TREPANClassifier(splitter="cart").fit(X, lambda Z: Z[:, 2] > 6.0)


# -----------------------------------------------------------------------------
# Reduced-scale reproduction checks of the paper's tables (Almerri et al.), release protocol.


# Almerri et al., Table 2 (published; depth: leaf count)
PAPER_LEAVES = {1: 1, 2: 2, 3: 3, 4: 5, 5: 8, 6: 14}


@pytest.mark.repro
def test_circle_table2_leaf_counts_through_depth_6():
    # the release's circle run (cutoff entropy 0, side labels, negative root); reduced scale:
    # cutoff variance 1e-4 instead of 1e-5
    X = np.random.default_rng(0).uniform(-3, 3, (1000, 2))
    est = MTREPANClassifier(max_depth=6, cutoff_entropy=0.0, cutoff_variance=1e-4, leaf_label="side",
                            root_label="negative", boundary_estimates=False, random_state=0).fit(X, CircleTarget())
    assert [est.leaf_count(d) for d in range(1, 7)] == [PAPER_LEAVES[d] for d in range(1, 7)]
    V = np.random.default_rng(1).uniform(*est.root_box_, (4000, 2))
    # depth 1 is the share of the box outside the circle: 1 - pi / 36 = 91.27 (paper 91.5)
    assert est.parity(CircleTarget(), V, depth=1)["model_parity"] == pytest.approx(100 * (1 - np.pi / 36), abs=1.5)


@pytest.mark.repro
@pytest.mark.slow
def test_pima_mtrepan_reaches_higher_certain_parity_with_fewer_leaves(data_dir):
    # the paper's conclusion for Tables 8-9, at depth 5 and a reduced cutoff variance
    from interpretopt.blackbox import make_model
    from interpretopt.data import load_dataset
    from interpretopt.experiments.tasks.mtrepan import release_split
    from interpretopt.methods.mtrepan import TREPANClassifier

    ds = load_dataset("pima", data_dir=data_dir)
    X, y = ds.numeric(), ds.y
    tr, va = release_split(y, 0.3, 0, balance=True)
    net = make_model("MTREPAN_NET", random_state=0, scale_inputs=False).fit(X[tr], y[tr], X_val=X[va], y_val=y[va])
    kw = dict(max_depth=5, cutoff_variance=1e-4, leaf_label="side", root_label="negative", random_state=0,
              boundary_estimates=False)
    m = MTREPANClassifier(**kw).fit(X[tr], net)
    t = TREPANClassifier(splitter="svm_1d", **kw).fit(X[tr], net)
    U = np.random.default_rng(0).uniform(*m.root_box_, (10000, X.shape[1]))
    pm, pt = m.parity(net, U), t.parity(net, U)
    assert pm["certain_model_parity"] > pt["certain_model_parity"]
    assert m.leaf_count() <= t.leaf_count()


@pytest.mark.parametrize("cls", [MTREPANClassifier, TREPANClassifier])
def test_mtrepan_defaults_are_table_1(cls):
    d = defaults_of(cls)
    assert d["max_depth"] == 10 and d["cutoff_entropy"] == 0.0808
    assert d["cutoff_variance"] == 1e-5 and d["margin"] == 0.05


@pytest.mark.parametrize("cls", [MTREPANClassifier, TREPANClassifier])
def test_mtrepan_nodes_follow_the_entropy_and_variance_rules(cls):
    from interpretopt.blackbox import CircleTarget
    from interpretopt.heuristics.trepan import binary_entropy

    X = np.random.default_rng(0).uniform(-3, 3, (200, 2))
    cut_h, cut_v, depth = 0.0808, 1e-3, 4
    est = cls(max_depth=depth, cutoff_entropy=cut_h, cutoff_variance=cut_v, batch_size=100,
              random_state=0).fit(X, CircleTarget())
    nodes = est.tree_.nodes
    assert nodes[0].depth == 1 and nodes[0].uncertain and nodes[0].split is not None
    n_split = 0
    for nd in nodes:
        p = nd.n_positive / nd.n_samples
        assert nd.entropy == pytest.approx(binary_entropy(p))
        assert nd.uncertain == (nd.entropy > cut_h)
        tr = nd.sampling
        assert nd.n_samples == tr.n_inherited + tr.n_sampled
        if tr.stopped_by == "variance":
            assert tr.variance <= cut_v and tr.variance == pytest.approx(p * (1 - p) / nd.n_samples)
        if nd.split is not None:
            n_split += 1
            # only uncertain nodes above the maximum depth are split
            assert nd.uncertain and nd.depth < depth
            assert nodes[nd.left].depth == nodes[nd.right].depth == nd.depth + 1
        elif nd.uncertain:
            assert nd.depth == depth or nd.stop_reason in ("no_split", "split_does_not_separate")
        else:
            assert nd.stop_reason == "certain"
    assert n_split >= 2 and est.leaf_count() == n_split + 1
    # every branch of the rule is exercised: split, certain leaf, uncertain leaf at the maximum depth
    assert {nd.stop_reason for nd in nodes} >= {"split", "certain", "max_depth"}
    assert any(nd.sampling.stopped_by == "variance" for nd in nodes)
