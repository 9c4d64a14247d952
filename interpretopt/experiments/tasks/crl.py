"""Experiment task ``crl``: Tables 2, 4, 5 and Figure 3 of "Interpretable Companions for Black-Box Models".

One run = one fold of 5-fold cross-validation (``rep`` = fold index, the folds of repetition 0
so that the five reps partition the data) of one learner on one dataset with one black box
(the run's model: ``CRL_RF``, ``CRL_ADA`` or ``CRL_XGB``). Every list learner is held to the
same complexity budget, Appendix A's "number of conditions < 20" (``max_conditions``):

* ``learner: crl`` -- :class:`~interpretopt.methods.crl.CompanionRuleList`; the black box's
  answers on the training rows are out-of-fold predictions of ``oof_folds`` black boxes fitted
  on the other training rows (cached and shared between runs; the default 2 is the authors' code,
  ``paper/baselines/base_models.py``, where a black box trained on each half of the training fold
  answers the other half); ``alpha: auto`` is Algorithm 2
  (the highest training AUTAC among the alphas whose list has fewer than ``max_conditions``
  conditions; ``cap_met`` is false when no alpha does). The list ends in a default rule
  (``default_rule``), so it reaches transparency 1.
* ``learner: corels`` / ``sbrl`` -- :class:`~interpretopt.methods.crl.PairedRuleList`, mined as
  each package mines (``baseline_mining: learner``), tuned as Appendix A's Algorithms 3 and 4
  over ``corels_policies`` x ``corels_max_nodes`` (trie nodes, the reference's units; one run
  per policy, the smaller budgets read from it) or ``sbrl_lams`` x ``sbrl_chains`` (one run of
  the largest number of chains per lambda, the first ``Nc`` chains read from it), keeping the
  most accurate list with fewer than ``max_conditions`` conditions on the tuning rows:
  ``baseline_tuning: test`` is the paper's protocol (the held-out fold), ``validation`` a
  part of the training fold (the chosen setting is then refitted on the whole training fold).
* ``learner: cart`` / ``c45`` -- a stand-alone tree (Gini; entropy standing in for C4.5) of
  at most 19 splits: Figure 3's markers at transparency 1.

Metrics on the test fold: ``autac`` (Proposition 4 on the complete list, which reaches
transparency 1 through its default rule), ``autac_completed`` (the curve continued at its
last accuracy up to transparency 1; equal to ``autac`` when the list reaches it),
``acc_t000 .. acc_t100`` (the stochastic CRL's accuracy at transparency 0, 0.05, .., 1: the
curve interpolated linearly, Definition 3), ``blackbox_accuracy``, ``transparency_max``,
``accuracy_full``, ``n_rules``, ``n_conditions``, ``cap_met``; CRL adds ``alpha_chosen`` (Algorithm 2's
alpha, NaN when no alpha met the cap), ``alpha_used`` (the alpha of the list kept), ``train_autac`` and ``objective``; CORELS adds ``status`` ("optimal" only
when its queue was exhausted, else "feasible"), ``bound``, ``gap`` and ``n_nodes``.
Artifacts: ``curve.csv`` (the points ``(T_m, A_m)``) and ``rules.txt`` (Table 3's layout).
:func:`figure3` draws the mean curves with ±1 std bands from a results table.
"""

from __future__ import annotations

import math
import time
from numbers import Integral, Real

import numpy as np

from interpretopt._validation import Interval, StrOptions
from interpretopt.experiments.tasks import Param, estimator_default, estimator_params, task_params
from interpretopt.methods.crl import CompanionRuleList, PairedRuleList

__all__ = ["run", "figure3", "T_GRID", "PARAMETERS"]

T_GRID = tuple(round(0.05 * k, 2) for k in range(21))

