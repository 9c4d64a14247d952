"""Paper-style tables: pure functions of the results DataFrame and a :class:`TableSpec`.

``make_table(results, spec)`` keeps the rows with ``run_status == "ok"`` that pass
``spec.filter``, labels each row by the values of ``spec.rows`` and each column by the
values of ``spec.columns`` (joined by `` / ``), and aggregates ``spec.metric`` over
repetitions:

* ``mean``: mean; ``mean_std``: mean ± sample standard deviation;
* ``mean_rank``: the rank of each column within its row (1 = best, by ``higher_is_better``),
  with the mean rank over rows in an extra row.

Tests (on the per-cell means, rows as paired blocks): ``wilcoxon`` (baseline column against
each other column, signed-rank), ``ttest`` (paired t), ``friedman`` (all columns, with mean
ranks), ``holm`` (Holm-adjusts the family of Wilcoxon / t-test p-values).

Summary rows (per column against ``baseline``, over the rows of per-cell means): ``wins``
(``# <baseline> greater``: rows where the baseline's mean is strictly greater, "15/90") and
``pct_change`` (``% change from <baseline>``: the mean over rows of
``100 (column - baseline) / baseline``, rows with a zero baseline left out), as in the IMD
paper's Table 8.

``pair`` names a results column (``models``) whose value is printed beside each row label,
so that a reader sees which model pair a cell comes from.

``fold_ttest`` is a per-row test, as the CRL paper's tables: within each row, every column is
compared with the row's best column by a paired t-test over the repetitions (folds), pairing
runs by ``rep``; the best cell and the cells not significantly different from it at the 5%
level are bold (the best also underlined), one test per (row, column) in ``tests``.

When the spec has ``reference`` values (the published numbers), a comparison lists, for every
published cell, our mean, the paper's number and the difference ``ours - paper``; a published
row label may also name a summary row (``mean rank``, ``p (Wilcoxon vs imd)``), compared with
ours. With ``reference.pairs`` the comparison shows the paper's pair beside ours. Published
numbers are always labelled ``paper``.

Output: :func:`to_markdown`, :func:`to_latex`, :func:`to_csv`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from interpretopt.exceptions import InputError
from interpretopt.experiments._paths import check_name, inside
from interpretopt.experiments.config import ExperimentConfig, TableSpec

__all__ = ["TableResult", "make_table", "to_markdown", "to_latex", "to_csv", "render_table", "write_tables",
           "apply_filter"]

SEP = " / "


@dataclass
class TableResult:
    """A computed table.

    Attributes
    ----------
    spec : TableSpec
    mean, std, count : pandas.DataFrame
        Row labels x column labels.
    min, max : pandas.DataFrame or None
        Row labels x column labels: the smallest and largest value over a cell's runs.
    cells : pandas.DataFrame of str
        The displayed cells (per ``spec.aggregate``).
    extra_rows : dict
        Label -> {column label: text}, shown under the table (mean rank, p-values).
    tests : pandas.DataFrame
        One row per test: ``test, column, baseline, statistic, pvalue, pvalue_holm, n``.
    comparison : pandas.DataFrame or None
        ``row, column, ours, paper, diff`` for every published cell.
    scale : str
        ``"full"``, ``"reduced"`` or ``"smoke"``: the scale the results were run at (from
        their ``scale`` column; ``"mixed: ..."`` when they disagree). Titles and the
        comparison with the paper say it whenever it is not the full protocol.
    """

    spec: TableSpec
    mean: pd.DataFrame
    std: pd.DataFrame
    count: pd.DataFrame
    cells: pd.DataFrame
    extra_rows: dict = field(default_factory=dict)
    tests: pd.DataFrame = field(default_factory=pd.DataFrame)
    comparison: pd.DataFrame | None = None
    n_runs: int = 0
    n_failed: int = 0
    pairs: dict = field(default_factory=dict)
    scale: str = "full"
    marks: dict = field(default_factory=dict)
    min: pd.DataFrame | None = None
    max: pd.DataFrame | None = None


def _sort_key(v: Any):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return (2, 0, "")
    if isinstance(v, (bool, np.bool_)):
        return (0, int(v), "")
    if isinstance(v, (int, float, np.integer, np.floating)):
        return (0, float(v), "")
    return (1, 0, str(v))


def _label(values: tuple) -> str:
    return SEP.join("-" if (v is None or (isinstance(v, float) and math.isnan(v))) else _fmt_value(v) for v in values)


def _fmt_value(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def apply_filter(df: pd.DataFrame, flt: dict) -> pd.DataFrame:
    """Rows whose columns equal the filter's values (a tuple/list value means "any of")."""
    for col, val in flt.items():
        if col not in df.columns:
            raise InputError(f"filter column {col!r} is not in the results; columns: {', '.join(map(str, df.columns))}")
        if isinstance(val, (list, tuple)):
            df = df[df[col].isin(list(val))]
        elif val is None:
            df = df[df[col].isna()]
        else:
            df = df[df[col] == val]
    return df


