"""CORELS branch-and-bound (against brute force), a rule-list baseline of CRL."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from interpretopt.exceptions import InputError
from interpretopt.heuristics.corels import POLICIES, corels, rule_list_objective
from interpretopt.heuristics.mining import pack_bool
from tests.instances import rule_pool


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("policy", POLICIES)
def test_corels_certified_optimum_equals_brute_force(seed, policy):
    P, y = rule_pool(seed)
    lam, L = 0.01, 3
    brute = min(rule_list_objective(P, y, p, lam)[0]
                for m in range(0, L + 1) for p in itertools.permutations(range(P.shape[0]), m))
    res = corels(P, y, lam=lam, policy=policy, max_length=L, max_nodes=10_000)
    assert res.certified
    assert res.objective == pytest.approx(brute, abs=1e-12)
    assert res.objective == pytest.approx(rule_list_objective(P, y, res.prefix, lam)[0])


def test_corels_node_limit_reports_uncertified():
    rng = np.random.default_rng(0)
    cov = rng.random((300, 40)) < 0.3
    y = rng.integers(0, 2, 300)
    res = corels(pack_bool(cov), y, lam=0.0, max_nodes=3, max_length=5)
    # the budget counts trie nodes: one expansion inserts many children, then the search stops
    assert res.n_nodes >= 3 and res.n_expanded == 1 and not res.certified and res.status == "feasible"
    assert res.bound <= res.objective and res.gap == pytest.approx(res.objective - res.bound)
    with pytest.raises(InputError, match="policy"):
        corels(pack_bool(cov), y, policy="random")


def test_corels_expansion_cap_stops_a_search_whose_trie_never_fills():
    """With lam = 0 and depth-first order, expanded nodes leave the trie as fast as they enter: the
    node budget is never reached and only the expansion cap ends the search, uncertified, with a valid
    bound; a cap above what the search needs changes nothing."""
    P, y = _big_pool(2)
    capped = corels(P, y, lam=0.0, policy="dfs", max_nodes=10**9, max_expansions=40)
    assert capped.n_expanded == 40 and capped.status == "feasible" and not capped.certified
    assert capped.bound <= capped.objective
    free = corels(P, y, lam=0.0, policy="bfs", max_nodes=500)
    same = corels(P, y, lam=0.0, policy="bfs", max_nodes=500, max_expansions=10**6)
    assert (same.prefix, same.objective, same.n_nodes, same.n_expanded) == (free.prefix, free.objective,
                                                                            free.n_nodes, free.n_expanded)
    with pytest.raises(InputError, match="max_expansions"):
        corels(P, y, max_expansions=0)


def _big_pool(seed=0, n=250, J=30):
    rng = np.random.default_rng(seed)
    cov = rng.random((n, J)) < rng.uniform(0.1, 0.6, size=J)
    y = ((cov[:, 0] | cov[:, 3]) ^ (rng.random(n) < 0.2)).astype(int)
    return pack_bool(cov), y


@pytest.mark.parametrize("policy", POLICIES)
def test_corels_snapshots_equal_runs_with_smaller_budgets(policy):
    """Algorithm 3's grid of N from one run: a run with budget N is a prefix of a longer run."""
    P, y = _big_pool(1)
    budgets = [60, 200, 700]
    long = corels(P, y, lam=0.0, policy=policy, max_nodes=2000, snapshot_nodes=budgets)
    for b in budgets:
        short = corels(P, y, lam=0.0, policy=policy, max_nodes=b)
        snap = long.snapshots[b]
        assert (snap.prefix, snap.objective, snap.status, snap.n_nodes) == (short.prefix, short.objective,
                                                                           short.status, short.n_nodes)


def test_corels_status_is_a_proof():
    P, y = _big_pool(2)
    small = corels(P, y, lam=0.01, max_nodes=40)
    assert small.status == "feasible" and small.bound <= small.objective + 1e-12
    done = corels(P, y, lam=0.02, max_nodes=10**6)
    assert done.status == "optimal" and done.gap == 0.0 and done.bound == pytest.approx(done.objective)
    # any feasible run's bound is below the proven optimum
    assert small.bound <= done.objective + 1e-12


