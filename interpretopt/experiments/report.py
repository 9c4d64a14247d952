"""Reproduction records: one row per published cell, and the report over all five papers.

Every table config under ``configs/<paper>/`` carries the paper's numbers in its tables'
``reference`` blocks. :func:`cell_records` turns a config and its results into one row per
published cell (:data:`CELL_COLUMNS`)::

    paper, table, row, column, paper_value, paper_std, ours, ours_std, ours_min, ours_max, n_runs,
    scale, status, reason, diff, tolerance, within_tolerance, config, pair_paper, pair_ours

(``ours_min``, ``ours_max``: the smallest and largest value over the cell's runs; the range
that runs at other root seeds, ``reproduce --seed N``, widen to the spread over random splits)

``status`` is

* ``compared``: we have a number for the cell (``ours`` is the mean over ``n_runs`` runs),
  judged by the agreement rule (:mod:`interpretopt.experiments.agreement`, ``docs/agreement.md``):
  ``verdict`` ``agrees`` or ``differs``, by ``rule`` (``welch``, ``absolute``, ``relative``,
  ``decision``, ``share``) with the band ``tolerance``; ``within_tolerance`` is the verdict as a bool;
* ``partial``: we have a number, but made from fewer runs than the scale plans (``n_runs`` of
  ``n_planned``): not compared, not judged;
* ``no_data``: the cell's dataset is not held (``reason`` says why, e.g. "juvenile is not
  redistributable", or that its file is missing from the data directory);
* ``not_run``: the data is held but no run of ours gave the cell (not at this scale, a
  failed run, a column we do not implement; ``reason`` says which).

``paper_n`` is the paper's number of repetitions behind its mean and std (the reference's
``n``, else the config's repetitions at full scale), ``unit`` and ``kind`` what the cell
measures (a fraction, a percentage, a count, a p-value, a win count, ...), ``n_limited`` the
cell's runs that a wall-clock limit stopped (rows with ``limited_by_time``).

:func:`reproduce_config` runs one config at a scale and returns its :class:`ConfigRecord`;
:func:`reproduce_all` runs every table config and writes ``cells.csv``, ``REPORT.md`` (per
paper, each table with ours beside the paper's, the tests the paper uses, and the protocol
notes from the config's header) and the figures beside it. :func:`plan` estimates the runs
and time of each table at each scale from measured per-run costs (``run_costs.json``).
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import subprocess
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from interpretopt.exceptions import InterpretoptError
from interpretopt.experiments.config import SCALES, ExperimentConfig, TableSpec
from interpretopt.experiments.fingerprint import config_runs_hash

__all__ = [
    "CELL_COLUMNS", "PAPERS", "DEFAULT_TOLERANCE", "ConfigRecord", "table_configs", "protocol_notes",
    "count_runs", "cell_records", "summarize_cells", "reproduce_config", "reproduce_all", "write_report",
    "plan", "read_costs", "compared_share", "concat_cells", "scale_changes", "comparison_figures",
    "claims_of", "attach_headline",
]

CELL_COLUMNS = ("paper", "table", "row", "column", "paper_value", "paper_std", "ours", "ours_std", "ours_min",
                "ours_max", "n_runs", "scale",
                "status", "reason", "diff", "tolerance", "within_tolerance", "config", "pair_paper", "pair_ours",
                "paper_n", "unit", "kind", "verdict", "rule", "n_planned", "n_limited")
CELL_STATUSES = ("compared", "partial", "no_data", "not_run")
DEFAULT_TOLERANCE = 0.03  # the band of a fraction with no spread on either side (agreement.ABSOLUTE_TOLERANCE)
COSTS_FILE = "run_costs.json"

PAPERS: dict[str, str] = {
    "whatchanged": "What changed? Interpretable model comparison (BRCG, grounded BRCG+, rule-set comparison)",
    "imd": "Interpretable differencing of machine learning models (IMD, joint surrogate trees)",
    "crl": "Companion rule list (CRL, AUTAC)",
    "abbr": "Explaining confident black-box predictions (ABBR rule lists and checklists)",
    "mtrepan": "Global translation of classification models (MTRE-PAN against TRE-PAN)",
}


# ----------------------------------------------------------------------------- configs


def table_configs(root: str | os.PathLike | None = None, papers: list[str] | None = None) -> list[tuple[str, Path]]:
    """``(paper, path)`` of every table config: ``configs/<paper>/*.yaml`` for the papers of :data:`PAPERS`.

    Raises
    ------
    InterpretoptError
        A name in ``papers`` is not a paper; the message lists the valid ones.
    """
    from interpretopt.experiments.config import configs_root

    base = Path(root) if root is not None else configs_root()
    if papers is not None:
        bad = [p for p in papers if p not in PAPERS]
        if bad:
            raise InterpretoptError(f"unknown paper(s) {bad}; valid papers: {', '.join(PAPERS)}")
    out = []
    for paper in PAPERS:
        if papers is not None and paper not in papers:
            continue
        folder = base / paper
        if folder.is_dir():
            out += [(paper, p) for p in sorted(folder.glob("*.yaml"))]
    return out


def protocol_notes(path: str | os.PathLike) -> str:
    """The comment block at the top of a config file (its protocol header), without the ``#`` marks."""
    lines = []
    for line in Path(path).read_text().splitlines():
        s = line.strip()
        if s.startswith("#"):
            lines.append(s[1:][1:] if s[1:2] == " " else s[1:])
        elif s and not s.startswith("---"):
            break
        elif lines:
            lines.append("")
    return "\n".join(lines).strip("\n")


def count_runs(config: ExperimentConfig) -> int:
    """Number of runs of ``config`` without loading data (pairs chosen by ``select`` counted as selected)."""
    from interpretopt.experiments.config import expand_params

    grid = sum(len(expand_params(m.params)) for m in config.methods)
    if config.pairs is not None and config.pairs.per_dataset:
        return sum(len(config.pairs.per_dataset.get(d.label, ())) for d in config.datasets) * grid * config.repetitions
    if config.pairs is not None and not config.pairs.pairs:
        ps = config.pairs
        k = len(ps.candidates)
        n_pairs = {"all": k * (k - 1) // 2, "max_min_accuracy_gap": 2, "top_accuracy_gap": min(ps.n, k * (k - 1) // 2)}
        n_models = n_pairs.get(ps.select, 1)
    else:
        n_models = len(config.model_sets)
    return len(config.datasets) * n_models * grid * config.repetitions


# ----------------------------------------------------------------------------- cells


def _held_datasets(config: ExperimentConfig, data_dir: str | None) -> dict[str, str | None]:
    """Dataset label -> ``None`` when its data is available, else why not."""
    from interpretopt.data import list_datasets

    avail = {r["name"]: r for r in list_datasets(data_dir=data_dir)}
    out: dict[str, str | None] = {}
    for d in config.datasets:
        r = avail.get(d.name)
        if r is None:
            out[d.label] = f"dataset {d.name!r} is not registered"
        elif not r["available"]:
            out[d.label] = (f"the {d.name} file ({r.get('file')}) is not in the data directory; "
                            f"obtain it from {r.get('source')}")
        else:
            out[d.label] = None
    return out


def _is_summary_row(label: str) -> bool:
    """A table's summary row (``mean rank``, ``p (Wilcoxon vs imd)``, ``# imd greater``,
    ``% change from imd``: see :mod:`interpretopt.experiments.tables`), not a dataset row."""
    return (label == "mean rank" or (label.startswith("p (") and " vs " in label)
            or (label.startswith("# ") and label.endswith(" greater")) or label.startswith("% change from "))


def _row_dataset(spec: TableSpec, row_label: str) -> str | None:
    if "dataset" not in spec.rows or _is_summary_row(row_label):
        return None
    parts = row_label.split(" / ")
    i = list(spec.rows).index("dataset")
    return parts[i] if i < len(parts) else parts[0]


def cell_records(config: ExperimentConfig, results: pd.DataFrame | None, *, paper: str = "",
                 data_dir: str | None = None, held: dict[str, str | None] | None = None,
                 published: ExperimentConfig | None = None, n_planned: int | None = None) -> pd.DataFrame:
    """One row per published cell of ``config``'s tables (see the module docstring).

    Whether a cell has data is decided by the published (full-scale) config's datasets: a
    dataset that a smaller scale leaves out is held all the same, so its cells are ``not_run``
    ("not among the smoke scale's datasets"), never ``no_data``. A cell we have a number for is
    judged by :func:`interpretopt.experiments.agreement.judge`; one made from fewer runs than the
    scale plans is ``partial`` (not compared).

    Parameters
    ----------
    config : ExperimentConfig
        At the scale the results were run at (its ``scale`` is recorded in every row).
    results : DataFrame or None
        The runs' rows (``read_results``); ``None`` or empty when nothing ran.
    paper : str
        Paper key recorded in every row.
    data_dir : str or None
        Where datasets are looked for (default ``INTERPRETOPT_DATA``).
    held : dict or None
        Dataset label -> ``None`` (available) or the reason it is not, over the published
        config's datasets; computed when omitted.
    published : ExperimentConfig or None
        The same config at full scale (default: ``config`` itself).
    n_planned : int or None
        Runs ``config`` plans at its scale (default: :func:`count_runs`); with fewer ok runs
        stored, the cells short of runs are ``partial``.
    """
    from interpretopt.experiments.tables import make_table

    published = config if published is None else published
    held = _held_datasets(published, data_dir) if held is None else held
    if n_planned is None:
        try:
            n_planned = count_runs(config)
        except Exception:  # a count that needs data we do not hold
            n_planned = None
    n_ok = 0 if results is None or not len(results) else int(
        (results["run_status"] == "ok").sum() if "run_status" in results.columns else len(results))
    short = n_planned is not None and n_ok < n_planned
    recs = []
    for spec in config.tables:
        ref = spec.reference
        if ref is None or not ref.values:
            continue
        tr, err = None, ""
        if results is None or not len(results):
            err = f"nothing ran at {config.scale} scale"
        else:
            try:
                tr = make_table(results, spec)
            except InterpretoptError as e:
                err = f"table could not be made: {e}"
        ctx = _TableContext(config, published, spec, tr, err, held, short, n_ok, n_planned,
                            _limited_counts(results, spec) if tr is not None else {})
        for r, row in ref.values.items():
            for c, paper_value in row.items():
                recs.append(_cell(ctx, paper, r, c, paper_value, results))
    return pd.DataFrame(recs, columns=list(CELL_COLUMNS))


@dataclass
class _TableContext:
    """What every cell of one table is judged with."""

    config: ExperimentConfig
    published: ExperimentConfig
    spec: TableSpec
    tr: Any
    err: str
    held: dict
    short: bool  # the config holds fewer ok runs than it plans at this scale
    n_ok: int
    n_planned: int | None
    limited: dict  # (row, column) -> runs stopped by a wall-clock limit

    @property
    def resolution(self) -> float:
        """Half the last digit the paper prints in this table (its cells of the table's metric)."""
        from interpretopt.experiments.agreement import table_resolution

        ref = self.spec.reference
        return table_resolution([v for r, row in ref.values.items() if not _is_summary_row(r) for v in row.values()])

    @property
    def unit(self) -> str:
        from interpretopt.experiments.agreement import infer_unit

        ref = self.spec.reference
        vals = [v for r, row in ref.values.items() if not _is_summary_row(r) for v in row.values()]
        return infer_unit(self.spec.metric, vals, declared=ref.unit)


def _cell(ctx: _TableContext, paper: str, r: str, c: str, paper_value, results) -> dict:
    """One published cell: its status (compared / partial / no data / not run) and, compared, its verdict."""
    from interpretopt.data import unavailable_reason
    from interpretopt.experiments.agreement import cell_kind

    spec, ref, config, held = ctx.spec, ctx.spec.reference, ctx.config, ctx.held
    std = ref.stds.get(r, {}).get(c)
    at_scale = {d.label for d in config.datasets}
    deselected = set() if config.hash_datasets is None else {d.label for d in config.hash_datasets} - at_scale
    kind = cell_kind(r, ctx.unit)
    rec = {"paper": paper, "table": spec.name, "row": r, "column": c, "paper_value": paper_value,
           "paper_std": std, "ours": np.nan, "ours_std": np.nan, "ours_min": np.nan, "ours_max": np.nan,
           "n_runs": 0, "scale": config.scale, "status": "not_run", "reason": "", "diff": np.nan,
           "tolerance": np.nan, "within_tolerance": None, "config": config.path, "pair_paper": ref.pairs.get(r),
           "pair_ours": None, "paper_n": ref.n or ctx.published.repetitions, "unit": ctx.unit, "kind": kind,
           "verdict": None, "rule": None, "n_planned": None, "n_limited": 0}
    tr = ctx.tr
    if tr is not None and spec.pair:
        rec["pair_ours"] = tr.pairs.get(r)
    ds = _row_dataset(spec, r)
    if ds is not None and ds not in held:
        rec["status"] = "no_data"
        rec["reason"] = unavailable_reason(ds) or f"dataset {ds!r} is not among this config's datasets"
    elif ds is not None and held[ds] is not None:
        rec["status"], rec["reason"] = "no_data", held[ds]
    elif ds is not None and ds not in at_scale:
        rec["reason"] = (f"{ds} is not among the datasets selected (--datasets)" if ds in deselected
                         else f"{ds} is not among the {config.scale} scale's datasets")
    elif ds is None and any(v is not None for v in held.values()):
        rec["status"] = "no_data"
        rec["reason"] = "; ".join(v for v in held.values() if v is not None)
    elif tr is None:
        rec["reason"] = ctx.err
    else:
        _fill_ours(ctx, rec, r, c, ds, results)
    return rec


def _fill_ours(ctx: _TableContext, rec: dict, r: str, c: str, ds, results) -> None:
    """Our number for a cell with data, and its verdict (or why there is none)."""
    from interpretopt.experiments.agreement import Side, judge

    tr, spec = ctx.tr, ctx.spec
    ours = tr.mean.loc[r, c] if (r in tr.mean.index and c in tr.mean.columns) else np.nan
    summary = r not in tr.mean.index and tr.comparison is not None  # mean rank, p, wins rows
    if summary:
        hit = tr.comparison[(tr.comparison.row == r) & (tr.comparison.column == c)]
        ours = float(hit.ours.iloc[0]) if len(hit) else np.nan
    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
        rec["reason"] = _why_not_run(tr, r, c, ctx.config.scale) + _skips(results, ds)
        return
    n = int(tr.count.loc[r, c]) if not summary else int(tr.n_runs)
    sd = tr.std.loc[r, c] if not summary else np.nan
    rec.update(status="compared", ours=float(ours), ours_std=float(sd) if n > 1 else np.nan, n_runs=n,
               n_limited=int(ctx.limited.get((r, c), 0) if not summary else ctx.limited.get("all", 0)))
    if not summary and tr.min is not None:
        rec.update(ours_min=float(tr.min.loc[r, c]), ours_max=float(tr.max.loc[r, c]))
    planned = _planned_runs(ctx, c, n, summary)
    rec["n_planned"] = planned
    if rec["paper_value"] is None:
        return
    rec["diff"] = float(ours) - rec["paper_value"]
    paper_total, ours_total = (_win_totals(ctx, r, c) if rec["kind"] == "wins" else (None, None))
    our_std = None if rec["kind"] == "rank" else rec["ours_std"]  # a mean rank has no std over runs
    j = judge(rec["kind"], Side(rec["paper_value"], rec["paper_std"], rec["paper_n"], paper_total),
              Side(float(ours), our_std, n, ours_total), planned_n=planned, tolerance=spec.reference.tolerance,
              resolution=None if summary else ctx.resolution)
    rec.update(verdict=j.verdict, rule=j.rule, tolerance=j.tolerance, within_tolerance=j.agrees)
    if j.verdict == "partial":
        rec.update(status="partial", reason=(j.detail if not summary else
                                             f"the table holds {ctx.n_ok} of the {ctx.n_planned} runs this "
                                             f"scale plans"))


def _planned_runs(ctx: _TableContext, c: str, n: int, summary: bool) -> int | None:
    """Runs the scale plans for a cell, where the config is short of runs (else ``None``: nothing is missing).

    A dataset cell plans as many runs as the fullest cell of its column and at least one per
    repetition; a summary cell (over all rows) plans one more than it has: every row counts.
    """
    if not ctx.short:
        return None
    if summary:
        return n + 1
    col = ctx.tr.count[c] if c in ctx.tr.count.columns else pd.Series([n])
    return max(int(col.max()), ctx.config.repetitions)


def _win_totals(ctx: _TableContext, r: str, c: str) -> tuple[int | None, int | None]:
    """Rows a published win count and ours are out of: the published table's rows (its dataset /
    pair rows, or its named pairs) and ours (the ``k/N`` of our summary cell)."""
    ref = ctx.spec.reference
    rows = {k for k in ref.values if not _is_summary_row(k)} | set(ref.pairs)
    text = str(ctx.tr.extra_rows.get(r, {}).get(c, ""))
    ours = int(text.split("/")[1]) if "/" in text and text.split("/")[1].strip().isdigit() else None
    return (len(rows) or None), ours


def _limited_counts(results: pd.DataFrame | None, spec: TableSpec) -> dict:
    """``{(row label, column label): runs}`` of the table's ok runs stopped by a wall-clock limit
    (a ``limited_by_time`` column), and ``"all"``: their number in the table; empty without the column."""
    from interpretopt.experiments.tables import _label, apply_filter

    if results is None or "limited_by_time" not in results.columns:
        return {}
    try:
        df = apply_filter(results, spec.filter)
    except InterpretoptError:
        return {}
    if "run_status" in df.columns:
        df = df[df["run_status"] == "ok"]
    flag = df["limited_by_time"].fillna(False).astype(bool)
    df = df[flag]
    out: dict = {"all": int(len(df))}
    for rk, ck in zip(df[list(spec.rows)].itertuples(index=False, name=None),
                      df[list(spec.columns)].itertuples(index=False, name=None)):
        key = (_label(tuple(rk)), _label(tuple(ck)))
        out[key] = out.get(key, 0) + 1
    return out


def _skips(results: pd.DataFrame, dataset: str | None) -> str:
    """``"; skipped: <reason>"`` for the runs of ``dataset`` (or of any dataset) that returned a skip."""
    if "skipped" not in results.columns:
        return ""
    rows = results
    if dataset is not None and "dataset" in results.columns:
        rows = results[results["dataset"] == dataset]
    reasons = [str(v) for v in rows["skipped"].dropna().unique() if str(v)]
    if not reasons:
        return ""
    return f"; {len(rows['skipped'].dropna())} runs skipped: " + " | ".join(reasons[:2])


def _why_not_run(tr, r: str, c: str, scale: str) -> str:
    if r not in tr.mean.index and c not in tr.mean.columns:
        why = f"neither row {r!r} nor column {c!r} ran"
    elif r not in tr.mean.index:
        why = f"row {r!r} did not run"
    elif c not in tr.mean.columns:
        why = f"column {c!r} did not run"
    else:
        why = "no run of this row and column"
    why += f" at {scale} scale"
    if tr.n_failed:
        why += f" ({tr.n_failed} runs of the table failed)"
    return why


def concat_cells(records: list) -> pd.DataFrame:
    """The cells of several :class:`ConfigRecord` in one frame (with :data:`CELL_COLUMNS` when empty)."""
    frames = [r.cells for r in records if len(r.cells)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(CELL_COLUMNS))


def summarize_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """Per paper: published cells, with data, compared, within tolerance (agreeing by the agreement
    rule), partial, no data, not run, share compared."""
    rows = []
    groups = list(cells.groupby("paper", sort=False)) if len(cells) else []
    for paper, g in groups + [("all", cells)]:
        n = len(g)
        comp = int((g["status"] == "compared").sum()) if n else 0
        nod = int((g["status"] == "no_data").sum()) if n else 0
        part = int((g["status"] == "partial").sum()) if n else 0
        within = int((g["within_tolerance"].map(lambda v: v is True or v == 1.0 or v == "True")).sum()) if n else 0
        with_data = n - nod
        rows.append({"paper": paper, "published": n, "with_data": with_data, "compared": comp,
                     "within_tolerance": within, "partial": part, "no_data": nod, "not_run": n - nod - comp - part,
                     "compared_share": (comp / with_data) if with_data else float("nan")})
    return pd.DataFrame(rows)


def compared_share(cells: pd.DataFrame) -> float:
    """Compared cells among the cells whose data we hold (``nan`` when there are none)."""
    s = summarize_cells(cells)
    return float(s.loc[s["paper"] == "all", "compared_share"].iloc[0])


# ----------------------------------------------------------------------------- running


@dataclass
class ConfigRecord:
    """One table config reproduced at one scale."""

    paper: str
    path: str
    config: ExperimentConfig
    out_dir: Path
    cells: pd.DataFrame
    tables: dict = field(default_factory=dict)  # table name -> TableResult
    n_runs: int = 0
    n_planned: int | None = None  # runs the config plans at this scale (stored runs may be fewer)
    n_ok: int = 0
    n_failed: int = 0
    wall_time: float = 0.0
    cpu_time: float = 0.0
    per_run_time: float | None = None
    error: str = ""
    figures: list = field(default_factory=list)
    run_summary: str = ""
    commits: list = field(default_factory=list)  # the git commits the stored runs were made at
    results: pd.DataFrame | None = None  # the stored runs' rows (claims read them)
    published: ExperimentConfig | None = None  # the config at full scale: the paper's protocol
    freshness: str = ""  # names the runs made by other code than today's (experiments.fingerprint)


def reproduce_config(path: str | os.PathLike, scale: str, out_dir: str | os.PathLike, *, paper: str = "",
                     run: bool = True, n_jobs: int = 1, scheduler: str | None = None, force: bool = False,
                     data_dir: str | None = None, progress: bool | None = False, plots: bool = True,
                     seed: int | None = None, datasets=None, overrides=()) -> ConfigRecord:
    """Run one config at ``scale`` into ``out_dir`` (resumable), then make its tables, cells and figures.

    ``seed`` replaces the config's root seed (:meth:`ExperimentConfig.with_seed`): the same
    protocol on other random splits, to measure the spread of the cells over splits.
    ``datasets`` (dataset labels) runs only those datasets (:meth:`ExperimentConfig.with_datasets`):
    the same runs as the whole table's, the other datasets' cells not run. ``overrides``: the
    ``--set PATH=VALUE`` overrides of the config (:func:`~interpretopt.experiments.config.apply_overrides`).

    A config that fails to load or run is recorded with ``error`` and every one of its
    published cells as ``not_run``; nothing is raised, so one table does not stop a report.
    """
    from interpretopt.experiments.config import load_config
    from interpretopt.experiments.runner import run_experiment, runs_source, stored_results
    from interpretopt.experiments.tables import make_table

    out = Path(out_dir)
    paper = paper or Path(path).parent.name
    try:
        published = load_config(path, overrides=overrides)  # the full scale decides which cells have data
        config = published.with_scale(scale)
        if seed is not None:
            config = config.with_seed(seed)
        if datasets is not None:
            config = config.with_datasets(datasets)
    except InterpretoptError as e:
        empty = pd.DataFrame(columns=list(CELL_COLUMNS))
        return ConfigRecord(paper, str(path), None, out, empty, error=f"config does not load: {e}")  # type: ignore[arg-type]
    rec = ConfigRecord(paper, str(path), config, out, pd.DataFrame(columns=list(CELL_COLUMNS)), published=published)
    try:
        rec.n_planned = count_runs(config)
    except Exception:  # a count that needs data we do not hold; the run reports the problem
        rec.n_planned = None
    out.mkdir(parents=True, exist_ok=True)
    try:  # a config with `runs_from` tabulates another config's runs, made and stored in that config's directory
        src, runs_out = runs_source(config, out)
    except InterpretoptError as e:
        empty = pd.DataFrame(columns=list(CELL_COLUMNS))
        return ConfigRecord(paper, str(path), None, out, empty, error=f"config does not load: {e}")  # type: ignore[arg-type]
    if run:
        try:
            rep = run_experiment(src, out_dir=runs_out, n_jobs=n_jobs, scheduler=scheduler, force=force,
                                 data_dir=data_dir, progress=progress)
            rec.wall_time = rep.wall_time
            rec.run_summary = rep.summary() + (f" (the runs of {Path(src.path).stem}, stored in {runs_out})"
                                               if src is not config else "")
        except Exception as e:  # recorded in the report: one config must not stop the others
            rec.error = f"run failed: {type(e).__name__}: {e}"
    results = stored_results(config, out)
    if not len(results):
        results = None
    rec.results = results
    if results is not None and len(results):
        rec.n_runs = len(results)
        status = results["run_status"] if "run_status" in results.columns else pd.Series(["ok"] * len(results))
        rec.n_ok = int((status == "ok").sum())
        rec.n_failed = rec.n_runs - rec.n_ok
        if "wall_time" in results.columns:
            wt = pd.to_numeric(results["wall_time"], errors="coerce")
            rec.per_run_time = float(wt.mean()) if wt.notna().any() else None
        if "cpu_time" in results.columns:
            rec.cpu_time = float(pd.to_numeric(results["cpu_time"], errors="coerce").fillna(0).sum())
        if "git_commit" in results.columns:
            rec.commits = sorted({str(c) for c in results["git_commit"].dropna()})
        from interpretopt.experiments.fingerprint import table_freshness

        rec.freshness = table_freshness(config, out, results)
        for spec in config.tables:
            try:
                rec.tables[spec.name] = make_table(results, spec)
            except InterpretoptError as e:
                rec.error = (rec.error + "; " if rec.error else "") + f"table {spec.name}: {e}"
        if plots and config.plots:
            from interpretopt.experiments.plots import write_plots

            try:
                rec.figures = [Path(p) for p in write_plots(results, config, out)]
            except Exception as e:  # a figure that cannot be drawn is reported, the report goes on
                rec.error = (rec.error + "; " if rec.error else "") + f"plots: {type(e).__name__}: {e}"
        if plots:
            try:
                rec.figures += jst_figures(results, out)
            except Exception as e:  # as above: reported, the report goes on
                rec.error = (rec.error + "; " if rec.error else "") + f"JST figures: {type(e).__name__}: {e}"
    rec.cells = cell_records(config, results, paper=paper, data_dir=data_dir, published=published,
                             n_planned=rec.n_planned)
    if plots and results is not None:
        try:
            rec.figures += comparison_figures(rec, out)
        except Exception as e:  # as above: reported, the report goes on
            rec.error = (rec.error + "; " if rec.error else "") + f"comparison figures: {type(e).__name__}: {e}"
    if rec.error:
        blank = (rec.cells["status"] == "not_run") & (rec.cells["reason"] == "")
        rec.cells.loc[blank, "reason"] = rec.error
    return rec


def comparison_figures(rec: ConfigRecord, out_dir: str | os.PathLike, *, max_curves: int = 4) -> list[Path]:
    """The figures that put the paper beside ours: per table with compared cells, ours against the
    paper's (``plots/paper_vs_ours_<table>.png``); for a config whose runs carry transparency-accuracy
    columns and whose name says it is a figure (CRL's Figure 3), the paper's curves per dataset."""
    from interpretopt.experiments.plots import _plt, _safe, paper_vs_ours_figure, readable, transparency_figure

    plt = _plt()
    out = Path(out_dir) / "plots"
    out.mkdir(parents=True, exist_ok=True)
    figs = []
    cells = rec.cells
    for name in (list(dict.fromkeys(cells["table"])) if len(cells) else []):
        tr = rec.tables.get(name)
        metric = readable(tr.spec.metric) if tr is not None else name
        fig = paper_vs_ours_figure(cells[cells["table"] == name],
                                   f"{rec.paper}/{name}: {metric}, ours against the paper ({rec.config.scale} scale)")
        if fig is not None:
            figs.append(out / f"paper_vs_ours_{_safe(name)}.png")
            fig.savefig(figs[-1], dpi=90)
            plt.close(fig)
    res = rec.results
    if "figure" in Path(rec.path).stem and res is not None and "dataset" in res.columns:
        for ds in sorted({str(d) for d in res["dataset"].dropna()})[:max_curves]:
            fig = transparency_figure(res, ds, f"Figure 3: transparency-accuracy on {ds} ({rec.config.scale} scale)")
            if fig is not None:
                figs.append(out / f"transparency_{_safe(ds)}.png")
                fig.savefig(figs[-1], dpi=90)
                plt.close(fig)
    return figs


def jst_figures(results: pd.DataFrame, out_dir: str | os.PathLike, *, limit: int = 2,
                max_leaves: int = 48) -> list[Path]:
    """Draw the joint surrogate trees that IMD runs stored (their ``jst.json`` artifacts) into
    ``out_dir/plots/jst_<dataset>_<pair>.png``: the ``limit`` smallest trees of variant ``imd``
    (one per dataset and pair, at most ``max_leaves`` leaves, so that the drawing stays legible)."""
    from interpretopt.experiments.plots import _safe
    from interpretopt.methods.imd_render import graph_from_json, plot_jst_graph

    need = {"run_key", "dataset", "variant"}
    if results is None or not len(results) or not need <= set(results.columns):
        return []
    rows = results[results["variant"] == "imd"]
    if "run_status" in rows.columns:
        rows = rows[rows["run_status"] == "ok"]
    out = Path(out_dir)
    trees = []
    for _, r in rows.iterrows():
        src = out / "artifacts" / str(r["run_key"]) / "jst.json"
        if src.is_file():
            nodes = graph_from_json(src.read_text())
            n_leaves = sum(1 for g in nodes if not g.children)
            tag = str(r["pair_tag"]) if "pair_tag" in r.index and isinstance(r["pair_tag"], str) else ""
            if n_leaves <= max_leaves:
                trees.append((n_leaves, str(r["dataset"]), tag, nodes))
    figs, seen = [], set()
    plt = None
    for n_leaves, dataset, tag, nodes in sorted(trees, key=lambda t: (t[0], t[1], t[2])):
        if (dataset, tag) in seen or len(figs) >= limit:
            continue
        seen.add((dataset, tag))
        if plt is None:
            import matplotlib.pyplot as plt
        ax = plot_jst_graph(nodes)
        ax.set_title(f"Joint surrogate tree: {dataset}" + (f" ({tag} pair)" if tag else "") + f", {n_leaves} leaves")
        path = out / "plots" / (_safe(f"jst_{dataset}_{tag}") + ".png")
        path.parent.mkdir(parents=True, exist_ok=True)
        ax.figure.savefig(path, dpi=80, bbox_inches="tight")
        plt.close(ax.figure)
        figs.append(path)
    return figs


def _git_commit() -> str | None:
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                             text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def reproduce_all(scale: str, out_dir: str | os.PathLike, *, papers: list[str] | None = None,
                  configs_root: str | os.PathLike | None = None, n_jobs: int = 1, scheduler: str | None = None,
                  force: bool = False, data_dir: str | None = None, command: str = "",
                  progress: bool | None = False, on_config=None, run: bool = True) -> list[ConfigRecord]:
    """Every table config of every paper at ``scale``: results under ``out/<paper>/<table>/``, then
    ``out/cells.csv``, ``out/REPORT.md`` and ``out/run_costs.json``.

    ``run=False`` runs nothing: the report is made from the results already stored under
    ``out`` (each table says how many of its planned runs are stored). ``on_config(record)`` is
    called after each config (the CLI prints a line).
    """
    if scale not in SCALES:
        raise InterpretoptError(f"unknown scale {scale!r}; valid scales: {', '.join(SCALES)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    records = []
    for paper, path in table_configs(configs_root, papers):
        rec = reproduce_config(path, scale, out / paper / path.stem, paper=paper, n_jobs=n_jobs,
                               scheduler=scheduler, force=force, data_dir=data_dir, progress=progress, run=run)
        records.append(rec)
        if on_config is not None:
            on_config(rec)
    claims = claims_of(records, scale, papers)
    attach_headline(records, claims, scale)
    cells = concat_cells(records)
    cells.to_csv(out / "cells.csv", index=False)
    costs = read_costs(out)
    for r in records:
        if r.per_run_time is not None and r.config is not None:
            entry = {"per_run_s": round(r.per_run_time, 4), "n_runs": r.n_runs}
            if r.cpu_time and r.n_runs:
                entry["cpu_per_run_s"] = round(r.cpu_time / r.n_runs, 4)
                by_dataset = _cpu_by_dataset(r.results)
                if by_dataset:  # one dataset too: --plan then says which datasets were not measured
                    entry["cpu_by_dataset"] = by_dataset
            entry["config"] = config_runs_hash(r.path)  # the runs part measured: a later edit voids the cost
            costs.setdefault(_cost_key(r.paper, r.path), {})[scale] = entry
    (out / COSTS_FILE).write_text(json.dumps(costs, indent=1, sort_keys=True) + "\n")
    write_report(records, out, scale=scale, command=command, started=started, wall_time=time.perf_counter() - t0,
                 ran=run, claims=claims)
    from interpretopt.experiments.html_report import write_html

    write_html(records, out, scale=scale, claims=claims, command=command)
    return records


def _cpu_by_dataset(results) -> dict[str, float]:
    """``{dataset label: CPU seconds per run}`` of a table's runs ({} without the columns): datasets of one
    table can differ a hundredfold ("What changed?": heloc's runs against bc's), so ``--plan`` estimates the
    runs left by dataset."""
    if results is None or not len(results) or not {"dataset", "cpu_time"} <= set(results.columns):
        return {}
    cpu = pd.to_numeric(results["cpu_time"], errors="coerce")
    means = cpu.groupby(results["dataset"].astype(str)).mean().dropna()
    return {str(k): round(float(v), 4) for k, v in sorted(means.items())}


def claims_of(records: list[ConfigRecord], scale: str, papers: list[str] | None = None) -> list:
    """The headline claims of the papers of ``records`` checked on their runs (:mod:`.claims`)."""
    from interpretopt.experiments.claims import evaluate_claims

    held = {f"{r.paper}/{Path(r.path).stem}": r for r in records if r.results is not None}
    runs = {key: r.results for key, r in held.items()}
    partial = {key: f"{r.n_ok:,} of {r.n_planned:,} planned runs" for key, r in held.items()
               if r.n_planned and r.n_ok < r.n_planned}
    done = sorted({r.paper for r in records})
    return evaluate_claims(runs, scale=scale, papers=[p for p in done if papers is None or p in papers],
                           partial=partial)


# ----------------------------------------------------------------------------- report


def _fmt(x: Any, d: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{d}f}" if isinstance(x, (float, np.floating)) else str(x)


def _stored_runs_line(records: list[ConfigRecord]) -> str | None:
    """``- runs: N stored (CPU ...), at commits ...``: what the tables rest on, which a report made
    with ``--no-run`` does not show in its own wall time. A table that tabulates another's runs
    (``runs_from``) adds none of its own: its runs are counted once, with the table that made them."""
    own = [r for r in records if not getattr(r.config, "runs_from", None)]  # config is None when it did not load
    n = sum(r.n_runs for r in own)
    if not n:
        return None
    cpu = sum(r.cpu_time for r in own)
    commits = sorted({c[:12] for r in own for c in r.commits})
    shown = ", ".join(commits[:6]) + (f", ... ({len(commits)} commits)" if len(commits) > 6 else "")
    return (f"- runs: {n} stored, {cpu / 3600:.2f} CPU hours in all"
            + (f", made at commit{'s' if len(commits) > 1 else ''} {shown}" if commits else ""))


VERDICT_MARKS = {"agrees": "✓ agrees", "differs": "✗ differs", "partial": "◐ partial"}
CLAIM_MARKS = {"reproduced": "✓ reproduced", "not reproduced": "✗ not reproduced", "not testable": "– not testable"}


def _pm(value, std, n, d: int = 3) -> str:
    """``0.851 ± 0.004 (n=10)``; the parts that are missing left out."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    text = _fmt_num(value, d)
    if std is not None and not (isinstance(std, float) and math.isnan(std)):
        text += f" ± {_fmt_num(std, d)}"
    if n is not None and not (isinstance(n, float) and math.isnan(n)) and int(n) > 0:
        text += f" (n={int(n)})"
    return text


def _fmt_num(x, d: int = 3) -> str:
    x = float(x)
    if x != 0 and abs(x) < 10 ** (-d):
        return f"{x:.2e}"
    return f"{x:.{d}f}"


def scale_changes(published: ExperimentConfig | None, scaled: ExperimentConfig | None) -> list[str]:
    """What ``scaled`` (the config at a smaller scale, from its ``smoke:`` / ``reduced:`` section)
    changes against ``published`` (the paper's protocol), one line each; empty at full scale."""
    if published is None or scaled is None or scaled.scale == "full":
        return []
    out = []
    if scaled.repetitions != published.repetitions:
        out.append(f"repetitions: {scaled.repetitions} (the paper's protocol: {published.repetitions})")
    full_ds = {d.label: d for d in published.datasets}
    labels = [d.label for d in scaled.datasets]
    if labels != list(full_ds):
        out.append(f"datasets: {', '.join(labels)} (the paper's: {', '.join(full_ds)})")
    rows = sorted({(d.max_rows, (full_ds[d.label].max_rows if d.label in full_ds else None))
                   for d in scaled.datasets if d.max_rows != (full_ds[d.label].max_rows if d.label in full_ds
                                                              else None)}, key=str)
    for mine, theirs in rows:
        out.append(f"rows per dataset: at most {mine} (the paper's: {'all' if theirs is None else theirs})")
    for m_full, m in zip(published.methods, scaled.methods):
        for k, vals in m.params.items():
            if tuple(vals) != tuple(m_full.params.get(k, ())):
                out.append(f"{m.method} {k}: {_values(vals)} (the paper's: {_values(m_full.params.get(k, ()))})")
    for k, v in scaled.settings.items():
        if published.settings.get(k) != v:
            out.append(f"solver setting {k}: {v} (the paper's protocol: {published.settings.get(k, 'default')})")
    if scaled.models != published.models:
        out.append(f"models: {', '.join(scaled.models)} (the paper's: {', '.join(published.models)})")
    if scaled.pairs != published.pairs:
        out.append("model pairs: the scale's own selection (see the config's smoke/reduced section)")
    return out


def _values(vals) -> str:
    vals = list(vals)
    return ", ".join(str(v) for v in vals) if len(vals) <= 6 else f"{', '.join(map(str, vals[:5]))}, ... ({len(vals)})"


def _anchor(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _summary_lines(cells: pd.DataFrame, scale: str) -> list[str]:
    from interpretopt.experiments.agreement import RULE_TEXT

    summ = summarize_cells(cells) if len(cells) else pd.DataFrame()
    lines = ["## Summary", "",
             "A published cell is *compared* when we have a number for it made from every run the scale plans, "
             "*partial* when made from fewer (not judged), *no data* when its dataset is not held, *not run* "
             f"otherwise. {RULE_TEXT}", ""]
    if len(summ):
        lines.append("| paper | published cells | with data | compared | share compared | ✓ agrees | ✗ differs "
                     "| ◐ partial | no data | not run |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for s in summ.itertuples():
            lines.append(f"| {s.paper} | {s.published} | {s.with_data} | {s.compared} | {_fmt(s.compared_share, 2)} "
                         f"| {s.within_tolerance} | {s.compared - s.within_tolerance} | {s.partial} | {s.no_data} "
                         f"| {s.not_run} |")
        lines += ["", f"<!-- compared-share {scale}: {_fmt(compared_share(cells), 4)} -->", ""]
    return lines


def _claim_lines(claims: list) -> list[str]:
    if not claims:
        return []
    lines = ["### Headline claims", ""]
    for cl, res in claims:
        lines += [f"> {cl.quote}", ">", f"> *{cl.where}*", "",
                  f"- **{CLAIM_MARKS.get(res.verdict, res.verdict)}** at this scale: {res.detail}",
                  f"- test: {cl.test}; runs of {', '.join(cl.tables)} (`interpretopt.experiments.claims`, "
                  f"claim `{cl.paper}.{cl.key}`)", ""]
    return lines


def _cell_table(c: pd.DataFrame, digits: int = 3) -> list[str]:
    """Ours (+- our std, n) beside the paper's (+- std, n) and the verdict, for the compared and partial cells."""
    shown = c[c["status"].isin(["compared", "partial"])]
    if not len(shown):
        return []
    lines = ["| row | column | ours ± std (n) | paper ± std (n) | verdict | rule: band |", "|---|---|---|---|---|---|"]
    for x in shown.itertuples():
        verdict = _verdict_text(x)
        band = "" if x.rule is None or (isinstance(x.rule, float) and math.isnan(x.rule)) else str(x.rule)
        if band and not (isinstance(x.tolerance, float) and math.isnan(x.tolerance)):
            band += f": {_fmt_num(x.tolerance, digits)}"
        if getattr(x, "n_limited", 0):
            band += f"; {int(x.n_limited)} runs stopped by a time limit"
        paper_n = x.paper_n if x.kind not in ("pvalue", "wins", "mark", "rank") else None
        lines.append(f"| {x.row} | {x.column} | {_pm(x.ours, x.ours_std, x.n_runs, digits)} "
                     f"| {_pm(x.paper_value, x.paper_std, paper_n, digits)} | {verdict} | {band} |")
    return lines


def _verdict_text(x) -> str:
    if x.status == "partial":
        return f"{VERDICT_MARKS['partial']}: {x.reason}"
    return VERDICT_MARKS.get(x.verdict, "") if isinstance(x.verdict, str) else ""


def _table_lines(r: ConfigRecord, name: str, tr) -> list[str]:
    """One table: a heading at this scale, the paper's caption labelled as the paper's, our table, the cells."""
    import dataclasses

    from interpretopt.experiments.tables import to_markdown

    spec = tr.spec
    body = to_markdown(dataclasses.replace(tr, comparison=None, spec=dataclasses.replace(spec, caption="")))
    body_lines = body.splitlines()[1:]  # the heading is ours, below
    scale = r.config.scale if r.config is not None else "full"
    lines = [f"#### {name}: {spec.metric} ({spec.aggregate.replace('_', ' ')}) at {scale} scale", ""]
    if spec.caption:
        who = "The paper's caption" if scale == "full" else (
            "The paper's caption (its protocol, not this scale's: see the settings this scale changes above)")
        lines += [f"{who}: *{' '.join(spec.caption.split())}*", ""]
    lines += body_lines + [""]
    c = r.cells[r.cells["table"] == name] if len(r.cells) else r.cells
    if len(c):
        n_comp = int((c["status"] == "compared").sum())
        n_agree = int((c["verdict"] == "agrees").sum())
        lines += [f"Published cells: {len(c)}; compared {n_comp} (✓ {n_agree}, ✗ {n_comp - n_agree}), "
                  f"◐ partial {int((c['status'] == 'partial').sum())}, not compared "
                  f"{int((~c['status'].isin(['compared', 'partial'])).sum())}.", ""]
        lines += _cell_table(c, spec.digits) + [""]
        for (status, reason), g in c[~c["status"].isin(["compared", "partial"])].groupby(["status", "reason"],
                                                                                           sort=False):
            lines.append(f"- {len(g)} {status.replace('_', ' ')}: {reason}")
        lines.append("")
    return lines


def _limited_line(r: ConfigRecord) -> str | None:
    res = r.results
    if res is None or "limited_by_time" not in res.columns:
        return None
    n = int(res["limited_by_time"].fillna(False).astype(bool).sum())
    return (f"**Stopped by a wall-clock limit:** {n} of {len(res)} runs (`limited_by_time`): their cells may "
            "differ on another machine." if n else None)


def _config_lines(r: ConfigRecord, paper: str, out: Path) -> list[str]:
    rel = Path(r.path).name if r.config is None else f"{paper}/{Path(r.path).stem}"
    lines = [f"### {rel}", ""]
    if r.config is not None and r.config.description:
        lines += [" ".join(r.config.description.split()), ""]
    planned = "" if r.n_planned is None else f" of {r.n_planned} planned"
    lines.append(f"Runs: {r.n_runs}{planned} ({r.n_ok} ok, {r.n_failed} failed)"
                 + (f"; wall time {r.wall_time:.0f} s" if r.wall_time else "")
                 + (f"; CPU {r.cpu_time:.0f} s" if r.cpu_time else "")
                 + (f"; run at commit {', '.join(r.commits)}" if r.commits else "") + ".")
    if r.freshness:
        lines += ["", r.freshness]
    changes = scale_changes(r.published, r.config)
    if changes:
        lines += ["", f"**Settings the {r.config.scale} scale changes against the paper's protocol** "
                  "(from the config's scale section):", ""] + [f"- {c}" for c in changes]
    limited = _limited_line(r)
    if limited:
        lines += ["", limited]
    if r.error:
        lines += ["", f"**Problem:** {r.error}"]
    notes = protocol_notes(r.path) if Path(r.path).is_file() else ""
    if notes:
        lines += ["", f'<details id="protocol-{_anchor(rel)}"><summary>Protocol notes (from the config header)'
                  "</summary>", "", "```text", notes, "```", "", "</details>"]
    lines.append("")
    for name, tr in r.tables.items():
        lines += _table_lines(r, name, tr)
    for fig in r.figures:
        if Path(fig).suffix == ".png":
            try:
                rp = Path(fig).resolve().relative_to(out.resolve())
            except ValueError:
                rp = Path(fig)
            lines += [f"![{Path(fig).stem}]({rp.as_posix()})", ""]
    return lines


def write_report(records: list[ConfigRecord], out_dir: str | os.PathLike, *, scale: str, command: str = "",
                 started: datetime | None = None, wall_time: float | None = None, ran: bool = True,
                 claims: list | None = None) -> Path:
    """Write ``REPORT.md``: a summary over the papers, then per paper its headline claims (each with
    the test that checks it and the verdict) and each table: the settings the scale changes, our
    table, and every published cell, ours (+- std, n) beside the paper's (+- std, n) with its verdict."""
    out = Path(out_dir)
    claims = claims or []
    cells = _all_cells(records, claims, scale)
    commit = _git_commit()
    lines = [f"# Reproduction report: {scale} scale", ""]
    meta = [f"- command: `{command}`" if command else None,
            f"- date: {(started or datetime.now(timezone.utc)).isoformat(timespec='seconds')}",
            f"- commit: {commit}" if commit else None,
            (f"- wall time: {wall_time:.0f} s" + ("" if ran else " (making this report from the stored runs)"))
            if wall_time is not None else None,
            _stored_runs_line(records),
            f"- machine: {platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} cores",
            f"- scale: {scale}" + ("" if scale == "full" else " (not the published protocol: each table lists the "
                                                                  "settings this scale changes)")]
    lines += [m for m in meta if m] + [""]
    lines += _summary_lines(cells, scale)
    for paper, title in PAPERS.items():
        recs = [r for r in records if r.paper == paper]
        mine = [(cl, res) for cl, res in claims if cl.paper == paper]
        if not recs and not mine:
            continue
        lines += [f"## {title}", ""] + _claim_lines(mine)
        head = cells[(cells["paper"] == paper) & (cells["table"] == "headline")] if len(cells) else cells
        if len(head):
            lines += ["Headline numbers of the paper's text, as cells:", ""] + _cell_table(head) + [""]
        for r in recs:
            lines += _config_lines(r, paper, out)
    path = out / "REPORT.md"
    path.write_text("\n".join(lines).rstrip() + "\n")
    return path


def _all_cells(records: list[ConfigRecord], claims: list, scale: str) -> pd.DataFrame:
    """The cells of ``records``, headline-number cells included (:func:`attach_headline`)."""
    return concat_cells(records)


def attach_headline(records: list[ConfigRecord], claims: list, scale: str) -> None:
    """Add the headline-number cells of ``claims`` (:func:`interpretopt.experiments.claims.claim_cells`)
    to the record of the first config each claim reads, so that every count of cells (the summary,
    ``cells.csv``, ``--check-values``) holds them."""
    from interpretopt.experiments.claims import claim_cells

    head = claim_cells(claims, scale=scale) if claims else None
    if head is None or not len(head):
        return
    by_key = {f"{r.paper}/{Path(r.path).stem}": r for r in records}
    for i in range(len(head)):
        rec = by_key.get(str(head["config"].iloc[i]).split(",")[0])  # the claim's tables, first the one it reads
        if rec is not None:
            row = head.iloc[[i]]
            rec.cells = pd.concat([rec.cells, row], ignore_index=True) if len(rec.cells) else row.reset_index(drop=True)


# ----------------------------------------------------------------------------- plan


def _cost_key(paper: str, path: str | os.PathLike) -> str:
    return f"{paper}/{Path(path).stem}"


def read_costs(*places: str | os.PathLike | None, configs_root: str | os.PathLike | None = None) -> dict:
    """Measured per-run costs, ``{"<paper>/<table>": {scale: {"per_run_s", "cpu_per_run_s", "n_runs",
    "config"}}}`` (wall and CPU seconds per run; ``config``: the hash of the config's runs part that was
    measured, :func:`fingerprint.config_runs_hash`), merged over the ``run_costs.json`` files of
    ``places`` (directories or files); later places win.

    A cost measured with another version of its config's runs part (methods, grids, datasets, scale
    sections: its ``config`` differs from today's config under ``configs_root``) says nothing about
    today's runs and is left out, so that ``--plan`` gives no estimate rather than a wrong one. An
    entry without ``config`` (measured before costs carried it) is kept."""
    return _current_costs(_merged_costs(places), configs_root)


def _merged_costs(places) -> dict:
    costs: dict = {}
    for place in places:
        if place is None:
            continue
        p = Path(place)
        p = p / COSTS_FILE if p.is_dir() else p
        if p.is_file():
            try:
                data = json.loads(p.read_text())
            except json.JSONDecodeError as e:
                raise InterpretoptError(f"{p} is not valid JSON ({e}); delete it or fix it") from None
            if not isinstance(data, dict):
                raise InterpretoptError(f"{p} must hold a JSON object of per-table costs, got {type(data).__name__}")
            for k, v in data.items():
                if isinstance(v, dict):
                    costs.setdefault(k, {}).update(v)
    return costs


def _current_costs(costs: dict, configs_root: str | os.PathLike | None) -> dict:
    """``costs`` without the entries measured with another version of their config's runs part."""
    from interpretopt.experiments.config import configs_root as shipped_root

    root = Path(configs_root) if configs_root is not None else Path(shipped_root())
    kept: dict = {}
    for key, by_scale in costs.items():
        path = root / f"{key}.yaml"
        today = config_runs_hash(path) if path.is_file() else None
        kept[key] = {s: e for s, e in by_scale.items()
                     if not isinstance(e, dict) or e.get("config") is None or today is None or e["config"] == today}
    return kept


def _per_run(entry: dict) -> float | None:
    """Seconds per run for one worker (:func:`progress.per_run`: the runner's plan line uses the same)."""
    from interpretopt.experiments.progress import per_run

    return per_run(entry)


def _dataset_names(config) -> list[str]:
    return sorted(d.name for d in config.datasets)


def plan(scale: str | None = None, *, papers: list[str] | None = None, costs: dict | None = None,
         configs_root: str | os.PathLike | None = None, out_root: str | os.PathLike | None = None) -> pd.DataFrame:
    """Runs and estimated time of every table config at each scale, before anything runs.

    The estimate is ``runs x measured seconds per run`` at that scale (CPU seconds where measured: a
    run is one process, so on an idle machine its wall time is about its CPU time). Where ``full``
    runs the datasets of ``reduced`` with more repetitions, a full scale without a measurement of its
    own is estimated from the reduced per-run cost (``basis`` says so). Where it runs other datasets
    (e.g. "What changed?": reduced holds bc and pima, full adds adult, heloc, magic, ...; heloc's runs
    cost 100 times bc's) the reduced cost says nothing about it and there is no estimate; nor is
    there for a scale with no measurement. A config with ``runs_from`` runs nothing of its own (it
    tabulates another table's runs): 0 runs, 0 seconds, and ``basis`` names that table. Where the
    cost holds CPU per run by dataset, the estimate is by dataset, a dataset never measured at the
    measured mean (``basis`` names it), and a cost measured on fewer runs than planned says so.

    With ``out_root`` (a reproduction's folder, ``<out_root>/<paper>/<table>`` as ``reproduce --all``
    lays it out) and one ``scale``, the frame also has ``done``, the ok runs already stored there that
    the runner would not run again (as ``reproduce`` counts them), and ``left``; the estimate is then
    that of the runs left. ``stale`` counts those of the ``done`` runs made by other code than today's (a
    table resting on them is recorded only as stale; ``--rerun-stale`` runs them again), and
    ``stale_estimate_s`` estimates running them again.
    """
    from interpretopt.experiments.config import load_config

    if out_root is not None and scale is None:
        raise InterpretoptError("the runs already done are counted at one scale: give --scale (or --smoke) "
                                "with --plan --out DIR")

    costs = costs or {}
    scales = SCALES if scale is None else (scale,)
    rows = []
    for paper, path in table_configs(configs_root, papers):
        key = _cost_key(paper, path)
        try:
            full = load_config(path)
        except InterpretoptError as e:
            rows.append({"table": key, "scale": "-", "runs": None, "per_run_s": None, "estimate_s": None,
                         "basis": f"config does not load: {e}", "done": 0, "stale": 0, "stale_estimate_s": None})
            continue
        for s in scales:
            folder = None if out_root is None else Path(out_root) / key
            rows.append(_plan_row(key, paper, full, s, costs.get(key, {}), folder))
    df = pd.DataFrame(rows, columns=["table", "scale", "runs", "per_run_s", "estimate_s", "basis", "done", "stale",
                                     "stale_estimate_s"])
    if out_root is None:
        return df.drop(columns=["done", "stale", "stale_estimate_s"])
    df["left"] = (df["runs"].fillna(0) - df["done"]).clip(lower=0).astype(int)
    return df


def _plan_row(key: str, paper: str, full, scale: str, known: dict, folder: Path | None) -> dict:
    """One row of :func:`plan`: the runs of table ``key`` at ``scale``, those already stored in ``folder``
    (``done``; 0 without a folder) and the estimate of the rest from its measured costs ``known``."""
    scaled = full.with_scale(scale)
    n = count_runs(scaled)
    if full.runs_from:
        return {"table": key, "scale": scale, "runs": 0, "per_run_s": 0.0, "estimate_s": 0.0, "done": 0,
                "stale": 0, "stale_estimate_s": 0.0, "basis": f"tabulates the runs of {paper}/{full.runs_from} ({n} runs)"}
    planned = _runs_by_dataset(scaled)
    left, stale = (_stored_by_dataset(scaled, folder, planned) if folder is not None and folder.is_dir()
                   else (planned, {}))
    src = scale if scale in known else None
    basis, per, estimate = "no measurement", None, None
    if src is None and scale == "full" and "reduced" in known:
        if _dataset_names(scaled) == _dataset_names(full.with_scale("reduced")):
            src = "reduced"
        else:
            basis = "no measurement (reduced scale runs other datasets)"
    stale_estimate = None
    if src is not None:
        per = _per_run(known[src])
        where = scale if src == scale else "reduced scale"
        estimate, basis = _measured_estimate(left, n, per, known[src], where)
        stale_estimate = _measured_estimate(stale, n, per, known[src], where)[0] if stale else 0.0
    return {"table": key, "scale": scale, "runs": n, "per_run_s": per, "estimate_s": estimate, "basis": basis,
            "done": sum(planned.values()) - sum(left.values()), "stale": sum(stale.values()),
            "stale_estimate_s": stale_estimate}


def _measured_estimate(left: dict[str, int], n: int, per: float | None, entry: dict,
                       where: str) -> tuple[float | None, str]:
    """``(estimate, basis)`` of the runs ``left`` (``{dataset label: runs}``) of a table of ``n`` runs, from
    one measured cost ``entry`` (made at ``where``).

    The estimate is by dataset where the entry has ``cpu_by_dataset``: the datasets of one table can
    differ fivefold or more ("What changed?": heloc's runs 80 CPU s against bc's 1; ABBR's certify:
    adult's 111, the next datasets' about 500), so a dataset left that was measured on none of its
    runs is estimated at the measured mean and ``basis`` names it; a cost measured on fewer runs than
    planned says so ("16 of 80 runs")."""
    what = "CPU" if entry.get("cpu_per_run_s") is not None else "wall"
    measured = entry.get("n_runs")
    if where == "reduced scale":
        basis = f"{what} per run measured at reduced scale"
    else:
        of = f" of {n}" if isinstance(measured, int) and measured < n else ""
        basis = f"{what} per run measured at {where} ({measured}{of} runs)"
    if per is None:
        return None, basis
    by_ds = entry.get("cpu_by_dataset") or {}
    if not by_ds:
        return float(per * sum(left.values())), basis
    unmeasured = sorted(ds for ds, k in left.items() if k and ds not in by_ds)
    if len(by_ds) > 1 or unmeasured:
        basis += ", by dataset" + (f" ({', '.join(unmeasured)} at the mean: not measured)" if unmeasured else "")
    return float(sum(k * by_ds.get(ds, per) for ds, k in left.items())), basis


def _runs_by_dataset(config) -> dict[str, int]:
    """``{dataset label: planned runs}`` of ``config``."""
    return {d.label: count_runs(config.with_datasets([d.label])) for d in config.datasets}


def _stored_by_dataset(config, folder: Path, planned: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """``({dataset label: runs left}, {dataset label: stale runs})`` of ``config`` (``planned``: its runs by
    dataset): the runs left are those planned less the ok runs stored in ``folder`` (as ``reproduce`` counts
    them), and the stale ones are the stored ok runs made by other code than today's (which ``reproduce``
    keeps, and ``--rerun-stale`` runs again). ``(planned, {})`` when its rows do not read (the run itself
    reports them)."""
    from interpretopt.experiments.fingerprint import table_fresh_rows
    from interpretopt.experiments.runner import stored_results

    try:
        rows = stored_results(config, folder, ok_only=True)
    except InterpretoptError:
        return planned, {}
    if not len(rows) or "dataset" not in rows.columns:
        return planned, {}
    fresh = table_fresh_rows(config, folder, rows)
    datasets = rows["dataset"].astype(str)
    counts = datasets.value_counts()
    stale = datasets[[not f for f in fresh]].value_counts()
    left = {label: max(0, n - int(counts.get(label, 0))) for label, n in planned.items()}
    return left, {label: min(n, int(stale.get(label, 0))) for label, n in planned.items() if stale.get(label, 0)}