def _check_columns(df: pd.DataFrame, cols, what: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(f"{what} column(s) {missing} are not in the results; "
                         f"columns: {', '.join(map(str, df.columns))}")


def make_table(results: pd.DataFrame, spec: TableSpec) -> TableResult:
    """Aggregate ``results`` into the table described by ``spec`` (see the module docstring).

    The steps: the ok runs that pass the filter (:func:`_ok_runs`), the per-cell statistics
    (:func:`_aggregate`), the displayed cells (:func:`_display_cells`), the tests over columns
    (:func:`_column_tests`), the summary rows against the baseline (:func:`_summary_rows`), the
    per-row fold tests (:func:`fold_tests`), the pair of each row (:func:`_row_pairs`) and the
    comparison with the published numbers (:func:`_comparison`).
    """
    df, n_failed = _ok_runs(results, spec)
    g = _aggregate(df, spec)
    cells, extra = _display_cells(g, spec)
    blocks = g.mean.to_numpy(dtype=float)
    tests_rows = _column_tests(blocks, spec, g.clab, extra)
    _summary_rows(blocks, spec, g.clab, extra)
    marks: dict = {}
    if "fold_ttest" in spec.tests:
        fold_rows, marks = fold_tests(df, spec, g.tmp, g.rlab, g.clab, g.mean)
        tests_rows.extend(fold_rows)
    tests = pd.DataFrame(tests_rows, columns=["test", "row", "column", "baseline", "statistic", "pvalue",
                                              "pvalue_holm", "n"])
    pairs = _row_pairs(results, df, spec, g)
    comparison = _comparison(spec, g.mean, extra, pairs)
    return TableResult(spec, g.mean, g.std, g.count, cells, extra, tests, comparison, n_runs=len(df),
                       n_failed=n_failed, pairs=pairs, scale=_scale_of(df), marks=marks, min=g.lo, max=g.hi)


def _ok_runs(results: pd.DataFrame, spec: TableSpec) -> tuple[pd.DataFrame, int]:
    """The rows of ``results`` that pass ``spec.filter`` and ran ok, and how many of those passing failed.

    Raises
    ------
    InputError
        A row, column, filter or metric column of the spec is not in the results.
    """
    _check_columns(results, list(spec.rows) + list(spec.columns), f"table {spec.name!r}: row/column")
    df = apply_filter(results, spec.filter)
    n_failed = 0
    if "run_status" in df.columns:
        n_failed = int((df["run_status"] != "ok").sum())
        df = df[df["run_status"] == "ok"]
    if spec.metric not in results.columns:
        raise InputError(f"table {spec.name!r}: metric {spec.metric!r} is not in the results; columns: "
                         f"{', '.join(map(str, results.columns))}")
    return df, n_failed


@dataclass
class _Grid:
    """The runs of a table placed in its grid: each run's row key, the row and column labels in
    order, the long frame ``row, col, v`` (one entry per run) and the per-cell statistics."""

    rkeys: list
    rlab: list
    clab: list
    tmp: pd.DataFrame
    mean: pd.DataFrame
    std: pd.DataFrame
    count: pd.DataFrame
    lo: pd.DataFrame
    hi: pd.DataFrame


def _aggregate(df: pd.DataFrame, spec: TableSpec) -> _Grid:
    """Label each run by its row and column values (sorted: numbers, then texts, then missing) and
    aggregate the metric per cell: mean, sample std, count, min and max."""
    rkeys = [tuple(r) for r in df[list(spec.rows)].itertuples(index=False, name=None)]
    ckeys = [tuple(r) for r in df[list(spec.columns)].itertuples(index=False, name=None)]
    row_order = sorted(set(rkeys), key=lambda t: tuple(_sort_key(v) for v in t))
    col_order = sorted(set(ckeys), key=lambda t: tuple(_sort_key(v) for v in t))
    rlab = [_label(t) for t in row_order]
    clab = [_label(t) for t in col_order]
    tmp = pd.DataFrame({
        "row": [_label(t) for t in rkeys],
        "col": [_label(t) for t in ckeys],
        "v": pd.to_numeric(df[spec.metric], errors="coerce").to_numpy(dtype=float),
    })
    g = tmp.groupby(["row", "col"], sort=False)["v"]

    def grid(s: pd.Series) -> pd.DataFrame:
        return s.unstack("col").reindex(index=rlab, columns=clab)

    return _Grid(rkeys, rlab, clab, tmp, mean=grid(g.mean()), std=grid(g.std(ddof=1)),
                 count=grid(g.count()).fillna(0).astype(int), lo=grid(g.min()), hi=grid(g.max()))


def _num(x: float, digits: int) -> str:
    """A table number with ``digits`` decimals; empty for a missing one."""
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _display_cells(g: _Grid, spec: TableSpec) -> tuple[pd.DataFrame, dict]:
    """The displayed cells per ``spec.aggregate`` (mean, mean ± std, or the rank within the row), and the
    extra rows it adds (``mean rank`` for ``mean_rank``)."""
    from interpretopt.evaluation.stats import mean_ranks

    d = spec.digits
    cells = pd.DataFrame("", index=g.rlab, columns=g.clab, dtype=object)
    extra: dict = {}
    if spec.aggregate == "mean_rank":
        from scipy.stats import rankdata

        a = g.mean.to_numpy(dtype=float)
        ranks = np.full_like(a, np.nan)
        for i in range(a.shape[0]):
            ok = ~np.isnan(a[i])
            if ok.any():
                ranks[i, ok] = rankdata(-a[i, ok] if spec.higher_is_better else a[i, ok])
        for i, r in enumerate(g.rlab):
            for j, c in enumerate(g.clab):
                cells.loc[r, c] = "" if np.isnan(ranks[i, j]) else f"{ranks[i, j]:.1f}"
        mr = mean_ranks(a, higher_is_better=spec.higher_is_better)
        extra["mean rank"] = {c: _num(v, d) for c, v in zip(g.clab, mr)}
        return cells, extra
    for r in g.rlab:
        for c in g.clab:
            m = g.mean.loc[r, c]
            s = g.std.loc[r, c]
            if spec.aggregate == "mean_std" and not (isinstance(s, float) and math.isnan(s)) and not math.isnan(m):
                cells.loc[r, c] = f"{_num(m, d)} ± {_num(s, d)}"
            else:
                cells.loc[r, c] = _num(m, d)
    return cells, extra


def _column_tests(blocks: np.ndarray, spec: TableSpec, clab: list, extra: dict) -> list[dict]:
    """The tests over columns on the per-cell means (rows as paired blocks): Friedman over all columns,
    Wilcoxon or paired t of the baseline against each other column (Holm-adjusted on request). Adds
    their p-value rows (and Friedman's mean ranks) to ``extra``; returns one row per test."""
    from interpretopt.evaluation.stats import friedman, holm, paired_ttest, wilcoxon_signed_rank

    tests_rows = []
    if "friedman" in spec.tests and len(clab) >= 2:
        fr = friedman(blocks, higher_is_better=spec.higher_is_better)
        extra.setdefault("mean rank", {c: _num(v, spec.digits) for c, v in zip(clab, fr.mean_ranks)})
        tests_rows.append({"test": "friedman", "column": "(all)", "baseline": None, "statistic": fr.statistic,
                           "pvalue": fr.pvalue, "pvalue_holm": np.nan, "n": fr.n_blocks})
    pair_tests = [t for t in spec.tests if t in ("wilcoxon", "ttest")]
    if not (pair_tests and len(clab) >= 2):
        return tests_rows
    base, bi = _baseline(spec, clab)
    for t in pair_tests:
        fn = wilcoxon_signed_rank if t == "wilcoxon" else paired_ttest
        fam = []
        for j, c in enumerate(clab):
            if j == bi:
                continue
            res = fn(blocks[:, bi], blocks[:, j])
            fam.append({"test": t, "column": c, "baseline": base, "statistic": res.statistic,
                        "pvalue": res.pvalue, "pvalue_holm": np.nan, "n": res.n})
        if "holm" in spec.tests and fam:
            for f, a in zip(fam, holm([f["pvalue"] for f in fam])):
                f["pvalue_holm"] = a
        name = "Wilcoxon" if t == "wilcoxon" else "paired t"
        extra[f"p ({name} vs {base})"] = {f["column"]: _p(f["pvalue"]) for f in fam} | {base: "-"}
        if "holm" in spec.tests:
            extra[f"p Holm ({name} vs {base})"] = {f["column"]: _p(f["pvalue_holm"]) for f in fam} | {base: "-"}
        tests_rows.extend(fam)
    return tests_rows


def _summary_rows(blocks: np.ndarray, spec: TableSpec, clab: list, extra: dict) -> None:
    """Add to ``extra`` the summary rows against the baseline over the rows of per-cell means:
    ``# <baseline> greater`` (``wins``) and ``% change from <baseline>`` (``pct_change``)."""
    summary = [t for t in spec.tests if t in ("wins", "pct_change")]
    if not (summary and len(clab) >= 2):
        return
    base, bi = _baseline(spec, clab)
    b = blocks[:, bi]
    if "wins" in summary:
        row = {}
        for j, c in enumerate(clab):
            if j != bi:
                ok = ~np.isnan(b) & ~np.isnan(blocks[:, j])
                row[c] = f"{int(np.sum(b[ok] > blocks[ok, j]))}/{int(ok.sum())}"
        extra[f"# {base} greater"] = row | {base: "-"}
    if "pct_change" in summary:
        row = {}
        for j, c in enumerate(clab):
            if j != bi:
                ok = ~np.isnan(b) & ~np.isnan(blocks[:, j]) & (b != 0)
                row[c] = f"{100 * np.mean((blocks[ok, j] - b[ok]) / b[ok]):+.2f}%" if ok.any() else "n/a"
        extra[f"% change from {base}"] = row | {base: "-"}


def _row_pairs(results: pd.DataFrame, df: pd.DataFrame, spec: TableSpec, g: _Grid) -> dict:
    """Row label -> the values of ``spec.pair`` (the model pair) of its runs, joined ({} without ``pair``)."""
    pairs: dict = {}
    if not spec.pair:
        return pairs
    _check_columns(results, [spec.pair], f"table {spec.name!r}: pair")
    lab = pd.Series([_label(t) for t in g.rkeys], index=df.index)
    for r in g.rlab:
        vals = sorted({str(v) for v in df.loc[lab == r, spec.pair] if v is not None and not pd.isna(v)})
        pairs[r] = ", ".join(vals) if vals else "-"
    return pairs


def _comparison(spec: TableSpec, mean: pd.DataFrame, extra: dict, pairs: dict) -> pd.DataFrame | None:
    """``row, column, ours, paper, diff`` (and the pairs) for every published cell; a published row that
    is not a row of ours is read from the summary rows (mean rank, p-values, wins, % change)."""
    if spec.reference is None or not spec.reference.values:
        return None
    comp = []
    ref_pairs = spec.reference.pairs
    for r, row in spec.reference.values.items():
        for c, paper in row.items():
            if r in mean.index:
                ours = mean.loc[r, c] if c in mean.columns else np.nan
            else:  # a summary row (mean rank, p-values, wins, % change)
                ours = _number(extra.get(r, {}).get(c))
            diff = ours - paper if paper is not None and not np.isnan(ours) else np.nan
            rec = {"row": r, "column": c, "ours": ours, "paper": paper, "diff": diff}
            if spec.pair or ref_pairs:
                rec["pair_ours"] = pairs.get(r, "")
                rec["pair_paper"] = ref_pairs.get(r, "")
            comp.append(rec)
    cols = ["row", "column", "ours", "paper", "diff"]
    if spec.pair or ref_pairs:
        cols[1:1] = ["pair_ours", "pair_paper"]
    return pd.DataFrame(comp, columns=cols)


def _baseline(spec: TableSpec, clab: list) -> tuple[str, int]:
    """The column the paired tests and summary rows compare with, and its index."""
    base = spec.baseline if spec.baseline is not None else clab[0]
    if base not in clab:
        raise InputError(f"table {spec.name!r}: baseline {base!r} is not a column; columns: {clab}")
    return base, clab.index(base)


def _number(text: Any) -> float:
    """The number in a summary cell ("2.056", "3.06e-11", "15/90" -> 15, "+19.67%" -> 19.67)."""
    if text is None:
        return np.nan
    t = str(text).strip().rstrip("%")
    if "/" in t:
        t = t.split("/")[0]
    try:
        return float(t)
    except ValueError:
        return np.nan


def _scale_of(df: pd.DataFrame) -> str:
    """The scale of the result rows: their ``scale`` column, else their ``smoke`` flag."""
    if "scale" in df.columns and df["scale"].notna().any():
        vals = sorted({str(v) for v in df["scale"].dropna()})
    elif "smoke" in df.columns:
        vals = sorted({"smoke" if bool(v) else "full" for v in df["smoke"].dropna()})
    else:
        vals = []
    if not vals:
        return "full"
    return vals[0] if len(vals) == 1 else "mixed: " + ", ".join(vals)


def _scale_note(tr: TableResult) -> str:
    return "" if tr.scale == "full" else f"{tr.scale} scale, not the published protocol"



FOLD_ALPHA = 0.05


def fold_tests(df: pd.DataFrame, spec: TableSpec, tmp: pd.DataFrame, rlab, clab, mean: pd.DataFrame):
    """Per-row paired t-tests over folds against the row's best column (the CRL tables' bolding).

    Returns the test rows and ``marks``: ``{(row, column): "best" | "tie"}`` for the cells to
    bold ("best" is the row's best mean; "tie" a cell whose paired t-test against it over the
    repetitions has ``p >= 0.05`` or is undefined). Runs are paired by the ``rep`` column.
    """
    from interpretopt.evaluation.stats import paired_ttest

    if "rep" not in df.columns:
        raise InputError(f"table {spec.name!r}: fold_ttest pairs runs by 'rep', which is not in the results")
    t = tmp.assign(rep=df["rep"].to_numpy())
    rows, marks = [], {}
    for r in rlab:
        m = mean.loc[r]
        ok = m.dropna()
        if ok.empty:
            continue
        best = ok.idxmax() if spec.higher_is_better else ok.idxmin()
        marks[(r, best)] = "best"
        sub = t[t["row"] == r]
        wide = sub.pivot_table(index="rep", columns="col", values="v", aggfunc="mean")
        for c in ok.index:
            if c == best:
                continue
            pair = wide[[best, c]].dropna() if best in wide and c in wide else pd.DataFrame(columns=[best, c])
            res = paired_ttest(pair[best].to_numpy(), pair[c].to_numpy())
            rows.append({"test": "fold_ttest", "row": r, "column": c, "baseline": best, "statistic": res.statistic,
                         "pvalue": res.pvalue, "pvalue_holm": np.nan, "n": res.n})
            if not (res.pvalue < FOLD_ALPHA):
                marks[(r, c)] = "tie"
    return rows, marks


def _marked(tr: TableResult, r, c, text: str, fmt: str) -> str:
    mark = tr.marks.get((r, c))
    if not mark or not text:
        return text
    if fmt == "latex":
        return r"\underline{\textbf{" + text + "}}" if mark == "best" else r"\textbf{" + text + "}"
    return f"**_{text}_**" if mark == "best" else f"**{text}**"


def _p(p: float) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "n/a"  # the test is undefined here (too few pairs, no variance, fewer than 3 groups)
    return f"{p:.2e}" if p < 1e-3 else f"{p:.3f}"


# ----------------------------------------------------------------------------- output


def _title(tr: TableResult) -> str:
    s = tr.spec
    agg = {"mean": "mean over repetitions", "mean_std": "mean ± std over repetitions",
           "mean_rank": "rank of the columns within each row, on the means over repetitions"}[s.aggregate]
    head = f"{s.name}: {s.metric} ({agg})"
    if _scale_note(tr):
        head += f" [{_scale_note(tr)}]"
    return head + (f" - {s.caption}" if s.caption else "")


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    esc = [[str(x).replace("|", "\\|") for x in r] for r in [header] + rows]
    out = ["| " + " | ".join(esc[0]) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in esc[1:]]
    return "\n".join(out)


def to_markdown(tr: TableResult) -> str:
    """The table, its test rows and the comparison with the paper, as Markdown."""
    s = tr.spec
    clab = list(tr.cells.columns)
    corner = SEP.join(s.rows) + " \\ " + SEP.join(s.columns)
    pc = [f"pair ({s.pair})"] if s.pair else []
    rows = [[r] + ([tr.pairs.get(r, "")] if s.pair else [])
            + [_marked(tr, r, c, tr.cells.loc[r, c], "markdown") for c in clab] for r in tr.cells.index]
    for lab, vals in tr.extra_rows.items():
        rows.append([f"*{lab}*"] + ([""] if s.pair else []) + [vals.get(c, "") for c in clab])
    parts = [f"### {_title(tr)}", "", _md_table([corner] + pc + clab, rows), "",
             f"{tr.n_runs} runs" + (f"; {tr.n_failed} failed runs left out" if tr.n_failed else "")]
    if tr.marks:
        parts += ["", "Bold: the best cell of its row (bold italic) and the cells not significantly different from it "
                  f"(paired t-test over the repetitions, p >= {FOLD_ALPHA})."]
    if len(tr.tests):
        parts += ["", "Tests: " + "; ".join(
            f"{t.test} " + ("" if pd.isna(t.row) else f"[{t.row}] ") + f"{t.column}"
            + ("" if pd.isna(t.baseline) else f" vs {t.baseline}") + f": p={_p(t.pvalue)}"
            + ("" if pd.isna(t.pvalue_holm) else f" (Holm {_p(t.pvalue_holm)})") + f", n={t.n}"
            for t in tr.tests.itertuples())]
    if tr.comparison is not None:
        src = s.reference.source if s.reference is not None and s.reference.source else "published table"
        d = s.digits
        f = (lambda x: "" if x is None or pd.isna(x) else f"{x:.{d}f}")
        with_pairs = "pair_ours" in tr.comparison.columns
        rows = [[c.row] + ([c.pair_ours, c.pair_paper] if with_pairs else [])
                + [c.column, f(c.ours), f(c.paper), ("" if pd.isna(c.diff) else f"{c.diff:+.{d}f}")]
                for c in tr.comparison.itertuples() if not pd.isna(c.ours)]
        head = ["row"] + (["pair (ours)", "pair (paper)"] if with_pairs else []) + ["column", "ours", "paper", "diff"]
        n_match = len(rows)
        n_missing = len(tr.comparison) - n_match
        at = f" at {tr.scale} scale" if _scale_note(tr) else ""
        parts += ["", f"Ours{at} beside the paper ({src}); `paper` = published number, `diff` = ours - paper "
                  f"({n_match} of {len(tr.comparison)} published cells have a result of ours"
                  + (f"; the other {n_missing} are not shown: their dataset is not held or they did not run "
                     "at this scale, as `interpretopt reproduce` lists in cells.csv" if n_missing else "") + "):"]
        if rows:
            parts += ["", _md_table(head, rows)]
    return "\n".join(parts) + "\n"


def _tex(s: Any) -> str:
    s = str(s)
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"),
                 ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\^{}")):
        s = s.replace(a, b) if a != "\\" else s.replace(a, "\x00")
    s = s.replace("\x00", r"\textbackslash{}")
    return s.replace("±", r"$\pm$")


def _label_key(name: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_:.-]+", "-", name)


def to_latex(tr: TableResult) -> str:
    """The table as a LaTeX ``table`` with booktabs rules; published numbers in a second tabular."""
    s = tr.spec
    clab = list(tr.cells.columns)
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{_tex(_title(tr))}}}",
             rf"\label{{tab:{_label_key(s.name)}}}",
             r"\begin{tabular}{l" + "r" * len(clab) + "}", r"\toprule",
             " & ".join([_tex(SEP.join(s.rows))] + [_tex(c) for c in clab]) + r" \\", r"\midrule"]
    for r in tr.cells.index:
        lines.append(" & ".join([_tex(r)] + [_marked(tr, r, c, _tex(tr.cells.loc[r, c]), "latex") for c in clab])
                     + r" \\")
    if tr.extra_rows:
        lines.append(r"\midrule")
        for lab, vals in tr.extra_rows.items():
            lines.append(" & ".join([r"\emph{" + _tex(lab) + "}"] + [_tex(vals.get(c, "")) for c in clab]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if tr.comparison is not None:
        d = s.digits
        f = (lambda x: "" if x is None or pd.isna(x) else f"{x:.{d}f}")
        src = s.reference.source if s.reference is not None and s.reference.source else "published table"
        at = f" at {tr.scale} scale" if _scale_note(tr) else ""
        lines += [r"\par\medskip", rf"\small Ours{at} beside the paper ({_tex(src)})\par",
                  r"\begin{tabular}{llrrr}", r"\toprule", r"row & column & ours & paper & diff \\", r"\midrule"]
        for c in tr.comparison.itertuples():
            dd = "" if pd.isna(c.diff) else f"{c.diff:+.{d}f}"
            lines.append(" & ".join([_tex(c.row), _tex(c.column), f(c.ours), f(c.paper), dd]) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def to_csv(tr: TableResult) -> str:
    """Long CSV: ``row, column, mean, std, count, cell`` and, with a reference, ``paper, diff``."""
    recs = []
    ref = {}
    if tr.comparison is not None:
        ref = {(c.row, c.column): (c.paper, c.diff) for c in tr.comparison.itertuples()}
    for r in tr.mean.index:
        for c in tr.mean.columns:
            rec = {"row": r, "column": c, "mean": tr.mean.loc[r, c], "std": tr.std.loc[r, c],
                   "count": int(tr.count.loc[r, c]), "cell": tr.cells.loc[r, c]}
            if tr.spec.pair:
                rec["pair"] = tr.pairs.get(r, "")
            if tr.comparison is not None:
                p, d = ref.get((r, c), (np.nan, np.nan))
                rec["paper"], rec["diff"] = p, d
            rec["scale"] = tr.scale
            recs.append(rec)
    return pd.DataFrame(recs).to_csv(index=False)


def render_table(results: pd.DataFrame, spec: TableSpec, fmt: str = "markdown") -> str:
    """``make_table`` then one of ``markdown``, ``latex``, ``csv``."""
    tr = make_table(results, spec)
    try:
        return {"markdown": to_markdown, "latex": to_latex, "csv": to_csv}[fmt](tr)
    except KeyError:
        raise InputError(f"unknown table format {fmt!r}; valid: markdown, latex, csv") from None


def write_tables(results: pd.DataFrame, config: ExperimentConfig, out_dir: str | Path,
                 names: list[str] | None = None) -> dict[str, TableResult]:
    """Write every table of ``config`` to ``<out_dir>/tables/<name>.{md,tex,csv}``.

    A table name that is not a plain file name (``../x``) is refused with
    :class:`~interpretopt.experiments._paths.PathEscapeError` before anything is written."""
    for spec in config.tables:  # every name checked before anything is written
        check_name(spec.name, "table name")
    out = Path(out_dir) / "tables"
    out.mkdir(parents=True, exist_ok=True)
    done = {}
    for spec in config.tables:
        if names and spec.name not in names:
            continue
        stem = check_name(spec.name, "table name")  # refused with the name if it would leave <out>/tables
        tr = make_table(results, spec)
        for ext, text in ((".md", to_markdown(tr)), (".tex", to_latex(tr)), (".csv", to_csv(tr))):
            inside(out, stem + ext, what="table name").write_text(text)
        done[spec.name] = tr
    return done
