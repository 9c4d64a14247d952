"""A leaderboard of rule learners: test accuracy against size, the project's learners beside peers.

Datasets (``--datasets``; default the five below, any registry name is accepted; files are read
from the data directory, ``--data-dir`` or ``INTERPRETOPT_DATA``): banknote, compas, magic,
wine_white (label ``quality >= 6``), eye_movements (label ``class == 1``, its largest class,
against the other two). Each is split stratified 70/30 with ``--seeds`` (default 0 and 1); every
learner sees the same numeric matrix (``Dataset.numeric()``) and does its own binarizing.

Learners (``--learners`` picks some; ``--project-only`` drops the peers):

* project: ``brcg_l0.01`` / ``brcg_l0.001`` (the default) / ``brcg_l0.0002`` -- BRCGClassifier
  with ``lambda0 = lambda1`` at three complexity settings; ``brcg_exact3`` -- exact pricing
  (``pricing="beam+bnb"``) over clauses of at most 3 literals; ``corels`` and ``sbrl`` -- the
  CRL baselines (PairedRuleList, pycorels' / SBRL's own mining) used without a black box. CRL's
  companion list is not listed: its rules are the transparent part of a hybrid with a black
  box, so a list "without the black box" is exactly what ``corels`` / ``sbrl`` are.
* peers (``pip install 'interpretopt[peers]'``): scikit-learn trees of depth 2, 3 and 4,
  imodels FIGS (12 rules), wittgenstein RIPPER, ruleopt RUG, pycorels (not on the extra: its
  sdist needs patching, ``bash benchmarks/install_pycorels.sh``). A peer whose package does not
  import is listed as skipped with the install command.

Literals (the size axis), counted per learner as the number of threshold/equality tests a
reader has to check in the whole model:

* DNF rule sets (BRCG, RIPPER) and RUG's weighted rules: the sum over rules of the literals of
  each rule (BRCG counts after its own simplification; a RIPPER condition is one bin of a
  feature, ``a=0.84-0.91`` counting as one; the empty rule set has 0);
* rule lists (CORELS, SBRL, pycorels): the sum over antecedents of their items (the default
  rule adds 0);
* trees and FIGS: the number of internal (split) nodes, each one test.

CPU: ``time.process_time`` of ``fit`` in the learner's own process (fresh interpreter). Each
learner runs under its own work limit (iterations, nodes, rules: ``LEARNERS``); a wall-clock
timeout per fit (``--timeout``, default 600 s) is only a safety net, and a fit stopped by it is
marked ``TIMEOUT`` in the table. ``limit`` says when a learner's own work limit ended it
(e.g. CORELS's node budget; BRCG's iteration cap, pricing node budget or a safety net:
``BRCG_LIMIT_STOPS``); ``time`` when a wall-clock safety net inside the learner stopped a stage
(BRCG's ``limited_by_time_``, e.g. the integer master's ``mip_time_limit``), so that the fit
may differ on another machine or load. Bound: where the learner has one, its training objective and a valid
lower bound on its optimum, with the space the bound holds over (``bound over``): BRCG's
``objective_`` / ``lower_bound_`` over ``bound_space_`` (``<=3 lit``: rule sets of clauses of
at most 3 literals, the exact phase's space; ``<=10 lit``: the whole space searched), its
``gap_`` in the CSV; CORELS's ``objective`` / ``bound`` over the lists of its mined rules.
pycorels reports no bound; its objective (training errors / n + c * rules) is computed from its
list. It is run with the project CORELS's ``c`` and mining (min_support 0.05, max_card 2, 7
quantiles, negations), so it is an oracle for ``corels``: their objectives compare row by row.

Output: the table (mean over seeds per dataset and learner of the fits that finished, ``k/n
fits`` in ``limit`` when only k of n did; then one row per fit with ``--per-fit``),
``leaderboard.csv`` and one ``<dataset>_pareto.png`` per dataset in ``--out``
(accuracy against literals, the Pareto front -- no other learner at most as large and at least
as accurate, one strictly -- drawn as a step line).

``--quick``: one dataset (the first of ``--datasets``), seed 0, small work limits.

Usage::

    INTERPRETOPT_DATA=/path/to/datasets python benchmarks/bench_rule_learners.py [--quick] \\
        [--datasets compas] [--seeds 0 1] [--project-only] [--out leaderboard]
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing as mp
import os
import queue as queue_mod
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATASETS = ("banknote", "compas", "magic", "wine_white", "eye_movements")
PEERS_INSTALL = "pip install 'interpretopt[peers]'"


def _binary_target(name: str, y: np.ndarray) -> tuple[np.ndarray, str]:
    """The 0/1 label used for ``name`` and its description."""
    if name == "wine_white":
        return (y >= 6).astype(int), "quality >= 6"
    if name == "eye_movements":
        return (y == 1).astype(int), "class == 1 vs the rest"
    classes = np.unique(y)
    if len(classes) != 2:
        values, counts = np.unique(y, return_counts=True)
        top = values[np.argmax(counts)]
        return (y == top).astype(int), f"class == {top} (the largest) vs the rest"
    return (y == classes[-1]).astype(int), f"class == {classes[-1]}"


def load_split(name: str, seed: int, data_dir=None):
    """(X_train, X_test, y_train, y_test, feature names): stratified 70/30 split of ``name``."""
    from interpretopt.data import load_dataset, train_test_indices

    ds = load_dataset(name, data_dir=data_dir)
    y, _ = _binary_target(name, np.asarray(ds.y))
    X = np.asarray(ds.numeric(), dtype=float)
    tr, te = train_test_indices(len(y), 0.3, random_state=seed, stratify=y)
    return X[tr], X[te], y[tr], y[te], [str(c) for c in ds.X.columns]


# ---- the learners: each returns a fitted model's (predictions on X_test, literals, extras)

def _brcg(Xtr, ytr, Xte, names, seed, quick, **kw):
    import pandas as pd

    from interpretopt.methods.brcg import BRCGClassifier

    params = dict(max_iter=10 if quick else 100, random_state=seed)
    params.update(kw)
    m = BRCGClassifier(**params)
    m.fit(pd.DataFrame(Xtr, columns=names), ytr)
    lits = sum(len(r) for r in m.rules_)
    # a wall-clock safety net (the loop's, a pricing call's, the integer master's) stopped a stage:
    # the fit may differ on another machine or load, so the table says "time" before "work"
    limit = "time" if m.limited_by_time_ else "work" if m.stop_reason_ in BRCG_LIMIT_STOPS else ""
    return (m.predict(pd.DataFrame(Xte, columns=names)), lits,
            dict(objective=float(m.objective_), bound=float(m.lower_bound_), gap=float(m.gap_),
                 bound_space=_short_space(m.bound_space_), limit=limit))


#: BRCG stop reasons (``BRCGClassifier.stop_reason_``) that are a work or time limit, not a
#: finished search: the iteration cap, the pricing node budget, a wall-clock safety net.
BRCG_LIMIT_STOPS = ("iteration_limit", "pricing_work_limit", "pricing_time_limit", "time_limit")


def _short_space(space: str) -> str:
    """``"clauses of up to 3 literals"`` -> ``"<=3 lit"`` (the table's bound-space column)."""
    words = space.split()
    if space.startswith("clauses of up to") and len(words) == 6:
        return f"<={words[4]} lit"
    return space


def _paired(Xtr, ytr, Xte, names, seed, quick, learner, params):
    import pandas as pd

    from interpretopt.methods.crl import PairedRuleList

    m = PairedRuleList(learner=learner, params=params, random_state=seed, refit=False)
    m.fit(pd.DataFrame(Xtr, columns=names), ytr)
    lits = sum(len(s) for s in m.rule_itemsets_)
    r = m.result_
    extra = {}
    if learner == "corels":
        extra = dict(objective=float(r.objective), bound=float(r.bound), bound_space="mined lists",
                     limit="" if r.certified else "work")
    return m.rules_prediction(pd.DataFrame(Xte, columns=names)), lits, extra


def _corels(Xtr, ytr, Xte, names, seed, quick):
    params = dict(lam=0.005, policy="curious", max_nodes=5_000 if quick else 200_000,
                  max_expansions=500 if quick else 20_000)
    return _paired(Xtr, ytr, Xte, names, seed, quick, "corels", params)


def _sbrl(Xtr, ytr, Xte, names, seed, quick):
    params = dict(n_iter=300 if quick else 5_000, n_chains=1 if quick else 3)
    return _paired(Xtr, ytr, Xte, names, seed, quick, "sbrl", params)


def _tree(Xtr, ytr, Xte, names, seed, quick, depth):
    from sklearn.tree import DecisionTreeClassifier

    m = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(np.nan_to_num(Xtr), ytr)
    splits = int(np.sum(m.tree_.children_left >= 0))
    return m.predict(np.nan_to_num(Xte)), splits, {}


def _figs(Xtr, ytr, Xte, names, seed, quick):
    from imodels import FIGSClassifier

    m = FIGSClassifier(max_rules=12, random_state=seed).fit(np.nan_to_num(Xtr), ytr)
    return m.predict(np.nan_to_num(Xte)), int(m.complexity_), {}


def _ripper(Xtr, ytr, Xte, names, seed, quick):
    import pandas as pd
    import wittgenstein as lw

    m = lw.RIPPER(random_state=seed)
    m.fit(pd.DataFrame(Xtr, columns=names).assign(__label__=ytr), class_feat="__label__", pos_class=1)
    lits = sum(len(rule.conds) for rule in m.ruleset_.rules)
    return np.asarray(m.predict(pd.DataFrame(Xte, columns=names)), dtype=int), lits, {}


def _rug(Xtr, ytr, Xte, names, seed, quick):
    from ruleopt import RUGClassifier

    m = RUGClassifier(max_depth=2, max_rmp_calls=5 if quick else 20, random_state=seed)  # HiGHS, its default
    m.fit(np.nan_to_num(Xtr), ytr)
    rules = m.decision_rules.values() if isinstance(m.decision_rules, dict) else m.decision_rules
    lits = sum(r.n_clauses() if callable(r.n_clauses) else r.n_clauses for r in rules)
    return m.predict(np.nan_to_num(Xte)), int(lits), {}


def _pycorels(Xtr, ytr, Xte, names, seed, quick):
    from corels import CorelsClassifier

    from interpretopt.heuristics.mining import QuantileOneHotBinarizer

    c = 0.005  # as ``corels``; min_support as the project's baseline mining (BASELINE_MINING)
    bz = QuantileOneHotBinarizer(n_quantiles=7).fit(Xtr)
    m = CorelsClassifier(c=c, n_iter=5_000 if quick else 200_000, max_card=2, min_support=0.05,
                         policy="curious", verbosity=[])
    m.fit(np.asarray(bz.transform(Xtr), dtype=np.uint8), ytr)
    rules = m.rl().rules[:-1]  # the last is the default rule (no antecedent to check)
    lits = sum(len(rule["antecedents"]) for rule in rules)
    train_err = float(np.mean(m.predict(np.asarray(bz.transform(Xtr), dtype=np.uint8)) != ytr))
    # CORELS's objective (errors / n + c * rules); pycorels reports no bound
    return (m.predict(np.asarray(bz.transform(Xte), dtype=np.uint8)), lits,
            dict(objective=train_err + c * len(rules)))


@dataclass(frozen=True)
class Learner:
    name: str
    group: str  # "project" or "peer"
    fit: object
    kwargs: tuple = ()
    module: str | None = None  # a peer's package (import check)
    install: str = PEERS_INSTALL


LEARNERS = (
    Learner("brcg_l0.01", "project", _brcg, (("lambda0", 0.01), ("lambda1", 0.01))),
    Learner("brcg_l0.001", "project", _brcg, (("lambda0", 0.001), ("lambda1", 0.001))),
    Learner("brcg_l0.0002", "project", _brcg, (("lambda0", 0.0002), ("lambda1", 0.0002))),
    Learner("brcg_exact3", "project", _brcg, (("pricing", "beam+bnb"), ("max_literals", 3))),
    Learner("corels", "project", _corels),
    Learner("sbrl", "project", _sbrl),
    Learner("tree_d2", "peer", _tree, (("depth", 2),), "sklearn"),
    Learner("tree_d3", "peer", _tree, (("depth", 3),), "sklearn"),
    Learner("tree_d4", "peer", _tree, (("depth", 4),), "sklearn"),
    Learner("figs_12", "peer", _figs, (), "imodels"),
    Learner("ripper", "peer", _ripper, (), "wittgenstein"),
    Learner("rug", "peer", _rug, (), "ruleopt"),
    Learner("pycorels", "peer", _pycorels, (), "corels",
            "apt-get install -y libgmp-dev && pip install corels (GPL; its sdist fails to build with recent "
            "setuptools/numpy, hence not in [peers])"),
)


def missing_module(learner: Learner) -> str | None:
    """The peer's package when it does not import, else None."""
    if learner.module is None:
        return None
    try:
        importlib.import_module(learner.module)
    except Exception:
        return learner.module
    return None


def _child(learner: Learner, dataset: str, seed: int, quick: bool, data_dir, out) -> None:
    """Runs in its own process: load, fit (timed by CPU), score; puts a result dict."""
    try:
        Xtr, Xte, ytr, yte, names = load_split(dataset, seed, data_dir)
        t0 = time.process_time()
        pred, lits, extra = learner.fit(Xtr, ytr, Xte, names, seed, quick, **dict(learner.kwargs))
        cpu = time.process_time() - t0
        acc = float(np.mean(np.asarray(pred).astype(int) == yte))
        out.put(dict(status="ok", accuracy=acc, literals=int(lits), cpu=cpu, **extra))
    except Exception as exc:  # reported in the table, not raised: one learner's failure ends no run
        out.put(dict(status=f"error: {type(exc).__name__}: {str(exc)[:120]}"))


def run_one(learner: Learner, dataset: str, seed: int, *, quick: bool, timeout: float, data_dir=None) -> dict:
    """Fit one learner in a fresh process; the timeout kills it (marked ``TIMEOUT``)."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(learner, dataset, seed, quick, data_dir, q))
    p.start()
    try:
        res = q.get(timeout=timeout)
    except queue_mod.Empty:
        res = dict(status="TIMEOUT")
        p.kill()
    p.join()
    return dict(learner=learner.name, group=learner.group, dataset=dataset, seed=seed, **res)


def pareto_front(points) -> list[int]:
    """Indices of (literals, accuracy) points that no other point dominates (at most as many
    literals and at least as accurate, one of them strictly)."""
    front = []
    for i, (li, ai) in enumerate(points):
        if not any((lj <= li and aj >= ai) and (lj < li or aj > ai) for j, (lj, aj) in enumerate(points) if j != i):
            front.append(i)
    return sorted(front, key=lambda i: points[i][0])


def summarize(rows: list[dict]):
    """Mean over seeds per (dataset, learner) of the fits that finished (``fits`` of ``runs``);
    a DataFrame."""
    import pandas as pd

    df = pd.DataFrame(rows)
    ok = df[df["status"] == "ok"]
    if ok.empty:
        return ok
    cols = [c for c in ("accuracy", "literals", "cpu", "objective", "bound", "gap") if c in ok]
    agg = ok.groupby(["dataset", "learner"], sort=False)[cols].mean().reset_index()
    agg["fits"] = ok.groupby(["dataset", "learner"], sort=False).size().to_numpy()
    runs = df.groupby(["dataset", "learner"], sort=False).size()  # finished or not (TIMEOUT, error)
    agg["runs"] = [int(runs[(d, lr)]) for d, lr in zip(agg["dataset"], agg["learner"])]
    if "bound_space" in ok:  # the seeds' spaces, each once ("" for a learner without a bound)
        agg["bound_space"] = ok.groupby(["dataset", "learner"], sort=False)["bound_space"].apply(
            lambda s: ", ".join(dict.fromkeys(str(v) for v in s.dropna()))).to_numpy()
    if "limit" in ok:
        agg["limit"] = ok.groupby(["dataset", "learner"], sort=False)["limit"].apply(
            lambda s: ", ".join(k for k in ("time", "work") if (s == k).any())).to_numpy()
    front = []
    for _, g in agg.groupby("dataset", sort=False):
        idx = pareto_front(list(zip(g["literals"], g["accuracy"])))
        front.extend(g.index[idx])
    agg["front"] = agg.index.isin(front)
    return agg


def plot(agg, out_dir: Path) -> list[Path]:
    """One accuracy-vs-literals PNG per dataset with the Pareto front drawn.

    The x axis is symmetric-log (linear below 10 literals), so that a few learners with 60-140
    literals do not squeeze the 0-15 range where most fits lie; labels are placed by
    :func:`_place_labels` so that no two overlap.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    for ds, g in agg.groupby("dataset", sort=False):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for _, r in g.iterrows():
            ax.scatter(r["literals"], r["accuracy"], marker="o" if r["front"] else "x",
                       color="C3" if r["front"] else "C0")
        f = g[g["front"]].sort_values("literals")
        ax.step(f["literals"], f["accuracy"], where="post", color="C3", label="Pareto front")
        ax.set_xscale("symlog", linthresh=10, linscale=1.5)
        ticks = [t for t in (0, 2, 4, 6, 8, 10, 20, 50, 100, 200, 500) if t <= max(10.0, g["literals"].max()) * 1.2]
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.margins(x=0.08, y=0.12)
        ax.set_xlabel("literals (linear below 10, log above)")
        ax.set_ylabel("test accuracy")
        ax.set_title(f"{ds}: accuracy vs literals (mean over seeds)")
        legend = ax.legend(loc="best")
        fig.tight_layout()
        _place_labels(fig, ax, [(r["learner"], r["literals"], r["accuracy"]) for _, r in g.iterrows()],
                      avoid=[legend.get_window_extent(fig.canvas.get_renderer())])
        path = out_dir / f"{ds}_pareto.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        paths.append(path)
    return paths


#: directions (points) of one ring of label offsets around a marker; rings 1-4 are tried, nearest first
_LABEL_DIRECTIONS = ((4, 4), (4, -10), (-4, 4), (-4, -10), (0, 9), (0, -14), (8, -3), (-8, -3))
_LABEL_OFFSETS = [(dx * k, dy * k) for k in (1, 2, 3, 4) for dx, dy in _LABEL_DIRECTIONS]


def _place_labels(fig, ax, points, avoid=()) -> None:
    """Annotate each ``(label, x, y)`` at the first offset of ``_LABEL_OFFSETS`` whose text box
    overlaps no label placed before it (nor a box of ``avoid``, the legend) and stays inside the axes (greedy, in display
    coordinates, highest accuracy first; the last offset tried is kept when none is free; a
    label beyond the nearest ring of offsets gets a leader line)."""
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    placed = list(avoid)
    for label, x, y in sorted(points, key=lambda p: (-p[2], p[1])):
        for k, (dx, dy) in enumerate(_LABEL_OFFSETS):
            ha = "right" if dx < 0 else "center" if dx == 0 else "left"
            far = k >= len(_LABEL_DIRECTIONS)  # beyond the first ring: a thin leader line to the marker
            text = ax.annotate(label, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=7, ha=ha,
                               arrowprops=dict(arrowstyle="-", lw=0.4, color="0.5") if far else None)
            box = text.get_window_extent(renderer).expanded(1.05, 1.15)
            inside = frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1)
            if (inside and not any(box.overlaps(b) for b in placed)) or k == len(_LABEL_OFFSETS) - 1:
                placed.append(box)
                break
            text.remove()


