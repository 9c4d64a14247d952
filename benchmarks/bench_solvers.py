"""Every optimization problem the project solves, by every backend available here, against HiGHS.

Problems (the role each fills, :data:`SOLVER_ROLES` of its method):

=========================  ===========  =================================================================
problem                    role         instance
=========================  ===========  =================================================================
BRCG master LP             master       master LP (1)-(4), constraint form, random clause covers; with duals
BRCG pricing MILP          pricing      aggregated pricing MILP on random binary data and random duals
BRCG integer master        integer      the master with ``w`` binary
ABBR baseline MILP         baseline     one seed sample's globally consistent rule (Section 5.2)
ABBR certificate MILP      certificate  the rule-list MILP over a random rule pool (formulations.abbr_certify)
MTRE-PAN node LP           node         the L1-norm SVM LP of one node (primal), random separable-ish data
=========================  ===========  =================================================================

Each at two sizes (``small``, ``large``; ``tiny`` for the tests). A cell is the backend's objective against HiGHS'
(``ok``: within ``1e-6`` relative, else the relative difference) and its CPU time divided by
HiGHS' (process CPU plus the CPU of solver subprocesses, such as ``cbc`` and ``glpsol``;
translation included, model building not). A backend that cannot fill a role is refused by
the same check that refuses it when a config loads (:func:`interpretopt.solvers.assign_solvers`),
and the cell says ``refused``; the reasons are printed under the matrix. The master LP is
solved once, cold (column generation re-solves it on an incremental model, which only
``highs``, ``highs_direct`` and ``ortools_glop`` hold).

Usage::

    python benchmarks/bench_solvers.py                       # both sizes, every available backend
    python benchmarks/bench_solvers.py --sizes small --backends scipy,cbc
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

REFERENCE = "highs"
SIZES = {"tiny": 0.2, "small": 1, "large": 3}  # tiny: for the tests


@dataclass(frozen=True)
class Problem:
    name: str
    method: str
    role: str
    build: Callable  # (scale: int) -> LinearProgram or a Pyomo model (rebuilt for every backend)
    duals: bool = False


def _rng(tag: str, scale: int) -> np.random.Generator:
    return np.random.default_rng([sum(map(ord, tag)), int(round(10 * scale))])


def _brcg_master(scale: int, relax: bool):
    from interpretopt.formulations import brcg as F

    rng = _rng("master", scale)
    n, K = int(1500 * scale), int(150 * scale)
    cover = rng.random((n, K)) < 0.1
    y = (rng.random(n) < 0.4).astype(np.int8)
    spec = F.MasterSpec(form="constraint", C=12.0, complexity="literals+1", n_samples=n)
    return F.master_lp(cover, y, rng.integers(1, 5, K), spec, relax=relax)


def _brcg_pricing(scale: int):
    from interpretopt.formulations import brcg as F

    rng = _rng("pricing", scale)
    n, d = int(150 * scale), int(16 + 4 * scale)
    X = rng.random((n, d)) < 0.5
    y = (X[:, 0] & X[:, 1] | (rng.random(n) < 0.1)).astype(np.int8)
    r = np.where(y == 1, -rng.random(n), rng.random(n) * 0.5)  # dual-like weights: positives pay to stay uncovered
    return F.pricing_lp(X, y, r, a=0.01, b=0.005, max_literals=3)


def _abbr_baseline(scale: int):
    from interpretopt.formulations import abbr_baseline as F

    rng = _rng("baseline", scale)
    n, d = int(200 * scale), 6
    X = rng.normal(size=(n, d))
    positive = X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0.3
    thresholds = [np.quantile(X[:, j], np.arange(1, 10) / 10) for j in range(d)]
    x0 = X[np.flatnonzero(positive)[0]]
    data = F.prepare(X, positive, x0, np.zeros(d, bool), thresholds, k=3, min_support=0.05,
                     support_base=int(positive.sum()))
    return F.build(data)


def _abbr_certificate(scale: int):
    from interpretopt.formulations import abbr_certify as F

    rng = _rng("certificate", scale)
    N, R = int(300 * scale), 10
    covers = rng.random((N, R)) < rng.uniform(0.05, 0.3, R)
    ranks = rng.permutation(N).astype(float)
    return F.build(F.patterns(covers, ranks, s=0.2, M=3))


def _mtrepan_node(scale: int):
    from interpretopt.formulations import svm_lp

    rng = _rng("node", scale)
    n, d = int(1500 * scale), 5
    X = rng.normal(size=(n, d))
    y = (X[:, 0] - 0.7 * X[:, 1] + 0.4 * rng.normal(size=n) > 0).astype(int)
    return svm_lp.primal_lp(X, y, C=10.0)


PROBLEMS = (
    Problem("BRCG master LP", "brcg", "master", lambda s: _brcg_master(s, True), duals=True),
    Problem("BRCG pricing MILP", "brcg", "pricing", _brcg_pricing),
    Problem("BRCG integer master", "brcg", "integer", lambda s: _brcg_master(s, False)),
    Problem("ABBR baseline MILP", "abbr", "baseline", _abbr_baseline),
    Problem("ABBR certificate MILP", "abbr", "certificate", _abbr_certificate),
    Problem("MTRE-PAN node LP", "mtrepan", "node", _mtrepan_node),
)


def method_roles(method: str) -> dict:
    """The ``SOLVER_ROLES`` a method declares (read from the method, never restated here)."""
    import importlib

    return importlib.import_module(f"interpretopt.methods.{method}").SOLVER_ROLES


def _cpu() -> float:
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ch.ru_utime + ch.ru_stime


def refusal(problem: Problem, backend: str) -> str | None:
    """The load-time check's message when ``backend`` cannot fill the problem's role, else None."""
    from interpretopt.exceptions import ParameterError
    from interpretopt.solvers import assign_solvers

    role = method_roles(problem.method)[problem.role]
    try:
        assign_solvers({problem.role: backend}, {problem.role: role}, owner=f"{problem.method} ({problem.role})")
    except ParameterError as exc:
        return str(exc)
    return None


def solve_once(problem: Problem, backend: str, scale: int, settings):
    """``(SolveResult, CPU seconds)`` of one solve of a freshly built instance."""
    from interpretopt._lp import LinearProgram
    from interpretopt.solvers import solve, solve_lp

    inst = problem.build(scale)
    c0 = _cpu()
    if isinstance(inst, LinearProgram):
        res = solve_lp(inst, backend, settings, duals=problem.duals)
    else:
        res = solve(inst, backend, settings)
    return res, _cpu() - c0


def _cell(res, cpu: float, ref, ref_cpu: float, tol: float) -> str:
    if not res.has_solution:
        return f"{res.status}"
    ratio = f"{cpu / max(ref_cpu, 1e-6):.1f}x"
    diff = abs(res.objective - ref.objective) / max(1.0, abs(ref.objective))
    if diff <= tol and str(res.status) == "optimal":
        return f"ok {ratio}"
    tag = "" if str(res.status) == "optimal" else f" {res.status}"
    return f"diff {diff:.1e}{tag} {ratio}"


def run(backends: list[str], sizes: list[str], time_limit: float, tol: float = 1e-6, out=print) -> dict:
    """Solve every problem at every size by every backend; print the matrix; return the cells."""
    from interpretopt.solvers import SolveSettings

    settings = SolveSettings(time_limit=time_limit, mip_gap=0.0, threads=1, seed=0)
    cells: dict = {}
    reasons: dict = {}
    for size in sizes:
        for p in PROBLEMS:
            ref, ref_cpu = solve_once(p, REFERENCE, SIZES[size], settings)
            ref.raise_for_status()
            row = {"objective": ref.objective, REFERENCE: f"{ref_cpu:.2f} s"
                   + ("" if str(ref.status) == "optimal" else f" ({ref.status}: raise --time-limit)")}
            for b in backends:
                if b == REFERENCE:
                    continue
                if refusal(p, b) is not None:
                    row[b] = "refused"
                    reasons.setdefault(b, {}).setdefault(_missing(p, b), []).append(p.role)
                    continue
                try:
                    res, cpu = solve_once(p, b, SIZES[size], settings)
                    row[b] = _cell(res, cpu, ref, ref_cpu, tol)
                except Exception as exc:  # a backend's failure is a cell, not the end of the benchmark
                    row[b] = f"error: {type(exc).__name__}"
                    reasons.setdefault(b, {}).setdefault(f"error: {exc}"[:160], []).append(p.role)
            cells[(p.name, size)] = row
    _print(cells, backends, out)
    if reasons:
        out("\nrefused at load time (role: the capabilities the backend lacks), and errors:")
        for b, whys in reasons.items():
            out(f"- {b}: " + "; ".join(f"{', '.join(dict.fromkeys(roles))} ({why})" for why, roles in whys.items()))
    return cells


def _missing(problem: Problem, backend: str) -> str:
    """The capabilities of the problem's role that ``backend`` lacks, in words (for the note under the matrix)."""
    from interpretopt._validation import _CAPABILITY_WORDS, solver_capabilities

    caps = solver_capabilities(backend) or {}
    needs = method_roles(problem.method)[problem.role].needs
    return ", ".join(_CAPABILITY_WORDS.get(k, k) for k in needs if not caps.get(k)) or "unknown solver"


