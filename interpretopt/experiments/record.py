"""Results of record: the rows of every published table, kept in the repository.

Layout (one directory per scale; each table's directory is an ordinary output directory of
the runner, so ``reproduce --out records/<scale>`` runs into it and resumes from it)::

    records/<scale>/RECORD.json                   {"scale": ...}: what this record holds
    records/<scale>/REPORT.md, cells.csv          made from the rows alone (no dates, no machine)
    records/<scale>/<paper>/<table>/rows.parquet  every stored row of the table (committed)
    records/<scale>/<paper>/<table>/code.json     code manifests: fingerprint -> {method, commit, files}
    records/<scale>/<paper>/<table>/pairs/*.json  the test accuracies behind a pair selection
    records/<scale>/<paper>/<table>/artifacts/<run key>/jst.json    the texts the report draws

The runner's working files in the same directories (``runs/*.json``, ``blackbox/``,
``results.parquet``, ``experiment.json``, ``plots/``, the other artifacts) are not part of the record
(``records/.gitignore``). A row stored in ``rows.parquet`` counts as a finished run
(:func:`record_rows`, read by :class:`~interpretopt.experiments.results.ResultStore`): a table
can be run in several sittings, each recorded, and the rest resumed next time.

What is dropped from a row: the traceback of a failed run is cut to its last lines (the
error message is kept whole); nothing else. What is never recorded: the rows of runs that
failed because their dataset's file was not there (:func:`failed_for_missing_data`: they say
where the data was looked for, not what the code gives), pickled black boxes, joblib caches and
the artifacts the report does not read.

Runs made while their code changed: the runner stamps every row with the code fingerprint taken when
it started, so the rows of runs made after an edit of their code (or while a module was half-edited)
would claim the code of the start. After the runs of ``run``, ``reproduce PAPER/TABLE`` and ``reproduce
--all``, :func:`distrust_runs_changed_during` unstamps the rows written during the command whose
fingerprint is no longer that of their code (they then count as stale, made by unknown code); the
command says so and exits non-zero, and ``--record`` refuses them unless ``--allow-stale``.
"""

from __future__ import annotations

import json
import math
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from interpretopt.exceptions import InterpretoptError

__all__ = [
    "RECORD_FILE",
    "ROWS_FILE",
    "RECORD_ARTIFACTS",
    "VALUE_REL_TOL",
    "VALUE_ABS_TOL",
    "record_rows",
    "default_record_dir",
    "is_record",
    "check_record_scale",
    "check_stored_runs",
    "stale_tables",
    "write_record_rows",
    "failed_for_missing_data",
    "drop_stale_runs",
    "file_clock_ns",
    "distrust_runs_changed_during",
    "distrust_changed_runs",
    "code_changed_message",
    "planned_tables",
    "finish_record_report",
    "regenerate_command",
    "moved_cells",
    "moved_cells_against",
    "render_docs",
    "write_docs",
]

RECORD_FILE = "RECORD.json"
ROWS_FILE = "rows.parquet"
#: artifacts the report reads (the joint surrogate trees it draws); the others are not recorded
RECORD_ARTIFACTS = ("jst.json",)
_JSON_COLUMNS_KEY = b"interpretopt.json_columns"
TRACEBACK_LINES = 12


# ----------------------------------------------------------------------------- reading rows


def record_rows(out_dir: str | os.PathLike) -> list[dict]:
    """The rows of ``<out_dir>/rows.parquet`` as dicts (JSON-stored columns decoded, NaN as None);
    [] when the directory holds no recorded rows."""
    path = Path(out_dir) / ROWS_FILE
    try:
        stat = path.stat()
    except OSError:
        return []
    return [dict(r) for r in _read_rows(str(path), stat.st_mtime_ns, stat.st_size)]


@lru_cache(maxsize=64)
def _read_rows(path: str, mtime_ns: int, size: int) -> tuple[dict, ...]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = table.schema.metadata or {}
    json_cols = set(json.loads(meta.get(_JSON_COLUMNS_KEY, b"[]")))
    rows = []
    for rec in table.to_pylist():
        row = {}
        for k, v in rec.items():
            if isinstance(v, float) and math.isnan(v):
                v = None  # as the row files store a missing number
            row[k] = json.loads(v) if (k in json_cols and v is not None) else v
        rows.append(row)
    return tuple(rows)


