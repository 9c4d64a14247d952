"""Exact clause pricing by branch and bound: against brute force, with and without limits."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.exceptions import InputError
from interpretopt.heuristics.clause_bnb import ClauseBranchAndBound


def instance(seed: int):
    rng = np.random.default_rng(seed)
    m, J, D = int(rng.integers(3, 14)), int(rng.integers(1, 8)), int(rng.integers(1, 4))
    X = rng.random((m, J)) < rng.uniform(0.2, 0.9)
    y = (rng.random(m) < 0.5).astype(np.int8)
    # sparse duals on the positives (as at an LP optimum), the loss weight on the negatives
    r = np.where(y == 1, -rng.random(m) * rng.integers(0, 2, m), rng.random(m) * 0.5)
    a, b = float(rng.random() * 0.3), float(rng.random() * 0.3)
    rc = {c: a + b * len(c) + float(r[X[:, list(c)].all(axis=1)].sum())
          for L in range(1, D + 1) for c in itertools.combinations(range(J), L)}
    return X, y, r, a, b, D, rc, rng


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 100_000), K=st.integers(1, 4), cutoff=st.sampled_from([0.0, -0.1, 10.0]),
       excl_frac=st.sampled_from([0.0, 0.2]))
def test_search_finds_the_least_reduced_cost_and_bounds_every_clause(seed, K, cutoff, excl_frac):
    X, y, r, a, b, D, rc, rng = instance(seed)
    excl = {c for c in rc if rng.random() < excl_frac}
    res = ClauseBranchAndBound(X, y).search(r, a, b, max_literals=D, max_columns=K, exclude=excl, cutoff=cutoff)
    assert res.complete
    true_min = min((v for c, v in rc.items() if c not in excl), default=np.inf)
    assert res.rc_lower_bound <= true_min + 1e-12                       # a valid bound
    for c, v in zip(res.clauses, res.reduced_costs):                    # exact, below the cutoff, new
        assert c not in excl and v < cutoff and v == pytest.approx(rc[c], abs=1e-12)
    assert len(res.clauses) <= K
    if true_min >= cutoff:
        assert not res.clauses and res.rc_lower_bound <= cutoff
    if not excl and true_min < cutoff:                                  # the optimum is returned, the bound is tight
        assert res.reduced_costs[0] == pytest.approx(true_min, abs=1e-12)
        assert res.rc_lower_bound == pytest.approx(true_min, abs=1e-12)


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("limit", [1, 2, 5])
def test_a_node_limit_keeps_the_bound_valid(seed, limit):
    X, y, r, a, b, D, rc, _ = instance(seed)
    res = ClauseBranchAndBound(X, y).search(r, a, b, max_literals=D, max_columns=2, cutoff=0.0, node_limit=limit)
    assert res.rc_lower_bound <= min(rc.values()) + 1e-12
    assert res.n_nodes <= limit
    if not res.complete:
        assert res.n_nodes == limit


def test_an_injected_clock_stops_the_search_without_depending_on_speed():
    X, y, r, a, b, D, rc, _ = instance(3)
    ticks = iter(range(10**6))
    res = ClauseBranchAndBound(X, y).search(r, a, b, max_literals=D, cutoff=10.0, time_limit=0.5,
                                            clock=lambda: float(next(ticks)))
    assert not res.complete and res.n_nodes == 0 and res.rc_lower_bound <= min(rc.values())


def test_regression_a_literal_true_on_every_negative_is_still_a_column():
    """Dominance must not drop single literals: the empty clause that 'dominates' them is no column."""
    X = np.array([[1], [1], [1]], dtype=bool)
    y = np.array([1, 0, 1], dtype=np.int8)
    r = np.array([-1.0, 0.3, -1.0])
    res = ClauseBranchAndBound(X, y).search(r, 0.1, 0.1, max_literals=2, cutoff=0.0)
    assert res.clauses == [(0,)] and res.reduced_costs[0] == pytest.approx(-1.5)


@pytest.mark.parametrize("kwargs, match", [
    ({"max_literals": 0}, "max_literals"), ({"max_columns": 0}, "max_columns"), ({"b": -1.0}, "b must be >= 0"),
    ({"r": np.zeros(2)}, "r has 2 entries"),
])
def test_bad_inputs_name_the_value(kwargs, match):
    X = np.eye(3, dtype=bool)
    y = np.array([1, 0, 1])
    args = {"r": np.array([-1.0, 0.5, -1.0]), "a": 0.0, "b": 0.1, "max_literals": 2, "max_columns": 3}
    args.update(kwargs)
    r, a, b = args.pop("r"), args.pop("a"), args.pop("b")
    with pytest.raises(InputError, match=match):
        ClauseBranchAndBound(X, y).search(r, a, b, **args)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_the_closure_bound_never_exceeds_any_strict_extension(seed):
    """The minimum-cut bound of a node against brute force over every extension by allowed literals."""
    X, y, r, a, b, D, rc, rng = instance(seed)
    m, J = X.shape
    k = tuple(sorted(rng.choice(J, size=int(rng.integers(0, min(J, 3) + 1)), replace=False).tolist()))
    start = k[-1] + 1 if k else 0
    if start >= J:
        return
    rows = np.flatnonzero(X[:, list(k)].all(axis=1)) if k else np.arange(m)
    base = a + b * (len(k) + 1)
    bound = ClauseBranchAndBound._closure_bound(X.astype(float), y == 0, rows, start, r, base)
    allowed = range(start, J)
    ext = [a + b * (len(k) + len(S)) + float(r[X[:, list(k + S)].all(axis=1)].sum())
           for L in range(1, J - start + 1) for S in itertools.combinations(allowed, L)]
    assert bound <= min(ext) + 1e-12
    # and it is at least the optimistic bound (every positive mass taken, no negative paid)
    assert bound >= base + float(np.minimum(r[rows], 0.0).sum()) - 1e-6


@pytest.mark.parametrize("seed", range(30))
def test_the_search_with_and_without_the_closure_bound_proves_the_same(seed):
    X, y, r, a, b, D, rc, _ = instance(seed)
    on = ClauseBranchAndBound(X, y).search(r, a, b, max_literals=D, max_columns=1, cutoff=0.0)
    off = ClauseBranchAndBound(X, y, closure=False).search(r, a, b, max_literals=D, max_columns=1, cutoff=0.0)
    assert on.complete and off.complete and on.n_nodes <= off.n_nodes
    true_min = min(rc.values())
    if true_min < 0:
        assert on.reduced_costs[0] == pytest.approx(true_min, abs=1e-12) == off.reduced_costs[0]
    else:
        assert not on.clauses and not off.clauses


def test_regression_all_zero_row_weights_still_price_every_clause():
    """With every r_i = 0 each clause costs a + b |k|: the bound is a + b, not the cutoff."""
    X = np.array([[1, 0], [0, 1], [1, 1]], dtype=bool)
    y = np.array([1, 1, 1], dtype=np.int8)
    res = ClauseBranchAndBound(X, y).search(np.zeros(3), 0.2, 0.3, max_literals=2, cutoff=10.0)
    assert res.complete and res.rc_lower_bound == pytest.approx(0.5)
    assert res.clauses and res.reduced_costs[0] == pytest.approx(0.5)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_the_budget_bound_never_exceeds_any_strict_extension_within_the_literal_budget(seed):
    """The budget bound of a node against brute force over every extension of at most D literals."""
    X, y, r, a, b, D, rc, rng = instance(seed)
    m, J = X.shape
    D = D + 1
    k = tuple(sorted(rng.choice(J, size=int(rng.integers(1, min(J, D - 1) + 1)), replace=False).tolist()))
    start = k[-1] + 1
    if start >= J:
        return
    rows = np.flatnonzero(X[:, list(k)].all(axis=1))
    neg = y[rows] == 0
    Xn = X[rows, start:].astype(float)
    P = np.stack([r[rows] @ Xn, np.minimum(r[rows], 0.0) @ Xn])
    s_z, mu_p = float(r[rows][neg].sum()), -float(np.minimum(r[rows], 0.0).sum())
    bound = ClauseBranchAndBound._budget_bound(P, s_z, mu_p, a + b * len(k) + s_z - mu_p, b, D - len(k))
    ext = [a + b * (len(k) + len(S)) + float(r[X[:, list(k + S)].all(axis=1)].sum())
           for L in range(1, min(D - len(k), J - start) + 1) for S in itertools.combinations(range(start, J), L)]
    assert bound <= min(ext) + 1e-12
