"""The size of a plan, counted before it is built, and the limit above which it is refused.

A config of ``repetitions: 1000000000`` or a grid of 10^7 parameter points would make the
runner build (and hold) a run specification per run before doing anything. :func:`count_runs`
multiplies the grid's sizes without expanding anything, and :func:`check_plan_size` refuses a
plan above the limit with its size and how to allow it: ``--max-runs N`` on the command line,
``max_runs=N`` in :func:`~interpretopt.experiments.runner.run_experiment` /
:func:`~interpretopt.experiments.config.load_config`, or the ``INTERPRETOPT_MAX_RUNS``
environment variable. Default: :data:`DEFAULT_MAX_RUNS`.
"""

from __future__ import annotations

import math
import os
from typing import Any

from interpretopt.exceptions import InputError

__all__ = ["DEFAULT_MAX_RUNS", "PlanTooLargeError", "max_runs_limit", "count_runs", "grid_size", "check_plan_size"]

DEFAULT_MAX_RUNS = 100_000
ENV = "INTERPRETOPT_MAX_RUNS"
HOW_TO_ALLOW = f"allow it with --max-runs N (max_runs=N in Python, or the environment variable {ENV})"


class PlanTooLargeError(InputError):
    """A plan has more runs than the limit allows."""


def max_runs_limit(max_runs: Any = None) -> int:
    """The limit: ``max_runs`` when given, else ``$INTERPRETOPT_MAX_RUNS``, else :data:`DEFAULT_MAX_RUNS`."""
    source = "max_runs"
    if max_runs is None:
        max_runs, source = os.environ.get(ENV), ENV
        if max_runs is None or not str(max_runs).strip():
            return DEFAULT_MAX_RUNS
    try:
        value = int(str(max_runs).strip()) if not isinstance(max_runs, int) else max_runs
    except ValueError:
        value = 0
    if isinstance(max_runs, bool) or value < 1:
        raise InputError(f"{source} must be a positive number of runs, got {max_runs!r}")
    return value


def grid_size(params: dict) -> int:
    """Points of a parameter grid (the product of its axes' lengths), without expanding it."""
    return math.prod(len(v) if isinstance(v, (list, tuple)) else 1 for v in params.values())


def _model_sets(config: Any, label: str) -> int:
    pairs = config.pairs
    if pairs is None:
        return max(1, len(config.models))
    if pairs.per_dataset:
        return len(pairs.per_dataset.get(label, ()))
    if pairs.pairs:
        return len(pairs.pairs)
    combos = math.comb(len(pairs.candidates), 2)
    return {"all": combos, "top_accuracy_gap": min(pairs.n, combos)}.get(pairs.select, min(2, combos))


def count_runs(config: Any) -> int:
    """The number of runs :func:`~interpretopt.experiments.runner.plan_runs` would plan (an upper bound
    where pairs are selected from the data), computed from the config's sizes alone."""
    grid = sum(grid_size(m.params) for m in config.methods)
    sets = sum(_model_sets(config, d.label) for d in config.datasets)
    return sets * grid * int(config.repetitions)


def check_plan_size(config: Any, max_runs: Any = None) -> int:
    """``count_runs(config)``, or :class:`PlanTooLargeError` when it exceeds the limit."""
    limit = max_runs_limit(max_runs)
    n = count_runs(config)
    if n > limit:
        raise PlanTooLargeError(
            f"config {getattr(config, 'name', '?')!r} plans {n:,} runs ({len(config.datasets)} dataset(s) x "
            f"{sum(grid_size(m.params) for m in config.methods):,} method/parameter point(s) x "
            f"{int(config.repetitions):,} repetition(s), per model set), above the limit of {limit:,} runs; "
            f"{HOW_TO_ALLOW}, e.g. --max-runs {n}")
    return n
