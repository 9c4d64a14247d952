"""Section 6.1 preprocessing and FP-Growth mining for companion rule lists."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.exceptions import InputError
from interpretopt.heuristics.mining import QuantileOneHotBinarizer, mine_rules, pack_bool, popcount_rows


def _frame(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.normal(40, 10, n),
        "color": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
        "flag": rng.integers(0, 2, n),
    })


def test_quantile_one_hot_partitions_each_feature():
    X = _frame()
    bz = QuantileOneHotBinarizer(n_quantiles=7).fit(X)
    B = bz.transform(X)
    feats = np.array([it.feature for it in bz.items_])
    assert (feats == 0).sum() == 7  # seven quantile bins for the continuous feature
    assert (feats == 1).sum() == 3 and (feats == 2).sum() == 2  # one-hot categories and the binary feature
    for j in range(3):
        assert np.all(B[:, feats == j].sum(axis=1) == 1)  # every row in exactly one item per feature
    counts = B[:, feats == 0].sum(axis=0)
    assert counts.min() >= 200 / 7 - 2 and counts.max() <= 200 / 7 + 2
    names = bz.get_feature_names_out()
    assert any("color = red" == s for s in names) and any("age <=" in s for s in names)


def test_items_as_rule_conditions_agree():
    from interpretopt.rules import Conjunction

    X = np.random.default_rng(1).normal(size=(120, 3))
    bz = QuantileOneHotBinarizer().fit(X)
    B = bz.transform(X)
    for k, it in enumerate(bz.items_):
        assert np.array_equal(Conjunction(it.conditions()).evaluate(X), B[:, k].astype(bool))


@given(st.integers(1, 300), st.integers(1, 5), st.integers(0, 1000))
def test_pack_and_popcount(n, k, seed):
    B = np.random.default_rng(seed).random((n, k)) < 0.4
    P = pack_bool(B)
    assert P.dtype == np.uint64 and P.shape == (k, (n + 63) // 64)
    assert np.array_equal(popcount_rows(P), B.sum(axis=0))


def test_mining_matches_brute_force():
    rng = np.random.default_rng(3)
    B = (rng.random((150, 6)) < 0.45).astype(np.uint8)
    y = rng.integers(0, 2, 150)
    pool = mine_rules(B, y, min_support=0.2, max_card=2)
    got = {(s, int(c)) for s, c in zip(pool.itemsets, pool.labels)}
    expected = set()
    for c in (0, 1):
        Bc = B[y == c].astype(bool)
        for m in (1, 2):
            for s in itertools.combinations(range(6), m):
                if Bc[:, list(s)].all(axis=1).mean() >= 0.2:
                    expected.add((s, c))
    assert got == expected
    cov = pool.coverage(B)
    assert np.array_equal(popcount_rows(pool.packed), cov.sum(axis=0))
    assert np.array_equal(pool.support, cov.sum(axis=0))


def test_max_rules_per_class_keeps_most_precise():
    rng = np.random.default_rng(4)
    B = (rng.random((200, 8)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 2, 200)
    full = mine_rules(B, y, min_support=0.1)
    top = mine_rules(B, y, min_support=0.1, max_rules_per_class=5)
    assert top.report.n_rules_per_class == {1: 5, 0: 5}
    cov = full.coverage(B)
    prec1 = [(cov[:, r] & (y == 1)).sum() / cov[:, r].sum() for r in np.flatnonzero(full.labels == 1)]
    kept = [(top.coverage(B)[:, r] & (y == 1)).sum() / top.support[r] for r in np.flatnonzero(top.labels == 1)]
    assert min(kept) >= sorted(prec1)[-5] - 1e-12


def test_memory_fallback_is_explicit_and_reported():
    rng = np.random.default_rng(5)
    B = (rng.random((1000, 10)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 2, 1000)
    plain = mine_rules(B, y)
    assert not plain.report.subsampled and plain.report.n_shrink_rounds == 0
    small = mine_rules(B, y, memory_limit_mb=0.05, random_state=0)  # 1000 rows * 10 items * 8 B > 0.05 MB
    assert small.report.subsampled and small.report.n_shrink_rounds > 0
    assert small.report.n_rows_used * 10 * 8 <= 0.05 * 2**20
    assert small.packed.shape[1] == plain.packed.shape[1]  # coverage stays on all rows


def test_bad_inputs():
    B = np.eye(4, dtype=np.uint8)[np.arange(40) % 4]
    y = np.arange(40) % 2
    for bad in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(InputError, match="min_support"):
            mine_rules(B, y, min_support=bad)
    with pytest.raises(InputError, match="no rule"):
        mine_rules(B, y, min_support=0.9)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.05, 0.1, 0.3]), st.integers(1, 3))
def test_packed_miner_equals_fpgrowth(seed, support, card):
    """The bit-packed level-wise miner finds exactly mlxtend's FP-Growth itemsets."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 160))
    B = (rng.random((n, 7)) < rng.uniform(0.2, 0.7)).astype(np.uint8)
    y = rng.integers(0, 2, n)
    if len(np.unique(y)) < 2:
        return
    try:
        a = mine_rules(B, y, min_support=support, max_card=card, backend="fpgrowth")
    except InputError:
        with pytest.raises(InputError):
            mine_rules(B, y, min_support=support, max_card=card)
        return
    b = mine_rules(B, y, min_support=support, max_card=card)
    assert {(s, int(c)) for s, c in zip(a.itemsets, a.labels)} == {(s, int(c)) for s, c in zip(b.itemsets, b.labels)}


