"""Experiment task ``crl``: Tables 2, 4, 5 and Figure 3 of "Interpretable Companions for Black-Box Models".

One run = one fold of 5-fold cross-validation (``rep`` = fold index, the folds of repetition 0
so that the five reps partition the data) of one learner on one dataset with one black box
(the run's model: ``CRL_RF``, ``CRL_ADA`` or ``CRL_XGB``):

* ``learner: crl`` -- :class:`~interpretopt.methods.crl.CompanionRuleList`; the black box's
  answers on the training rows are out-of-fold predictions of ``oof_folds`` black boxes fitted
  on the other training rows (cached and shared between runs); ``alpha: auto`` is Algorithm 2.
* ``learner: corels`` / ``sbrl`` -- :class:`~interpretopt.methods.crl.PairedRuleList` on the
  same mined pool, tuned as Appendix A on a validation part of the training rows (the paper
  tuned on the test fold; we do not) over ``corels_policies`` x ``corels_max_nodes`` or
  ``sbrl_lams`` x ``sbrl_chains``, keeping lists under 20 conditions, then refitted.
* ``learner: cart`` / ``c45`` -- a stand-alone tree (Gini; entropy standing in for C4.5) of
  at most 19 splits: Figure 3's markers at transparency 1.

Metrics on the test fold: ``autac`` (the curve continued at its last accuracy up to
transparency 1; equal to Proposition 4's area whenever the list reaches transparency 1, as
the paired lists always do), ``autac_prop4`` (Proposition 4 over ``[0, T_M]``),
``acc_t000 .. acc_t100`` (the stochastic CRL's accuracy at transparency 0, 0.1, .., 1: the
curve interpolated linearly, Definition 3), ``blackbox_accuracy``, ``transparency_max``,
``accuracy_full``, ``n_rules``, ``n_conditions``; on the training rows ``train_autac`` and
``objective``. Artifacts: ``curve.csv`` (the points ``(T_m, A_m)``) and ``rules.txt``
(Table 3's layout). :func:`figure3` draws the mean curves with ±1 std bands from a results table.
"""

from __future__ import annotations

import math
import time
import zlib

import numpy as np

__all__ = ["run", "figure3", "T_GRID"]

T_GRID = tuple(round(0.1 * k, 1) for k in range(11))

_DEFAULTS = {
    "learner": "crl", "alpha": "auto", "rule_labels": "mined", "C0": 0.001, "n_iter": 50_000, "min_support": 0.05, "max_card": 2,
    "n_quantiles": 7, "max_rules_per_class": None, "memory_limit_mb": None, "max_mining_samples": None,
    "oof_folds": 5, "n_folds": 5, "validation_size": 0.25,
    "corels_lam": 0.0, "corels_policies": ["curious", "lower_bound", "dfs", "bfs", "objective"],
    "corels_max_nodes": [20_000], "corels_max_length": 9,
    "sbrl_lams": [1, 2, 5, 10, 15, 20, 25, 30], "sbrl_chains": [5], "sbrl_n_iter": 2000, "sbrl_eta": 1.0,
    "max_leaf_nodes": 20,
}


def _acc_at(T, A, t):
    """Accuracy of the stochastic CRL at transparency t: the curve interpolated (A_M beyond T_M)."""
    return float(np.interp(min(t, T[-1]), T, A))


def _curve_metrics(curve) -> dict:
    T, A = curve.transparency, curve.accuracy
    out = {f"acc_t{int(round(100 * t)):03d}": _acc_at(T, A, t) for t in T_GRID}
    out.update(autac=curve.autac_completed, autac_prop4=curve.autac, blackbox_accuracy=float(A[0]),
               transparency_max=float(T[-1]), accuracy_full=float(A[-1]), n_rules=int(curve.n_rules))
    return out


def _oof(ctx, model, train, y):
    """Out-of-fold black-box predictions on the training rows (black boxes cached by rows)."""
    from interpretopt.data import kfold_indices

    k = int(ctx.params.get("oof_folds", _DEFAULTS["oof_folds"]))
    seed = zlib.crc32(f"crl-oof/{ctx.dataset_label}/{ctx.rep}/{k}".encode())
    pred = np.empty(len(train), dtype=y.dtype)
    for tr, te in kfold_indices(len(train), k, random_state=seed, stratify=y[train]):
        bb = ctx.black_box(model, train[np.sort(tr)])
        pred[te] = bb.predict(ctx.X[train[te]])
    return pred


