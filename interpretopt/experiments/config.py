"""Experiment configs: YAML validated into typed, frozen objects.

A config describes one experiment (usually one table of a paper). Loading it checks every
key and type and reports *all* problems at once in a :class:`~interpretopt.exceptions.ConfigError`
that names the file and the key path (``datasets[1].options``). Lists in ``params`` expand
to a Cartesian grid. ``load_config(path, overrides=["methods.0.params.max_depth=3"])`` (the
command line's ``--set``) changes keys of the file before it is checked (:func:`apply_overrides`).

Schema (every key except ``name``, ``method``/``methods`` and ``datasets`` is optional)::

    name: imd_table1                 # identifier; default output dir is results/<name>
    description: "IMD vs separate surrogates, Table 1"
    method: imd                      # task name: brcg | imd | crl | abbr | mtrepan | noop | sleep | cpu | dummy_tree
    params:                          # lists expand to a grid; a scalar is a one-point axis
      max_depth: [3, 6]
      variant: [imd, separate]
      alpha: 0.01
      brcg: {time_limit: 120}        # a mapping is one value (JSON-like, nested)
    # or, several methods in one experiment (each with its own grid):
    # methods:
    #   - {method: imd, params: {max_depth: [3, 6]}}
    #   - {method: brcg, params: {complexity: 20}}
    datasets:
      - breast_cancer                # a bare name
      - name: coupon                 # or a mapping
        options: {coupon_type: "Coffee House"}   # passed to load_dataset(name, **options)
        label: coupon_coffee         # label used in run names and tables (default: name)
        max_rows: 5000               # optional cap (seeded subsample), also in full runs
    # models: [RF1, GB]              # black-box models: one run per model ...
    pairs:                           # ... or model pairs (for differencing), not both
      candidates: [LR, KN1, DT1, GB, RF1, GNB]   # pairs are formed from these ...
      # list: [[RF1, GNB], [LR, DT1]]            # ... or given explicitly
      select: max_min_accuracy_gap   # all | max_min_accuracy_gap | top_accuracy_gap
      n: 10                          # number of pairs for top_accuracy_gap
      test_size: 0.3                 # split used to measure test accuracy for select
      # per_dataset:                 # ... or fixed pairs per dataset label, each with its tag
      #   adult: {max: [MLP1, GB], min: [MLP2, DT2]}   # (pair_tag -> [model1, model2])
    repetitions: 5                   # rep = 0 .. repetitions-1
    split: {test_size: 0.3, stratify: true}      # default of ctx.split()
    seed: 0                          # root of every hashed seed
    # solver: highs                  # solver name, for every role it fits, or one per role of the method
                                     # ({master: ortools_glop, integer: cbc}: BRCG's master, pricing,
                                     # integer; MTRE-PAN's node; ABBR's baseline, certificate); refused
                                     # when no run solves an LP or MILP (as IMD's trees here), or
    # preset: highs_fast             # a preset from configs/solvers/<preset>.yaml
    settings: {time_limit: 60, mip_gap: 0.0001, threads: 1, seed: 0, verbose: false, options: {}}
    record: [fidelity, n_rules]      # metrics to keep (default: everything the task returns)
    # runs_from: table1              # this config tabulates the runs of configs/<dir>/table1.yaml: the
                                     # same experiment (same config hash and run names at every scale);
                                     # `reproduce` and `table` read and make them in that config's output
                                     # directory (<out>/../table1) instead of running them again
    smoke:                           # overrides applied by --smoke
      repetitions: 1                 # default 1
      max_rows: 500                  # default 500: datasets are subsampled to this many rows
      max_grid: 2                    # default 2: every grid axis keeps its first values
      params: {max_depth: [3]}       # replaces these axes
      datasets: [breast_cancer]      # replaces the dataset list
      models: [DT1]                  # replaces models
      pairs: {list: [[DT1, LR]]}     # replaces pairs
      settings: {time_limit: 10}     # merged into settings
    reduced:                         # overrides applied by --scale reduced (same keys as smoke;
      repetitions: 2                 # nothing is changed by default): the full datasets with
                                     # fewer repetitions or splits, hours rather than days
    tables:
      - name: table1
        caption: "F1 of the diff model"
        rows: [dataset, pair_tag]    # result columns forming the row label (default [dataset])
        columns: [variant]           # result columns forming the column label (default
                                     # [method_variant], the "method[param=value,...]" label)
        metric: f1
        aggregate: mean_std          # mean | mean_std | mean_rank
        higher_is_better: true
        tests: [wilcoxon, friedman, holm]   # also wins (# rows the baseline beats a column) and
                                     # pct_change (mean over rows of 100 (column - baseline) / baseline)
        baseline: imd                # column compared by wilcoxon (default: the first)
        pair: models                 # a column printed beside each row label (e.g. the model pair)
        filter: {max_depth: 6}       # keep rows whose columns equal these values (a list = any of)
        digits: 3
        reference:                   # published numbers, printed as "paper" beside ours
          source: "Haldar et al. (2023), Table 1"
          values:
            "breast_cancer / max": {imd: 0.93, separate: 0.91}   # row label: values joined by " / "
    plots:
      - name: f1_vs_depth
        kind: line                   # line | bar | tradeoff
        x: max_depth
        y: f1
        hue: variant                 # one line / bar group / curve per value
        facet: dataset               # one figure per value (optional)
        filter: {}
        pareto: false                # tradeoff: join the Pareto-efficient points
        logx: false
        logy: false
        formats: [png, svg]
        title: "F1 against depth"

Run names are ``method[param=value,...]@dataset/models/rep`` with the parameters sorted
by name (``imd[max_depth=6,variant=imd]@adult/RF1-GNB/0``); ``models`` is ``-`` when the
experiment names no model.

Tables, filters and plots name result columns: every parameter by its own name, every
metric the task returns, and ``dataset`` (the label), ``models``, ``model1``, ``model2``,
``pair_tag`` (``max``/``min``/``gap<k>`` from ``select``), ``method``, ``method_variant``
(``method[param=value,...]``), ``rep``, ``seed``, ``wall_time``, ``cpu_time``, ``solver``,
``status``, ``objective``, ``bound``, ``gap`` (see :mod:`interpretopt.experiments.results`).
A row label joins the values of the ``rows`` columns with `` / `` (``adult / max``); a
column label likewise; numbers print without a trailing ``.0`` (``6``, ``0.5``).

A solver preset file (``configs/solvers/<name>.yaml``) holds ``solver``, ``settings`` and
an optional ``description``. Explicit ``settings`` in an experiment override the preset's.

Each section's keys, types and defaults are declared once, on the fields of its spec below
(:func:`interpretopt.experiments._schema.key`); ``settings`` are the fields of
:class:`~interpretopt.solvers.SolveSettings`. This module holds what is specific to
experiments: how sections depend on each other, names checked against the registries, scales
and the config hash.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from interpretopt.exceptions import ConfigError, InputError
from interpretopt.experiments._schema import MANUAL, Checker, check_value, join, key, read_spec, spec_keys

__all__ = [
    "DatasetSpec",
    "PairSpec",
    "MethodSpec",
    "SplitSpec",
    "SmokeSpec",
    "ReferenceSpec",
    "TableSpec",
    "PlotSpec",
    "ExperimentConfig",
    "load_config",
    "parse_config",
    "expand_params",
    "format_value",
    "configs_root",
    "find_configs",
    "load_preset",
    "SELECT_RULES",
    "AGGREGATES",
    "TESTS",
    "PLOT_KINDS",
]

SELECT_RULES = ("all", "max_min_accuracy_gap", "top_accuracy_gap")
AGGREGATES = ("mean", "mean_std", "mean_rank")
TESTS = ("wilcoxon", "friedman", "holm", "ttest", "fold_ttest", "wins", "pct_change")
PLOT_KINDS = ("line", "bar", "tradeoff")
PLOT_FORMATS = ("png", "svg", "pdf")

Scalar = (str, int, float, bool, type(None))


# ----------------------------------------------------------------------------- typed specs
#
# Each spec declares its YAML keys once (interpretopt.experiments._schema.key): the field's
# annotation is the type checked, its default the value of an absent key, and key()'s
# arguments the bounds, accepted values or the parser of the key.


def _mapping(c: Checker, v: Any, where: str, expected: str) -> dict:
    """``v`` when it is a mapping; ``{}`` when it is None (an absent key) or anything else, which is
    reported at ``where`` as ``expected <expected>, got <its type>``."""
    if v is None:
        return {}
    if not isinstance(v, dict):
        c.add(where, f"expected {expected}, got {type(v).__name__}")
        return {}
    return v


def _options(c: Checker, v: Any, where: str, default: Any) -> dict:
    return dict(_mapping(c, v or {}, where, "a mapping"))


def _param_axes_key(c: Checker, v: Any, where: str, default: Any) -> dict:
    return _param_axes(c, v, where)


def _datasets_key(c: Checker, v: Any, where: str, default: Any) -> tuple:
    return _datasets(c, v, where)


def _pairs_key(c: Checker, v: Any, where: str, default: Any):
    return _pairs(c, v, where)


def _settings_key(c: Checker, v: Any, where: str, default: Any) -> dict:
    return _settings(c, v or {}, where)


def _filter_key(c: Checker, v: Any, where: str, default: Any) -> dict:
    return _parse_filter(c, v, where)


def _text(c: Checker, v: Any, where: str, default: Any) -> str:
    return c.text(v, where)


def _runs_from_key(c: Checker, v: Any, where: str, default: Any) -> str | None:
    """``runs_from``: the file stem of a config in the same directory whose runs this one tabulates."""
    if v is None:
        return None
    if not isinstance(v, str) or not v or "/" in v or "\\" in v or v.endswith((".yaml", ".yml")):
        c.add(where, f"expected the file stem of a config in the same directory (e.g. table1), got {v!r}")
        return None
    return v


def _column(message: str, allow_empty: bool):
    """A result column named by a string (null: none)."""

    def parse(c: Checker, v: Any, where: str, default: Any):
        if v is not None and (not isinstance(v, str) or (not v and not allow_empty)):
            c.add(where, f"{message}, got {v!r}")
            return None
        return v

    return parse


def _explicit_pairs(c: Checker, lst: Any, where: str, default: Any) -> tuple:
    if not isinstance(lst, list):
        c.add(where, "expected a list of [model, model] pairs")
        return ()
    explicit = []
    for i, p in enumerate(lst):
        if not isinstance(p, list) or len(p) != 2 or not all(isinstance(m, str) for m in p):
            c.add(f"{where}[{i}]", f"expected a pair [model, model], got {p!r}")
        else:
            explicit.append((p[0], p[1]))
    return tuple(explicit)


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset of an experiment: ``load_dataset(name, **options)``, labelled ``label``.

    ``label`` defaults to ``name``, or ``name(option=value,...)`` where options are given.
    """

    name: str = key()
    options: dict = key(default_factory=dict, parse=_options)
    label: str = key("")
    max_rows: int | None = key(None, low=2)

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.name)


