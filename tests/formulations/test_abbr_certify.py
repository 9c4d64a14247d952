"""Exact certification MILP for Rule List Search: brute force on tiny pools, >= annealing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from interpretopt.evaluation import abbr as A
from interpretopt.formulations import abbr_certify as F
from interpretopt.heuristics import abbr_search as H
from tests.instances import ranked_pair_pool

solvers = pytest.importorskip("interpretopt.solvers")


def _solve(cover, ranks, s, M):
    data = F.patterns(cover, ranks, s, M)
    model = F.build(data)
    res = solvers.solve(model, "highs", solvers.SolveSettings(time_limit=30))
    assert res.status.value == "optimal", res
    return res, F.extract(model)


def _brute_force(cover, ranks, s, M):
    k = cover.shape[1]
    best = -np.inf
    for m in range(1, M + 1):
        for perm in itertools.permutations(range(k), m):
            best = max(best, A.abbr_at_support(cover[:, list(perm)], ranks, s))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_certify_equals_brute_force_on_tiny_pools(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(8, 25)), int(rng.integers(2, 6))
    M = int(rng.integers(1, 4))
    s = float(rng.choice([0.1, 0.2, 0.3, 0.45]))
    ranks = A.rank_scores(rng.random(n))
    cover = rng.random((n, k)) < rng.uniform(0.1, 0.5, size=k)
    res, sol = _solve(cover, ranks, s, M)
    expected = _brute_force(cover, ranks, s, M)
    assert res.objective == pytest.approx(expected, abs=1e-6)
    # the extracted list has the certified value
    order = list(sol.rules) + ([sol.next_rule] if sol.next_rule is not None else [])
    assert len(order) <= M
    assert A.abbr_at_support(cover[:, order], ranks, s) == pytest.approx(res.objective, abs=1e-6)


def test_certify_at_least_annealing_on_same_pool():
    pool, ranks = ranked_pair_pool(11)
    order = np.argsort(-pool.abbr)[:12]
    small = pool.subset(order)
    for s in (0.1, 0.2):
        ann = H.anneal_rule_list(small, ranks, s, 3, n_iter=200, rng=np.random.default_rng(0))
        res, _ = _solve(small.cover_matrix(), ranks, s, 3)
        assert res.objective >= ann.value - 1e-7
