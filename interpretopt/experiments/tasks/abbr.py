"""Experiment task ``abbr``: Tables 2, 4 and 5 of "Explaining Confident Black-Box Predictions".

One run = one repetition (a train/test split) of one configuration on one dataset:

1. ``ctx.split(test_size)`` gives the train/test rows; the black box (the run's model, default
   ``RF500``) is fitted on the train rows; its predicted probabilities of class 1 rank the
   train rows (search) and the test rows (evaluation) separately. With ``blackbox_fraction``
   set, the black box is fitted on that share of the train rows only and the search uses the
   rest, so that the search sees the black box out of sample too.
2. ``mode``:

   * ``rule_list`` (params ``s, L, M``): :class:`~interpretopt.methods.abbr.RuleListSearch`;
   * ``checklist`` (``s, K``): :class:`~interpretopt.methods.abbr.ChecklistSearch`;
   * ``baseline`` (``s, M, p, k``): :class:`~interpretopt.methods.abbr.GloballyConsistentRuleSearch`
     (Section 5.2); a run whose MILPs find no rule reports ``abbr_at_s = NaN`` and the counts
     of MILP statuses, with ``milp_outcome = node_limit`` when any MILP stopped at its node limit
     (the paper's "N/A" at p = 0.9: no rule within the budget), ``time_limit`` when the safety net
     stopped one; the baseline's list is annealed, so no run of it claims a ``status``;
   * ``random_rules`` (``n_rules, p``): Appendix A; 1000 random rules of up to 5 conditions,
     the one of highest train ABBR and the one of highest train consistency at threshold p;
     their generalization gaps (train minus test consistency, in percent, eq. 13).

   Shared work (Section 5.1's grid re-uses it): the black box's scores of a split are
   computed once and kept (``<out>/abbr-cache/*.npz``, arrays only, verified by a content hash;
   a few hundred kB per split, instead of the fitted forest); the rule pool R~ depends only on
   (split, L) and the filtered conditions C~ only on the split, so each is built once per
   process (seeded by the split and L, not by the run; kept in memory, not on disk) and shared
   by every s, M and K. ``time_pool`` is the build time of a run that built its
   pool, ``time_pool_shared`` the build time of a pool it reused. A rule list's annealing is
   seeded by (split, L, s), not by the run, so the runs that differ only in M draw alike: with
   the warm start of :class:`~interpretopt.methods.abbr.RuleListSearch` (``warm_start_M = 3``)
   an M = 5 run first repeats the M = 3 run's search exactly, and its in-sample value is never
   below that run's.
3. Metrics on the test rows: ``abbr_at_s``, ``optimality_ratio`` (eq. 12), ``support``,
   ``abbr``; on the train rows: ``abbr_at_s_train``, ``optimality_ratio_train``; sizes of
   the pools, timings per phase, and ``label`` (a short name of the configuration used as a
   table column). With ``certify: true`` (rule lists) the exact MILP is solved over the whole
   filtered pool R~, with the annealed list as its MIP start, and its ``status``,
   ``objective``, ``bound`` and ``gap`` are the run's (``certify_pool = filtered``); with
   ``certify_max_rules`` set it sees only that many rules of highest ABBR plus the annealed
   list, and its values are reported as ``restricted_*`` (``certify_pool = restricted``),
   never as the run's status or bound. The certifying MILP runs under the config's solver
   settings, the limits they leave unset from ``CERTIFY_LIMITS`` (a node limit; the time limit
   is a safety net).
4. ``limited_by_time``: True when a wall-clock safety net stopped a MILP of the run (the
   certificate's or a baseline seed's), so that its values may differ on another machine.
"""

from __future__ import annotations

import math
import time
from numbers import Integral, Real

import numpy as np

from interpretopt._validation import Interval, StrOptions
from interpretopt.evaluation import abbr as metrics
from interpretopt.experiments.tasks import Param, estimator_default, estimator_params, task_params
from interpretopt.methods.abbr import SOLVER_ROLES as ABBR_SOLVER_ROLES
from interpretopt.methods.abbr import ChecklistSearch, GloballyConsistentRuleSearch, RuleListSearch
from interpretopt.solvers._roles import solver_columns, solver_for