_SHARE = [Interval(Real, 0, 1, closed="neither")]
_POSINT = [Interval(Integral, 1, None, closed="left")]
PARAMETERS = {
    "learner": Param([StrOptions({"crl", "corels", "sbrl", "cart", "c45"})], "crl", "the learner of the run"),
    "oof_folds": Param([Interval(Integral, 2, None, closed="left")], 2,
                       "folds of the out-of-fold black-box answers (2: the authors' two cross-fitted halves)"),
    "n_folds": Param([Interval(Integral, 2, None, closed="left")], 5, "folds of the cross-validation (rep = fold)"),
    "validation_size": Param(_SHARE, 0.25, "tuning share of the training fold (baseline_tuning: validation)"),
    "baseline_mining": Param([StrOptions({"learner", "pool"})], "learner", "PairedRuleList's mining"),
    "baseline_tuning": Param([StrOptions({"test", "validation"})], "test", "rows the baselines are tuned on"),
    "corels_min_support": Param(_SHARE, 0.05, "CORELS's mining support"),
    "corels_lam": Param([Interval(Real, 0, None, closed="left")], 0.0, "CORELS's per-rule penalty"),
    "corels_policies": Param([list, tuple], ("curious", "lower_bound", "dfs", "bfs", "objective"),
                             "CORELS search policies tuned over"),
    "corels_max_nodes": Param([list, tuple], (100_000, 150_000, 200_000, 250_000, 300_000),
                              "CORELS trie-node budgets tuned over"),
    "corels_max_length": Param(_POSINT + [None], None, "CORELS's longest list"),
    "corels_max_expansions": Param(_POSINT + [None], 5000, "CORELS's cap on expanded nodes (a guard the "
                                   "reference lacks; see heuristics.corels)"),
    "sbrl_min_support": Param(_SHARE, 0.05, "SBRL's mining support"),
    "sbrl_lams": Param([list, tuple], (1, 2, 5, 10, 15, 20, 25, 30), "SBRL lambdas tuned over"),
    "sbrl_chains": Param([list, tuple], (5, 10, 15, 20, 25, 30), "SBRL chain counts tuned over"),
    "sbrl_n_iter": Param(_POSINT, 2000, "SBRL iterations per chain"),
    "sbrl_eta": Param([Interval(Real, 0, None, closed="neither")], 1.0, "SBRL's eta"),
    "sbrl_max_length": Param(_POSINT, 19, "SBRL's longest list"),
    "max_leaf_nodes": Param([Interval(Integral, 2, None, closed="left")], 20, "leaves of the CART / C4.5 markers"),
}
ESTIMATORS = (CompanionRuleList, PairedRuleList)
SET_BY_TASK = ("black_box", "refit", "random_state", "feature_types", "blackbox_train_pred", "cv", "learner",
               "params", "mining")


SOLVER_ROLES: dict = {}
#: what CRL does instead of solving an optimization problem (the refusal of a `solver:` key says it)
SEARCH = ("the companion rule list is searched by simulated annealing over mined rules, and its baselines "
          "are greedy (CART / C4.5 trees, rule-list learners)")


def solver_roles(params) -> dict:
    """CRL and its baselines solve no LP or MILP."""
    return {}


def _col(t: float) -> str:
    return f"acc_t{int(round(100 * t)):03d}"


def _acc_at(T, A, t):
    """Accuracy of the stochastic CRL at transparency t: the curve interpolated (A_M beyond T_M)."""
    return float(np.interp(min(t, T[-1]), T, A))


def _curve_metrics(curve) -> dict:
    T, A = curve.transparency, curve.accuracy
    out = {_col(t): _acc_at(T, A, t) for t in T_GRID}
    out.update(autac=curve.autac, autac_completed=curve.autac_completed, blackbox_accuracy=float(A[0]),
               transparency_max=float(T[-1]), accuracy_full=float(A[-1]), n_rules=int(curve.n_rules))
    return out


def _oof(ctx, model, train, y):
    """Out-of-fold black-box predictions on the training rows (black boxes cached by rows)."""
    from interpretopt.data import kfold_indices

    k = int(task_params(ctx.params, PARAMETERS)["oof_folds"])
    seed = ctx.seed_for("crl-oof", ctx.rep, k)
    pred = np.empty(len(train), dtype=y.dtype)
    for tr, te in kfold_indices(len(train), k, random_state=seed, stratify=y[train]):
        bb = ctx.black_box(model, train[np.sort(tr)])
        pred[te] = bb.predict(ctx.X[train[te]])
    return pred


