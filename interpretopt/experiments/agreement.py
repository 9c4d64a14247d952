"""The agreement rule: when does a number of ours agree with the paper's? Written down once.

Every published cell that we have a number for is judged by :func:`judge`, which returns a
:class:`Judgement` (``verdict``, the ``rule`` that decided it, the ``tolerance`` it used and
a one-line ``detail``). The verdicts are

* ``agrees``: within the rule's band (or the same decision, for a p-value or a mark);
* ``differs``: outside it;
* ``partial``: not judged, the cell is made from fewer runs than the scale plans (a table
  run in part must not count as a reproduction, in either direction).

The rules, by the kind of cell (:func:`cell_kind`; reasons in ``docs/agreement.md``):

``welch``
    Where either side prints a spread (the paper's std with its number of repetitions
    ``n_p``; ours: the sample std of our ``n_o`` runs), the difference of the two means is
    judged against its standard error, as in Welch's test::

        |ours - paper| <= K_SIGMA * sqrt(s_p^2 / n_p + s_o^2 / n_o)

    A side without a spread of its own borrows the other's (both sides run the same
    protocol, so they have about the same per-run spread); a paper without a stated number
    of repetitions counts as one (the widest band its std allows). The band is never
    narrower than half the last digit the paper prints in the table (:func:`table_resolution`).
``absolute``
    Where neither side has a spread (one run of ours, no std printed), a fixed band in the
    cell's own unit (:data:`ABSOLUTE_TOLERANCE`: 0.03 for a fraction, 3 points for a
    percentage, half a rank), or the band the config states (``reference.tolerance``).
``relative``
    Counts and other unbounded quantities (leaves, rules, seconds) without a spread on
    either side: within :data:`RELATIVE_TOLERANCE` of the paper's value (at least one unit
    for a count): the spread of such counts over root seeds (MTRE-PAN depth-12 leaves:
    221-299 over three seeds, +-15% about their mean).
``decision``
    p-values and significance marks: the same decision at the paper's threshold
    (:data:`P_THRESHOLD`): both below it or both at or above it.
``share``
    Win counts (``# imd greater``: rows out of all rows): the two shares, ours ``k_o/N_o``
    and the paper's ``k_p/N_p``, within ``K_SIGMA`` standard errors of a two-proportion
    test (pooled share), so that a count over fewer rows is judged by its share, not its
    size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["K_SIGMA", "P_THRESHOLD", "RELATIVE_TOLERANCE", "ABSOLUTE_TOLERANCE", "UNITS", "KINDS", "VERDICTS",
           "Side", "Judgement", "judge", "cell_kind", "infer_unit", "printed_resolution", "table_resolution",
           "RULE_TEXT"]

K_SIGMA = 2.0
"""Standard errors of the difference within which two means agree (about 95% two-sided)."""
P_THRESHOLD = 0.05
"""The significance threshold the papers use (IMD's Wilcoxon tests, CRL's bold marks)."""
RELATIVE_TOLERANCE = 0.15
"""The band of a count or unbounded quantity without a spread, relative to the paper's value."""
ABSOLUTE_TOLERANCE = {"fraction": 0.03, "percent": 3.0, "rank": 0.5}
"""The band of a cell without a spread on either side, in the cell's unit."""
UNITS = ("fraction", "percent", "rank", "count", "quantity")
KINDS = UNITS + ("pvalue", "mark", "wins")
VERDICTS = ("agrees", "differs", "partial")

