"""Command line: ``interpretopt list | demo | run | table | plot | reproduce``.

The CLI is the only layer (with the experiment runner it drives) that prints; everything
below it returns values.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from interpretopt.exceptions import InterpretoptError

__all__ = ["main", "build_parser"]


def _print_table(rows: list[dict], columns: Sequence[str]) -> None:
    if not rows:
        print("(none)")
        return
    cells = [[str(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())


def _cmd_list(args: argparse.Namespace) -> int:
    what = args.what
    if what == "datasets":
        from interpretopt.data import list_datasets

        rows = [_as_dict(r) for r in list_datasets(data_dir=args.data_dir)]
        _print_table(rows, [c for c in ("name", "kind", "available", "n_classes", "source") if rows and c in rows[0]])
    elif what == "models":
        from interpretopt.blackbox import list_models

        rows = [_as_dict(r) for r in list_models()]
        _print_table(rows, [c for c in ("name", "available", "paper", "description") if rows and c in rows[0]])
    elif what == "solvers":
        from interpretopt.methods.brcg import solver_roles
        from interpretopt.solvers import Capabilities, describe_solvers

        rows = [_as_dict(r) for r in describe_solvers()]
        for r in rows:
            r["brcg"] = solver_roles(r["name"], lp=bool(r.get("lp")), milp=bool(r.get("milp")),
                                     duals=bool(r.get("duals")), incremental=bool(r.get("incremental")))
        _print_table(rows, [c for c in ("name", "available", "version", *Capabilities.FIELDS, "brcg", "description")
                            if rows and c in rows[0]])
        print("\nbrcg: the roles a solver can fill in BRCG column generation: master = the master LP (LP duals on an "
              "incremental model), pricing = the pricing MILP (pricing_solver), integer = the integer master "
              "(mip_solver). *: ortools_cpsat solves integer models only and both MILPs have continuous variables; "
              "it fills them only with options={'ortools_cpsat': {'discretize_continuous': True}} and then proves "
              "no optimum.")
    elif what == "methods":
        from interpretopt.methods import list_methods

        rows = list_methods()
        _print_table(rows, ["method", "available", "estimators", "learns"])
        for r in rows:
            if r["problem"]:
                print(f"note: {r['method']} is unavailable: {r['problem']}", file=sys.stderr)
    elif what == "configs":
        from interpretopt.experiments.cli_commands import cmd_list_configs

        return cmd_list_configs(args)
    return 0


def _as_dict(row) -> dict:
    if isinstance(row, dict):
        return row
    if hasattr(row, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(row)
    return dict(vars(row))


def _cmd_demo(args: argparse.Namespace) -> int:
    from interpretopt.demo import run_demo

    run_demo(random_state=args.seed, solver=args.solver)
    return 0


def _version_text() -> str:
    import platform

    from interpretopt import __version__

    try:
        from interpretopt.experiments.results import git_commit

        commit = git_commit()
    except ImportError:  # pragma: no cover - the experiments layer is part of the package
        commit = None
    if commit:
        sha, _, dirty = commit.partition("-")
        commit = sha[:12] + (f"-{dirty}" if dirty else "")
    return f"interpretopt {__version__}" + (f" ({commit})" if commit else "") + f", Python {platform.python_version()}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="interpretopt",
        description="Interpretable machine-learning methods written as optimization problems.",
    )
    parser.add_argument("--version", action="version", version=_version_text(),
                        help="print the version (and the commit of a checkout) and exit")
    parser.add_argument("--data-dir", default=None,
                        help="directory holding the benchmark data files (default: $INTERPRETOPT_DATA)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list datasets, black-box models, solvers, methods or configs",
                       description="List what this installation has.")
    p.add_argument("what", choices=["datasets", "models", "solvers", "methods", "configs"],
                   help="datasets: the benchmark data sets and whether their files are held; models: the papers' "
                        "black boxes; solvers: the backends, their capabilities and roles; methods: the methods "
                        "and their estimators; configs: the experiment configs, one per published table")
    p.set_defaults(func=_cmd_list)

    p = sub.add_parser("demo", help="train a RandomForest on breast cancer and explain it with the methods")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--solver", default="highs", help="solver for the optimization-based methods (default highs)")
    p.set_defaults(func=_cmd_demo)

    try:
        from interpretopt.experiments.cli_commands import add_experiment_commands
    except ImportError:  # the experiments layer is optional at import time only while it is absent
        add_experiment_commands = None
    if add_experiment_commands is not None:
        add_experiment_commands(sub)
    return parser


@contextmanager
def _data_dir_env(data_dir: str | None) -> Iterator[None]:
    """``INTERPRETOPT_DATA`` set to ``--data-dir`` (for the code and the worker processes of one command)
    while the command runs, and restored afterwards, so that a later call in the same process does not
    inherit it."""
    if data_dir is None:
        yield
        return
    from interpretopt.data import DATA_ENV

    before = os.environ.get(DATA_ENV)
    os.environ[DATA_ENV] = data_dir
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(DATA_ENV, None)
        else:
            os.environ[DATA_ENV] = before


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (``kill PID``) handled as Ctrl-C while a command runs: the runner's ``KeyboardInterrupt``
    path runs, so joblib stops its loky worker processes and the claims of the runs in flight are
    released. Without it the parent died at once and its workers went on computing runs that no one
    would store. Only in the main thread (where Python delivers signals); the previous handler is put back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    with _data_dir_env(args.data_dir), _terminate_as_interrupt():
        return _dispatch(args)


def _dispatch(args: argparse.Namespace) -> int:
    """Run the command of ``args``; a library error is one line on stderr and exit code 2."""
    try:
        return int(args.func(args) or 0)
    except InterpretoptError as exc:
        from interpretopt.experiments.cli_commands import cli_words

        print(f"interpretopt: error: {cli_words(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interpretopt: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a reader that stopped (`| head`): not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
