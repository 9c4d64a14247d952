"""Statistical tests used by the papers' comparison tables.

* Wilcoxon signed-rank test on paired scores (IMD Table 8, CRL and ABBR comparisons).
* Friedman test over k methods on n blocks (datasets, dataset/model pairs), with the mean
  rank of every method (Demšar 2006, "Statistical comparisons of classifiers over
  multiple data sets", JMLR 7).
* Holm's step-down correction of a family of p-values (Holm 1979).
* Paired t-test helper.

All functions are pure: arrays in, small frozen result objects out.

Examples
--------
>>> import numpy as np
>>> r = friedman(np.array([[1.0, 2.0, 3.0], [1.0, 3.0, 2.0], [1.0, 2.0, 3.0]]))
>>> r.mean_ranks.tolist()
[3.0, 1.6666666666666667, 1.3333333333333333]
>>> holm([0.01, 0.04, 0.03]).tolist()
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from interpretopt.exceptions import InputError

__all__ = [
    "TestResult",
    "FriedmanResult",
    "wilcoxon_signed_rank",
    "friedman",
    "mean_ranks",
    "holm",
    "paired_ttest",
]


@dataclass(frozen=True)
class TestResult:
    """Outcome of a two-sample paired test.

    Attributes
    ----------
    statistic : float
        Test statistic (W for Wilcoxon, t for the t-test); NaN when undefined.
    pvalue : float
        Two-sided (or as requested) p-value; 1.0 when all paired differences are zero.
    n : int
        Number of pairs used (after removing NaN pairs).
    name : str
        Name of the test.
    """

    __test__ = False  # not a pytest class

    statistic: float
    pvalue: float
    n: int
    name: str


@dataclass(frozen=True)
class FriedmanResult:
    """Outcome of the Friedman test.

    Attributes
    ----------
    statistic : float
        Friedman chi-square statistic (tie-corrected, as scipy).
    pvalue : float
        p-value from the chi-square approximation with k - 1 degrees of freedom.
    mean_ranks : numpy.ndarray of shape (k,)
        Mean rank of each method over the blocks, 1 = best.
    n_blocks : int
    """

    statistic: float
    pvalue: float
    mean_ranks: np.ndarray
    n_blocks: int


def _paired(x, y) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise InputError(f"paired samples must have the same length, got {x.size} and {y.size}")
    keep = ~(np.isnan(x) | np.isnan(y))
    return x[keep], y[keep]


def wilcoxon_signed_rank(x, y, *, alternative: str = "two-sided", zero_method: str = "wilcox") -> TestResult:
    """Wilcoxon signed-rank test of the paired differences ``x - y``.

    Parameters
    ----------
    x, y : array-like of shape (n,)
        Paired scores; pairs with a NaN are dropped.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
    zero_method : {"wilcox", "pratt", "zsplit"}, default="wilcox"
        How zero differences are treated (scipy's meaning).

    Returns
    -------
    TestResult
        ``pvalue`` is 1.0 (and ``statistic`` NaN) when every difference is zero or fewer
        than one pair remains, where the test is undefined.
    """
    x, y = _paired(x, y)
    d = x - y
    if d.size == 0 or np.all(d == 0):
        return TestResult(float("nan"), 1.0, int(d.size), "wilcoxon")
    res = _st.wilcoxon(x, y, alternative=alternative, zero_method=zero_method)
    return TestResult(float(res.statistic), float(res.pvalue), int(d.size), "wilcoxon")


def paired_ttest(x, y, *, alternative: str = "two-sided") -> TestResult:
    """Paired Student t-test of ``x - y`` (pairs with a NaN are dropped).

    Where the test is undefined the p-value says so instead of claiming significance:
    1.0 when every difference is zero (or no pair remains), NaN when fewer than two pairs
    remain or every difference is the same non-zero value (zero variance).
    """
    x, y = _paired(x, y)
    d = x - y
    if d.size < 2 or np.all(d == d[0]):
        p = 1.0 if d.size == 0 or np.all(d == 0) else float("nan")
        return TestResult(float("nan"), p, int(d.size), "paired_t")
    res = _st.ttest_rel(x, y, alternative=alternative)
    return TestResult(float(res.statistic), float(res.pvalue), int(d.size), "paired_t")


def mean_ranks(scores, *, higher_is_better: bool = True) -> np.ndarray:
    """Rank the k methods within each block (row) and average the ranks over blocks.

    Parameters
    ----------
    scores : array-like of shape (n_blocks, k)
        Score of method j on block i. Rows with a NaN are dropped.
    higher_is_better : bool, default=True
        Rank 1 goes to the highest score when True, to the lowest when False. Ties get
        the average of the ranks they span.

    Returns
    -------
    numpy.ndarray of shape (k,)
    """
    a = np.asarray(scores, dtype=float)
    if a.ndim != 2:
        raise InputError(f"scores must be a 2-D (blocks x methods) array, got shape {a.shape}")
    a = a[~np.isnan(a).any(axis=1)]
    if a.shape[0] == 0:
        return np.full(a.shape[1], np.nan)
    ranks = _st.rankdata(-a if higher_is_better else a, axis=1)
    return ranks.mean(axis=0)


def friedman(scores, *, higher_is_better: bool = True) -> FriedmanResult:
    """Friedman test of k methods over n blocks, with the mean ranks.

    Parameters
    ----------
    scores : array-like of shape (n_blocks, k)
        Rows with a NaN are dropped. Needs k >= 3 and n_blocks >= 2 for a p-value.
    higher_is_better : bool, default=True
        Direction of the reported mean ranks (the test itself is symmetric).

    Returns
    -------
    FriedmanResult
    """
    a = np.asarray(scores, dtype=float)
    if a.ndim != 2:
        raise InputError(f"scores must be a 2-D (blocks x methods) array, got shape {a.shape}")
    a = a[~np.isnan(a).any(axis=1)]
    ranks = mean_ranks(a, higher_is_better=higher_is_better)
    n, k = a.shape
    if k < 3 or n < 2:
        return FriedmanResult(float("nan"), float("nan"), ranks, n)
    if np.all(a == a[:, :1]):
        return FriedmanResult(0.0, 1.0, ranks, n)
    res = _st.friedmanchisquare(*a.T)
    return FriedmanResult(float(res.statistic), float(res.pvalue), ranks, n)


def holm(pvalues) -> np.ndarray:
    """Holm step-down adjusted p-values, in the input order.

    ``p_(i)`` sorted ascending is adjusted to ``max_{j <= i} min(1, (m - j + 1) p_(j))``.
    NaN entries stay NaN and do not count in m.
    """
    p = np.asarray(pvalues, dtype=float).ravel()
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    order = np.argsort(q, kind="mergesort")
    adj = np.minimum(1.0, (m - np.arange(m)) * q[order])
    adj = np.maximum.accumulate(adj)
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out
