"""Metrics of "Explaining Confident Black-Box Predictions" (Yao, Levi, Avrahami, Meidan, TMLR 2025).

Notation (Section 3). The N samples are ranked by the black box's predicted probability
``b(X_n)``: rank 1 is the lowest probability, rank N the highest. For a rule list (or any
set of samples) ``l`` with covered ranks ``[N]_l``:

* support (Definition 1): ``supp(l) = |[N]_l| / N``;
* ABBR (Definition 2): ``abbr(l) = avg([N]_l) / N``;
* consistency at threshold m (Definition 3):
  ``consistency(l, m) = |[N]_l ∩ {m, ..., N}| / |[N]_l|``;
* Lemma 3.1: ``abbr(l) = (1/N) sum_{m=1}^{N} consistency(l, m)``;
* ABBR interpolated at target support s (Section 4.1, eq. 9 and the display after it): with
  ``l_m`` the first m rules, ``m*`` such that ``supp(l_{m*}) <= s < supp(l_{m*+1})`` and
  ``alpha = supp(l_{m*}) / s``,
  ``abbr(l, s) = (1/N) [alpha avg([N]_{l_{m*}}) + (1 - alpha) avg([N]_{l_{m*+1}} minus [N]_{l_{m*}})]``.
  Footnote 1's edge cases: ``l_0`` covers nothing (so ``m* = 0`` gives ``alpha = 0``) and a
  dummy rule ``r_{M+1}`` covers every sample (so a list whose support stays below s is
  completed by the samples it does not cover);
* optimality ratio (eq. 12): ``(abbr(l, s) - 0.5) / (1 - s/2 - 0.5)``.

Tie rule for ranks: samples with equal predicted probability are ranked by their position in
the input, the earlier sample receiving the lower rank (a stable sort). Ranks are therefore the
integers 1..N, as Lemma 3.1 requires.

Checklists: a checklist with conditions ``c_1..c_K`` and threshold t is read as the nested
rule list whose prefixes are "at least K", "at least K-1", ..., "at least t" conditions
satisfied, so that its ABBR at support s is the interpolation above over these nested sets;
the threshold chosen by Checklist Search is ``argmax_t abbr(k_t, s)`` (Algorithm 2, line 24),
ties going to the largest t.

Every function has a from-scratch reference twin (suffix ``_reference``) written with plain
loops, used by the tests to check the vectorized versions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interpretopt._validation import check_in_range
from interpretopt.exceptions import InputError

__all__ = [
    "Interpolation",
    "rank_scores",
    "support",
    "abbr",
    "consistency",
    "consistency_at_probability",
    "CHECKLIST_READINGS",
    "prefix_stats",
    "interpolate_prefix_stats",
    "abbr_at_support",
    "abbr_at_support_detail",
    "checklist_level_stats",
    "checklist_abbr_at_support",
    "optimality_ratio",
    "max_abbr_at_support",
    "rank_scores_reference",
    "abbr_reference",
    "consistency_reference",
    "abbr_at_support_reference",
    "checklist_abbr_at_support_reference",
]

_TOL = 1e-9


@dataclass(frozen=True)
class Interpolation:
    """Result of the interpolation of Section 4.1.

    Attributes
    ----------
    value : abbr(l, s).
    m_star : m* of eq. 9 (0..M; M means the dummy rule supplies the remainder).
    alpha : supp(l_{m*}) / s.
    n_used : number of rules the value depends on (m* + 1, capped at M): the truncation length.
    """

    value: float
    m_star: int
    alpha: float
    n_used: int


# ---------------------------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------------------------

def check_support_target(s) -> float:
    """The target support s must lie in the open interval (0, 1)."""
    return check_in_range("target support s", s, 0.0, 1.0, low_open=True, high_open=True)


def _as_ranks(ranks) -> np.ndarray:
    """``ranks`` checked to be a permutation of 1..N (Section 3: the rank of each sample)."""
    r = np.asarray(ranks)
    if r.ndim != 1 or r.size == 0:
        raise InputError(f"ranks must be a non-empty 1-D array, got shape {r.shape}")
    n = r.size
    if r.dtype == bool or not (np.issubdtype(r.dtype, np.integer) or np.issubdtype(r.dtype, np.floating)):
        raise InputError(f"ranks must be integers 1..N, got dtype {r.dtype}")
    if np.issubdtype(r.dtype, np.floating):
        if not np.isfinite(r).all() or not np.all(r == np.round(r)):
            bad = r[~np.isfinite(r) | (r != np.round(r))][:3].tolist()
            raise InputError(f"ranks must be the integers 1..N = 1..{n}, got non-integer values such as {bad}; "
                             "to rank predicted probabilities pass scores=... (or use rank_scores)")
        r = r.astype(np.int64)
    if r.min() < 1 or r.max() > n:
        raise InputError(f"ranks must be a permutation of 1..N = 1..{n}, got values in {r.min()}..{r.max()}; "
                         "to rank predicted probabilities pass scores=... (or use rank_scores)")
    seen = np.bincount(r, minlength=n + 1)[1:]
    if (seen != 1).any():
        dup = (np.flatnonzero(seen > 1) + 1)[:3].tolist()
        raise InputError(f"ranks must be a permutation of 1..N = 1..{n}; ranks {dup} occur more than once "
                         "(ties are broken before ranking: use rank_scores or pass scores=...)")
    return r


def _ranks_of(ranks, scores) -> np.ndarray:
    """Ranks given, or computed from scores with the documented tie rule; exactly one of the two."""
    if scores is not None:
        if ranks is not None:
            raise InputError("give ranks or scores, not both")
        return rank_scores(scores)
    if ranks is None:
        raise InputError("give the black box's ranks (1..N) or its scores (scores=...)")
    return _as_ranks(ranks)


def _check_count(name: str, value, low: int, high: int | None) -> int:
    """An integer (not a bool, not a fraction) in ``[low, high]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, float, np.floating)):
        raise InputError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, (float, np.floating)) and (not np.isfinite(value) or value != int(value)):
        raise InputError(f"{name} must be an integer, got {value!r}"
                         + ("; for a probability threshold use consistency_at_probability"
                            if name.startswith("rank threshold") else ""))
    v = int(value)
    if v < low or (high is not None and v > high):
        rng = f"{low}..{high}" if high is not None else f">= {low}"
        raise InputError(f"{name} must be in {rng}, got {v}")
    return v


