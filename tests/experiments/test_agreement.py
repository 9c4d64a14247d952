"""The agreement rule: one test per case of docs/agreement.md."""

from __future__ import annotations

import math

import pytest

from interpretopt.experiments import agreement as A
from interpretopt.experiments.agreement import Side, judge


def test_welch_uses_both_sides_spread_and_run_counts():
    # paper 0.898 +- 0.008 over 5 folds; ours 0.880 +- 0.020 over 5 runs: band 2 sqrt(0.008^2/5 + 0.02^2/5) = 0.0193
    j = judge("fraction", Side(0.898, 0.008, 5), Side(0.880, 0.020, 5))
    assert j.rule == "welch"
    assert j.tolerance == pytest.approx(A.K_SIGMA * math.sqrt(0.008 ** 2 / 5 + 0.02 ** 2 / 5))
    assert j.verdict == "agrees"
    assert judge("fraction", Side(0.898, 0.008, 5), Side(0.870, 0.020, 5)).verdict == "differs"


def test_more_runs_narrow_the_band():
    few = judge("fraction", Side(0.52, 0.1, 5), Side(0.45, 0.1, 2))
    many = judge("fraction", Side(0.52, 0.1, 100), Side(0.45, 0.1, 100))
    assert many.tolerance < few.tolerance
    assert few.verdict == "agrees" and many.verdict == "differs"


def test_a_side_without_spread_borrows_the_others():
    # one run of ours (no std): our run is judged with the paper's per-run spread
    j = judge("fraction", Side(0.70, 0.04, 5), Side(0.64, None, 1))
    assert j.rule == "welch"
    assert j.tolerance == pytest.approx(A.K_SIGMA * math.sqrt(0.04 ** 2 / 5 + 0.04 ** 2 / 1))
    assert j.verdict == "agrees"  # 0.06 <= 0.0876: a single run varies as much as one of the paper's folds


def test_our_spread_judges_a_count_the_paper_prints_without_std():
    # MTRE-PAN leaves: the paper 259, ours over 3 seeds 221, 262, 299 (mean 260.7, std 39)
    j = judge("count", Side(259.0, None, 1), Side(195.0, 39.0, 3))
    assert j.rule == "welch" and j.tolerance > 50
    assert j.verdict == "agrees"
    assert judge("count", Side(259.0, None, 1), Side(100.0, 39.0, 3)).verdict == "differs"


def test_a_printed_std_of_zero_is_no_spread():
    j = judge("fraction", Side(0.96, 0.0, 5), Side(0.95, None, 1))
    assert j.rule == "absolute" and j.tolerance == A.ABSOLUTE_TOLERANCE["fraction"]


@pytest.mark.parametrize("kind, paper, near, far", [
    ("fraction", 0.80, 0.82, 0.85),      # 0.03 absolute
    ("percent", 85.0, 87.5, 89.0),      # 3 points, not 0.03 points
    ("rank", 3.2, 3.6, 3.8),            # half a rank
])
def test_absolute_band_only_without_any_spread_in_the_cells_unit(kind, paper, near, far):
    assert judge(kind, Side(paper), Side(near, None, 1)).verdict == "agrees"
    j = judge(kind, Side(paper), Side(far, None, 1))
    assert j.rule == "absolute" and j.verdict == "differs"
    assert j.tolerance == A.ABSOLUTE_TOLERANCE[kind]


def test_the_configs_tolerance_replaces_the_units_band():
    j = judge("percent", Side(85.0), Side(89.0, None, 1), tolerance=5.0)
    assert j.tolerance == 5.0 and j.verdict == "agrees"


def test_a_count_without_spread_is_judged_relative_not_exact():
    j = judge("count", Side(259.0), Side(230.0, None, 1))
    assert j.rule == "relative" and j.tolerance == pytest.approx(A.RELATIVE_TOLERANCE * 259)
    assert j.verdict == "agrees"
    assert judge("count", Side(259.0), Side(195.0, None, 1)).verdict == "differs"
    assert judge("count", Side(3.0), Side(4.0, None, 1)).tolerance == 1.0  # at least one unit