def _objective_bound(r) -> str:
    """``objective / bound`` of a summary row; ``-`` for what the learner does not report."""
    def fmt(key):
        v = r.get(key, float("nan"))
        return "-" if v != v else f"{v:.4f}"

    ob = (fmt("objective"), fmt("bound"))
    return "-" if ob == ("-", "-") else " / ".join(ob)


def _table(agg) -> str:
    lines = ["| dataset | learner | test acc | literals | CPU s | objective / bound | bound over | limit | front |",
             "|---|---|---|---|---|---|---|---|---|"]
    for _, r in agg.iterrows():
        ob = _objective_bound(r)
        space = r.get("bound_space", "")
        limit = r.get("limit", "") or ""
        if r["fits"] < r["runs"]:  # a mean over fewer seeds: say so (the others in the CSV's status)
            limit = f"{limit} {r['fits']}/{r['runs']} fits".strip()
        lines.append(f"| {r['dataset']} | {r['learner']} | {r['accuracy']:.3f} | {r['literals']:.1f} | "
                     f"{r['cpu']:.2f} | {ob} | {space if isinstance(space, str) else ''} | "
                     f"{limit} | {'*' if r['front'] else ''} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS))
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    ap.add_argument("--learners", nargs="+", default=None, help="only these learners (names in LEARNERS)")
    ap.add_argument("--project-only", action="store_true", help="only the project's learners")
    ap.add_argument("--quick", action="store_true", help="first dataset, seed 0, small work limits")
    ap.add_argument("--timeout", type=float, default=600.0, help="safety-net wall-clock seconds per fit")
    ap.add_argument("--data-dir", default=None, help="dataset files (default INTERPRETOPT_DATA)")
    ap.add_argument("--out", default="leaderboard", help="directory for leaderboard.csv and the PNGs")
    ap.add_argument("--per-fit", action="store_true", help="also print one row per fit")
    args = ap.parse_args(argv)
    known = {lr.name: lr for lr in LEARNERS}
    unknown = sorted(set(args.learners or ()) - set(known))
    if unknown:
        ap.error(f"unknown learners {unknown}; known: {sorted(known)}")
    learners = [known[n] for n in args.learners] if args.learners else list(LEARNERS)
    if args.project_only:
        learners = [lr for lr in learners if lr.group == "project"]
    datasets, seeds = (args.datasets[:1], args.seeds[:1]) if args.quick else (args.datasets, args.seeds)
    runnable = []
    for lr in learners:
        miss = missing_module(lr)
        if miss:
            print(f"skipped {lr.name}: package {miss!r} not importable; install with: {lr.install}")
        else:
            runnable.append(lr)
    rows = []
    for ds in datasets:
        for seed in seeds:
            for lr in runnable:
                row = run_one(lr, ds, seed, quick=args.quick, timeout=args.timeout, data_dir=args.data_dir)
                rows.append(row)
                print(f"  {ds} seed {seed} {lr.name}: {row['status']}"
                      + (f" acc {row['accuracy']:.3f} literals {row['literals']} CPU {row['cpu']:.2f} s"
                         if row["status"] == "ok" else ""), flush=True)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    import pandas as pd

    pd.DataFrame(rows).to_csv(out_dir / "leaderboard.csv", index=False)
    agg = summarize(rows)
    if agg.empty:
        print("no fit finished")
        return 1
    print(_table(agg))
    if args.per_fit:
        print(pd.DataFrame(rows).to_string(index=False))
    for path in plot(agg, out_dir):
        print(f"plot: {path}")
    print(f"CPU seconds, fits in their own processes; rows: {out_dir / 'leaderboard.csv'}"
          f" (INTERPRETOPT_DATA={os.environ.get('INTERPRETOPT_DATA', '')})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