def _as_cover(cover, n: int, name: str = "cover") -> np.ndarray:
    c = np.asarray(cover)
    if c.dtype != bool:
        if not np.isin(c, [0, 1]).all():
            raise InputError(f"{name} must be boolean (or 0/1), got values {np.unique(c)[:5].tolist()}")
        c = c.astype(bool)
    if c.shape[0] != n:
        raise InputError(f"{name} has {c.shape[0]} rows but there are {n} ranked samples")
    return c


# ---------------------------------------------------------------------------------------------
# ranks, support, ABBR, consistency
# ---------------------------------------------------------------------------------------------

def rank_scores(scores) -> np.ndarray:
    """Rank of each sample under the black box: 1 = lowest probability, N = highest.

    Ties are broken by position: among equal scores the earlier sample gets the lower rank.

    Parameters
    ----------
    scores : array (N,) of predicted probabilities of class 1 (any real scores work).

    Returns
    -------
    int64 array (N,) holding a permutation of 1..N.
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim == 2 and s.shape[1] == 2:
        s = s[:, 1]
    if s.ndim != 1 or s.size == 0:
        raise InputError(f"scores must be a non-empty 1-D array of probabilities, got shape {s.shape}")
    if not np.isfinite(s).all():
        raise InputError("scores contain NaN or infinite values")
    order = np.argsort(s, kind="stable")
    ranks = np.empty(s.size, dtype=np.int64)
    ranks[order] = np.arange(1, s.size + 1)
    return ranks


def support(cover) -> float:
    """Definition 1: fraction of samples covered."""
    c = np.asarray(cover, dtype=bool)
    return float(c.mean()) if c.size else 0.0


def abbr(cover, ranks=None, *, scores=None) -> float:
    """Definition 2: average rank of the covered samples divided by N (0.0 when nothing is covered,
    as footnote 1 sets for the empty list).

    Give ``ranks`` (a permutation of 1..N) or ``scores`` (the black box's probabilities,
    ranked inside by :func:`rank_scores`).
    """
    r = _ranks_of(ranks, scores)
    c = _as_cover(cover, r.size)
    k = int(np.count_nonzero(c))
    if k == 0:
        return 0.0
    return float(r[c].sum()) / (k * r.size)


def consistency(cover, ranks=None, m: int | None = None, *, scores=None) -> float:
    """Definition 3: share of the covered samples whose rank is at least m (0.0 when nothing is covered).

    ``m`` is a rank threshold, an integer in 1..N; for a threshold on the predicted
    probability use :func:`consistency_at_probability`.
    """
    r = _ranks_of(ranks, scores)
    if m is None:
        raise InputError("give the rank threshold m (an integer in 1..N)")
    m = _check_count("rank threshold m", m, 1, r.size)
    c = _as_cover(cover, r.size)
    k = int(np.count_nonzero(c))
    if k == 0:
        return 0.0
    return float(np.count_nonzero(r[c] >= m)) / k


def consistency_at_probability(cover, scores, p: float) -> float:
    """Consistency with the black box's 0/1 predictions at probability threshold p (Appendix A).

    The share of the covered samples predicted 1, i.e. with ``score > p`` (0.0 when nothing is
    covered); ``p`` in [0, 1].
    """
    sc = np.asarray(scores, dtype=float)
    if sc.ndim == 2 and sc.shape[1] == 2:
        sc = sc[:, 1]
    if sc.ndim != 1 or sc.size == 0 or not np.isfinite(sc).all():
        raise InputError(f"scores must be a non-empty 1-D array of finite probabilities, got shape {sc.shape}")
    p = check_in_range("probability threshold p", p, 0.0, 1.0)
    c = _as_cover(cover, sc.size)
    k = int(np.count_nonzero(c))
    if k == 0:
        return 0.0
    return float(np.count_nonzero(sc[c] > p)) / k


# ---------------------------------------------------------------------------------------------
# interpolation at a target support
# ---------------------------------------------------------------------------------------------

def prefix_stats(rule_covers, ranks=None, *, scores=None) -> tuple[np.ndarray, np.ndarray]:
    """Counts and rank sums of the nested prefixes l_0 .. l_M of a rule list.

    Parameters
    ----------
    rule_covers : bool array (N, M), column j = coverage of rule j (list order).
    ranks : int array (N,), a permutation of 1..N; or ``scores`` (ranked inside).

    Returns
    -------
    counts, rank_sums : arrays of length M + 1 (index 0 is the empty list l_0).
    """
    r = _ranks_of(ranks, scores)
    c = _as_cover(rule_covers, r.size, "rule_covers")
    if c.ndim == 1:
        c = c[:, None]
    union = np.logical_or.accumulate(c, axis=1) if c.shape[1] else c
    counts = np.concatenate([[0], union.sum(axis=0)]).astype(np.int64)
    sums = np.concatenate([[0], r.astype(np.int64) @ union]).astype(np.int64) if c.shape[1] else np.zeros(1, np.int64)
    return counts, sums


def interpolate_prefix_stats(counts, rank_sums, n: int, s: float) -> Interpolation:
    """Interpolated ABBR at support s from the prefix statistics of a rule list.

    ``counts[m]`` and ``rank_sums[m]`` describe l_m for m = 0..M with ``counts[0] = 0``; the
    dummy rule l_{M+1} (all samples, rank sum N(N+1)/2) is appended here (footnote 1).
    """
    counts = np.asarray(counts)
    sums = np.asarray(rank_sums)
    M = counts.size - 1
    target = s * n
    # m* = largest m in 0..M with |l_m| <= sN (counts are non-decreasing)
    m_star = int(np.searchsorted(counts, target + _TOL, side="right")) - 1
    c_a, s_a = float(counts[m_star]), float(sums[m_star])
    if m_star < M:
        c_b, s_b = float(counts[m_star + 1]), float(sums[m_star + 1])
    else:
        c_b, s_b = float(n), n * (n + 1) / 2.0
    inc = c_b - c_a
    tail = (target - c_a) * (s_b - s_a) / inc if inc > 0 else 0.0
    value = (s_a + tail) / (target * n)
    return Interpolation(value=float(value), m_star=m_star, alpha=c_a / target, n_used=min(m_star + 1, M))


def abbr_at_support_detail(rule_covers, ranks=None, s: float | None = None, *, scores=None) -> Interpolation:
    """:func:`abbr_at_support` with m*, alpha and the truncation length."""
    if s is None:
        raise InputError("give the target support s in (0, 1)")
    s = check_support_target(s)
    r = _ranks_of(ranks, scores)
    counts, sums = prefix_stats(rule_covers, r)
    return interpolate_prefix_stats(counts, sums, r.size, s)


def abbr_at_support(rule_covers, ranks=None, s: float | None = None, *, scores=None) -> float:
    """ABBR of a rule list interpolated at target support s (Section 4.1, footnote 1).

    Parameters
    ----------
    rule_covers : bool array (N, M): coverage of each rule, in list order.
    ranks : int array (N,): black-box ranks, a permutation of 1..N (:func:`rank_scores`);
        or ``scores``: the black box's probabilities, ranked inside.
    s : target support in (0, 1).
    """
    return abbr_at_support_detail(rule_covers, ranks, s, scores=scores).value


def checklist_level_stats(counts_per_sample, ranks, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Prefix statistics of the nested checklist levels "at least K", ..., "at least 1".

    Returns arrays of length K + 1: index 0 is the empty set, index m is "at least K - m + 1".
    """
    k = np.asarray(counts_per_sample, dtype=np.int64)
    r = np.asarray(ranks, dtype=np.float64)
    cnt = np.bincount(k, minlength=K + 1)[: K + 1]
    sm = np.bincount(k, weights=r, minlength=K + 1)[: K + 1]
    # levels K, K-1, ..., 1 -> cumulative from the top
    counts = np.concatenate([[0], np.cumsum(cnt[:0:-1])])
    sums = np.concatenate([[0.0], np.cumsum(sm[:0:-1])])
    return counts, sums


