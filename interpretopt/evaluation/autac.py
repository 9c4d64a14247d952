"""Transparency, hybrid accuracy and the AUTAC of a companion rule list (Pan, Wang and Hara).

A companion rule list (CRL) is an ordered list of rules ``r_m = (d_m, z_m)`` paired with a
black box ``f_b``. A user who adopts the first ``m`` rules answers every input covered by
them (Definition 1: an input is covered by the first rule it satisfies) with the rule's
label ``z_k`` and every other input with ``f_b(x)``. On a data set ``D`` (Section 4.3):

    T_m = |S_m| / |D|                                   (transparency, Definition 2)
    A_m = ( sum_{S_m} 1[y = z_{k(x)}] + sum_{D \\ S_m} 1[y = f_b(x)] ) / |D|   (hybrid accuracy)
    AUTAC_M(R) = 1/2 sum_{m=1}^{M} (A_m + A_{m-1}) (T_m - T_{m-1})          (Proposition 4)

with ``T_0 = 0`` and ``A_0`` the black box's accuracy. Proposition 4 integrates the curve
over ``[0, T_M]``; :func:`autac` with ``complete=True`` continues the curve at ``A_M`` up to
``t = 1`` (beyond ``T_M`` the list has no further rule to offer, so the hybrid that uses the
whole list is what a user gets), which makes the black box alone score its accuracy and
lets lists that do and do not reach full transparency be compared on one scale.

Everything here is a from-scratch reference over boolean arrays: the search in
:mod:`interpretopt.methods.crl` computes the same numbers incrementally from bit-packed
coverage and is tested against these functions.

The stochastic CRL of Definition 3 makes every transparency ``t`` in ``[0, T_M]``
reachable in expectation; :func:`stochastic_crl_predict` implements it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interpretopt.exceptions import InputError

__all__ = [
    "TradeoffCurve",
    "first_cover_from_coverage",
    "tradeoff_curve",
    "autac",
    "autac_reference",
    "stochastic_crl_probabilities",
    "stochastic_crl_predict",
]


@dataclass(frozen=True)
class TradeoffCurve:
    """The points ``(T_m, A_m)``, m = 0..M, of a companion model and its areas.

    Attributes
    ----------
    transparency : float array (M+1,), ``T_0 = 0``.
    accuracy : float array (M+1,), ``A_0`` = black-box accuracy.
    autac : Proposition 4's area over ``[0, T_M]``.
    autac_completed : the area with the curve continued at ``A_M`` up to ``t = 1``.
    rule_cover : fraction of the data each rule covers (first-cover), (M,).
    rule_accuracy : accuracy of each rule on the samples it covers (nan when it covers none).
    blackbox_accuracy : accuracy of the black box on the samples each rule covers.
    """

    transparency: np.ndarray
    accuracy: np.ndarray
    autac: float
    autac_completed: float
    rule_cover: np.ndarray
    rule_accuracy: np.ndarray
    blackbox_accuracy: np.ndarray

    @property
    def n_rules(self) -> int:
        return len(self.transparency) - 1


def first_cover_from_coverage(coverage: np.ndarray) -> np.ndarray:
    """Index of the first rule (column) each row satisfies, -1 when none (Definition 1)."""
    coverage = np.asarray(coverage, dtype=bool)
    if coverage.ndim != 2:
        raise InputError(f"coverage must be a 2-D boolean array (n_samples, n_rules), got shape {coverage.shape}")
    if coverage.shape[1] == 0:
        return np.full(coverage.shape[0], -1, dtype=np.int64)
    first = np.argmax(coverage, axis=1).astype(np.int64)
    first[~coverage.any(axis=1)] = -1
    return first


def _check_inputs(first_cover, rule_labels, y, blackbox_pred):
    first_cover = np.asarray(first_cover, dtype=np.int64).ravel()
    rule_labels = np.asarray(rule_labels).ravel()
    y = np.asarray(y).ravel()
    blackbox_pred = np.asarray(blackbox_pred).ravel()
    n = len(y)
    if not (len(first_cover) == len(blackbox_pred) == n):
        raise InputError(
            f"first_cover ({len(first_cover)}), y ({n}) and blackbox_pred ({len(blackbox_pred)}) must have the same length"
        )
    if n == 0:
        raise InputError("the trade-off curve needs at least one sample")
    M = len(rule_labels)
    if first_cover.size and (first_cover.max() >= M or first_cover.min() < -1):
        raise InputError(f"first_cover values must lie in [-1, {M - 1}] for {M} rules")
    return first_cover, rule_labels, y, blackbox_pred


def tradeoff_curve(first_cover, rule_labels, y, blackbox_pred) -> TradeoffCurve:
    """Transparency-accuracy points of a companion rule list on labelled data.

    Parameters
    ----------
    first_cover : int array (n,), the rule covering each sample (-1: none).
    rule_labels : array (M,), ``z_m``.
    y : array (n,), true labels.
    blackbox_pred : array (n,), ``f_b(x)``.
    """
    first_cover, rule_labels, y, bb = _check_inputs(first_cover, rule_labels, y, blackbox_pred)
    n = len(y)
    M = len(rule_labels)
    bb_correct = bb == y
    T = np.zeros(M + 1)
    A = np.zeros(M + 1)
    A[0] = bb_correct.mean()
    covered = np.zeros(n, dtype=bool)
    rule_correct_total = 0
    cover = np.zeros(M)
    racc = np.full(M, np.nan)
    bacc = np.full(M, np.nan)
    for m in range(M):
        mine = first_cover == m
        covered |= mine
        hits = int(np.sum(y[mine] == rule_labels[m]))
        rule_correct_total += hits
        T[m + 1] = covered.mean()
        A[m + 1] = (rule_correct_total + int(np.sum(bb_correct[~covered]))) / n
        k = int(mine.sum())
        cover[m] = k / n
        if k:
            racc[m] = hits / k
            bacc[m] = bb_correct[mine].mean()
    return TradeoffCurve(T, A, autac(T, A), autac(T, A, complete=True), cover, racc, bacc)


def autac(transparency, accuracy, *, complete: bool = False) -> float:
    """Area under the transparency-accuracy curve by trapezoids (Proposition 4).

    Parameters
    ----------
    transparency, accuracy : arrays (M+1,) starting at ``(0, A_0)``, transparency non-decreasing.
    complete : continue the curve at the last accuracy up to transparency 1.
    """
    T = np.asarray(transparency, dtype=float)
    A = np.asarray(accuracy, dtype=float)
    if T.shape != A.shape or T.ndim != 1 or len(T) == 0:
        raise InputError(f"transparency and accuracy must be 1-D arrays of the same length, got {T.shape} and {A.shape}")
    if np.any(np.diff(T) < -1e-12):
        raise InputError("transparency must be non-decreasing along the rule list")
    area = float(0.5 * np.sum((A[1:] + A[:-1]) * np.diff(T)))
    if complete:
        area += float(A[-1] * (1.0 - T[-1]))
    return area


def autac_reference(coverage, rule_labels, y, blackbox_pred, *, alpha: float = 0.0, complete: bool = False) -> float:
    """From-scratch objective ``O_{M,alpha}(R) = AUTAC_M(R) - alpha M`` (eq. 4).

    Follows the definitions literally: ``covers(r_m, x)`` of eq. (1) by an explicit loop over
    the previous rules, ``S_m`` as the union of covers, then ``T_m``, ``A_m`` and the trapezoids.

    Parameters
    ----------
    coverage : bool array (n, M), ``d_m(x)`` for the rules in list order.
    """
    coverage = np.asarray(coverage, dtype=bool)
    y = np.asarray(y).ravel()
    bb = np.asarray(blackbox_pred).ravel()
    rule_labels = np.asarray(rule_labels).ravel()
    n, M = coverage.shape
    T_prev, A_prev = 0.0, float(np.mean(bb == y))
    area = 0.0
    S = np.zeros(n, dtype=bool)
    pred = bb.copy()
    for m in range(M):
        covers_m = coverage[:, m].copy()
        for k in range(m):
            covers_m &= ~coverage[:, k]
        S |= covers_m
        pred = np.where(covers_m, rule_labels[m], pred)
        T_m = S.sum() / n
        A_m = float(np.sum(np.where(S, pred, bb) == y)) / n
        area += 0.5 * (A_m + A_prev) * (T_m - T_prev)
        T_prev, A_prev = T_m, A_m
    if complete:
        area += A_prev * (1.0 - T_prev)
    return area - alpha * M


def _stochastic_setup(first_cover, transparency, t):
    T = np.asarray(transparency, dtype=float)
    if not (0.0 <= t <= 1.0):
        raise InputError(f"transparency t must lie in [0, 1], got {t}")
    M = len(T) - 1
    t_eff = min(t, T[-1])
    # m^t = max{m : T_m <= t}; ties (rules covering nothing) resolve to the largest such m
    m_t = int(np.searchsorted(T, t_eff + 1e-15, side="right") - 1)
    if m_t >= M:
        return m_t, 0.0
    gap = T[m_t + 1] - T[m_t]
    q = 0.0 if gap <= 0 else (t_eff - T[m_t]) / gap
    return m_t, float(min(max(q, 0.0), 1.0))


def stochastic_crl_probabilities(first_cover, transparency, t: float) -> np.ndarray:
    """Probability that the stochastic CRL of Definition 3 answers each sample by a rule.

    Samples covered by rules ``1..m^t`` always get the rule, samples first covered by rule
    ``m^t + 1`` get it with probability ``q_t``, the rest go to the black box. The mean over
    the samples the curve was computed on is exactly ``t`` (for ``t <= T_M``; larger ``t``
    is capped at ``T_M``, the most a list can offer).
    """
    first_cover = np.asarray(first_cover, dtype=np.int64).ravel()
    m_t, q = _stochastic_setup(first_cover, transparency, t)
    p = np.zeros(len(first_cover))
    p[(first_cover >= 0) & (first_cover < m_t)] = 1.0
    p[first_cover == m_t] = q  # rule index m_t (0-based) is the paper's rule m^t + 1
    return p


def stochastic_crl_predict(first_cover, rule_labels, blackbox_pred, transparency, t: float, rng) -> np.ndarray:
    """Predictions of the stochastic CRL with transparency ``t`` (Definition 3).

    One uniform ``epsilon`` is drawn per input; a sample first covered by rule ``m^t + 1``
    receives that rule's label when ``q_t > epsilon`` and the black box's answer otherwise.
    (The paper prints ``z_{m^t}`` in that branch; the label of the rule that covers the
    sample, ``z_{m^t + 1}``, is what makes the prediction a rule-list prediction.)
    """
    first_cover = np.asarray(first_cover, dtype=np.int64).ravel()
    rule_labels = np.asarray(rule_labels).ravel()
    bb = np.asarray(blackbox_pred).ravel()
    p = stochastic_crl_probabilities(first_cover, transparency, t)
    use_rule = rng.random(len(first_cover)) < p
    out = bb.copy()
    idx = np.flatnonzero(use_rule)
    out[idx] = rule_labels[first_cover[idx]]
    return out
