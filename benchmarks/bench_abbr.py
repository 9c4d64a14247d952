"""Rule List Search and Checklist Search on adult-sized data: seconds per phase of each instance.

Workload: the adult data (``INTERPRETOPT_DATA``), 30,000 rows sampled and a 70% train split
(21,000 rows, 14 features), ranked by a random forest's predicted probabilities (the
black box is fitted once and not timed). Instances, all at s = 0.1: Rule List Search with
L in {2, 3, 4} x M in {3, 5} and Checklist Search with K in {5, 7}, T = 500 iterations.

Printed per instance: the wall seconds of phase 1 (pool), phase 2 (filter) and phase 3
(annealing), the total, the process CPU seconds (all threads; close to the wall time of a
quiet machine when the load average exceeds the core count), and ``total / 2 s`` (the target: every instance under 2 s; the paper
reports up to 10 s). Reference measured in the same run: the annealing of the same instance
with the objective recomputed from scratch at every step (the tests' reference evaluation)
instead of the incremental update; ``scratch/incr`` is that ratio.

    python benchmarks/bench_abbr.py [--rows 30000] [--repeat 1] [--n-jobs 1]

``--grid DATASET [DATASET ...]``: the CPU cost of one split of the whole Table 2 grid
(s in {0.1, 0.2} x (L in {2, 3, 4} x M in {3, 5} rule lists + K in {5, 7} checklists) = 16
searches) as the ``abbr`` task runs it: the RF500 black box fitted once on half of the 70%
training split (30,000 rows at most), its scores kept, one pool per L and one condition table
shared by every s, M and K. Reference measured in the same run: the same 16 searches each
building its own pool / conditions and re-predicting the black box (the per-run cost without
sharing); ``unshared/shared`` is that ratio. Printed: CPU seconds per phase, and the CPU hours
of the full grid (100 splits) extrapolated from this split, with the wall time on 2 cores.

    python benchmarks/bench_abbr.py --grid adult heloc [--splits 100]

``--runner [N]``: the Table 2 config itself (configs/abbr/table2.yaml, every dataset) with N
repetitions (default 1) through the experiment runner, one process, into a temporary directory:
the runs' own CPU seconds per dataset (the black box's fit apart), extrapolated to the 100
splits of the full grid, against the target of 1 hour on 2 cores.

    python benchmarks/bench_abbr.py --runner 1
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def load(rows: int, seed: int = 0):
    from sklearn.ensemble import RandomForestClassifier

    from interpretopt.data import load_dataset, train_test_indices

    ds = load_dataset("adult").subsample(rows, seed)
    X, y = ds.numeric(), ds.y
    train, _ = train_test_indices(len(y), 0.3, seed)
    bb = RandomForestClassifier(n_estimators=100, min_samples_leaf=5, n_jobs=2, random_state=seed)
    bb.fit(X[train], y[train])
    return ds.X.iloc[train].reset_index(drop=True), bb.predict_proba(X[train])[:, 1]


def scratch_anneal_seconds(est, n_iter: int) -> tuple[float, float]:
    """Annealing of a fitted RuleListSearch's pool with full recomputation of abbr(l, s) per step."""
    from interpretopt.evaluation.abbr import abbr_at_support
    from interpretopt.heuristics import abbr_search as H
    from interpretopt.heuristics.annealing import anneal

    pool, ranks, s = est.pool_, est._train_ranks, est.s
    m = min(est.M, len(pool))
    order = H._initial_order(pool.counts, pool.abbr)
    init = tuple(int(i) for i in order[:m])
    k = len(pool)

    def value(idx):
        return abbr_at_support(pool.cover_matrix(list(idx)), ranks, s)

    def propose(idx, v, g):
        if k <= m:
            return None
        pos = int(g.integers(m))
        while True:
            r = int(g.integers(k))
            if r not in idx:
                break
        cand = idx[:pos] + (r,) + idx[pos + 1:]
        return cand, value(cand)

    t0 = time.perf_counter()
    res = anneal(init, value(init), propose, n_iter, np.random.default_rng(0),
                 accept=H.eq15_accept(0.03, n_iter, float(pool.n)))
    return time.perf_counter() - t0, res.best_value


