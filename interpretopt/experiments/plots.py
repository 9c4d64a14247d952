"""Figures from the results alone (matplotlib, Agg backend): PNG and SVG by default.

* ``line``: mean of ``y`` against ``x`` (e.g. fidelity against depth or alpha), one line per
  ``hue`` value, with a ±1 standard deviation band over repetitions.
* ``bar``: mean of ``y`` for each ``x`` category, grouped by ``hue``, with std error bars
  (e.g. precision bars).
* ``tradeoff``: every (``x``, ``y``) point per ``hue`` (e.g. F1 against the number of rules),
  with the Pareto-efficient points joined when ``pareto`` is set (larger ``y`` and smaller
  ``x`` are better).

``facet`` makes one figure per value of that column (file ``<name>_<value>.<fmt>``).

Figures read as a paper's: axis labels and titles in words (:func:`readable`, ``acc_t050`` ->
"accuracy at transparency 0.50"), integer ticks on an axis whose values are integers, and the
paper's values beside ours wherever a table of the config publishes the plotted metric over the
plotted axes (:func:`paper_points`: black diamonds, with the paper's std as error bars).
Two figures are drawn from the report's cells and runs rather than from a ``plots:`` entry:
:func:`paper_vs_ours_figure` (every compared cell of a table, ours against the paper's, coloured
by verdict) and :func:`transparency_figure` (the CRL paper's transparency-accuracy curves, with
the CART and C4.5 trees as marks at full transparency and the black box at none).
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

__all__ = ["make_figure", "write_plots", "pareto_front", "readable", "paper_points", "paper_vs_ours_figure",
           "transparency_figure", "transparency_columns"]

_WORDS = {"acc": "accuracy", "autac": "AUTAC", "f1": "F1", "n": "number of", "bg": "B+", "sim": "similarity",
          "sem": "semantic", "stat": "statistical", "p": "p", "c": "c", "u": "u"}
_NAMES = {"autac": "AUTAC", "p": "perturbation probability p",
          "c_u": "c_u (grounding weight)", "max_depth": "maximum depth", "n_rules": "number of rules",
          "optimality_ratio": "optimality ratio", "flip_prob": "flip probability", "s": "target support s",
          "pair_tag": "model pair", "certain_model_parity": "certain model parity (%)", "depth": "depth",
          "label": "configuration", "learner": "learner", "variant": "variant", "dataset": "dataset"}


def readable(key: str) -> str:
    """A result column or plot name in words: ``acc_t050`` -> "accuracy at transparency 0.50"."""
    k = str(key)
    if k in _NAMES:
        return _NAMES[k]
    m = re.fullmatch(r"acc_t(\d{3})", k)
    if m:
        return f"accuracy at transparency {int(m.group(1)) / 100:.2f}"
    words = [w for w in re.split(r"[_\s]+", k) if w]
    return " ".join(_WORDS.get(w.lower(), w) for w in words) or k


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


def make_figure(results: pd.DataFrame, spec: PlotSpec, *, title: str | None = None, paper: dict | None = None):
    """Build the matplotlib figure of ``spec`` from ``results`` (``run_status == "ok"`` rows); ``paper``
    (:func:`paper_points`) adds the paper's values beside ours."""
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
    cats = None
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
    if paper is not None:
        _draw_paper(ax, spec, paper, hues, cats if spec.kind == "bar" else None)
    ax.set_xlabel(readable(spec.x))
    ax.set_ylabel(readable(spec.y))
    _integer_ticks(ax, df[spec.x] if spec.kind != "bar" else None, df["_y"])
    ax.set_title(title if title is not None else (spec.title or readable(spec.name)))
    if (spec.hue and len(hues) > 0) or paper is not None:
        ax.legend(title=readable(spec.hue) if spec.hue else None, fontsize="small")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def _integer_ticks(ax, xs, ys) -> None:
    """Integer tick marks on an axis whose values are all integers (depths, counts)."""
    from matplotlib.ticker import MaxNLocator

    for vals, axis in ((xs, ax.xaxis), (ys, ax.yaxis)):
        if vals is None:
            continue
        v = pd.to_numeric(pd.Series(list(vals)), errors="coerce").dropna().to_numpy(dtype=float)
        if v.size and np.all(np.isclose(v, np.round(v))):
            axis.set_major_locator(MaxNLocator(integer=True))


def paper_points(config: ExperimentConfig, spec: PlotSpec, facet_value=None) -> dict | None:
    """The paper's values for a plot: ``{(x label, hue label): (value, std)}`` from a table of ``config``
    with the plot's metric, rows ``[x]`` (or ``[facet, x]``) and columns ``[hue]``; ``None`` when no
    table publishes them."""
    from interpretopt.experiments.tables import SEP

    for t in config.tables:
        ref = t.reference
        if ref is None or not ref.values or t.metric != spec.y or not spec.hue or tuple(t.columns) != (spec.hue,):
            continue
        if tuple(t.rows) == (spec.x,) and facet_value is None:
            split = (lambda r: r)
        elif spec.facet and tuple(t.rows) == (spec.facet, spec.x) and facet_value is not None:
            split = (lambda r: r.split(SEP, 1)[1] if r.startswith(f"{facet_value}{SEP}") else None)
        else:
            continue
        out = {}
        for r, row in ref.values.items():
            x = split(r)
            if x is None:
                continue
            for c, v in row.items():
                if v is not None:
                    out[(x, c)] = (v, ref.stds.get(r, {}).get(c))
        return out or None
    return None