#: how a checklist's ABBR at support s is read (see :func:`checklist_abbr_at_support`)
CHECKLIST_READINGS = ("set", "nested")


def checklist_abbr_at_support(counts_per_sample, ranks, s: float, K: int, t: int | None = None,
                              reading: str = "set") -> tuple[float, int]:
    """ABBR at support s of a checklist with K conditions.

    Parameters
    ----------
    counts_per_sample : int array (N,): how many of the K conditions each sample satisfies.
    ranks : int array (N,).
    s : target support in (0, 1).
    K : number of conditions.
    t : threshold; ``None`` chooses ``argmax_t abbr(k_t, s)`` (ties to the largest t).
    reading : ``"set"`` (default) or ``"nested"``.
        ``"set"``: the checklist k_t is one set, "at least t of K" (Section 3.1.4), and
        ``abbr(k_t, s)`` is the interpolation of Section 4.1 for that set as a rule list of
        length 1 (footnote 1: when it covers less than s the remainder comes from the samples
        it does not cover). The argmax over t then lands on a level whose support is close
        to s, which is what the rendered "at least t" covers; this matches the paper's
        Figure 7, whose checklists have support 0.095-0.135 at s = 0.1.
        ``"nested"``: the levels "at least K", ..., "at least t" as nested prefixes of a rule
        list; the value at s then mixes level t+1 with part of level t while "at least t"
        itself covers far more than s (measured on adult: 0.39-0.58 of the test rows).

    Returns
    -------
    (value, t)
    """
    s = check_support_target(s)
    if reading not in CHECKLIST_READINGS:
        raise InputError(f"unknown checklist reading {reading!r}; valid: {CHECKLIST_READINGS}")
    r = _as_ranks(ranks)
    n = r.size
    k = np.asarray(counts_per_sample)
    if k.shape != (n,):
        raise InputError(f"counts_per_sample must have one value per ranked sample ({n}), got shape {k.shape}")
    K = _check_count("K", K, 1, None)
    if k.size and (k.min() < 0 or k.max() > K):
        raise InputError(f"counts_per_sample must lie in 0..K = 0..{K}, got values in {k.min()}..{k.max()}")
    if t is not None:
        t = _check_count("threshold t", t, 1, K)
    counts, sums = checklist_level_stats(k, r, K)
    return _checklist_best(counts, sums, n, s, K, t, reading=reading)


