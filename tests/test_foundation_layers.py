"""The foundation layers together: rules on raw and binarized data, binarizers on a real dataset,
tree paths from a zoo model on seeded splits, and a rule-selection MILP solved by every backend."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.blackbox import make_model
from interpretopt.data import QuantileBinarizer, load_dataset, train_test_indices
from interpretopt.rules import (
    OPS,
    Checklist,
    Condition,
    Conjunction,
    RuleList,
    RuleSet,
    coverage_matrix,
    first_cover,
    overlap,
    packed_coverage,
    popcount,
    support,
    tree_to_rules,
)

conditions = st.builds(Condition, st.integers(0, 2), st.sampled_from(OPS), st.integers(0, 3))
rules = st.lists(st.lists(conditions, min_size=0, max_size=3).map(Conjunction), min_size=1, max_size=5)
matrices = st.integers(1, 40).flatmap(
    lambda n: st.lists(st.lists(st.integers(0, 3), min_size=3, max_size=3), min_size=n, max_size=n)
).map(lambda rows: np.asarray(rows, dtype=float))


def _row_by_row(rule: Conjunction, X: np.ndarray) -> np.ndarray:
    return np.array([rule.holds(x) for x in X], dtype=bool)


@given(rules, matrices)
def test_every_op_on_raw_frame_and_binarized_matrices_agree(rs, X):
    """Each of the six operators, through every model type, on an array, a DataFrame and a 0/1 matrix."""
    truth = np.column_stack([_row_by_row(r, X) for r in rs])
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    conds = sorted({c for r in rs for c in r}, key=Condition.sort_key)
    X_bin = np.column_stack([c.evaluate(X) for c in conds]).astype(np.uint8) if conds else np.zeros((len(X), 0))
    for source, kw in ((X, {}), (frame, {}), (X_bin, {"conditions": conds})):
        A = coverage_matrix(rs, source, **kw)
        np.testing.assert_array_equal(A, truth)
        np.testing.assert_array_equal(popcount(packed_coverage(rs, source, **kw)), truth.sum(axis=0))
        np.testing.assert_array_equal(RuleSet(rs).predict(source, **kw), truth.any(axis=1).astype(np.int8))
        rl = RuleList(rs, list(range(1, len(rs) + 1)), 0)
        fc = rl.first_cover(source, **kw)
        expected = np.array([next((k for k in range(len(rs)) if truth[i, k]), -1) for i in range(len(X))])
        np.testing.assert_array_equal(fc, expected)
        np.testing.assert_array_equal(rl.predict(source, **kw), np.where(expected < 0, 0, expected + 1))
    np.testing.assert_array_equal(support(rs, X, normalize=False), truth.sum(axis=0))
    np.testing.assert_array_equal(overlap(rs, X, normalize=False), truth.T.astype(int) @ truth.astype(int))
    if conds:
        ck = Checklist(conds, min(2, len(conds)))
        counts = np.column_stack([c.evaluate(X) for c in conds]).sum(axis=1)
        np.testing.assert_array_equal(ck.count(X_bin, conditions=conds), counts)
        np.testing.assert_array_equal(ck.evaluate(frame), counts >= ck.threshold)


@given(rules)
def test_emptiness_check_is_sound_and_complete_on_a_grid(rs):
    """Integer thresholds in 0..3: a conjunction is satisfiable iff some point of a fine grid satisfies it."""
    grid = np.array(list(itertools.product(np.arange(-1, 4.5, 0.5), repeat=3)))
    for r in rs:
        assert r.is_satisfiable() == bool(r.evaluate(grid).any()), r


@pytest.fixture(scope="module")
def breast_cancer():
    return load_dataset("breast_cancer")


def test_binarizer_columns_drive_rules_on_real_data(breast_cancer):
    ds = breast_cancer
    b = QuantileBinarizer().fit(ds.X)
    X_bin = b.transform(ds.X)
    assert X_bin.shape == (ds.n_samples, len(b.conditions_)) and X_bin.shape[1] == 30 * 2 * 9
    rng = np.random.default_rng(0)
    rs = [Conjunction([b.conditions_[j] for j in rng.choice(X_bin.shape[1], size=L, replace=False)])
          for L in rng.integers(1, 4, size=60)]
    raw = coverage_matrix(rs, ds.X)
    np.testing.assert_array_equal(coverage_matrix(rs, X_bin, conditions=b.conditions_), raw)
    np.testing.assert_array_equal(coverage_matrix(rs, ds.numeric()), raw)
    # deciles in both directions: each '<=' column and its '>' partner are complements
    for j, c in enumerate(b.conditions_):
        partner = b.conditions_.index(c.negate())
        assert (X_bin[:, j] ^ X_bin[:, partner]).all()
    names = b.get_feature_names_out()
    assert names[0] == b.conditions_[0].render(ds.feature_names) and "mean radius <= " in names[0]


def test_tree_paths_of_a_zoo_model_on_a_seeded_split(breast_cancer):
    ds = breast_cancer
    X, y = ds.numeric(), ds.y
    tr, te = train_test_indices(ds.n_samples, 0.3, 7, stratify=y)
    assert np.array_equal((tr, te)[1], train_test_indices(ds.n_samples, 0.3, 7, stratify=y)[1])
    tree = make_model("DT1", random_state=0).fit(X[tr], y[tr])
    leaves = tree_to_rules(tree)
    Xt = X[te].astype(np.float32).astype(float)
    A = coverage_matrix(leaves, Xt)
    assert (A.sum(axis=1) == 1).all(), "the leaves partition the space"
    pred = np.array([leaves[k].prediction for k in first_cover(A)])
    np.testing.assert_array_equal(pred, tree.predict(Xt))
    # two leaves of different trees intersect to an empty region iff the emptiness check says so
    other = tree_to_rules(make_model("DT2", random_state=1).fit(X[te], y[te]))
    for a, b in itertools.islice(itertools.product(leaves, other), 200):
        region = a.conjunction & b.conjunction
        if region.evaluate(X).any():
            assert region.is_satisfiable()
        if not region.is_satisfiable():
            assert not region.evaluate(X).any()


def test_rule_selection_milp_from_coverage_agrees_with_brute_force_on_every_backend():
    """Pick rules covering every positive at least cost (a tiny BRCG-style master, integer)."""
    pe = pytest.importorskip("pyomo.environ")
    from interpretopt.solvers import available_solvers, get_solver, solve

    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(12, 3)).astype(float)
    rs = [Conjunction([Condition(int(rng.integers(3)), str(rng.choice(OPS)), int(rng.integers(4)))])
          for _ in range(8)]
    A = coverage_matrix(rs, X)
    covered = A.any(axis=1)
    cost = 1.0 + np.array([len(r) for r in rs]) + rng.random(len(rs))
    best = min((float(cost[list(s)].sum()) for k in range(len(rs) + 1)
                for s in itertools.combinations(range(len(rs)), k) if A[:, list(s)].any(axis=1)[covered].all()
                or not covered.any()), default=None)

    def model():
        m = pe.ConcreteModel()
        m.K = pe.RangeSet(0, len(rs) - 1)
        m.w = pe.Var(m.K, domain=pe.Binary)
        rows = np.flatnonzero(covered)
        m.cover = pe.Constraint(list(rows), rule=lambda mm, i: pe.quicksum(
            mm.w[k] for k in np.flatnonzero(A[i]).tolist()) >= 1)
        m.obj = pe.Objective(expr=pe.quicksum(float(cost[k]) * m.w[k] for k in m.K))
        return m

    solved = 0
    for name in available_solvers():
        if not get_solver(name).capabilities.milp:
            continue
        res = solve(model(), name)
        assert res.status.value == "optimal", (name, res.message)
        assert res.objective == pytest.approx(best, abs=1e-6), name
        solved += 1
    assert solved >= 4
