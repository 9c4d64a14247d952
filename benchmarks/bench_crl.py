"""Speed of the companion-rule-list search (Algorithm 1): milliseconds per annealing step.

For breast cancer (bundled) and adult (``INTERPRETOPT_DATA``) the script mines the pool as the
paper (7-quantile one-hot items, pairs, support 0.05 per class, the 200 most precise rules per
class as the authors' script), takes out-of-fold black-box answers on an 80% training split,
and measures in the same run:

* ours: the incremental bit-packed search (:class:`interpretopt.methods.crl.CompanionSearch`),
  ``--steps`` steps (default 50,000; the issue's target on adult is under 30 s);
* from scratch: the same search with every neighbour's objective recomputed from the
  definitions (:func:`interpretopt.evaluation.autac.autac_reference`), on fewer steps; this is
  an in-run yardstick, not the anchor;
* the anchor: the authors' reference implementation (danqingpan/Companion-rule-list,
  ``companion_rule_list.py``), only when its directory is given by ``CRL_ANCHOR_DIR`` and its
  dependencies (``bitarray``, ``fim``) import; otherwise "anchor not available". Nothing is
  fetched. The anchor predicts by the majority label of each rule's captured samples, so the
  comparison uses ``rule_labels="majority"`` and reports both training objectives under our
  exact objective.

Mining (``--mining``, default on, cdc_diabetes and adult): the authors' script's pool (7-quantile
one-hot items and their complements, pairs, support 0.05% per class, precision filter, 200 per
class) by the bit-packed level-wise miner, timed on the full training data (target: cdc_diabetes
in at most 10 s), against mlxtend's FP-Growth on the same items in the same run (on a
``--fp-rows`` subsample, both miners timed there, since FP-Growth on all of cdc_diabetes takes
minutes). The two must find the same itemsets.

CORELS oracle (``--corels-oracle``): when the reference ``corels`` package (pycorels, GPL) is
importable -- built in its own environment, never a dependency -- its list and ours on the same
binary features, the same miner settings and ``c``, with objectives compared; otherwise "oracle
not available".

Usage::

    INTERPRETOPT_DATA=../shared/datasets python benchmarks/bench_crl.py [--steps 50000] [--datasets breast_cancer adult]
    INTERPRETOPT_DATA=../shared/datasets python benchmarks/bench_crl.py --only-mining [--mining-datasets cdc_diabetes]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import os
import sys
import time
from pathlib import Path

import numpy as np


def _prepare(name: str, seed: int = 0):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from interpretopt.data import load_dataset, train_test_indices
    from interpretopt.heuristics.mining import QuantileOneHotBinarizer, mine_rules

    ds = load_dataset(name)
    y_all = np.asarray(ds.y)
    classes = np.unique(y_all)
    y_all = (y_all == classes[-1]).astype(np.int8)
    train, _ = train_test_indices(ds.n_samples, 0.2, random_state=seed, stratify=y_all)
    X = ds.X.iloc[train].reset_index(drop=True)
    y = y_all[train]
    Xn = ds.numeric()[train]
    t0 = time.perf_counter()
    # any black box serves for timing the search; a linear model keeps the set-up short
    bb = cross_val_predict(make_pipeline(StandardScaler(), LogisticRegression(max_iter=300)), Xn, y,
                           cv=StratifiedKFold(5, shuffle=True, random_state=seed))
    t_bb = time.perf_counter() - t0
    t0 = time.perf_counter()
    bz = QuantileOneHotBinarizer(n_quantiles=7, feature_types=getattr(ds, "feature_types", None)).fit(X)
    B = bz.transform(X)
    pool = mine_rules(B, y, min_support=0.05, max_card=2, max_rules_per_class=200, random_state=seed)
    t_mine = time.perf_counter() - t0
    return dict(name=name, B=B, y=y, bb=bb.astype(np.int8), pool=pool, t_bb=t_bb, t_mine=t_mine,
                n_items=B.shape[1])


def _unique_pool(pool):
    first = {}
    for r, s in enumerate(pool.itemsets):
        first.setdefault(s, r)
    return np.fromiter(first.values(), dtype=np.int64)


def _ours(d, steps, alpha, C0, seed, rule_labels):
    from interpretopt.methods.crl import CompanionSearch, search_companion_list

    pool = d["pool"]
    idx = _unique_pool(pool) if rule_labels == "majority" else np.arange(len(pool))
    prob = CompanionSearch(pool.packed[idx], pool.labels[idx], d["y"], d["bb"], alpha=alpha, rule_labels=rule_labels)
    rng = np.random.default_rng(seed)
    init = tuple(int(v) for v in rng.choice(prob.K, size=3, replace=False))
    t0 = time.perf_counter()
    res = search_companion_list(prob, n_iter=steps, C0=C0, init=init, rng=rng)
    sec = time.perf_counter() - t0
    return prob, idx, res, sec


def _from_scratch(d, steps, alpha, C0, seed):
    """Same moves, objective recomputed from the definitions at every step."""
    from interpretopt.heuristics.annealing import anneal
    from interpretopt.methods.crl import CompanionSearch, crl_acceptance

    pool = d["pool"]
    cov = pool.coverage(d["B"])
    prob = CompanionSearch(pool.packed, pool.labels, d["y"], d["bb"], alpha=alpha, coverage=cov)

    def propose(state, value, rng):
        out = prob.propose(state, value, rng)
        if out is None:
            return None
        cand, _ = out
        return cand, prob.reference_value(cand.rules)

    rng = np.random.default_rng(seed)
    start = prob.state(tuple(int(v) for v in rng.choice(prob.K, size=3, replace=False)))
    t0 = time.perf_counter()
    anneal(start, start.value, propose, steps, rng, accept=crl_acceptance(C0))
    return time.perf_counter() - t0


def _anchor(d, steps, alpha, C0, seed):
    """Run the authors' simulated_annealing on the same pool; None when unavailable."""
    path = os.environ.get("CRL_ANCHOR_DIR")
    if not path:
        return None, "CRL_ANCHOR_DIR is not set"
    file = Path(path) / "companion_rule_list.py"
    if not file.is_file():
        return None, f"{file} not found"
    try:
        spec = importlib.util.spec_from_file_location("crl_anchor", file)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        from bitarray import bitarray
    except Exception as exc:  # missing fim / bitarray / pandas versions
        return None, f"import failed: {type(exc).__name__}: {exc}"
    import pandas as pd

    pool = d["pool"]
    idx = _unique_pool(pool)
    cov = pool.coverage(d["B"], idx)
    mod.df = pd.DataFrame(np.zeros((len(d["y"]), 1)))
    mod.cover_sets = [bitarray(list(map(bool, cov[:, j]))) for j in range(cov.shape[1])]
    mod.Y = bitarray(list(map(bool, d["y"])))
    mod.Y_c = bitarray(list(map(bool, d["y"] == d["bb"])))
    mod.BLX_ACC = float(np.mean(d["y"] == d["bb"]))
    mod.premined_rules = list(range(cov.shape[1]))
    mod.random.seed(seed)
    init = mod.random.sample(list(range(cov.shape[1])), 3)
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        out = mod.simulated_annealing(init, C0, alpha, steps)
    sec = time.perf_counter() - t0
    rules = out[-1]
    return (sec, tuple(int(r) for r in rules), idx), ""