def _checklist_value(counts, sums, n, s, K, t, reading) -> float:
    m = K - t + 1  # prefixes l_0 .. l_m are the levels K .. t
    if reading == "set":
        return interpolate_prefix_stats(counts[[0, m]], sums[[0, m]], n, s).value
    return interpolate_prefix_stats(counts[: m + 1], sums[: m + 1], n, s).value


def _set_values(counts, sums, n, s, K) -> list:
    """``_checklist_value(..., t, "set")`` for t = K, K-1, ..., 1 at once (the same float operations
    in the same order as :func:`interpolate_prefix_stats` on the list ``[level t]``)."""
    target = s * n
    c = np.asarray(counts[1: K + 1], dtype=np.float64)
    sm = np.asarray(sums[1: K + 1], dtype=np.float64)
    within = c <= target + _TOL  # m* = 1: the set covers at most s, completed by the dummy rule
    c_a = np.where(within, c, 0.0)
    s_a = np.where(within, sm, 0.0)
    c_b = np.where(within, float(n), c)
    s_b = np.where(within, n * (n + 1) / 2.0, sm)
    inc = c_b - c_a
    with np.errstate(invalid="ignore", divide="ignore"):
        tail = np.where(inc > 0, (target - c_a) * (s_b - s_a) / inc, 0.0)
    return ((s_a + tail) / (target * n)).tolist()


