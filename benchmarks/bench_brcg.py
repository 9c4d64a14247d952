"""BRCG speed and quality against the AIX360 ``BooleanRuleCG`` anchor, measured in one run.

Problems, the same binarized features (``QuantileBinarizer(n_thresholds=9, negations=True)``,
BRCG's default binarizer) and the same ``lambda0``/``lambda1`` for both implementations (the
light form, AIX360's beam parameters K=10, D=10, B=5):

* ``bc``: breast cancer (569 rows), labels of a RandomForest (surrogate);
* ``synthetic``: 20,000 rows, 20 Gaussian features, a DNF target with 5 % label noise;
* ``adult``: the adult data (48,842 rows, ``INTERPRETOPT_DATA``), labels of a RandomForest
  (surrogate); not run against the anchor by default.

Printed per problem: our fit's wall and CPU time and AIX360's, their ratio (targets from
issue 11: bc <= 1/20, synthetic <= 1/50 of AIX360's time run to convergence), each master
objective (ours must be no worse), the rule counts, our time split into building, LP
solves, pricing, bounds and the integer master, the share of the fit spent in HiGHS solves
(LP + integer; target >= 0.6), and per-backend times of the same fit (master LP through
HiGHS and OR-Tools GLOP; integer master through HiGHS, OR-Tools SCIP and CBC when
installed). ``--scaling`` fits synthetic problems of 5k..200k rows and prints the exponent
of fit CPU time (and of LP time) in ``n`` by least squares on the log-log points.

The anchor runs in its own interpreter (AIX360 pins old dependencies), e.g.::

    python -m venv /path/to/aixenv
    /path/to/aixenv/bin/pip install --no-deps aix360
    /path/to/aixenv/bin/pip install cvxpy ecos pandas scikit-learn matplotlib
    python benchmarks/bench_brcg.py --anchor-python /path/to/aixenv/bin/python

(or set ``INTERPRETOPT_AIX360_PYTHON``). Without it the script says "anchor not available"
and reports our own figures only. ``--time-max`` is AIX360's wall-clock limit: by default it
is lifted (1e9 s) so that the anchor runs to convergence, as issue 11 asks (AIX360's own
default is 100 s, which makes its result depend on the machine's load); ``--quick`` uses
5,000 synthetic rows. Our fit runs ``--repeat`` times (default 3; the same result each time)
and the median CPU time is reported; the anchor, which takes 20-200 times longer, runs
``--anchor-repeat`` times (default 1; its median is used).

``--exact D`` also runs exact column generation (``pricing="beam+bnb"``, the branch-and-bound
pricer) with ``max_literals=D`` and prints whether it is ``proven_``, its CPU time and the
number of exact pricing calls (``--exact-limit`` bounds each call).

``--stabilisation bc,adult,synthetic`` compares the dual policies of
:data:`interpretopt.methods._colgen.DUAL_POLICIES` (no smoothing, Wentges, Neame) at the
estimator's defaults: LP solves, pricing calls, CPU seconds and the objective (the synthetic
problem has 100,000 rows here).

``--defaults all --seeds 0,1`` measures the default fit on banknote, compas, magic, wine_white
(quality >= 6) and eye_movements (label 1 against the rest), stratified 70/30 splits (or the datasets
named, e.g. ``breast_cancer``, where the issue's gap below 0.10 is read), against the fit without its
bound step (``bound_nodes=None``), the beam alone (``exact_phase_literals=None``), the beam at 3 literals
and exact pricing at 3 literals: objective, test accuracy, literals, CPU seconds, the bound and the
clause space it holds over, and the bound step's nodes and pool. Configurations the installed package lacks are skipped, so the same script measures
an older checkout (``PYTHONPATH=/path/to/checkout``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ANCHOR_SCRIPT = r"""
import json, sys, time, warnings
import numpy as np, pandas as pd
warnings.filterwarnings("ignore")
from aix360.algorithms.rbm import BooleanRuleCG
data = np.load(sys.argv[1])
Xb, y = data["Xb"], data["y"]
lambda0, lambda1, time_max = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
cols = pd.MultiIndex.from_tuples([(f"l{j}", "", "") for j in range(Xb.shape[1])],
                                 names=["feature", "operation", "value"])
