"""MTRE-PAN speed: a depth-8 translation of the Pima target, and the LP node classifier vs LinearSVC.

The target is the paper's network (``MTREPAN_NET``) trained on a stratified 70% of Pima;
MTRE-PAN (Table 1 defaults: cutoff entropy 0.0808, cutoff variance 1e-5) translates it to
depth 8 (root = depth 1). Reported:

* total fit time, time in node LPs (scaling, building, solving, reading the hyperplane),
  time sampling on demand, time in the target, number of black-box queries, leaves;
* the same with ``cutoff_entropy = 0`` (any impure node is split, as the authors' release
  does for the circle): the Pima network's boundary is close to a hyperplane, so with the
  Table 1 cutoff MTRE-PAN stops after one split, and this second run is the one that
  exercises many node LPs;
* the node classifier: every node LP of the runs is solved again and scikit-learn's
  ``LinearSVC(penalty="l1", loss="squared_hinge", dual=False, class_weight="balanced")`` is
  fitted on the same (scaled) node data, in the same run; the script prints the summed
  times, their ratio (target: the LP within 5x of LinearSVC) and how often the two
  hyperplanes agree on the node's points.

    python benchmarks/bench_mtrepan.py [--depth 8] [--solver highs] [--lp-path auto] [--max-nodes 60]
                                       [--cutoffs 0.0808,0]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--solver", default="highs")
    ap.add_argument("--lp-path", default="auto")
    ap.add_argument("--max-nodes", type=int, default=60, help="node LPs re-timed against LinearSVC")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cutoffs", default="0.0808,0", help="cutoff entropies, one translation each")
    args = ap.parse_args()

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    from interpretopt.blackbox import make_model
    from interpretopt.data import load_dataset, train_test_indices
    from interpretopt.methods.mtrepan import MTREPANClassifier, fit_node_svm

    ds = load_dataset("pima")
    X, y = ds.numeric(), ds.y
    tr, te = train_test_indices(X.shape[0], 0.3, random_state=args.seed, stratify=y)
    t0 = time.perf_counter()
    net = make_model("MTREPAN_NET", random_state=args.seed).fit(X[tr], y[tr])
    t_net = time.perf_counter() - t0
    print(f"target: MTREPAN_NET on {len(tr)} Pima rows, test accuracy {np.mean(net.predict(X[te]) == y[te]):.3f} "
          f"(trained in {t_net:.1f} s; paper 70.8%)")

    nodes: list[tuple[np.ndarray, np.ndarray, str]] = []

    class Recording(MTREPANClassifier):
        def _svm(self, Xn, yn, path):
            nodes.append((Xn.copy(), yn.copy(), path))
            return super()._svm(Xn, yn, path)

    for cutoff in [float(c) for c in args.cutoffs.split(",")]:
        est = Recording(max_depth=args.depth, cutoff_entropy=cutoff, random_state=args.seed, solver=args.solver,
                        lp_path=args.lp_path, boundary_estimates=False)
        t0 = time.perf_counter()
        est.fit(X[tr], net)
        total = time.perf_counter() - t0
        st = est.stats_
        rep = est.parity(net, X[te])
        print(f"\nMTRE-PAN depth {args.depth}, cutoff entropy {cutoff:g} ({args.solver}, lp_path={args.lp_path}):")
        print(f"  total fit time        {total:8.2f} s")
        sizes = est.lp_sizes_ or [0]
        print(f"  node LPs              {est.lp_time_:8.2f} s  ({est.n_lp_solves_} LPs, sizes {min(sizes)}"
              f"..{max(sizes)}, median {int(np.median(sizes))})")
        print(f"  sampling on demand    {st['sampling_time']:8.2f} s  (of which target {st['oracle_time']:.2f} s)")
        print(f"  black-box queries     {est.n_queries_:8d}")
        print(f"  leaves                {est.leaf_count():8d}   (paper Table 8, depth 8: 85)")
        print(f"  parity on test rows   model {rep['model_parity']:.2f}  certain {rep['certain_model_parity']:.2f}  "
              f"boundary {rep['boundary_model_parity']:.2f} (n={rep['n_boundary']})")

    # LP node classifier vs LinearSVC on the same node data, same run
    pick = np.linspace(0, len(nodes) - 1, min(args.max_nodes, len(nodes))).round().astype(int)
    t_lp = t_svc = 0.0
    agree = []
    for k in np.unique(pick):
        Xn, yn, path = nodes[k]
        t = time.perf_counter()
        split, _ = fit_node_svm(Xn, yn, C=est.C, solver=args.solver, lp_path=args.lp_path, path=path)
        t_lp += time.perf_counter() - t
        lo, hi = Xn.min(axis=0), Xn.max(axis=0)
        mid, half = 0.5 * (lo + hi), np.where(hi > lo, 0.5 * (hi - lo), 1.0)
        t = time.perf_counter()
        Z = (Xn - mid) / half
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svc = LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=est.C, class_weight="balanced",
                            max_iter=2000).fit(Z, yn)
        t_svc += time.perf_counter() - t
        ours = (Xn @ split.c > split.b) if split is not None else np.zeros(len(yn), dtype=bool)
        agree.append(np.mean(ours == (svc.predict(Z) == 1)))
    n = len(np.unique(pick))
    sizes = [len(nodes[k][1]) for k in np.unique(pick)]
    print(f"\nnode classifier on {n} node data sets (sizes {min(sizes)}..{max(sizes)}), same run:")
    print(f"  LP ({args.solver}, {args.lp_path})  {t_lp:8.2f} s")
    print(f"  LinearSVC l1           {t_svc:8.2f} s")
    ratio = t_lp / max(t_svc, 1e-9)
    print(f"  ratio LP / LinearSVC   {ratio:8.2f}x   (target <= 5x: {'met' if ratio <= 5 else 'NOT met'})")
    print(f"  label agreement of the two hyperplanes on node points: mean {np.mean(agree):.4f}, "
          f"min {np.min(agree):.4f}")


if __name__ == "__main__":
    main()
