"""tree_to_rules: one rule per leaf, leaves partition the samples and reproduce the tree."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from interpretopt.exceptions import InputError
from interpretopt.rules import Condition, Conjunction, coverage_matrix, tree_leaf_coverage, tree_to_rules


def _data(seed, n=120, d=3, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)  # float32-exact, as the tree sees it
    y = ((X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5).astype(int) * (n_classes - 1)) % n_classes
    y = np.where(rng.random(n) < 0.1, rng.integers(0, n_classes, n), y)
    return X, y


@settings(max_examples=15)
@given(st.integers(0, 10_000), st.integers(1, 5))
def test_classifier_leaves_partition_and_reproduce(seed, depth):
    X, y = _data(seed)
    labels = np.array(["a", "b", "c"])[y]
    tree = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(X, labels)
    leaves = tree_to_rules(tree)
    assert len(leaves) == tree.get_n_leaves()
    A = coverage_matrix(leaves, X)
    assert (A.sum(axis=1) == 1).all()  # every sample in exactly one leaf
    ids = np.array([leaf.leaf_id for leaf in leaves])
    np.testing.assert_array_equal(ids[A.argmax(axis=1)], tree.apply(X))
    pred = np.array([leaves[k].prediction for k in tree_leaf_coverage(leaves, X)])
    np.testing.assert_array_equal(pred, tree.predict(X))
    for k, leaf in enumerate(leaves):
        assert leaf.n_samples == A[:, k].sum()
        counts = [np.sum(labels[A[:, k]] == c) for c in tree.classes_]
        np.testing.assert_allclose(leaf.class_counts, counts, atol=1e-9)
        assert leaf.depth <= depth and len(leaf.conjunction) <= leaf.depth
        assert leaf.conjunction.is_satisfiable()
    # fresh points too (not float32-exact)
    Z = np.random.default_rng(seed + 1).normal(size=(200, 3)).astype(np.float32)
    assert (coverage_matrix(leaves, Z).sum(axis=1) == 1).all()


@settings(max_examples=10)
@given(st.integers(0, 10_000))
def test_regressor_and_low_level_tree(seed):
    X, _ = _data(seed)
    target = X[:, 0] * 2 + np.sin(X[:, 1])
    reg = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, target)
    leaves = tree_to_rules(reg)
    pred = np.array([leaves[k].prediction for k in tree_leaf_coverage(leaves, X)])
    np.testing.assert_allclose(pred, reg.predict(X))
    assert all(leaf.class_counts is None for leaf in leaves)
    low = tree_to_rules(reg.tree_)
    assert [r.conjunction for r in low] == [r.conjunction for r in leaves]


def test_stump_paths_and_render():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    leaves = tree_to_rules(DecisionTreeClassifier(max_depth=1).fit(X, y))
    assert [leaf.conjunction for leaf in leaves] == [Conjunction([Condition(0, "<=", 1.5)]),
                                                      Conjunction([Condition(0, ">", 1.5)])]
    assert [leaf.prediction for leaf in leaves] == [0, 1]
    assert [leaf.class_counts for leaf in leaves] == [(2.0, 0.0), (0.0, 2.0)]
    assert leaves[0].render(["age"]) == "IF age <= 1.5 THEN 0"
    single = tree_to_rules(DecisionTreeClassifier().fit(X, np.zeros(4, int)))
    assert len(single) == 1 and single[0].conjunction == Conjunction() and single[0].prediction == 0


def test_tree_to_rules_bad_input():
    with pytest.raises(InputError, match="not fitted"):
        tree_to_rules(DecisionTreeClassifier())
    with pytest.raises(InputError, match="DecisionTreeClassifier"):
        tree_to_rules("tree")