def _print(cells: dict, backends: list[str], out) -> None:
    cols = [REFERENCE] + [b for b in backends if b != REFERENCE]
    head = ["problem", "size", "objective"] + cols
    out("| " + " | ".join(head) + " |")
    out("|" + "---|" * len(head))
    for (name, size), row in cells.items():
        vals = [name, size, f"{row['objective']:.6g}"] + [row.get(c, "") for c in cols]
        out("| " + " | ".join(vals) + " |")


def main(argv=None) -> int:
    from interpretopt.solvers import available_solvers

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="small,large", help="comma-separated: tiny, small, large")
    ap.add_argument("--backends", default="", help="comma-separated backends (default: every available one)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve (a safety net)")
    args = ap.parse_args(argv)
    sizes = [s for s in args.sizes.split(",") if s]
    bad = [s for s in sizes if s not in SIZES]
    if bad:
        print(f"unknown size(s) {', '.join(bad)}; valid: {', '.join(SIZES)}", file=sys.stderr)
        return 2
    here = available_solvers()
    backends = [b for b in args.backends.split(",") if b] or here
    missing = [b for b in backends if b not in here]
    if missing:
        print(f"not available here: {', '.join(missing)}; available: {', '.join(here)}", file=sys.stderr)
        return 2
    c0 = _cpu()
    print(f"reference {REFERENCE}; cells: objective agreement (ok = within 1e-6 relative) and CPU time / "
          f"{REFERENCE}'s; sizes {', '.join(sizes)}\n")
    run(backends, sizes, args.time_limit)
    print(f"\ntotal CPU {_cpu() - c0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