@pytest.mark.parametrize("paper, ours, verdict", [
    (3.06e-11, 0.001, "agrees"),   # both significant
    (0.20, 0.51, "agrees"),        # both not
    (0.04, 0.06, "differs"),       # +-0.03 would pass this; the decision differs
    (0.06, 0.049, "differs"),
])
def test_pvalues_agree_by_the_decision_at_the_papers_threshold(paper, ours, verdict):
    j = judge("pvalue", Side(paper), Side(ours, None, 1))
    assert j.rule == "decision" and j.verdict == verdict and math.isnan(j.tolerance)


def test_significance_marks_agree_by_the_same_mark():
    assert judge("mark", Side(1.0), Side(1.0)).verdict == "agrees"
    assert judge("mark", Side(1.0), Side(0.0)).verdict == "differs"


def test_win_counts_are_compared_as_shares_of_their_rows():
    # the paper: IMD greater on 15 of 90 rows; ours on 3 of 18 (the same share) and on 12 of 18
    assert judge("wins", Side(15, total=90), Side(3, total=18)).verdict == "agrees"
    j = judge("wins", Side(15, total=90), Side(12, total=18))
    assert j.rule == "share" and j.verdict == "differs"


def test_a_cell_made_from_fewer_runs_than_planned_is_partial():
    j = judge("fraction", Side(0.9, 0.01, 5), Side(0.9, 0.01, 28), planned_n=450)
    assert j.verdict == "partial" and j.agrees is None
    assert judge("fraction", Side(0.9, 0.01, 5), Side(0.9, 0.01, 450), planned_n=450).verdict == "agrees"


def test_the_band_is_never_narrower_than_the_papers_printed_digits():
    assert A.printed_resolution(0.926) == pytest.approx(0.0005)
    assert A.printed_resolution(15.0) == pytest.approx(0.5)
    assert A.printed_resolution(3.06e-11) == pytest.approx(0.5e-13)
    j = judge("fraction", Side(0.9, 1e-6, 1000), Side(0.9004, 1e-6, 1000))
    assert j.tolerance == pytest.approx(0.05) and j.verdict == "agrees"


@pytest.mark.parametrize("label, kind", [
    ("p (Wilcoxon vs imd)", "pvalue"), ("p Holm (Wilcoxon vs imd)", "pvalue"), ("# imd greater", "wins"),
    ("% change from imd", "percent"), ("mean rank", "rank"), ("adult / max", "fraction"),
])
def test_cell_kind_reads_the_row_label(label, kind):
    assert A.cell_kind(label, "fraction") == kind


def test_infer_unit():
    assert A.infer_unit("leaf_count", [259, 344]) == "count"
    assert A.infer_unit("f1", [0.5, 0.9]) == "fraction"
    assert A.infer_unit("model_parity", [85.2, 97.0]) == "quantity"
    assert A.infer_unit("model_parity", [85.2], declared="percent") == "percent"
    # a mean_rank table's cells hold its metric; only its "mean rank" row is of kind rank
    assert A.infer_unit("f1", [0.5, 0.92]) == "fraction"
    assert A.cell_kind("mean rank", "fraction") == "rank" and A.cell_kind("adult / max", "fraction") == "fraction"
    with pytest.raises(ValueError, match="valid units"):
        A.infer_unit("f1", [0.5], declared="furlongs")


def test_unknown_kind_is_an_error_naming_the_valid_ones():
    with pytest.raises(ValueError, match="valid kinds"):
        judge("banana", Side(1.0), Side(1.0))


def test_the_tables_printed_digits_set_the_floor_when_a_trailing_zero_is_lost():
    # a column printed with two decimals: 0.90 is read as 0.9, whose own digits would give a floor of 0.05
    assert A.table_resolution([0.9, 0.96, 0.45]) == pytest.approx(0.005)
    loose = judge("fraction", Side(0.9, 1e-6, 1000), Side(0.93, 1e-6, 1000))
    tight = judge("fraction", Side(0.9, 1e-6, 1000), Side(0.93, 1e-6, 1000), resolution=0.005)
    assert loose.verdict == "agrees" and tight.verdict == "differs" and tight.tolerance == pytest.approx(0.005)