__all__ = ["run", "PARAMETERS"]

PARAMETERS = {
    "mode": Param([StrOptions({"rule_list", "checklist", "baseline", "random_rules"})], "rule_list",
                  "the explanation searched (see the module docstring)"),
    "test_size": Param([Interval(Real, 0, 1, closed="neither")], 0.3, "test share of the split"),
    "blackbox_fraction": Param([Interval(Real, 0, 1, closed="neither"), None], None,
                               "fit the black box on this share of the train rows, search on the rest"),
    "n_rules": Param([Interval(Integral, 1, None, closed="left")], 1000, "random rules drawn (random_rules)"),
    "max_conditions": Param([Interval(Integral, 1, None, closed="left")], 5, "conditions per random rule"),
    "certify": Param(["boolean"], False, "solve the exact MILP on the pool (rule_list)"),
    "certify_max_rules": Param([Interval(Integral, 1, None, closed="left"), None], None,
                               "pool rules kept for the MILP (None: the whole filtered pool)"),
    "random_features": Param([StrOptions({"exactly", "up_to"})], "exactly",
                             "random rules: sample exactly max_conditions features (Appendix A.1) or 1..max"),
}
#: the estimator of each mode; their parameters are passed on by name
MODES = {"rule_list": RuleListSearch, "checklist": ChecklistSearch, "baseline": GloballyConsistentRuleSearch}
ESTIMATORS = tuple(MODES.values())
SET_BY_TASK = ("random_state", "solver")


SOLVER_ROLES = ABBR_SOLVER_ROLES
#: what a run without an optimization problem does instead (the refusal of a `solver:` key says it)
SEARCH = ("rule lists and checklists are searched by simulated annealing over mined rules; only mode 'baseline' "
          "(role baseline: one MILP per seed sample) and certify: true with mode 'rule_list' (role certificate) "
          "solve optimization problems")


def solver_roles(params) -> dict:
    """The baseline's MILPs (role ``baseline``) and the certificate (role ``certificate``); the searches none."""
    tp = task_params(params, PARAMETERS)
    if tp["mode"] == "baseline":
        return {"baseline": SOLVER_ROLES["baseline"]}
    if tp["mode"] == "rule_list" and tp["certify"]:
        return {"certificate": SOLVER_ROLES["certificate"]}
    return {}


def _label(mode: str, est) -> str:
    if mode == "rule_list":
        return f"rule list L={est.L} M={est.M}"
    if mode == "checklist":
        return f"checklist K={est.K}"
    return f"baseline p={est.p}"


def _scores(model, X) -> np.ndarray:
    proba = np.asarray(model.predict_proba(X))
    classes = list(getattr(model, "classes_", [0, 1]))
    return proba[:, classes.index(1) if 1 in classes else -1]


def certify_settings(settings):
    """The run's solver settings for the certifying MILP: the config's, with the limits it leaves
    unset taken from :data:`~interpretopt.methods.abbr.CERTIFY_LIMITS` (a node limit that shapes
    the answer, a time limit that is only a safety net)."""
    from interpretopt.methods.abbr import CERTIFY_LIMITS

    missing = {k: v for k, v in CERTIFY_LIMITS.items() if getattr(settings, k) is None}
    return settings.replace(**missing) if missing else settings


def _milp_outcome(est, otherwise: str) -> str:
    """The baseline's seed MILPs in one word: ``time_limit`` (the safety net stopped one),
    ``node_limit`` (the work limit stopped one), else ``otherwise``."""
    if est.n_timeouts_:
        return "time_limit"
    return "node_limit" if est.n_limited_ else otherwise


def run(ctx) -> dict:
    out = _run(ctx)
    out.setdefault("limited_by_time", False)
    return out


