"""The CRL search core (heuristics.companion): the default-rule objective against the definitions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.heuristics.companion import CompanionSearch, search_companion_list
from interpretopt.heuristics.mining import pack_bool


def _problem(seed, n=90, K=9, **kw):
    rng = np.random.default_rng(seed)
    cov = rng.random((n, K)) < 0.25
    y = rng.integers(0, 2, n)
    bb = np.where(rng.random(n) < 0.8, y, 1 - y)
    return cov, CompanionSearch(pack_bool(cov), rng.integers(0, 2, K), y, bb, alpha=0.002, coverage=cov, **kw)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["int", "numpy"]), st.sampled_from(["mined", "majority"]))
def test_default_rule_objective_equals_reference_along_a_search(seed, backend, labels):
    _, prob = _problem(seed, backend=backend, rule_labels=labels, default_rule=True)
    res = search_companion_list(prob, n_iter=150, rng=seed)
    for _, state in [(None, res.best_state)]:
        assert state.value == pytest.approx(prob.reference_value(state.rules), abs=1e-12)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        rules = tuple(int(r) for r in rng.choice(prob.K, size=int(rng.integers(0, 5)), replace=False))
        assert prob.state(rules).value == pytest.approx(prob.reference_value(rules), abs=1e-12)


def test_default_rule_closes_the_curve_at_transparency_one():
    from interpretopt.evaluation.autac import autac_reference

    cov, prob = _problem(3, default_rule=True)
    rules = (0, 4, 2)
    c = cov[:, list(rules)]
    unc = ~c.any(axis=1)
    d1 = prob.y[unc].sum()
    full = np.column_stack([c, np.ones(len(prob.y), dtype=bool)])
    lab = np.append(prob.labels[list(rules)], int(d1 > unc.sum() - d1))
    # Proposition 4 on the complete list (the default rule is not penalized by alpha)
    ref = autac_reference(full, lab, prob.y, prob.bb) - prob.alpha * len(rules)
    assert prob.state(rules).value == pytest.approx(ref, abs=1e-12)
    # without the default rule the area stops at T_M < 1 and is smaller than the black box's accuracy alone
    cov2, plain = _problem(3)
    assert plain.state(()).value == 0.0
    assert prob.state(()).value == pytest.approx(max(prob.y.mean(), 1 - prob.y.mean()) * 0.5
                                                 + 0.5 * np.mean(prob.y == prob.bb))


def test_search_core_lives_in_heuristics_and_is_reexported():
    import interpretopt.heuristics.companion as core
    import interpretopt.methods.crl as crl

    assert crl.CompanionSearch is core.CompanionSearch and crl.search_companion_list is core.search_companion_list