@dataclass(frozen=True)
class PairSpec:
    """Model pairs: explicit ``pairs``, all pairs of ``candidates`` filtered by ``select``, or
    fixed pairs per dataset (``per_dataset``: dataset label -> ``((tag, (model1, model2)), ...)``,
    e.g. a paper's max/min pairs; the runs record the tag as ``pair_tag``)."""

    candidates: tuple[str, ...] = key((), scalar=False)
    pairs: tuple[tuple[str, str], ...] = key((), yaml="list", parse=_explicit_pairs)
    select: str = key("all", choices=SELECT_RULES, what="rule", valid="valid rules")
    n: int = key(10, low=1)
    test_size: float = key(0.3, low=0, high=1, low_open=True, high_open=True)
    per_dataset: dict = key(default_factory=dict, parse=MANUAL)

    def pairs_of(self, label: str) -> list[tuple[tuple[str, str], str]]:
        """The fixed ``(pair, tag)`` list of dataset ``label`` (``per_dataset`` only)."""
        if label not in self.per_dataset:
            raise ValueError(f"pairs.per_dataset has no entry for dataset {label!r}; it has entries for "
                             f"{', '.join(sorted(self.per_dataset))}")
        return [(tuple(p), tag) for tag, p in self.per_dataset[label]]


@dataclass(frozen=True)
class MethodSpec:
    """A method (task name) and its parameter grid (each axis a tuple of values)."""

    method: str = key()
    params: dict = key(default_factory=dict, parse=_param_axes_key)  # name -> tuple of values


@dataclass(frozen=True)
class SplitSpec:
    """Default train/test split of ``RunContext.split``."""

    test_size: float = key(0.3, low=0, high=1, low_open=True, high_open=True)
    stratify: bool = key(True)


SCALES = ("smoke", "reduced", "full")


@dataclass(frozen=True)
class ScaleSpec:
    """Overrides that turn the full (published) protocol into a smaller scale.

    ``None`` fields keep the full config's value. ``max_rows`` subsamples every dataset
    (seeded), ``max_grid`` keeps the first values of every grid axis, ``params`` replaces
    the named axes, ``datasets`` / ``models`` / ``pairs`` replace those lists, ``settings``
    is merged into the solver settings. In ``datasets``, a bare name that is the label of one
    of the full config's datasets stands for that entry, options included.
    """

    repetitions: int | None = key(None, low=1, null=False)
    max_rows: int | None = key(None, low=2)
    max_grid: int | None = key(None, low=1)
    params: dict | None = key(None, parse=_param_axes_key)
    datasets: tuple[DatasetSpec, ...] | None = key(None, parse=_datasets_key)
    models: tuple[str, ...] | None = key(None, null=False)
    pairs: PairSpec | None = key(None, parse=_pairs_key)
    settings: dict | None = key(None, parse=_settings_key)


@dataclass(frozen=True)
class SmokeSpec(ScaleSpec):
    """The ``smoke:`` section (``--scale smoke``): one repetition, 500 rows, two values per axis by default."""

    repetitions: int | None = key(1, low=1, null=False)
    max_rows: int | None = key(500, low=2)
    max_grid: int | None = key(2, low=1)


def _reference_values(c: Checker, v: Any, w: str, default: Any) -> tuple[dict, dict]:
    """``values`` of a reference: ``(values, stds)``; a cell is a number or ``{value, std}``."""
    vals: dict = {}
    stds: dict = {}
    if not isinstance(v, dict):
        c.add(w, "expected a mapping row label -> {column label: number}")
        return vals, stds
    for rk, row in v.items():
        if not isinstance(row, dict):
            c.add(f"{w}.{rk}", "expected a mapping column label -> number")
            continue
        vals[_label_key(rk)] = {}
        for ck, num in row.items():
            where_cell = f"{w}.{rk}.{ck}"
            std = None
            if isinstance(num, dict):
                if not c.keys(num, where_cell, {"value", "std"}, required=("value",)):
                    continue
                num, std = num.get("value"), num.get("std")
                if std is not None and (isinstance(std, bool) or not isinstance(std, (int, float)) or std < 0):
                    c.add(f"{where_cell}.std", f"expected a number >= 0, got {std!r}")
                    std = None
            if num is not None and (isinstance(num, bool) or not isinstance(num, (int, float))):
                c.add(where_cell, f"expected a number or {{value: number, std: number}}, got {num!r}")
                continue
            vals[_label_key(rk)][_label_key(ck)] = None if num is None else float(num)
            if std is not None:
                stds.setdefault(_label_key(rk), {})[_label_key(ck)] = float(std)
    return vals, stds


