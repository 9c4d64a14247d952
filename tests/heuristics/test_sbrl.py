"""The SBRL sampler (a rule-list baseline of CRL): seeded MAP lists and chains."""

from __future__ import annotations

import numpy as np
import pytest

from interpretopt.heuristics.sbrl import sbrl, sbrl_log_posterior
from tests.instances import rule_pool


def test_sbrl_map_list_improves_on_start_and_is_seeded():
    P, y = rule_pool(4)
    cards = np.ones(P.shape[0], dtype=int)
    a = sbrl(P, y, cards=cards, n_chains=2, n_iter=400, rng=1)
    b = sbrl(P, y, cards=cards, n_chains=2, n_iter=400, rng=1)
    assert a == b
    assert a.log_posterior == pytest.approx(sbrl_log_posterior(P, y, a.prefix, cards=cards))
    assert a.log_posterior >= sbrl_log_posterior(P, y, (), cards=cards)
    # the first antecedent x0 > 0.5 (or its complement) separates the classes: the MAP list uses one of them
    assert set(a.prefix) & {0, 1}
    assert len(a.probabilities) == len(a.prefix) + 1


def test_sbrl_first_chains_equal_a_run_with_fewer_chains():
    P, y = rule_pool(5)
    cards = np.ones(P.shape[0], dtype=int)
    big = sbrl(P, y, cards=cards, n_chains=4, n_iter=150, rng=3)
    for k in (1, 2, 3):
        small = sbrl(P, y, cards=cards, n_chains=k, n_iter=150, rng=3)
        got = big.first_chains(k, P, y, cards=cards)
        assert (got.prefix, got.labels, got.default) == (small.prefix, small.labels, small.default)
        assert got.log_posterior == pytest.approx(small.log_posterior)