def test_negated_items_are_complements_and_render():
    X = _frame(n=150, seed=2)
    bz = QuantileOneHotBinarizer(negations=True).fit(X)
    B = bz.transform(X).astype(bool)
    k = len(bz.items_) // 2
    assert np.array_equal(B[:, k:], ~B[:, :k])
    assert all(it.negated for it in bz.items_[k:]) and not any(it.negated for it in bz.items_[:k])
    names = list(bz.get_feature_names_out())
    assert "color != red" in names and any(n.startswith("not (") for n in names)
    from interpretopt.rules import Conjunction

    for j, it in enumerate(bz.items_):
        if it.expressible:
            assert np.array_equal(Conjunction(it.conditions()).evaluate(X), B[:, j])
        else:
            with pytest.raises(InputError, match="disjunction"):
                it.conditions()


def test_precision_filter_keeps_rules_above_the_base_rate():
    rng = np.random.default_rng(7)
    B = (rng.random((300, 8)) < 0.4).astype(np.uint8)
    y = ((B[:, 0] == 1) ^ (rng.random(300) < 0.3)).astype(int)
    pool = mine_rules(B, y, min_support=0.05, precision_filter=True)
    full = mine_rules(B, y, min_support=0.05)
    cov = pool.coverage(B)
    for r, c in enumerate(pool.labels):
        assert np.mean(y[cov[:, r]] == c) > np.mean(y == c)
    assert len(pool) < len(full)


def test_all_rows_scope_is_pycorels_mining():
    """scope='all': items with support >= s extend to pairs; rules have support in [s, 1 - s] on all rows."""
    rng = np.random.default_rng(8)
    B = (rng.random((200, 5)) < rng.uniform(0.02, 0.98, size=5)).astype(np.uint8)
    B[:, 4] = 1  # an item above 1 - s: not a rule alone, but it extends to pairs
    y = rng.integers(0, 2, 200)
    s = 0.05
    pool = mine_rules(B, y, min_support=s, scope="all")
    got = set(pool.itemsets)
    exp = set()
    freq = [j for j in range(5) if B[:, j].mean() >= s]
    for m in (1, 2):
        for c in itertools.combinations(freq, m):
            sup = B[:, list(c)].all(axis=1).mean()
            if s <= sup <= 1 - s:
                exp.add(c)
    assert got == exp and (4,) not in got and any(4 in c for c in got)
    assert set(pool.labels.tolist()) == {-1}