def _reference_pairs(c: Checker, pv: Any, w: str, default: Any) -> dict:
    pv = pv or {}
    if not isinstance(pv, dict) or not all(isinstance(x, str) for x in pv.values()):
        c.add(w, "expected a mapping row label -> model pair text (e.g. 'MLP1-GB')")
        return {}
    return {_label_key(k): x for k, x in pv.items()}


@dataclass(frozen=True)
class ReferenceSpec:
    """Published numbers of a table: ``values[row label][column label] = number``.

    ``stds`` holds the published standard deviations where the paper prints them (a value
    written ``{value: 0.898, std: 0.008}`` in YAML); ``tolerance`` is the absolute difference
    within which ours counts as agreeing where neither side has a spread (default: by ``unit``,
    see :mod:`interpretopt.experiments.agreement`). ``pairs`` names the published model pair of a row label
    (``"adult / max": "MLP1-GB"``), printed beside ours.
    """

    source: str = key("", parse=_text)
    values: dict = key(default_factory=dict, required=True, parse=_reference_values)
    stds: dict = field(default_factory=dict)  # read with `values`
    tolerance: float | None = key(None, low=0, low_open=True)
    pairs: dict = key(default_factory=dict, parse=_reference_pairs)
    # the unit of the cells and the paper's number of repetitions behind each printed mean and std
    # (default: the config's own repetitions at full scale), read by experiments/agreement.py
    unit: str | None = key(None, choices=("fraction", "percent", "rank", "count", "quantity"), what="unit")
    n: int | None = key(None, low=1)


def _reference(c: Checker, r: Any, w: str, default: Any) -> ReferenceSpec | None:
    kw = read_spec(c, ReferenceSpec, r, w)
    if kw is None:
        return None
    kw["values"], kw["stds"] = kw.get("values", ({}, {}))
    return ReferenceSpec(**kw)


@dataclass(frozen=True)
class TableSpec:
    """A table: aggregate ``metric`` over repetitions for each (row, column) label."""

    name: str = key()
    metric: str = key()
    rows: tuple[str, ...] = key(("dataset",))
    columns: tuple[str, ...] = key(("method_variant",))
    aggregate: str = key("mean_std", choices=AGGREGATES, what="aggregate")
    higher_is_better: bool = key(True)
    tests: tuple[str, ...] = key((), choices=TESTS, what="test")
    baseline: str | None = key(None, parse=_column("expected a column label (string)", True))
    filter: dict = key(default_factory=dict, parse=_filter_key)
    digits: int = key(3, low=0)
    caption: str = key("", parse=_text)
    reference: ReferenceSpec | None = key(None, parse=_reference)
    pair: str | None = key(None, parse=_column("expected a result column name (e.g. models)", False))


@dataclass(frozen=True)
class PlotSpec:
    """A figure made from the results alone."""

    name: str = key()
    kind: str = key(choices=PLOT_KINDS, what="plot kind")
    x: str = key()
    y: str = key()
    hue: str | None = key(None)
    facet: str | None = key(None)
    filter: dict = key(default_factory=dict, parse=_filter_key)
    pareto: bool = key(False)
    logx: bool = key(False)
    logy: bool = key(False)
    formats: tuple[str, ...] = key(("png", "svg"), choices=PLOT_FORMATS, what="format")
    title: str = key("", null=True)


@dataclass(frozen=True)
class PresetSpec:
    """A solver preset file (``configs/solvers/<name>.yaml``)."""

    solver: str = key("highs")
    settings: dict = key(default_factory=dict, parse=_settings_key)
    description: Any = key("", parse=lambda c, v, w, d: v)


def _scale_key(cls: type):
    def parse(c: Checker, v: Any, where: str, default: Any) -> ScaleSpec:
        kw = read_spec(c, cls, v or {}, where)
        return cls() if kw is None else cls(**kw)

    return parse


def _specs_key(parse_one):
    def parse(c: Checker, v: Any, where: str, default: Any) -> tuple:
        if not isinstance(v, list):
            c.add(where, f"expected a list of {where[:-1]} specs")
            return ()
        return tuple(s for s in (parse_one(c, x, f"{where}[{i}]") for i, x in enumerate(v)) if s is not None)

    return parse