def grid(datasets, splits: int) -> None:
    from sklearn.ensemble import RandomForestClassifier

    from interpretopt.data import load_dataset, train_test_indices
    from interpretopt.methods.abbr import ChecklistSearch, RuleListSearch

    opts = {"heloc": {"drop_all_missing": False}, "readmission": {"outcome": "within_30"}}
    print(f"Table 2 grid, one split per dataset, CPU seconds (process time); load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    total_hours = 0.0
    for name in datasets:
        ds = load_dataset(name, **opts.get(name, {}))
        if len(ds.y) > 30000:
            ds = ds.subsample(30000, 0)
        X, y = ds.numeric(), ds.y
        train, test = train_test_indices(len(y), 0.3, 0, stratify=y)
        perm = np.random.default_rng(0).permutation(train)
        bb_rows, search = np.sort(perm[: len(train) // 2]), np.sort(perm[len(train) // 2:])
        Xs = ds.X.iloc[search].reset_index(drop=True)
        c0 = time.process_time()
        bb = RandomForestClassifier(n_estimators=500, random_state=0, n_jobs=1).fit(X[bb_rows], y[bb_rows])
        c1 = time.process_time()
        sc, _sc_test = bb.predict_proba(X[search])[:, 1], bb.predict_proba(X[test])[:, 1]
        c2 = time.process_time()
        fit_s, predict_s = c1 - c0, c2 - c1
        shared = {"pool": 0.0, "search": 0.0}
        pools = {}
        for L in (2, 3, 4):
            t = time.process_time()
            pools[L] = RuleListSearch(L=L).build_pool(Xs, sc, random_state=L)
            shared["pool"] += time.process_time() - t
        t = time.process_time()
        table = ChecklistSearch().build_conditions(Xs, sc)
        shared["pool"] += time.process_time() - t
        unshared = 0.0
        for s in (0.1, 0.2):
            for L in (2, 3, 4):
                for M in (3, 5):
                    t = time.process_time()
                    RuleListSearch(s=s, L=L, M=M, random_state=0).fit(Xs, sc, pool=pools[L])
                    shared["search"] += time.process_time() - t
                    t = time.process_time()
                    bb.predict_proba(X[search]), bb.predict_proba(X[test])
                    RuleListSearch(s=s, L=L, M=M, random_state=0).fit(Xs, sc)
                    unshared += time.process_time() - t
            for K in (5, 7):
                t = time.process_time()
                ChecklistSearch(s=s, K=K, random_state=0).fit(Xs, sc, conditions=table)
                shared["search"] += time.process_time() - t
                t = time.process_time()
                bb.predict_proba(X[search]), bb.predict_proba(X[test])
                ChecklistSearch(s=s, K=K, random_state=0).fit(Xs, sc)
                unshared += time.process_time() - t
        per_split = fit_s + predict_s + shared["pool"] + shared["search"]
        ref = fit_s + unshared
        hours = per_split * splits / 3600.0
        total_hours += hours
        print(f"{name:<12} rows {len(search):>6}  black box fit {fit_s:7.1f}  predict {predict_s:5.1f}  pools "
              f"{shared['pool']:6.1f}  16 searches {shared['search']:6.1f}  = {per_split:7.1f} s/split  "
              f"(unshared {ref:7.1f}; unshared/shared {ref / per_split:4.2f}x)  x{splits} splits = {hours:5.2f} CPU h")
    print(f"grid total {total_hours:.2f} CPU h = {total_hours / 2:.2f} h wall on 2 cores "
          f"({'under' if total_hours / 2 < 1 else 'OVER'} the 1 h target)")


def runner(reps: int, splits: int) -> None:
    import tempfile
    from pathlib import Path

    from interpretopt.experiments import config as C
    from interpretopt.experiments.results import read_results
    from interpretopt.experiments.runner import run_experiment

    path = Path(__file__).resolve().parents[1] / "configs" / "abbr" / "table2.yaml"
    cfg = C.parse_config({**_raw(path), "repetitions": reps}, str(path))
    print(f"Table 2 through the runner, {reps} repetition(s), {len(cfg.datasets)} datasets, one process; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (CPU seconds: the runs' process time)")
    with tempfile.TemporaryDirectory() as tmp:
        c0 = time.process_time()
        run_experiment(cfg, out_dir=tmp, progress=False)
        total_cpu = time.process_time() - c0
        df = read_results(tmp)
    g = df.groupby("dataset").agg(runs=("cpu_time", "size"), cpu=("cpu_time", "sum"))
    # every run of a split reports the fit of the split's one black box: count it once per split
    g["blackbox"] = df.groupby(["dataset", "rep"])["blackbox_fit_seconds"].max().groupby("dataset").sum()
    g["search"] = g["cpu"] - g["blackbox"]
    for name, r in g.iterrows():
        print(f"{name:<14} {int(r.runs):>4} runs  CPU {r.cpu / reps:7.1f} s/split  (black-box fit {r.blackbox / reps:6.1f}, "
              f"the rest {r.search / reps:5.1f})")
    per_split = g["cpu"].sum() / reps
    hours = per_split * splits / 3600.0
    print(f"all datasets {per_split:.1f} CPU s per split (this process: {total_cpu / reps:.1f} s with imports and "
          f"loading); x{splits} splits = {hours:.2f} CPU h = {hours / 2:.2f} h on 2 idle cores = "
          f"{hours / 2:.2f}x the 1 h target; black-box fits {g['blackbox'].sum() / g['cpu'].sum():.0%} of it")


def _raw(path):
    import yaml

    with open(path) as fh:
        return yaml.safe_load(fh)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grid", nargs="+", metavar="DATASET", help="CPU cost of one split of the Table 2 grid")
    ap.add_argument("--runner", nargs="?", const=1, type=int, metavar="N",
                    help="the Table 2 config through the runner with N repetitions")
    ap.add_argument("--splits", type=int, default=100)
    ap.add_argument("--rows", type=int, default=30000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--n-jobs", type=int, default=1, help="threads of the rank forest (L >= 3)")
    ap.add_argument("--iters", type=int, default=500)
    args = ap.parse_args()
    if not os.environ.get("INTERPRETOPT_DATA"):
        raise SystemExit("set INTERPRETOPT_DATA to the dataset directory")
    if args.grid:
        grid(args.grid, args.splits)
        return
    if args.runner:
        runner(args.runner, args.splits)
        return

    from interpretopt.methods.abbr import ChecklistSearch, RuleListSearch

    X, scores = load(args.rows)
    print(f"adult: {X.shape[0]} train rows x {X.shape[1]} features; T = {args.iters}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    header = (f"{'instance':<18}{'pool':>8}{'filter':>8}{'anneal':>8}{'total':>8}{'cpu':>8}{'/2s':>7}"
              f"{'|R|':>7}{'|R~|':>6}{'abbr@s':>8}{'scratch/incr':>14}")
    print(header)
    print("-" * len(header))
    worst = 0.0
    configs = [("rule_list", L, M) for L in (2, 3, 4) for M in (3, 5)] + [("checklist", K, None) for K in (5, 7)]
    for kind, a, b in configs:
        for rep in range(args.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            if kind == "rule_list":
                est = RuleListSearch(s=0.1, L=a, M=b, n_iter=args.iters, random_state=rep, n_jobs=args.n_jobs)
                name = f"RLS L={a} M={b}"
            else:
                est = ChecklistSearch(s=0.1, K=a, n_iter=args.iters, random_state=rep)
                name = f"CLS K={a}"
            est.fit(X, scores)
            total, cpu = time.perf_counter() - t0, time.process_time() - c0
            tm = est.timings_
            pool_s = tm.get("pool", 0.0) + tm.get("materialize", 0.0)
            ratio = ""
            if kind == "rule_list":
                sec, _ = scratch_anneal_seconds(est, args.iters)
                ratio = f"{sec / max(tm['anneal'], 1e-9):.1f}x"
            worst = max(worst, total)
            print(f"{name:<18}{pool_s:>8.3f}{tm['filter']:>8.3f}{tm['anneal']:>8.3f}{total:>8.3f}{cpu:>8.3f}"
                  f"{total / 2.0:>7.2f}{est.n_pool_:>7}{est.n_filtered_:>6}{est.abbr_:>8.3f}{ratio:>14}")
    print(f"slowest instance {worst:.3f} s = {worst / 2.0:.2f} x the 2 s target "
          f"({'met' if worst < 2.0 else 'NOT met'} on this run)")


if __name__ == "__main__":
    main()
