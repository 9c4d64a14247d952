"""Statistical tests against scipy and values computed by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sst

from interpretopt.evaluation.stats import friedman, holm, mean_ranks, paired_ttest, wilcoxon_signed_rank
from interpretopt.exceptions import InputError


def test_wilcoxon_matches_scipy():
    rng = np.random.default_rng(0)
    x = rng.normal(size=15)
    y = x + rng.normal(0.5, 1.0, size=15)
    ours = wilcoxon_signed_rank(x, y)
    ref = sst.wilcoxon(x, y)
    assert ours.statistic == pytest.approx(ref.statistic)
    assert ours.pvalue == pytest.approx(ref.pvalue)
    assert ours.n == 15


def test_wilcoxon_known_exact_value():
    # 6 positive differences, no ties: exact two-sided p = 2 / 2**6
    x = np.array([2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    y = np.array([1.0, 1.5, 1.0, 0.5, 2.5, 0.0])
    assert wilcoxon_signed_rank(x, y).pvalue == pytest.approx(2 / 2**6)
    assert wilcoxon_signed_rank(x, y, alternative="greater").pvalue == pytest.approx(1 / 2**6)


def test_wilcoxon_all_equal_and_nan_pairs():
    r = wilcoxon_signed_rank([1, 2, 3], [1, 2, 3])
    assert r.pvalue == 1.0 and np.isnan(r.statistic)
    r = wilcoxon_signed_rank([1.0, np.nan, 3.0, 4.0, 5.0, 9.0], [0.0, 2.0, 1.0, 1.0, 1.0, 1.0])
    assert r.n == 5


def test_wilcoxon_rejects_unequal_lengths():
    with pytest.raises(InputError, match="same length"):
        wilcoxon_signed_rank([1, 2], [1, 2, 3])


def test_friedman_matches_scipy_and_mean_ranks_by_hand():
    scores = np.array([[0.9, 0.8, 0.7], [0.85, 0.86, 0.6], [0.7, 0.65, 0.5], [0.95, 0.9, 0.91]])
    r = friedman(scores)
    ref = sst.friedmanchisquare(*scores.T)
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.pvalue == pytest.approx(ref.pvalue)
    # ranks (1 = highest): [1,2,3], [2,1,3], [1,2,3], [1,3,2]
    np.testing.assert_allclose(r.mean_ranks, [5 / 4, 8 / 4, 11 / 4])
    np.testing.assert_allclose(friedman(scores, higher_is_better=False).mean_ranks, [11 / 4, 8 / 4, 5 / 4])
    assert r.n_blocks == 4


def test_friedman_degenerate_cases():
    assert np.isnan(friedman(np.ones((3, 2))).pvalue)  # needs k >= 3
    assert friedman(np.ones((4, 3))).pvalue == 1.0
    assert friedman(np.array([[1.0, 2.0, np.nan], [1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])).n_blocks == 2


def test_mean_ranks_ties_share_average():
    np.testing.assert_allclose(mean_ranks([[1.0, 1.0, 0.0]]), [1.5, 1.5, 3.0])


def test_holm_known_values():
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    np.testing.assert_allclose(holm([0.01, 0.02, 0.03, 0.04]), [0.04, 0.06, 0.06, 0.06])
    np.testing.assert_allclose(holm([0.5, 0.9]), [1.0, 1.0])
    out = holm([0.01, np.nan, 0.04])
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.02) and out[2] == pytest.approx(0.04)


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12))
def test_holm_properties(ps):
    p = np.array(ps)
    adj = holm(p)
    assert np.all(adj >= p - 1e-15) and np.all(adj <= 1.0)
    order = np.argsort(p, kind="mergesort")
    assert np.all(np.diff(adj[order]) >= -1e-15)  # monotone in the raw p-values
    # Holm is never more conservative than Bonferroni
    assert np.all(adj <= np.minimum(1.0, p * p.size) + 1e-15)


def test_paired_ttest_matches_scipy():
    x = np.array([1.0, 2.0, 3.5, 4.0, 5.5])
    y = np.array([1.1, 2.5, 3.0, 4.9, 6.0])
    r = paired_ttest(x, y)
    ref = sst.ttest_rel(x, y)
    assert r.statistic == pytest.approx(ref.statistic) and r.pvalue == pytest.approx(ref.pvalue)
    assert paired_ttest([1, 2], [1, 2]).pvalue == 1.0


def test_paired_ttest_undefined_cases_do_not_claim_significance():
    # regression: one pair (or a constant non-zero difference) used to report p = 0
    import math

    from interpretopt.evaluation.stats import paired_ttest

    assert math.isnan(paired_ttest(np.array([0.663]), np.array([0.702])).pvalue)
    assert math.isnan(paired_ttest(np.array([1.0, 2.0, 3.0]), np.array([0.5, 1.5, 2.5])).pvalue)
    assert paired_ttest(np.array([1.0, 2.0]), np.array([1.0, 2.0])).pvalue == 1.0
