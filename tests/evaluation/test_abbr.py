"""ABBR metrics: definitions, Lemma 3.1, interpolation at a target support (brute force), eq. 12."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.evaluation import abbr as A
from interpretopt.exceptions import InputError


def test_figure2_example():
    # Figure 2: N = 20, covered ranks {14, 15, 16, 18, 20}: support 0.25, ABBR 0.83
    ranks = np.arange(1, 21)
    cover = np.isin(ranks, [14, 15, 16, 18, 20])
    assert A.support(cover) == pytest.approx(0.25)
    assert A.abbr(cover, ranks) == pytest.approx(0.83)


def test_rank_ties_broken_by_position():
    scores = np.array([0.3, 0.1, 0.3, 0.9, 0.1])
    ranks = A.rank_scores(scores)
    assert ranks.tolist() == [3, 1, 4, 5, 2]
    assert ranks.tolist() == A.rank_scores_reference(scores).tolist()


@given(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.7, 1.0]), min_size=1, max_size=30))
def test_rank_matches_reference(values):
    s = np.array(values)
    assert A.rank_scores(s).tolist() == A.rank_scores_reference(s).tolist()


@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_lemma_3_1_abbr_is_average_consistency(n, seed):
    rng = np.random.default_rng(seed)
    ranks = A.rank_scores(rng.random(n))
    cover = rng.random(n) < rng.random()
    if not cover.any():
        cover[rng.integers(n)] = True
    avg_consistency = sum(A.consistency(cover, ranks, m) for m in range(1, n + 1)) / n
    assert A.abbr(cover, ranks) == pytest.approx(avg_consistency, abs=1e-12)
    assert A.abbr(cover, ranks) == pytest.approx(A.abbr_reference(cover, ranks), abs=1e-12)
    m = int(rng.integers(1, n + 1))
    assert A.consistency(cover, ranks, m) == pytest.approx(A.consistency_reference(cover, ranks, m))


def _brute_force_interpolated(covers, ranks, s):
    """Average, over every subset of l_{m*+1} minus l_{m*} of the needed size, of the ABBR of the
    set of support exactly s (Section 4.1's construction); sN must be an integer."""
    n = len(ranks)
    target = round(s * n)
    prefix = np.zeros(n, bool)
    prefixes = [prefix.copy()]
    for j in range(covers.shape[1]):
        prefix = prefix | covers[:, j]
        prefixes.append(prefix.copy())
    prefixes.append(np.ones(n, bool))
    m = max(i for i in range(len(prefixes) - 1) if prefixes[i].sum() <= target)
    a, b = prefixes[m], prefixes[m + 1]
    inc = np.flatnonzero(b & ~a)
    need = target - int(a.sum())
    values = []
    for sub in itertools.combinations(inc, need):
        chosen = a.copy()
        chosen[list(sub)] = True
        values.append(ranks[chosen].mean() / n)
    return float(np.mean(values))


@given(st.integers(4, 10), st.integers(1, 3), st.integers(0, 2**32 - 1), st.data())
def test_interpolated_abbr_equals_brute_force(n, M, seed, data):
    rng = np.random.default_rng(seed)
    ranks = A.rank_scores(rng.random(n))
    covers = rng.random((n, M)) < 0.3
    k = data.draw(st.integers(1, n - 1))
    s = k / n
    value = A.abbr_at_support(covers, ranks, s)
    assert value == pytest.approx(_brute_force_interpolated(covers, ranks, s), abs=1e-12)
    assert value == pytest.approx(A.abbr_at_support_reference(covers, ranks, s), abs=1e-12)


@given(st.integers(3, 30), st.integers(1, 5), st.floats(0.01, 0.99), st.integers(0, 2**32 - 1))
def test_interpolated_matches_reference_and_truncation(n, M, s, seed):
    rng = np.random.default_rng(seed)
    ranks = A.rank_scores(rng.random(n))
    covers = rng.random((n, M)) < rng.random()
    det = A.abbr_at_support_detail(covers, ranks, s)
    assert det.value == pytest.approx(A.abbr_at_support_reference(covers, ranks, s), abs=1e-12)
    # truncation to the first m* + 1 rules never changes the value at s
    trunc = A.abbr_at_support(covers[:, : det.n_used], ranks, s)
    assert trunc == pytest.approx(det.value, abs=1e-12)


def test_footnote_edge_cases():
    ranks = np.arange(1, 11)
    # first rule already exceeds s: m* = 0, alpha = 0, value = ABBR of rule 1
    r1 = ranks >= 5
    det = A.abbr_at_support_detail(r1[:, None], ranks, 0.2)
    assert det.m_star == 0 and det.alpha == 0
    assert det.value == pytest.approx(A.abbr(r1, ranks))
    # list stays below s: the dummy rule supplies the remaining samples
    r2 = ranks == 10
    det = A.abbr_at_support_detail(r2[:, None], ranks, 0.3)
    assert det.m_star == 1 and det.n_used == 1
    expected = (10 + 2 * np.mean(np.arange(1, 10))) / 3 / 10
    assert det.value == pytest.approx(expected)
    # support exactly s: alpha = 1
    det = A.abbr_at_support_detail((ranks >= 9)[:, None], ranks, 0.2)
    assert det.alpha == pytest.approx(1.0)
    assert det.value == pytest.approx(0.95)


@given(st.integers(4, 25), st.integers(1, 5), st.floats(0.02, 0.98), st.integers(0, 2**32 - 1))
def test_checklist_matches_reference(n, K, s, seed):
    rng = np.random.default_rng(seed)
    ranks = A.rank_scores(rng.random(n))
    covers = rng.random((n, K)) < 0.5
    v, t = A.checklist_abbr_at_support(covers.sum(1), ranks, s, K)
    v_ref, t_ref = A.checklist_abbr_at_support_reference(covers, ranks, s)
    assert v == pytest.approx(v_ref, abs=1e-12)
    assert t == t_ref
    v2, _ = A.checklist_abbr_at_support(covers.sum(1), ranks, s, K, t=t)
    assert v2 == pytest.approx(v)


def test_optimality_ratio():
    assert A.optimality_ratio(0.95, 0.1) == pytest.approx(1.0)
    assert A.optimality_ratio(0.5, 0.2) == pytest.approx(0.0)
    assert A.optimality_ratio(0.7, 0.2) == pytest.approx(0.5)


@pytest.mark.parametrize("s", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_bad_support_target(s):
    with pytest.raises(InputError, match="target support"):
        A.abbr_at_support(np.ones((4, 1), bool), np.arange(1, 5), s)
    with pytest.raises(InputError):
        A.optimality_ratio(0.9, s)


def test_helpers_take_scores_and_rank_inside():
    rng = np.random.default_rng(3)
    scores = rng.random(50)
    scores[[3, 7]] = scores[5]  # ties, broken by position
    ranks = A.rank_scores(scores)
    covers = rng.random((50, 3)) < 0.3
    assert A.abbr(covers[:, 0], scores=scores) == A.abbr(covers[:, 0], ranks)
    assert A.consistency(covers[:, 0], m=20, scores=scores) == A.consistency(covers[:, 0], ranks, 20)
    assert A.abbr_at_support(covers, s=0.2, scores=scores) == A.abbr_at_support(covers, ranks, 0.2)
    with pytest.raises(InputError, match="not both"):
        A.abbr(covers[:, 0], ranks, scores=scores)


@pytest.mark.parametrize("bad, match", [
    (np.linspace(0.01, 0.99, 10), "non-integer"),      # probabilities passed as ranks
    (np.arange(0, 10), r"1\.\.10"),                    # 0-based
    (np.array([1, 2, 2, 4, 5, 6, 7, 8, 9, 10]), "more than once"),
    (np.arange(1, 11) * 2, r"1\.\.10"),
])
def test_non_permutation_ranks_are_rejected(bad, match):
    cover = np.arange(10) % 2 == 0
    with pytest.raises(InputError, match=match):
        A.abbr(cover, bad)
    with pytest.raises(InputError, match=match):
        A.abbr_at_support(cover[:, None], bad, 0.3)


@pytest.mark.parametrize("m", [0.5, 0, 11, True, "3"])
def test_consistency_rejects_fractional_or_out_of_range_thresholds(m):
    ranks = np.arange(1, 11)
    with pytest.raises(InputError, match="rank threshold m"):
        A.consistency(ranks > 5, ranks, m)


def test_consistency_at_probability_threshold():
    scores = np.array([0.1, 0.6, 0.5, 0.9, 0.4])
    cover = np.array([True, True, True, True, False])
    assert A.consistency_at_probability(cover, scores, 0.5) == pytest.approx(2 / 4)  # score > p
    assert A.consistency_at_probability(np.zeros(5, bool), scores, 0.5) == 0.0
    # at p = the score of rank m - 1 it equals Definition 3 at m (no ties)
    ranks = A.rank_scores(scores)
    assert A.consistency_at_probability(cover, scores, 0.4) == A.consistency(cover, ranks, 3)
    with pytest.raises(InputError, match="probability threshold p"):
        A.consistency_at_probability(cover, scores, 1.5)


def test_checklist_counts_and_threshold_are_checked():
    ranks = np.arange(1, 11)
    with pytest.raises(InputError, match="0..K"):
        A.checklist_abbr_at_support(np.full(10, 4), ranks, 0.2, 3)
    with pytest.raises(InputError, match="threshold t"):
        A.checklist_abbr_at_support(np.full(10, 2), ranks, 0.2, 3, t=2.5)
    with pytest.raises(InputError, match="valid"):
        A.checklist_abbr_at_support(np.full(10, 2), ranks, 0.2, 3, reading="mixed")


@given(st.integers(2, 200), st.integers(1, 7), st.floats(0.01, 0.99), st.integers(0, 2**32 - 1))
def test_checklist_set_values_at_once_equal_one_at_a_time(n, K, s, seed):
    """The search's vectorized values of "at least t" (every t at once) are the interpolation of
    each level alone, to the last bit (the argmax over t must not change)."""
    rng = np.random.default_rng(seed)
    r = rng.permutation(n) + 1
    k = rng.integers(0, K + 1, size=n)
    counts, sums = A.checklist_level_stats(k, r, K)
    got = A._set_values(counts, sums, n, s, K)
    assert got == [A._checklist_value(counts, sums, n, s, K, t, "set") for t in range(K, 0, -1)]