def _run(ctx) -> dict:
    """One run: the rows of the split, the black box's scores, then the search of ``mode`` and its metrics."""
    p = task_params(ctx.params, PARAMETERS)
    mode = p["mode"]
    bb_rows, search_rows, test = _split_rows(ctx, p)
    out, sc_train, sc_test = _black_box(ctx, bb_rows, search_rows, test)
    rs = int(ctx.rng.integers(2**31 - 1))
    if mode == "random_rules":
        return _run_random_rules(ctx, p, out, search_rows, test, sc_train, sc_test)
    est, Xtr, Xte = _estimator(ctx, mode, search_rows, test, rs)
    out["label"] = _label(mode, est)
    t1 = time.perf_counter()
    try:
        _fit(ctx, est, mode, Xtr, sc_train, search_rows)
    except Exception as exc:
        if mode != "baseline" or not hasattr(est, "solve_statuses_"):
            raise
        out.update(_baseline_without_rules(est, exc))
        return out
    out["fit_seconds"] = time.perf_counter() - t1
    out.update(_fit_metrics(ctx, est, mode, Xte, sc_test))
    if mode == "baseline":
        out.update(_baseline_counts(est))
        # every seed MILP solved (or some timed out); the annealed list itself is not certified,
        # so the run claims no status, bound or gap
        out["milp_outcome"] = _milp_outcome(est, "all_solved")
        out.update(solver_columns(est.solvers_))
    if mode == "rule_list" and p["certify"]:
        out.update(_certificate(ctx, est, p["certify_max_rules"]))
    return out