def _mining(name: str, fp_rows: int, seed: int = 0) -> None:
    """Time the authors'-script pool on ``name``: packed miner on all rows, both miners on a subsample."""
    from interpretopt.data import load_dataset, train_test_indices
    from interpretopt.heuristics.mining import QuantileOneHotBinarizer, mine_rules

    try:
        ds = load_dataset(name)
    except Exception as exc:
        print(f"[mining {name}] skipped: {type(exc).__name__}: {exc}")
        return
    y_all = np.asarray(ds.y)
    y_all = (y_all == np.unique(y_all)[-1]).astype(np.int8)
    train, _ = train_test_indices(ds.n_samples, 0.2, random_state=seed, stratify=y_all)
    X = ds.X.iloc[train].reset_index(drop=True)
    y = y_all[train]
    kw = dict(min_support=0.05, max_card=2, precision_filter=True, max_rules_per_class=200)
    t0 = time.process_time()
    bz = QuantileOneHotBinarizer(n_quantiles=7, negations=True, feature_types=getattr(ds, "feature_types", None)).fit(X)
    B = bz.transform(X)
    t_bin = time.process_time() - t0
    for supp in (0.05, 0.0005):  # the paper's support and the authors' script's literal one (pyfim percent)
        t0 = time.process_time()
        pool = mine_rules(B, y, **{**kw, "min_support": supp})
        t_mine = time.process_time() - t0
        verdict = "met" if t_bin + t_mine <= 10.0 else "NOT met"
        print(f"[mining {name}] support {supp}: n_train={len(y)} items={B.shape[1]} (with complements) "
              f"pool={len(pool)}: binarize {t_bin:.2f} s + mine {t_mine:.2f} s CPU"
              + (f" (target <= 10 s on cdc_diabetes: {verdict})" if name == "cdc_diabetes" else ""))
    rows = np.sort(np.random.default_rng(seed).choice(len(y), size=min(fp_rows, len(y)), replace=False))
    Bs, ys = B[rows], y[rows]
    t0 = time.process_time()
    a = mine_rules(Bs, ys, **kw)
    t_pk = time.process_time() - t0
    t0 = time.process_time()
    b = mine_rules(Bs, ys, backend="fpgrowth", **kw)
    t_fp = time.process_time() - t0
    same = set(zip(a.itemsets, a.labels.tolist())) == set(zip(b.itemsets, b.labels.tolist()))
    print(f"  support 0.05 on {len(rows)} rows: packed {t_pk:.2f} s, mlxtend FP-Growth {t_fp:.2f} s CPU -> "
          f"{t_fp / max(t_pk, 1e-9):.1f}x; same pool: {same}")