def test_regression_corels_curious_priority_is_the_references():
    """Curious orders by (b - eq_minority) n / captured, the prefix's own bound per captured sample
    (the reference's CacheTree::construct_node), not by the bound including equivalent points."""
    import inspect

    from interpretopt.heuristics import corels as mod

    src = inspect.getsource(mod._Search._priorities)
    assert "(b_arr - e_arr) * self.n / np.maximum(c_arr, 1)" in src
    P, y = _big_pool(3)
    a = corels(P, y, lam=0.005, policy="curious", max_nodes=10**6)
    b = corels(P, y, lam=0.005, policy="lower_bound", max_nodes=10**6)
    assert a.status == b.status == "optimal" and a.objective == pytest.approx(b.objective)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_corels_certified_optimum_equals_the_reference_package(seed):
    """Oracle: the reference CORELS (PyPI ``corels``, GPL; built outside the repository, never a
    dependency) on the same binary features, its own miner's settings and ``c``: the certified
    optima agree. Skipped when the package is not importable."""
    corels_pkg = pytest.importorskip("corels")
    from interpretopt.heuristics.mining import mine_rules

    rng = np.random.default_rng(seed)
    n, p = 300, 8
    X = (rng.random((n, p)) < rng.uniform(0.2, 0.8, p)).astype(np.uint8)
    y = (((X[:, 0] & X[:, 1]) | (X[:, 2] & (1 - X[:, 3]))) ^ (rng.random(n) < 0.15)).astype(np.uint8)
    for policy in ("lower_bound", "curious", "bfs", "objective"):
        ref = corels_pkg.CorelsClassifier(max_card=1, min_support=0.05, c=0.01, n_iter=10**6, policy=policy,
                                          verbosity=[]).fit(X, y)
        ref_obj = 1.0 - float(np.mean(ref.predict(X) == y)) + 0.01 * (len(ref.rl().rules) - 1)
        pool = mine_rules(np.column_stack([X, 1 - X]), y, min_support=0.05, max_card=1, scope="all")
        ours = corels(pool.packed, y, lam=0.01, max_nodes=10**6, policy=policy)
        assert ours.status == "optimal" and ours.objective == pytest.approx(ref_obj, abs=1e-9)


#: (prefix, labels, default, objective, status, n_nodes, n_expanded) on ``_big_pool(4)`` with
#: lam = 0.005 and 3000 nodes, from the search before its data structures were bit-packed and its
#: steps named; the same search must return the same lists and the same node counts.
_FIXED = {
    "curious": ((3, 0, 13, 12, 27, 28, 2), (1, 1, 0, 0, 0, 1, 0), 1, 0.227, "optimal", 174, 8416),
    "lower_bound": ((0, 3), (1, 1), 0, 0.238, "feasible", 3000, 271),
    "objective": ((3, 0, 8, 29, 14, 2), (1, 1, 0, 0, 1, 0), 1, 0.23, "feasible", 3001, 577),
    "bfs": ((0, 3), (1, 1), 0, 0.238, "feasible", 3004, 937),
    "dfs": ((0, 3, 13, 12, 27, 28, 2), (1, 1, 0, 0, 0, 1, 0), 1, 0.227, "optimal", 8, 12918),
}


@pytest.mark.parametrize("policy", POLICIES)
def test_regression_corels_fixed_instance_lists_and_counts(policy):
    P, y = _big_pool(4)
    r = corels(P, y, lam=0.005, policy=policy, max_nodes=3000)
    prefix, labels, default, objective, status, n_nodes, n_expanded = _FIXED[policy]
    assert (r.prefix, r.labels, r.default, r.status, r.n_nodes, r.n_expanded) == (prefix, labels, default, status,
                                                                                  n_nodes, n_expanded)
    assert r.objective == pytest.approx(objective, abs=1e-12)
    # the optimum over the pool: every certified policy agrees with the others' best
    best = min(v[3] for v in _FIXED.values())
    assert r.objective >= best - 1e-12 and (r.status != "optimal" or r.objective == pytest.approx(best))


def test_corels_restores_the_garbage_collector():
    """The search pauses Python's cyclic collector and restores its state."""
    import gc

    P, y = _big_pool(0)
    assert gc.isenabled()
    corels(P, y, lam=0.01, max_nodes=500)
    assert gc.isenabled()
    gc.disable()
    try:
        corels(P, y, lam=0.01, max_nodes=500)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("policy", ["curious", "dfs"])
def test_corels_trie_is_freed_by_reference_counting(policy):
    """No node of the search outlives it in a reference cycle (the collector is paused while it
    runs; the trie, the queue and the permutation map must be freed without it)."""
    import gc

    from interpretopt.heuristics.corels import _Node

    P, y = _big_pool(4)
    gc.disable()
    try:
        r = corels(P, y, lam=0.005, policy=policy, max_nodes=3000)
        left = sum(isinstance(o, _Node) for o in gc.get_objects())
    finally:
        gc.enable()
    assert r.n_nodes > 0 and left == 0