def _validation_split(n, y, size, seed):
    from interpretopt.data import train_test_indices

    return train_test_indices(n, size, random_state=seed, stratify=y)


def run(ctx) -> dict:
    """One fold of one learner. Every limit of CRL and its baselines is a work limit (annealing
    ``n_iter``, CORELS ``corels_max_nodes``, SBRL ``sbrl_n_iter``), none a wall-clock one, so a
    run is never ``limited_by_time``."""
    out = _run(ctx)
    out.setdefault("limited_by_time", False)
    return out


def _run(ctx) -> dict:
    p = task_params(ctx.params, PARAMETERS)
    crl_kw = estimator_params(ctx.params, CompanionRuleList, exclude=SET_BY_TASK)
    p["max_conditions"] = crl_kw.get("max_conditions", estimator_default(CompanionRuleList, "max_conditions"))
    learner = p["learner"]
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
    mining = dict(estimator_params(ctx.params, PairedRuleList, exclude=SET_BY_TASK), feature_types=ftypes)
    if learner != "crl":
        mining["min_support"] = float(p[f"{learner}_min_support"])

    t1 = time.perf_counter()
    cap = int(p["max_conditions"])
    if learner == "crl":
        import warnings

        bb_train = _oof(ctx, model, train, ctx.y)
        out["oof_seconds"] = time.perf_counter() - t1
        t1 = time.perf_counter()
        est = CompanionRuleList(**crl_kw, black_box=bb, refit=False, feature_types=ftypes, random_state=rs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the run records cap_met instead
            est.fit(Xtr, ytr, blackbox_pred=bb_train)
        out.update(alpha_chosen=float(est.alpha_) if est.cap_met_ else math.nan, alpha_used=float(est.alpha_),
                   cap_met=bool(est.cap_met_), objective=float(est.objective_),
                   train_autac=float(est.train_curve_.autac), n_accepted=int(est.anneal_.n_accepted))
    else:
        est = _fit_baseline(ctx, learner, p, bb, train, test, Xtr, Xte, ytr, yte, rs, mining, out)
    out["fit_seconds"] = time.perf_counter() - t1
    out["n_pool"] = int(len(est.pool_))
    out["mining_rows"] = int(est.mining_report_.n_rows_used)
    out["n_conditions"] = int(est.n_conditions_)
    out.setdefault("cap_met", bool(est.n_conditions_ < cap))
    curve = est.transparency_accuracy_curve(Xte, yte, blackbox_pred=bb_test)
    out.update(_curve_metrics(curve))
    out["artifacts"] = {
        "curve.csv": "m,transparency,accuracy\n" + "\n".join(
            f"{m},{t:.6f},{a:.6f}" for m, (t, a) in enumerate(zip(curve.transparency, curve.accuracy))),
        "rules.txt": est.render(Xte, yte, blackbox_pred=bb_test),
    }
    return out


def _opt_int(v):
    return None if v is None else int(v)


def _baseline_grid(learner, p):
    if learner == "corels":
        budgets = sorted(int(v) for v in p["corels_max_nodes"])
        return [{"policy": str(pol), "max_nodes": nn} for pol in p["corels_policies"] for nn in budgets]
    return [{"lam": float(lam), "n_chains": int(nc)} for lam in p["sbrl_lams"] for nc in sorted(p["sbrl_chains"])]


def _learner_results(est, learner, p, y01, rs):
    """Every grid setting's learner result, from one run per policy (CORELS) or per lambda (SBRL)."""
    res = {}
    if learner == "corels":
        budgets = sorted(int(v) for v in p["corels_max_nodes"])
        ml = p["corels_max_length"]
        for pol in p["corels_policies"]:
            r = est.run_learner(y01, policy=str(pol), max_nodes=budgets[-1], snapshot_nodes=budgets[:-1],
                                lam=float(p["corels_lam"]), max_length=_opt_int(ml),
                                max_expansions=_opt_int(p["corels_max_expansions"]))
            for nn in budgets:
                res[(str(pol), nn)] = r if nn == budgets[-1] else r.snapshots[nn]
        return res
    chains = sorted(int(v) for v in p["sbrl_chains"])
    for lam in p["sbrl_lams"]:
        r = est.run_learner(y01, rng=rs, lam=float(lam), n_chains=chains[-1], n_iter=int(p["sbrl_n_iter"]),
                            eta=float(p["sbrl_eta"]), max_length=int(p["sbrl_max_length"]))
        cards = [len(est.pool_.itemsets[i]) for i in est._antecedents]
        for nc in chains:
            res[(float(lam), nc)] = r if nc == chains[-1] else r.first_chains(
                nc, est.pool_.packed[est._antecedents], y01, cards=cards, lam=float(lam), eta=float(p["sbrl_eta"]))
    return res


def _fit_baseline(ctx, learner, p, bb, train, test, Xtr, Xte, ytr, yte, rs, mining, out):
    """Appendix A's Algorithms 3 / 4: the most accurate list under the condition cap on the tuning rows."""
    cap = int(p["max_conditions"])
    mode = str(p["baseline_tuning"])
    if mode == "test":  # the paper's protocol: tuned on the held-out fold
        fit_X, fit_y, tune_X, tune_y = Xtr, ytr, Xte, yte
    else:
        fit_i, val_i = _validation_split(len(train), ytr, float(p["validation_size"]), rs)
        fit_X, fit_y = Xtr.iloc[fit_i].reset_index(drop=True), ytr[fit_i]
        tune_X, tune_y = Xtr.iloc[val_i].reset_index(drop=True), ytr[val_i]
    kw = dict(learner=learner, black_box=None, refit=False, mining=str(p["baseline_mining"]), random_state=rs,
              **mining)
    est = PairedRuleList(**kw).mine(fit_X, fit_y)
    y01 = (np.asarray(fit_y) == np.unique(ytr)[1]).astype(np.int8)
    t_mine = time.perf_counter()
    results = _learner_results(est, learner, p, y01, rs)
    out["learner_seconds"] = time.perf_counter() - t_mine
    scored = []
    for key, r in results.items():
        est.fit(fit_X, fit_y, result=r)
        acc = float(np.mean(est.rules_prediction(tune_X) == tune_y))
        scored.append((est.n_conditions_ < cap, acc, -est.n_conditions_, key))
    ok = [t for t in scored if t[0]]
    out["cap_met"] = bool(ok)
    best = max(ok, key=lambda t: t[1]) if ok else max(scored, key=lambda t: (t[2], t[1]))
    key = best[3]
    names = ("policy", "max_nodes") if learner == "corels" else ("lam", "n_chains")
    out.update({f"tuned_{n}": v for n, v in zip(names, key)})
    out["n_grid"] = len(scored)
    if mode == "test":  # the pool was mined on the training fold: keep it
        final = est
        final.black_box = bb
        final.fit(Xtr, ytr, blackbox_pred=bb.predict(ctx.X[train]), result=results[key])
    else:
        final = PairedRuleList(**{**kw, "black_box": bb})
        params = dict(zip(names, key))
        if learner == "corels":
            ml = p["corels_max_length"]
            params.update(lam=float(p["corels_lam"]), max_length=_opt_int(ml),
                          max_expansions=_opt_int(p["corels_max_expansions"]))
        else:
            params.update(n_iter=int(p["sbrl_n_iter"]), eta=float(p["sbrl_eta"]), max_length=int(p["sbrl_max_length"]))
        final.params = params
        final.fit(Xtr, ytr, blackbox_pred=bb.predict(ctx.X[train]))
    r = final.result_
    if learner == "corels":
        out.update(status=r.status, bound=float(r.bound), gap=float(r.gap), n_nodes=int(r.n_nodes),
                   n_expanded=int(r.n_expanded), train_objective=float(r.objective))
    return final


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
    cols = [_col(t) for t in T_GRID]
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