def _corels_oracle(seed: int = 0) -> None:
    """Our CORELS against the reference package on german's binary features, when it is installed."""
    try:
        from corels import CorelsClassifier
    except Exception as exc:  # not installed (GPL; built in its own environment when wanted)
        print(f"[corels oracle] oracle not available ({type(exc).__name__}: {exc})")
        return
    from interpretopt.data import load_dataset
    from interpretopt.heuristics.corels import corels
    from interpretopt.heuristics.mining import QuantileOneHotBinarizer, mine_rules

    ds = load_dataset("german")
    y = (np.asarray(ds.y) == np.unique(ds.y)[-1]).astype(np.int8)
    B = QuantileOneHotBinarizer(n_quantiles=7, feature_types=getattr(ds, "feature_types", None)).fit_transform(ds.X)
    # (c, n_iter, max_card): c = 0.01 with single conditions at 10^6 nodes, then the CRL authors' settings
    # (c = 0, pairs of conditions) at 100,000 nodes. Both are budgets, not certificates: each line compares
    # the two implementations' objectives at the same node budget. Our list is proven optimal over the pool
    # only where its line says status 'optimal' (queue exhausted; then bound == objective); measured on
    # german, the first setting (146 antecedents) ends 'feasible' under all four policies, objective
    # 0.291-0.293 against lower bounds 0.03-0.14. Whether pycorels finished its search is not read.
    for c, nodes, card in ((0.01, 10**6, 1), (0.0, 100_000, 2)):
        pool = mine_rules(np.column_stack([B, 1 - B]), y, min_support=0.05, max_card=card, scope="all")
        for policy in ("curious", "lower_bound", "bfs", "objective"):
            ref = CorelsClassifier(max_card=card, min_support=0.05, c=c, n_iter=nodes, policy=policy, verbosity=[])
            t0 = time.process_time()
            ref.fit(B, y)
            t_ref = time.process_time() - t0
            acc = float(np.mean(ref.predict(B) == y))
            n_rules = len(ref.rl().rules) - 1
            ref_obj = 1.0 - acc + c * n_rules
            t0 = time.process_time()
            ours = corels(pool.packed, y, lam=c, max_nodes=nodes, policy=policy)
            t_ours = time.process_time() - t0
            print(f"[corels oracle] c={c} card={card} policy={policy} n_iter={nodes} ({len(pool)} antecedents): "
                  f"reference objective {ref_obj:.5f} ({n_rules} rules, {t_ref:.2f} s); ours {ours.objective:.5f} "
                  f"({len(ours.prefix)} rules, {ours.status}, bound {ours.bound:.5f}, {ours.n_nodes} nodes, "
                  f"{t_ours:.2f} s CPU) -> "
                  f"time ratio ours/reference {t_ours / max(t_ref, 1e-9):.1f}x")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50_000)
    ap.add_argument("--scratch-steps", type=int, default=300)
    ap.add_argument("--anchor-steps", type=int, default=2_000)
    ap.add_argument("--alpha", type=float, default=0.001)
    ap.add_argument("--C0", type=float, default=0.001)
    ap.add_argument("--datasets", nargs="+", default=["breast_cancer", "adult"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mining-datasets", nargs="*", default=["cdc_diabetes", "adult"])
    ap.add_argument("--fp-rows", type=int, default=2_000)
    ap.add_argument("--only-mining", action="store_true", help="only the mining benchmark (and the CORELS oracle)")
    ap.add_argument("--corels-oracle", action="store_true", help="compare with the reference corels package if installed")
    args = ap.parse_args(argv)
    for name in args.mining_datasets:
        _mining(name, args.fp_rows, args.seed)
    if args.corels_oracle:
        _corels_oracle(args.seed)
    if args.only_mining:
        return 0
    for name in args.datasets:
        try:
            d = _prepare(name, args.seed)
        except Exception as exc:  # e.g. adult without INTERPRETOPT_DATA
            print(f"[{name}] skipped: {type(exc).__name__}: {exc}")
            continue
        n = len(d["y"])
        print(f"[{name}] n_train={n} items={d['n_items']} pool={len(d['pool'])} "
              f"(mining {d['t_mine']:.1f} s, out-of-fold black box {d['t_bb']:.1f} s)")
        for mode in ("mined", "majority"):
            prob, idx, res, sec = _ours(d, args.steps, args.alpha, args.C0, args.seed, mode)
            st = res.best_state
            print(f"  ours ({mode:8s}): {args.steps} steps in {sec:.2f} s = {1000 * sec / args.steps:.4f} ms/step; "
                  f"best objective {st.value:.5f} with {len(st)} rules; accepted {res.n_accepted}")
            if mode == "mined":
                ours_ms = 1000 * sec / args.steps
                if args.steps >= 50_000 and name == "adult":
                    print(f"  target: 50,000 steps on adult in under 30 s -> "
                          f"{'met' if sec * 50_000 / args.steps < 30 else 'NOT met'} ({sec * 50_000 / args.steps:.1f} s)")
            else:
                maj = (prob, idx, res, sec)
        sc = _from_scratch(d, args.scratch_steps, args.alpha, args.C0, args.seed)
        sc_ms = 1000 * sc / args.scratch_steps
        print(f"  from-scratch objective (in-run yardstick, not the anchor): {sc_ms:.3f} ms/step "
              f"-> incremental is {sc_ms / ours_ms:.1f}x faster")
        anchor, why = _anchor(d, args.anchor_steps, args.alpha, args.C0, args.seed)
        if anchor is None:
            print(f"  anchor not available ({why})")
            continue
        a_sec, a_rules, a_idx = anchor
        prob, idx, res, sec = maj
        pos = {int(r): k for k, r in enumerate(idx)}
        a_val = prob.state(tuple(pos[int(a_idx[r])] for r in a_rules)).value if a_rules else float("nan")
        a_ms = 1000 * a_sec / args.anchor_steps
        ours_maj_ms = 1000 * sec / args.steps
        _, _, res_eq, _ = _ours(d, args.anchor_steps, args.alpha, args.C0, args.seed, "majority")
        print(f"  anchor: {args.anchor_steps} steps in {a_sec:.2f} s = {a_ms:.3f} ms/step; its best list scores "
              f"{a_val:.5f} under our objective (ours, majority labels: {res_eq.best_value:.5f} after the same "
              f"{args.anchor_steps} steps, {res.best_value:.5f} after {args.steps})")
        print(f"  ratio anchor/ours ms per step: {a_ms / ours_maj_ms:.1f}x "
              f"(target >= 20x at equal or better objective: "
              f"{'met' if a_ms / ours_maj_ms >= 20 and res.best_value >= a_val - 1e-9 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
