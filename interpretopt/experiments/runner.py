"""Runner: expand a config into named runs, execute them (resumably, in parallel), store rows.

* Each run has a deterministic name ``method[param=value,...]@dataset/models/rep`` (params
  sorted by name; ``models`` is ``M1-M2`` for a pair, ``-`` for none). Its *run key*, the
  name hashed with the config hash, names its row file: a run whose row exists with
  ``run_status == "ok"`` is not run again (resume); failed runs are retried; ``force``
  reruns everything.
* Seeds are hashed, never drawn in sequence: a run's seed is a hash of (config seed,
  dataset, method, params, rep); ``ctx.split(key=...)`` hashes (config seed, dataset, rep,
  key), so every method sees the same splits; black boxes are seeded by (config seed,
  dataset, model, train rows). Results therefore do not depend on run order or parallelism.
  Each run executes with one thread in every native thread pool (BLAS, OpenMP: a floating-point
  sum split over threads rounds differently, and an unconverged fit amplifies it), whether it
  runs in-process, in a loky worker or on Dask; parallelism is across runs.
* Black boxes are fitted once per (dataset, model, train rows, labels) and process: cached in
  memory, shared by runs and methods, never written to disk (a fitted model can only be stored
  as a pickle, and nothing read from a results folder may run code); another process refits the
  same model from the same hashed seed. Caches on disk hold data only, verified by a content
  hash (:mod:`interpretopt.experiments._datacache`).
* A cached value (a dataset, a black box, a memo value) keeps the warnings raised while it was
  computed (an unconverged fit's ``ConvergenceWarning``) and replays them to every run that uses
  it, the one that computed it and each later cache hit, through that run's own filters; so a
  run's ``warnings`` column does not depend on which runs came before it in the process.
* Anything else a task wants to share between runs (a rule set fitted once and compared with
  several others, a tree grown once and truncated at several depths, out-of-fold
  predictions) goes through ``ctx.memo(name, make, **deps)``: one in-process cache owned by
  the runner, keyed by the config hash (seed, split, solver, settings, dataset options),
  the data fingerprint, the solver and every dependency the task names (split rows,
  parameters, seeds; arrays are hashed by content). Tasks keep no caches of their own, and
  their randomness comes from ``ctx.seed_for(...)`` / ``ctx.rng_for(...)`` (hashed seeds),
  so a cached value is the same whichever run computed it.
* Execution: in-process for ``n_jobs=1``; joblib (loky processes) for ``n_jobs > 1``;
  ``scheduler="tcp://host:8786"`` (or a ``distributed.Client``) sends the same runs to a Dask
  cluster through dask.distributed's joblib backend. In parallel, a worker takes the runs of
  one (dataset, models, repetition) together (:func:`work_units`), so what they share through
  ``ctx.memo`` is computed once rather than once per worker process. Workers return rows; the
  main process writes them atomically as they arrive, so an interruption loses only the units
  in flight.
  With a remote cluster the data directory must be readable by the workers.
* A run that raises is stored with ``run_status="failed"``, its error and traceback; the
  other runs go on. A dataset whose file is absent fails that dataset's runs with the
  data layer's message.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import socket
import threading
import time
import traceback as _tb
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from interpretopt._threads import single_thread
from interpretopt.experiments._paths import inside
from interpretopt.experiments.config import (
    DatasetSpec,
    ExperimentConfig,
    PairSpec,
    SplitSpec,
    expand_params,
    format_value,
)
from interpretopt.exceptions import InterpretoptError
from interpretopt.experiments._claims import DEFAULT_MAX_AGE, ClaimBook
from interpretopt.experiments._plansize import HOW_TO_ALLOW, PlanTooLargeError, check_plan_size, max_runs_limit
from interpretopt.experiments.progress import progress_bar
from interpretopt.experiments.results import RESERVED_COLUMNS, ResultStore, atomic_write_text, provenance

__all__ = [
    "RunSpec",
    "RunEnv",
    "RunContext",
    "RunReport",
    "hash_seed",
    "run_seed",
    "run_name",
    "plan_runs",
    "execute_run",
    "execute_runs",
    "work_units",
    "run_experiment",
    "default_out_dir",
    "runs_source",
    "stored_results",
    "select_pairs",
    "clear_caches",
    "memo_stats",
    "digest",
    "OutputError",
    "check_n_jobs",
]

SPECIAL_KEYS = ("solver", "status", "objective", "bound", "gap")


# ----------------------------------------------------------------------------- hashing


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=str, separators=(",", ":"))


def hash_seed(*parts: Any, bits: int = 32) -> int:
    """A seed in ``[0, 2**bits)`` from the SHA-256 of the parts' canonical JSON.

    >>> hash_seed("adult", "imd", 0) == hash_seed("adult", "imd", 0)
    True
    """
    h = hashlib.sha256(_canon([_jsonable(p) for p in parts]).encode()).digest()
    return int.from_bytes(h[:8], "little") % (2**bits)


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


def run_seed(config_seed: int, dataset: str, method: str, params: dict, rep: int) -> int:
    """Seed of a run: hash of (config seed, dataset label, method, params, rep)."""
    return hash_seed("run", config_seed, dataset, method, params, rep)


def variant_name(method: str, params: dict) -> str:
    """``method[param=value,...]`` with the parameters sorted by name (``method`` alone if none)."""
    if not params:
        return method
    return method + "[" + ",".join(f"{k}={format_value(params[k])}" for k in sorted(params)) + "]"


def run_name(method: str, params: dict, dataset: str, models: tuple[str, ...], rep: int) -> str:
    """``method[param=value,...]@dataset/models/rep``."""
    return f"{variant_name(method, params)}@{dataset}/{'-'.join(models) or '-'}/{rep}"


# ----------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class RunSpec:
    """One run of the grid (picklable, small)."""

    name: str
    key: str
    method: str
    params: dict
    dataset: DatasetSpec
    models: tuple[str, ...]
    rep: int
    seed: int
    pair_tag: str = ""
    error: str | None = None  # set when planning already failed (e.g. pair selection on a missing file)

    @property
    def variant(self) -> str:
        return variant_name(self.method, self.params)


@dataclass(frozen=True)
class RunEnv:
    """What every run of one experiment shares (picklable)."""

    config_name: str
    config_hash: str
    config_seed: int
    solver: str
    settings: dict
    split: SplitSpec
    smoke: bool
    out_dir: str | None
    data_dir: str | None = None
    record: tuple[str, ...] | None = None
    scale: str = "full"
    overrides: tuple[str, ...] = ()  # the config's `--set` overrides (row column `overrides`)

    @classmethod
    def from_config(cls, config: ExperimentConfig, out_dir=None, data_dir=None) -> "RunEnv":
        return cls(config.name, config.config_hash, config.seed, config.solver, dict(config.settings), config.split,
                   config.is_smoke, None if out_dir is None else str(out_dir),
                   None if data_dir is None else str(data_dir), config.record, config.scale, config.overrides)


# ----------------------------------------------------------------------------- caches (per process)

# Each value is kept with the warnings raised while computing it (_computed), replayed on every use.
_DATASETS: "OrderedDict[tuple, Any]" = OrderedDict()  # (_Loaded or the load's exception, warnings)
_BLACKBOXES: "OrderedDict[str, Any]" = OrderedDict()  # (fitted model, warnings)
_MEMO: "OrderedDict[str, Any]" = OrderedDict()  # (value, black boxes it used, warnings)
_MEMO_STATS = {"hits": 0, "misses": 0}
_MAX_DATASETS = 8
_MAX_BLACKBOXES = 64
_FINGERPRINTS: OrderedDict = OrderedDict()  # black-box cache key -> prediction fingerprint
_MAX_MEMO = 64
_LOCK = threading.Lock()


def _forget_failed_loads() -> None:
    """Drop remembered dataset failures (a file may have been added since)."""
    with _LOCK:
        for k in [k for k, (v, _) in _DATASETS.items() if isinstance(v, BaseException)]:
            del _DATASETS[k]


def clear_caches() -> None:
    """Forget the datasets, black boxes and memoized task values cached in this process."""
    with _LOCK:
        _DATASETS.clear()
        _BLACKBOXES.clear()
        _FINGERPRINTS.clear()
        _MEMO.clear()
        _MEMO_STATS.update(hits=0, misses=0)


def memo_stats() -> dict:
    """``{"hits", "misses", "size"}`` of the task memo in this process (for tests and benchmarks)."""
    with _LOCK:
        return {**_MEMO_STATS, "size": len(_MEMO)}


def digest(value: Any) -> Any:
    """A canonical, JSON-able stand-in of a memo or seed dependency.

    Scalars stay as they are; arrays (and pandas objects) become their dtype, shape and the
    SHA-1 of their bytes; lists, tuples, mappings and dataclasses are digested element by
    element. Anything else raises ``TypeError`` (a dependency that cannot be compared by
    value cannot key a cache).
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        arr = np.ascontiguousarray(value)
        if arr.dtype == object:
            return {"__object_array__": [list(arr.shape), [digest(v) for v in arr.ravel().tolist()]]}
        return {"__ndarray__": [str(arr.dtype), list(arr.shape), hashlib.sha1(arr.tobytes()).hexdigest()]}
    try:
        import pandas as pd

        if isinstance(value, (pd.Series, pd.Index)):
            return digest(value.to_numpy())
        if isinstance(value, pd.DataFrame):
            return {"__frame__": [[str(c) for c in value.columns], [digest(value[c].to_numpy()) for c in value.columns]]}
    except ImportError:  # pragma: no cover - pandas is a dependency
        pass
    if isinstance(value, (list, tuple)):
        return [digest(v) for v in value]
    if isinstance(value, dict):
        return {str(k): digest(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"__dataclass__": type(value).__name__,
                **{f.name: digest(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    raise TypeError(f"cannot key a cache or a seed by a {type(value).__name__} ({value!r:.60}); pass numbers, "
                    "strings, arrays, or lists / dicts of them")


class _Loaded:
    """A loaded dataset with its numeric view and a content fingerprint."""

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset
        self.X = np.ascontiguousarray(dataset.numeric(), dtype=float)
        self.y = np.asarray(dataset.y)
        h = hashlib.sha1(self.X.tobytes())
        h.update(np.ascontiguousarray(self.y).tobytes())
        h.update(str(self.X.shape).encode())
        self.fingerprint = h.hexdigest()[:16]


def _computed(make) -> tuple[Any, tuple]:
    """``(make(), warnings raised by make)``, the warnings kept to be replayed with the cached value.

    Every warning is captured (``always``: the once-per-location registry would swallow one
    already seen in this process, yet the value is shared by runs that never saw it); each is
    kept as ``(message, category, filename, lineno)``, without the source object it may point
    to. When ``make`` raises, nothing is cached: its warnings are replayed at once, as they
    would have been raised without the capture, and the exception goes on.
    """
    caught: list = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = make()
    except BaseException:
        _replay(_kept(caught))
        raise
    return value, _kept(caught)


def _kept(caught: list) -> tuple:
    return tuple((w.message, w.category, w.filename, w.lineno) for w in caught)


def _replay(captured: tuple) -> None:
    """Raise again the warnings :func:`_computed` kept, through the caller's filters and recorder.

    Called by every use of a cached value, the computing run included, so that each run records
    the same warnings whatever ran before it in the process. A replay inside another value's
    :func:`_computed` (a memo used in another memo's ``make``) is captured by that value too.
    """
    for message, category, filename, lineno in captured:
        warnings.warn_explicit(message, category, filename, lineno)


def _load(spec: DatasetSpec, data_dir: str | None, config_seed: int) -> _Loaded:
    """The dataset of ``spec``, loaded once per process (a failure too, so that its runs fail fast)."""
    key = (spec.name, _canon(spec.options), spec.max_rows, data_dir, config_seed)
    with _LOCK:
        hit = _DATASETS.get(key)
        if hit is not None:
            _DATASETS.move_to_end(key)
    if hit is None:
        hit = _computed(lambda: _read(spec, data_dir, config_seed))
        with _LOCK:
            _DATASETS[key] = hit
            while len(_DATASETS) > _MAX_DATASETS:
                _DATASETS.popitem(last=False)
    loaded, captured = hit
    _replay(captured)
    if isinstance(loaded, BaseException):
        raise loaded
    return loaded


def _read(spec: DatasetSpec, data_dir: str | None, config_seed: int) -> Any:
    """The :class:`_Loaded` dataset, or the exception that stopped loading it (remembered by :func:`_load`)."""
    try:
        from interpretopt.data import load_dataset

        ds = load_dataset(spec.name, data_dir=data_dir, **spec.options)
        if spec.max_rows is not None and ds.n_samples > spec.max_rows:
            rs = hash_seed("subsample", config_seed, spec.label, spec.max_rows)
            try:
                ds = ds.subsample(spec.max_rows, random_state=rs, stratify=_is_discrete(ds.y))
            except Exception:
                ds = ds.subsample(spec.max_rows, random_state=rs)
        return _Loaded(ds)
    except Exception as e:  # remembered so that every run of a missing dataset fails fast
        return e


def _is_discrete(y: np.ndarray) -> bool:
    y = np.asarray(y)
    if y.dtype.kind in "biuOUS":
        return True
    if y.dtype.kind == "f":
        return bool(np.all(np.mod(y, 1) == 0)) and np.unique(y).size <= max(2, y.size // 2)
    return False


def _fit_model(name: str, X: np.ndarray, y: np.ndarray, random_state: int):
    from interpretopt.blackbox import make_model

    return make_model(name, random_state=random_state).fit(X, y)


# ----------------------------------------------------------------------------- RunContext


class RunContext:
    """What a task receives: the run's point of the grid, its data, seeds and shared caches.

    Attributes
    ----------
    run_name, method : str
    params : dict
        This run's parameter values.
    dataset : interpretopt.data.Dataset
        Loaded (and, under ``--smoke`` or ``max_rows``, subsampled).
    models : tuple of str
        Black-box names (two for a model pair, none when the config names none).
    rep, seed : int
        Repetition index and the run's hashed seed.
    rng : numpy.random.Generator
        Seeded with ``seed``.
    solver : str
    settings : interpretopt.solvers.SolveSettings
        Built on first access from the config's settings.
    smoke : bool
    X, y : numpy.ndarray
        ``dataset.numeric()`` and ``dataset.y``.
    pair_tag : str
        ``max``/``min``/``gap<k>`` when the pair came from ``pairs.select``, else ``""``.
    """

    def __init__(self, spec: RunSpec, env: RunEnv, loaded: _Loaded) -> None:
        self.run_name = spec.name
        self.method = spec.method
        self.params = dict(spec.params)
        self.models = tuple(spec.models)
        self.rep = spec.rep
        self.seed = spec.seed
        self.rng = np.random.default_rng(spec.seed)
        self.solver = env.solver
        self.smoke = env.smoke
        self.pair_tag = spec.pair_tag
        self.dataset = loaded.dataset
        self.dataset_label = spec.dataset.label
        self.X = loaded.X
        self.y = loaded.y
        self._fingerprint = loaded.fingerprint
        self._env = env
        self._settings = None
        self._splits: dict = {}
        self._bb_seen: set[tuple[str, str]] = set()  # (black-box name, prediction fingerprint)
        self._bb_frames: list[set] = []  # one per memo value being computed: the black boxes it used

    @property
    def settings(self):
        if self._settings is None:
            from interpretopt.solvers import SolveSettings

            self._settings = SolveSettings(**self._env.settings)
        return self._settings

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def out_dir(self):
        """The experiment's output directory (a ``Path``), or ``None`` when the run writes nothing."""
        return Path(self._env.out_dir) if self._env.out_dir else None

    def _stratify(self):
        return self.y if (self._env.split.stratify and _is_discrete(self.y)) else None

    def split(self, test_size: float | None = None, key: str = "default", rep: int | None = None):
        """Train/test row indices, the same for every method of the experiment.

        Deterministic per (config seed, dataset, ``rep`` (default: this run's), ``key``,
        ``test_size`` (default: the config's ``split.test_size``)); stratified by ``y``
        when the config says so and ``y`` is discrete.
        """
        from interpretopt.data import train_test_indices

        ts = self._env.split.test_size if test_size is None else test_size
        return self._indices("split", ts, key, rep, train_test_indices)

    def kfold(self, k: int = 5, key: str = "default", rep: int | None = None):
        """``k`` folds ``[(train, test), ...]`` deterministic per (config seed, dataset, rep, key, k)."""
        from interpretopt.data import kfold_indices

        return self._indices("kfold", k, key, rep, kfold_indices)

    def _indices(self, kind: str, size, key: str, rep: int | None, make):
        """``make(n_samples, size, random_state=seed, stratify=...)`` once per run and (kind, size, key, rep).

        One place for what :meth:`split` and :meth:`kfold` share: the seed hashes (kind, config
        seed, dataset, rep, key, size), never this run's seed, so every method of the
        experiment gets the same rows.
        """
        r = self.rep if rep is None else rep
        k = (kind, size, key, r)
        if k not in self._splits:
            seed = hash_seed(kind, self._env.config_seed, self.dataset_label, r, key, size)
            self._splits[k] = make(self.n_samples, size, random_state=seed, stratify=self._stratify())
        return self._splits[k]

    def memo(self, name: str, make, **deps):
        """``make()`` computed once per process for this key, then shared by every run that asks.

        The key is ``name``, the config hash (root seed, split, solver and settings, dataset
        options and row caps), the dataset label and content fingerprint, the solver, and
        ``deps``: everything else the value depends on (split rows, parameters, seeds, the
        target's name, ...; arrays are hashed by content, see :func:`digest`). ``make`` must
        be a pure function of that key: take its randomness from :meth:`seed_for` with the
        same dependencies, never from the run's own seed. Values stay in memory (up to 64,
        least recently used first out) and are never written to disk; an exception in
        ``make`` is not cached. The warnings ``make`` raises are kept with the value and raised
        again in every run that uses it (:func:`_replay`), so each run records them.

        Examples
        --------
        >>> tree = ctx.memo("mtrepan/tree", lambda: grow(...), rows=train, params=grow_params)  # doctest: +SKIP
        """
        key = hashlib.sha1(_canon(["memo", name, self._env.config_hash, self.dataset_label, self._fingerprint,
                                   self._env.solver, digest(deps)]).encode()).hexdigest()
        with _LOCK:
            hit = _MEMO.get(key)
            if hit is not None:
                _MEMO.move_to_end(key)
                _MEMO_STATS["hits"] += 1
        if hit is None:
            self._bb_frames.append(set())
            try:
                value, captured = _computed(make)
            finally:
                used = frozenset(self._bb_frames.pop())
            hit = (value, used, captured)
            with _LOCK:
                _MEMO_STATS["misses"] += 1
                _MEMO[key] = hit
                while len(_MEMO) > _MAX_MEMO:
                    _MEMO.popitem(last=False)
        value, used, captured = hit
        self._bb_seen |= used  # the black boxes behind a shared value count for every run using it
        for frame in self._bb_frames:  # a memo inside another's make: the outer value used them too
            frame |= used
        _replay(captured)
        return value

    def seed_for(self, *parts, **deps) -> int:
        """A seed in ``[0, 2**32)`` hashed from (config seed, dataset label, ``parts``, ``deps``).

        The one seeding scheme of the tasks: the same parts give the same seed in every run,
        process and order, so values shared through :meth:`memo` and draws that several
        runs must agree on (a perturbed rule, a validation split) are reproducible.
        ``deps`` may hold arrays (hashed by content, e.g. the training rows).
        """
        return hash_seed("task", self._env.config_seed, self.dataset_label, digest(list(parts)), digest(deps))

    def rng_for(self, *parts, **deps) -> np.random.Generator:
        """``numpy.random.default_rng(self.seed_for(*parts, **deps))``."""
        return np.random.default_rng(self.seed_for(*parts, **deps))

    def black_box(self, name: str, train_idx=None, y=None, features=None):
        """The black box ``name`` fitted on rows ``train_idx`` (default: all rows).

        ``y`` (labels of the training rows, or of every row) replaces ``self.y``; ``features``
        (a matrix of every row, e.g. a binarization of the data) replaces ``self.X``, and the
        model then predicts from that matrix. Cached per (dataset content, model, train rows,
        labels, features' content when given) in memory, per process; never on disk (a fitted model
        is code to unpickle, and a results folder must hold data only), so another process fits it
        again, identically: it is seeded by hashing (config seed, dataset, model, train rows),
        whatever the features. The fit's warnings are raised again in every run using the model.
        """
        idx = np.arange(self.n_samples) if train_idx is None else np.asarray(train_idx)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        if y is None:
            labels = self.y[idx]
        else:
            yy = np.asarray(y)
            labels = yy[idx] if (yy.shape[0] == self.n_samples and idx.shape[0] != self.n_samples) else yy
        h = hashlib.sha1(np.ascontiguousarray(idx, dtype=np.int64).tobytes())
        rows_hash = h.hexdigest()[:16]
        h.update(np.ascontiguousarray(labels).tobytes())
        h.update(str(labels.dtype).encode())
        X = self.X
        parts = [self._fingerprint, name, rows_hash, h.hexdigest(), self._env.config_seed]
        if features is not None:
            X = np.asarray(features)
            if X.ndim != 2 or X.shape[0] != self.n_samples:
                raise ValueError(f"features must be a matrix of the {self.n_samples} rows, got shape {X.shape}")
            fh = hashlib.sha1(np.ascontiguousarray(X).tobytes())
            fh.update(f"{X.dtype}{X.shape}".encode())
            parts.append(fh.hexdigest())
        key = hashlib.sha1(_canon(parts).encode()).hexdigest()[:20]
        with _LOCK:
            hit = _BLACKBOXES.get(key)
            if hit is not None:
                _BLACKBOXES.move_to_end(key)
        if hit is None:
            rs = hash_seed("blackbox", self._env.config_seed, self.dataset_label, name, rows_hash)
            hit = _computed(lambda: _fit_model(name, X[idx], labels, rs))
            with _LOCK:
                _BLACKBOXES[key] = hit
                while len(_BLACKBOXES) > _MAX_BLACKBOXES:
                    _BLACKBOXES.popitem(last=False)
        model, captured = hit
        _replay(captured)  # the fit's warnings (lbfgs not converging) belong to every run using the model
        self._note_fingerprint(name, key, model, X)
        return model

    def _note_fingerprint(self, name: str, key: str, model, X: np.ndarray) -> None:
        """Record what the fitted black box ``name`` predicts, so that a table can tell two networks apart.

        The same seed and rows give the same model on one machine; across machines, BLAS kernels can
        train another network from the same seed (seen with MLPs and the MTRE-PAN target). The
        fingerprint hashes the model's labels on up to 1,024 evenly spaced rows of ``X`` (the
        matrix it learned from: the dataset, or the ``features`` it was given; computed once per
        model and process) and is stored in the run's ``blackbox_fingerprint``.
        """
        with _LOCK:
            fp = _FINGERPRINTS.get(key)
        if fp is None:
            rows = np.unique(np.linspace(0, self.n_samples - 1, min(self.n_samples, 1024)).astype(np.int64))
            try:
                pred = np.asarray(model.predict(X[rows]))
            except Exception:  # a model that cannot predict these rows has no fingerprint; the run goes on
                return
            fp = hashlib.sha1(np.ascontiguousarray(pred).tobytes() + str(pred.dtype).encode()).hexdigest()[:12]
            with _LOCK:
                _FINGERPRINTS[key] = fp
                while len(_FINGERPRINTS) > 4 * _MAX_BLACKBOXES:
                    _FINGERPRINTS.popitem(last=False)
        self._bb_seen.add((name, fp))
        for frame in self._bb_frames:
            frame.add((name, fp))

    @property
    def blackbox_fingerprints(self) -> dict[str, str]:
        """``{name: fingerprint}`` of the black boxes this run used (directly or through :meth:`memo`); a
        name used with several fits (other rows or labels) gets one hash of all of them."""
        out: dict[str, list[str]] = {}
        for name, fp in sorted(self._bb_seen):
            out.setdefault(name, []).append(fp)
        return {k: v[0] if len(v) == 1 else hashlib.sha1("|".join(v).encode()).hexdigest()[:12]
                for k, v in out.items()}


# ----------------------------------------------------------------------------- planning


def default_out_dir(config: ExperimentConfig) -> Path:
    """``results/<name>`` (``results/<name>-smoke`` / ``-reduced`` at those scales, then ``-seed<N>`` for a
    root seed given by :meth:`~interpretopt.experiments.config.ExperimentConfig.with_seed`) in the working
    directory."""
    return Path("results") / (config.name + ("" if config.scale == "full" else f"-{config.scale}")
                              + (f"-seed{config.seed}" if config.seed_overridden else ""))


def runs_source(config: ExperimentConfig, out_dir: str | os.PathLike | None = None
                ) -> tuple[ExperimentConfig, Path]:
    """The config whose runs ``config`` tabulates, and the directory that stores them.

    A config without ``runs_from`` stores its own runs: ``(config, out_dir)`` (default
    :func:`default_out_dir`). A config with ``runs_from: <stem>`` (e.g. the IMD paper's
    Table 7, which reports other metrics of Table 1's runs) names a config in its own
    directory that plans the very same runs; this returns that config at the same scale and
    its directory: ``<out_dir>/../<stem>`` (the layout of ``reproduce``:
    ``<root>/<paper>/<stem>``), or its default output directory when ``out_dir`` is None.

    Raises
    ------
    ConfigError
        The named config is missing, or does not plan the same runs (same config hash,
        methods and grids, datasets, models or pairs, repetitions), so its results would not
        be this config's.
    """
    from interpretopt.exceptions import ConfigError
    from interpretopt.experiments.config import load_config

    out = Path(out_dir) if out_dir is not None else None
    if config.runs_from is None:
        return config, out if out is not None else default_out_dir(config)
    if config.path == "<string>":
        raise ConfigError(config.path, [f"runs_from: {config.runs_from!r} names a config file beside this one, "
                                        "but this config was not read from a file"])
    path = Path(config.path).parent / f"{config.runs_from}.yaml"
    if not path.is_file():
        raise ConfigError(config.path, [f"runs_from: no config {path.name} in {path.parent}"])
    src = load_config(path, scale=config.scale, overrides=config.overrides)
    if config.seed_overridden:  # `--seed`: the runs of the named config at the same root seed
        src = src.with_seed(config.seed)
    if config.hash_datasets is not None:  # `--datasets`: the same selection of the named config's runs
        src = src.with_datasets([d.label for d in config.datasets])
    if src.runs_from is not None:
        raise ConfigError(config.path, [f"runs_from: {path.name} itself reads the runs of {src.runs_from!r}; "
                                        "name the config that holds the runs"])
    same = {"config hash": src.config_hash == config.config_hash, "methods": src.methods == config.methods,
            "models": src.models == config.models, "pairs": src.pairs == config.pairs,
            "repetitions": src.repetitions == config.repetitions}
    differ = [k for k, ok in same.items() if not ok]
    if differ:
        raise ConfigError(config.path, [f"runs_from: {path.name} does not plan the same runs at scale "
                                        f"{config.scale!r} (its {', '.join(differ)} differ); give this config "
                                        "its own runs (remove runs_from) or make the two configs' runs equal"])
    return src, (out.parent / config.runs_from) if out is not None else default_out_dir(src)


def stored_results(config: ExperimentConfig, out_dir: str | os.PathLike | None = None, *, ok_only: bool = False):
    """The stored rows of ``config``'s runs (rows of its config hash) as a DataFrame.

    Read from ``out_dir`` and, for a config with ``runs_from``, from the directory of the
    config it names (:func:`runs_source`); a run stored in both is read from ``out_dir``.
    """
    import pandas as pd

    from interpretopt.experiments.results import read_results

    out = Path(out_dir) if out_dir is not None else default_out_dir(config)
    dirs = [out]
    if config.runs_from is not None:
        src_dir = runs_source(config, out)[1]
        if src_dir.resolve() != out.resolve():
            dirs.append(src_dir)
    frames = [read_results(d, config_hash=config.config_hash, ok_only=ok_only) for d in dirs
              if (d / "runs").is_dir() or (d / "results.parquet").is_file() or (d / "rows.parquet").is_file()]
    frames = [f for f in frames if len(f)]
    if not frames:
        return _planned_rows(config, read_results(out, config_hash=config.config_hash, ok_only=ok_only))
    if len(frames) == 1:
        return _planned_rows(config, frames[0])
    df = pd.concat(frames, ignore_index=True)
    if "run_key" in df.columns:
        df = df.drop_duplicates("run_key", keep="first").reset_index(drop=True)
    return _planned_rows(config, df)


def _planned_rows(config: ExperimentConfig, df):
    """The rows of ``df`` that ``config`` plans: its method variants, datasets, repetitions and models.

    The config hash covers what changes a run's result apart from its name, so a directory can hold
    rows of the same hash that the config no longer plans (a method parameter changed, a grid value
    or a repetition dropped); those rows must not enter its tables. Planned models are checked where
    the config fixes them (``models``, ``pairs.pairs``, ``pairs.per_dataset``); pairs chosen by a
    ``select`` rule are known only after fitting, so any pair of a planned variant is kept there.
    """
    if not len(df) or not {"method_variant", "dataset", "rep"} <= set(df.columns):
        return df
    variants = {variant_name(m.method, p) for m in config.methods for p in expand_params(m.params)}
    mask = (df["method_variant"].isin(variants) & df["dataset"].isin([d.label for d in config.datasets])
            & (df["rep"].astype(int) < config.repetitions))
    models = _fixed_models(config)
    if models is not None and "models" in df.columns:
        named = df["models"].fillna("-").astype(str)
        mask &= np.array([(ds, m) in models for ds, m in zip(df["dataset"], named)], dtype=bool)
    return df if mask.all() else df[mask.to_numpy()].reset_index(drop=True)


def _fixed_models(config: ExperimentConfig) -> set[tuple[str, str]] | None:
    """``(dataset label, models string)`` of every planned run when the config fixes them, else None."""
    labels = [d.label for d in config.datasets]
    if config.pairs is None:
        sets = [(m,) for m in config.models] if config.models else [()]
        return {(ds, "-".join(s) or "-") for ds in labels for s in sets}
    if config.pairs.per_dataset:
        return {(ds, "-".join(p)) for ds in labels for _, p in config.pairs.per_dataset.get(ds, ())}
    if config.pairs.pairs:
        return {(ds, "-".join(p)) for ds in labels for p in config.pairs.pairs}
    return None


def _planning_context(config: ExperimentConfig, ds: DatasetSpec, env: RunEnv) -> RunContext:
    loaded = _load(ds, env.data_dir, env.config_seed)
    spec = RunSpec("pair-selection", "", "pair-selection", {}, ds, (), 0, 0)
    return RunContext(spec, env, loaded)


def select_pairs(config: ExperimentConfig, ds: DatasetSpec, env: RunEnv) -> list[tuple[tuple[str, str], str]]:
    """Model pairs of one dataset with their tag, by the config's ``pairs.select`` rule.

    ``per_dataset`` pairs are returned as given (no data needed).
    ``max_min_accuracy_gap`` fits every candidate on a 70/30 split (key ``"pair_selection"``,
    rep 0), measures test accuracy, and returns the pairs with the largest (tag ``max``) and
    smallest (tag ``min``) absolute gap; ``top_accuracy_gap`` the ``n`` largest gaps (tags
    ``gap1..gapn``). Each pair lists the more accurate model first. Accuracies are cached in
    ``<out>/pairs/``.
    """
    ps: PairSpec = config.pairs
    if ps.per_dataset:  # fixed pairs (a paper's own), in the order and with the tags given
        return ps.pairs_of(ds.label)
    if ps.pairs:
        return [(tuple(p), "") for p in ps.pairs]
    cands = list(ps.candidates)
    combos = list(itertools.combinations(cands, 2))
    if ps.select == "all":
        return [(p, "") for p in combos]
    from interpretopt.experiments._datacache import load_json, save_json

    cache = cache_key = None
    if env.out_dir:
        tag = hash_seed("pairs", env.config_hash, ds.label, cands, ps.test_size, bits=48)
        cache_key = f"pairs|{env.config_hash}|{ds.label}|{tag:012x}"
        cache = inside(env.out_dir, "pairs", f"{_file_stem(ds.label)}-{tag:012x}.json", what="dataset label")
    acc = load_json(cache, cache_key) if cache is not None else None
    if not (isinstance(acc, dict) and set(acc) == set(cands)
            and all(isinstance(v, (int, float)) for v in acc.values())):
        acc = None
    if acc is None:
        ctx = _planning_context(config, ds, env)
        train, test = ctx.split(test_size=ps.test_size, key="pair_selection", rep=0)
        acc = {}
        for m in cands:
            model = ctx.black_box(m, train)
            acc[m] = float(np.mean(np.asarray(model.predict(ctx.X[test])) == ctx.y[test]))
        if cache is not None:
            save_json(cache, cache_key, acc)

    def ordered(p):
        a, b = p
        return (a, b) if acc[a] >= acc[b] else (b, a)

    gaps = [(abs(acc[a] - acc[b]), i, ordered((a, b))) for i, (a, b) in enumerate(combos)]
    by_gap = sorted(gaps, key=lambda t: (-t[0], t[1]))
    if ps.select == "top_accuracy_gap":
        return [(p, f"gap{k + 1}") for k, (_, _, p) in enumerate(by_gap[: ps.n])]
    hi = by_gap[0][2]
    lo = sorted(gaps, key=lambda t: (t[0], t[1]))[0][2]
    if hi == lo:
        return [(hi, "max+min")]
    return [(hi, "max"), (lo, "min")]


def _file_stem(label: str) -> str:
    """A dataset label as part of a cache file name (labels such as ``adult(drop_duplicates=True)``)."""
    import re

    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", label).strip("._") or "dataset"


def _select_safe(config: ExperimentConfig, ds: DatasetSpec, env: RunEnv):
    try:
        return select_pairs(config, ds, env), None
    except Exception as e:
        return None, f"{type(e).__name__}: {e}"


def plan_runs(config: ExperimentConfig, *, out_dir=None, data_dir=None, n_jobs: int = 1,
              max_runs: int | None = None) -> list[RunSpec]:
    """Every run of the config, in a deterministic order (dataset, models, method, params, rep).

    Pair selection (``pairs.select``) needs the data and fits the candidate models (over the
    datasets in parallel when ``n_jobs > 1``); when it fails (e.g. the dataset file is absent)
    the dataset's runs are planned with the error and recorded as failed when executed.
    A plan of more than ``max_runs`` runs (default ``$INTERPRETOPT_MAX_RUNS`` or 100,000) is
    refused before anything is built (:func:`~._plansize.check_plan_size`).
    """
    check_plan_size(config, max_runs)
    env = RunEnv.from_config(config, out_dir, data_dir)
    runs: list[RunSpec] = []
    selected: dict[str, tuple] = {}
    if (config.pairs is not None and not config.pairs.pairs and not config.pairs.per_dataset
            and config.pairs.select != "all"):
        if n_jobs != 1 and len(config.datasets) > 1:
            import joblib

            res = joblib.Parallel(n_jobs=n_jobs)(joblib.delayed(_select_safe)(config, ds, env)
                                                for ds in config.datasets)
        else:
            res = [_select_safe(config, ds, env) for ds in config.datasets]
        selected = {ds.label: r for ds, r in zip(config.datasets, res)}
    for ds in config.datasets:
        error = None
        if config.pairs is not None:
            model_sets, error = selected[ds.label] if ds.label in selected else _select_safe(config, ds, env)
            if error is not None:
                model_sets = [((config.pairs.select,), "")]
        elif config.models:
            model_sets = [((m,), "") for m in config.models]
        else:
            model_sets = [((), "")]
        for models, tag in model_sets:
            for m in config.methods:
                for params in expand_params(m.params):
                    for rep in range(config.repetitions):
                        name = run_name(m.method, params, ds.label, tuple(models), rep)
                        key = hashlib.sha1(f"{config.config_hash}|{name}".encode()).hexdigest()[:20]
                        seed = run_seed(config.seed, ds.label, m.method, params, rep)
                        runs.append(RunSpec(name, key, m.method, params, ds, tuple(models), rep, seed, tag, error))
    names = [r.name for r in runs]
    if len(set(names)) != len(names):  # pragma: no cover - guarded by config validation
        dup = sorted({n for n in names if names.count(n) > 1})[:3]
        raise ValueError(f"duplicate run names {dup}; give datasets distinct labels")
    return runs


# ----------------------------------------------------------------------------- execution


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _base_row(spec: RunSpec, env: RunEnv) -> dict:
    row = {
        "config_name": env.config_name,
        "config_hash": env.config_hash,
        "run_key": spec.key,
        "run_name": spec.name,
        "method": spec.method,
        "method_variant": spec.variant,
        "dataset": spec.dataset.label,
        "dataset_name": spec.dataset.name,
        "models": "-".join(spec.models) or None,
        "model1": spec.models[0] if len(spec.models) > 0 else None,
        "model2": spec.models[1] if len(spec.models) > 1 else None,
        "pair_tag": spec.pair_tag or None,
        "rep": spec.rep,
        "seed": spec.seed,
        "params": _canon(spec.params),
        "smoke": env.smoke,
        "scale": env.scale,
        "solver": None,
        "status": None,
        "objective": None,
        "bound": None,
        "gap": None,
        "error": None,
        "traceback": None,
        "warnings": None,
        "blackbox_fingerprint": None,
        "host": socket.gethostname(),
        "overrides": " ".join(env.overrides) or None,
    }
    for k, v in spec.params.items():
        col = k if k not in RESERVED_COLUMNS else f"param_{k}"
        row[col] = _canon(v) if isinstance(v, (list, tuple, dict)) else v
    row.update(provenance())
    return row


def _check_run_params(spec: RunSpec, env: RunEnv) -> None:
    """The run's parameters and solver against its task's schema (as at config load time)."""
    from interpretopt.exceptions import ParameterError
    from interpretopt.experiments.tasks import check_method_params, check_method_solver

    problems = [f"{k}: {msg}" if k else msg for k, msg in check_method_params(spec.method, spec.params)]
    problems += check_method_solver(spec.method, env.solver, spec.params)
    if problems:
        raise ParameterError(f"run {spec.name}: " + "; ".join(problems))


def execute_run(spec: RunSpec, env: RunEnv) -> tuple[dict, dict]:
    """Run one task and return ``(row, artifacts)``; never raises for a task's failure."""
    from interpretopt.experiments.tasks import get_task

    row = _base_row(spec, env)
    artifacts: dict = {}
    row["started_at"] = _now()
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        if spec.error is not None:
            raise RuntimeError(spec.error)
        task = get_task(spec.method)
        _check_run_params(spec, env)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")  # once per location and run
            loaded = _load(spec.dataset, env.data_dir, env.config_seed)
            ctx = RunContext(spec, env, loaded)
            with single_thread():  # the same numbers however many threads the process has
                out = task(ctx)
            if ctx.blackbox_fingerprints:
                row["blackbox_fingerprint"] = " ".join(f"{k}:{v}" for k, v in sorted(ctx.blackbox_fingerprints.items()))
        if caught:
            seen = list(dict.fromkeys(f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught))
            row["warnings"] = " | ".join(seen[:5]) + (f" | ... ({len(seen) - 5} more)" if len(seen) > 5 else "")
        if not isinstance(out, dict):
            raise TypeError(f"task {spec.method!r} returned {type(out).__name__}; expected a dict of metrics")
        out = dict(out)
        artifacts = dict(out.pop("artifacts", None) or {})
        for k in SPECIAL_KEYS:
            if k in out:
                v = out.pop(k)
                row[k] = v.value if hasattr(v, "value") and not isinstance(v, (int, float, str)) else v
        if env.record is not None:
            out = {k: v for k, v in out.items() if k in env.record}
        for k, v in out.items():
            col = k if (k not in row and k not in RESERVED_COLUMNS) else f"metric_{k}"
            row[col] = _metric_value(v)
        row["run_status"] = "ok"
    except Exception as e:  # the run fails, the experiment goes on
        row["run_status"] = "failed"
        row["error"] = f"{type(e).__name__}: {e}" if spec.error is None else spec.error
        row["traceback"] = _tb.format_exc()
    row["wall_time"] = time.perf_counter() - t0
    row["cpu_time"] = time.process_time() - c0
    row["finished_at"] = _now()
    if row["solver"] is None and row["run_status"] == "ok" and row["status"] is not None:
        row["solver"] = env.solver
    return row, artifacts


def _metric_value(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if hasattr(v, "value") and isinstance(getattr(v, "value"), str):  # enums such as SolveStatus
        return v.value
    if isinstance(v, (list, tuple, dict, np.ndarray)):
        return _canon(_jsonable(v.tolist() if isinstance(v, np.ndarray) else v))
    return v


def _execute_many(specs: list[RunSpec], env: RunEnv) -> list[tuple[dict, dict]]:
    return [execute_run(s, env) for s in specs]


@dataclass
class RunReport:
    """What :func:`run_experiment` did."""

    out_dir: Path
    n_runs: int
    n_skipped: int
    n_ok: int
    n_failed: int
    wall_time: float
    failed: list[str] = field(default_factory=list)
    n_claimed_elsewhere: int = 0  # runs another live process had claimed: computed there, not here

    def summary(self) -> str:
        elsewhere = (f"{self.n_claimed_elsewhere} claimed by another process, "
                     if self.n_claimed_elsewhere else "")
        s = (f"{self.n_runs} runs: {self.n_skipped} already done, {elsewhere}{self.n_ok} ok, {self.n_failed} failed "
             f"in {self.wall_time:.1f} s; results in {self.out_dir}")
        if self.failed:
            s += "\nfailed runs:\n" + "\n".join(f"  {f}" for f in self.failed[:20])
            if len(self.failed) > 20:
                s += f"\n  ... and {len(self.failed) - 20} more (see run_status/error in the results)"
        return s


class OutputError(InterpretoptError):
    """The output directory cannot be written (read-only, full, or not a directory)."""


class _WriteFailed(Exception):
    """An ``OSError`` while writing ``what`` (internal: turned into one :class:`OutputError` line)."""

    def __init__(self, what: str, exc: OSError) -> None:
        super().__init__(what)
        self.what, self.exc = what, exc


def _writing(what: str, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``; an ``OSError`` becomes :class:`_WriteFailed` naming ``what``."""
    try:
        return fn(*args, **kwargs)
    except OSError as exc:
        raise _WriteFailed(what, exc) from exc


def check_n_jobs(n_jobs: Any) -> int:
    """``n_jobs`` when it is a positive number of worker processes or -1 (all cores); else :class:`InputError`."""
    from interpretopt.exceptions import InputError

    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or not (n_jobs >= 1 or n_jobs == -1):
        raise InputError(f"n_jobs must be a number of worker processes >= 1, or -1 for all cores, got {n_jobs!r}")
    return int(n_jobs)


def _check_positive(value: Any, what: str) -> float:
    from interpretopt.exceptions import InputError

    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise InputError(f"{what} must be a positive number of seconds, got {value!r}")
    return float(value)


def run_experiment(
    config: ExperimentConfig,
    *,
    out_dir: str | os.PathLike | None = None,
    n_jobs: int = 1,
    scheduler: Any = None,
    force: bool = False,
    retry_failed: bool = True,
    data_dir: str | os.PathLike | None = None,
    progress: bool | None = None,
    runs: list[RunSpec] | None = None,
    batch_size: int | str = "auto",
    scheduler_timeout: float = 10.0,
    max_runs: int | None = None,
    claim_max_age: float = DEFAULT_MAX_AGE,
) -> RunReport:
    """Execute every run of ``config`` that is not stored yet, then consolidate the results.

    Each run is claimed in ``<out>/claims/`` before it is computed (:mod:`._claims`): processes
    (and Dask clients) sharing an output directory split the runs, and a run claimed by another
    live process is left to it (counted in :attr:`RunReport.n_claimed_elsewhere`).

    Parameters
    ----------
    config : ExperimentConfig
        Apply ``config.with_smoke()`` first for a smoke run.
    out_dir : path-like, optional
        Output directory; default :func:`default_out_dir`.
    n_jobs : int, default=1
        Local worker processes (joblib/loky); 1 runs in this process; -1 uses all cores.
    scheduler : str or distributed.Client, optional
        Address of a Dask scheduler (``tcp://host:8786``) or a client: runs go to that
        cluster through joblib's ``dask`` backend (``n_jobs`` is then ignored).
    force : bool, default=False
        Rerun runs already stored (each once: a run another process stored during this call is kept).
    retry_failed : bool, default=True
        Rerun runs stored as failed.
    data_dir : path-like, optional
        Data directory for ``load_dataset`` (default ``INTERPRETOPT_DATA``).
    progress : bool, optional
        True: a tqdm bar with its ETA; False: nothing; None (default): the bar when stderr is a
        terminal, else a line every 30 s or 10% of the runs (:mod:`~interpretopt.experiments.progress`).
    runs : list of RunSpec, optional
        A subset of :func:`plan_runs` to execute (default: all).
    scheduler_timeout : float, default=10
        Seconds to wait for the Dask scheduler, and for a worker when the cluster has none left,
        before giving up with an error that says so.
    max_runs : int, optional
        Refuse a plan of more runs (default ``$INTERPRETOPT_MAX_RUNS`` or 100,000), counted
        before anything is built.
    claim_max_age : float, default=86400
        Seconds after which another process's claim on a run is stale and taken over (a claim of
        a process that is gone, on this host, is taken over at once).

    Returns
    -------
    RunReport

    Raises
    ------
    InputError
        ``n_jobs`` is not a positive number of processes or -1, a time-out is not positive, or
        the plan exceeds ``max_runs`` (:class:`~._plansize.PlanTooLargeError`).
    OutputError
        The output directory cannot be written (read-only, full): one line saying what could not
        be written, where, and how many runs are stored; the runs finished before are kept.
    InterpretoptError
        The scheduler cannot be reached, the cluster has had no worker for ``scheduler_timeout``
        seconds, or the scheduler was lost.
    """
    check_n_jobs(n_jobs)
    _check_positive(scheduler_timeout, "scheduler_timeout")
    _check_positive(claim_max_age, "claim_max_age")
    if runs is None:
        check_plan_size(config, max_runs)
    elif len(runs) > max_runs_limit(max_runs):
        raise PlanTooLargeError(f"{len(runs):,} runs given, above the limit of {max_runs_limit(max_runs):,} runs; "
                                f"{HOW_TO_ALLOW}")
    t_start = time.perf_counter()
    client, own_client = _connect(scheduler, scheduler_timeout) if scheduler is not None else (None, False)
    try:
        _forget_failed_loads()
        out = (Path(out_dir) if out_dir is not None else default_out_dir(config)).resolve()
        ex = _Execution(config, out, data_dir, force, retry_failed, claim_max_age)
        try:
            _writing("the output directory", ex.prepare)
            all_runs = plan_runs(config, out_dir=out, data_dir=data_dir, n_jobs=n_jobs if scheduler is None else 1,
                                 max_runs=max_runs) if runs is None else list(runs)
            ex.start(all_runs)
            ex.execute(n_jobs, client, batch_size, scheduler_timeout, progress)
        except _WriteFailed as failure:
            raise OutputError(ex.write_failure(failure)) from None
        finally:
            ex.report.wall_time = time.perf_counter() - t_start
    finally:
        if own_client:
            client.close()  # the Dask client this call opened
    return ex.report


class _Execution:
    """The state of one :func:`run_experiment` call: its store, claims, pending runs and report."""

    def __init__(self, config, out: Path, data_dir, force: bool, retry_failed: bool, claim_max_age: float):
        self.config, self.out, self.force = config, out, force
        self.store = ResultStore(out)
        self.claims = ClaimBook(out, claim_max_age)
        self.env = RunEnv.from_config(config, out, data_dir)
        self.skip = {"ok"} if retry_failed else {"ok", "failed"}
        self.seen: dict = {}
        self.all_runs: list[RunSpec] = []
        self.pending: list[RunSpec] = []
        self.report = RunReport(out, 0, 0, 0, 0, 0.0)
        self.code: dict[str, str] = {}  # method -> code fingerprint stamped on its rows
        self._lock = threading.Lock()

    def prepare(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        config = self.config
        atomic_write_text(self.out / "experiment.json", json.dumps(
            {"name": config.name, "config": config.path, "config_hash": config.config_hash,
             "smoke": config.is_smoke, "scale": config.scale, "execution": config.execution_dict()},
            indent=1, sort_keys=True, default=str))

    def start(self, all_runs: list[RunSpec]) -> None:
        self.all_runs = all_runs
        done = {} if self.force else self.store.statuses()
        if self.force and self.store.runs_dir.is_dir():  # the row files as they were: a new one is another's
            self.seen = {p.stem: self._stamp(p) for p in self.store.runs_dir.glob("*.json")}
        self.pending = [r for r in all_runs if done.get(r.key) not in self.skip]
        if self.pending:  # the code fingerprint of each method's runs (see experiments.fingerprint)
            from interpretopt.experiments.fingerprint import record_code

            self.code = record_code(self.config, self.out)
        self.report.n_runs = len(all_runs)
        self.report.n_skipped = len(all_runs) - len(self.pending)

    def _done_meanwhile(self, key: str) -> bool:
        """Stored by another process since this call read the folder (checked once the run is claimed)."""
        path = self.store.runs_dir / f"{key}.json"
        row = self.store._read_row(path) if path.is_file() else None
        if row is None or row.get("run_status") not in self.skip:
            return False
        return not self.force or self._stamp(path) != self.seen.get(key)

    @staticmethod
    def _stamp(path: Path):
        try:
            st = path.stat()
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns

    def claim(self, unit: list[RunSpec]) -> list[RunSpec]:
        """The runs of ``unit`` this process claims and still has to compute (called as units are sent)."""
        mine = []
        for r in unit:
            if not _writing(f"the claim of run {r.name}", self.claims.claim, r.key):
                with self._lock:
                    self.report.n_claimed_elsewhere += 1
            elif self._done_meanwhile(r.key):
                self.claims.release(r.key)
                with self._lock:
                    self.report.n_skipped += 1
            else:
                mine.append(r)
        return mine

    def record(self, row: dict, artifacts: dict) -> None:
        row["code_fingerprint"] = self.code.get(row["method"])
        _writing(f"the row of run {row['run_name']}", self.store.write, row, artifacts)
        self.claims.release(row["run_key"])
        if row["run_status"] == "ok":
            self.report.n_ok += 1
        else:
            self.report.n_failed += 1
            self.report.failed.append(f"{row['run_name']}: {row['error']}")

    def execute(self, n_jobs: int, client, batch_size, scheduler_timeout: float, progress) -> None:
        bar = _progress_bar(self.config.name, len(self.pending), progress)
        results: Any = ()
        watchdog = None
        failed = True
        try:
            results, workers, watchdog = self._results(n_jobs, client, batch_size, scheduler_timeout)
            for unit in _consume(results, watchdog):
                for row, artifacts in unit:
                    self.record(row, artifacts)
                    _advance(bar, self.report, len(self.pending), workers)
            failed = False
        finally:
            if watchdog is not None:
                watchdog.stop()
            if hasattr(results, "close"):
                results.close()  # stops remaining work
            if bar is not None:
                bar.close()
            self.claims.release_all()  # runs in flight when stopped: free for the next process
            self._consolidate(quiet=failed)

    def _results(self, n_jobs, client, batch_size, scheduler_timeout):
        pending = self.pending
        if not pending:
            return (), 1, None
        if client is not None:
            return _dask_results(pending, self, client, batch_size, scheduler_timeout)
        if n_jobs == 1 or len(pending) <= 1:
            return ([execute_run(s, self.env)] for s in pending if self.claim([s])), 1, None
        import joblib

        workers = joblib.effective_n_jobs(n_jobs)
        units = (mine for u in work_units(pending, workers) if (mine := self.claim(u)))
        gen = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered", batch_size=batch_size)(
            joblib.delayed(execute_runs)(u, self.env) for u in units)
        return gen, workers, None

    def _consolidate(self, quiet: bool) -> None:
        try:
            self.store.consolidate()
        except OSError as exc:
            if not quiet:  # with another failure on its way out, that one is the news
                raise _WriteFailed("results.parquet", exc) from exc

    def write_failure(self, failure: _WriteFailed) -> str:
        """One line: what could not be written, where, why, and how many runs are stored."""
        exc = failure.exc
        why = exc.strerror or type(exc).__name__
        keys = {r.key for r in self.all_runs}
        try:
            stored = sum(1 for k, s in self.store.statuses().items() if k in keys and s in self.skip)
        except OSError:
            stored = self.report.n_skipped
        return (f"cannot write {failure.what} in {self.out}: {why}"
                f"{f' ({exc.filename})' if exc.filename else ''}; {stored} of {len(self.all_runs) or '?'} "
                f"runs are stored there ({self.report.n_ok + self.report.n_failed} by this call); make room or "
                "make it writable and run the same command again to resume")


def _progress_bar(name: str, total: int, progress):
    return progress_bar(name, total, progress)  # tqdm on a terminal, a line every N s off one (progress.py)


def _advance(bar, report: RunReport, total: int, workers: int) -> None:
    if bar is None:
        return
    remaining = total - report.n_ok - report.n_failed
    bar.set_postfix(ok=report.n_ok, failed=report.n_failed, running=min(workers, remaining), refresh=False)
    bar.update(1)


def _consume(results, watchdog):
    """Yield the units of ``results``; a Dask failure becomes a clear :class:`InterpretoptError`."""
    if watchdog is None:
        yield from results
        return
    try:
        for unit in results:
            yield unit
            watchdog.check()
    except (_WriteFailed, KeyboardInterrupt, InterpretoptError):
        raise
    except Exception as exc:
        watchdog.check()  # the cluster lost every worker for too long: that is the reason
        raise InterpretoptError(
            f"lost the Dask scheduler at {watchdog.address} ({type(exc).__name__}"
            f"{': ' + str(exc).splitlines()[0] if str(exc) else ''}); the runs finished before are stored: "
            "restart the scheduler (or run locally with --n-jobs) and run the same command again") from None
    watchdog.check()


def _connect(scheduler, timeout: float):
    """``(client, own)``: a Dask client for an address (``own``: opened here) or the client given."""
    try:
        from distributed import Client
    except ImportError as e:  # pragma: no cover - optional dependency
        raise ImportError("--scheduler needs dask.distributed: pip install 'dask[distributed]'") from e
    if isinstance(scheduler, Client):
        return scheduler, False
    from interpretopt.exceptions import InputError

    if not isinstance(scheduler, str) or not scheduler.strip():
        raise InputError(f"scheduler must be a Dask scheduler address such as tcp://host:8786, got {scheduler!r}")
    try:
        return Client(scheduler, timeout=timeout), True
    except (OSError, TimeoutError, ValueError) as exc:
        raise InterpretoptError(
            f"could not reach the Dask scheduler at {scheduler!r} within {timeout:g} s "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'no answer'}); check the "
            "address (tcp://host:8786) and that the scheduler is running, or run locally with --n-jobs") from None


class _Watchdog:
    """Watches a Dask cluster while runs are on it: no worker for ``timeout`` seconds stops the run.

    A thread polls the scheduler every ``poll`` seconds (clock: :func:`interpretopt._clock.monotonic`);
    when it has had no worker for ``timeout`` seconds, it records why and cancels the client's
    futures, so that the runner stops waiting and raises that reason; when the scheduler stops
    answering it records that too.
    """

    def __init__(self, client, timeout: float, poll: float = 0.5) -> None:
        self.client, self.timeout, self.poll = client, timeout, poll
        self.address = getattr(client, "scheduler", None) and getattr(client.scheduler, "address", None) or "?"
        self.reason: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="interpretopt-dask-watchdog", daemon=True)
        self._thread.start()

    def _n_workers(self) -> int | None:
        try:
            return len(self.client.scheduler_info().get("workers", {}))
        except Exception:
            return None

    def _watch(self) -> None:
        from interpretopt._clock import monotonic

        since = None
        while not self._stop.wait(self.poll):
            connected = getattr(self.client, "status", "running") == "running"
            n = self._n_workers() if connected else None
            if n:
                since = None
                continue
            since = monotonic() if since is None else since
            if monotonic() - since >= self.timeout:
                self.reason = (f"the Dask cluster at {self.address} has had no worker for {self.timeout:g} s"
                               if connected else f"lost the Dask scheduler at {self.address} (no answer for "
                               f"{self.timeout:g} s)") + (
                    " (--scheduler-timeout); the runs finished before are stored: start the scheduler and workers "
                    "(or run locally with --n-jobs) and run the same command again")
                self._cancel()
                return

    def _cancel(self) -> None:
        try:  # the runs' futures: the runner stops waiting for them (the client stays the caller's)
            self.client.cancel(list(getattr(self.client, "futures", {}).keys()), force=True)
        except Exception:
            pass

    def check(self) -> None:
        if self.reason is not None:
            raise InterpretoptError(self.reason)

    def stop(self) -> None:
        self._stop.set()


def _dask_results(pending, ex: "_Execution", client, batch_size, scheduler_timeout: float):
    import joblib

    workers = max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info().get("workers", {}).values()))
    watchdog = _Watchdog(client, scheduler_timeout)

    def gen():
        units = (mine for u in work_units(pending, workers) if (mine := ex.claim(u)))
        with joblib.parallel_config(backend="dask"):
            yield from joblib.Parallel(n_jobs=-1, return_as="generator_unordered", batch_size=batch_size)(
                joblib.delayed(execute_runs)(u, ex.env) for u in units)

    return gen(), workers, watchdog


def work_units(runs: list[RunSpec], workers: int, *, min_units_per_worker: int = 2) -> list[list[RunSpec]]:
    """The runs cut into the units a worker process executes in order (parallel execution).

    Runs of the same (dataset, models, repetition) share what tasks put in :meth:`RunContext.memo`
    and the black boxes (a rule set fitted once per model and split and compared under several
    parameters, a lambda search, a tree truncated at several depths); sent one by one, every
    worker process would compute each of them again. A unit is therefore one such group, in plan
    order. While there are fewer than ``min_units_per_worker * workers`` units, the largest is cut
    into two consecutive halves (until every unit is one run), so that a grid of one model and
    one repetition still runs in parallel. Every run is in exactly one unit, in its plan order.
    """
    groups: dict[tuple, list[RunSpec]] = {}
    for r in runs:
        groups.setdefault((r.dataset.label, r.models, r.rep), []).append(r)
    units = list(groups.values())
    want = max(1, int(min_units_per_worker) * int(workers))
    while len(units) < want:
        i = max(range(len(units)), key=lambda k: len(units[k]), default=None)
        if i is None or len(units[i]) < 2:
            break
        g = units[i]
        units[i:i + 1] = [g[:len(g) // 2], g[len(g) // 2:]]
    return units


def execute_runs(specs: list[RunSpec], env: RunEnv) -> list[tuple[dict, dict]]:
    """:func:`execute_run` on each run of a unit (:func:`work_units`), in order, in this process.

    A worker is one core's worth of the runner's parallelism, so the runs' own joblib calls (a
    random forest's trees) run sequentially here. Without this, joblib's Dask backend, which
    travels with the task to the worker, sent every tree of a forest to the cluster as a task of
    its own: a random-forest run cost 5-25 times the CPU it costs locally.
    """
    import joblib

    with joblib.parallel_config(backend="sequential"):
        return [execute_run(s, env) for s in specs]


def replace_runs(runs: list[RunSpec], **changes) -> list[RunSpec]:
    """Copies of ``runs`` with fields replaced (for tests and tools)."""
    return [dataclasses.replace(r, **changes) for r in runs]
