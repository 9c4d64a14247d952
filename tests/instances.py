"""Tiny instances and brute-force references shared by the tests (``from tests.instances import ...``)."""

from __future__ import annotations

import itertools

import numpy as np


def tiny(seed: int, n: int = 10, J: int = 4):
    """A random binary feature matrix ``X`` (``n`` x ``J``) and labels ``y`` with both classes."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, J)) < 0.5
    y = rng.integers(0, 2, n).astype(np.int8)
    if y.sum() in (0, n):
        y[0] = 1 - y[0]
    return X, y


def all_clauses(J: int, D: int, first=()):
    """Every conjunction of 1 to ``D`` of ``J`` binary features, after the clauses ``first`` (once each)."""
    clauses = [c for d in range(1, D + 1) for c in itertools.combinations(range(J), d)]
    return list(dict.fromkeys([tuple(c) for c in first] + clauses))


def cover_of(X, clauses):
    """The boolean coverage matrix of ``clauses`` on ``X`` (rows x clauses)."""
    return np.stack([X[:, list(c)].all(axis=1) for c in clauses], axis=1)


def brute_force_master(X, y, clauses, spec, grounding=()):
    """The BRCG master's best objective over every subset of ``clauses`` (``grounding``: indices
    of the grounded clauses), enumerated."""
    from interpretopt.formulations import brcg as F

    cov = cover_of(X, clauses)
    nl = np.array([len(c) for c in clauses])
    best = np.inf
    for mask in range(1 << len(clauses)):
        sel = [k for k in range(len(clauses)) if mask >> k & 1]
        if spec.form == "constraint" and spec.clause_complexity(nl[sel]).sum() > spec.C + 1e-9:
            continue
        best = min(best, F.master_objective(sel, cov, y, nl, spec, grounding=grounding))
    return best


def defaults_of(cls) -> dict:
    """The keyword defaults of ``cls.__init__`` (to pin a paper's defaults)."""
    import inspect

    return {k: p.default for k, p in inspect.signature(cls.__init__).parameters.items()
            if p.default is not inspect.Parameter.empty}


def rule_pool(seed, n=120, J=6):
    """A packed pool of ``J`` <= 6 antecedents on three features and noisy labels (rule-list searches)."""
    from interpretopt.heuristics.mining import pack_bool

    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    y = ((X[:, 0] > 0.5) ^ (rng.random(n) < 0.15)).astype(int)
    cov = np.column_stack([X[:, 0] > 0.5, X[:, 0] <= 0.5, X[:, 1] > 0.3, X[:, 2] > 0.7, X[:, 1] <= 0.2,
                           (X[:, 0] > 0.5) & (X[:, 2] > 0.5)])[:, :J]
    return pack_bool(cov), y


def run_cli(*argv) -> int:
    """Build the experiment subcommands of ``interpretopt`` and run one (arguments as strings)."""
    import argparse

    from interpretopt.experiments.cli_commands import add_experiment_commands

    ap = argparse.ArgumentParser(prog="interpretopt")
    add_experiment_commands(ap.add_subparsers(dest="command", required=True))
    args = ap.parse_args([str(a) for a in argv])
    return args.func(args)


def write_demo_configs(root, table: str, papers=("imd", "crl")):
    """A ``configs/`` folder under ``root``: the shipped solver presets and, per paper, one table
    ``<paper>/t1.yaml`` made from the config template ``table`` (``{name}`` and ``{paper}`` filled in).
    Returns the folder."""
    import shutil
    from pathlib import Path

    configs = Path(root) / "configs"
    shutil.copytree(Path(__file__).resolve().parents[1] / "configs" / "solvers", configs / "solvers")
    for paper in papers:
        (configs / paper).mkdir()
        (configs / paper / "t1.yaml").write_text(table.format(name=f"{paper}_t1", paper=paper))
    return configs