X = pd.DataFrame(Xb.astype(int), columns=cols)
m = BooleanRuleCG(lambda0=lambda0, lambda1=lambda1, timeMax=time_max, silent=True)
t0, c0 = time.perf_counter(), time.process_time()
m.fit(X, y)
fit_time, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
sel = np.flatnonzero(np.asarray(m.w) > 0.5)
clauses = [np.flatnonzero(m.z.iloc[:, k].values).tolist() for k in sel]
print(json.dumps({"fit_time": fit_time, "fit_cpu": fit_cpu, "clauses": clauses, "iterations": int(m.it),
                  "n_columns": int(m.z.shape[1])}))
"""


def light_objective(Xb: np.ndarray, y: np.ndarray, clauses, lambda0: float, lambda1: float) -> float:
    """Light-form master objective of a selection (the empty clause, which AIX360 allows, covers all)."""
    n = len(y)
    yb = y.astype(bool)
    cov = np.stack([Xb[:, c].all(axis=1) if len(c) else np.ones(n, bool) for c in clauses], axis=1) \
        if clauses else np.zeros((n, 0), bool)
    fn = int((yb & ~cov.any(axis=1)).sum())
    fp = int(cov[~yb].sum())
    return (fn + fp) / n + sum(lambda0 + lambda1 * len(c) for c in clauses)


def problem_bc():
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    X, y = load_breast_cancer(return_X_y=True)
    rf = RandomForestClassifier(n_estimators=100, random_state=0).fit(X, y)
    return X, rf.predict(X).astype(np.int8)


def problem_synthetic(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 20))
    y = ((X[:, 0] > 0.3) & (X[:, 1] < 0.5)) | ((X[:, 2] > 0.8) & (X[:, 3] > -0.5)) | (X[:, 4] < -1.2)
    y = y ^ (rng.random(n) < 0.05)
    return X, y.astype(np.int8)


def problem_adult():
    from sklearn.ensemble import RandomForestClassifier

    from interpretopt.data import load_dataset

    ds = load_dataset("adult")
    Xn = np.nan_to_num(ds.numeric(), nan=-1.0)
    rf = RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1).fit(Xn, ds.y)
    return ds.X, rf.predict(Xn).astype(np.int8)


TARGETS = {"bc": 1 / 20, "synthetic": 1 / 50}


def binarize(X):
    from interpretopt.data import QuantileBinarizer

    qb = QuantileBinarizer(n_thresholds=9, negations=True).fit(X)
    return np.asarray(qb.transform(X)).astype(bool)


def fit_ours(Xb, y, lambda0, lambda1, **kw):
    from interpretopt.methods.brcg import BRCGClassifier

    # AIX360's beam alone (no exact phase), so that both implementations run the same search
    kw = {"exact_phase_literals": None, **kw}
    est = BRCGClassifier(binarizer="passthrough", form="light", lambda0=lambda0, lambda1=lambda1, pricing="beam",
                         beam_width=5, columns_per_iter=10, max_literals=10, max_iter=100, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        # the binarized matrix as it comes from a binarizer (boolean); an int8 copy costs the
        # fit's input validation about 75 ms more on adult (a float table of 262 columns)
        Xb = np.asarray(Xb, dtype=bool)
        t0, c0 = time.perf_counter(), time.process_time()
        est.fit(Xb, y)
        t = time.perf_counter() - t0
        est.bench_cpu_ = time.process_time() - c0
    return est, t


def run_anchor(python: str | None, Xb, y, lambda0, lambda1, time_max):
    if not python:
        return None, "anchor not available (give --anchor-python or set INTERPRETOPT_AIX360_PYTHON)"
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data.npz"
        np.savez(data, Xb=Xb.astype(np.int8), y=y)
        script = Path(tmp) / "anchor.py"
        script.write_text(ANCHOR_SCRIPT)
        try:
            out = subprocess.run([python, str(script), str(data), str(lambda0), str(lambda1), str(time_max)],
                                 capture_output=True, text=True,
                                 timeout=None if time_max >= 1e6 else time_max * 20 + 600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, f"anchor not available ({exc})"
        if out.returncode != 0:
            last = (out.stderr.strip().splitlines() or ["?"])[-1]
            return None, f"anchor not available ({last})"
        return json.loads(out.stdout.strip().splitlines()[-1]), ""


def run_exact(Xb, y, l0: float, l1: float, depth: int, limit: float) -> None:
    """Exact column generation (``pricing="beam+bnb"``) at ``max_literals=depth``: proven, CPU, calls."""
    from interpretopt.methods.brcg import BRCGClassifier

    ex = BRCGClassifier(binarizer="passthrough", form="light", lambda0=l0, lambda1=l1, pricing="beam+bnb",
                        max_literals=depth, max_iter=10_000, milp_time_limit=limit)
    c0 = time.process_time()
    ex.fit(Xb.astype(np.int8), y)
    cpu = time.process_time() - c0
    calls = sum(1 for h in ex.history_ if str(h.get("pricing", "")).endswith("bnb"))
    if not ex.proven_:
        print(f"exact    NOT proven within {limit:g} s per exact pricing call "
              f"(stop {ex.stop_reason_}): the bound below is what is proven")
    print(f"exact    max_literals={depth} (beam+bnb): proven {ex.proven_}  stop {ex.stop_reason_}  "
          f"cpu {cpu:.2f} s  exact pricing calls {calls}  LP solves {len(ex.history_)}  "
          f"restricted LP {ex.restricted_lp_:.6f}  lower bound {ex.lower_bound_:.6f}  "
          f"objective {ex.objective_:.6f}  status {ex.status_}")


def run_backends(Xb, y, l0: float, l1: float, solvers) -> None:
    """The same fit through each installed master-LP and integer-master backend."""
    for lp in ("highs", "ortools_glop"):
        if lp not in solvers:
            continue
        e, t = fit_ours(Xb, y, l0, l1, solver=lp)
        print(f"backend  master LP {lp:13s} fit {t:7.2f} s  LP {e.timings_['lp']:.2f} s  "
              f"restricted LP {e.restricted_lp_:.6f}  objective {e.objective_:.6f}")
    for mip in ("highs", "ortools_scip", "cbc"):
        if mip not in solvers:
            continue
        e, t = fit_ours(Xb, y, l0, l1, mip_solver=mip)
        print(f"backend  integer   {mip:13s} fit {t:7.2f} s  integer master "
              f"{e.timings_['integer']:.2f} s  objective {e.objective_:.6f}  "
              f"status {e.status_}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--anchor-python", default=os.environ.get("INTERPRETOPT_AIX360_PYTHON"))
    ap.add_argument("--time-max", type=float, default=1e9, help="AIX360 timeMax (seconds; default: lifted)")
    ap.add_argument("--exact", type=int, default=0, metavar="D",
                    help="also run exact CG (pricing='beam+bnb') with max_literals=D")
    ap.add_argument("--exact-limit", type=float, default=600.0, help="limit of one exact pricing call (s)")
    ap.add_argument("--lambda0", type=float, default=0.001)
    ap.add_argument("--lambda1", type=float, default=0.001)
    ap.add_argument("--quick", action="store_true", help="5,000 synthetic rows instead of 20,000")
    ap.add_argument("--problems", default="bc,synthetic", help="comma-separated: bc, synthetic, adult")
    ap.add_argument("--scaling", action="store_true",
                    help="also fit synthetic problems of 5k..200k rows and print the exponent of fit time in n")
    ap.add_argument("--no-backends", action="store_true", help="skip the per-backend timings")
    ap.add_argument("--repeat", type=int, default=3, help="fits of ours per problem; the median CPU time is reported")
    ap.add_argument("--anchor-repeat", type=int, default=1,
                    help="AIX360 runs per problem; the median CPU time is used (the host's speed drifts)")
    ap.add_argument("--stabilisation", default="", metavar="PROBLEMS",
                    help="only compare the dual policies (iterations, pricing calls, CPU) on these comma-separated "
                         "problems (bc, adult, synthetic: 100,000 rows)")
    ap.add_argument("--defaults", default="", metavar="DATASETS",
                    help="only measure the default fit against beam-only, beam at 3 literals and exact pricing at 3 "
                         f"literals on these comma-separated datasets ('all': {', '.join(DEFAULTS_DATASETS)})")
    ap.add_argument("--seeds", default="0", help="split seeds of --defaults (comma-separated)")
    ap.add_argument("--configs", default=",".join(QUALITY_CONFIGS), help="configurations of --defaults")
    args = ap.parse_args(argv)
    if args.defaults:
        names = DEFAULTS_DATASETS if args.defaults == "all" else [d for d in args.defaults.split(",") if d]
        defaults_quality(names, [int(x) for x in args.seeds.split(",")], [c for c in args.configs.split(",") if c])
        return 0
    if args.stabilisation:
        stabilisation([p for p in args.stabilisation.split(",") if p], args.lambda0, args.lambda1)
        return 0
    from interpretopt.solvers import available_solvers

    solvers = set(available_solvers())
    l0, l1 = args.lambda0, args.lambda1
    # warm up imports (Pyomo, HiGHS) so they are not counted in the first fit
    fit_ours(np.eye(6, dtype=bool)[np.arange(12) % 6], (np.arange(12) % 2).astype(np.int8), l0, l1)
    problems = {"bc": problem_bc, "synthetic": lambda: problem_synthetic(5000 if args.quick else 20000),
                "adult": problem_adult}
    for name in [p for p in args.problems.split(",") if p]:
        X, y = problems[name]()
        Xb = binarize(X)
        print(f"\n== {name}: {Xb.shape[0]} rows, {Xb.shape[1]} binarized literals, {int(y.sum())} positives, "
              f"lambda0={l0}, lambda1={l1}")
        # the median of --repeat fits (same result each time; CPU time varies with the load)
        fits = sorted((fit_ours(Xb, y, l0, l1) for _ in range(max(1, args.repeat))), key=lambda f: f[0].bench_cpu_)
        est, t_ours = fits[len(fits) // 2]
        ours_obj = light_objective(Xb, y, est.clauses_, l0, l1)
        tm = est.timings_
        loop = tm["build"] + tm["lp"] + tm["pricing"]
        print(f"ours     fit {t_ours:8.2f} s (cpu {est.bench_cpu_:.2f} s)  objective {ours_obj:.6f}  rules {len(est.clauses_):3d}  "
              f"iterations {est.n_iter_}  columns {est.n_columns_}  restricted LP {est.restricted_lp_:.6f}  lower bound {est.lower_bound_:.6f}  "
              f"gap {est.gap_:.4f}  stop {est.stop_reason_}")
        solves = tm["lp"] + tm["integer"]
        print(f"         building {tm['build']:.2f} s ({100 * tm['build'] / max(loop, 1e-9):.1f} % of the CG loop "
              f"{loop:.2f} s; target < 25 %), LP {tm['lp']:.2f} s, pricing {tm['pricing']:.2f} s, "
              f"bounds {tm['bound']:.2f} s, integer master {tm['integer']:.2f} s; LP + integer solves / fit = "
              f"{solves / max(tm['total'], 1e-9):.2f} of the column-generation call, "
              f"{solves / max(t_ours, 1e-9):.2f} of the whole fit (target >= 0.6)")
        if args.exact:
            run_exact(Xb, y, l0, l1, args.exact, args.exact_limit)
        variants = [("ours", t_ours, ours_obj, est.bench_cpu_)]
        if "ortools_scip" in solvers:
            e2, t2 = fit_ours(Xb, y, l0, l1, mip_solver="ortools_scip")
            o2 = light_objective(Xb, y, e2.clauses_, l0, l1)
            print(f"ours+scip fit {t2:7.2f} s  objective {o2:.6f}  rules {len(e2.clauses_):3d}  "
                  f"(integer master by OR-Tools SCIP: {e2.timings_['integer']:.2f} s)")
            variants.append(("ours+scip", t2, o2, e2.bench_cpu_))
        runs = [run_anchor(args.anchor_python, Xb, y, l0, l1, args.time_max) for _ in range(max(1, args.anchor_repeat))]
        done = sorted((r for r, _ in runs if r is not None), key=lambda r: r.get("fit_cpu", r["fit_time"]))
        res, why = (done[len(done) // 2], None) if done else (None, runs[0][1])
        if len(done) > 1:
            print(f"AIX360   {len(done)} runs, CPU s: " + ", ".join(f"{r.get('fit_cpu', float('nan')):.2f}" for r in done)
                  + " (the median is used)")
        if res is None:
            print(f"AIX360   {why}")
        else:
            a_obj = light_objective(Xb, y, res["clauses"], l0, l1)
            print(f"AIX360   fit {res['fit_time']:8.2f} s (cpu {res.get('fit_cpu', float('nan')):.2f} s)  objective {a_obj:.6f}  rules {len(res['clauses']):3d}  "
                  f"iterations {res['iterations']}  columns {res['n_columns']}")
            target = TARGETS.get(name)
            for label, t, obj, cpu in variants:
                # CPU seconds decide (wall-clock time depends on the machine's load); wall shown beside
                ratio = cpu / res["fit_cpu"] if res.get("fit_cpu") else t / res["fit_time"]
                verdict = "no target" if target is None else f"target <= 1/{round(1 / target)}: " + (
                    "met" if ratio <= target else "NOT met")
                print(f"ratio    {label} / AIX360 CPU time = {ratio:.4f} ({verdict}); wall ratio "
                      f"{t / res['fit_time']:.4f}; "
                      f"objective {label} - AIX360 = {obj - a_obj:+.6f} "
                      f"({'no worse' if obj <= a_obj + 1e-9 else 'WORSE'})")
        if not args.no_backends:
            run_backends(Xb, y, l0, l1, solvers)
    if args.scaling:
        scaling(l0, l1)
    return 0


DEFAULTS_DATASETS = ("banknote", "compas", "magic", "wine_white", "eye_movements")


def quality_problem(name: str, seed: int):
    """A dataset of the defaults benchmark as a stratified 70/30 split (seed ``seed``): wine_white's label is
    quality >= 6, eye_movements' is label == 1 (its largest class) against the other two."""
    from sklearn.model_selection import train_test_split

    from interpretopt.data import load_dataset

    ds = load_dataset(name)
    y = np.asarray(ds.y)
    if name == "wine_white":
        y = (y >= 6).astype(int)
    elif name == "eye_movements":
        y = (y == 1).astype(int)
    return train_test_split(ds.X, y, test_size=0.3, stratify=y, random_state=seed)


