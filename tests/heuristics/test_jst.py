"""The vectorized split search against brute force over every threshold."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.heuristics.jst import (
    best_joint_split,
    best_split,
    best_split_reference,
    diff_regions,
    grow_joint_tree,
    grow_tree,
    impurity,
    predict_diff_regions,
    refine,
    split_scores,
)


@st.composite
def tiny(draw):
    n = draw(st.integers(2, 14))
    d = draw(st.integers(1, 3))
    k = draw(st.integers(2, 4))
    vals = st.integers(0, 4)
    X = np.array(draw(st.lists(st.lists(vals, min_size=d, max_size=d), min_size=n, max_size=n)), dtype=float)
    y1 = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    y2 = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    return X, y1, y2, k


def _score_of(X, ys, f, t, criterion):
    left = X[:, f] < t
    n = X.shape[0]
    total = 0.0
    for y in ys:
        for part in (y[left], y[~left]):
            if part.size:
                total += part.size / n * impurity(np.bincount(part), criterion)
    return total


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
@given(case=tiny())
def test_best_split_equals_brute_force(case, criterion):
    X, y1, _, k = case
    f, t, s = best_split(X, y1, k, criterion)
    fr, tr, sr = best_split_reference(X, [y1], criterion)
    assert (f == -1) == (fr == -1)
    if f >= 0:
        assert s == pytest.approx(sr, abs=1e-9)
        # the returned threshold really achieves the returned score and splits the data
        assert _score_of(X, [y1], f, t, criterion) == pytest.approx(sr, abs=1e-9)
        assert 0 < np.count_nonzero(X[:, f] < t) < X.shape[0]


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
@given(case=tiny())
def test_joint_best_split_equals_brute_force(case, criterion):
    X, y1, y2, k = case
    f, t, s = best_joint_split(X, y1, y2, k, criterion)
    fr, tr, sr = best_split_reference(X, [y1, y2], criterion)
    assert (f == -1) == (fr == -1)
    if f >= 0:
        assert s == pytest.approx(sr, abs=1e-9)
        assert _score_of(X, [y1, y2], f, t, criterion) == pytest.approx(sr, abs=1e-9)


def test_scores_all_thresholds_both_criteria_match_direct_formula():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(30, 4)).astype(float)
    y = rng.integers(0, 3, size=30)
    order = np.argsort(X, axis=0, kind="stable").T
    vals = np.take_along_axis(X.T, order, axis=1)
    for criterion in ("entropy", "gini"):
        s = split_scores(vals, y[order], 3, criterion)
        for f in range(4):
            for pos in range(29):
                if vals[f, pos] == vals[f, pos + 1]:
                    assert np.isinf(s[f, pos])
                    continue
                t = (vals[f, pos] + vals[f, pos + 1]) / 2
                assert s[f, pos] / 30 == pytest.approx(_score_of(X, [y], f, t, criterion), abs=1e-9)


def test_constant_features_have_no_split():
    X = np.ones((5, 2))
    assert best_split(X, np.array([0, 1, 0, 1, 1]), 2)[0] == -1


def test_adjacent_floats_threshold_separates():
    a = 1.0
    b = np.nextafter(a, 2.0)
    X = np.array([[a], [a], [b], [b]])
    f, t, s = best_split(X, np.array([0, 0, 1, 1]), 2)
    assert f == 0 and s == 0.0
    assert list(X[:, 0] < t) == [True, True, False, False]


def test_pure_split_scores_exactly_zero():
    X = np.arange(10, dtype=float).reshape(-1, 1)
    y = (X[:, 0] >= 4).astype(int)
    assert best_split(X, y, 2)[2] == 0.0
    assert best_split(X, y, 2, "gini")[2] == 0.0


# -----------------------------------------------------------------------------
# JST growth, diff regions and refinement: paper invariants on tiny data.


@st.composite
def pair(draw, max_n=40):
    n = draw(st.integers(4, max_n))
    d = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, d)).astype(float) + rng.normal(scale=0.01, size=(n, d)) * draw(st.booleans())
    k = draw(st.integers(2, 3))
    y1 = rng.integers(0, k, size=n)
    flip = rng.random(n) < draw(st.floats(0.0, 0.6))
    y2 = np.where(flip, rng.integers(0, k, size=n), y1)
    return X, y1, y2, k


def members(tree, X):
    """Training rows at every node of a surrogate tree."""
    out = {}

    def walk(i, idx):
        out[i] = idx
        if tree.feature[i] >= 0:
            go = X[idx, tree.feature[i]] < tree.threshold[i]
            walk(int(tree.left[i]), idx[go])
            walk(int(tree.right[i]), idx[~go])

    walk(0, np.arange(X.shape[0]))
    return out


def same_tree(a, b):
    return (np.array_equal(a.feature, b.feature) and np.array_equal(a.left, b.left)
            and np.array_equal(a.right, b.right) and np.array_equal(a.value, b.value)
            and np.allclose(a.threshold, b.threshold, equal_nan=True))


@given(case=pair(), max_depth=st.integers(1, 4))
def test_alpha_one_gives_exactly_the_separate_trees(case, max_depth):
    X, y1, y2, k = case
    jst = grow_joint_tree(X, y1, y2, max_depth, n_classes=k, alpha=1.0)
    assert jst.n_shared == 0 and len(jst.or_nodes) == 1
    assert same_tree(jst.tree1, grow_tree(X, y1, max_depth, n_classes=k))
    assert same_tree(jst.tree2, grow_tree(X, y2, max_depth, n_classes=k))


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
@given(case=pair(max_n=25), max_depth=st.integers(1, 4))
def test_every_node_follows_algorithm_2(case, max_depth, criterion):
    X, y1, y2, k = case
    jst = grow_joint_tree(X, y1, y2, max_depth, n_classes=k, criterion=criterion)
    assert jst.height <= max_depth
    m1, m2 = members(jst.tree1, X), members(jst.tree2, X)
    # shared nodes: both labels impure, eq. (6) not met, split = brute-force joint optimum (eq. 4)
    for n1, n2 in jst.twin.items():
        idx = m1[n1]
        assert np.array_equal(idx, m2[n2])
        assert jst.tree1.depth[n1] < max_depth
        ys = (y1[idx], y2[idx])
        assert all(np.unique(y).size > 1 for y in ys)
        assert all(best_split_reference(X[idx], [y], criterion)[2] > 1e-12 for y in ys)
        f, t = jst.tree1.feature[n1], jst.tree1.threshold[n1]
        assert (f, t) == (jst.tree2.feature[n2], jst.tree2.threshold[n2])
        left = X[idx, f] < t
        got = sum(part.size / idx.size * _imp(part, criterion) for y in ys for part in (y[left], y[~left]))
        assert got == pytest.approx(best_split_reference(X[idx], list(ys), criterion)[2], abs=1e-9)
    # or-nodes: pure label vector, height limit, or eq. (6)
    for on in jst.or_nodes:
        idx = m1[on.node1]
        assert np.array_equal(idx, m2[on.node2])
        ys = (y1[idx], y2[idx])
        reason = (on.depth >= max_depth or any(np.unique(y).size == 1 for y in ys)
                  or any(best_split_reference(X[idx], [y], criterion)[2] <= 1e-12 for y in ys)
                  or best_split_reference(X[idx], [y1[idx]], criterion)[0] == -1)
        assert reason
    # per-model nodes: brute-force optimal split; leaves pure, at the limit, or unsplittable
    for tree, y, mem in ((jst.tree1, y1, m1), (jst.tree2, y2, m2)):
        for i in range(tree.n_nodes):
            if tree.shared[i]:
                continue
            idx = mem[i]
            assert np.array_equal(np.bincount(y[idx], minlength=k), tree.value[i])
            ref = best_split_reference(X[idx], [y[idx]], criterion)
            if tree.feature[i] >= 0:
                left = X[idx, tree.feature[i]] < tree.threshold[i]
                got = sum(p.size / idx.size * _imp(p, criterion) for p in (y[idx][left], y[idx][~left]))
                assert got == pytest.approx(ref[2], abs=1e-9)
            else:
                assert tree.pure[i] or tree.depth[i] >= max_depth or ref[0] == -1


def _imp(part, criterion):
    from interpretopt.heuristics.jst import impurity

    return impurity(np.bincount(part), criterion) if part.size else 0.0


@given(case=pair(), max_depth=st.integers(1, 5), alpha=st.sampled_from([None, 0.0, 0.5, 0.9, 1.0]))
def test_diff_rules_and_surrogate_disagreement_agree_everywhere(case, max_depth, alpha):
    X, y1, y2, k = case
    jst = grow_joint_tree(X, y1, y2, max_depth, n_classes=k, alpha=alpha)
    regions = diff_regions(jst)
    rng = np.random.default_rng(0)
    X_test = np.vstack([X, rng.uniform(-1, 6, size=(200, X.shape[1])),
                        np.array([[jst.tree1.threshold[i]] * X.shape[1] for i in range(jst.tree1.n_nodes)
                                  if jst.tree1.feature[i] >= 0] or np.zeros((0, X.shape[1])))])
    for Z in (X, X_test):
        assert np.array_equal(predict_diff_regions(regions, Z), jst.predict_diff(Z))
    # every region is non-empty and lies under its or-node
    for r in regions:
        assert (r.lo < r.hi).all()
        on = jst.or_nodes[r.or_node]
        assert (r.lo >= on.lo).all() and (r.hi <= on.hi).all()
        assert r.label1 != r.label2


@given(case=pair(), max_depth=st.integers(1, 5))
def test_pair_that_never_disagrees_has_no_diff_rules(case, max_depth):
    X, y1, _, k = case
    jst = grow_joint_tree(X, y1, y1.copy(), max_depth, n_classes=k)
    assert diff_regions(jst) == []
    assert not jst.predict_diff(X).any()


def test_height_counts_decision_edges_only():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y1 = (X[:, 0] + X[:, 1] > 0).astype(int)
    y2 = (X[:, 0] - X[:, 2] > 0).astype(int)
    for h in (1, 2, 3, 5):
        jst = grow_joint_tree(X, y1, y2, h)
        assert jst.height == h  # impure data reaches the limit; or-nodes add no height
        assert jst.tree1.height <= h and jst.tree2.height <= h


@given(case=pair(), max_depth=st.integers(1, 4), k_iter=st.integers(1, 2))
def test_refinement_deepens_only_diff_region_leaves(case, max_depth, k_iter):
    X, y1, y2, k = case
    jst = grow_joint_tree(X, y1, y2, max_depth, n_classes=k)
    ref = jst
    for _ in range(k_iter):
        regions = diff_regions(ref)
        in_diff = ({r.leaf1 for r in regions}, {r.leaf2 for r in regions})
        new = refine(ref, X, y1, y2, 1)
        for t, (old_tree, new_tree) in enumerate(((ref.tree1, new.tree1), (ref.tree2, new.tree2))):
            n_old = old_tree.n_nodes
            # old nodes keep their splits; only leaves in diff regions may gain children
            for i in range(n_old):
                if old_tree.feature[i] >= 0:
                    assert new_tree.feature[i] == old_tree.feature[i]
                    assert new_tree.threshold[i] == old_tree.threshold[i]
                elif new_tree.feature[i] >= 0:
                    assert i in in_diff[t] and not old_tree.pure[i]
                    assert new_tree.depth[new_tree.left[i]] == old_tree.depth[i] + 1
            # every new node hangs below a refined leaf
            assert (new_tree.depth[n_old:] <= old_tree.depth.max() + 1).all()
        assert new.height <= ref.height + 1
        ref = new
    assert ref.refinements == k_iter or ref.height == jst.height
    regions = diff_regions(ref)
    assert np.array_equal(predict_diff_regions(regions, X), ref.predict_diff(X))


def test_refinement_changes_nothing_without_diff_regions():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int)
    jst = grow_joint_tree(X, y, y, 2)
    r = refine(jst, X, y, y, 2)
    assert r.tree1.n_nodes == jst.tree1.n_nodes and r.tree2.n_nodes == jst.tree2.n_nodes


def test_bad_arguments():
    X = np.zeros((4, 2))
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="max_depth"):
        grow_joint_tree(X, y, y, 0)
    with pytest.raises(ValueError, match="alpha"):
        grow_joint_tree(X, y, y, 2, alpha=1.5)
    with pytest.raises(ValueError, match="shape"):
        grow_joint_tree(X, y, y[:3], 2)
    with pytest.raises(ValueError, match="criterion"):
        grow_joint_tree(X, y, y, 2, criterion="mse")


@given(case=pair(max_n=25), max_depth=st.integers(1, 4), alpha=st.sampled_from([0.0, 0.3, 0.7, 0.95]))
def test_general_divergence_condition_eq5(case, max_depth, alpha):
    X, y1, y2, k = case
    jst = grow_joint_tree(X, y1, y2, max_depth, n_classes=k, alpha=alpha)
    m1 = members(jst.tree1, X)

    def imps(idx):
        i1 = best_split_reference(X[idx], [y1[idx]])[2]
        i2 = best_split_reference(X[idx], [y2[idx]])[2]
        ij = best_split_reference(X[idx], [y1[idx], y2[idx]])[2]
        return i1, i2, ij

    for n1 in jst.twin:  # shared: eq. (5) does not hold
        i1, i2, ij = imps(m1[n1])
        assert i1 + i2 > alpha * ij - 1e-9
    for on in jst.or_nodes:  # or-node: pure, at the limit, unsplittable, or eq. (5) holds
        idx = m1[on.node1]
        if on.depth >= max_depth or np.unique(y1[idx]).size == 1 or np.unique(y2[idx]).size == 1:
            continue
        i1, i2, ij = imps(idx)
        if np.isinf(i1):
            continue
        assert i1 + i2 <= alpha * ij + 1e-9


def test_bad_values():
    X = np.array([[0.0], [np.nan]])
    y = np.array([0, 1])
    with pytest.raises(ValueError, match="NaN"):
        grow_joint_tree(X, y, y, 2)
    with pytest.raises(ValueError, match="n_classes"):
        grow_joint_tree(np.zeros((2, 1)), y, y, 2, n_classes=1)


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
@given(case=pair(max_n=40), max_depth=st.integers(1, 4), alpha=st.sampled_from([None, 0.0, 0.6]))
def test_histogram_sorting_and_chunking_give_the_same_tree(case, max_depth, alpha, criterion):
    """The split search's two scoring paths and any chunk size find the same splits."""
    from interpretopt.heuristics import jst as J

    X, y1, y2, k = case
    trees = []
    saved = (J._HIST_FACTOR, J._BUDGET, J._BUDGET_MIN)
    try:
        for factor, budget in ((10**9, 1 << 20), (0, 1 << 20), (2, 1), (0, 1)):
            J._HIST_FACTOR, J._BUDGET, J._BUDGET_MIN = factor, budget, budget
            trees.append(grow_joint_tree(X, y1, y2, max_depth, n_classes=k, criterion=criterion, alpha=alpha))
    finally:
        J._HIST_FACTOR, J._BUDGET, J._BUDGET_MIN = saved
    for t in trees[1:]:
        for a, b in ((trees[0].tree1, t.tree1), (trees[0].tree2, t.tree2)):
            assert np.array_equal(a.feature, b.feature) and np.array_equal(a.value, b.value)
            assert np.array_equal(a.threshold, b.threshold, equal_nan=True)
        assert t.twin == trees[0].twin


def test_split_search_memory_is_bounded_by_the_data():
    """Regression: scores of every threshold and copies of sorted blocks took 25x the data."""
    import tracemalloc

    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(20000, 30)), 2)
    y1 = (X[:, 0] + X[:, 1] > 0).astype(int)
    y2 = (X[:, 0] - X[:, 2] > 0.5).astype(int)
    tracemalloc.start()
    grow_joint_tree(X, y1, y2, 6)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= 4 * X.nbytes