def _encode_rows(rows: list[dict]) -> Any:
    """A pyarrow table of ``rows``: a column whose values are not all of one scalar type is stored
    as the JSON text of every value (listed in the schema metadata), so that reading gives back
    exactly the values the row files held."""
    import pyarrow as pa

    columns = sorted({k for r in rows for k in r})
    json_cols, data = [], {}
    for c in columns:
        vals = [r.get(c) for r in rows]
        types = {type(v) for v in vals if v is not None}
        if len(types) <= 1 and types <= {int, float, str, bool}:
            data[c] = vals
        else:  # mixed (an int in one row, a float or a text in another) or nested: exact as JSON
            json_cols.append(c)
            data[c] = [None if v is None else json.dumps(v, sort_keys=True) for v in vals]
    table = pa.table(data)
    return table.replace_schema_metadata({_JSON_COLUMNS_KEY: json.dumps(json_cols).encode()})


# ----------------------------------------------------------------------------- the record folder


def default_record_dir(scale: str) -> Path:
    """``records/<scale>`` in the working directory (the repository's record when run from a checkout)."""
    return Path("records") / scale


def is_record(out_dir: str | os.PathLike) -> bool:
    """True when ``out_dir`` is the folder of a record (it holds ``RECORD.json``)."""
    return (Path(out_dir) / RECORD_FILE).is_file()


def regenerate_command(scale: str, out_dir: str | os.PathLike) -> str:
    """The one command that makes a record's report and cells from its rows alone (a folder
    ``.../records/<name>`` is named ``records/<name>``, as from the checkout's root)."""
    out = Path(out_dir)
    name = f"records/{out.resolve().name}" if out.resolve().parent.name == "records" else out.as_posix()
    return f"interpretopt reproduce --all --scale {scale} --no-run --out {name}"


def _recorded_scales(out_dir: Path) -> set[str]:
    """The scales a folder's rows or ``RECORD.json`` say it holds."""
    found = set()
    meta = out_dir / RECORD_FILE
    if meta.is_file():
        try:
            found.add(str(json.loads(meta.read_text()).get("scale")))
        except (OSError, ValueError, AttributeError):
            raise InterpretoptError(f"{meta} is not a record's description (JSON with a 'scale'); restore it "
                                    "from git (`git checkout -- " + meta.as_posix() + "`)") from None
    for exp in out_dir.glob("*/*/experiment.json"):
        try:
            s = json.loads(exp.read_text()).get("scale")
        except (OSError, ValueError, AttributeError):
            continue
        if s:
            found.add(str(s))
    return found


def check_record_scale(out_dir: str | os.PathLike, scale: str) -> None:
    """Raise when ``out_dir`` holds a record (or runs) made at another scale than ``scale``."""
    out = Path(out_dir)
    other = sorted(_recorded_scales(out) - {scale})
    if other:
        raise InterpretoptError(
            f"{out} holds a record made at {' and '.join(other)} scale, not {scale}: a record holds one scale. "
            f"Record {scale} scale into its own folder (`interpretopt reproduce --all --scale {scale} --record "
            f"{default_record_dir(scale).as_posix()}`), or give --scale {other[0]} to add to this one")


def _mark_record(out_dir: Path, scale: str) -> None:
    from interpretopt.experiments.results import atomic_write_text

    atomic_write_text(out_dir / RECORD_FILE, json.dumps({"scale": scale}, indent=1, sort_keys=True) + "\n")


def _table_dirs(records: list) -> list[tuple[Any, Path, Path]]:
    """``(record, table folder, folder of its runs)`` of every config that loaded."""
    from interpretopt.experiments.runner import runs_source

    out = []
    for r in records:
        if r.config is None:
            continue
        out.append((r, Path(r.out_dir), Path(runs_source(r.config, r.out_dir)[1])))
    return out


def _hashes_in(folder: Path) -> dict[str, int]:
    """config hash -> number of rows stored in ``folder`` (row files and recorded rows)."""
    from interpretopt.experiments.results import ResultStore

    counts: dict[str, int] = {}
    for row in ResultStore(folder).rows():
        h = str(row.get("config_hash"))
        counts[h] = counts.get(h, 0) + 1
    return counts


def check_stored_runs(records: list, out_dir: str | os.PathLike, scale: str) -> None:
    """Raise when the folder a report is made from without running holds no runs at all, or when a
    table's folder holds runs of another config hash only (its config changed since they ran)."""
    out = Path(out_dir)
    found = {id(r): _hashes_in(d) for r, _, d in _table_dirs(records)}
    if not any(found.values()):
        raise InterpretoptError(
            f"--no-run: no runs are stored under {out} (no table folder <paper>/<table> holds runs/*.json or "
            f"{ROWS_FILE}); run them first (`interpretopt reproduce --all --scale {scale} --out {out.as_posix()}`), "
            "or give the folder that holds them")
    bad = []
    for r, table_dir, _ in _table_dirs(records):
        hashes = found[id(r)]
        if hashes and r.config.config_hash not in hashes:
            seen = ", ".join(f"{h} ({n} runs)" for h, n in sorted(hashes.items()))
            bad.append(f"{r.paper}/{Path(r.path).stem}: runs of config hash {seen}, the config now hashes to "
                       f"{r.config.config_hash}")
    if bad:
        raise InterpretoptError(
            "runs made with another config (its seed, split, solver, settings or scale changed since): "
            + "; ".join(bad) + f". Rerun those tables (`interpretopt reproduce --all --scale {scale} --out "
            f"{out.as_posix()}`, which runs every table whose runs are missing), or remove the old runs")


