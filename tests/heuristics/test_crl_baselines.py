"""CORELS branch-and-bound (against brute force) and the SBRL sampler, the rule-list baselines of CRL."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from interpretopt.exceptions import InputError
from interpretopt.heuristics.corels import POLICIES, corels, rule_list_objective
from interpretopt.heuristics.mining import pack_bool
from interpretopt.heuristics.sbrl import sbrl, sbrl_log_posterior


def _pool(seed, n=120, J=6):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    y = ((X[:, 0] > 0.5) ^ (rng.random(n) < 0.15)).astype(int)
    cov = np.column_stack([X[:, 0] > 0.5, X[:, 0] <= 0.5, X[:, 1] > 0.3, X[:, 2] > 0.7, X[:, 1] <= 0.2,
                           (X[:, 0] > 0.5) & (X[:, 2] > 0.5)])[:, :J]
    return pack_bool(cov), y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("policy", POLICIES)
def test_corels_certified_optimum_equals_brute_force(seed, policy):
    P, y = _pool(seed)
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
    assert res.n_nodes <= 3 and not res.certified
    with pytest.raises(InputError, match="policy"):
        corels(pack_bool(cov), y, policy="random")


def test_sbrl_map_list_improves_on_start_and_is_seeded():
    P, y = _pool(4)
    cards = np.ones(P.shape[0], dtype=int)
    a = sbrl(P, y, cards=cards, n_chains=2, n_iter=400, rng=1)
    b = sbrl(P, y, cards=cards, n_chains=2, n_iter=400, rng=1)
    assert a == b
    assert a.log_posterior == pytest.approx(sbrl_log_posterior(P, y, a.prefix, cards=cards))
    assert a.log_posterior >= sbrl_log_posterior(P, y, (), cards=cards)
    # the first antecedent x0 > 0.5 (or its complement) separates the classes: the MAP list uses one of them
    assert set(a.prefix) & {0, 1}
    assert len(a.probabilities) == len(a.prefix) + 1