RULE_TEXT = (f"A compared cell agrees when |ours - paper| <= {K_SIGMA:g} x sqrt(s_p^2/n_p + s_o^2/n_o) where either "
             "side has a spread (a side without one borrows the other's); where neither has one, within "
             f"{ABSOLUTE_TOLERANCE['fraction']} for a fraction, {ABSOLUTE_TOLERANCE['percent']:g} points for a "
             f"percentage, {ABSOLUTE_TOLERANCE['rank']} for a rank, {RELATIVE_TOLERANCE:.0%} of the paper's value "
             f"for a count; p-values and significance marks agree when they take the same decision at "
             f"{P_THRESHOLD}; win counts are compared as shares of their rows; a cell made from fewer runs than "
             "the scale plans is partial, not judged (docs/agreement.md).")


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a mean, the std of the runs it is the mean of, and their number."""

    value: float
    std: float | None = None
    n: int | None = None
    total: int | None = None  # win counts: the number of rows the count is out of

    def spread(self) -> float | None:
        """The std where it says something: printed (> 0; a printed 0 is a rounded small std) or over >= 2 runs."""
        s = self.std
        if s is None or not _finite(s) or s <= 0 or (self.n is not None and self.n < 2):
            return None
        return float(s)


@dataclass(frozen=True)
class Judgement:
    """The verdict on one cell, the rule that gave it and the band it used (``nan`` for a decision)."""

    verdict: str
    rule: str
    tolerance: float = math.nan
    detail: str = ""

    @property
    def agrees(self) -> bool | None:
        """``True`` / ``False`` for a judged cell, ``None`` for a partial one."""
        return None if self.verdict == "partial" else self.verdict == "agrees"


def _finite(x) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def printed_resolution(value: float) -> float:
    """Half the last digit printed in ``value`` as written in the config (0.926 -> 0.0005, 15 -> 0.5).

    A band narrower than this would ask for agreement in digits the paper rounded away.
    """
    if not _finite(value):
        return 0.0
    text = repr(float(value))
    if "e" in text:
        mant, _, exp = text.partition("e")
        decimals = len(mant.partition(".")[2].rstrip("0")) - int(exp)
    else:
        decimals = len(text.partition(".")[2].rstrip("0"))
    return 0.5 * 10.0 ** (-max(decimals, 0))


def table_resolution(values) -> float:
    """Half the last digit printed in a table: the finest :func:`printed_resolution` of its values
    (a paper prints a column with one number of decimals; a config loses trailing zeros, 0.90 -> 0.9)."""
    res = [printed_resolution(v) for v in values if _finite(v) and float(v) != 0.0]
    return min(res) if res else 0.0


def cell_kind(row_label: str, unit: str) -> str:
    """The kind of a published cell: its row label names a summary row (p-value, win count, % change,
    mean rank) or it is a cell of the table's metric, in ``unit``."""
    label = str(row_label)
    if label.startswith("p (") or label.startswith("p Holm ("):
        return "pvalue"
    if label.startswith("# ") and label.endswith(" greater"):
        return "wins"
    if label.startswith("% change from "):
        return "percent"
    if label == "mean rank":
        return "rank"
    return unit


_COUNT_WORDS = ("count", "n_", "leaves", "leaf", "rules", "literals", "conditions", "predicates", "diffs",
                "timeouts", "n_boundary")


def infer_unit(metric: str, values, *, declared: str | None = None) -> str:
    """The unit of a table's metric cells: ``declared`` (the reference's ``unit``) when given; ``count``
    for a metric that counts things (leaves, rules, ...); ``fraction`` when every published value lies in
    [0, 1]; else ``quantity``. A ``mean_rank`` table's cells hold its metric too (the ranks are in its
    ``mean rank`` row, of kind ``rank``: :func:`cell_kind`), so ``values`` are the metric's, without the
    summary rows."""
    if declared is not None:
        if declared not in UNITS:
            raise ValueError(f"unknown unit {declared!r}; valid units: {', '.join(UNITS)}")
        return declared
    m = str(metric).lower()
    if any(w in m for w in _COUNT_WORDS):
        return "count"
    vals = [float(v) for v in values if _finite(v)]
    if vals and all(0.0 <= v <= 1.0 for v in vals):
        return "fraction"
    return "quantity"