def _checklist_best(counts, sums, n, s, K, t=None, reading: str = "set") -> tuple[float, int]:
    if t is not None:
        return _checklist_value(counts, sums, n, s, K, t, reading), int(t)
    best_v, best_t = -np.inf, K
    values = _set_values(counts, sums, n, s, K) if reading == "set" else None
    for tt in range(K, 0, -1):
        v = values[K - tt] if values is not None else _checklist_value(counts, sums, n, s, K, tt, reading)
        if v > best_v + 1e-15:
            best_v, best_t = v, tt
    return float(best_v), int(best_t)


# ---------------------------------------------------------------------------------------------
# optimality ratio
# ---------------------------------------------------------------------------------------------

def max_abbr_at_support(s: float) -> float:
    """Largest ABBR attainable at support s, 1 - s/2 (Section 5.1)."""
    return 1.0 - check_support_target(s) / 2.0


def optimality_ratio(abbr_value: float, s: float) -> float:
    """Eq. 12: improvement over the naive 0.5 relative to the improvement of the ideal 1 - s/2."""
    s = check_support_target(s)
    return (float(abbr_value) - 0.5) / (1.0 - s / 2.0 - 0.5)


# ---------------------------------------------------------------------------------------------
# reference implementations (plain loops, from the definitions)
# ---------------------------------------------------------------------------------------------

def rank_scores_reference(scores) -> np.ndarray:
    s = [float(v) for v in np.asarray(scores, dtype=float)]
    n = len(s)
    ranks = np.zeros(n, dtype=np.int64)
    for i in range(n):
        # samples strictly below, plus equal ones that come earlier, plus itself
        ranks[i] = 1 + sum(1 for j in range(n) if s[j] < s[i] or (s[j] == s[i] and j < i))
    return ranks


def abbr_reference(cover, ranks) -> float:
    covered = [int(r) for c, r in zip(np.asarray(cover, dtype=bool), ranks) if c]
    n = len(ranks)
    return sum(covered) / len(covered) / n if covered else 0.0


def consistency_reference(cover, ranks, m: int) -> float:
    covered = [int(r) for c, r in zip(np.asarray(cover, dtype=bool), ranks) if c]
    return sum(1 for r in covered if r >= m) / len(covered) if covered else 0.0


def abbr_at_support_reference(rule_covers, ranks, s: float) -> float:
    """Eq. 9 and Section 4.1 written out literally with Python sets."""
    covers = np.asarray(rule_covers, dtype=bool)
    if covers.ndim == 1:
        covers = covers[:, None]
    n = len(ranks)
    M = covers.shape[1]
    prefixes = [set()]
    for j in range(M):
        prefixes.append(prefixes[-1] | {i for i in range(n) if covers[i, j]})
    prefixes.append(set(range(n)))  # dummy rule r_{M+1}
    m_star = max(m for m in range(M + 1) if len(prefixes[m]) / n <= s + _TOL)
    a, b = prefixes[m_star], prefixes[m_star + 1]
    alpha = (len(a) / n) / s
    avg_a = sum(int(ranks[i]) for i in a) / len(a) if a else 0.0
    inc = b - a
    avg_inc = sum(int(ranks[i]) for i in inc) / len(inc)
    return (alpha * avg_a + (1 - alpha) * avg_inc) / n


def checklist_abbr_at_support_reference(condition_covers, ranks, s: float, t: int | None = None,
                                        reading: str = "set") -> tuple[float, int]:
    covers = np.asarray(condition_covers, dtype=bool)
    K = covers.shape[1]
    count = covers.sum(axis=1)
    candidates = [t] if t is not None else list(range(K, 0, -1))
    best = (-np.inf, K)
    for tt in candidates:
        if reading == "set":
            levels = (count >= tt)[:, None]
        else:
            levels = np.stack([count >= lev for lev in range(K, tt - 1, -1)], axis=1)
        v = abbr_at_support_reference(levels, ranks, s)
        if v > best[0] + 1e-15:
            best = (v, tt)
    return float(best[0]), int(best[1])