def stale_tables(records: list) -> list[str]:
    """``"<paper>/<table>"`` of every record whose runs were made by other code than today's."""
    return [f"{r.paper}/{Path(r.path).stem}" for r in records if getattr(r, "freshness", "")]


# ----------------------------------------------------------------------------- writing the record


def _compact(row: dict) -> dict:
    """A row as recorded: a failed run's traceback cut to its last :data:`TRACEBACK_LINES` lines."""
    tb = row.get("traceback")
    if isinstance(tb, str) and tb.count("\n") > TRACEBACK_LINES:
        row = {**row, "traceback": "...\n" + "\n".join(tb.rstrip("\n").splitlines()[-TRACEBACK_LINES:])}
    return row


#: The error of a run whose dataset file was not there, as the runner stores it (``DataError: `` and the
#: message of ``interpretopt.data._datasets._file_path``): ``dataset 'adult' needs the file
#: 'adult.tsv.gz': no data directory: ...`` (no directory set, or it does not exist) or ``dataset
#: 'adult': file 'adult.tsv.gz' not found (looked for ...)``.
_MISSING_DATA = re.compile(r"DataError: dataset \S+?(?: needs the file |: file .+? not found \(looked for )")


def failed_for_missing_data(row: dict) -> bool:
    """True for the row of a run that failed because its dataset's file was not in the data directory
    (or none was set): not a result, never recorded."""
    return row.get("run_status") != "ok" and bool(_MISSING_DATA.match(str(row.get("error") or "")))


def _write_rows(folder: Path, config: Any) -> tuple[int, int]:
    """Record the rows of ``config`` (its config hash) stored in ``folder`` into its ``rows.parquet``, without
    those of runs that failed for missing data; return ``(recorded, left out for missing data)``.

    ``code.json`` keeps the manifests of the recorded rows and that of today's code: a run still going in
    the folder stamped its rows-to-come with it when it started (regression: recording beside a running
    table dropped its manifest, and its rows would have read as made by unknown code)."""
    import pyarrow.parquet as pq

    from interpretopt.experiments.fingerprint import MANIFEST_FILE, method_fingerprints, read_manifests
    from interpretopt.experiments.results import ResultStore, atomic_write_text

    stored = [r for r in ResultStore(folder).rows() if r.get("config_hash") == config.config_hash]
    rows = [_compact(r) for r in stored if not failed_for_missing_data(r)]
    left_out = len(stored) - len(rows)
    if not rows:
        return 0, left_out
    rows.sort(key=lambda r: str(r.get("run_name")))
    tmp = folder / f".{ROWS_FILE}.{os.getpid()}.tmp"
    pq.write_table(_encode_rows(rows), tmp, compression="zstd")
    os.replace(tmp, folder / ROWS_FILE)
    _prune_artifacts(folder, rows)
    used = {r.get("code_fingerprint") for r in rows} | {fp for fp, _ in method_fingerprints(config).values()}
    manifests = {k: v for k, v in read_manifests(folder).items() if k in used}
    atomic_write_text(folder / MANIFEST_FILE, json.dumps(manifests, indent=1, sort_keys=True) + "\n")
    return len(rows), left_out


def _n_leaves(path: Path) -> int:
    """Leaves of a joint surrogate tree stored as ``jst.json`` (nodes without children)."""
    try:
        return sum(1 for node in json.loads(path.read_text()) if not node.get("children"))
    except (OSError, ValueError, AttributeError, TypeError):
        return 1 << 30


def _drawn_trees(folder: Path, rows: list[dict]) -> set[Path]:
    """The ``jst.json`` files the report draws from these rows: as
    :func:`~interpretopt.experiments.report.jst_figures` chooses them with its defaults (ok runs of
    variant ``imd``, trees of at most ``max_leaves`` leaves, the ``limit`` smallest, one per dataset
    and pair, in run order). ``test_record`` checks that the report made from a record draws the same."""
    import inspect

    from interpretopt.experiments.report import jst_figures

    params = inspect.signature(jst_figures).parameters
    limit, max_leaves = params["limit"].default, params["max_leaves"].default
    found = []
    for row in sorted(rows, key=lambda r: str(r.get("run_name"))):
        path = folder / "artifacts" / str(row.get("run_key")) / "jst.json"
        if row.get("variant") != "imd" or row.get("run_status") != "ok" or not path.is_file():
            continue
        tag = row.get("pair_tag") if isinstance(row.get("pair_tag"), str) else ""
        n = _n_leaves(path)
        if n <= max_leaves:
            found.append((n, str(row.get("dataset")), tag, path))
    keep, seen = set(), set()
    for n, dataset, tag, path in sorted(found, key=lambda t: t[:3]):
        if (dataset, tag) not in seen and len(keep) < limit:
            seen.add((dataset, tag))
            keep.add(path)
    return keep