@dataclass(frozen=True)
class ExperimentConfig:
    """A validated experiment config. Build it with :func:`load_config` or :func:`parse_config`."""

    name: str = key()
    methods: tuple[MethodSpec, ...] = key(required=False, parse=MANUAL)  # or `method` + `params`
    datasets: tuple[DatasetSpec, ...] = key(parse=_datasets_key)
    models: tuple[str, ...] = key(())
    pairs: PairSpec | None = key(None, parse=_pairs_key)
    repetitions: int = key(1, low=1)
    split: SplitSpec = key(default_factory=SplitSpec)
    seed: int = key(0, low=0)
    solver: str | dict = key("highs", parse=MANUAL)
    preset: str | None = key(None, parse=MANUAL)
    settings: dict = key(default_factory=dict, parse=MANUAL)
    record: tuple[str, ...] | None = key(None, null=False)
    smoke: SmokeSpec = key(default_factory=SmokeSpec, parse=_scale_key(SmokeSpec))
    reduced: ScaleSpec | None = key(None, parse=_scale_key(ScaleSpec))
    tables: tuple[TableSpec, ...] = key((), parse=_specs_key(lambda c, t, w: _parse_table(c, t, w)))
    plots: tuple[PlotSpec, ...] = key((), parse=_specs_key(lambda c, p, w: _parse_plot(c, p, w)))
    description: str = key("", parse=_text)
    runs_from: str | None = key(None, parse=_runs_from_key)
    path: str = "<string>"
    scale: str = "full"
    seed_overridden: bool = False  # set by :meth:`with_seed`: the root seed is not the file's
    overrides: tuple[str, ...] = ()  # the `--set PATH=VALUE` overrides applied to the file (apply_overrides)
    # set by :meth:`with_datasets`: the datasets of the whole config, which its runs are hashed with (so the
    # runs of a selection are the whole config's runs, stored and reused as one)
    hash_datasets: tuple[DatasetSpec, ...] | None = None

    @property
    def is_smoke(self) -> bool:
        """True for the smoke scale (``--smoke`` / ``--scale smoke``)."""
        return self.scale == "smoke"

    # -- derived ------------------------------------------------------------------------
    @property
    def model_sets(self) -> tuple[tuple[str, ...], ...]:
        """Model tuples of the runs known without data: one per model, explicit pairs, or ``((),)``."""
        if self.pairs is not None:
            if self.pairs.per_dataset:
                return tuple(tuple(p) for d in self.datasets if d.label in self.pairs.per_dataset
                             for _, p in self.pairs.per_dataset[d.label])
            return tuple(self.pairs.pairs)
        if self.models:
            return tuple((m,) for m in self.models)
        return ((),)

    def execution_dict(self) -> dict:
        """Everything that changes a run's result apart from its name (hashed into ``config_hash``)."""
        return {
            "seed": self.seed,
            "split": [self.split.test_size, self.split.stratify],
            "solver": self.solver,
            "settings": _jsonable(self.settings),
            "smoke": self.is_smoke,
            **({"scale": self.scale} if self.scale == "reduced" else {}),
            "max_rows": self._scale_spec().max_rows if self.scale != "full" else None,
            "datasets": {d.label: [d.name, _jsonable(d.options), d.max_rows]
                         for d in (self.datasets if self.hash_datasets is None else self.hash_datasets)},
        }

    @property
    def config_hash(self) -> str:
        """Short hash of :meth:`execution_dict`; stored with every result row."""
        blob = json.dumps(self.execution_dict(), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:12]

    def _scale_spec(self, scale: str | None = None) -> ScaleSpec:
        scale = self.scale if scale is None else scale
        if scale == "smoke":
            return self.smoke
        if scale == "reduced":
            return self.reduced if self.reduced is not None else ScaleSpec()
        return ScaleSpec()

    def with_seed(self, seed: int) -> "ExperimentConfig":
        """The config with root seed ``seed`` in place of its own: other splits and other hashed model
        seeds, everything else as written (the spread of a table over its random splits is the spread
        of its results over seeds). Its default output directory ends in ``-seed<seed>``.

        Raises
        ------
        ConfigError
            ``seed`` is not an integer >= 0.
        """
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ConfigError(self.path, [f"seed must be an integer >= 0, got {seed!r}"])
        if seed == self.seed and not self.seed_overridden:
            return self
        kw = {f.name: getattr(self, f.name) for f in fields(self)}
        kw.update(seed=seed, seed_overridden=True)
        return type(self)(**kw)

    def with_datasets(self, labels) -> "ExperimentConfig":
        """The config restricted to the datasets labelled ``labels`` (in the config's order), for
        running part of a table, e.g. the cheap datasets at many seeds. The runs keep the whole
        config's hash, seeds and keys: the runs of a selection are the same runs as the whole
        table's (stored in the same directory, reused by a later run of the whole config, and
        read by its tables); the other datasets' cells are simply not run.

        Apply it after :meth:`with_scale` (a scale rewrites the datasets).

        Raises
        ------
        ConfigError
            ``labels`` is empty or names a dataset label the config does not have (the
            message lists the valid labels).
        """
        if isinstance(labels, str):
            labels = [labels]
        labels = [str(x) for x in labels]
        valid = [d.label for d in self.datasets]
        unknown = [x for x in labels if x not in valid]
        if not labels or unknown:
            what = f"unknown dataset label(s) {', '.join(map(repr, unknown))}" if unknown else "no dataset label given"
            raise ConfigError(self.path, [f"{what}; valid labels: {', '.join(valid)}"])
        if set(labels) == set(valid):
            return self
        kw = {f.name: getattr(self, f.name) for f in fields(self)}
        kw.update(datasets=tuple(d for d in self.datasets if d.label in labels),
                  hash_datasets=self.datasets if self.hash_datasets is None else self.hash_datasets)
        return type(self)(**kw)

    def with_smoke(self) -> "ExperimentConfig":
        """The config with its ``smoke`` overrides applied (one repetition, small data, small grids)."""
        return self.with_scale("smoke")

    def with_scale(self, scale: str) -> "ExperimentConfig":
        """The config at ``scale``: ``"full"`` (as written, the published protocol), ``"reduced"``
        (its ``reduced:`` overrides: full datasets, fewer repetitions or splits) or ``"smoke"``.

        A config without a ``reduced:`` section is its own reduced scale (the table is
        already small enough); :attr:`scale` still says ``"reduced"`` so that tables label it.

        Raises
        ------
        ConfigError
            ``scale`` is not one of :data:`SCALES`, or the config is already at another
            reduced scale.
        """
        if scale not in SCALES:
            raise ConfigError(self.path, [f"unknown scale {scale!r}; valid scales: {', '.join(SCALES)}"])
        if scale == self.scale:
            return self
        if self.hash_datasets is not None:
            raise ConfigError(self.path, ["the config is a selection of its datasets; choose the scale first, "
                                          "then the datasets"])
        if self.scale != "full":
            raise ConfigError(self.path, [f"the config is already at scale {self.scale!r}; "
                                          f"load it again to get scale {scale!r}"])
        if scale == "full":
            return self
        s = self._scale_spec(scale)
        methods = []
        for m in self.methods:
            params = {}
            for k, vals in m.params.items():
                if s.params is not None and k in s.params:
                    params[k] = s.params[k]
                elif s.max_grid is not None:
                    params[k] = tuple(vals[: s.max_grid])
                else:
                    params[k] = vals
            methods.append(MethodSpec(m.method, params))
        settings = dict(self.settings)
        if s.settings:
            settings.update(s.settings)
        datasets = self.datasets
        if s.datasets is not None:
            # a bare name that labels one of the full config's datasets means that entry, with its
            # options (a smaller scale picks among the published datasets, it does not redefine them)
            by_label = {d.label: d for d in self.datasets}
            datasets = tuple(by_label.get(d.name, d) if (not d.options and d.label == d.name and d.max_rows is None)
                             else d for d in s.datasets)
        if s.max_rows is not None:
            datasets = tuple(
                DatasetSpec(d.name, d.options, d.label, min(d.max_rows or s.max_rows, s.max_rows)) for d in datasets
            )
        kw = {f.name: getattr(self, f.name) for f in fields(self)}
        kw.update(
            methods=tuple(methods),
            datasets=tuple(datasets),
            repetitions=s.repetitions if s.repetitions is not None else self.repetitions,
            settings=settings,
            scale=scale,
        )
        if s.models is not None:
            kw["models"] = s.models
        if s.pairs is not None:
            kw["pairs"] = s.pairs
        return ExperimentConfig(**kw)


# ----------------------------------------------------------------------------- helpers


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


def format_value(v: Any) -> str:
    """Compact, deterministic text of a parameter value for run names (``0.1``, ``None``, ``[1,2]``)."""
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, float):
        if math.isfinite(v) and v == int(v) and abs(v) < 1e16:
            return repr(v)  # 1.0 stays distinct from 1
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(format_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{format_value(x)}" for k, x in sorted(v.items())) + "}"
    return str(v)


def expand_params(params: dict) -> list[dict]:
    """Cartesian product of the parameter axes, in axis order then value order.

    >>> expand_params({"a": (1, 2), "b": ("x",)})
    [{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'x'}]
    """
    if not params:
        return [{}]
    keys = list(params)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(params[k] for k in keys))]


def configs_root(start: str | os.PathLike | None = None) -> Path:
    """The ``configs/`` directory.

    With ``start`` (a config file's folder), the nearest ancestor of ``start`` named
    ``configs`` that holds ``solvers/`` (so a config finds the presets beside it); otherwise a
    ``configs/`` directory in the working directory (a project's own configs); otherwise the
    configs shipped inside the package (``interpretopt/configs``, package data of every
    installation, so names such as ``imd/table1`` resolve from any directory; a checkout links
    it to the repository's ``configs/``).
    """
    if start is not None:
        p = Path(start).resolve()
        for d in [p] + list(p.parents):
            if (d / "solvers").is_dir() and d.name == "configs":
                return d
    cwd = Path.cwd() / "configs"
    if cwd.is_dir():
        return cwd
    return Path(__file__).resolve().parents[1] / "configs"


def find_configs(root: str | os.PathLike | None = None) -> list[Path]:
    """Every experiment YAML under ``root`` (default :func:`configs_root`), presets excluded."""
    root = Path(root) if root is not None else configs_root()
    out = []
    for p in sorted(root.rglob("*.yaml")) + sorted(root.rglob("*.yml")):
        if "solvers" in p.relative_to(root).parts[:1]:
            continue
        out.append(p)
    return out


class _DuplicateKey(yaml.YAMLError):
    def __init__(self, key: Any, line: int, first: int) -> None:
        super().__init__(f"duplicate key {key!r} at line {line} (first given at line {first}); give each key once")


