"""Results store: one long-format row per run, in the experiment's output directory.

Layout of an output directory::

    <out>/runs/<run key>.json          one row per finished run, written atomically
    <out>/artifacts/<run key>/<name>   texts a task returned under ``artifacts``
    <out>/claims/<run key>.claim       the process computing a run now (host, pid, start time)
    <out>/pairs/<dataset>-<hash>.json  test accuracies used by ``pairs.select`` (verified JSON)
    <out>/abbr-cache/scores-<key>.npz  black-box scores of the ABBR task (arrays, verified)
    <out>/results.parquet              every row, consolidated (read with pandas)
    <out>/experiment.json              name, config path and hash, for the record
    <out>/code.json                    code manifests of the rows' code_fingerprint (experiments.fingerprint)
    <out>/rows.parquet                 recorded rows (experiments.record): finished runs, as runs/ are

Nothing in an output directory is code: rows, claims and caches are JSON or ``.npz`` arrays
read without pickle, and each cache file carries a SHA-256 of its key and contents (a file
that fails it is ignored with a warning and recomputed); fitted models are never stored.
A row file is valid only for the run its name says (``run_key``).

Why per-run JSON files consolidated into Parquet (and not SQLite): every run writes its own
file with ``os.replace``, so parallel workers, Dask workers and an interrupted process never
contend for a lock nor leave a half-written table, and "is this run done?" is one ``stat``.
Different methods report different metrics, so the column set is open-ended; Parquet takes
a new column set at every consolidation without schema migrations, keeps dtypes through a
pandas round trip, and is one portable file (``pandas.read_parquet``).

``config_hash`` hashes what changes a run's result apart from its name (root seed, split,
solver and settings, smoke mode and row caps, dataset options): editing those makes every
run new, while growing a grid or adding repetitions keeps the finished runs. Rows of an
older hash stay in the directory; ``read_results(out, config_hash=cfg.config_hash)`` (used by
``interpretopt table``) keeps the current ones.

Columns of a row (``RESERVED_COLUMNS``): ``config_name, config_hash, run_key, run_name,
method, method_variant, dataset, dataset_name, models, model1, model2, pair_tag, rep, seed,
params, smoke, scale, solver, status, objective, bound, gap, run_status, error, traceback,
warnings, blackbox_fingerprint, wall_time, cpu_time, started_at, finished_at, host``, the provenance
``python_version, platform, git_commit`` (the commit of the checkout the package was run
from, with ``-dirty`` when tracked files that shape results had changes; empty for an installed package),
``code_fingerprint`` (a hash of the source the run's task depends on: see
:mod:`interpretopt.experiments.fingerprint`) and
``version_<package>`` for interpretopt (the project's version), numpy, scikit-learn, pandas,
pyomo, highspy and ortools; then one column per
parameter and one per metric. ``status`` is the solver status the task reports;
``run_status`` is ``ok`` or ``failed`` (with ``error`` and ``traceback``); ``warnings``
holds the distinct warnings the run raised (up to five); ``blackbox_fingerprint`` names each black
box the run fitted or loaded with a hash of its labels on fixed rows (``LR:3f2a... RF1:09bc...``), so
two runs whose models differ (another machine's BLAS, another library version) can be told apart. A metric whose name clashes with a
reserved column or a parameter is stored as ``metric_<name>``; a parameter that clashes
with a reserved column as ``param_<name>``.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "RESERVED_COLUMNS",
    "VERSION_PACKAGES",
    "ResultStore",
    "read_results",
    "package_versions",
    "provenance",
    "git_commit",
    "atomic_write_text",
    "RowKeyWarning",
]


class RowKeyWarning(UserWarning):
    """A row file holds another run's row (its ``run_key`` is not the file name); it is ignored."""

VERSION_PACKAGES = ("interpretopt", "numpy", "scikit-learn", "pandas", "pyomo", "highspy", "ortools")

