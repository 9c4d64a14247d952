"""What an experiment prints while it runs: its plan before the first run, then its progress.

* :func:`plan_line`: the runs of a config, how many are already stored and the estimated time,
  from the measured per-run costs of ``configs/run_costs.json`` (as ``reproduce --plan``
  estimates), printed before anything is planned or run (planning may fit models).
* :func:`progress_bar`: what :func:`~interpretopt.experiments.runner.run_experiment` updates
  after each run: a tqdm bar with its ETA on a terminal, and off one (a log file, CI) a
  :class:`LineProgress` that prints one line every ``every_s`` seconds or ``every_runs`` runs.

Times are read from :func:`interpretopt._clock.monotonic`, so a test drives the lines with an
injected clock.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from interpretopt import _clock

__all__ = ["Estimate", "LineProgress", "estimate", "format_seconds", "plan_line", "progress_bar"]

#: Off a terminal: a progress line at least this often (seconds) ...
EVERY_S = 30.0
#: ... or after this share of the runs (at least :data:`MIN_EVERY_RUNS`), whichever comes first.
EVERY_SHARE = 0.1
MIN_EVERY_RUNS = 10


def format_seconds(s: float | None) -> str:
    """``42 s``, ``7 min``, ``2.5 h``; ``?`` for an unknown time."""
    if s is None or s != s:
        return "?"
    return f"{s:.0f} s" if s < 120 else (f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h")


@dataclass(frozen=True)
class Estimate:
    """Measured seconds per run of one config at one scale (one worker), and where they come from."""

    per_run_s: float | None
    basis: str


def _cost_key(config) -> str | None:
    """``<paper>/<table>`` of a config read from a folder of ``configs/`` (the key of ``run_costs.json``)."""
    if not config.path or config.path == "<string>":
        return None
    p = Path(config.path)
    return f"{p.parent.name}/{p.stem}" if p.parent.name != "configs" else p.stem


def per_run(entry: dict) -> float | None:
    """Seconds per run for one worker: the measured CPU per run where known (the wall time of a run
    on a loaded machine overstates it), else the measured wall time."""
    cpu = entry.get("cpu_per_run_s")
    return float(cpu) if cpu is not None else entry.get("per_run_s")


def estimate(config, costs: dict) -> Estimate:
    """The per-run cost of ``config`` at its scale from ``costs`` (:func:`report.read_costs`): CPU seconds
    per run where measured, else wall seconds; a full scale without a measurement of its own takes the
    reduced scale's when both run the same datasets (as :func:`report.plan` does)."""
    key = _cost_key(config)
    known = costs.get(key, {}) if key else {}
    src = config.scale if config.scale in known else None
    if src is None and config.scale == "full" and "reduced" in known:
        from interpretopt.experiments.config import load_config

        try:
            reduced = load_config(config.path, scale="reduced")
            if sorted(d.name for d in reduced.datasets) == sorted(d.name for d in config.datasets):
                src = "reduced"
        except Exception:  # no estimate rather than no run
            src = None
    if src is None:
        return Estimate(None, f"no measured cost of {key or config.name} at {config.scale} scale")
    entry = known[src]
    what = "CPU" if entry.get("cpu_per_run_s") is not None else "wall"
    return Estimate(per_run(entry), f"{what} per run measured at {src} scale")


def plan_line(name: str, scale: str, n_runs: int | None, n_done: int, est: Estimate, workers: int = 1) -> str:
    """``imd_table1 (full scale): 520 runs, 0 already done; estimated 54 min on 1 worker (...)``."""
    runs = "? runs" if n_runs is None else f"{n_runs} run{'s' if n_runs != 1 else ''}"
    text = f"{name} ({scale} scale): {runs}, {n_done} already done"
    if n_runs is not None and est.per_run_s is not None:
        todo = max(0, n_runs - n_done)
        w = max(1, workers)
        text += (f"; estimated {format_seconds(todo * est.per_run_s / w)} on {w} worker{'s' if w > 1 else ''} "
                 f"({est.per_run_s:.2f} s per run, {est.basis})")
    else:
        text += f"; no time estimate ({est.basis})"
    return text


class LineProgress:
    """Progress for a log: ``name: 40/520 runs (40 ok, 0 failed), 3 min, ETA 38 min``.

    A tqdm-like object (``update``, ``set_postfix``, ``close``) for the runner's loop. A line is
    printed when ``every_s`` seconds (on :func:`interpretopt._clock.monotonic`) or ``every_runs``
    runs have passed since the last one, and at the end when a line was printed before.
    """

    def __init__(self, name: str, total: int, *, every_s: float = EVERY_S, every_runs: int | None = None,
                 stream: TextIO | None = None) -> None:
        self.name, self.total = name, int(total)
        self.every_s = float(every_s)
        self.every_runs = every_runs if every_runs is not None else max(MIN_EVERY_RUNS, int(round(total * EVERY_SHARE)))
        self.stream = stream
        self.done = 0
        self.postfix: dict[str, Any] = {}
        self.start = self._last_t = _clock.monotonic()
        self._last_n = 0
        self.lines = 0

    def set_postfix(self, refresh: bool = True, **kw: Any) -> None:
        self.postfix.update(kw)

    def update(self, n: int = 1) -> None:
        self.done += n
        now = _clock.monotonic()
        if now - self._last_t >= self.every_s or self.done - self._last_n >= self.every_runs:
            self._emit(now)

    def line(self, now: float | None = None) -> str:
        now = _clock.monotonic() if now is None else now
        elapsed = now - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else None
        counts = ", ".join(f"{v} {k}" for k, v in self.postfix.items() if k in ("ok", "failed"))
        return (f"{self.name}: {self.done}/{self.total} runs" + (f" ({counts})" if counts else "")
                + f", {format_seconds(elapsed)}" + ("" if self.done >= self.total else f", ETA {format_seconds(eta)}"))

    def _emit(self, now: float) -> None:
        print(self.line(now), file=self.stream or sys.stderr, flush=True)
        self._last_t, self._last_n = now, self.done
        self.lines += 1

    def close(self) -> None:
        if self.lines and self._last_n != self.done:
            self._emit(_clock.monotonic())


def progress_bar(name: str, total: int, progress: bool | None):
    """What the runner updates after each of ``total`` runs: None for ``progress=False``; a tqdm bar
    (with its ETA) for ``progress=True`` or, with ``progress=None``, when stderr is a terminal; else
    a :class:`LineProgress`."""
    if progress is False or total <= 0:
        return None
    if progress or sys.stderr.isatty():
        from tqdm.auto import tqdm

        return tqdm(total=total, unit="run", desc=name, dynamic_ncols=True)
    return LineProgress(name, total)