class _UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a mapping giving the same key twice (YAML keeps the last silently)."""


def _unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    first: dict = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        k = loader.construct_object(key_node, deep=True)
        try:
            seen = first.get(k)
        except TypeError:  # an unhashable key: the base constructor says so
            continue
        if seen is not None:
            raise _DuplicateKey(k, key_node.start_mark.line + 1, seen)
        first[k] = key_node.start_mark.line + 1
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)


def read_yaml_text(text: str, where: str = "<string>") -> Any:
    """Parse YAML text as :func:`load_config` does (safe types only, duplicate keys refused)."""
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except _DuplicateKey as e:
        raise ConfigError(where, [str(e)]) from None


def _read_yaml(path: Path) -> Any:
    """The YAML document of ``path``; a syntax error is a ConfigError naming the file, line and column,
    and so is a key given twice in one mapping."""
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.load(f, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except _DuplicateKey as e:
        raise ConfigError(str(path), [str(e)]) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ConfigError(str(path), [f"not valid YAML{where}: {e}"]) from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(str(path), [f"cannot be read: {e}"]) from None


def load_preset(name: str, root: str | os.PathLike | None = None) -> tuple[str, dict]:
    """Read ``configs/solvers/<name>.yaml`` and return ``(solver, settings)``.

    ``name`` is a file stem inside ``configs/solvers`` (``highs_fast``): a path (``../../x``) is
    refused with the offending value, so a config cannot read a YAML file from anywhere.
    """
    from interpretopt.experiments._paths import PathEscapeError, check_name, inside

    root = Path(root) if root is not None else configs_root()
    try:
        path = inside(root / "solvers", check_name(name, "preset") + ".yaml", what="preset")
    except PathEscapeError as e:
        raise ConfigError(str(root / "solvers"), [f"{e}; name a preset file in {root / 'solvers'} by its stem"]) \
            from None
    if not path.is_file():
        valid = sorted(p.stem for p in (root / "solvers").glob("*.yaml"))
        raise ConfigError(str(path), [f"unknown solver preset {name!r}; valid presets: {', '.join(valid) or '(none)'}"])
    raw = _read_yaml(path) or {}
    c = Checker(str(path))
    kw = read_spec(c, PresetSpec, raw, "") or {}
    c.raise_if_any()
    preset = PresetSpec(**kw)
    return preset.solver, preset.settings


# ----------------------------------------------------------------------------- validation


def _settings(c: Checker, v: Any, where: str) -> dict:
    """Solver settings: the keys, types and bounds of :class:`~interpretopt.solvers.SolveSettings`
    (its fields are the allowed keys, its annotations the types, its own checks the bounds)."""
    from interpretopt.solvers import SolveSettings

    names = {f.name for f in fields(SolveSettings)}
    if not c.keys(v, where, names):
        return {}
    hints = typing.get_type_hints(SolveSettings)
    out = {}
    for k, x in v.items():
        if k not in names:
            continue
        w = join(where, k)
        if k == "options":
            if not isinstance(x, dict):
                c.add(w, f"expected a mapping of solver options, got {type(x).__name__} ({x!r})")
            else:
                out[k] = dict(x)
            continue
        n = len(c.problems)
        try:
            value = check_value(c, hints[k], x, w, None)
        except TypeError:  # a setting whose type has no check here: SolveSettings checks it
            value = x
        if len(c.problems) > n:
            continue
        try:
            SolveSettings(**{k: value})
        except InputError as e:
            c.add(w, str(e))
            continue
        out[k] = value
    return out


def _param_axes(c: Checker, v: Any, where: str) -> dict:
    out = {}
    for k, x in _mapping(c, v, where, "a mapping of parameter name -> value or list of values").items():
        w = join(where, str(k))
        if not isinstance(k, str) or not k.isidentifier():
            c.add(w, "parameter names must be identifiers (letters, digits, _)")
            continue
        vals = x if isinstance(x, list) else [x]
        if not vals:
            c.add(w, "an empty list gives an empty grid; give at least one value")
            continue
        ok = True
        for i, val in enumerate(vals):
            if not _is_param_value(val):
                c.add(f"{w}[{i}]" if isinstance(x, list) else w,
                      "expected a number, string, boolean, null, a list of those or a mapping, "
                      f"got {type(val).__name__} ({val!r})")
                ok = False
        if ok:
            out[k] = tuple(tuple(val) if isinstance(val, list) else (_freeze(val) if isinstance(val, dict) else val)
                           for val in vals)
    return out


def _dataset(c: Checker, v: Any, where: str) -> DatasetSpec | None:
    if isinstance(v, str) and v:
        return DatasetSpec(v)
    kw = read_spec(c, DatasetSpec, v, where)
    if kw is None or not kw.get("name"):
        return None
    if "label" not in v and kw.get("options"):
        kw["label"] = kw["name"] + "(" + ",".join(f"{k}={format_value(x)}" for k, x in sorted(kw["options"].items())) + ")"
    if "/" in kw.get("label", ""):
        c.add(join(where, "label"), f"dataset labels cannot contain '/', got {kw['label']!r}")
    return DatasetSpec(**kw)


def _datasets(c: Checker, v: Any, where: str) -> tuple[DatasetSpec, ...]:
    if not isinstance(v, list) or not v:
        c.add(where, f"expected a non-empty list of datasets, got {v!r}")
        return ()
    out = [_dataset(c, x, f"{where}[{i}]") for i, x in enumerate(v)]
    out = [d for d in out if d is not None]
    seen = set()
    for d in out:
        if d.label in seen:
            c.add(where, f"dataset label {d.label!r} appears twice; give one of them a distinct `label`")
        seen.add(d.label)
    return tuple(out)


def _pairs(c: Checker, v: Any, where: str) -> PairSpec | None:
    if isinstance(v, dict) and "per_dataset" in v:
        if not c.keys(v, where, spec_keys(PairSpec)):
            return None
        return _per_dataset_pairs(c, v, where)
    kw = read_spec(c, PairSpec, v, where)
    if kw is None:
        return None
    cands, explicit = kw.get("candidates", ()), kw.get("pairs", ())
    select = kw.get("select", "all")
    if bool(cands) == bool(explicit):
        c.add(where, "give exactly one of `candidates` (with `select`) or `list`")
    if explicit and select != "all":
        c.add(join(where, "select"), "`select` applies to `candidates`, not to an explicit `list`")
    if cands and len(cands) < 2:
        c.add(join(where, "candidates"), "need at least two candidate models to form a pair")
    return PairSpec(**kw)


def _per_dataset_pairs(c: Checker, v: dict, where: str) -> PairSpec | None:
    others = sorted(k for k in v if k != "per_dataset")
    if others:
        c.add(where, f"`per_dataset` fixes the pairs; it cannot be combined with {', '.join(others)}")
    w = join(where, "per_dataset")
    per = v["per_dataset"]
    if not isinstance(per, dict) or not per:
        c.add(w, "expected a mapping dataset label -> {pair_tag: [model1, model2], ...}")
        return None
    out: dict[str, tuple] = {}
    for label, tags in per.items():
        wl = f"{w}.{label}"
        if not isinstance(tags, dict) or not tags:
            c.add(wl, "expected a mapping pair_tag -> [model1, model2]")
            continue
        entries = []
        for tag, p in tags.items():
            if not isinstance(tag, str) or not tag:
                c.add(wl, f"pair tags must be non-empty strings, got {tag!r}")
                continue
            if not isinstance(p, list) or len(p) != 2 or not all(isinstance(m, str) and m for m in p):
                c.add(f"{wl}.{tag}", f"expected a pair [model1, model2], got {p!r}")
                continue
            entries.append((tag, (p[0], p[1])))
        pairs = [e[1] for e in entries]
        if len(set(pairs)) != len(pairs):
            c.add(wl, "the same pair is listed twice (runs would share a name); list each pair once")
        out[str(label)] = tuple(entries)
    return PairSpec(per_dataset=out)


class _FrozenDict(dict):
    """A read-only dict (parameter values that are mappings), hashable by content."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(json.dumps(self, sort_keys=True, default=str))

    def _ro(self, *a, **k):
        raise TypeError("parameter mappings are read-only")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _ro  # type: ignore[assignment]

    def __reduce__(self):
        return (_FrozenDict, (dict(self),))


def _freeze(v: Any) -> Any:
    if isinstance(v, dict):
        return _FrozenDict({k: _freeze(x) for k, x in v.items()})
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    return v