def _validation_split(n, y, size, seed):
    from interpretopt.data import train_test_indices

    return train_test_indices(n, size, random_state=seed, stratify=y)


def run(ctx) -> dict:
    p = dict(_DEFAULTS)
    unknown = set(ctx.params) - set(_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown crl parameter(s) {sorted(unknown)}; known: {sorted(_DEFAULTS)}")
    p.update(ctx.params)
    learner = p["learner"]
    if learner not in ("crl", "corels", "sbrl", "cart", "c45"):
        raise ValueError(f"unknown learner {learner!r}; valid: crl, corels, sbrl, cart, c45")
    k = int(p["n_folds"])
    if ctx.rep >= k:
        raise ValueError(f"rep {ctx.rep} is not a fold of {k}-fold cross-validation; set repetitions <= n_folds")
    train, test = ctx.kfold(k, key="crl", rep=0)[ctx.rep]
    train, test = np.sort(train), np.sort(test)
    X_df = ctx.dataset.X
    Xtr, Xte = X_df.iloc[train].reset_index(drop=True), X_df.iloc[test].reset_index(drop=True)
    ytr, yte = ctx.y[train], ctx.y[test]
    ftypes = getattr(ctx.dataset, "feature_types", None)
    rs = int(ctx.rng.integers(2**31 - 1))
    out: dict = {"learner": learner, "n_train": int(len(train)), "n_test": int(len(test))}

    if learner in ("cart", "c45"):
        from interpretopt.methods.crl import tree_marker

        mk = tree_marker(ctx.X[train], ytr, ctx.X[test], yte, criterion="gini" if learner == "cart" else "entropy",
                         max_leaf_nodes=int(p["max_leaf_nodes"]), random_state=rs)
        out.update(accuracy_full=mk["accuracy"], acc_t100=mk["accuracy"], transparency_max=1.0,
                   n_conditions=mk["n_splits"], n_leaves=mk["n_leaves"], autac=math.nan)
        return out

    model = ctx.models[0] if ctx.models else "CRL_RF"
    t0 = time.perf_counter()
    bb = ctx.black_box(model, train)
    bb_test = bb.predict(ctx.X[test])
    out["blackbox_seconds"] = time.perf_counter() - t0
    mining = dict(min_support=float(p["min_support"]), max_card=int(p["max_card"]), n_quantiles=int(p["n_quantiles"]),
                  max_rules_per_class=p["max_rules_per_class"], memory_limit_mb=p["memory_limit_mb"],
                  max_mining_samples=p["max_mining_samples"], feature_types=ftypes)

    t1 = time.perf_counter()
    if learner == "crl":
        from interpretopt.methods.crl import CompanionRuleList

        bb_train = _oof(ctx, model, train, ctx.y)
        out["oof_seconds"] = time.perf_counter() - t1
        t1 = time.perf_counter()
        alpha = p["alpha"] if p["alpha"] == "auto" else float(p["alpha"])
        est = CompanionRuleList(black_box=bb, refit=False, alpha=alpha, C0=float(p["C0"]), n_iter=int(p["n_iter"]),
                                rule_labels=str(p["rule_labels"]), random_state=rs, **mining)
        est.fit(Xtr, ytr, blackbox_pred=bb_train)
        out.update(alpha=float(est.alpha_), objective=float(est.objective_), train_autac=float(est.train_curve_.autac),
                   n_accepted=int(est.anneal_.n_accepted))
    else:
        from interpretopt.methods.crl import PairedRuleList

        if learner == "corels":
            grid = [{"policy": pol, "max_nodes": int(nn), "lam": float(p["corels_lam"]),
                     "max_length": int(p["corels_max_length"])}
                    for nn in p["corels_max_nodes"] for pol in p["corels_policies"]]
        else:
            grid = [{"lam": float(lam), "n_chains": int(nc), "n_iter": int(p["sbrl_n_iter"]), "eta": float(p["sbrl_eta"]),
                     "max_length": int(p["corels_max_length"])}
                    for lam in p["sbrl_lams"] for nc in p["sbrl_chains"]]
        best = None
        if len(grid) > 1:
            fit_i, val_i = _validation_split(len(train), ytr, float(p["validation_size"]), rs)
            for params in grid:
                m = PairedRuleList(learner=learner, black_box=None, refit=False, params=params, random_state=rs,
                                   **mining).fit(Xtr.iloc[fit_i].reset_index(drop=True), ytr[fit_i])
                if m.n_conditions_ >= 20:
                    continue
                acc = float(np.mean(m.rules_prediction(Xtr.iloc[val_i].reset_index(drop=True)) == ytr[val_i]))
                if best is None or acc > best[0]:
                    best = (acc, params)
        params = grid[0] if best is None else best[1]
        est = PairedRuleList(learner=learner, black_box=bb, refit=False, params=params, random_state=rs, **mining)
        est.fit(Xtr, ytr, blackbox_pred=bb.predict(ctx.X[train]))
        out.update({f"tuned_{k}": v for k, v in params.items() if k in ("policy", "max_nodes", "lam", "n_chains")})
    out["fit_seconds"] = time.perf_counter() - t1
    out["n_pool"] = int(len(est.pool_))
    out["mining_rows"] = int(est.mining_report_.n_rows_used)
    out["n_conditions"] = int(est.n_conditions_)
    curve = est.transparency_accuracy_curve(Xte, yte, blackbox_pred=bb_test)
    out.update(_curve_metrics(curve))
    out["artifacts"] = {
        "curve.csv": "m,transparency,accuracy\n" + "\n".join(
            f"{m},{t:.6f},{a:.6f}" for m, (t, a) in enumerate(zip(curve.transparency, curve.accuracy))),
        "rules.txt": est.render(Xte, yte, blackbox_pred=bb_test),
    }
    return out


def figure3(results, out_path, *, learners=("crl", "corels", "sbrl"), markers=("cart", "c45"), facet="dataset",
            models=None):
    """Figure 3: mean transparency-accuracy curves with ±1 std bands over folds, tree markers at t = 1.

    Parameters
    ----------
    results : DataFrame of the experiment's results (one row per run, with ``acc_t*`` columns).
    out_path : file name prefix; one PNG per facet value is written (``<out_path>_<value>.png``).
    models : keep only runs of these black boxes (``models`` column).
    """
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    df = results
    if "run_status" in df:
        df = df[df["run_status"] == "ok"]
    if models is not None and "models" in df:
        df = df[df["models"].isin(models) | df["learner"].isin(markers)]
    cols = [f"acc_t{int(round(100 * t)):03d}" for t in T_GRID]
    written = []
    for value, sub in df.groupby(facet):
        fig, ax = plt.subplots(figsize=(4.5, 3.5))
        for lr in learners:
            s = sub[sub["learner"] == lr]
            if s.empty:
                continue
            vals = s[cols].to_numpy(dtype=float)
            mu, sd = np.nanmean(vals, axis=0), np.nanstd(vals, axis=0)
            ax.plot(T_GRID, mu, label=lr.upper())
            ax.fill_between(T_GRID, mu - sd, mu + sd, alpha=0.2)
        for lr, mk in zip(markers, ("o", "s")):
            s = sub[sub["learner"] == lr]
            if not s.empty:
                name = "CART" if lr == "cart" else "entropy tree (C4.5 stand-in)"
                ax.plot([1.0], [float(s["accuracy_full"].mean())], mk, label=name)
        ax.set_xlabel("transparency")
        ax.set_ylabel("accuracy")
        ax.set_title(str(value))
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = f"{out_path}_{value}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def _main(argv=None) -> int:
    """``python -m interpretopt.experiments.tasks.crl RESULTS_DIR [--model CRL_RF]``: draw Figure 3."""
    import argparse
    from pathlib import Path

    import pandas as pd

    ap = argparse.ArgumentParser(description="Figure 3 (banded trade-off curves) from a crl results directory")
    ap.add_argument("results_dir")
    ap.add_argument("--model", action="append", help="keep runs of this black box (repeatable)")
    ap.add_argument("--out", default=None, help="file prefix (default <results_dir>/plots/figure3)")
    args = ap.parse_args(argv)
    res = Path(args.results_dir)
    df = pd.read_parquet(res / "results.parquet")
    out = args.out or str(res / "plots" / "figure3")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    for path in figure3(df, out, models=args.model):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
