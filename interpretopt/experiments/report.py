"""Reproduction records: one row per published cell, and the report over all five papers.

Every table config under ``configs/<paper>/`` carries the paper's numbers in its tables'
``reference`` blocks. :func:`cell_records` turns a config and its results into one row per
published cell (:data:`CELL_COLUMNS`)::

    paper, table, row, column, paper_value, paper_std, ours, ours_std, ours_min, ours_max, n_runs,
    scale, status, reason, diff, tolerance, within_tolerance, config, pair_paper, pair_ours

(``ours_min``, ``ours_max``: the smallest and largest value over the cell's runs; the range
that runs at other root seeds, ``reproduce --seed N``, widen to the spread over random splits)

``status`` is

* ``compared``: we have a number for the cell (``ours`` is the mean over ``n_runs`` runs);
* ``no_data``: the cell's dataset is not held (``reason`` says why, e.g. "juvenile is not
  redistributable", or that its file is missing from the data directory);
* ``not_run``: the data is held but no run of ours gave the cell (not at this scale, a
  failed run, a column we do not implement; ``reason`` says which).

A compared cell agrees (``within_tolerance``) when ``|ours - paper|`` is at most the paper's
standard deviation where it prints one, else the reference's ``tolerance`` (default 0.03,
absolute, in the table's own units). A printed std of 0 (a rounded small std) counts as
none printed: a tolerance of zero would demand agreement in digits the paper rounded away.

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

__all__ = [
    "CELL_COLUMNS", "PAPERS", "DEFAULT_TOLERANCE", "ConfigRecord", "table_configs", "protocol_notes",
    "count_runs", "cell_records", "summarize_cells", "reproduce_config", "reproduce_all", "write_report",
    "plan", "read_costs", "compared_share", "concat_cells", "write_record",
]

CELL_COLUMNS = ("paper", "table", "row", "column", "paper_value", "paper_std", "ours", "ours_std", "ours_min",
                "ours_max", "n_runs", "scale",
                "status", "reason", "diff", "tolerance", "within_tolerance", "config", "pair_paper", "pair_ours")
CELL_STATUSES = ("compared", "no_data", "not_run")
DEFAULT_TOLERANCE = 0.03
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
                 published: ExperimentConfig | None = None) -> pd.DataFrame:
    """One row per published cell of ``config``'s tables (see the module docstring).

    Whether a cell has data is decided by the published (full-scale) config's datasets: a
    dataset that a smaller scale leaves out is held all the same, so its cells are ``not_run``
    ("not among the smoke scale's datasets"), never ``no_data``.

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
    """
    from interpretopt.data import unavailable_reason
    from interpretopt.experiments.tables import make_table

    published = config if published is None else published
    held = _held_datasets(published, data_dir) if held is None else held
    at_scale = {d.label for d in config.datasets}
    # datasets of the scale that `--datasets` left out (not run, by choice), told apart from the scale's own cut
    deselected = set() if config.hash_datasets is None else {d.label for d in config.hash_datasets} - at_scale
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
        tol_default = ref.tolerance if ref.tolerance is not None else DEFAULT_TOLERANCE
        for r, row in ref.values.items():
            for c, paper_value in row.items():
                std = ref.stds.get(r, {}).get(c)
                rec = {"paper": paper, "table": spec.name, "row": r, "column": c, "paper_value": paper_value,
                       "paper_std": std, "ours": np.nan, "ours_std": np.nan, "ours_min": np.nan, "ours_max": np.nan,
                       "n_runs": 0, "scale": config.scale,
                       "status": "not_run", "reason": "", "diff": np.nan,
                       "tolerance": std if std else tol_default, "within_tolerance": None,
                       "config": config.path, "pair_paper": ref.pairs.get(r), "pair_ours": None}
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
                    rec["reason"] = err
                else:
                    ours = tr.mean.loc[r, c] if (r in tr.mean.index and c in tr.mean.columns) else np.nan
                    summary = r not in tr.mean.index and tr.comparison is not None  # mean rank, p, wins rows
                    if summary:
                        hit = tr.comparison[(tr.comparison.row == r) & (tr.comparison.column == c)]
                        ours = float(hit.ours.iloc[0]) if len(hit) else np.nan
                    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
                        rec["reason"] = _why_not_run(tr, r, c, config.scale) + _skips(results, ds)
                    else:
                        n = int(tr.count.loc[r, c]) if not summary else int(tr.n_runs)
                        sd = tr.std.loc[r, c] if not summary else np.nan
                        rec.update(status="compared", ours=float(ours), ours_std=float(sd) if n > 1 else np.nan,
                                   n_runs=n)
                        if not summary and tr.min is not None:
                            rec.update(ours_min=float(tr.min.loc[r, c]), ours_max=float(tr.max.loc[r, c]))
                        if paper_value is not None:
                            rec["diff"] = float(ours) - paper_value
                            rec["within_tolerance"] = bool(abs(rec["diff"]) <= rec["tolerance"] + 1e-12)
                recs.append(rec)
    return pd.DataFrame(recs, columns=list(CELL_COLUMNS))


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
    """Per paper: published cells, with data, compared, within tolerance, no data, not run, share compared."""
    rows = []
    groups = list(cells.groupby("paper", sort=False)) if len(cells) else []
    for paper, g in groups + [("all", cells)]:
        n = len(g)
        comp = int((g["status"] == "compared").sum()) if n else 0
        nod = int((g["status"] == "no_data").sum()) if n else 0
        within = int(g["within_tolerance"].fillna(False).astype(bool).sum()) if n else 0
        with_data = n - nod
        rows.append({"paper": paper, "published": n, "with_data": with_data, "compared": comp,
                     "within_tolerance": within, "no_data": nod, "not_run": n - nod - comp,
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


def reproduce_config(path: str | os.PathLike, scale: str, out_dir: str | os.PathLike, *, paper: str = "",
                     run: bool = True, n_jobs: int = 1, scheduler: str | None = None, force: bool = False,
                     data_dir: str | None = None, progress: bool | None = False, plots: bool = True,
                     seed: int | None = None, datasets=None) -> ConfigRecord:
    """Run one config at ``scale`` into ``out_dir`` (resumable), then make its tables, cells and figures.

    ``seed`` replaces the config's root seed (:meth:`ExperimentConfig.with_seed`): the same
    protocol on other random splits, to measure the spread of the cells over splits.
    ``datasets`` (dataset labels) runs only those datasets (:meth:`ExperimentConfig.with_datasets`):
    the same runs as the whole table's, the other datasets' cells not run.

    A config that fails to load or run is recorded with ``error`` and every one of its
    published cells as ``not_run``; nothing is raised, so one table does not stop a report.
    """
    from interpretopt.experiments.config import load_config
    from interpretopt.experiments.runner import run_experiment, runs_source, stored_results
    from interpretopt.experiments.tables import make_table

    out = Path(out_dir)
    paper = paper or Path(path).parent.name
    try:
        published = load_config(path)  # the full-scale config decides which cells have data
        config = published.with_scale(scale)
        if seed is not None:
            config = config.with_seed(seed)
        if datasets is not None:
            config = config.with_datasets(datasets)
    except InterpretoptError as e:
        empty = pd.DataFrame(columns=list(CELL_COLUMNS))
        return ConfigRecord(paper, str(path), None, out, empty, error=f"config does not load: {e}")  # type: ignore[arg-type]
    rec = ConfigRecord(paper, str(path), config, out, pd.DataFrame(columns=list(CELL_COLUMNS)))
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
    rec.cells = cell_records(config, results, paper=paper, data_dir=data_dir, published=published)
    if rec.error:
        blank = (rec.cells["status"] == "not_run") & (rec.cells["reason"] == "")
        rec.cells.loc[blank, "reason"] = rec.error
    return rec


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
    cells = concat_cells(records)
    cells.to_csv(out / "cells.csv", index=False)
    costs = read_costs(out)
    for r in records:
        if r.per_run_time is not None and r.config is not None:
            entry = {"per_run_s": round(r.per_run_time, 4), "n_runs": r.n_runs}
            if r.cpu_time and r.n_runs:
                entry["cpu_per_run_s"] = round(r.cpu_time / r.n_runs, 4)
            costs.setdefault(_cost_key(r.paper, r.path), {})[scale] = entry
    (out / COSTS_FILE).write_text(json.dumps(costs, indent=1, sort_keys=True) + "\n")
    write_report(records, out, scale=scale, command=command, started=started, wall_time=time.perf_counter() - t0,
                 ran=run)
    return records


# ----------------------------------------------------------------------------- report


def _fmt(x: Any, d: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{d}f}" if isinstance(x, (float, np.floating)) else str(x)


def _stored_runs_line(records: list[ConfigRecord]) -> str | None:
    """``- runs: N stored (CPU ...), at commits ...``: what the tables rest on, which a report made
    with ``--no-run`` does not show in its own wall time."""
    n = sum(r.n_runs for r in records)
    if not n:
        return None
    cpu = sum(r.cpu_time for r in records)
    commits = sorted({c[:12] for r in records for c in r.commits})
    shown = ", ".join(commits[:6]) + (f", ... ({len(commits)} commits)" if len(commits) > 6 else "")
    return (f"- runs: {n} stored, {cpu / 3600:.2f} CPU hours in all"
            + (f", made at commit{'s' if len(commits) > 1 else ''} {shown}" if commits else ""))


def write_report(records: list[ConfigRecord], out_dir: str | os.PathLike, *, scale: str, command: str = "",
                 started: datetime | None = None, wall_time: float | None = None, ran: bool = True) -> Path:
    """Write ``REPORT.md``: a summary over the papers, then per paper each table beside the paper's."""
    from interpretopt.experiments.tables import to_markdown

    out = Path(out_dir)
    cells = concat_cells(records)
    summ = summarize_cells(cells) if len(cells) else pd.DataFrame()
    commit = _git_commit()
    lines = [f"# Reproduction report: {scale} scale", ""]
    meta = [f"- command: `{command}`" if command else None,
            f"- date: {(started or datetime.now(timezone.utc)).isoformat(timespec='seconds')}",
            f"- commit: {commit}" if commit else None,
            (f"- wall time: {wall_time:.0f} s" + ("" if ran else " (making this report from the stored runs)"))
            if wall_time is not None else None,
            _stored_runs_line(records),
            f"- machine: {platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} cores",
            f"- scale: {scale}" + ("" if scale == "full" else " (not the published protocol: see each table's "
                                                                  "protocol notes for what is reduced)")]
    lines += [m for m in meta if m] + [""]
    lines += ["## Summary", "",
              "A published cell is *compared* when we have a number for it, *no data* when its dataset is not "
              f"held, *not run* otherwise. A compared cell agrees when |ours - paper| is within the paper's "
              f"standard deviation, or {DEFAULT_TOLERANCE} absolute (in the table's units) where the paper gives "
              "none or the config states another tolerance.", ""]
    if len(summ):
        lines.append("| paper | published cells | with data | compared | share compared | within tolerance "
                     "| no data | not run |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for s in summ.itertuples():
            lines.append(f"| {s.paper} | {s.published} | {s.with_data} | {s.compared} | {_fmt(s.compared_share, 2)} "
                         f"| {s.within_tolerance} | {s.no_data} | {s.not_run} |")
        lines += ["", f"<!-- compared-share {scale}: {_fmt(compared_share(cells), 4)} -->", ""]
    for paper, title in PAPERS.items():
        recs = [r for r in records if r.paper == paper]
        if not recs:
            continue
        lines += [f"## {title}", ""]
        for r in recs:
            rel = Path(r.path).name if r.config is None else f"{paper}/{Path(r.path).stem}"
            lines += [f"### {rel}", ""]
            if r.config is not None and r.config.description:
                lines += [" ".join(r.config.description.split()), ""]
            planned = "" if r.n_planned is None else f" of {r.n_planned} planned"
            lines.append(f"Runs: {r.n_runs}{planned} ({r.n_ok} ok, {r.n_failed} failed)"
                         + (f"; wall time {r.wall_time:.0f} s" if r.wall_time else "")
                         + (f"; CPU {r.cpu_time:.0f} s" if r.cpu_time else "")
                         + (f"; run at commit {', '.join(r.commits)}" if r.commits else "") + ".")
            if r.error:
                lines += ["", f"**Problem:** {r.error}"]
            notes = protocol_notes(r.path) if Path(r.path).is_file() else ""
            if notes:
                lines += ["", "<details><summary>Protocol notes (from the config header)</summary>", "", "```text",
                          notes, "```", "", "</details>"]
            lines.append("")
            for name, tr in r.tables.items():
                lines += [to_markdown(tr).replace("### ", "#### ", 1), ""]
            c = r.cells
            if len(c):
                nc = c[c["status"] != "compared"]
                n_comp = int((c["status"] == "compared").sum())
                n_within = int(c["within_tolerance"].fillna(False).astype(bool).sum())
                lines.append(f"Published cells: {len(c)}; compared {n_comp}, within tolerance {n_within}; "
                             f"not compared {len(nc)}.")
                if len(nc):
                    lines.append("")
                    for (status, reason), g in nc.groupby(["status", "reason"], sort=False):
                        lines.append(f"- {len(g)} {status.replace('_', ' ')}: {reason}")
                lines.append("")
            for fig in r.figures:
                if Path(fig).suffix == ".png":
                    try:
                        rp = Path(fig).resolve().relative_to(out.resolve())
                    except ValueError:
                        rp = Path(fig)
                    lines += [f"![{Path(fig).stem}]({rp.as_posix()})", ""]
    path = out / "REPORT.md"
    path.write_text("\n".join(lines).rstrip() + "\n")
    return path


# ----------------------------------------------------------------------------- record

RECORD_TITLE = "# Reproduction record"
_RECORD_INTRO = """\
What `interpretopt reproduce --all` gave on this project's own machine, one section per scale,
each written by the command it names (`--record docs/reproduction.md`). The reduced-scale
section is the reproduction record: ours beside every published cell we hold data for. The
smoke-scale section is what CI checks: `interpretopt reproduce --all --scale smoke
--min-compared-share @docs/reproduction.md` fails when fewer cells are compared than it records.
The full scale runs paper by paper (`--paper`), each in a section of its own (`full scale [abbr]`).
Refresh a section whenever a method's results change."""


def record_key(scale: str, papers: list[str] | None = None) -> str:
    """The name of a record section: the scale, with the papers it covers when it covers some
    (``"full [abbr]"``); its markers and its ``compared-share`` line carry this name."""
    return scale if not papers else f"{scale} [{'+'.join(sorted(set(papers)))}]"


def _section_markers(scale: str, papers: list[str] | None = None) -> tuple[str, str]:
    scale, _, rest = record_key(scale, papers).partition(" ")
    tail = f" {rest}" if rest else ""
    return f"<!-- begin {scale} scale{tail} -->", f"<!-- end {scale} scale{tail} -->"


_RECORD_ORDER = ("reduced", "smoke", "full")  # the reproduction record first, then what CI checks


def write_record(report: str | os.PathLike, record: str | os.PathLike, *, scale: str,
                 papers: list[str] | None = None, summary_only: bool | None = None) -> Path:
    """Put ``report`` (a ``REPORT.md``) into the record file ``record`` as its ``scale`` section.

    The other sections are kept; headings move one level down; figure links, which point
    into the run directory, become the figure's name. ``summary_only`` (default: for smoke)
    keeps the report's header and summary only. A report of some papers only (``--paper``)
    is its own section, ``record_key(scale, papers)``: the full scale runs paper by paper
    (hours each), and one paper's report must not replace another's.
    """
    key = record_key(scale, papers)
    text = Path(report).read_text()
    summary_only = (scale == "smoke") if summary_only is None else summary_only
    lines = text.splitlines()
    if summary_only:
        cut = next((i for i, ln in enumerate(lines) if ln.startswith("## ") and not ln.startswith("## Summary")),
                   len(lines))
        lines = lines[:cut]
    body = []
    for ln in lines:
        if ln.startswith("#"):
            ln = "#" + ln
        if ln.startswith("![") and "](" in ln:
            ln = f"(figure `{ln[2:ln.index(']')]}` in the run directory)"
        body.append(ln)
    marker = re.compile(rf"<!-- compared-share {re.escape(scale)}: ([0-9.]+) -->")
    for i, ln in enumerate(body):
        m = marker.fullmatch(ln.strip())
        if m:  # the floor a check holds later runs to: the share rounded down to two decimals
            floor = math.floor(float(m.group(1)) * 100) / 100
            body[i] = (f"Compared share of the cells with data: {float(m.group(1)):.4f}; a check against this record "
                       f"(`--min-compared-share @{Path(record).as_posix()}`) requires at least {floor:.2f}, the share "
                       "rounded down to two decimals, so that a time-limited solve finishing differently on another "
                       f"run does not fail it.\n\n<!-- compared-share {key}: {floor:.2f} -->")
    begin, end = _section_markers(scale, papers)
    section = "\n".join([begin, *body, end])
    path = Path(record)
    old = path.read_text() if path.is_file() else f"{RECORD_TITLE}\n\n{_RECORD_INTRO}\n"
    if begin in old and end in old:
        new = old[:old.index(begin)] + section + old[old.index(end) + len(end):]
    else:  # sections in _RECORD_ORDER: a new one goes before the first section of a later scale present
        later = [m.start() for s in _RECORD_ORDER[_RECORD_ORDER.index(scale) + 1:]
                 for m in re.finditer(rf"<!-- begin {re.escape(s)} scale( \[[^\]]*\])? -->", old)]
        new = (old[:min(later)] + section + "\n\n" + old[min(later):]) if later else (old.rstrip() + "\n\n" + section + "\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new)
    return path


# ----------------------------------------------------------------------------- plan


def _cost_key(paper: str, path: str | os.PathLike) -> str:
    return f"{paper}/{Path(path).stem}"


def read_costs(*places: str | os.PathLike | None) -> dict:
    """Measured per-run costs, ``{"<paper>/<table>": {scale: {"per_run_s", "cpu_per_run_s", "n_runs"}}}``
    (wall and CPU seconds per run), merged over the
    ``run_costs.json`` files of ``places`` (directories or files); later places win."""
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


def _per_run(entry: dict) -> float | None:
    """Seconds per run for one worker: the measured CPU per run where known (the wall time of a run
    on a loaded machine overstates it), else the measured wall time."""
    cpu = entry.get("cpu_per_run_s")
    return float(cpu) if cpu is not None else entry.get("per_run_s")


def _dataset_names(config) -> list[str]:
    return sorted(d.name for d in config.datasets)


def plan(scale: str | None = None, *, papers: list[str] | None = None, costs: dict | None = None,
         configs_root: str | os.PathLike | None = None) -> pd.DataFrame:
    """Runs and estimated time of every table config at each scale, before anything runs.

    The estimate is ``runs x measured seconds per run`` at that scale (CPU seconds where measured: a
    run is one process, so on an idle machine its wall time is about its CPU time). Where ``full``
    runs the datasets of ``reduced`` with more repetitions, a full scale without a measurement of its
    own is estimated from the reduced per-run cost (``basis`` says so). Where it runs other datasets
    (e.g. "What changed?": reduced holds bc and pima, full adds adult, heloc, magic, ...; heloc's runs
    cost 100 times bc's) the reduced cost says nothing about it and there is no estimate; nor is
    there for a scale with no measurement.
    """
    from interpretopt.experiments.config import load_config

    costs = costs or {}
    scales = SCALES if scale is None else (scale,)
    rows = []
    for paper, path in table_configs(configs_root, papers):
        key = _cost_key(paper, path)
        try:
            full = load_config(path)
        except InterpretoptError as e:
            rows.append({"table": key, "scale": "-", "runs": None, "per_run_s": None, "estimate_s": None,
                         "basis": f"config does not load: {e}"})
            continue
        for s in scales:
            scaled = full.with_scale(s)
            n = count_runs(scaled)
            known = costs.get(key, {})
            basis, per = "", None
            src = s if s in known else None
            if src is None and s == "full" and "reduced" in known:
                if _dataset_names(scaled) == _dataset_names(full.with_scale("reduced")):
                    src = "reduced"
                else:
                    basis = "no measurement (reduced scale runs other datasets)"
            if src is not None:
                per = _per_run(known[src])
                what = "CPU" if known[src].get("cpu_per_run_s") is not None else "wall"
                basis = (f"{what} per run measured at {s} ({known[s].get('n_runs')} runs)" if src == s else
                         f"{what} per run measured at reduced scale")
            rows.append({"table": key, "scale": s, "runs": n, "per_run_s": per,
                         "estimate_s": None if per is None else n * per, "basis": basis or "no measurement"})
    return pd.DataFrame(rows, columns=["table", "scale", "runs", "per_run_s", "estimate_s", "basis"])
