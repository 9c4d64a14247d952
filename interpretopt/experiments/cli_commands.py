"""Command-line handlers of the experiment commands.

``add_experiment_commands(subparsers)`` adds::

    run CONFIG [--n-jobs N] [--scheduler ADDRESS] [--out DIR] [--force] [--scale S | --smoke] [--data-dir DIR] [--quiet]
    table CONFIG [--out DIR] [--scale S | --smoke] [--format markdown|latex|csv] [--name TABLE]
    plot CONFIG [--out DIR] [--scale S | --smoke] [--name PLOT]
    reproduce PAPER/TABLE [--n-jobs N] [--scheduler ADDRESS] [--out DIR] [--force] [--rerun-stale] [--scale S | --smoke]
                          [--data-dir DIR]
    reproduce --all [--record [DIR]] [--no-run] [--allow-stale] [--rerun-stale] [--check-values DIR] [...]

S is ``smoke``, ``reduced`` or ``full`` (default).
    list configs

Each sub-parser sets ``func`` to its handler (``args.func(args)`` returns the exit code).
``run`` and ``reproduce`` check after their runs (and when interrupted) that the code of each table
did not change meanwhile: rows made while it did are marked as made by unknown code, the command says
which files changed and what to rerun, and exits non-zero (``--record`` refuses them unless
``--allow-stale``; see :func:`interpretopt.experiments.record.distrust_runs_changed_during`).
CONFIG is a path, or a name under ``configs/`` (``smoke``, ``imd/table1``).
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

from interpretopt.exceptions import ConfigError, InterpretoptError

__all__ = [
    "add_experiment_commands",
    "cmd_run",
    "cmd_table",
    "cmd_plot",
    "cmd_reproduce",
    "cmd_list",
    "cmd_list_configs",
    "resolve_config_path",
]


def _shipped_root() -> Path:
    """The configs shipped inside the package (``interpretopt/configs``)."""
    from interpretopt.experiments import config as C

    return Path(C.__file__).resolve().parents[1] / "configs"


def _candidates(root: Path, name: str) -> list[Path]:
    stem = name.replace(":", "/")
    if stem.startswith("configs/"):  # `configs/smoke.yaml` of the README, from another directory
        stem = stem[len("configs/"):]
    out = [root / stem, root / f"{stem}.yaml", root / f"{stem}.yml"]
    if "-" in stem and "/" not in stem:  # imd-table1 -> imd/table1
        paper, _, table = stem.partition("-")
        out += [root / paper / f"{table}.yaml", root / paper / f"{table}.yml"]
    return out


def resolve_config_path(name: str) -> Path:
    """A config path from a path or a name relative to ``configs/`` (``.yaml`` optional).

    Looked up as a path from the working directory, then under :func:`configs_root` (a
    ``configs/`` folder in the working directory, else the package's), then among the configs
    shipped with the package, so that ``configs/smoke.yaml`` and ``imd/table1`` work from any
    directory. A name that is none of these lists what is there (``imd/table99``: the tables of
    ``imd``).
    """
    from interpretopt.experiments.config import configs_root

    p = Path(name)
    if p.is_file():
        return p
    roots = list(dict.fromkeys([configs_root(), _shipped_root()]))
    for root in roots:
        for cand in _candidates(root, name):
            if cand.is_file():
                return cand
    raise ConfigError(name, [_no_config_message(name, roots[0])])


def _no_config_message(name: str, root: Path) -> str:
    from interpretopt._validation import did_you_mean
    from interpretopt.experiments.config import find_configs

    stem = name.replace(":", "/").removeprefix("configs/").removesuffix(".yaml").removesuffix(".yml")
    names = [str(q.relative_to(root).with_suffix("")) for q in find_configs(root)]
    paper = stem.split("/")[0] if "/" in stem else stem.partition("-")[0]
    tables = [n for n in names if n.startswith(paper + "/")]
    if tables:
        return (f"no config {name!r}{did_you_mean(stem, tables)}; the tables of {paper}: "
                f"{', '.join(t.split('/', 1)[1] for t in tables)}")
    papers = sorted({n.split("/")[0] for n in names if "/" in n})
    return (f"no config file {name!r} and none under {root}{did_you_mean(stem, names)}; papers: "
            f"{', '.join(papers)}; see `interpretopt list configs`")


def _add_scale_options(p: argparse.ArgumentParser) -> None:
    from interpretopt.experiments.config import SCALES

    p.add_argument("--scale", default=None, choices=SCALES,
                   help="smoke: the paper's datasets subsampled, minutes; reduced: full datasets, fewer "
                        "repetitions or splits; full: the published protocol (default)")
    p.add_argument("--smoke", action="store_true", help="the same as --scale smoke")
    p.add_argument("--seed", type=_seed, default=None, metavar="N",
                   help="root seed in place of the config's (other splits and hashed model seeds; the spread "
                        "of a table over seeds is its spread over random splits); default output directory "
                        "ends in -seed<N>")
    p.add_argument("--datasets", type=_labels, default=None, metavar="LABEL[,LABEL...]",
                   help="only these datasets of the config (its dataset labels); the runs are the whole "
                        "config's runs, stored in its directory and reused by a later run of all of it")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="PATH=VALUE",
                   help="override a key of the config (repeatable): a dotted path, list elements by index "
                        "(methods.0.params.max_depth=3, settings.time_limit=60, datasets.0.max_rows=500), or a "
                        "parameter of the config's method by name (max_depth=3); the value is YAML ([3, 6], "
                        "true, null); checked as the file is; recorded in each row's 'overrides' column")
    _add_trust_options(p)


def _add_trust_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-import", action="store_true",
                   help="accept methods named as module:function in the config (imports and calls that code: "
                        "only for a config you trust)")
    p.add_argument("--max-runs", type=int, default=None, metavar="N",
                   help="refuse a plan of more than N runs (default $INTERPRETOPT_MAX_RUNS or 100000)")


def _number(text: str, cast: type, expected: str) -> int | float:
    """``cast(text)``, or the argparse error "expected <expected>, got '<text>'"."""
    try:
        return cast(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None


def _n_jobs(text: str) -> int:
    value = _number(text, int, "an integer")
    if value == 0:
        raise argparse.ArgumentTypeError("got 0; give a number of worker processes >= 1, or -1 for all cores")
    return value


def _seed(text: str) -> int:
    value = _number(text, int, "an integer >= 0")
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def _labels(text: str) -> tuple[str, ...]:
    labels = tuple(x.strip() for x in text.split(",") if x.strip())
    if not labels:
        raise argparse.ArgumentTypeError(f"expected comma-separated dataset labels, got {text!r}")
    return labels


def _seconds(text: str) -> float:
    value = _number(text, float, "a number of seconds")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n-jobs", type=_n_jobs, default=1, help="local worker processes (default 1; -1 = all cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler address (tcp://host:8786): run on that cluster")
    p.add_argument("--scheduler-timeout", type=_seconds, default=10.0, metavar="SECONDS",
                   help="seconds to wait for the scheduler before giving up (default 10)")
    p.add_argument("--out", default=None, metavar="DIR", help=_OUT_HELP.format(what="store the results in"))
    p.add_argument("--force", action="store_true", help="rerun runs that are already stored")
    _add_scale_options(p)
    # SUPPRESS: a --data-dir given before the sub-command (top-level option) is not reset to None
    p.add_argument("--data-dir", default=argparse.SUPPRESS, metavar="DIR",
                   help="dataset directory (default $INTERPRETOPT_DATA)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


_CONFIG_HELP = ("a config file, or a name under configs/ (smoke, imd/table1); found from any directory among "
                "the configs shipped with interpretopt")
_OUT_HELP = ("directory to {what} (default results/<name>, or results/<name>-<scale> below full scale, as "
             "`run` wrote them)")


def add_experiment_commands(subparsers, *, include_list: bool | None = None) -> None:
    """Add ``run``, ``table``, ``plot``, ``reproduce`` (and ``list configs``) to an argparse sub-parser set.

    ``list`` is added only when ``include_list`` is true, or when it is None (default) and the
    caller has not defined a ``list`` command already; a caller owning ``list`` dispatches
    ``list configs`` to :func:`cmd_list_configs`.
    """
    if include_list is None:
        include_list = "list" not in getattr(subparsers, "choices", {})
    p = subparsers.add_parser("run", help="run an experiment config (resumes; skips finished runs)")
    p.add_argument("config", metavar="CONFIG", help=_CONFIG_HELP)
    _add_run_options(p)
    p.set_defaults(func=cmd_run)

    p = _add_results_command(subparsers, "table", "print and write the tables of an experiment from its results",
                             writes="tables")
    p.add_argument("--format", default="markdown", choices=["markdown", "latex", "csv"],
                   help="what to print (default markdown); all three are written under <out>/tables")
    p.add_argument("--name", default=None, metavar="TABLE", help="only this table")
    p.set_defaults(func=cmd_table)

    p = _add_results_command(subparsers, "plot", "write the plots of an experiment (PNG, SVG) from its results",
                             writes="plots")
    p.add_argument("--name", default=None, metavar="PLOT", help="only this plot")
    p.set_defaults(func=cmd_plot)

    p = subparsers.add_parser("reproduce", help="run the config of a published table (or --all) and print ours "
                                                "beside the paper's; writes cells.csv (and REPORT.md with --all)")
    p.add_argument("config", metavar="PAPER-TABLE", nargs="?", default=None,
                   help="e.g. imd/table1 (configs/imd/table1.yaml); omit with --all")
    p.add_argument("--all", action="store_true", help="every table of every paper (or of --paper)")
    p.add_argument("--paper", action="append", default=None, metavar="PAPER",
                   help="with --all or --plan: only this paper (repeatable)")
    p.add_argument("--plan", action="store_true",
                   help="print the runs and the estimated time of each table at each scale; run nothing")
    _add_record_options(p)
    _add_run_options(p)
    p.set_defaults(func=cmd_reproduce)

    if include_list:
        p = subparsers.add_parser("list", help="list configs")
        p.add_argument("what", choices=["configs"], help="configs: every config with its method and runs")
        p.set_defaults(func=cmd_list)


def _add_results_command(subparsers, name: str, help: str, *, writes: str) -> argparse.ArgumentParser:
    """A sub-command made from the stored results of CONFIG (``table``, ``plot``): its CONFIG, ``--out`` (read
    from, with the output written to ``<DIR>/<writes>``) and scale options."""
    p = subparsers.add_parser(name, help=help)
    p.add_argument("config", metavar="CONFIG", help=_CONFIG_HELP)
    p.add_argument("--out", default=None, metavar="DIR",
                   help=_OUT_HELP.format(what=f"read the results from and write <DIR>/{writes} to"))
    _add_scale_options(p)
    return p


def _add_record_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--record", nargs="?", const="", default=None, metavar="DIR",
                   help="with --all: run into the record folder DIR (default records/<scale>), resuming from the "
                        "rows committed there, then record every table's rows in it (rows.parquet), its "
                        "REPORT.md and cells.csv, and regenerate docs/reproduction.md; refuses before any run when "
                        "a dataset file the tables need is not in the data directory")
    p.add_argument("--allow-stale", action="store_true",
                   help="with --record: record tables whose runs were made by other code than today's (their "
                        "sections say so) instead of refusing")
    p.add_argument("--rerun-stale", action="store_true",
                   help="first forget the stored runs made by other code than today's (of every table with --all, "
                        "of PAPER/TABLE's otherwise: a record remade table by table), so that they run again")
    p.add_argument("--check-values", default=None, metavar="DIR",
                   help="with --all: exit 1 when a published cell's value differs from the record in DIR "
                        "(records/smoke) beyond float rounding (relative 1e-9), printing the cells that moved")
    p.add_argument("--no-run", action="store_true",
                   help="run nothing: make the tables, cells.csv and REPORT.md from the results already stored "
                        "in --out (each table says how many of its planned runs are stored); on a record "
                        "folder (records/<scale>) this regenerates its report and docs/reproduction.md")


def _load(args):
    from interpretopt.experiments.config import load_config

    scale = getattr(args, "scale", None)
    if getattr(args, "smoke", False):
        if scale not in (None, "smoke"):
            raise ConfigError(args.config, [f"--smoke contradicts --scale {scale}; give one of them"])
        scale = "smoke"
    path = resolve_config_path(args.config)
    if not Path(args.config).is_file() and not path.resolve().is_relative_to(Path.cwd().resolve()):
        print(f"(config: {path})", file=sys.stderr)  # found by name among the shipped configs: say which file
    config = load_config(path, scale=scale, overrides=getattr(args, "overrides", None) or (),
                         allow_import=getattr(args, "allow_import", False), max_runs=getattr(args, "max_runs", None))
    if getattr(args, "seed", None) is not None:
        config = config.with_seed(args.seed)
    if getattr(args, "datasets", None) is not None:
        config = config.with_datasets(args.datasets)
    return config


def _out_dir(args, config) -> Path:
    from interpretopt.experiments.runner import default_out_dir

    return Path(args.out) if getattr(args, "out", None) else default_out_dir(config)


def _guard(fn):
    def wrapped(args) -> int:
        try:
            return fn(args)
        except (InterpretoptError, ImportError) as e:
            print(f"error: {cli_words(str(e))}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("interrupted: finished runs are stored; run the same command again to resume", file=sys.stderr)
            return 130

    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


def _costs(out: Path | None = None) -> dict:
    """The measured per-run costs shipped with the configs, updated by ``<out>/run_costs.json`` (a
    reproduction's own); a costs file that does not read gives no estimate rather than no run."""
    from interpretopt.experiments.report import read_costs

    try:
        return read_costs(_shipped_costs(), out if out is not None and Path(out).is_dir() else None)
    except InterpretoptError as e:
        print(f"warning: no time estimate: {e}", file=sys.stderr)
        return {}


def _announce(config, out: Path, n_jobs: int = 1, force: bool = False) -> None:
    """Print the plan of a run before anything is planned or run: runs, already done, estimated time."""
    from interpretopt.experiments.progress import estimate, plan_line
    from interpretopt.experiments.report import count_runs
    from interpretopt.experiments.runner import runs_source, stored_results

    try:
        n_runs = count_runs(runs_source(config, out)[0])
    except InterpretoptError:
        n_runs = None
    try:
        stored = None if force else stored_results(config, out, ok_only=True)
    except Exception:  # unreadable rows are reported by the run itself
        stored = None
    done = 0 if stored is None else len(stored)
    workers = n_jobs if n_jobs > 0 else (os.cpu_count() or 1)
    print(plan_line(config.name, config.scale, n_runs, done, estimate(config, _costs(out)), workers), flush=True)
    if done:
        _announce_stale(config, out, stored)


def _announce_stale(config, out: Path, stored) -> None:
    """Say how many of the stored runs were made by other code than today's (kept, and marked stale)."""
    from interpretopt.experiments.fingerprint import table_fresh_rows

    n = sum(not f for f in table_fresh_rows(config, out, stored))
    if n:
        print(f"  {n} of the {len(stored)} runs stored were made by other code than today's: they are kept and the "
              "table is marked stale (`--rerun-stale` runs them again)", flush=True)


def _held(config, data_dir) -> tuple[object, str | None]:
    """The config restricted to the datasets whose files are held, and one message about the others
    (None when every dataset is held).

    Raises
    ------
    InterpretoptError
        No dataset of the config is held: one message naming them, the files expected, and
        ``--data-dir``.
    """
    from interpretopt.data import list_datasets

    rows = {r["name"]: r for r in list_datasets(data_dir=data_dir)}
    missing = [d for d in config.datasets if d.name in rows and not rows[d.name]["available"]]
    if not missing:
        return config, None
    where = data_dir or os.environ.get("INTERPRETOPT_DATA")
    files = ", ".join(f"{d.label} ({rows[d.name].get('file')})" for d in missing)
    if not where:
        where_text = "not found: no data directory is set"
    elif not Path(where).is_dir():
        where_text = f"not found: the data directory {where} does not exist"
    else:
        where_text = f"not in the data directory {where}"
    text = (f"{len(missing)} of {len(config.datasets)} datasets of {config.name} are {where_text}: {files}. "
            "Give the folder holding these files with --data-dir DIR (or INTERPRETOPT_DATA=DIR); "
            "`interpretopt list datasets` shows what is held")
    held = [d.label for d in config.datasets if d not in missing]
    if not held:
        raise InterpretoptError(text)
    return config.with_datasets(held), text + f"; running the other {len(held)} only"


def _run(args, config) -> tuple[int, Path]:
    from interpretopt.experiments import record as rec
    from interpretopt.experiments.runner import run_experiment

    out = _out_dir(args, config)
    config, note = _held(config, getattr(args, "data_dir", None))
    if note:
        print(f"warning: {note}", file=sys.stderr)
    _announce(config, out, args.n_jobs, args.force)
    since = rec.file_clock_ns(out)
    try:
        rep = run_experiment(config, out_dir=out, n_jobs=args.n_jobs, scheduler=args.scheduler, force=args.force,
                             data_dir=getattr(args, "data_dir", None), progress=False if args.quiet else None,
                             scheduler_timeout=getattr(args, "scheduler_timeout", 10.0),
                             max_runs=getattr(args, "max_runs", None))
        print(cli_words(rep.summary()))
    finally:  # interrupted too: the rows stored until then are checked
        groups = rec.distrust_runs_changed_during(out, config.path, since)
        changed = _say_code_changed({args.config: groups} if groups else {}, _RERUN_FORCE)
    return (1 if rep.n_failed or changed else 0), out


_RERUN_FORCE = "Rerun them: the same command with --force"


def _say_code_changed(found: dict, rerun: str) -> bool:
    """Print :func:`~interpretopt.experiments.record.code_changed_message` when runs were made while their
    code changed (``found``: table -> groups); True when some were."""
    from interpretopt.experiments.record import code_changed_message

    if found:
        print(f"error: {code_changed_message(found, rerun)}", file=sys.stderr)
    return bool(found)


@contextmanager
def _checked_when_interrupted(since: int | None, tables, rerun: str):
    """When the runs in the body stop with an exception (Ctrl-C), check the rows they stored all the same
    (:func:`~interpretopt.experiments.record.distrust_changed_runs` on ``tables()``) before it goes on."""
    try:
        yield
    except BaseException:
        if since is not None:
            from interpretopt.experiments.record import distrust_changed_runs

            _say_code_changed(distrust_changed_runs(tables(), since), rerun)
        raise


@_guard
def cmd_run(args) -> int:
    """``run CONFIG``: execute the runs not stored yet; exit code 1 when a run failed."""
    config = _load(args)
    code, _ = _run(args, config)
    return code


def _results(config, out: Path):
    from interpretopt.experiments.results import ResultStore
    from interpretopt.experiments.runner import runs_source, stored_results

    src, src_out = runs_source(config, out)
    for d in dict.fromkeys([out, src_out]):
        bad = ResultStore(d).unreadable()
        if bad:
            print(f"warning: {len(bad)} row file(s) under {d / 'runs'} are not readable result rows and are left "
                  f"out ({', '.join(p.name for p in bad[:3])}{', ...' if len(bad) > 3 else ''}); `interpretopt run` "
                  "runs them again", file=sys.stderr)
    df = stored_results(config, out)
    if not len(df):
        where = str(out) if src is config else f"{out} nor {src_out} (the runs of {Path(src.path).stem})"
        raise InterpretoptError(f"no results of {config.name!r} (config hash {config.config_hash}) in {where}; "
                                f"run `interpretopt run {src.path}{'' if config.scale == 'full' else ' --scale ' + config.scale}"
                                f"{' --out ' + str(src_out) if src is not config else ''}` first")
    return df


def cli_words(text: str) -> str:
    """A library message in the command line's words: ``data_dir=...`` (the Python keyword) is ``--data-dir``."""
    return (text.replace("pass data_dir=...", "give --data-dir DIR").replace("(data_dir=", "(--data-dir ")
            .replace("or ``data_dir=``", "or --data-dir"))


def failed_runs_line(df, names) -> str | None:
    """One line for tables that cannot be made because runs failed: how many failed and the first error
    (None when no stored run failed)."""
    if df is None or not len(df) or "run_status" not in df.columns:
        return None
    failed = df[df["run_status"] != "ok"]
    if not len(failed):
        return None
    first = str(failed["error"].dropna().iloc[0]).splitlines()[0] if failed["error"].notna().any() else "?"
    first = cli_words(first if len(first) <= 300 else first[:297] + "...")
    tables = [n for n in names if n != "figures"]
    what = (f"table {tables[0]}" if len(tables) == 1 else f"tables {', '.join(tables)}" if tables else "")
    what = " and ".join(x for x in (what, "the figures" if "figures" in names else "") if x)
    return (f"{what} cannot be made: {len(failed)} of {len(df)} runs failed (first error: {first}); "
            "see the run_status and error columns of the results")


def _any_ok(df) -> bool:
    return df is not None and len(df) > 0 and ("run_status" not in df.columns or bool((df["run_status"] == "ok").any()))


def _print_tables(config, df, out: Path, fmt: str = "markdown", name: str | None = None) -> int:
    from interpretopt.experiments.tables import to_csv, to_latex, to_markdown, write_tables

    if not config.tables:
        print(f"{config.name}: the config defines no tables")
        return 0
    if name and name not in [t.name for t in config.tables]:
        valid = ", ".join(t.name for t in config.tables)
        raise InterpretoptError(f"no table {name!r} in {config.path}; tables: {valid}")
    render = {"markdown": to_markdown, "latex": to_latex, "csv": to_csv}[fmt]
    missing: list[tuple[str, InterpretoptError]] = []
    for spec in config.tables:
        if name and spec.name != name:
            continue
        try:
            done = write_tables(df, config, out, names=[spec.name])
        except InterpretoptError as e:
            missing.append((spec.name, e))
            continue
        for tr in done.values():
            print(render(tr))
    if len(missing) < len([t for t in config.tables if not name or t.name == name]):
        print(f"(tables written to {out / 'tables'})")
    if missing:
        line = None if _any_ok(df) else failed_runs_line(df, [n for n, _ in missing])
        if line is None:
            raise InterpretoptError("; ".join(f"table {n}: {e}" for n, e in missing))
        print(f"error: {line}", file=sys.stderr)
        return 1
    return 0


@_guard
def cmd_table(args) -> int:
    """``table CONFIG``: print the config's tables (and write .md/.tex/.csv under <out>/tables)."""
    config = _load(args)
    out = _out_dir(args, config)
    return _print_tables(config, _results(config, out), out, args.format, args.name)


@_guard
def cmd_plot(args) -> int:
    """``plot CONFIG``: write the config's plots under <out>/plots."""
    from interpretopt.experiments.plots import write_plots

    config = _load(args)
    out = _out_dir(args, config)
    if not config.plots:
        print(f"{config.name}: the config defines no plots")
        return 0
    if args.name and args.name not in [p.name for p in config.plots]:
        valid = ", ".join(p.name for p in config.plots)
        raise InterpretoptError(f"no plot {args.name!r} in {config.path}; plots: {valid}")
    for path in write_plots(_results(config, out), config, out, names=[args.name] if args.name else None):
        print(path)
    return 0


def _scale_of_args(args) -> str:
    scale = getattr(args, "scale", None)
    if getattr(args, "smoke", False):
        if scale not in (None, "smoke"):
            raise InterpretoptError(f"--smoke contradicts --scale {scale}; give one of them")
        scale = "smoke"
    return scale or "full"


def _print_cell_summary(cells) -> None:
    import re

    from interpretopt.experiments.report import summarize_cells

    if not len(cells):
        print("no published cells in this config's tables")
        return
    s = summarize_cells(cells)
    for r in s.itertuples():
        if r.paper == "all" and len(s) == 2:
            continue
        share = "n/a" if r.with_data == 0 else f"{r.compared_share:.0%}"
        print(f"{r.paper}: {r.published} published cells, {r.with_data} with data, {r.compared} compared ({share}), "
              f"{r.within_tolerance} within tolerance, {r.partial} partial, {r.no_data} no data, {r.not_run} not run")
    nc = cells[cells["status"] != "compared"]
    for (status, reason), g in nc.groupby(["status", "reason"], sort=False):
        reason = re.sub(r"; columns: [^;]*", "", str(reason))  # the results' columns: dozens of names
        print(f"  {len(g)} {status.replace('_', ' ')}: {cli_words(reason)}")


@_guard
def cmd_reproduce(args) -> int:
    """``reproduce PAPER/TABLE`` or ``reproduce --all``: run the config(s) at ``--scale``, print the tables
    beside the paper's, write ``cells.csv`` (one row per published cell) and, with ``--all``, ``REPORT.md``."""
    from interpretopt.experiments import report as R

    scale = _scale_of_args(args)
    if args.plan:
        if args.config is not None:
            raise InterpretoptError("--plan covers every table (narrow it with --paper); give no CONFIG")
        out = Path(args.out) if args.out else None
        one_scale = None if args.scale is None and not args.smoke else scale
        df = R.plan(one_scale, papers=args.paper, costs=R.read_costs(_shipped_costs(), out),
                    out_root=out if out is not None and one_scale is not None and out.is_dir() else None)
        _print_plan(df)
        return 0
    _check_reproduce_args(args)
    _, failed = (_reproduce_all if args.all else _reproduce_one)(args, scale, getattr(args, "data_dir", None))
    return 1 if failed else 0


def _check_reproduce_args(args) -> None:
    """One table or --all, and the options that apply to it; ``--paper`` alone means ``--all --paper``."""
    if args.config is None and not args.all and args.paper:  # `reproduce --paper crl`: every table of crl
        args.all = True
        print(f"(every table of {', '.join(args.paper)}: the same as --all{''.join(' --paper ' + p for p in args.paper)})",
              file=sys.stderr)
    if args.all and args.config is not None:
        raise InterpretoptError(f"give either PAPER/TABLE or --all, not both (got {args.config} and --all)")
    if not args.all and args.config is None:
        raise InterpretoptError("give either PAPER/TABLE or --all: a table such as imd/table1 (see "
                                "`interpretopt list configs`), --all for every table (--paper PAPER: one paper's), "
                                "or --plan")
    if args.overrides and args.all:
        raise InterpretoptError("--set applies to one table (PAPER/TABLE); --all reproduces the configs as published")
    if args.seed is not None and args.all:
        raise InterpretoptError("--seed applies to one table (PAPER/TABLE); --all reproduces the published seeds")
    if args.datasets is not None and args.all:
        raise InterpretoptError("--datasets applies to one table (PAPER/TABLE); --all reproduces every dataset")
    for flag in ("record", "check_values", "allow_stale"):
        if getattr(args, flag) not in (None, False) and not args.all:
            raise InterpretoptError(f"--{flag.replace('_', '-')} writes or checks the report of --all; give --all")


def _reproduce_all(args, scale: str, data_dir):
    """``reproduce --all``: the plan, every table config (a line each), REPORT.md; ``(cells, failed)``."""
    from interpretopt.experiments import report as R
    from interpretopt.experiments.record import file_clock_ns, planned_tables

    out = _reproduce_out(args, scale)
    command = ("interpretopt reproduce --all --scale " + scale + "".join(f" --paper {p}" for p in args.paper or [])
               + (" --no-run" if args.no_run else ""))
    if args.record is not None and not args.no_run:
        _require_data(scale, args.paper, data_dir)
    _before_reproduce(args, scale, out)
    _print_plan_totals(R.plan(scale, papers=args.paper, costs=_costs(out)), run=not args.no_run)
    if not args.no_run:
        note = _missing_data_line(scale, args.paper, data_dir)
        if note:
            print(f"warning: {note}", file=sys.stderr, flush=True)

    def progress(rec):
        problems = "; ".join(_problems(rec))
        ok = "ok" if not problems else f"problem: {problems if len(problems) <= 300 else problems[:297] + '...'}"
        print(f"{rec.paper}/{Path(rec.path).stem}: {rec.n_runs} runs ({rec.n_failed} failed), "
              f"{rec.wall_time:.0f} s, {int((rec.cells['status'] == 'compared').sum())}/{len(rec.cells)} "
              f"cells compared; {ok}", flush=True)

    since = None if args.no_run else file_clock_ns(out)
    rerun = (f"Rerun them: `{command} {'--record' if args.record is not None else '--out'} {out.as_posix()} "
             "--rerun-stale`")
    with _checked_when_interrupted(since, lambda: planned_tables(out, scale, args.paper), rerun):
        records = R.reproduce_all(scale, out, papers=args.paper, n_jobs=args.n_jobs, scheduler=args.scheduler,
                                  force=args.force, data_dir=data_dir, command=command,
                                  progress=False if args.quiet else None, on_config=progress,
                                  run=not args.no_run)
    records, changed = _distrust_changed(args, scale, out, command, records, since, rerun)
    cells = R.concat_cells(records)
    _print_cell_summary(cells)
    _after_reproduce(args, scale, out, records)
    print(f"(report: {out / 'REPORT.md'}; cells: {out / 'cells.csv'})")
    failed = any(r.n_failed or r.error for r in records)
    moved = args.check_values is not None and _moved(cells, args.check_values, args.paper)
    return cells, failed or moved or changed


def _distrust_changed(args, scale: str, out: Path, command: str, records, since: int | None, rerun: str):
    """After the runs of ``reproduce --all``: unstamp the rows made while their table's code changed
    (:func:`~interpretopt.experiments.record.distrust_changed_runs`); when there are some, say so and
    remake the report from the stored rows (it then marks them stale: the tables made before the edit
    were checked against the code of then). ``rerun`` says what to run. ``(records, whether some were)``.

    Raises
    ------
    InterpretoptError
        With ``--record`` and without ``--allow-stale``, when some were: nothing is recorded.
    """
    from interpretopt.experiments import report as R
    from interpretopt.experiments.record import code_changed_message, distrust_changed_runs

    found = {} if since is None else distrust_changed_runs(records, since)
    if not found:
        return records, False
    records = R.reproduce_all(scale, out, papers=args.paper, run=False, command=command, progress=False)
    if args.record is not None and not args.allow_stale:
        raise InterpretoptError(f"{code_changed_message(found, rerun)}. Nothing was recorded (--allow-stale "
                                "records them as stale)")
    return records, _say_code_changed(found, rerun)


def _reproduce_one(args, scale: str, data_dir):
    """``reproduce PAPER/TABLE``: its plan, its runs (the datasets held), its tables beside the paper's and
    cells.csv; ``(cells, failed)``."""
    from interpretopt.experiments import report as R
    from interpretopt.experiments.record import distrust_changed_runs, file_clock_ns
    from interpretopt.experiments.tables import to_markdown

    path = resolve_config_path(args.config)
    config = _load(args)
    out = _out_dir(args, config)
    held, note = _held(config, data_dir)
    if note:
        print(f"warning: {note}", file=sys.stderr)
    if args.rerun_stale:
        _forget_stale_runs(SimpleNamespace(paper=path.parent.name, path=str(path), config=config, out_dir=out))
    if not args.no_run:
        _announce(held, out, args.n_jobs, args.force)
    selection = [d.label for d in held.datasets] if held is not config else args.datasets
    since = None if args.no_run else file_clock_ns(out)
    table = SimpleNamespace(paper=path.parent.name, path=str(path), config=config, out_dir=out)
    with _checked_when_interrupted(since, lambda: [table], _RERUN_FORCE):
        rec = R.reproduce_config(path, scale, out, n_jobs=args.n_jobs, scheduler=args.scheduler, force=args.force,
                                 data_dir=data_dir, progress=False if args.quiet else None, plots=False,
                                 run=not args.no_run, seed=args.seed, datasets=selection, overrides=args.overrides)
    if rec.run_summary:
        print(cli_words(rec.run_summary))
    _print_problems(rec)
    for tr in rec.tables.values():
        print(to_markdown(tr))
    rec.cells.to_csv(out / "cells.csv", index=False)
    notes = R.protocol_notes(path)
    if notes:
        (out / "protocol.md").write_text(f"# Protocol of {args.config}\n\n```text\n{notes}\n```\n")
    _print_cell_summary(rec.cells)
    print(f"(cells: {out / 'cells.csv'})")
    changed = since is not None and _say_code_changed(distrust_changed_runs([rec], since), _RERUN_FORCE)
    return rec.cells, bool(rec.n_failed or rec.error or changed)


def _forget_stale_runs(table) -> None:
    """``reproduce PAPER/TABLE --rerun-stale``: forget the table's stored runs made by other code than today's
    (row files and recorded rows), so that this invocation makes them again."""
    from interpretopt.experiments import record as rec
    from interpretopt.experiments.fingerprint import table_freshness
    from interpretopt.experiments.runner import stored_results

    table.freshness = table_freshness(table.config, table.out_dir, stored_results(table.config, table.out_dir))
    print(f"(forgot {rec.drop_stale_runs([table])} runs made by other code than today's)")


def _reproduce_out(args, scale: str) -> Path:
    """The folder of ``reproduce --all``: ``--record``'s (default ``records/<scale>``), else ``--out``."""
    from interpretopt.experiments.record import default_record_dir

    if args.record is None:
        return Path(args.out) if args.out else Path("results") / f"reproduction-{scale}"
    if args.record.endswith(".md"):
        raise InterpretoptError(f"--record takes the record folder (records/{scale}), not a file ({args.record}); "
                                "docs/reproduction.md is generated from the records")
    out = Path(args.record) if args.record else default_record_dir(scale)
    if args.out and Path(args.out).resolve() != out.resolve():
        raise InterpretoptError(f"--record runs into the record folder itself ({out}); give --out {out} or no --out")
    return out


def _before_reproduce(args, scale: str, out: Path) -> None:
    """The checks and preparations of ``reproduce --all`` before anything runs: a record's scale, runs to
    report for ``--no-run``, stale runs to forget for ``--rerun-stale``."""
    from interpretopt.experiments import record as rec

    on_record = args.record is not None or rec.is_record(out)
    if on_record:
        rec.check_record_scale(out, scale)
        if args.no_run and args.paper:
            raise InterpretoptError(f"{out} is a record: its report covers every paper; drop --paper")
    if args.no_run or args.rerun_stale:
        tables = rec.planned_tables(out, scale, args.paper, freshness=args.rerun_stale)
        if args.no_run:
            rec.check_stored_runs(tables, out, scale)
        if args.rerun_stale:
            print(f"(forgot {rec.drop_stale_runs(tables)} runs made by other code than today's)")


def _after_reproduce(args, scale: str, out: Path, records) -> None:
    """``--record``: record the rows; on a record folder, make its report from the rows alone and
    regenerate docs/reproduction.md."""
    from interpretopt.experiments import record as rec
    from interpretopt.experiments import report as R

    if args.record is None and not rec.is_record(out):
        return
    if args.record is not None:
        n, left_out = rec.write_record_rows(records, out, scale, allow_stale=args.allow_stale)
        print(f"(recorded {n} rows under {out})")
        if left_out:
            print(f"warning: {left_out} stored runs failed because their dataset file was missing; they are not "
                  "results and were not recorded (their cells stay without data until they run with the files)",
                  file=sys.stderr)
    if args.record is not None or args.paper:
        records = R.reproduce_all(scale, out, run=False, command=rec.regenerate_command(scale, out), progress=False)
    costs_file = rec.repository_costs_file(out) if args.record is not None else None
    if costs_file is not None:
        updated = rec.record_costs(out, scale, costs_file)
        if updated:
            print(f"(measured per-run costs of {len(updated)} table(s) at {scale} written to {costs_file})")
    rec.finish_record_report(records, out, scale)
    docs = rec.write_docs(out)
    if docs is not None:
        print(f"(record report: {out / 'REPORT.md'}; {docs} regenerated)")


def _moved(cells, record_dir: str, papers) -> bool:
    """``--check-values``: print the cells whose value moved against the record; True when some did."""
    from interpretopt.experiments import record as rec

    moved = rec.moved_cells_against(cells, record_dir, papers=papers)
    if not len(moved):
        print(f"values: every published cell as in {record_dir} (relative tolerance {rec.VALUE_REL_TOL:g}, "
              f"absolute {rec.VALUE_ABS_TOL:g})")
        return False
    print(f"error: {len(moved)} published cell(s) moved against {record_dir} (beyond relative "
          f"{rec.VALUE_REL_TOL:g} / absolute {rec.VALUE_ABS_TOL:g}):", file=sys.stderr)
    from interpretopt.cli import _print_table

    _print_table([{k: ("" if v != v else v) for k, v in r.items()} for r in moved.to_dict("records")],
                 ["paper", "table", "row", "column", "committed", "now", "what"])
    print(f"a deliberate change: regenerate the record (`interpretopt reproduce --all --scale smoke --record "
          f"{record_dir} --force`) and commit it with the change", file=sys.stderr)
    return True


_PROBLEM_PARTS = r"; (?=table [^:]+: |plots: |JST figures: |run failed: |config does not load: )"


def _problems(rec) -> list[str]:
    """The problems of a reproduced table; the tables that its failed runs left unmade in one line."""
    import re

    if not rec.error:
        return []
    parts = re.split(_PROBLEM_PARTS, rec.error)
    if not (rec.n_failed and not rec.n_ok and rec.config is not None):
        return parts
    # every run failed: the tables and figures that need their results are one line, with the first error
    made_of_runs = tuple(f"table {t.name}: " for t in rec.config.tables) + ("plots: ", "JST figures: ")
    unmade = [t.name for t in rec.config.tables if t.name not in rec.tables]
    if any(x.startswith(("plots: ", "JST figures: ")) for x in parts):
        unmade.append("figures")
    if not unmade:
        return parts
    from interpretopt.experiments.runner import stored_results

    line = failed_runs_line(stored_results(rec.config, rec.out_dir), unmade)
    return parts if line is None else [x for x in parts if not x.startswith(made_of_runs)] + [line]


def _print_problems(rec) -> None:
    for x in _problems(rec):
        print(f"problem: {x}", file=sys.stderr)


def _missing_files(scale: str, papers, data_dir) -> dict[str, str]:
    """Dataset name -> file of every dataset of the tables planned at ``scale`` (of ``papers``) whose
    file is not in the data directory (``data_dir``, else ``INTERPRETOPT_DATA``); {} when all are held."""
    from interpretopt.data import list_datasets
    from interpretopt.experiments.config import load_config
    from interpretopt.experiments.report import table_configs

    rows = {r["name"]: r for r in list_datasets(data_dir=data_dir)}
    missing: dict[str, str] = {}
    for _, path in table_configs(None, papers):
        try:
            config = load_config(path, scale=scale)
        except InterpretoptError:  # reported with its table
            continue
        for d in config.datasets:
            r = rows.get(d.name)
            if r is not None and not r["available"] and r.get("file"):
                missing.setdefault(d.name, r["file"])
    return dict(sorted(missing.items()))


def _missing_data_line(scale: str, papers, data_dir) -> str | None:
    """One line naming the datasets of the reproduced tables whose files are not held (None: all held)."""
    missing = _missing_files(scale, papers, data_dir)
    if not missing:
        return None
    where = data_dir or os.environ.get("INTERPRETOPT_DATA")
    return (f"{len(missing)} datasets are not in the data directory{' ' + where if where else ' (none is set)'}: "
            f"{', '.join(f'{n} ({f})' for n, f in missing.items())}; their runs fail and their cells are "
            "reported as no data. Give the folder holding these files with --data-dir DIR")


def _require_data(scale: str, papers, data_dir) -> None:
    """``--record``: refuse, before anything runs, when a file that the planned tables need is not in the
    data directory; every run of its dataset would fail, and a record holds results, not failures.

    Raises
    ------
    InterpretoptError
        One line: the files missing, from which directory (or that none is set), and how to set it.
    """
    missing = _missing_files(scale, papers, data_dir)
    if not missing:
        return
    files = ", ".join(f"{f} ({n})" for n, f in missing.items())
    need = f"the tables planned at {scale} scale need {len(missing)} dataset file(s)"
    where = data_dir or os.environ.get("INTERPRETOPT_DATA")
    if not where:
        what = f"no data directory is set (neither INTERPRETOPT_DATA nor --data-dir), and {need}: {files}"
    elif not Path(where).expanduser().is_dir():
        what = f"the data directory {where} does not exist, and {need} from it: {files}"
    else:
        what = f"{need} that are missing from the data directory {where}: {files}"
    raise InterpretoptError(
        f"--record: nothing was run: {what}. "
        "Give the folder holding them with INTERPRETOPT_DATA=DIR or --data-dir DIR (`interpretopt list "
        "datasets` shows what is held)")


def _shipped_costs() -> Path:
    from interpretopt.experiments.config import configs_root

    return configs_root() / "run_costs.json"


def _print_plan(df) -> None:
    from interpretopt.experiments.progress import format_seconds as t

    def num(x, fmt):
        return "-" if x is None or x != x else fmt(x)

    done = "done" in df.columns  # --out DIR at one scale: the runs already stored there
    rows = [{"table": r.table, "scale": r.scale, "runs": num(r.runs, lambda x: str(int(x))),
             **({"done": str(r.done), "stale": str(r.stale), "left": str(r.left)} if done else {}),
             "s/run": num(r.per_run_s, lambda x: f"{x:.2f}"), "estimate": num(r.estimate_s, t),
             "basis": r.basis} for r in df.itertuples()]
    from interpretopt.cli import _print_table

    _print_table(rows, ["table", "scale", "runs", *(["done", "stale", "left"] if done else []), "s/run", "estimate",
                        "basis"])
    _print_plan_totals(df)


def _print_plan_totals(df, run: bool = True) -> None:
    """Per scale: the runs, the estimated time of the tables with a measured cost, and which tables
    have none (their time is not in the total)."""
    from interpretopt.experiments.progress import format_seconds as t

    if not run:
        return
    count = "left" if "left" in df.columns else "runs"  # with the runs already done: what is left
    for s in sorted(set(df["scale"]) - {"-"}):
        sub = df[df["scale"] == s]
        known = sub[sub["estimate_s"].notna()]
        unknown = sub[sub["estimate_s"].isna() & (sub[count].fillna(0) > 0)]
        text = f"{s}: {int(sub['runs'].fillna(0).sum())} runs in {len(sub)} tables; "
        if count == "left":
            text += (f"{int(sub['done'].sum())} already done{_stale_part(sub)}, {int(sub['left'].sum())} left in "
                     f"{int((sub['left'] > 0).sum())} tables; ")
        text += f"estimated {t(known['estimate_s'].sum())} on one worker for the {len(known)} tables with a measured cost"
        if len(unknown):
            text += (f", plus {len(unknown)} tables ({int(unknown[count].fillna(0).sum())} {count}) without one, "
                     f"not in that total: {', '.join(unknown['table'])}")
        print(text, flush=True)


def _stale_part(sub) -> str:
    """`` (N of them stale, in K tables: ...)``: the runs done that were made by other code than today's, with
    the estimated time of running them again (``--rerun-stale``); "" when none is."""
    from interpretopt.experiments.progress import format_seconds as t

    stale = sub[sub["stale"] > 0]
    if not len(stale):
        return ""
    known = stale["stale_estimate_s"].dropna()
    again = f"; rerunning them (--rerun-stale) is estimated at {t(known.sum())}" if len(known) else ""
    if len(known) < len(stale):
        again += f" for the {len(known)} of those tables with a measured cost"
    return (f" ({int(stale['stale'].sum())} of them stale, made by other code than today's, in {len(stale)} "
            f"tables{again})")


def _count_runs(config) -> str:
    from interpretopt.experiments.report import count_runs

    return str(count_runs(config))


def cmd_list_configs(args=None) -> int:
    """``list configs``: every config under ``configs/`` with its method(s) and number of runs."""
    from interpretopt.experiments.config import configs_root, find_configs, load_config

    root = configs_root()
    paths = find_configs(root)
    if not paths:
        print(f"no configs under {root}")
        return 0
    width = max(len(str(p.relative_to(root))) for p in paths)
    bad = 0
    for p in paths:
        rel = str(p.relative_to(root))
        try:
            c = load_config(p)
        except ConfigError as e:
            bad += 1
            print(f"{rel:<{width}}  INVALID: {len(e.problems)} problem(s): {e.problems[0]}")
            continue
        methods = ",".join(sorted({m.method for m in c.methods}))
        desc = " ".join(c.description.split())
        desc = desc if len(desc) <= 90 else desc[:87] + "..."
        n_full, n_red, n_smoke = _count_runs(c), _count_runs(c.with_scale("reduced")), _count_runs(c.with_smoke())
        print(f"{rel:<{width}}  {methods:<12} runs={n_full:>6} reduced={n_red:>5} smoke={n_smoke:>4}  {desc}")
    return 1 if bad else 0


@_guard
def cmd_list(args) -> int:
    """``list configs``."""
    if args.what == "configs":
        return cmd_list_configs(args)
    print(f"unknown list target {args.what!r}", file=sys.stderr)  # pragma: no cover - argparse choices
    return 2
