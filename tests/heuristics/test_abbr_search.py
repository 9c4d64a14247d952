"""Rule List Search / Checklist Search cores: pools, filters (eq. 10, 11), annealing (eq. 15)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.evaluation import abbr as A
from interpretopt.exceptions import InputError
from interpretopt.heuristics import abbr_search as H
from tests.instances import ranked_pair_pool


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=(n, 3)), rng.integers(0, 3, size=(n, 2))]).astype(float)
    score = X[:, 0] + 0.7 * X[:, 3] - 0.5 * X[:, 1] + 0.3 * rng.normal(size=n)
    return X, A.rank_scores(score)


@given(st.lists(st.tuples(st.integers(1, 8), st.floats(0.0, 1.0)), min_size=0, max_size=25))
def test_pareto_filter_matches_reference(rows):
    counts = np.array([r[0] for r in rows], dtype=int)
    ab = np.array([r[1] for r in rows], dtype=float)
    assert H.pareto_filter(counts, ab).tolist() == H.pareto_filter_reference(counts, ab).tolist()


def test_pareto_filter_keeps_undominated():
    counts = np.array([10, 5, 5, 2])
    ab = np.array([0.9, 0.7, 0.95, 0.5])
    # rule 1 (0.7) is dominated by rule 0 (support 10 > 5 and 0.9 > 0.77); rule 3 too
    assert H.pareto_filter(counts, ab).tolist() == [True, False, True, False]


def test_pair_pool_equals_brute_force_enumeration():
    X, ranks = _data(200, seed=1)
    disc = H.discrete_mask(X)
    pool = H.pair_rule_pool(X, ranks, disc, min_support=0.05, n_thresholds=4, filter_factor=None)
    table = H.threshold_conditions(X, disc, 4)
    expected = {}
    n = X.shape[0]
    for i, j in itertools.combinations_with_replacement(range(len(table)), 2):
        ci, cj = table.conditions[i], table.conditions[j]
        if i != j and ci[0] == cj[0]:
            ops = {ci[1], cj[1]}
            lo = ci if ci[1] == ">" else cj
            hi = cj if lo is ci else ci
            if ops != {">", "<="} or not lo[2] < hi[2]:
                continue
        cov = table.cover[i] & table.cover[j]
        if cov.sum() >= 0.05 * n:
            key = tuple(sorted({ci, cj}))
            expected[key] = (int(cov.sum()), int(ranks[cov].sum()))
    got = {}
    for r in range(len(pool)):
        key = tuple(sorted(pool.rule_conditions(r)))
        got[key] = (int(pool.counts[r]), int(pool.rank_sums[r]))
        cov = pool.cover(r)
        assert cov.sum() == pool.counts[r]
    assert got == expected


def test_pair_pool_filter_equals_filter_after():
    X, ranks = _data(250, seed=2)
    disc = H.discrete_mask(X)
    full = H.pair_rule_pool(X, ranks, disc, filter_factor=None)
    filt = H.pair_rule_pool(X, ranks, disc, filter_factor=1.1)
    keep = H.pareto_filter(full.counts, full.abbr)
    assert sorted(full.rules[i] for i in np.flatnonzero(keep)) == sorted(filt.rules)


def test_forest_pool_rules_match_leaves():
    X, ranks = _data(400, seed=3)
    pool = H.forest_rule_pool(X, ranks, 3, n_estimators=5, rng=np.random.default_rng(0))
    assert len(pool) > 0
    for r in range(len(pool)):
        conds = pool.rule_conditions(r)
        assert 1 <= len(conds) <= 2 * 3
        assert len({c[0] for c in conds}) <= 3
        cov = np.ones(X.shape[0], bool)
        for c in conds:
            cov &= H.evaluate_condition(X, c)
        assert np.array_equal(cov, pool.cover(r))
        assert pool.rank_sums[r] == ranks[cov].sum()


@pytest.mark.parametrize("s", [0.1, 0.25])
@pytest.mark.parametrize("keep", ["best", "last"])
def test_anneal_rule_list_incremental_matches_scratch_and_truncation(s, keep):
    X, ranks = _data(300, seed=4)
    pool = H.pair_rule_pool(X, ranks, H.discrete_mask(X))
    res = H.anneal_rule_list(pool, ranks, s, 4, n_iter=200, rng=np.random.default_rng(1), keep=keep)
    full = H.rule_list_objective(pool, ranks, res.full_rules, s)
    trunc = H.rule_list_objective(pool, ranks, res.rules, s)
    assert res.value == pytest.approx(full, abs=1e-12)
    assert trunc == pytest.approx(full, abs=1e-12)  # truncation to m* + 1 never changes abbr at s
    assert len(res.rules) == min(res.m_star + 1, len(res.full_rules))
    assert H.rule_list_objective(pool, ranks, res.init_rules, s) == pytest.approx(res.init_value)
    assert H.rule_list_objective(pool, ranks, res.last_rules, s) == pytest.approx(res.last_value)
    if keep == "best":
        assert res.value >= res.init_value - 1e-12
        assert res.value >= res.history.max() - 1e-12
    assert len(set(res.full_rules)) == len(res.full_rules)


@given(st.integers(0, 2**32 - 1))
def test_swap_state_is_incremental_exact(seed):
    rng = np.random.default_rng(seed)
    X, ranks = _data(123, seed=seed % 7)  # not a multiple of 8: the packed rows end in padding bits
    pool = H.pair_rule_pool(X, ranks, H.discrete_mask(X), filter_factor=None)
    idx = tuple(int(i) for i in rng.choice(len(pool), 4, replace=False))
    pr = H._PackedRanks(ranks, pool.n)
    state = H._build_state(pool, pr, idx)
    pos, new = int(rng.integers(4)), int(rng.integers(len(pool)))
    cand = H._swap_state(pool, pr, state, pos, new)
    # reference: the prefix statistics of the boolean covers, from the definitions
    counts, sums = A.prefix_stats(pool.cover_matrix(list(cand.idx)), ranks)
    assert np.array_equal(cand.counts, counts) and np.array_equal(cand.sums, np.round(sums).astype(np.int64))
    union = pool.cover_matrix(list(cand.idx)).any(axis=1)
    assert np.array_equal(np.unpackbits(cand.prefix[-1], count=pool.n).view(bool), union)


def test_anneal_improves_over_random_walk_start():
    X, ranks = _data(500, seed=5)
    pool = H.pair_rule_pool(X, ranks, H.discrete_mask(X))
    res = H.anneal_rule_list(pool, ranks, 0.2, 3, rng=np.random.default_rng(0))
    # exhaustive best single rule covering at least s: the annealed list must not be worse
    single = max(A.abbr_at_support(pool.cover(i)[:, None], ranks, 0.2) for i in range(len(pool)))
    assert res.value >= single - 1e-12


def test_checklist_conditions_and_filter():
    X, ranks = _data(300, seed=6)
    disc = H.discrete_mask(X)
    table = H.checklist_conditions(X, disc)
    for f, op, v in table.conditions:
        assert (op == "==") == bool(disc[f])
    n_numeric_conditions = sum(1 for c in table.conditions if c[1] != "==")
    assert n_numeric_conditions == 2 * 4 * int((~disc).sum())
    mask = H.condition_filter(table, ranks)
    for i, c in enumerate(table.conditions):
        sup = table.cover[i].mean()
        ok = 0.02 < sup < 0.98 and A.abbr(table.cover[i], ranks) >= 0.5
        assert mask[i] == ok


@pytest.mark.parametrize("K", [3, 5])
@pytest.mark.parametrize("reading", ["set", "nested"])
def test_anneal_checklist_value_matches_reference(K, reading):
    X, ranks = _data(300, seed=7)
    table = H.checklist_conditions(X, H.discrete_mask(X))
    sub = table.subset(np.flatnonzero(H.condition_filter(table, ranks)))
    res = H.anneal_checklist(sub.cover, ranks, 0.15, K, n_iter=150, rng=np.random.default_rng(3), keep="best",
                             reading=reading)
    covers = sub.cover[list(res.conditions)].T
    v_ref, t_ref = A.checklist_abbr_at_support_reference(covers, ranks, 0.15, reading=reading)
    assert res.value == pytest.approx(v_ref, abs=1e-12)
    assert res.threshold == t_ref
    assert res.value >= res.init_value - 1e-12


def test_checklist_set_reading_scores_what_it_covers():
    """Under the "set" reading the value at s is that of the rendered set "at least t" itself: its
    ABBR when it covers at least s, else the footnote-1 completion of it; no other level enters."""
    X, ranks = _data(2000, seed=11)
    table = H.checklist_conditions(X, H.discrete_mask(X))
    sub = table.subset(np.flatnonzero(H.condition_filter(table, ranks)))
    for s in (0.1, 0.3):
        res = H.anneal_checklist(sub.cover, ranks, s, 5, n_iter=300, rng=np.random.default_rng(0), reading="set")
        count = sub.cover[list(res.conditions)].sum(axis=0)
        cover = count >= res.threshold
        assert res.value == pytest.approx(A.abbr_at_support(cover[:, None], ranks, s), abs=1e-12)
        if cover.mean() >= s:
            assert res.value == pytest.approx(A.abbr(cover, ranks), abs=1e-12)


def test_linear_schedule_cools_to_strict_improvement():
    acc = H.acceptance("linear", 0.03, 100)
    rng = np.random.default_rng(0)
    assert acc(0.0, 0, rng) and acc(1e-9, 99, rng)
    assert not any(acc(-1e-9, 99, rng) for _ in range(100))  # i = T: greedy
    early = np.mean([acc(-0.01, 0, rng) for _ in range(4000)])
    mid = np.mean([acc(-0.01, 49, rng) for _ in range(4000)])
    assert early == pytest.approx(np.exp(-0.01 / (0.03 * 0.99)), abs=0.03)
    assert mid == pytest.approx(np.exp(-0.01 / (0.03 * 0.5)), abs=0.03)
    assert not any(H.acceptance("greedy", 0.03, 10)(-1e-12, 0, rng) for _ in range(10))
    assert all(H.acceptance("random_walk", 0.03, 10)(-1.0, 9, rng) for _ in range(10))
    with pytest.raises(InputError, match="valid"):
        H.acceptance("cosine", 0.03, 10)


def test_eq15_acceptance():
    acc = H.eq15_accept(0.03, 500, scale=1000.0)
    rng = np.random.default_rng(0)
    assert acc(0.0, 0, rng) and acc(0.1, 499, rng)
    early = np.mean([acc(-0.05, 0, rng) for _ in range(2000)])
    late = np.mean([acc(-0.05, 499, rng) for _ in range(2000)])
    assert early == pytest.approx(np.exp(-0.03 * (1 / 500) * 1000 * 0.05), abs=0.03)
    assert late == pytest.approx(np.exp(-0.03 * 1000 * 0.05), abs=0.03)


def test_empty_pools_raise():
    X, ranks = _data(50)
    empty = H.pool_from_rules(X, ranks, [])
    with pytest.raises(InputError, match="empty"):
        H.anneal_rule_list(empty, ranks, 0.1, 3)
    with pytest.raises(InputError, match="empty"):
        H.anneal_checklist(np.zeros((0, 50), bool), ranks, 0.1, 3)


def test_random_rules_support():
    X, ranks = _data(300, seed=8)
    rules = H.random_rules(X, H.discrete_mask(X), 30, rng=np.random.default_rng(0))
    assert len(rules) == 30
    for r in rules:
        assert 1 <= len(r) <= 5 and len({c[0] for c in r}) == len(r)
        cov = np.ones(300, bool)
        for c in r:
            cov &= H.evaluate_condition(X, c)
        assert cov.mean() >= 0.02


def _syn(n, seed):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=(n, 6)), rng.integers(0, 4, size=(n, 3))]).astype(float)
    score = X[:, 0] + 0.7 * X[:, 6] - 0.5 * X[:, 1] + 0.4 * X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n)
    return X, A.rank_scores(score)


def test_annealing_against_greedy_and_random_walk_at_equal_steps():
    """Fixed pools, T = 500 steps each: the annealing (K = 0.03, linear cooling) beats the best state
    of a random walk; against greedy hill climbing from the same start it is within 0.01 on average
    (measured here: 0.003 below it at the published K = 0.03, 0.001 above it at K = 0.003; on the real
    pools of adult and heloc, 24 cells: 0.0028 below, and no reading of eq. 15 above it, see the
    annealing paragraph of :mod:`interpretopt.methods.abbr`)."""
    means = {"linear": [], "greedy": [], "random_walk": []}
    for seed in range(2):
        X, ranks = _syn(1500, seed)
        pool = H.pair_rule_pool(X, ranks, H.discrete_mask(X))
        for s in (0.1, 0.3):
            for M in (3, 5):
                for sched in means:
                    v = [H.anneal_rule_list(pool, ranks, s, M, n_iter=500, schedule=sched, keep="best",
                                            rng=np.random.default_rng(r)).value for r in range(2)]
                    means[sched].append(np.mean(v))
    lin, greedy, walk = (np.array(means[k]) for k in ("linear", "greedy", "random_walk"))
    assert lin.mean() > walk.mean() + 0.003
    assert (lin >= walk - 1e-12).mean() >= 0.75
    assert lin.mean() >= greedy.mean() - 0.01


def test_abbr_annealing_starts_from_the_M_highest_abbr_rules():
    pool, ranks = ranked_pair_pool(3)
    res = H.anneal_rule_list(pool, ranks, 0.2, 4, n_iter=20, rng=np.random.default_rng(0))
    ab = np.array([A.abbr(pool.cover(i), ranks) for i in range(len(pool))])
    init_abbr = np.sort(ab[list(res.init_rules)])[::-1]
    assert len(res.init_rules) == 4
    assert np.allclose(init_abbr, np.sort(ab)[::-1][:4], atol=1e-12)


def test_warm_started_rule_list_is_never_below_the_smaller_search():
    """M = 5 warm-started from the M = 3 search (same rng, T = 200 each) is never below that M = 3
    answer; the published start alone (M = 5 from the 5 highest-ABBR rules) falls below it on this
    instance (seeds 0 and 4 of pool 0), which is why the warm start exists (methods/abbr.py)."""
    X, ranks = _syn(800, 0)
    pool = H.pair_rule_pool(X, ranks, H.discrete_mask(X))
    published_below = 0
    for r in range(6):
        m3 = H.anneal_rule_list(pool, ranks, 0.2, 3, n_iter=200, rng=np.random.default_rng(r))
        m5 = H.anneal_rule_list(pool, ranks, 0.2, 5, n_iter=200, rng=np.random.default_rng(r))
        warm = H.warm_started_rule_list(pool, ranks, 0.2, 5, 3, n_iter=200, rng=np.random.default_rng(r))
        assert warm.warm_value == pytest.approx(m3.value, abs=1e-12)  # the same search, the same draws
        assert warm.value >= m3.value - 1e-12
        assert warm.value == pytest.approx(H.rule_list_objective(pool, ranks, warm.rules, 0.2), abs=1e-12)
        assert len(warm.full_rules) <= 5 and warm.history.size == 400
        published_below += m5.value < m3.value - 1e-9
    assert published_below >= 1


def test_warm_start_off_is_the_published_search_and_start_is_checked():
    X, ranks = _data()
    pool = H.pair_rule_pool(X, ranks, H.discrete_mask(X))
    ref = H.anneal_rule_list(pool, ranks, 0.2, 5, n_iter=100, rng=np.random.default_rng(1))
    for warm_M in (None, 5, 7):
        res = H.warm_started_rule_list(pool, ranks, 0.2, 5, warm_M, n_iter=100, rng=np.random.default_rng(1))
        assert res.rules == ref.rules and res.value == ref.value and res.warm_value is None
    start = (len(pool) - 1, 0)
    res = H.anneal_rule_list(pool, ranks, 0.2, 4, n_iter=0, rng=np.random.default_rng(0), start=start)
    order = [int(i) for i in H._initial_order(pool.counts, pool.abbr) if int(i) not in start]
    assert res.init_rules == start + tuple(order[:2])
    with pytest.raises(InputError, match="pool indices"):
        H.anneal_rule_list(pool, ranks, 0.2, 4, n_iter=0, start=(len(pool),))
