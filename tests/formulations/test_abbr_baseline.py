"""Globally consistent rule MILP (Section 5.2 baseline): brute force on tiny data."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from interpretopt.formulations import abbr_baseline as F
from interpretopt.heuristics.abbr_search import evaluate_condition

solvers = pytest.importorskip("interpretopt.solvers")


def _brute(X, positive, data):
    best = None
    J = len(data.literals)
    for size in range(0, data.k + 1):
        for sub in itertools.combinations(range(J), size):
            cov = np.ones(X.shape[0], bool)
            for l in sub:
                cov &= evaluate_condition(X, data.literals[l])
            if (cov & ~positive).any() or cov.sum() < data.min_count:
                continue
            best = max(best or 0, int(cov.sum()))
    return best


@pytest.mark.parametrize("formulation", ["chain", "aggregated"])
@pytest.mark.parametrize("seed", range(5))
def test_baseline_rule_equals_brute_force(seed, formulation):
    rng = np.random.default_rng(seed)
    n = 40
    X = np.column_stack([rng.normal(size=(n, 2)), rng.integers(0, 3, size=n)]).astype(float)
    prob = 1 / (1 + np.exp(-(2 * X[:, 0] + X[:, 2] - 1)))
    positive = prob > 0.5
    x0 = X[int(np.flatnonzero(positive)[0])]
    disc = np.array([False, False, True])
    thr = [np.quantile(X[:, j], [0.25, 0.5, 0.75]) for j in range(3)]
    data = F.prepare(X, positive, x0, disc, thr, k=2, min_support=0.1)
    expected = _brute(X, positive, data)
    model = F.build(data, formulation=formulation)
    res = solvers.solve(model, "highs", solvers.SolveSettings(time_limit=20))
    if expected is None:
        assert res.status.value in ("infeasible", "infeasible_or_unbounded")
        return
    assert res.status.value == "optimal"
    assert res.objective == pytest.approx(expected)
    lits = F.extract(model, data)
    cov = np.ones(n, bool)
    for c in lits:
        cov &= evaluate_condition(X, c)
    assert len(lits) <= 2 and cov[np.flatnonzero(positive)[0]]
    assert not (cov & ~positive).any() and cov.sum() == expected


def test_trivially_infeasible_flag():
    X = np.array([[0.0], [0.0], [1.0]])
    positive = np.array([True, False, True])
    data = F.prepare(X, positive, X[0], np.array([True]), [[]], k=1)
    assert data.trivially_infeasible
