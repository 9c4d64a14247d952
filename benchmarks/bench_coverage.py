"""Coverage of many rules on a binarized matrix: bit-packed words against a naive boolean loop.

Workload: 2,000 rules (random conjunctions of 1-3 columns) on 50,000 samples x 200 binary
columns. Both paths compute each rule's coverage and support; the packed path includes
packing the matrix. Both are timed in the same run and their results are checked equal.

    python benchmarks/bench_coverage.py [--samples 50000] [--columns 200] [--rules 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from interpretopt.rules import (
    and_popcount,
    binary_coverage_packed,
    pack_binary_columns,
    pack_vector,
    popcount,
    unpack_coverage,
)


def make_problem(n: int, J: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X_bin = (rng.random((n, J)) < rng.uniform(0.2, 0.8, size=J)).astype(np.uint8)
    lengths = rng.integers(1, 4, size=k)
    rules = [rng.choice(J, size=L, replace=False) for L in lengths]
    y = rng.random(n) < 0.5
    return X_bin, rules, y


def naive(X_bin, rules, y):
    """One boolean column per rule: X_bin[:, cols].all(axis=1), counted with sum."""
    n, k = X_bin.shape[0], len(rules)
    cov = np.empty((n, k), dtype=bool)
    for r, cols in enumerate(rules):
        cov[:, r] = X_bin[:, cols].all(axis=1)
    support = cov.sum(axis=0)
    positives = cov[y].sum(axis=0)
    return cov, support, positives


def packed(X_bin, rules, y):
    """Pack the columns once, AND the words of each rule's columns, popcount."""
    P = pack_binary_columns(X_bin)
    cov = binary_coverage_packed(None, rules, packed_columns=P, n_samples=X_bin.shape[0])
    support = popcount(cov)
    positives = and_popcount(cov, pack_vector(y))
    return cov, support, positives


def best_time(fn, *args, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=50_000)
    ap.add_argument("--columns", type=int, default=200)
    ap.add_argument("--rules", type=int, default=2_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    X_bin, rules, y = make_problem(args.samples, args.columns, args.rules, args.seed)
    t_naive, (cov_n, sup_n, pos_n) = best_time(naive, X_bin, rules, y, repeat=args.repeat)
    t_packed, (cov_p, sup_p, pos_p) = best_time(packed, X_bin, rules, y, repeat=args.repeat)

    ok = np.array_equal(sup_n, sup_p) and np.array_equal(pos_n, pos_p)
    ok = ok and np.array_equal(unpack_coverage(cov_p[:50], args.samples), cov_n[:, :50])
    ratio = t_naive / t_packed

    print(f"coverage: {args.rules} rules (1-3 literals), {args.samples} samples x {args.columns} binary columns, "
          f"best of {args.repeat}")
    print(f"{'path':<28}{'seconds':>10}")
    print(f"{'naive boolean loop':<28}{t_naive:>10.4f}")
    print(f"{'bit-packed (incl. packing)':<28}{t_packed:>10.4f}")
    print(f"{'speed-up (naive / packed)':<28}{ratio:>10.1f}x")
    print(f"results equal: {ok}; target >= 10x: {'met' if ratio >= 10 else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