RESERVED_COLUMNS = (
    "config_name", "config_hash", "run_key", "run_name", "method", "method_variant", "dataset", "dataset_name",
    "models", "model1", "model2", "pair_tag", "rep", "seed", "params", "smoke", "scale",
    "solver", "status", "objective", "bound", "gap",
    "run_status", "error", "traceback", "warnings", "blackbox_fingerprint", "wall_time", "cpu_time", "started_at", "finished_at", "host", "overrides",
    "python_version", "platform", "git_commit", "code_fingerprint",
) + tuple(f"version_{p.replace('-', '_')}" for p in VERSION_PACKAGES)


#: the tracked paths of a checkout that shape a run's result: a change elsewhere (a record folder the runner
#: writes into, the README, the tests) does not make the commit ``-dirty``
SHAPING_PATHS = ("interpretopt", "configs", "pyproject.toml")


@lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit of the checkout this package runs from (``<sha>``, or ``<sha>-dirty`` when a tracked file
    of :data:`SHAPING_PATHS` has changes); None when the package is installed (not a checkout) or git is
    unavailable. Cached per process."""
    return checkout_commit(Path(__file__).resolve().parents[2])


def checkout_commit(root: Path) -> str | None:
    """:func:`git_commit` of the checkout at ``root``.

    Only :data:`SHAPING_PATHS` decide ``-dirty``: the runner writes its rows into a record folder that git
    tracks (``records/``), so judged over the whole tree every row of a record run was ``-dirty``.
    """
    import subprocess

    if not ((root / ".git").exists() and (root / "pyproject.toml").is_file()):
        return None
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--",
                                *SHAPING_PATHS], capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (sha + ("-dirty" if dirty else "")) or None


@lru_cache(maxsize=1)
def provenance() -> dict[str, str | None]:
    """Python version, platform, git commit (checkouts) and package versions, for every result row."""
    import platform

    return {"python_version": platform.python_version(), "platform": platform.platform(),
            "git_commit": git_commit(), **package_versions()}


@lru_cache(maxsize=1)
def package_versions() -> dict[str, str | None]:
    """``version_<package>`` -> installed version (None when absent); cached per process."""
    from importlib import metadata

    out = {}
    for p in VERSION_PACKAGES:
        try:
            out[f"version_{p.replace('-', '_')}"] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[f"version_{p.replace('-', '_')}"] = None
    return out


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace`` (all or nothing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _clean(v: Any) -> Any:
    """JSON-safe value: numpy scalars to Python, NaN/inf to None, tuples to lists."""
    if isinstance(v, (np.generic,)):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, np.ndarray):
        return [_clean(x) for x in v.tolist()]
    return v


class ResultStore:
    """The rows and artifacts of one output directory.

    Parameters
    ----------
    out_dir : path-like
        Created on first write.
    """

    def __init__(self, out_dir: str | os.PathLike) -> None:
        self.out_dir = Path(out_dir)
        self.runs_dir = self.out_dir / "runs"

    # -- writing -------------------------------------------------------------------------
    def write(self, row: dict, artifacts: dict | None = None) -> Path:
        """Store one run: artifacts first, then the row file (its presence marks the run done)."""
        from interpretopt.experiments._paths import inside

        key = str(row["run_key"])
        for name, text in (artifacts or {}).items():
            safe = str(name).replace("/", "_").replace("\\", "_").lstrip(".") or "artifact"
            atomic_write_text(inside(self.out_dir, "artifacts", key, safe, what="artifact"), str(text))
        path = inside(self.runs_dir, f"{key}.json", what="run key")
        atomic_write_text(path, json.dumps(_clean(row), sort_keys=True))
        return path

    # -- reading -------------------------------------------------------------------------
    @staticmethod
    def _read_row(path: Path) -> dict | None:
        """The row stored in ``path``, or None when it cannot be read, is not JSON, is not a row object,
        or is the row of another run (its ``run_key`` is not the file's name: a copied or moved file,
        ignored with a :class:`RowKeyWarning` so that its run is computed again and the row is not
        counted twice)."""
        try:
            row = json.loads(path.read_text())
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        if not (isinstance(row, dict) and "run_key" in row):
            return None
        if str(row["run_key"]) != path.stem:
            warnings.warn(f"ignoring {path}: it holds the row of run {row['run_key']} ({row.get('run_name')}), "
                          f"not of run {path.stem}; that run is computed again", RowKeyWarning, stacklevel=3)
            return None
        return row

    def recorded(self) -> list[dict]:
        """The rows of the record kept in this directory (``rows.parquet``, see
        :mod:`interpretopt.experiments.record`): finished runs, as the row files are; a row file wins."""
        from interpretopt.experiments.record import record_rows

        return record_rows(self.out_dir)

    def status_of(self, key: str) -> str | None:
        """``"ok"``, ``"failed"`` or None (never run, or its row file is unreadable: run again)."""
        path = self.runs_dir / f"{key}.json"
        if not path.is_file():
            return next((r.get("run_status") for r in self.recorded() if r.get("run_key") == key), None)
        row = self._read_row(path)
        return None if row is None else row.get("run_status")

    def statuses(self) -> dict[str, str]:
        """run key -> run status of every readable stored row (an unreadable row is run again)."""
        out = {r["run_key"]: r.get("run_status") for r in self.recorded()}
        if not self.runs_dir.is_dir():
            return out
        for p in self.runs_dir.glob("*.json"):
            row = self._read_row(p)
            if row is not None:
                out[p.stem] = row.get("run_status")
        return out

    def unreadable(self) -> list[Path]:
        """Row files that cannot be read as a JSON object (a crash or a hand edit); their runs run again."""
        if not self.runs_dir.is_dir():
            return []
        return [p for p in sorted(self.runs_dir.glob("*.json")) if self._read_row(p) is None]

    def rows(self) -> list[dict]:
        """Every readable row (see :meth:`unreadable` for the others), recorded rows included."""
        out = []
        if self.runs_dir.is_dir():
            for p in sorted(self.runs_dir.glob("*.json")):
                row = self._read_row(p)
                if row is not None:
                    out.append(row)
        have = {r["run_key"] for r in out}
        return [r for r in self.recorded() if r.get("run_key") not in have] + out

    def load(self, *, config_hash: str | None = None, ok_only: bool = False) -> pd.DataFrame:
        """All stored rows as a DataFrame (one row per run), optionally of one config hash."""
        df = _frame(self.rows())
        if config_hash is not None and len(df):
            df = df[df["config_hash"] == config_hash]
        if ok_only and len(df):
            df = df[df["run_status"] == "ok"]
        return df.reset_index(drop=True)

    def consolidate(self) -> Path:
        """Write every row to ``results.parquet`` (atomically) and return its path."""
        df = self.load()
        path = self.out_dir / "results.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            _to_parquet(df, tmp)
            os.replace(tmp, path)
        finally:
            try:  # a failed write (full or read-only disk) leaves no temporary file behind
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
        return path


def _frame(rows: list[dict]) -> pd.DataFrame:
    if not rows:
        return pd.DataFrame(columns=list(RESERVED_COLUMNS))
    df = pd.DataFrame.from_records(rows)
    front = [c for c in RESERVED_COLUMNS if c in df.columns]
    rest = sorted(c for c in df.columns if c not in RESERVED_COLUMNS)
    df = df[front + rest]
    if "rep" in df:
        df = df.sort_values(["run_name"], kind="mergesort")
    return df.reset_index(drop=True)


def _to_parquet(df: pd.DataFrame, path: Path) -> None:
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object:
            vals = out[c].dropna()
            types = {type(v) for v in vals}
            if len(types) > 1 or (types and next(iter(types)) in (list, dict)):
                # mixed or nested values (e.g. a parameter that is a string in one method and
                # a number in another): store their JSON text so the column has one type
                out[c] = out[c].map(lambda v: None if v is None or (isinstance(v, float) and math.isnan(v))
                                    else (v if isinstance(v, str) else json.dumps(v)))
    out.to_parquet(path, index=False)


def read_results(out_dir: str | os.PathLike, *, config_hash: str | None = None, ok_only: bool = False) -> pd.DataFrame:
    """Results of an output directory as a DataFrame.

    Reads the per-run row files (the source of truth); ``results.parquet`` holds the same
    rows for other tools.
    """
    return ResultStore(out_dir).load(config_hash=config_hash, ok_only=ok_only)
