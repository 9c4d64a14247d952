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


def ranked_pair_pool(seed: int, n: int = 200):
    """A small ABBR instance: ``n`` rows of 3 normal and 2 three-valued features, ranks of a noisy linear
    score of them, and the pool of pair rules at 3 thresholds a feature. Returns ``(pool, ranks)``."""
    from interpretopt.evaluation.abbr import rank_scores
    from interpretopt.heuristics.abbr_search import discrete_mask, pair_rule_pool

    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=(n, 3)), rng.integers(0, 3, size=(n, 2))]).astype(float)
    ranks = rank_scores(X[:, 0] + 0.7 * X[:, 3] + 0.3 * rng.normal(size=n))
    return pair_rule_pool(X, ranks, discrete_mask(X), n_thresholds=3), ranks


def run_cli(*argv) -> int:
    """Build the experiment subcommands of ``interpretopt`` and run one (arguments as strings)."""
    import argparse

    from interpretopt.experiments.cli_commands import add_experiment_commands

    ap = argparse.ArgumentParser(prog="interpretopt")
    add_experiment_commands(ap.add_subparsers(dest="command", required=True))
    args = ap.parse_args([str(a) for a in argv])
    return args.func(args)


def demo_table(values: dict[str, str], *, notes: str = "", runs: str = "", caption: str | None = None,
               source: str | None = None, after: str = "") -> str:
    """The config template of a demo paper table, for :func:`write_demo_configs`: ``dummy_tree`` at max_depth
    1 and 2 on breast_cancer, 2 repetitions, and one table ``table1`` of accuracy by max_depth beside the
    published ``values`` (per dataset, a YAML flow mapping of column to value).

    ``notes``: comment lines before the config (its protocol notes); ``runs``: more top-level lines after
    ``repetitions`` (``smoke:``, ``reduced:``, ``preset:``); ``caption`` and ``source``: the table's caption
    and its reference's source, when given; ``after``: what follows the table (``plots:``). Text is given as
    it is in the file (lines ending in a newline); only ``{name}`` and ``{paper}`` are left to fill.
    """

    def literal(text: str) -> str:  # YAML flow mappings, not format fields
        return text.replace("{", "{{").replace("}", "}}")

    table = ["tables:", "  - name: table1"]
    table += [f'    caption: "{caption}"'] if caption is not None else []
    table += ["    metric: accuracy", "    columns: [max_depth]", "    reference:"]
    table += [f'      source: "{source}"'] if source is not None else []
    table += ["      values:", *(f"        {dataset}: {cells}" for dataset, cells in values.items())]
    return (literal(notes) + "name: {name}\ndescription: demo table of {paper}\nmethod: dummy_tree\n"
            "params: {{max_depth: [1, 2]}}\ndatasets: [breast_cancer]\nrepetitions: 2\n"
            + literal(runs + "\n".join(table) + "\n" + after))


def write_demo_configs(root, table: str, papers=("imd", "crl"), stem: str = "t1"):
    """A ``configs/`` folder under ``root``: the shipped solver presets and, per paper, one table
    ``<paper>/<stem>.yaml`` made from the config template ``table`` (:func:`demo_table` makes one) with
    ``{name}`` filled in as ``<paper>_<stem>`` and ``{paper}`` as the paper. Returns the folder."""
    import shutil
    from pathlib import Path

    configs = Path(root) / "configs"
    shutil.copytree(Path(__file__).resolve().parents[1] / "configs" / "solvers", configs / "solvers")
    for paper in papers:
        (configs / paper).mkdir()
        (configs / paper / f"{stem}.yaml").write_text(table.format(name=f"{paper}_{stem}", paper=paper))
    return configs


def brute_force_light(X, y, D, lambda0, lambda1):
    """The least light objective over every set of clauses of up to ``D`` of ``X``'s literals (all positives
    weighted 1): a dynamic program over the positives covered (``best[U]``: the least clause cost of a set whose
    coverage of the positives is ``U``; a clause is never worth taking twice), for up to 18 positives."""
    n = len(y)
    P = np.asarray(y).astype(bool)
    nP = int(P.sum())
    if nP > 18:
        raise ValueError(f"brute_force_light takes up to 18 positive rows, got {nP}")
    best = np.full(1 << nP, np.inf)
    best[0] = 0.0
    bits = 1 << np.arange(nP)
    states = np.arange(1 << nP)
    for c in all_clauses(X.shape[1], D):
        cov = X[:, list(c)].all(axis=1)
        cost = lambda0 + lambda1 * len(c) + cov[~P].sum() / n
        new = best.copy()
        np.minimum.at(new, states | int(bits[cov[P]].sum()), best + cost)
        best = new
    uncovered = nP - np.array([bin(u).count("1") for u in states])
    return float(np.min(best + uncovered / n))
