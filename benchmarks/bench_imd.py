"""IMD speed and quality against AIX360's IMD and against scikit-learn trees, in one run.

For each data set (breast cancer; a 20,000 x 20 synthetic set) two black boxes (LR and
RF1 of the paper's Table 5) are trained on a 70/30 split; the diff models are fitted on a
70% split of the unlabelled data and scored on the other 30%. Measured in the same run:

* our depth-6 JST fit (median of ``--repeats``) vs AIX360's ``IMDExplainer.fit``
  (target: at least 100x faster, diff F1 within 0.02);
* our fit vs two ``DecisionTreeClassifier(max_depth=6)`` fits on the same data (target:
  within 3x);
* peak memory: for our fit and the scikit-learn fits the tracemalloc peak (Python heap,
  numpy included) of one extra, untimed call; for AIX360 (one timed fit, it is slow) the
  peak resident set size of its process and its growth during the fit.

AIX360 runs in its own virtual environment (``--anchor-python``, default
``/tmp/aix_venv/bin/python``; install with ``pip install --no-deps aix360`` plus numpy,
pandas, scikit-learn, networkx). When it cannot be run the script prints
``anchor not available`` and still reports the scikit-learn comparison.

    python benchmarks/bench_imd.py [--datasets bc,synthetic] [--repeats 3] [--anchor-timeout 3600]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import tracemalloc
from pathlib import Path

import numpy as np

from interpretopt.blackbox import make_model
from interpretopt.data import load_dataset
from interpretopt.evaluation.diff_metrics import diff_precision_recall_f1
from interpretopt.methods.imd import IMDExplainer

ANCHOR_DRIVER = textwrap.dedent(
    """
    import contextlib, io, json, resource, sys, time
    import numpy as np, pandas as pd
    from aix360.algorithms.imd.imd import IMDExplainer
    d = np.load(sys.argv[1])
    cols = [f"f{j}" for j in range(d["X_tr"].shape[1])]
    X_tr = pd.DataFrame(d["X_tr"], columns=cols)
    X_te = pd.DataFrame(d["X_te"], columns=cols)
    imd = IMDExplainer()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    c0, w0 = time.process_time(), time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        imd.fit(X_tr, d["y1_tr"], d["y2_tr"], max_depth=6)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with contextlib.redirect_stdout(io.StringIO()):
        m = imd.metrics(X_te, d["y1_te"], d["y2_te"])
    pr, re = float(m["test-precision"]), float(m["test-recall"])
    pr = 0.0 if pr != pr else pr
    re = 0.0 if re != re else re
    f1 = 2 * pr * re / (pr + re) if pr + re > 0 else 0.0
    print(json.dumps({"cpu": cpu, "wall": wall, "rss_mb": rss1 / 1024, "rss_growth_mb": (rss1 - rss0) / 1024, "precision": pr, "recall": re,
                      "f1": f1, "n_rules": int(m["num-rules"]), "n_predicates": int(m["num-unique-preds"])}))
    """
)


def synthetic(n: int = 20_000, d: int = 20, seed: int = 0):
    """Gaussian features, a label from a noisy mix of linear and interaction terms."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    score = X @ w / np.sqrt(d) + 0.7 * X[:, 0] * X[:, 1] + 0.5 * np.sin(2 * X[:, 2]) + rng.normal(scale=0.5, size=n)
    return X, (score > 0).astype(int)


def load(name: str):
    if name == "bc":
        ds = load_dataset("breast_cancer")
        return ds.numeric(), np.asarray(ds.y)
    if name == "synthetic":
        return synthetic()
    raise SystemExit(f"unknown data set {name!r}; use bc or synthetic")


def measure(fn, repeats: int):
    """Median CPU and wall seconds over ``repeats`` calls, tracemalloc peak of one extra call."""
    cpus, walls, out = [], [], None
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - w0)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return float(np.median(cpus)), float(np.median(walls)), peak / 2**20, out


