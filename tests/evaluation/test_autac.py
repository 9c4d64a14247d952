"""AUTAC (Proposition 4), the trade-off curve and the stochastic CRL of Definition 3."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.evaluation.autac import (
    autac,
    autac_reference,
    first_cover_from_coverage,
    stochastic_crl_predict,
    stochastic_crl_probabilities,
    tradeoff_curve,
)
from interpretopt.exceptions import InputError


def _random_list(seed, n=50, M=4):
    rng = np.random.default_rng(seed)
    cov = rng.random((n, M)) < rng.uniform(0.05, 0.6, size=M)
    labels = rng.integers(0, 2, M)
    y = rng.integers(0, 2, n)
    bb = np.where(rng.random(n) < 0.8, y, 1 - y)
    return cov, labels, y, bb


def test_empty_list_autac_is_blackbox_accuracy():
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    bb = np.array([0, 1, 0, 0, 1, 1, 0, 1])
    curve = tradeoff_curve(np.full(8, -1), [], y, bb)
    assert curve.accuracy[0] == pytest.approx(0.75)
    assert curve.autac_completed == pytest.approx(0.75)
    assert curve.autac == 0.0  # Proposition 4 integrates over [0, T_M] = [0, 0]
    assert autac_reference(np.zeros((8, 0), bool), [], y, bb, complete=True) == pytest.approx(0.75)


def test_perfect_rules_covering_everything():
    y = np.array([0, 1, 1, 0, 1, 0])
    cov = np.column_stack([y == 1, y == 0])  # rule 0 -> 1, rule 1 -> 0: perfect, covers all
    fc = first_cover_from_coverage(cov)
    # with a perfect black box the whole curve sits at accuracy 1
    curve = tradeoff_curve(fc, [1, 0], y, y)
    assert curve.autac == pytest.approx(1.0) and curve.autac_completed == pytest.approx(1.0)
    assert curve.transparency[-1] == 1.0
    # with an imperfect black box only the first trapezoid loses: (A0 + A1)/2 * T1 + ...
    bb = 1 - y
    curve = tradeoff_curve(fc, [1, 0], y, bb)
    T1 = np.mean(y == 1)
    A1 = T1  # covered correct, uncovered all wrong
    expected = 0.5 * (0 + A1) * T1 + 0.5 * (A1 + 1.0) * (1 - T1)
    assert curve.autac == pytest.approx(expected)


@given(st.integers(0, 10_000), st.integers(1, 6))
def test_curve_matches_reference(seed, M):
    cov, labels, y, bb = _random_list(seed, M=M)
    curve = tradeoff_curve(first_cover_from_coverage(cov), labels, y, bb)
    assert curve.autac == pytest.approx(autac_reference(cov, labels, y, bb))
    assert curve.autac_completed == pytest.approx(autac_reference(cov, labels, y, bb, complete=True))
    assert 0.0 <= curve.autac <= curve.transparency[-1] + 1e-12
    assert 0.0 <= curve.autac_completed <= 1.0
    assert np.all(np.diff(curve.transparency) >= 0)
    # cover fractions add up to the final transparency
    assert curve.rule_cover.sum() == pytest.approx(curve.transparency[-1])


@given(st.integers(0, 10_000), st.floats(0.0, 1.0))
def test_stochastic_crl_expected_transparency_is_t(seed, t):
    cov, labels, y, bb = _random_list(seed, n=80, M=5)
    fc = first_cover_from_coverage(cov)
    T = tradeoff_curve(fc, labels, y, bb).transparency
    p = stochastic_crl_probabilities(fc, T, t)
    assert p.mean() == pytest.approx(min(t, T[-1]), abs=1e-12)


def test_stochastic_crl_sampling_and_endpoints():
    cov, labels, y, bb = _random_list(3, n=400, M=4)
    fc = first_cover_from_coverage(cov)
    curve = tradeoff_curve(fc, labels, y, bb)
    T = curve.transparency
    rng = np.random.default_rng(0)
    t = 0.5 * (T[1] + T[2])
    used = []
    for _ in range(200):
        pred = stochastic_crl_predict(fc, labels, np.full(len(y), 7), T, t, rng)
        used.append(np.mean(pred != 7))
    assert np.mean(used) == pytest.approx(t, abs=0.01)
    # at t = T_m the stochastic CRL is the deterministic first-m-rules hybrid: accuracy A_m
    for m in range(len(T)):
        pred = stochastic_crl_predict(fc, labels, bb, T, T[m], rng)
        assert np.mean(pred == y) == pytest.approx(curve.accuracy[m])


def test_bad_inputs():
    with pytest.raises(InputError):
        autac([0, 0.5, 0.4], [0.8, 0.8, 0.8])  # transparency decreasing
    with pytest.raises(InputError):
        tradeoff_curve([0, 1], [1], [0, 1], [0, 1])  # rule index out of range
    with pytest.raises(InputError):
        stochastic_crl_probabilities([0], [0.0, 1.0], 1.5)