def _draw_paper(ax, spec: PlotSpec, paper: dict, hues: list, cats: list | None) -> None:
    """The paper's values as diamonds (its std as error bars) at our bars' places (black) or beside our
    lines (hollow, in each line's colour)."""
    if cats is None:
        _draw_paper_lines(ax, paper)
        return
    xs, ys, es = [], [], []
    width = 0.8 / max(1, len(hues))
    for (x, h), (v, sd) in paper.items():
        labels = [str(c) for c in cats]
        hl = [str(hh) for hh in hues]
        if x not in labels or h not in hl:
            continue
        xs.append(labels.index(x) + (hl.index(h) - (len(hues) - 1) / 2) * width)
        ys.append(v)
        es.append(sd or 0.0)
    if xs:
        ax.errorbar(xs, ys, yerr=es, fmt="D", color="black", markersize=5, capsize=2, label="paper", zorder=5)


def _draw_paper_lines(ax, paper: dict) -> None:
    colours = {ln.get_label(): ln.get_color() for ln in ax.get_lines()}
    by_hue: dict = {}
    for (x, h), (v, sd) in paper.items():
        try:
            by_hue.setdefault(h, []).append((float(x), v, sd or 0.0))
        except ValueError:
            continue
    for h, pts in sorted(by_hue.items()):
        pts.sort()
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts], fmt="D", mfc="none",
                    color=colours.get(str(h), "black"), markersize=6, capsize=2, label=f"paper: {h}", zorder=5)


def paper_vs_ours_figure(cells: pd.DataFrame, title: str):
    """Every compared cell of a table: ours (y, +- our std) against the paper's (x, +- its std), the
    identity line, coloured by verdict; ``None`` when no cell is compared."""
    plt = _plt()
    c = cells[(cells["status"] == "compared") & ~cells["kind"].isin(["pvalue", "mark", "wins"])]
    c = c[pd.to_numeric(c["paper_value"], errors="coerce").notna()]
    if not len(c):
        return None
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    colours = {"agrees": "tab:green", "differs": "tab:red"}
    for verdict, g in c.groupby("verdict"):
        ax.errorbar(pd.to_numeric(g["paper_value"]), pd.to_numeric(g["ours"]),
                    xerr=pd.to_numeric(g["paper_std"], errors="coerce").fillna(0.0),
                    yerr=pd.to_numeric(g["ours_std"], errors="coerce").fillna(0.0), fmt="o", markersize=4,
                    alpha=0.7, color=colours.get(verdict, "tab:gray"), label=f"{verdict} ({len(g)})")
    lo = float(np.nanmin(pd.to_numeric(pd.concat([c["paper_value"], c["ours"]]))))
    hi = float(np.nanmax(pd.to_numeric(pd.concat([c["paper_value"], c["ours"]]))))
    pad = 0.05 * (hi - lo or 1.0)
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="black", lw=0.8, ls="--", label="ours = paper")
    ax.set_xlabel("paper")
    ax.set_ylabel("ours")
    ax.set_title(title, fontsize="medium")
    _integer_ticks(ax, c["paper_value"], c["ours"])
    ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def transparency_columns(columns) -> list[tuple[float, str]]:
    """``(transparency, column)`` of the ``acc_tNNN`` columns (accuracy of a companion model when a
    share NNN/100 of the inputs is explained by its rules), by transparency."""
    out = []
    for col in columns:
        m = re.fullmatch(r"acc_t(\d{3})", str(col))
        if m:
            out.append((int(m.group(1)) / 100, str(col)))
    return sorted(out)


def transparency_figure(results: pd.DataFrame, dataset: str, title: str | None = None):
    """The CRL paper's transparency-accuracy curves on one dataset (its Figure 3): the mean accuracy of
    each rule-list learner against transparency, the black box at transparency 0, and the CART and
    C4.5 trees as marks at transparency 1 (their test accuracy); ``None`` without such columns."""
    plt = _plt()
    df = results
    if "run_status" in df.columns:
        df = df[df["run_status"] == "ok"]
    cols = transparency_columns(df.columns)
    if not cols or "learner" not in df.columns or "dataset" not in df.columns:
        return None
    df = df[df["dataset"] == dataset]
    if not len(df):
        return None
    fig, ax = plt.subplots(figsize=(6.0, 4.2))
    ts = [t for t, _ in cols]
    for learner in ("crl", "corels", "sbrl"):
        sub = df[df["learner"] == learner]
        if len(sub):
            ys = [pd.to_numeric(sub[c], errors="coerce").mean() for _, c in cols]
            ax.plot(ts, ys, marker=".", label=learner.upper() if learner != "crl" else "CRL")
    for learner, mark in (("cart", "s"), ("c45", "^")):
        sub = df[df["learner"] == learner]
        col = "accuracy_full" if "accuracy_full" in sub.columns else cols[-1][1]
        if len(sub):
            ax.plot([1.0], [pd.to_numeric(sub[col], errors="coerce").mean()], mark, markersize=8, color="black",
                    label={"cart": "CART", "c45": "C4.5"}[learner])
    if "blackbox_accuracy" in df.columns:
        ax.plot([0.0], [pd.to_numeric(df["blackbox_accuracy"], errors="coerce").mean()], "*", markersize=11,
                color="tab:purple", label="black box")
    ax.set_xlabel("transparency (share of inputs the rules explain)")
    ax.set_ylabel("accuracy")
    ax.set_title(title or f"Transparency-accuracy curves: {dataset}", fontsize="medium")
    ax.legend(fontsize="small")
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
            title = (spec.title or readable(spec.name)) + ("" if value is None else f" ({readable(spec.facet)}: {value})")
            fig = make_figure(sub, spec, title=title, paper=paper_points(config, spec, value))
            stem = spec.name if value is None else f"{spec.name}_{_safe(value)}"
            for fmt in spec.formats:
                path = _plot_path(out, spec.name, stem, fmt)
                fig.savefig(path, dpi=120)
                written.append(path)
            plt.close(fig)
    return written