def _prune_artifacts(folder: Path, rows: list[dict]) -> None:
    """Remove from the record folder the recorded artifacts (:data:`RECORD_ARTIFACTS`) that the
    report does not draw (:func:`_drawn_trees`)."""
    keep = _drawn_trees(folder, rows)
    for row in rows:
        for name in RECORD_ARTIFACTS:
            path = folder / "artifacts" / str(row.get("run_key")) / name
            if path.is_file() and path not in keep:
                path.unlink()


def write_record_rows(records: list, out_dir: str | os.PathLike, scale: str, *,
                      allow_stale: bool = False) -> tuple[int, int]:
    """Record every table's stored rows (of its current config hash) in its folder's ``rows.parquet``,
    except those of runs that failed for missing data (:func:`failed_for_missing_data`); return
    ``(rows recorded, rows left out for missing data)``.

    Raises
    ------
    InterpretoptError
        Some table's runs were made by other code than today's and ``allow_stale`` is false; the
        message names the tables and what to run.
    """
    from interpretopt.experiments.runner import runs_source

    out = Path(out_dir)
    stale = stale_tables(records)
    if stale and not allow_stale:
        raise InterpretoptError(
            f"{len(stale)} table(s) rest on runs made by other code than today's: {', '.join(stale)} (REPORT.md "
            f"names the changed files). Rerun them (`interpretopt reproduce --all --scale {scale} --record "
            f"{out.as_posix()} --rerun-stale`), or record them as they are with --allow-stale (their sections "
            "then say they are stale)")
    check_record_scale(out, scale)
    _mark_record(out, scale)
    n = left_out = 0
    for r, _, runs_dir in _table_dirs(records):
        if runs_dir.is_dir():
            done, skipped = _write_rows(runs_dir, runs_source(r.config, r.out_dir)[0])
            n, left_out = n + done, left_out + skipped
    return n, left_out


def drop_stale_runs(records: list) -> int:
    """Forget the stored runs of each table made by other code than today's (row files and recorded
    rows), so that the next run makes them again; return how many."""
    from interpretopt.experiments.fingerprint import is_fresh, read_manifests, today_code
    from interpretopt.experiments.results import ResultStore
    from interpretopt.experiments.runner import runs_source

    n = 0
    for r, _, runs_dir in _table_dirs(records):
        if not getattr(r, "freshness", ""):
            continue
        now = today_code(runs_source(r.config, r.out_dir)[0].path)
        manifests = read_manifests(runs_dir)
        rows = []
        for row in ResultStore(runs_dir).rows():
            if not is_fresh(row.get("code_fingerprint"), str(row.get("method")), manifests, now):
                n += 1
                (runs_dir / "runs" / f"{row['run_key']}.json").unlink(missing_ok=True)
            else:
                rows.append(row)
        if (runs_dir / ROWS_FILE).is_file():
            _rewrite_recorded(runs_dir, {row["run_key"] for row in rows})
    return n


def _rewrite_recorded(folder: Path, keep: set[str]) -> None:
    """Keep only the recorded rows of ``folder`` whose run key is in ``keep``."""
    import pyarrow.parquet as pq

    rows = [r for r in record_rows(folder) if r.get("run_key") in keep]
    if not rows:
        (folder / ROWS_FILE).unlink()
        return
    tmp = folder / f".{ROWS_FILE}.{os.getpid()}.tmp"
    pq.write_table(_encode_rows(rows), tmp, compression="zstd")
    os.replace(tmp, folder / ROWS_FILE)


# ----------------------------------------------------------------------------- runs made while their code changed

#: margin below this machine's clock when no file can be made in the runs' folder to read the clock
#: that stamps its files (a network file system stamps by its server's; FAT rounds to 2 s)
COARSE_MTIME_NS = 2_000_000_000


def file_clock_ns(folder: str | os.PathLike) -> int:
    """Now, in nanoseconds, as the files of ``folder`` are stamped: the earlier of this machine's clock and
    the mtime of a file made there now (a network file system stamps files by its server's clock, and a
    coarse one rounds down), so that a file written later never has an earlier mtime. The file is made in
    ``folder``, or in its nearest existing parent (nothing is left behind); when none can be made, this
    machine's clock less :data:`COARSE_MTIME_NS`."""
    import tempfile
    import time

    now = time.time_ns()
    at = Path(folder)
    while not at.is_dir() and at != at.parent:
        at = at.parent
    try:
        fd, tmp = tempfile.mkstemp(dir=at, prefix=".clock.", suffix=".tmp")
    except OSError:
        return now - COARSE_MTIME_NS
    try:
        return min(now, os.fstat(fd).st_mtime_ns)
    finally:
        os.close(fd)
        os.unlink(tmp)