QUALITY_CONFIGS = {
    "default": {},
    "no bound": {"bound_nodes": None},
    "beam only": {"exact_phase_literals": None},
    "beam D3": {"max_literals": 3, "exact_phase_literals": None},
    "exact D3": {"pricing": "beam+bnb", "max_literals": 3, "max_iter": 1000, "pricing_node_limit": 200_000},
}


def defaults_quality(names, seeds, configs) -> None:
    """Objective, test accuracy, literals, CPU and the bound of each configuration of :data:`QUALITY_CONFIGS`
    (a configuration the installed package does not know is skipped, so the script also measures an older
    checkout)."""
    from interpretopt.methods.brcg import BRCGClassifier

    print("\n== defaults: dataset, seed, configuration, objective, test accuracy, literals, CPU s, bound, gap, stop")
    for name in names:
        for seed in seeds:
            Xtr, Xte, ytr, yte = quality_problem(name, seed)
            for label in configs:
                try:
                    est = BRCGClassifier(**QUALITY_CONFIGS[label])
                except TypeError:
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    c0 = time.process_time()
                    est.fit(Xtr, ytr)
                    cpu = time.process_time() - c0
                acc = float(np.mean(est.predict(Xte) == yte))
                space = getattr(est, "bound_space_", f"clauses of up to {est.max_literals} literals")
                step = getattr(est, "bound_search_", None)
                step = "" if step is None else (f"  bound step: {step.work['nodes']} nodes, pool {step.pool_size}, "
                                                f"{'complete' if step.complete else 'stopped by ' + step.stopped_by}")
                print(f"quality  {name:13s} {seed} {label:10s} objective {est.objective_:.5f}  test acc {acc:.4f}  "
                      f"literals {est.rules_.n_conditions:3d}  cpu {cpu:7.1f} s  lower bound {est.lower_bound_:.5f} "
                      f"over {space}  gap {est.gap_:.3f}  proven {est.proven_}  stop {est.stop_reason_}{step}",
                      flush=True)