def judge(kind: str, paper: Side, ours: Side, *, planned_n: int | None = None,
          tolerance: float | None = None, threshold: float = P_THRESHOLD, resolution: float | None = None) -> Judgement:
    """Judge one compared cell (see the module docstring for the rules).

    Parameters
    ----------
    kind : str
        One of :data:`KINDS` (:func:`cell_kind`).
    paper, ours : Side
        The paper's value (its printed std, its number of repetitions) and ours (the std and
        number of our runs; ``total`` = rows a win count is out of).
    planned_n : int or None
        Runs the scale plans for this cell; fewer in ``ours.n`` makes the cell ``partial``.
    tolerance : float or None
        An absolute band the config states (``reference.tolerance``), used in place of the
        unit's default where neither side has a spread.
    threshold : float
        The paper's significance threshold (p-values, marks).
    resolution : float or None
        Half the last digit the paper prints in this cell's table (:func:`table_resolution`);
        default: from the paper's value alone (:func:`printed_resolution`).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown cell kind {kind!r}; valid kinds: {', '.join(KINDS)}")
    if planned_n is not None and ours.n is not None and ours.n < planned_n:
        return Judgement("partial", "partial", detail=f"made from {ours.n} of the {planned_n} runs this scale plans")
    if kind in ("pvalue", "mark"):
        return _decision(kind, paper, ours, threshold)
    if kind == "wins":
        return _share(paper, ours)
    return _band(kind, paper, ours, tolerance, resolution)


def _decision(kind: str, paper: Side, ours: Side, threshold: float) -> Judgement:
    if kind == "mark":  # a significance mark: 1 (marked significant) or 0
        sp, so = bool(paper.value), bool(ours.value)
    else:
        sp, so = paper.value < threshold, ours.value < threshold
    word = {True: f"< {threshold:g}", False: f">= {threshold:g}"}
    ok = sp == so
    return Judgement("agrees" if ok else "differs", "decision",
                     detail=f"paper {word[sp]}, ours {word[so]}" if kind == "pvalue" else
                     f"paper {'marked' if sp else 'not marked'}, ours {'marked' if so else 'not marked'}")


def _share(paper: Side, ours: Side) -> Judgement:
    if not paper.total or not ours.total:
        return _band("count", paper, ours, None)
    pp, po = paper.value / paper.total, ours.value / ours.total
    pooled = (paper.value + ours.value) / (paper.total + ours.total)
    se = math.sqrt(max(pooled * (1 - pooled), 0.0) * (1 / paper.total + 1 / ours.total))
    tol = max(K_SIGMA * se, 0.5 / ours.total)
    ok = abs(po - pp) <= tol + 1e-12
    return Judgement("agrees" if ok else "differs", "share", tol,
                     f"share {po:.3f} ({ours.value:g}/{ours.total}) vs {pp:.3f} ({paper.value:g}/{paper.total}), "
                     f"band {tol:.3f}")


def _band(kind: str, paper: Side, ours: Side, tolerance: float | None, resolution: float | None = None) -> Judgement:
    sp, so = paper.spread(), ours.spread()
    diff = ours.value - paper.value
    floor = printed_resolution(paper.value) if resolution is None else resolution
    if sp is not None or so is not None:
        sp, so = (sp if sp is not None else so), (so if so is not None else sp)
        n_p = paper.n if paper.n else 1
        n_o = ours.n if ours.n else 1
        tol = max(K_SIGMA * math.sqrt(sp ** 2 / n_p + so ** 2 / n_o), floor)
        rule = "welch"
    elif tolerance is not None:
        tol, rule = float(tolerance), "absolute"
    elif kind in ABSOLUTE_TOLERANCE:
        tol, rule = ABSOLUTE_TOLERANCE[kind], "absolute"
    else:  # count / quantity
        tol = RELATIVE_TOLERANCE * abs(paper.value)
        tol = max(tol, 1.0) if kind == "count" else max(tol, floor)
        rule = "relative"
    ok = abs(diff) <= tol + 1e-12
    return Judgement("agrees" if ok else "differs", rule, tol, f"|{diff:+.4g}| {'<=' if ok else '>'} {tol:.4g}")