def _stamp_now(now: Callable[[str, str], dict[str, str]], scheme: str, method: str
               ) -> tuple[str | None, dict | None, str]:
    """``(fingerprint, manifest, "")`` of ``method``'s code now hashed by ``scheme``, or ``(None, None, why)``
    when it does not read (a half-edited module that does not parse, a config that is not YAML)."""
    from interpretopt.experiments.fingerprint import manifest_fingerprint

    try:
        manifest = now(scheme, method)
    except Exception as e:  # whatever the edit broke, the code of today cannot vouch for a row
        first = str(e).splitlines()[0] if str(e) else ""
        return None, None, f"(the code does not read now: {type(e).__name__}: {first})"
    return manifest_fingerprint(manifest), manifest, ""


def distrust_runs_changed_during(out_dir: str | os.PathLike, config_path: str | os.PathLike | None,
                                 since_ns: int) -> list[dict]:
    """Unstamp the rows of ``<out_dir>/runs/*.json`` written since ``since_ns`` whose ``code_fingerprint`` is
    not the fingerprint of their method's code now; return one group per (method, stored fingerprint):
    ``{"method", "fingerprint", "n_runs", "runs", "changed"}``.

    The runner takes a method's fingerprint once, when it starts (:func:`~.fingerprint.record_code`), and
    stamps it on every row it writes. A module edited while it runs is imported by the runs that start
    after (a new worker process, a module imported late), whose rows still carry the starting
    fingerprint; which file changed when, and which run read it, is not known (a config is read once, so
    an edit of it does not reach the runs that follow, but it is treated alike). A row written during
    the invocation (file mtime ``>= since_ns``, taken with :func:`file_clock_ns` just before the runs)
    whose fingerprint is not today's may have been made by the old code, the new or a half-edited file:
    its ``code_fingerprint`` is set to None (the row file is rewritten as
    :meth:`~.results.ResultStore.write` writes it), which :func:`~.fingerprint.runs_freshness` reports
    as stale, made by unknown code. ``changed`` names the files that differ between the stored manifest
    (``code.json``) and today's.

    Untouched: rows written before ``since_ns``, rows whose fingerprint is today's (made by today's code,
    or by a process started after the edit), rows without one (already of unknown code). Limits: an edit
    reverted before this is called leaves today's fingerprint equal to the stored one, and is not seen;
    every row written since ``since_ns`` that is not today's is unstamped, those made before the edit too
    (when the edit happened is not known; they are stale anyway), and so are the rows that another
    process running other code (another checkout) writes into the same folder meanwhile, and a row
    written in the same tick of a coarse file clock just before ``since_ns``.
    """
    from interpretopt.experiments.fingerprint import SCHEMES, changed_files, manifest_scheme, read_manifests, today_code
    from interpretopt.experiments.results import ResultStore

    store = ResultStore(out_dir)
    if not store.runs_dir.is_dir():
        return []
    now, stored = today_code(config_path), read_manifests(out_dir)
    groups: dict[tuple[str, str], dict] = {}
    for path in sorted(store.runs_dir.glob("*.json")):
        row = store._read_row(path) if _mtime_ns(path) >= since_ns else None
        fp = row.get("code_fingerprint") if row is not None else None
        if not (isinstance(fp, str) and fp):
            continue
        method = str(row.get("method"))
        files = stored.get(fp, {}).get("files")
        fp_now, manifest_now, why = _stamp_now(now, manifest_scheme(files) if files else SCHEMES[0], method)
        if fp == fp_now:
            continue
        store.write({**row, "code_fingerprint": None})
        changed = [why] if why else changed_files(files, manifest_now) if files else ["(unknown: no code manifest)"]
        g = groups.setdefault((method, fp), {"method": method, "fingerprint": fp, "n_runs": 0, "runs": [],
                                             "changed": changed})
        g["n_runs"] += 1
        g["runs"].append(str(row.get("run_name")))
    if groups and (Path(out_dir) / "results.parquet").is_file():
        store.consolidate()
    return list(groups.values())