def _is_json_like(v: Any) -> bool:
    if isinstance(v, Scalar):
        return True
    if isinstance(v, list):
        return all(_is_json_like(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _is_json_like(x) for k, x in v.items())
    return False


def _is_param_value(v: Any) -> bool:
    """A grid value: a scalar, a list of scalars, or a JSON-like mapping."""
    if isinstance(v, Scalar):
        return True
    if isinstance(v, list):
        return all(isinstance(x, Scalar) for x in v)
    return isinstance(v, dict) and _is_json_like(v)


def _listed_names(list_entries: Any) -> list[str] | None:
    """The names a registry's lister gives (entries are mappings with a ``name`` or plain values); None when it fails."""
    try:
        return [e["name"] if isinstance(e, dict) else str(e) for e in list_entries()]
    except Exception:  # pragma: no cover - registry under construction
        return None


def _known_models() -> list[str] | None:
    try:
        from interpretopt.blackbox import list_models
    except ImportError:
        return None
    return _listed_names(list_models)


def _known_datasets() -> list[str] | None:
    try:
        from interpretopt.data import list_datasets
    except ImportError:
        return None
    return _listed_names(list_datasets)


IMPORT_OPT_IN = "--allow-import (load_config(..., allow_import=True) / parse_config(..., allow_import=True))"


def _check_imports(c: Checker, raw: dict, methods: list, allow_import: bool) -> None:
    """A ``module:function`` method imports and calls code the config names: only by explicit opt-in."""
    if allow_import:
        return
    for i, m in enumerate(methods):
        if m.method and ":" in m.method and not m.method.startswith(":"):
            mod, _, fn = m.method.partition(":")
            c.add("method" if "method" in raw else f"methods[{i}].method",
                  f"{m.method!r} would import module {mod!r} and call {fn!r}: a config naming code runs it, so "
                  f"this is refused unless you trust the config; opt in with {IMPORT_OPT_IN}, or register the "
                  "method (CONTRIBUTING.md, \"Adding a method\")")


def _check_file_names(c: Checker, kw: dict) -> None:
    """Table and plot names become file names under ``<out>/tables`` and ``<out>/plots``: plain names only."""
    from interpretopt.experiments._paths import PathEscapeError, check_name

    for what in ("tables", "plots"):
        for i, spec in enumerate(kw.get(what, ())):
            try:
                check_name(spec.name, f"{what[:-1]} name")
            except PathEscapeError as e:
                c.add(f"{what}[{i}].name", str(e))
    for i, d in enumerate(kw.get("datasets", ())):  # the data root is the user's, never the config's
        if "data_dir" in d.options:
            c.add(f"datasets[{i}].options.data_dir", f"a config cannot name a data directory (got "
                  f"{d.options['data_dir']!r}); give it with --data-dir or INTERPRETOPT_DATA")


def _check_grid_sizes(c: Checker, raw: dict, methods: list, max_runs: Any) -> bool:
    """False (with a problem) when a method's grid alone exceeds the plan limit: it is not expanded."""
    from interpretopt.experiments._plansize import HOW_TO_ALLOW, grid_size, max_runs_limit

    try:
        limit = max_runs_limit(max_runs)
    except InputError as e:
        c.add("max_runs", str(e))
        return False
    ok = True
    for i, m in enumerate(methods):
        n = grid_size(m.params)
        if n > limit:
            c.add("params" if "method" in raw else f"methods[{i}].params",
                  f"the grid has {n:,} points, above the limit of {limit:,} runs; {HOW_TO_ALLOW}, e.g. --max-runs {n}")
            ok = False
    return ok


def parse_config(raw: Any, path: str = "<string>", *, check_names: bool = True, allow_import: bool = False,
                 max_runs: int | None = None) -> ExperimentConfig:
    """Validate a parsed YAML mapping into an :class:`ExperimentConfig`.

    Parameters
    ----------
    raw : dict
        The YAML document.
    path : str
        File name used in messages and to find ``configs/solvers`` presets.
    check_names : bool, default=True
        Check method, dataset and model names against their registries when those exist.
    allow_import : bool, default=False
        Accept ``method: "module:function"``, which imports and calls that function: a config
        is then code, so this is an explicit opt-in (``--allow-import`` on the command line).
    max_runs : int, optional
        Refuse a method grid of more points (default ``$INTERPRETOPT_MAX_RUNS`` or 100,000), before it
        is expanded to check its values.

    Raises
    ------
    ConfigError
        Listing every problem found.
    """
    c = Checker(path)
    kw = _read_top_level(c, raw)
    methods = _parse_methods(c, raw)
    _check_imports(c, raw, methods, allow_import)
    if check_names:
        _check_method_names(c, raw, methods)
        _check_dataset_names(c, kw.get("datasets", ()))
    _check_models_and_pairs(c, raw, kw, check_names)
    solver, preset, settings = _parse_solver_and_settings(c, raw, path)
    smoke, reduced = kw.get("smoke", SmokeSpec()), kw.get("reduced")
    _check_scale_overrides(c, methods, smoke, reduced, check_names)
    if _check_grid_sizes(c, raw, methods, max_runs) and check_names:
        _check_method_params(c, raw, methods, solver, smoke, reduced)
    _check_file_names(c, kw)
    _check_unique_output_names(c, kw)
    c.raise_if_any()
    kw.update(methods=tuple(methods), solver=solver, preset=preset, settings=settings, path=path)
    return ExperimentConfig(**kw)


def _read_top_level(c: Checker, raw: Any) -> dict:
    """The top-level keys of :class:`ExperimentConfig` (raising at once when ``raw`` is unreadable),
    with ``name`` defaulting to ``"unnamed"`` and checked to be a plain name."""
    kw = read_spec(c, ExperimentConfig, raw, "", extra={"method", "params"})
    if kw is None:
        c.raise_if_any()
    kw.setdefault("name", "unnamed")
    name = kw["name"]
    if name and ("/" in name or name.startswith(".")):
        c.add("name", f"must not contain '/' or start with '.', got {name!r}")
    return kw


def _parse_methods(c: Checker, raw: dict) -> list[MethodSpec]:
    """The methods of the config: ``method`` (+ ``params``) or a ``methods`` list, never both."""
    methods: list[MethodSpec] = []
    if "methods" in raw and ("method" in raw or "params" in raw):
        c.add("methods", "give either `method` (+ `params`) or `methods`, not both")
    if "methods" in raw:
        lst = raw["methods"]
        if not isinstance(lst, list) or not lst:
            c.add("methods", "expected a non-empty list of {method, params} mappings")
        else:
            for i, m in enumerate(lst):
                mkw = read_spec(c, MethodSpec, m, f"methods[{i}]")
                if mkw is not None and "method" in m:
                    methods.append(MethodSpec(mkw.get("method") or "", mkw.get("params", {})))
    elif "method" in raw:
        mname = c.string(raw["method"], "method")
        methods.append(MethodSpec(mname, _param_axes(c, raw.get("params"), "params")))
    else:
        c.add("method", "required key is missing (or give `methods`)")
    return methods


def _check_method_names(c: Checker, raw: dict, methods: list) -> None:
    """Every named method is a registered task (or a ``module:function``)."""
    from interpretopt.experiments.tasks import is_task_name, task_names

    valid = task_names()
    for i, m in enumerate(methods):
        if m.method and not is_task_name(m.method):
            c.add("method" if "method" in raw else f"methods[{i}].method",
                  f"unknown method {m.method!r}; valid methods: {', '.join(valid)}")


def _check_dataset_names(c: Checker, datasets) -> None:
    """Every dataset is a registered one (when there are datasets and the registry can be read)."""
    if not datasets:
        return
    known = _known_datasets()
    if known is not None:
        for i, d in enumerate(datasets):
            if d.name not in known:
                c.add(f"datasets[{i}]", f"unknown dataset {d.name!r}; valid names: {', '.join(sorted(known))}")


def _check_model_names(c: Checker, names, where: str, check_names: bool) -> None:
    """Every name in ``names`` is a registered black-box model (when checked and the registry can be read)."""
    known = _known_models() if check_names else None
    if known is None:
        return
    for n in names:
        if n not in known:
            c.add(where, f"unknown model {n!r}; valid names: {', '.join(sorted(known))}")


def _check_models_and_pairs(c: Checker, raw: dict, kw: dict, check_names: bool) -> None:
    """``models`` or ``pairs``, not both; their model names; ``pairs.per_dataset`` covers every dataset."""
    if "models" in raw and "pairs" in raw:
        c.add("models", "give either `models` or `pairs`, not both")
    models, pairs = kw.get("models", ()), kw.get("pairs")
    _check_model_names(c, models, "models", check_names)
    if pairs is None:
        return
    _check_model_names(c, pairs.candidates + tuple(m for p in pairs.pairs for m in p), "pairs", check_names)
    if pairs.per_dataset:
        _check_model_names(c, tuple(m for e in pairs.per_dataset.values() for _, p in e for m in p),
                           "pairs.per_dataset", check_names)
        missing = [d.label for d in kw.get("datasets", ()) if d.label not in pairs.per_dataset]
        if missing:
            c.add("pairs.per_dataset", f"no pairs for dataset(s) {', '.join(missing)}; give every dataset "
                  "label its pairs")


def _parse_solver_and_settings(c: Checker, raw: dict, path: str) -> tuple[str | dict, str | None, dict]:
    """``(solver, preset, settings)``: a ``preset`` file's solver and settings, or ``solver`` (default
    ``"highs"``), never both; ``settings`` given in the config override the preset's."""
    solver = "highs"
    preset = None
    settings: dict = {}
    if "solver" in raw and "preset" in raw:
        c.add("preset", "give either `solver` or `preset`, not both")
    if "preset" in raw:
        preset = c.string(raw["preset"], "preset")
        if preset:
            try:
                solver, settings = load_preset(preset, configs_root(Path(path).parent if path != "<string>" else None))
            except ConfigError as e:
                c.add("preset", "; ".join(e.problems))
    if "solver" in raw:
        solver = _parse_solver(c, raw["solver"])
    if "settings" in raw:
        settings = {**settings, **_settings(c, raw["settings"] or {}, "settings")}
    return solver, preset, settings


def _check_scale_overrides(c: Checker, methods: list, smoke, reduced, check_names: bool) -> None:
    """The ``smoke`` and ``reduced`` sections name known models and only parameters of the experiment."""
    for where, spec in (("smoke", smoke), ("reduced", reduced)):
        if spec is not None:
            _check_model_names(c, spec.models or (), f"{where}.models", check_names)
    all_params = {k for m in methods for k in m.params}
    for where, spec in (("smoke", smoke), ("reduced", reduced)):
        for k in (spec.params or {}) if spec is not None else {}:
            if k not in all_params:
                c.add(f"{where}.params.{k}",
                      f"not a parameter of the experiment; parameters: {', '.join(sorted(all_params))}")


def _check_unique_output_names(c: Checker, kw: dict) -> None:
    """No two tables (or two plots) share a name: each becomes one file."""
    for what in ("tables", "plots"):
        names = [s.name for s in kw.get(what, ())]
        for n in dict.fromkeys(names):  # first-seen order: the same message order in every process
            if names.count(n) > 1:
                c.add(what, f"name {n!r} is used twice")


def _parse_solver(c: Checker, v: Any) -> str | dict:
    """``solver:``: one solver name (for every role it fits), or a mapping role -> solver name."""
    if isinstance(v, dict):
        out = {}
        for role, name in v.items():
            if not isinstance(role, str) or not isinstance(name, str) or not name:
                c.add(join("solver", str(role)), f"expected role: solver name (strings), got {role!r}: {name!r}")
                continue
            out[role] = name
        if not out:
            c.add("solver", "the mapping names no role; give `solver: <name>` or `solver: {<role>: <name>, ...}`")
        return out or "highs"
    return c.string(v, "solver", "highs")


def _check_solver_reaches(c: Checker, raw: dict, methods, solver, where: str) -> None:
    """A solver given (``solver``/``preset``) must reach an optimization problem of the config, and each role
    of a mapping must be a role of one of its methods (the capabilities are checked per method after)."""
    from interpretopt._validation import did_you_mean
    from interpretopt.experiments.tasks import METHOD_TASKS, all_solver_roles, is_task_name, method_search

    tasks = [m for m in methods if m.method in METHOD_TASKS]
    if not tasks or len(tasks) < len([m for m in methods if m.method and is_task_name(m.method)]):
        return  # a built-in or module:function task takes any solver
    if isinstance(solver, dict):
        known = {r: m.method for m in tasks for r in all_solver_roles(m.method)}
        for role in solver:
            if role not in known:
                roles = ", ".join(f"{r} ({t})" for r, t in known.items()) or "none"
                c.add(join("solver", role), f"no method of this config has solver role {role!r}"
                      f"{did_you_mean(role, list(known))}; the roles here: {roles}")
    if "solver" not in raw and "preset" not in raw:
        return
    searches = [(m.method, method_search(m.method, m.params, grid=True)) for m in tasks]
    if all(text is not None for _, text in searches):
        said = "; ".join(f"{name}: {text}" for name, text in dict(searches).items())
        c.add(where, f"no run of this config solves an optimization problem, so a solver has nothing to do "
                     f"({said}); remove `{where}:`")


def _check_method_params(c: Checker, raw: dict, methods, solver: str, smoke, reduced) -> None:
    """Every method parameter against its task's schema (unknown names, values), and the solver
    against what the runs need: at load time, before any run."""
    from interpretopt.experiments.tasks import check_method_params, check_method_solver, is_task_name

    solver_where = "preset" if "preset" in raw and "solver" not in raw else "solver"
    _check_solver_reaches(c, raw, methods, solver, solver_where)
    for i, m in enumerate(methods):
        if not m.method or not is_task_name(m.method):
            continue
        where = "params" if "method" in raw else f"methods[{i}].params"
        grids = [(where, m.params)]
        for scale, spec in (("smoke", smoke), ("reduced", reduced)):
            if spec is not None and spec.params:
                grids.append((f"{scale}.params", {k: v for k, v in spec.params.items() if k in m.params}))
        for w, grid in grids:
            for key_, problem in check_method_params(m.method, grid, grid=True):
                c.add(join(w, key_) if key_ else w, problem)
        for problem in check_method_solver(m.method, solver, m.params, grid=True):
            c.add(solver_where, problem)


def _parse_filter(c: Checker, v: Any, where: str) -> dict:
    out = {}
    for k, x in _mapping(c, v, where, "a mapping column -> value (or list of values)").items():
        if not _is_param_value(x):
            c.add(join(where, str(k)), f"expected a value or list of values, got {type(x).__name__}")
        else:
            out[str(k)] = tuple(x) if isinstance(x, list) else x
    return out


def _label_key(k: Any) -> str:
    """A YAML key as the table label it refers to (``6.0`` and ``6`` both give ``"6"``)."""
    if isinstance(k, float) and k.is_integer():
        return str(int(k))
    return str(k)


def _parse_table(c: Checker, t: Any, where: str) -> TableSpec | None:
    kw = read_spec(c, TableSpec, t, where)
    if kw is None or not kw.get("name") or not kw.get("metric"):
        return None
    return TableSpec(**kw)


def _parse_plot(c: Checker, p: Any, where: str) -> PlotSpec | None:
    kw = read_spec(c, PlotSpec, p, where)
    if kw is None or not all(kw.get(k) for k in ("name", "kind", "x", "y")):
        return None
    return PlotSpec(**kw)


def load_config(path: str | os.PathLike, *, smoke: bool = False, scale: str | None = None,
                check_names: bool = True, allow_import: bool = False, max_runs: int | None = None,
                overrides: typing.Sequence[str] = ()) -> ExperimentConfig:
    """Read and validate a YAML experiment config.

    Parameters
    ----------
    path : path-like
        The YAML file.
    smoke : bool, default=False
        Apply the config's ``smoke`` overrides (see :meth:`ExperimentConfig.with_smoke`);
        the same as ``scale="smoke"``.
    scale : {"smoke", "reduced", "full"} or None
        The scale to load (see :meth:`ExperimentConfig.with_scale`); default full.
    check_names : bool, default=True
        Check method, dataset and model names against their registries.
    allow_import : bool, default=False
        Accept ``method: "module:function"`` (imports and calls it; see :func:`parse_config`).
    max_runs : int, optional
        The plan-size limit a method grid is checked against (see :func:`parse_config`).
    overrides : sequence of str
        ``PATH=VALUE`` overrides (the command line's ``--set``) applied to the file before it is
        validated (:func:`apply_overrides`); kept in :attr:`ExperimentConfig.overrides`.

    Raises
    ------
    ConfigError
        The file is missing, is not YAML (or gives a key twice), or does not validate (every
        problem listed).
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError(str(p), [f"no such file; configs available under {configs_root()}: "
                                   "run `interpretopt list configs`"])
    raw = _read_yaml(p)
    kw = dict(check_names=check_names, allow_import=allow_import, max_runs=max_runs)
    if overrides:
        raw, given = apply_overrides(raw, overrides, str(p))
        try:
            cfg = _with_overrides(parse_config(raw, str(p), **kw), given)
        except ConfigError as e:
            raise ConfigError(f"{p} with --set {' --set '.join(given)}", e.problems) from None
    else:
        cfg = parse_config(copy.deepcopy(raw) if raw is not None else {}, str(p), **kw)
    if smoke and scale not in (None, "smoke"):
        raise ConfigError(str(p), [f"smoke=True contradicts scale={scale!r}"])
    return cfg.with_scale("smoke" if smoke else (scale or "full"))


# ----------------------------------------------------------------------------- command-line overrides


def apply_overrides(raw: Any, overrides: "typing.Sequence[str]", path: str = "<string>") -> tuple[dict, tuple[str, ...]]:
    """The YAML document ``raw`` with ``--set PATH=VALUE`` overrides applied, and the overrides as given.

    ``PATH`` is a dotted key path into the document, list elements by index
    (``methods.0.params.max_depth``, ``settings.time_limit``, ``datasets.1.max_rows``); a config
    written with ``method:`` + ``params:`` also takes ``methods.0.<key>``. A bare name that is no
    top-level key is a parameter of the config's method(s) (``max_depth=3``). ``VALUE`` is read
    as YAML (``3``, ``0.5``, ``true``, ``null``, ``[3, 6]``, ``{time_limit: 5}``). A parameter
    set this way is also set in the ``smoke:`` and ``reduced:`` sections that set it, so that it
    holds at every scale. The result is validated as the file is (:func:`parse_config`): an unknown
    key gets the same did-you-mean.

    Raises
    ------
    ConfigError
        An override is not ``PATH=VALUE``, its value is not YAML, or its path does not exist in
        the document's structure (a list index out of range, a key below a plain value, a bare
        name that is neither a key nor a parameter; the message names the closest valid key).
    """
    from interpretopt._validation import did_you_mean

    doc = copy.deepcopy(raw) if isinstance(raw, dict) else {}
    given: list[str] = []
    for item in overrides:
        key_path, eq, text = str(item).partition("=")
        key_path = key_path.strip()
        if not eq or not key_path or any(not s for s in key_path.split(".")):
            raise ConfigError(path, [f"--set {item!r}: expected PATH=VALUE, e.g. methods.0.params.max_depth=3 "
                                     "or settings.time_limit=60"])
        try:
            value = yaml.safe_load(text) if text.strip() else None
        except yaml.YAMLError as e:
            raise ConfigError(path, [f"--set {item!r}: the value is not YAML ({str(e).splitlines()[0]})"]) from None
        for target in _override_targets(doc, key_path, path, did_you_mean):
            _set_path(doc, target, value, path, item)
        given.append(f"{key_path}={text.strip()}")
    return doc, tuple(given)


def _with_overrides(cfg: ExperimentConfig, given: tuple[str, ...]) -> ExperimentConfig:
    kw = {f.name: getattr(cfg, f.name) for f in fields(cfg)}
    kw.update(overrides=given)
    return ExperimentConfig(**kw)


def _override_targets(doc: dict, key_path: str, path: str, did_you_mean) -> list[list[str]]:
    """The key paths an override writes: its own, mapped onto a ``method:`` document, a bare
    parameter name onto the methods' ``params``, plus the scale sections that set the parameter."""
    parts = key_path.split(".")
    if "methods" not in doc and "method" in doc and parts[:2] == ["methods", "0"] and len(parts) > 2:
        parts = parts[2:]  # methods.0.params.x of a config written with `method:` + `params:`
    top = spec_keys(ExperimentConfig) | {"method", "params"}
    if len(parts) == 1 and parts[0] not in top:
        targets = _parameter_targets(doc, parts[0])
        if not targets:
            known = sorted(top | set(_method_parameters(doc)))
            raise ConfigError(path, [f"--set {key_path}: no such key{did_you_mean(parts[0], known)}; a bare name "
                                     "is a top-level key or a parameter of the config's method; keys: "
                                     f"{', '.join(sorted(top))}"])
    else:
        targets = [parts]
    name = targets[0][-1]
    if len(targets[0]) >= 2 and targets[0][-2] == "params":
        for scale in ("smoke", "reduced"):
            section = doc.get(scale)
            if isinstance(section, dict) and isinstance(section.get("params"), dict) and name in section["params"]:
                targets.append([scale, "params", name])
    return targets


