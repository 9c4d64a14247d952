"""Figures from the results alone (matplotlib, Agg backend): PNG and SVG by default.

* ``line``: mean of ``y`` against ``x`` (e.g. fidelity against depth or alpha), one line per
  ``hue`` value, with a ±1 standard deviation band over repetitions.
* ``bar``: mean of ``y`` for each ``x`` category, grouped by ``hue``, with std error bars
  (e.g. precision bars).
* ``tradeoff``: every (``x``, ``y``) point per ``hue`` (e.g. F1 against the number of rules),
  with the Pareto-efficient points joined when ``pareto`` is set (larger ``y`` and smaller
  ``x`` are better).

``facet`` makes one figure per value of that column (file ``<name>_<value>.<fmt>``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from interpretopt.exceptions import InputError
from interpretopt.experiments.config import ExperimentConfig, PlotSpec
from interpretopt.experiments.tables import apply_filter

__all__ = ["make_figure", "write_plots", "pareto_front"]


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def pareto_front(x, y) -> np.ndarray:
    """Indices of the points not dominated (smaller ``x`` and larger ``y`` are better), by ``x``."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.lexsort((-y, x))
    keep, best = [], -np.inf
    for i in order:
        if y[i] > best:
            keep.append(i)
            best = y[i]
    return np.asarray(keep, dtype=int)


def _sorted_unique(values) -> list:
    vals = list(pd.unique(pd.Series(list(values))))

    def key(v):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return (2, 0.0, "")
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            return (0, float(v), "")
        return (1, 0.0, str(v))

    return sorted(vals, key=key)


def make_figure(results: pd.DataFrame, spec: PlotSpec, *, title: str | None = None):
    """Build the matplotlib figure of ``spec`` from ``results`` (``run_status == "ok"`` rows)."""
    plt = _plt()
    df = results
    if "run_status" in df.columns:
        df = df[df["run_status"] == "ok"]
    need = [spec.x, spec.y] + [c for c in (spec.hue,) if c]
    missing = [c for c in need if c not in results.columns]
    if missing:
        raise InputError(f"plot {spec.name!r}: column(s) {missing} are not in the results; "
                         f"columns: {', '.join(map(str, results.columns))}")
    df = apply_filter(df, spec.filter)
    y = pd.to_numeric(df[spec.y], errors="coerce")
    df = df.assign(_y=y)
    hues = _sorted_unique(df[spec.hue]) if spec.hue else [None]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    if spec.kind == "line":
        for h in hues:
            sub = df if h is None else df[df[spec.hue] == h]
            g = sub.groupby(spec.x, sort=True)["_y"]
            m, s = g.mean(), g.std(ddof=1).fillna(0.0)
            xs = np.asarray(m.index, dtype=float) if _numeric(m.index) else np.arange(len(m))
            ax.plot(xs, m.to_numpy(), marker="o", label=None if h is None else str(h))
            ax.fill_between(xs, (m - s).to_numpy(), (m + s).to_numpy(), alpha=0.2)
            if not _numeric(m.index):
                ax.set_xticks(xs, [str(v) for v in m.index])
    elif spec.kind == "bar":
        cats = _sorted_unique(df[spec.x])
        width = 0.8 / max(1, len(hues))
        for k, h in enumerate(hues):
            sub = df if h is None else df[df[spec.hue] == h]
            g = sub.groupby(spec.x)["_y"]
            m = g.mean().reindex(cats)
            s = g.std(ddof=1).reindex(cats).fillna(0.0)
            pos = np.arange(len(cats)) + (k - (len(hues) - 1) / 2) * width
            ax.bar(pos, m.to_numpy(), width, yerr=s.to_numpy(), capsize=3, label=None if h is None else str(h))
        ax.set_xticks(np.arange(len(cats)), [str(c) for c in cats], rotation=30 if len(cats) > 4 else 0)
    elif spec.kind == "tradeoff":
        for h in hues:
            sub = df if h is None else df[df[spec.hue] == h]
            xs = pd.to_numeric(sub[spec.x], errors="coerce").to_numpy(dtype=float)
            ys = sub["_y"].to_numpy(dtype=float)
            ok = ~(np.isnan(xs) | np.isnan(ys))
            xs, ys = xs[ok], ys[ok]
            pts = ax.scatter(xs, ys, s=18, alpha=0.6, label=None if h is None else str(h))
            if spec.pareto and xs.size:
                front = pareto_front(xs, ys)
                ax.plot(xs[front], ys[front], color=pts.get_facecolor()[0][:3], drawstyle="steps-post")
    else:  # pragma: no cover - validated by the config
        raise InputError(f"unknown plot kind {spec.kind!r}")
    if spec.logx:
        ax.set_xscale("log")
    if spec.logy:
        ax.set_yscale("log")
    ax.set_xlabel(spec.x)
    ax.set_ylabel(spec.y)
    ax.set_title(title if title is not None else (spec.title or spec.name))
    if spec.hue and len(hues) > 0:
        ax.legend(title=spec.hue, fontsize="small")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def _numeric(index) -> bool:
    try:
        np.asarray(index, dtype=float)
        return not any(isinstance(v, bool) for v in index)
    except (TypeError, ValueError):
        return False


def _safe(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", str(s)).strip("_") or "x"


def _plot_path(out: Path, name: str, stem: str, fmt: str) -> Path:
    """``<out>/<stem>.<fmt>``; a plot name that is not a plain file name is refused (it would leave ``out``)."""
    from interpretopt.experiments._paths import check_name, inside

    check_name(name, "plot name")
    return inside(out, f"{stem}.{fmt}", what="plot name")


def _check_plot_names(config: ExperimentConfig) -> None:
    """Every plot name is a plain file name, checked before anything is written."""
    from interpretopt.experiments._paths import check_name

    for spec in config.plots:
        check_name(spec.name, "plot name")


def write_plots(results: pd.DataFrame, config: ExperimentConfig, out_dir: str | Path,
                names: list[str] | None = None) -> list[Path]:
    """Write every plot of ``config`` to ``<out_dir>/plots/``; returns the files written."""
    plt = _plt()
    _check_plot_names(config)
    out = Path(out_dir) / "plots"
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for spec in config.plots:
        if names and spec.name not in names:
            continue
        if spec.facet:
            if spec.facet not in results.columns:
                raise InputError(f"plot {spec.name!r}: facet column {spec.facet!r} is not in the results")
            groups = [(v, results[results[spec.facet] == v]) for v in _sorted_unique(results[spec.facet].dropna())]
        else:
            groups = [(None, results)]
        for value, sub in groups:
            title = (spec.title or spec.name) + ("" if value is None else f" ({spec.facet}={value})")
            fig = make_figure(sub, spec, title=title)
            stem = spec.name if value is None else f"{spec.name}_{_safe(value)}"
            for fmt in spec.formats:
                path = _plot_path(out, spec.name, stem, fmt)
                fig.savefig(path, dpi=120)
                written.append(path)
            plt.close(fig)
    return written