def stabilisation(names, l0: float, l1: float, synthetic_rows: int = 100_000) -> None:
    """Iterations, pricing calls and CPU of the default fit with each dual policy (``DUAL_POLICIES``)."""
    from interpretopt.methods._colgen import DUAL_POLICIES

    problems = {"bc": problem_bc, "adult": problem_adult, "synthetic": lambda: problem_synthetic(synthetic_rows)}
    fit_ours(np.eye(6, dtype=bool)[np.arange(12) % 6], (np.arange(12) % 2).astype(np.int8), l0, l1)  # warm-up
    print("\n== dual stabilisation: problem, policy, LP solves, pricing calls, CPU s, objective, restricted LP")
    for name in names:
        X, y = problems[name]()
        Xb = binarize(X)
        for policy in DUAL_POLICIES:
            est, _ = fit_ours(Xb, y, l0, l1, dual_policy=policy)
            print(f"stab     {name:9s} {policy:8s} iterations {est.n_iter_:4d}  pricing calls "
                  f"{est.work_['pricing_calls']:4d}  cpu {est.bench_cpu_:7.2f} s  objective {est.objective_:.6f}  "
                  f"restricted LP {est.restricted_lp_:.6f}", flush=True)


def scaling(l0: float, l1: float, sizes=(5000, 10000, 20000, 50000, 100000, 200000)) -> None:
    """Fit CPU time, LP time and the solve share against n on the synthetic problem; log-log exponents."""
    print("\n== scaling (synthetic): n, fit cpu, fit wall, LP, integer, solves / fit, iterations, columns")
    pts = []
    for n in sizes:
        X, y = problem_synthetic(n)
        Xb = binarize(X)
        est, t = fit_ours(Xb, y, l0, l1)
        tm = est.timings_
        share = (tm["lp"] + tm["integer"]) / max(t, 1e-9)
        pts.append((n, est.bench_cpu_, tm["lp"]))
        print(f"scaling  n={n:7d}  cpu {est.bench_cpu_:8.2f} s  wall {t:8.2f} s  LP {tm['lp']:7.2f} s  "
              f"integer {tm['integer']:6.2f} s  solves/fit {share:.2f}  iterations {est.n_iter_}  "
              f"columns {est.n_columns_}")
    ln = np.log([p[0] for p in pts])
    for label, k in (("fit cpu", 1), ("LP", 2)):
        v = np.array([p[k] for p in pts])
        ok = v > 0
        if ok.sum() >= 2:
            slope = np.polyfit(ln[ok], np.log(v[ok]), 1)[0]
            print(f"scaling  exponent of {label} time in n ({sizes[0]}..{sizes[-1]}): {slope:.2f}")


if __name__ == "__main__":
    sys.exit(main())
