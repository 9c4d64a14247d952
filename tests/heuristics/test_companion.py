"""The CRL search core (heuristics.companion): the default-rule objective against the definitions."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.heuristics.companion import (
    MOVES,
    CompanionSearch,
    crl_acceptance,
    search_companion_list,
)
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


# -----------------------------------------------------------------------------
# CRL search (Algorithm 1): incremental objective against the from-scratch reference, moves, acceptance.


def _search_problem(seed, n=131, K=12, alpha=0.003, backend="auto"):
    rng = np.random.default_rng(seed)
    cov = rng.random((n, K)) < rng.uniform(0.05, 0.5, size=K)
    labels = rng.integers(0, 2, K)
    y = rng.integers(0, 2, n)
    bb = np.where(rng.random(n) < 0.75, y, 1 - y)
    return CompanionSearch(pack_bool(cov), labels, y, bb, alpha=alpha, coverage=cov, backend=backend)


@pytest.mark.parametrize("backend", ["int", "numpy"])
@given(seed=st.integers(0, 100_000), M=st.integers(0, 8))
def test_incremental_equals_reference_for_random_lists(backend, seed, M):
    prob = _search_problem(seed, backend=backend)
    rng = np.random.default_rng(seed)
    rules = tuple(int(v) for v in rng.choice(prob.K, size=M, replace=False))
    assert prob.state(rules).value == pytest.approx(prob.reference_value(rules), abs=1e-12)


@pytest.mark.parametrize("backend", ["int", "numpy"])
@given(seed=st.integers(0, 100_000))
def test_incremental_equals_reference_after_every_move(backend, seed):
    prob = _search_problem(seed, backend=backend)
    rng = np.random.default_rng(seed)
    state = prob.state(tuple(int(v) for v in rng.choice(prob.K, size=3, replace=False)))
    for step in range(40):
        kind = MOVES[step % 4]
        before = (state.rules, np.array(state.cum, dtype=object), np.array(state.cov))
        cand = prob.move(state, kind, rng)
        # the move never mutates the state it starts from
        assert state.rules == before[0]
        assert np.array_equal(np.array(state.cum, dtype=object), before[1]) and np.array_equal(state.cov, before[2])
        if cand is None:
            continue
        assert len(set(cand.rules)) == len(cand.rules)
        assert cand.value == pytest.approx(prob.reference_value(cand.rules), abs=1e-12)
        fresh = prob.state(cand.rules)
        assert np.array_equal(np.array(fresh.cum, dtype=object), np.array(cand.cum, dtype=object))
        assert np.array_equal(fresh.cov, cand.cov)
        state = cand


def test_move_shapes():
    prob = _search_problem(1)
    rng = np.random.default_rng(0)
    s = prob.state((0, 1, 2))
    assert len(prob.move(s, "add", rng)) == 4
    assert len(prob.move(s, "remove", rng)) == 2
    sw = prob.move(s, "swap", rng)
    assert sorted(sw.rules) == [0, 1, 2] and sw.rules != (0, 1, 2)
    rp = prob.move(s, "replace", rng)
    assert len(rp) == 3 and len(set(rp.rules) - {0, 1, 2}) == 1
    one = prob.state((5,))
    assert prob.move(one, "remove", rng) is None and prob.move(one, "swap", rng) is None


def test_acceptance_rule_of_algorithm_1():
    acc = crl_acceptance(0.001)
    rng = np.random.default_rng(0)
    assert acc(0.0, 0, rng) and acc(1e-3, 10, rng)
    # at step n = k + 1 the temperature is C0 / log2(1 + n); a worse move is accepted with exp(delta / T)
    delta, k = -0.0005, 6
    T = 0.001 / math.log2(1 + (k + 1))
    draws = np.mean([acc(delta, k, rng) for _ in range(20_000)])
    assert draws == pytest.approx(math.exp(delta / T), abs=0.015)


def test_search_finds_brute_force_optimum_on_tiny_pool():
    prob = _search_problem(7, n=90, K=5, alpha=0.002)
    best = max(
        prob.reference_value(p)
        for m in range(1, 6)
        for p in itertools.permutations(range(5), m)
    )
    res = search_companion_list(prob, n_iter=3000, C0=0.001, rng=3)
    assert res.best_value == pytest.approx(best, abs=1e-12)
    assert res.best_state.value == pytest.approx(prob.reference_value(res.best_state.rules))


def test_same_seed_same_list_and_backends_agree():
    prob = _search_problem(11, K=30)
    a = search_companion_list(prob, n_iter=500, rng=5)
    b = search_companion_list(prob, n_iter=500, rng=5)
    assert a.best_state.rules == b.best_state.rules and np.array_equal(a.history, b.history)
    c = search_companion_list(_search_problem(11, K=30, backend="numpy"), n_iter=500, rng=5)
    assert c.best_state.rules == a.best_state.rules and np.allclose(c.history, a.history, atol=1e-12)


def test_empty_pool_labels_mismatch_rejected():
    from interpretopt.exceptions import InputError

    with pytest.raises(InputError):
        CompanionSearch(np.zeros((3, 1), np.uint64), [0, 1], [0, 1], [0, 1])


@pytest.mark.parametrize("backend", ["int", "numpy"])
@given(seed=st.integers(0, 100_000))
def test_majority_labels_incremental_equals_reference(backend, seed):
    base = _search_problem(seed, backend=backend)
    prob = CompanionSearch(base.P, base.labels, base.y, base.bb, alpha=base.alpha, coverage=base.coverage,
                           rule_labels="majority", backend=backend)
    rng = np.random.default_rng(seed)
    state = prob.state(tuple(int(v) for v in rng.choice(prob.K, size=3, replace=False)))
    for step in range(24):
        cand = prob.move(state, MOVES[step % 4], rng)
        if cand is None:
            continue
        assert cand.value == pytest.approx(prob.reference_value(cand.rules), abs=1e-12)
        # majority labels are never worse than either fixed label on the captured samples
        assert cand.value >= base.state(cand.rules).value - 1e-12
        state = cand


@pytest.mark.parametrize("backend", ["int", "numpy"])
def test_search_objective_sanity_cases(backend):
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 1])
    cov = np.column_stack([y == 1, y == 0, np.ones(10, bool)])
    labels = np.array([1, 0, 1])
    # perfect rules covering everything with a perfect black box: AUTAC 1
    prob = CompanionSearch(pack_bool(cov), labels, y, y, alpha=0.0, coverage=cov, backend=backend)
    assert prob.state((0, 1)).value == pytest.approx(1.0)
    # the empty list has Proposition 4's area 0; completed to t = 1 it is the black box's accuracy
    bb = np.where(np.arange(10) < 7, y, 1 - y)
    prob = CompanionSearch(pack_bool(cov), labels, y, bb, alpha=0.01, coverage=cov, backend=backend)
    assert prob.state(()).value == 0.0
    from interpretopt.evaluation.autac import autac_reference

    assert autac_reference(cov[:, []], [], y, bb, complete=True) == pytest.approx(0.7)
    # the length penalty: alpha per rule
    assert prob.state((0, 1)).value == pytest.approx(prob.reference_value((0, 1)))
    assert prob.state((0, 1)).value + 0.02 == pytest.approx(
        CompanionSearch(pack_bool(cov), labels, y, bb, alpha=0.0, backend=backend).state((0, 1)).value)


def _move_problem(seed=0, n=80, K=10):
    rng = np.random.default_rng(seed)
    cov = rng.random((n, K)) < 0.3
    y = rng.integers(0, 2, n)
    bb = np.where(rng.random(n) < 0.8, y, 1 - y)
    return CompanionSearch(pack_bool(cov), rng.integers(0, 2, K), y, bb, alpha=0.001, coverage=cov)


def test_crl_moves_are_drawn_with_probability_one_quarter(monkeypatch):
    prob = _move_problem()
    kinds = Counter()
    real = prob.move

    def spy(state, kind, rng):
        kinds[kind] += 1
        return real(state, kind, rng)

    monkeypatch.setattr(prob, "move", spy)
    state = prob.state((0, 1, 2))
    rng = np.random.default_rng(0)
    for _ in range(4000):
        prob.propose(state, state.value, rng)
    assert set(kinds) == set(MOVES)
    for kind in MOVES:
        assert kinds[kind] / 4000 == pytest.approx(0.25, abs=0.03)


def test_crl_search_starts_from_three_rules_and_keeps_the_best():
    prob = _move_problem(1)
    seen = []
    res = search_companion_list(prob, n_iter=300, rng=2,
                                callback=lambda k, state, value, *a, **kw: seen.append((state.rules, value)))
    start = search_companion_list(prob, n_iter=0, rng=2)
    assert len(start.best_state.rules) == 3
    # the best list returned is the best of every list visited (start included)
    best_seen = max([start.best_value] + [v for _, v in seen])
    assert res.best_value == pytest.approx(best_seen)
    assert res.best_value == pytest.approx(prob.reference_value(res.best_state.rules))