def _split_rows(ctx, p: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows the black box is fitted on, the rows searched and the test rows of the run's split."""
    train, test = ctx.split(test_size=float(p["test_size"]))
    if not p["blackbox_fraction"]:
        return train, train, test
    cut = int(round(float(p["blackbox_fraction"]) * len(train)))
    # seeded by the split itself, so every configuration of a repetition shares the black box
    perm = ctx.rng_for("abbr-blackbox-rows", rows=train).permutation(train)
    return np.sort(perm[:cut]), np.sort(perm[cut:]), test


def _black_box(ctx, bb_rows, search_rows, test) -> tuple[dict, np.ndarray, np.ndarray]:
    """The run's first columns (black-box seconds, row counts, test AUC) and the black box's scores."""
    model_name = ctx.models[0] if ctx.models else "RF500"
    t0 = time.perf_counter()
    sc_train, sc_test, bb_seconds = _split_scores(ctx, model_name, bb_rows, search_rows, test)
    out: dict = {"blackbox_seconds": time.perf_counter() - t0, "blackbox_fit_seconds": bb_seconds,
                 "n_train": int(len(search_rows)), "n_test": int(len(test))}
    try:
        from sklearn.metrics import roc_auc_score

        out["blackbox_auc"] = float(roc_auc_score(ctx.y[test], sc_test))
    except ValueError:
        out["blackbox_auc"] = math.nan
    return out, sc_train, sc_test


def _run_random_rules(ctx, p: dict, out: dict, search_rows, test, sc_train, sc_test) -> dict:
    """Mode ``random_rules`` (Appendix A) on the DataFrame's search and test rows."""
    X_df = ctx.dataset.X
    Xtr, Xte = X_df.iloc[search_rows].reset_index(drop=True), X_df.iloc[test].reset_index(drop=True)
    threshold = ctx.params.get("p", estimator_default(GloballyConsistentRuleSearch, "p"))
    out["label"] = f"random rules p={threshold}"
    out.update(_random_rules(Xtr, Xte, sc_train, sc_test, {**p, "p": float(threshold)}, ctx.rng))
    return out


def _estimator(ctx, mode: str, search_rows, test, rs: int):
    """The estimator of ``mode`` with the config's parameters, and the float matrices of the search and test rows."""
    cls = MODES[mode]
    kw = estimator_params(ctx.params, cls, exclude=SET_BY_TASK)
    # the searches read the float matrix of the data (category columns as their codes); it is made
    # once per dataset and process, and the discrete features are given by index, so no run
    # re-validates a DataFrame (measured: 0.3-0.6 s per run on readmission's 39 category columns)
    Xall, cats = _data_matrix(ctx)
    Xtr, Xte = Xall[search_rows], Xall[test]
    kw["discrete"] = _discrete_indices(Xtr, kw.get("discrete", estimator_default(cls, "discrete")),
                                       [str(c) for c in ctx.dataset.X.columns], cats,
                                       int(kw.get("max_discrete_values", estimator_default(cls, "max_discrete_values"))))
    if cls is GloballyConsistentRuleSearch:
        kw["solver"] = solver_for(ctx.solver, SOLVER_ROLES)
        for limit in ("node_limit", "time_limit"):  # the config's limits apply to each MILP
            if limit not in kw and getattr(ctx.settings, limit) is not None:
                kw[limit] = getattr(ctx.settings, limit)
    est = cls(**kw, random_state=rs)
    if cls is RuleListSearch:
        # seeded by (split, L, s), not by the run: the runs that differ in M draw alike, so an M = 5
        # run's warm start repeats the M = 3 run's search and is never below it in-sample
        est.set_params(random_state=ctx.seed_for("abbr-anneal", rows=search_rows, L=int(est.L), s=float(est.s)))
    return est, Xtr, Xte


def _fit(ctx, est, mode: str, Xtr, sc_train, search_rows) -> None:
    """Fit ``est``; the rule pool R~ (per split and L) or the condition table C~ (per split) shared."""
    if mode == "rule_list":
        pool = _cached(ctx, "pool", lambda: est.build_pool(
            Xtr, sc_train, random_state=ctx.seed_for("abbr-pool", rows=search_rows, L=int(est.L))),
            rows=search_rows, scores=sc_train, params={k: getattr(est, k) for k in est._POOL_PARAMS})
        est.fit(Xtr, sc_train, pool=pool)
    elif mode == "checklist":
        table = _cached(ctx, "conditions", lambda: est.build_conditions(Xtr, sc_train), rows=search_rows,
                        scores=sc_train, params={k: getattr(est, k) for k in est._TABLE_PARAMS})
        est.fit(Xtr, sc_train, conditions=table)
    else:
        est.fit(Xtr, sc_train)


def _baseline_without_rules(est, exc: Exception) -> dict:
    """A baseline whose MILPs found no rule: NaN metrics and the MILP statuses."""
    out = _baseline_counts(est)
    out.update(abbr_at_s=math.nan, optimality_ratio=math.nan, support=math.nan, abbr=math.nan,
               n_rules=0, message=str(exc))
    # the paper's "N/A": no rule; a statement about the seed MILPs, not a certificate of a result
    out["milp_outcome"] = _milp_outcome(est, "infeasible")
    return out


def _fit_metrics(ctx, est, mode: str, Xte, sc_test) -> dict:
    """Test metrics, train values, pool sizes, phase timings, the rendered explanation and its size."""
    s = float(est.s)
    out = dict(est.evaluate(Xte, sc_test))
    out["abbr_at_s_train"] = float(est.abbr_)
    out["optimality_ratio_train"] = metrics.optimality_ratio(est.abbr_, s)
    out["support_train"] = float(est.support_)
    out["n_pool"] = int(est.n_pool_)
    out["n_filtered"] = int(est.n_filtered_)
    for phase, sec in est.timings_.items():
        out[f"time_{phase}"] = float(sec)
    out["artifacts"] = {"explanation.txt": est.render([str(c) for c in ctx.dataset.X.columns])}
    if mode == "checklist":
        out["threshold"] = int(est.threshold_)
        out["n_conditions"] = len(est.conditions_)
    else:
        out["n_rules"] = len(est.rules_)
        out["n_conditions"] = int(sum(len(r) for r in est.rules_))
        out["m_star"] = int(est.m_star_)
    return out


def _certificate(ctx, est, max_rules) -> dict:
    """The exact MILP over the filtered pool (or a restricted one), with the annealed list as its MIP start."""
    cert = est.certify(solver_for(ctx.solver, SOLVER_ROLES), certify_settings(ctx.settings),
                       max_rules=None if max_rules is None else int(max_rules))
    out: dict = {"limited_by_time": bool(cert["limited_by_time"])}
    if cert.get("nodes") is not None:
        out["certify_nodes"] = int(cert["nodes"])
    # the solver's status and bound hold over the pool the MILP saw: the filtered pool R~, or
    # (certify_max_rules) a restricted pool, in which case they are reported apart and no
    # status/bound/gap of the run is claimed
    if cert["pool"] == "filtered":
        out.update(status=cert["status"], objective=cert["objective"], bound=cert["bound"], gap=cert["gap"])
    else:
        out.update(restricted_status=cert["status"], restricted_objective=cert["objective"],
                   restricted_bound=cert["bound"], restricted_gap=cert["gap"])
    out.update(certify_pool=cert["pool"], certify_rules=cert["n_rules"], certify_pool_rules=cert["pool_rules"],
               certify_seconds=cert["wall_time"], certify_start_value=cert["start_value"],
               certify_mip_start=cert["mip_start"], solver=cert["solver"],
               **solver_columns({"certificate": {"requested": cert["solver_requested"], "solver": cert["solver"]}}))
    if cert.get("gap_to_anneal") is not None:
        out["certify_gap_to_anneal"] = cert["gap_to_anneal"]
    if cert["objective"] is not None:
        out["certify_best_minus_anneal"] = float(cert["objective"]) - float(est.abbr_)
    return out


# ----------------------------------------------------------------------------- shared per split

def _data_matrix(ctx) -> tuple[np.ndarray, list[int]]:
    """The dataset as the float matrix the estimators read (category columns as codes of the
    column's categories, as the estimators' own validation makes them) and the indices of its
    category columns; once per dataset and process."""
    from interpretopt._validation import validate_data
    from interpretopt.methods.abbr import _matrix

    def make():
        Xv = validate_data(RuleListSearch(), ctx.dataset.X, reset=True, categorical=True, min_samples=2)
        Xa, _names, cats = _matrix(Xv)
        return Xa, list(cats)

    return ctx.memo("abbr/matrix", make)


def _discrete_indices(Xtr: np.ndarray, discrete, names: list[str], cats: list[int], max_values: int) -> list[int]:
    """The estimators' ``discrete`` setting resolved on the search rows (what ``"auto"`` or a list of
    names means for the DataFrame), as column indices for the float matrix."""
    from interpretopt.methods.abbr import _discrete

    return [int(j) for j in np.flatnonzero(_discrete(Xtr, discrete, names, cats, max_values))]


def _cache_key(ctx, kind: str, deps: dict) -> str:
    """SHA-1 key of a shared value: the dataset (label, rows and values of X and y), the config seed and ``deps``."""
    import hashlib
    import json

    from interpretopt.experiments.runner import digest

    # the data's digests are computed once per process (a digest is its own digest, so the key is
    # that of digest([kind, label, seed, ctx.X, ctx.y, deps]))
    dx, dy = ctx.memo("abbr/data-digest", lambda: (digest(ctx.X), digest(ctx.y)))
    return hashlib.sha1(json.dumps(digest([kind, ctx.dataset_label, ctx.seed_for("abbr-cache"), dx, dy,
                                           deps]), sort_keys=True).encode()).hexdigest()[:24]


def _cached(ctx, kind: str, make, **deps):
    """``make()`` once per key and process (``ctx.memo``): the rule pool R~ and the condition table C~.

    These are objects, not arrays, so they are not written to the output directory (a results
    folder must hold data only, never a pickle): a process that needs one builds it again, seeded
    by the split, so every process builds the same one. ``make`` must be a pure function of the
    key (its randomness from ``ctx.seed_for``).
    """
    return ctx.memo(f"abbr/{kind}", make, key=_cache_key(ctx, kind, deps))


def _cached_scores(ctx, make, **deps):
    """The black box's scores of a split (two arrays and the fit seconds): once per key and process, and
    in ``<out>/abbr-cache/scores-<key>.npz`` for every later process or worker.

    The file holds arrays only (read with ``allow_pickle=False``) and the SHA-256 of its key and
    contents; a file that is not such data, or fails its hash, is ignored with a warning and the
    scores are recomputed (see :mod:`interpretopt.experiments._datacache`).
    """
    from interpretopt.experiments._datacache import load_arrays, save_arrays

    key = _cache_key(ctx, "scores", deps)
    out_dir = getattr(ctx, "out_dir", None)
    path = out_dir / "abbr-cache" / f"scores-{key}.npz" if out_dir else None

    def load_or_make():
        stored = load_arrays(path, key) if path is not None else None
        if stored is not None and {"search", "test", "seconds"} <= set(stored):
            return stored["search"], stored["test"], float(stored["seconds"])
        search, test, seconds = make()
        if path is not None:
            save_arrays(path, key, {"search": search, "test": test, "seconds": np.float64(seconds)})
        return search, test, seconds

    return ctx.memo("abbr/scores", load_or_make, key=key)


def _split_scores(ctx, model_name: str, bb_rows, search_rows, test):
    """The black box's scores on the search and test rows of a split, and its fit seconds.

    The black box is fitted here (seeded by the split, as ``ctx.black_box`` would) and only
    its scores are kept, not the model: a 500-tree forest on 10,000 rows is about 120 MB.
    """
    from interpretopt.blackbox import make_model

    def make():
        t0 = time.process_time()
        model = make_model(model_name, random_state=ctx.seed_for("abbr-blackbox", model=model_name, rows=bb_rows))
        model.fit(ctx.X[bb_rows], ctx.y[bb_rows])
        return _scores(model, ctx.X[search_rows]), _scores(model, ctx.X[test]), time.process_time() - t0

    return _cached_scores(ctx, make, model=model_name, bb=bb_rows, search=search_rows, test=test)


def _baseline_counts(est) -> dict:
    out = {f"milp_{k}": int(v) for k, v in est.solve_statuses_.items()}
    out.update(n_seeds=int(est.n_seeds_), n_timeouts=int(est.n_timeouts_), n_limited=int(est.n_limited_),
               milp_seconds=float(est.solve_seconds_), limited_by_time=bool(est.limited_by_time_))
    return out


def _random_rules(Xtr, Xte, sc_train, sc_test, p, rng) -> dict:
    """Appendix A: consistency generalization gap of the ABBR-best vs the consistency-best random rule."""
    from interpretopt.heuristics import abbr_search as H
    from interpretopt.methods.abbr import _discrete, _matrix

    Xa, names, cats = _matrix(Xtr)
    Xb, _, _ = _matrix(Xte)
    disc = _discrete(Xa, "auto", names, cats, 10)
    rules = H.random_rules(Xa, disc, int(p["n_rules"]), max_conditions=int(p["max_conditions"]),
                           exact=p.get("random_features", "exactly") == "exactly", rng=rng)
    ranks = metrics.rank_scores(sc_train)
    thr = float(p["p"])
    ytr, yte = sc_train > thr, sc_test > thr

    def cover(X, rule):
        c = np.ones(X.shape[0], bool)
        for cond in rule:
            c &= H.evaluate_condition(X, cond)
        return c

    cov = np.array([cover(Xa, r) for r in rules]).astype(np.float64)
    counts = cov.sum(axis=1)
    ab = (cov @ ranks.astype(np.float64)) / np.maximum(counts, 1) / len(ranks)
    cons = (cov @ ytr.astype(np.float64)) / np.maximum(counts, 1)
    # highest value; ties to the larger support, then the first drawn
    i_abbr = int(np.lexsort((np.arange(len(rules)), -counts, -ab))[0])
    i_cons = int(np.lexsort((np.arange(len(rules)), -counts, -cons))[0])

    def gap(i):
        ct = cover(Xb, rules[i])
        test_cons = float(yte[ct].mean()) if ct.any() else math.nan
        return 100.0 * (float(cons[i]) - test_cons)

    g_a, g_c = gap(i_abbr), gap(i_cons)
    return {"gap_abbr": g_a, "gap_consistency": g_c,
            "improvement": 100.0 * (g_c - g_a) / g_c if g_c not in (0.0,) and not math.isnan(g_c) else math.nan,
            "n_random_rules": len(rules), "support_abbr_rule": float(counts[i_abbr] / len(ranks)),
            "support_consistency_rule": float(counts[i_cons] / len(ranks))}