def _method_parameters(doc: dict) -> dict[str, list[list[str]]]:
    """Parameter name -> the ``params`` paths of the document's methods that accept it."""
    from interpretopt.experiments.tasks import accepted_parameters, is_task_name

    entries = ([(["params"], doc.get("method"), doc.get("params"))] if "method" in doc else
               [(["methods", str(i), "params"], m.get("method"), m.get("params"))
                for i, m in enumerate(doc.get("methods") or []) if isinstance(m, dict)])
    out: dict[str, list[list[str]]] = {}
    for where, method, params in entries:
        names = set(params) if isinstance(params, dict) else set()
        if isinstance(method, str) and is_task_name(method):
            names |= set(accepted_parameters(method) or ())
        for n in names:
            out.setdefault(str(n), []).append(where)
    return out


def _parameter_targets(doc: dict, name: str) -> list[list[str]]:
    return [where + [name] for where in _method_parameters(doc).get(name, [])]


def _set_path(doc: dict, parts: list[str], value: Any, path: str, item: str) -> None:
    """Write ``value`` at ``parts`` in ``doc``, creating missing mappings; a list takes an index."""
    node: Any = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        here = ".".join(parts[: i + 1])
        if isinstance(node, list):
            if not part.lstrip("-").isdigit() or not -len(node) <= int(part) < len(node):
                raise ConfigError(path, [f"--set {item!r}: {here}: no element {part!r}; "
                                         f"{'.'.join(parts[:i]) or 'the list'} has {len(node)} "
                                         f"(indices 0 to {len(node) - 1})"])
            idx = int(part)
            if last:
                node[idx] = value
            else:
                if isinstance(node[idx], str):  # `- breast_cancer` written out as its mapping
                    node[idx] = {"name": node[idx]}
                node = node[idx]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            else:
                if node.get(part) is None:
                    node[part] = {}
                node = node[part]
        else:
            raise ConfigError(path, [f"--set {item!r}: {'.'.join(parts[:i])} is a value ({node!r}), not a mapping "
                                     "or list; set it whole"])
