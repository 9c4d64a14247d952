"""CORELS (the CRL baselines' rule-list learner) against the reference package, CPU and memory.

Settings (the issue's nine): german, 7-quantile one-hot items and their complements, pycorels'
miner (``mine_rules(..., scope="all")``, support 0.05), policies curious / lower_bound / bfs /
objective at ``(c, n_iter, max_card) = (0.01, 10^6, 1)`` (a certified optimum) and
``(0.0, 100_000, 2)`` (the CRL authors' settings at a budget); and compas, curious,
``(0.0, 10^6, 2)`` (``--skip-large`` leaves it out).

Each fit runs in its own process (so that its peak memory is its own): printed per setting are
our CPU seconds (``time.process_time`` of the search), our peak resident memory above the
process's memory before the search (MB), the objective, the list length and status; and, when
the reference ``corels`` package (pycorels, GPL; never a dependency) imports, the same for it
on the same binary features, the ratio of CPU times and whether the objectives agree. Without
it the script says "reference not available" and prints our figures only; to install it (its
sdist needs a patch and a fresh Cython translation on Python >= 3.11), run
``bash benchmarks/install_pycorels.sh``.

Usage::

    INTERPRETOPT_DATA=/path/to/datasets python benchmarks/bench_corels.py [--skip-large] [--policies curious bfs]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time

import numpy as np

SETTINGS = [("german", c, nodes, card, policy)
            for c, nodes, card in ((0.01, 10**6, 1), (0.0, 100_000, 2))
            for policy in ("curious", "lower_bound", "bfs", "objective")]
LARGE = [("compas", 0.0, 10**6, 2, "curious")]


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20


def _items(name: str):
    from interpretopt.data import load_dataset
    from interpretopt.heuristics.mining import QuantileOneHotBinarizer

    ds = load_dataset(name)
    y = (np.asarray(ds.y) == np.unique(ds.y)[-1]).astype(np.int8)
    B = QuantileOneHotBinarizer(n_quantiles=7, feature_types=getattr(ds, "feature_types", None)).fit_transform(ds.X)
    return np.asarray(B, dtype=np.uint8), y


def _fit(which: str, name: str, c: float, nodes: int, card: int, policy: str, out) -> None:
    """One fit in this (child) process; puts (cpu, peak MB above the start, objective, rules, status)."""
    B, y = _items(name)
    if which == "ours":
        from interpretopt.heuristics.corels import corels
        from interpretopt.heuristics.mining import mine_rules

        pool = mine_rules(np.column_stack([B, 1 - B]), y, min_support=0.05, max_card=card, scope="all")
        before = _rss_mb()
        t0 = time.process_time()
        r = corels(pool.packed, y, lam=c, max_nodes=nodes, policy=policy)
        cpu = time.process_time() - t0
        obj, n_rules, status = r.objective, len(r.prefix), r.status
    else:
        from corels import CorelsClassifier

        before = _rss_mb()
        ref = CorelsClassifier(max_card=card, min_support=0.05, c=c, n_iter=nodes, policy=policy, verbosity=[])
        t0 = time.process_time()
        ref.fit(B, y)  # includes the reference's own mining
        cpu = time.process_time() - t0
        n_rules = len(ref.rl().rules) - 1
        obj, status = 1.0 - float(np.mean(ref.predict(B) == y)) + c * n_rules, "-"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out.put((cpu, max(peak - before, 0.0), obj, n_rules, status))


def measure(which: str, setting) -> tuple | None:
    """Run one fit in a fresh process; None when it failed."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_fit, args=(which, *setting, q))
    p.start()
    try:
        res = q.get(timeout=1800)
    except Exception:
        res = None
    p.join()
    return res


def reference_available() -> bool:
    try:
        import corels  # noqa: F401
    except Exception as exc:  # pragma: no cover - depends on the machine
        print(f"reference not available ({type(exc).__name__}: {exc}); our figures only")
        return False
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-large", action="store_true", help="leave out compas with 10^6 nodes")
    ap.add_argument("--policies", nargs="+", default=None, help="only these policies")
    args = ap.parse_args(argv)
    settings = SETTINGS + ([] if args.skip_large else LARGE)
    if args.policies:
        settings = [s for s in settings if s[4] in args.policies]
    ref_ok = reference_available()
    print("dataset  c      n_iter   card policy       | ours: CPU s  MB   objective rules status   "
          "| reference: CPU s  MB   objective rules | CPU ratio  same objective")
    for s in settings:
        ours = measure("ours", s)
        head = f"{s[0]:8s} {s[1]:<6} {s[2]:<8} {s[3]:<4} {s[4]:12s} |"
        if ours is None:
            print(head, "ours failed")
            continue
        line = head + f" {ours[0]:8.2f} {ours[1]:6.0f} {ours[2]:.5f} {ours[3]:3d} {ours[4]:9s}|"
        if ref_ok:
            ref = measure("reference", s)
            if ref is None:
                line += " reference failed"
            else:
                line += (f" {ref[0]:8.2f} {ref[1]:6.0f} {ref[2]:.5f} {ref[3]:3d}   | {ours[0] / max(ref[0], 1e-9):5.2f}x"
                         f"  {abs(ours[2] - ref[2]) < 1e-9}")
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