def _mtime_ns(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:  # removed meanwhile
        return -1


def distrust_changed_runs(records: list, since_ns: int) -> dict[str, list[dict]]:
    """:func:`distrust_runs_changed_during` on the runs folder of every table of ``records`` (once per folder,
    with the config that plans its runs); ``{"<paper>/<table that plans the runs>": groups}`` of those with some."""
    from interpretopt.experiments.runner import runs_source

    found: dict[str, list[dict]] = {}
    seen: set[Path] = set()
    for r in records:
        if r.config is None:
            continue
        try:
            src, runs_dir = runs_source(r.config, r.out_dir)
        except InterpretoptError:  # its source config no longer loads: that table's own record covers the folder
            continue
        if Path(runs_dir).resolve() in seen:
            continue
        seen.add(Path(runs_dir).resolve())
        groups = distrust_runs_changed_during(runs_dir, src.path, since_ns)
        if groups:
            found[f"{r.paper}/{r.config.runs_from or Path(r.path).stem}"] = groups
    return found


def code_changed_message(found: dict[str, list[dict]], rerun: str) -> str:
    """What :func:`distrust_changed_runs` found, in one message: per table, how many runs and which files
    changed; that their rows are now marked as made by unknown code; then ``rerun`` (what to run)."""
    from interpretopt.experiments.fingerprint import shown_files

    parts = []
    for table, groups in found.items():
        n = sum(g["n_runs"] for g in groups)
        files = sorted({f for g in groups for f in g["changed"]})
        parts.append(f"{n} run(s) of {table} made while {shown_files(files)} changed")
    return ("the code of a table changed while this command ran its runs: " + "; ".join(parts) + ". These runs "
            "may have run the old code, the new or a half-edited file, so their rows are now marked as made by "
            f"unknown code (stale), not by the code they were stamped with. {rerun}")


# ----------------------------------------------------------------------------- the record's report

#: report lines that say when, where and by which checkout a report was made, not what the rows give
_VOLATILE = ("- date:", "- commit:", "- wall time:", "- machine:")


def _normalized_report(text: str, scale: str, out_dir: Path) -> str:
    """A report made from a record's rows, without the lines that depend on when and where it was made
    (so that the same rows always give the same text); its command is the record's regeneration."""
    lines = [ln for ln in text.splitlines() if not ln.startswith(_VOLATILE + ("- command:",))]
    at = 2 if len(lines) > 1 and lines[0].startswith("# ") and not lines[1].strip() else 0
    lines.insert(at, f"- command: `{regenerate_command(scale, out_dir)}` (the report of the rows in this folder)")
    return "\n".join(lines).rstrip() + "\n"


def _config_column(cells: Any) -> Any:
    """``config`` as a path relative to ``configs/`` (the same in every checkout)."""
    from interpretopt.experiments.config import configs_root

    root = Path(configs_root()).resolve()

    def rel(p):
        try:
            return Path(p).resolve().relative_to(root).as_posix()
        except (TypeError, ValueError):
            return p

    cells = cells.copy()
    if "config" in cells.columns:
        cells["config"] = cells["config"].map(rel)
    return cells


def repository_costs_file(out_dir: str | os.PathLike) -> Path | None:
    """The shipped ``configs/run_costs.json`` when ``out_dir`` is the repository's own record folder
    (``<repo>/records/<scale>`` beside ``<repo>/configs``), else None: a record made elsewhere (a test's, a
    collaborator's copy) never writes into the package's files."""
    from interpretopt.experiments.config import configs_root

    try:
        configs = configs_root().resolve()
    except InterpretoptError:
        return None
    out = Path(out_dir).resolve()
    if out.parent.name == "records" and out.parent.parent == configs.parent:
        return configs / "run_costs.json"
    return None


def record_costs(out_dir: str | os.PathLike, scale: str, costs_file: str | os.PathLike) -> list[str]:
    """Merge the per-run costs measured on the record's rows (the runner's ``<out>/run_costs.json``:
    wall and CPU seconds per run and the number of runs, per table) at ``scale`` into ``costs_file``,
    so that ``reproduce --plan`` estimates from the runs of record; return the tables updated."""
    from interpretopt.experiments.report import read_costs
    from interpretopt.experiments.results import atomic_write_text

    measured = read_costs(Path(out_dir))
    costs = read_costs(costs_file)
    updated = []
    for key, by_scale in sorted(measured.items()):
        entry = by_scale.get(scale)
        if isinstance(entry, dict) and entry.get("n_runs"):
            costs.setdefault(key, {})[scale] = entry
            updated.append(key)
    if updated:
        atomic_write_text(Path(costs_file), json.dumps(costs, indent=1, sort_keys=True) + "\n")
    return updated


def finish_record_report(records: list, out_dir: str | os.PathLike, scale: str) -> Path:
    """Make a record's ``REPORT.md`` and ``cells.csv`` depend on its rows alone (see
    :func:`_normalized_report`); remove the runner's ``run_costs.json`` from the record folder."""
    from interpretopt.experiments.report import concat_cells

    out = Path(out_dir)
    report = out / "REPORT.md"
    report.write_text(_normalized_report(report.read_text(), scale, out))
    _config_column(concat_cells(records)).to_csv(out / "cells.csv", index=False)
    (out / "run_costs.json").unlink(missing_ok=True)
    return report


# ----------------------------------------------------------------------------- the value guard

#: Two values of a cell agree when |a - b| <= max(VALUE_ABS_TOL, VALUE_REL_TOL * max(|a|, |b|)).
#: A smoke run is deterministic (hashed seeds, one thread per run, work limits), so the same code
#: gives the same numbers up to the rounding of another BLAS or library build (~1e-15 relative);
#: 1e-9 leaves six orders of magnitude for that, while the smallest real change of a smoke cell
#: (one test row of a few hundred changing its prediction) moves it by 1e-3 or more.
VALUE_REL_TOL = 1e-9
VALUE_ABS_TOL = 1e-12
_CELL_KEY = ["paper", "table", "row", "column"]


def _same(a: Any, b: Any, rel_tol: float, abs_tol: float) -> bool:
    a_nan = a is None or (isinstance(a, float) and math.isnan(a))
    b_nan = b is None or (isinstance(b, float) and math.isnan(b))
    if a_nan or b_nan:
        return a_nan and b_nan
    return math.isclose(float(a), float(b), rel_tol=rel_tol, abs_tol=abs_tol)


def moved_cells(committed: Any, now: Any, *, rel_tol: float = VALUE_REL_TOL,
                abs_tol: float = VALUE_ABS_TOL) -> Any:
    """The cells whose value (``ours``), status or number of runs differ between two ``cells.csv``
    frames: ``paper, table, row, column, committed, now, what`` (a cell missing on one side is moved)."""
    import pandas as pd

    cols = _CELL_KEY + ["ours", "status", "n_runs"]
    a, b = (f.reindex(columns=cols).astype({k: str for k in _CELL_KEY}).drop_duplicates(_CELL_KEY)
            for f in (committed, now))
    m = a.merge(b, on=_CELL_KEY, how="outer", suffixes=("_c", "_n"), indicator="side")
    out = []
    for r in m.to_dict("records"):
        what = []
        if r["side"] != "both":
            what.append("only in the record" if r["side"] == "left_only" else "not in the record")
        else:
            if not _same(r["ours_c"], r["ours_n"], rel_tol, abs_tol):
                what.append("value")
            if str(r["status_c"]) != str(r["status_n"]):
                what.append(f"status {r['status_c']} -> {r['status_n']}")
            if not _same(r["n_runs_c"], r["n_runs_n"], 0.0, 0.0):
                what.append(f"runs {r['n_runs_c']} -> {r['n_runs_n']}")
        if what:
            out.append({**{k: r[k] for k in _CELL_KEY}, "committed": r["ours_c"], "now": r["ours_n"],
                        "what": "; ".join(what)})
    return pd.DataFrame(out, columns=_CELL_KEY + ["committed", "now", "what"])


def moved_cells_against(cells: Any, record_dir: str | os.PathLike, *, papers: list[str] | None = None) -> Any:
    """:func:`moved_cells` between ``cells`` (this run's) and the record's ``cells.csv`` (of ``papers``).

    Raises
    ------
    InterpretoptError
        The folder holds no ``cells.csv``.
    """
    import pandas as pd

    path = Path(record_dir) / "cells.csv"
    if not path.is_file():
        raise InterpretoptError(f"--check-values {record_dir}: no cells.csv there; give the record folder "
                                "(records/smoke), or make it with `interpretopt reproduce --all --scale smoke "
                                "--record`")
    committed = pd.read_csv(path, dtype={k: str for k in _CELL_KEY}, keep_default_na=False,
                            na_values={"ours": [""], "n_runs": [""]})
    if papers:
        committed = committed[committed["paper"].isin(papers)]
        cells = cells[cells["paper"].isin(papers)]
    return moved_cells(committed, cells)


# ----------------------------------------------------------------------------- docs/reproduction.md

DOCS_TITLE = "# Reproduction record"
LEGACY_DOC = "reproduction-legacy.md"
_SCALE_ORDER = ("reduced", "full", "smoke")  # the reproduction record first, then what CI checks
_SUMMARY_ONLY = ("smoke",)


def _docs_intro(scales: list[str]) -> str:
    held = ", ".join(f"`records/{s}`" for s in scales) or "none yet"
    return f"""\
This file is generated from the result rows committed under `records/` (held: {held}); do not
edit it. Each scale's section is that record's `REPORT.md`, made from its rows alone by
`interpretopt reproduce --all --scale <scale> --no-run --out records/<scale>`, which rewrites
this file too; `tests/experiments/test_record.py` fails when this file, a record's `REPORT.md`
or its `cells.csv` differ from what the committed rows give. A table whose runs were made by
other code than today's says so (**Stale**), with the commit and the files that changed.
The smoke record is what CI holds every change to: `interpretopt reproduce --all --scale smoke
--check-values records/smoke` fails when a published cell's value moves (see README.md)."""


def _demote(lines: list[str]) -> list[str]:
    """Headings one level down; figure links (into an uncommitted run folder) become the figure's name."""
    out = []
    for ln in lines:
        if ln.startswith("#"):
            ln = "#" + ln
        if ln.startswith("![") and "](" in ln:
            ln = f"(figure `{ln[2:ln.index(']')]}`: made in the record folder by its regeneration command)"
        out.append(ln)
    return out


def _stale_list(lines: list[str]) -> list[str]:
    """``- <table>: <stale note>`` for every table section of a report that carries a stale note."""
    out, table = [], ""
    for ln in lines:
        if ln.startswith("### "):
            table = ln[4:].strip()
        elif ln.startswith("**Stale"):
            out.append(f"- {table}: {ln}")
    return out


def _scale_section(scale: str, report: str) -> list[str]:
    lines = report.rstrip("\n").splitlines()
    if scale in _SUMMARY_ONLY:
        stale = _stale_list(lines)
        cut = next((i for i, ln in enumerate(lines) if ln.startswith("## ") and not ln.startswith("## Summary")),
                   len(lines))
        lines = lines[:cut] + [f"The tables of this scale: `records/{scale}/REPORT.md`.", ""]
        lines += (["Stale tables:", "", *stale] if stale else [f"Every table of the {scale} record was made by "
                                                                 "today's code."])
    return [f"<!-- begin {scale} scale -->", *_demote(lines), f"<!-- end {scale} scale -->", ""]


def _legacy_appendix(docs_dir: Path, scales: list[str]) -> list[str]:
    if not (docs_dir / LEGACY_DOC).is_file():
        return []
    done = ", ".join(scales) or "none"
    return ["## Appendix: legacy record (not regenerable)", "",
            f"[`{LEGACY_DOC}`]({LEGACY_DOC}) keeps the sections this file held before results were kept in "
            "the repository: reports made from runs that no longer exist, by code that has since changed. They "
            "cannot be regenerated and are not what today's code gives; each is superseded once its scale's "
            f"rows are committed under `records/` (superseded so far: {done}).", ""]


def render_docs(records_root: str | os.PathLike, docs_dir: str | os.PathLike) -> str:
    """The text of ``docs/reproduction.md`` from the records under ``records_root``."""
    root = Path(records_root)
    scales = [s for s in _SCALE_ORDER if (root / s / "REPORT.md").is_file() and is_record(root / s)]
    lines = [DOCS_TITLE, "", _docs_intro(scales), ""]
    for s in scales:
        lines += _scale_section(s, (root / s / "REPORT.md").read_text())
    lines += _legacy_appendix(Path(docs_dir), scales)
    return "\n".join(lines).rstrip() + "\n"


def docs_path_for(record_dir: str | os.PathLike) -> Path | None:
    """``docs/reproduction.md`` of the checkout a record folder (``<repo>/records/<scale>``) belongs to,
    or None when the folder is not in a checkout (then no docs are written)."""
    repo = Path(record_dir).resolve().parent.parent
    if (repo / "pyproject.toml").is_file() and (repo / "docs").is_dir():
        return repo / "docs" / "reproduction.md"
    return None


def write_docs(record_dir: str | os.PathLike) -> Path | None:
    """Regenerate the checkout's ``docs/reproduction.md`` from every scale's record (see :func:`render_docs`)."""
    path = docs_path_for(record_dir)
    if path is None:
        return None
    path.write_text(render_docs(Path(record_dir).resolve().parent, path.parent))
    return path


# ----------------------------------------------------------------------------- tables of a folder


def planned_tables(out_dir: str | os.PathLike, scale: str, papers: list[str] | None = None,
                   *, freshness: bool = False) -> list:
    """One light record per table config that loads (``paper, path, config, out_dir`` and, with
    ``freshness``, its stale note), for the checks made before a report: nothing runs, no table is made."""
    from types import SimpleNamespace

    from interpretopt.experiments.config import load_config
    from interpretopt.experiments.report import table_configs

    out = []
    for paper, path in table_configs(None, papers):
        try:
            config = load_config(path).with_scale(scale)
        except InterpretoptError:
            continue  # the report says why the config does not load
        rec = SimpleNamespace(paper=paper, path=str(path), config=config, out_dir=Path(out_dir) / paper / path.stem,
                              freshness="")
        if freshness:
            from interpretopt.experiments.fingerprint import table_freshness
            from interpretopt.experiments.runner import stored_results

            rec.freshness = table_freshness(config, rec.out_dir, stored_results(config, rec.out_dir))
        out.append(rec)
    return out