def run_anchor(python: str, arrays: dict, timeout: float | None):
    if not Path(python).exists():
        return None, f"no interpreter at {python}"
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data.npz")
        np.savez(data, **arrays)
        driver = os.path.join(tmp, "driver.py")
        Path(driver).write_text(ANCHOR_DRIVER)
        try:
            proc = subprocess.run([python, driver, data], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {timeout:g} s"
        if proc.returncode != 0:
            return None, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
        return json.loads(proc.stdout.strip().splitlines()[-1]), ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="bc,synthetic")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--anchor-python", default="/tmp/aix_venv/bin/python")
    ap.add_argument("--anchor-timeout", type=float, default=None, help="seconds per anchor fit (default: none)")
    ap.add_argument("--skip-anchor", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    ok = True
    for name in args.datasets.split(","):
        X, y = load(name)
        X_fit, _, y_fit, _ = train_test_split(X, y, test_size=0.3, random_state=args.seed, stratify=y)
        m1 = make_model("LR", random_state=args.seed).fit(X_fit, y_fit)
        m2 = make_model("RF1", random_state=args.seed).fit(X_fit, y_fit)
        X_tr, X_te = train_test_split(X, test_size=0.3, random_state=args.seed + 1)
        y1_tr, y2_tr = m1.predict(X_tr), m2.predict(X_tr)
        y1_te, y2_te = m1.predict(X_te), m2.predict(X_te)
        print(f"== {name}: {X_tr.shape[0]} x {X_tr.shape[1]} fit rows, {X_te.shape[0]} test rows; "
              f"LR vs RF1 disagree on {np.mean(y1_tr != y2_tr):.3f} (train), {np.mean(y1_te != y2_te):.3f} (test)")

        cpu, wall, peak, imd = measure(lambda: IMDExplainer(max_depth=6).fit(X_tr, y1_tr, y2_tr), args.repeats)
        pr, re, f1 = diff_precision_recall_f1(y1_te != y2_te, imd.predict_diff(X_te))
        print(f"ours    JST depth 6     cpu {cpu:8.4f} s  wall {wall:8.4f} s  peak {peak:7.1f} MB  "
              f"Pr {pr:.3f} Re {re:.3f} F1 {f1:.3f}  #r {imd.n_rules_} "
              f"#p {imd.metrics(X_te, y1_te, y2_te)['n_predicates']}")

        def two_trees():
            DecisionTreeClassifier(max_depth=6, random_state=0).fit(X_tr, y1_tr)
            DecisionTreeClassifier(max_depth=6, random_state=0).fit(X_tr, y2_tr)

        scpu, swall, speak, _ = measure(two_trees, args.repeats)
        print(f"sklearn 2 x DT depth 6  cpu {scpu:8.4f} s  wall {swall:8.4f} s  peak {speak:7.1f} MB")
        ratio = cpu / scpu
        within = ratio <= 3.0
        ok &= within
        print(f"ratio ours / 2 sklearn trees (cpu): {ratio:.2f}x  (target <= 3x: {'met' if within else 'NOT met'})")

        if args.skip_anchor:
            print("anchor not available (skipped by --skip-anchor)")
            continue
        res, why = run_anchor(args.anchor_python, dict(X_tr=X_tr, y1_tr=y1_tr, y2_tr=y2_tr, X_te=X_te,
                                                      y1_te=y1_te, y2_te=y2_te), args.anchor_timeout)
        if res is None:
            print(f"anchor not available ({why})")
            continue
        print(f"AIX360  JST depth 6     cpu {res['cpu']:8.2f} s  wall {res['wall']:8.2f} s  peak RSS "
              f"{res['rss_mb']:7.1f} MB (+{res['rss_growth_mb']:.1f} MB in fit)  Pr {res['precision']:.3f} Re {res['recall']:.3f} F1 {res['f1']:.3f}  "
              f"#r {res['n_rules']} #p {res['n_predicates']}")
        speed = res["cpu"] / max(cpu, 1e-9)
        df1 = abs(res["f1"] - f1)
        ok &= speed >= 100 and df1 <= 0.02
        print(f"speed-up vs AIX360 (cpu): {speed:.0f}x (target >= 100x: {'met' if speed >= 100 else 'NOT met'}); "
              f"|F1 diff| {df1:.3f} (target <= 0.02: {'met' if df1 <= 0.02 else 'NOT met'})")
        sys.stdout.flush()
    print("all targets met" if ok else "some targets not met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
