"""Exact clause pricing by blocked enumeration (up to three literals): against brute force and the branch and bound."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.exceptions import InputError
from interpretopt.heuristics.clause_bnb import ClauseBranchAndBound
from interpretopt.heuristics.clause_enum import MAX_ENUMERATION_LITERALS, ClauseEnumeration


def instance(seed: int, *, max_rows: int = 40, max_lits: int = 10):
    rng = np.random.default_rng(seed)
    m, J = int(rng.integers(3, max_rows)), int(rng.integers(1, max_lits))
    D = int(rng.integers(1, MAX_ENUMERATION_LITERALS + 1))
    X = rng.random((m, J)) < rng.uniform(0.2, 0.9)
    if J > 1 and rng.random() < 0.4:
        X[:, -1] = X[:, 0]   # equal literals
    y = (rng.random(m) < 0.5).astype(np.int8)
    # sparse duals on the positives (as at an LP optimum), the loss weight on the negatives
    r = np.where(y == 1, -rng.random(m) * rng.integers(0, 2, m), rng.random(m) * 0.5)
    a, b = float(rng.uniform(-0.3, 0.3)), float(rng.random() * 0.1)
    rc = {c: a + b * len(c) + float(r[X[:, list(c)].all(axis=1)].sum())
          for L in range(1, D + 1) for c in itertools.combinations(range(J), L)}
    return X, y, r, a, b, D, rc, rng


def _key(X, r, c) -> tuple:
    """A clause's coverage of the rows that carry a reduced cost, and its size."""
    return X[r != 0][:, list(c)].all(axis=1).tobytes(), len(c)


def _redundant(X, r, c) -> bool:
    Xr = X[r != 0]
    cover = Xr[:, list(c)].all(axis=1)
    return len(c) > 1 and any(np.array_equal(Xr[:, [k for k in c if k != j]].all(axis=1), cover) for j in c)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 100_000), K=st.integers(1, 5), cutoff=st.sampled_from([0.0, -0.1, 10.0]),
       excl_frac=st.sampled_from([0.0, 0.2]), block=st.sampled_from([1, 7, 2_000_000]))
def test_the_enumeration_returns_the_best_canonical_clauses_and_a_valid_bound(seed, K, cutoff, excl_frac, block):
    X, y, r, a, b, D, rc, rng = instance(seed)
    excl = {c for c in rc if rng.random() < excl_frac}
    res = ClauseEnumeration(X, y, block_size=block).search(r, a, b, max_literals=D, max_columns=K, exclude=excl,
                                                           cutoff=cutoff)
    assert res.complete
    true_min = min((v for c, v in rc.items() if c not in excl), default=np.inf)
    assert res.rc_lower_bound <= true_min + 1e-12
    for c, v in zip(res.clauses, res.reduced_costs):   # exact, below the cutoff, new, canonical
        assert c not in excl and v < cutoff and v == pytest.approx(rc[c], abs=1e-12)
        assert not _redundant(X, r, c)
    # the best clauses up to equal coverage: any clause of another coverage is not better than the worst returned
    pool = {}
    for c, v in rc.items():
        if c not in excl and v < cutoff and not _redundant(X, r, c):
            pool.setdefault(_key(X, r, c), v)
    got = {_key(X, r, c) for c in res.clauses}
    assert len(res.clauses) == min(K, len(res.clauses)) and len(res.clauses) >= min(K, len(pool))
    if len(res.clauses) < K:
        assert set(pool) <= got
    else:
        assert all(v >= max(res.reduced_costs) - 1e-12 for k, v in pool.items() if k not in got)
    if not excl and true_min < cutoff:   # the optimum is returned and the bound is tight
        assert res.reduced_costs[0] == pytest.approx(true_min, abs=1e-12)
        assert res.rc_lower_bound == pytest.approx(true_min, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_the_enumeration_proves_what_the_branch_and_bound_proves(seed):
    X, y, r, a, b, D, rc, _ = instance(seed)
    kw = dict(max_literals=D, max_columns=3, cutoff=0.0)
    e = ClauseEnumeration(X, y).search(r, a, b, **kw)
    t = ClauseBranchAndBound(X, y).search(r, a, b, **kw)
    assert e.complete and t.complete
    assert min(e.rc_lower_bound, 0.0) == pytest.approx(min(t.rc_lower_bound, 0.0), abs=1e-12)
    assert (e.reduced_costs[:1].tolist() or [None]) == pytest.approx(t.reduced_costs[:1].tolist() or [None])


def test_regression_an_excluded_clause_does_not_hide_its_twin_of_equal_literals():
    # literals 1 and 2 are equal: (1,) is a master column, (2,) prices out and must be returned
    X = np.array([[1, 1, 1], [0, 1, 1], [1, 0, 0], [0, 0, 0]], dtype=bool)
    y = np.array([1, 1, 0, 0])
    r = np.array([-1.0, -1.0, 0.2, 0.2])
    res = ClauseEnumeration(X, y).search(r, 0.1, 0.01, max_literals=1, max_columns=3, exclude={(1,)})
    assert (2,) in res.clauses and (1,) not in res.clauses


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("limit", [1, 50, 400])
def test_a_work_limit_keeps_the_bound_valid(seed, limit):
    X, y, r, a, b, D, rc, _ = instance(seed, max_rows=30, max_lits=12)
    res = ClauseEnumeration(X, y, block_size=1).search(r, a, b, max_literals=D, max_columns=2, work_limit=limit)
    assert res.rc_lower_bound <= min(rc.values()) + 1e-12
    if not res.complete:
        assert res.work >= limit and D >= 2


def test_an_injected_clock_stops_the_enumeration_without_depending_on_speed():
    rng = np.random.default_rng(0)
    X = rng.random((30, 12)) < 0.5
    y = (rng.random(30) < 0.5).astype(np.int8)
    r = np.where(y == 1, -1.0, 0.3)
    true_min = min(0.1 + 0.01 * len(c) + r[X[:, list(c)].all(axis=1)].sum()
                   for L in (1, 2, 3) for c in itertools.combinations(range(12), L))
    ticks = iter(range(10_000))
    res = ClauseEnumeration(X, y, block_size=1).search(r, 0.1, 0.01, max_literals=3, max_columns=10_000, cutoff=10.0,
                                                       time_limit=0.5, clock=lambda: float(next(ticks)))
    assert not res.complete and res.rc_lower_bound <= true_min + 1e-12


@pytest.mark.parametrize("kwargs, match", [
    (dict(max_literals=4), "max_literals must be 1-3"),
    (dict(max_literals=0), "max_literals must be 1-3"),
    (dict(max_literals=2, max_columns=0), "max_columns"),
    (dict(max_literals=2, b=-1.0), "b must be >= 0"),
])
def test_bad_inputs_name_the_value(kwargs, match):
    X = np.ones((3, 2), dtype=bool)
    kw = {"a": 0.1, "b": 0.01, **kwargs}
    a, b = kw.pop("a"), kw.pop("b")
    with pytest.raises(InputError, match=match):
        ClauseEnumeration(X, np.array([1, 0, 1])).search(np.array([-1.0, 0.5, -1.0]), a, b, **kw)
    with pytest.raises(InputError, match="r has"):
        ClauseEnumeration(X, np.array([1, 0, 1])).search(np.zeros(4), 0.1, 0.01, max_literals=1)
