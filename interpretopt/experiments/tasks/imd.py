"""Experiment task ``imd``: interpretable model differencing (Haldar et al., UAI 2023).

``run(ctx)`` has two modes, chosen by ``params["experiment"]``:

``"diff"`` (default), Sections 5.1-5.3 and Appendices F.1, F.2, F.7
    The run's two black boxes (``ctx.models``, e.g. chosen by ``pairs.select:
    max_min_accuracy_gap``) are trained on the 70/30 split used for pair selection (key
    ``pair_selection``, repetition 0). The unlabelled data is split 70/30 per repetition
    (key ``diff``); the diff model ``variant`` is fitted on the 70% part, labelled by the
    two models, and scored on the 30% part. Parameters: the task's own (:data:`PARAMETERS`:
    ``variant`` (``imd``, ``separate``, ``direct_dt``, ``direct_gb``, ``brcg_diff``), ``brcg``
    (BRCGClassifier parameters of BRCG Diff), ...) and any parameter of the variant's estimator,
    passed on by name (``max_depth``, ``criterion``, ``refine``, ``alpha``: ``None`` = eq. 6, a
    number = eq. 5, BRCG Diff's ``construction``: ``xor`` or ``union``, ...; the estimators'
    defaults otherwise). Every name and value is checked when the config loads.
    Returns ``diff_model`` (the variant, and for BRCG Diff its reading: ``brcg_diff (xor)``,
    ``brcg_diff (union)``; the tables' column), ``diffs, precision, recall, f1, n_rules,
    n_predicates`` (and, for the surrogate
    methods, ``fidelity1, fidelity2, n_or_nodes, n_shared, height``), ``fit_seconds`` and
    ``limited_by_time`` (a BRCG fit of BRCG Diff stopped by a wall-clock safety net; the
    surrogate trees have none).

``"accuracy"``, Appendix B Table 6
    The run's one model (``ctx.models``, config ``models``) trained on the 70/30 split of
    the labelled data (key ``pair_selection``, rep 0, the split the pairs are trained on);
    returns its test ``accuracy``.

``"importance"``, Appendix F.4
    The run's pair must be two scikit-learn trees (the paper uses DT1 and DT2). The diff
    model ``variant`` (``imd`` or ``direct_dt``) is fitted as in ``"diff"``; its feature
    importances (the JST's ``feature_importances_``, Direct DT's tree) are compared with
    each model's ``feature_importances_``: ``importance_l1`` (mean over the two models of
    the L1 distance of the normalised vectors), ``top5_overlap`` (mean share of a model's
    top-5 features among the diff model's top 5) and ``top1_agreement`` (share of the two
    models whose most important feature is the diff model's). The vectors are written as
    the artifact ``importances.json``.

``"perturbation"``, Appendix F.8
    A model of class ``perturb_model`` (``LR``, ``DT2``, ``RF1``, ``GB``) is trained on the
    true labels (the original model); a random rule ``r`` of two conditions (one per
    repetition) flips the training labels it covers with probability ``flip_prob``; the
    same model class is trained again (the revised model). The diff model ``variant``
    (``imd`` or ``separate``) compares the two; the diff rule most similar to ``r``
    (semantic and statistical similarity of "What changed?") counts as a recovery when its
    similarity is at least ``threshold`` (0.3). Binary tasks only.

Features are ``ctx.X`` (``Dataset.numeric()``); the configs use the paper's preprocessing
(dataset options ``drop_duplicates: true, one_hot: true``), so the black boxes and the diff
models see the one-hot encoded features. Rows of every diff run also carry the per-rule
summaries (``n_rules_empty``: diff rules covering no training row; ``mean_rule_precision``,
``min_rule_support``, ``median_rule_support``, ``n_rules_test_empty`` on the test rows), and
its ``diff_rules.txt`` artifact gives every rule with its support and precision.
"""

from __future__ import annotations

import time
from numbers import Real
from typing import Any

import numpy as np

from interpretopt._validation import Interval, StrOptions
from interpretopt.experiments.tasks import Param, estimator_default, estimator_params, task_params
from interpretopt.solvers._roles import solver_for
from interpretopt.methods.imd import (BRCGDiff, DirectDT, DirectGB, DisagreementTooLargeError, IMDExplainer,
                                     SeparateSurrogates)

__all__ = ["run", "make_variant", "diff_model_label", "VARIANTS", "CONSTRUCTIONS", "EXPERIMENTS", "PARAMETERS"]

VARIANTS = ("imd", "separate", "direct_dt", "direct_gb", "brcg_diff")
CONSTRUCTIONS = BRCGDiff.CONSTRUCTIONS  # BRCG Diff's two readings of Section 5.2
EXPERIMENTS = ("diff", "accuracy", "importance", "perturbation")
MAX_ARTIFACT_RULES = 300  # larger rule sets (separate surrogates at depth 10) are not written out

PARAMETERS = {
    "experiment": Param([StrOptions(set(EXPERIMENTS))], "diff", "what the run measures (module docstring)"),
    "variant": Param([StrOptions(set(VARIANTS))], "imd", "the diff model"),
    "brcg": Param([dict, None], None, "BRCGClassifier parameters of BRCG Diff (its brcg_params)"),
    "perturb_model": Param([str], "RF1", "model class of the perturbation experiment (Appendix F.8)"),
    "flip_prob": Param([Interval(Real, 0, 1, closed="both")], 1.0, "label-flip probability inside the rule"),
    "threshold": Param([Interval(Real, 0, 1, closed="both")], 0.3, "similarity that counts as a recovery"),
}
ESTIMATORS = (IMDExplainer, SeparateSurrogates, DirectDT, DirectGB, BRCGDiff)
SEARCH = ("the joint surrogate tree (and the separate and direct variants' trees) is grown by a greedy split "
          "search; only variant 'brcg_diff' solves optimization problems (BRCG's roles: master, pricing, integer)")


def _brcg_roles() -> dict:
    from interpretopt.methods.brcg import SOLVER_ROLES

    return SOLVER_ROLES


def __getattr__(name: str):
    if name == "SOLVER_ROLES":  # BRCG's, read when asked (BRCG Diff's roles)
        return _brcg_roles()
    raise AttributeError(name)


def solver_request(params, solver):
    """BRCG Diff's solvers: the run's, unless its ``brcg`` parameters name their own (and the per-role
    ``pricing_solver`` / ``mip_solver`` they give)."""
    brcg = task_params(params, PARAMETERS)["brcg"] or {}
    return brcg.get("solver", solver), {"pricing": brcg.get("pricing_solver"), "integer": brcg.get("mip_solver")}


def solver_roles(params) -> dict:
    """BRCG Diff's roles (those of its BRCG fits, by their ``pricing``); the tree variants solve nothing."""
    tp = task_params(params, PARAMETERS)
    if tp["variant"] != "brcg_diff" or tp["experiment"] == "accuracy":
        return {}
    from interpretopt.methods.brcg import active_solver_roles

    return active_solver_roles((tp["brcg"] or {}).get("pricing", "beam"))
SET_BY_TASK = ("random_state", "brcg_params")
_CLASSES = dict(zip(VARIANTS, ESTIMATORS))


def check(params) -> None:
    """The ``brcg`` parameters of BRCG Diff are BRCGClassifier parameters."""
    from interpretopt._validation import check_params
    from interpretopt.methods.brcg import BRCGClassifier

    brcg = task_params(params, PARAMETERS)["brcg"]
    if brcg:
        check_params(BRCGClassifier, dict(brcg))


def make_variant(variant: str, params: dict, seed: int, *, solver: Any = None, settings: Any = None):
    """The unfitted diff model of one run: every estimator parameter of ``params`` is passed on by
    name (the estimator's own defaults otherwise); the task sets only the seed and BRCG Diff's
    ``brcg_params`` (from ``brcg``, seeded unless it gives ``random_state``; the run's ``solver``
    and ``settings`` unless it gives its own: the settings' work limits, e.g. the integer master's
    ``node_limit``, and their time limit as a safety net that marks the run ``limited_by_time``)."""
    if variant not in _CLASSES:
        raise ValueError(f"unknown IMD variant {variant!r}; valid: {', '.join(VARIANTS)}")
    cls = _CLASSES[variant]
    kwargs = estimator_params(params, cls, exclude=SET_BY_TASK)
    if variant == "brcg_diff":
        _construction(params)  # a clear error before any fit
    if "random_state" in cls._parameter_constraints:
        kwargs["random_state"] = seed % (2**31)
    if variant == "brcg_diff":
        brcg = dict(task_params(params, PARAMETERS)["brcg"] or {})
        brcg.setdefault("random_state", seed % (2**31))
        if solver is not None:
            brcg.setdefault("solver", solver)
        if settings is not None:
            brcg.setdefault("settings", settings)
        kwargs["brcg_params"] = brcg
    return cls(**kwargs)


def _construction(params: dict) -> str:
    """BRCG Diff's ``construction`` of the run (``xor`` unless given), checked against :data:`CONSTRUCTIONS`."""
    value = params.get("construction", estimator_default(BRCGDiff, "construction"))
    if value not in CONSTRUCTIONS:
        raise ValueError(f"BRCG Diff's construction must be one of {', '.join(map(repr, CONSTRUCTIONS))} "
                         f"(Section 5.2's two readings: 'xor' = the surrogates' disagreement, 'union' = the rules "
                         f"of both surrogates), got {value!r}")
    return value


def diff_model_label(variant: str, params: dict) -> str:
    """The row's ``diff_model``: the variant name, and for BRCG Diff its reading, ``brcg_diff (xor)`` or
    ``brcg_diff (union)``, so that a table with ``columns: [diff_model]`` shows the two readings side by side."""
    if variant != "brcg_diff":
        return variant
    return f"brcg_diff ({_construction(params)})"


def _black_boxes(ctx):
    if len(ctx.models) != 2:
        raise ValueError(f"the imd task needs a model pair (config 'pairs'), got models {list(ctx.models)}")
    train, _ = ctx.split(test_size=0.3, key="pair_selection", rep=0)
    return ctx.black_box(ctx.models[0], train), ctx.black_box(ctx.models[1], train)


def run(ctx) -> dict:
    modes = {"diff": _run_diff, "perturbation": _run_perturbation, "accuracy": _run_accuracy,
             "importance": _run_importance}
    out = modes[task_params(ctx.params, PARAMETERS)["experiment"]](ctx)
    out.setdefault("limited_by_time", False)
    return out


#: BRCG stop reasons that mean a wall-clock limit ended column generation
_TIME_STOPS = ("time_limit", "pricing_time_limit")


def limited_by_time(est) -> bool:
    """Whether a wall-clock safety net shaped a fitted diff model: the joint and separate
    surrogate trees have no clock (depth and sample limits only); BRCG Diff's two BRCG
    classifiers report theirs (``limited_by_time_`` when they carry it, else a stop reason of
    column generation that names a time limit)."""
    for m in getattr(est, "models_", None) or ():
        if m is None:
            continue
        flag = getattr(m, "limited_by_time_", None)
        if flag is None:
            flag = getattr(m, "stop_reason_", "") in _TIME_STOPS
        if flag:
            return True
    return False


def _run_accuracy(ctx) -> dict:
    if len(ctx.models) != 1:
        raise ValueError(f"experiment 'accuracy' needs one model per run (config 'models'), got {list(ctx.models)}")
    train, test = ctx.split(test_size=0.3, key="pair_selection", rep=0)
    model = ctx.black_box(ctx.models[0], train)
    y_hat = np.asarray(model.predict(ctx.X[test]))
    return {"accuracy": float(np.mean(y_hat == np.asarray(ctx.y)[test])), "n_train": int(train.size),
            "n_test": int(test.size), "n_features": int(ctx.X.shape[1])}


def importance_agreement(imp: np.ndarray, model_imps: list, k: int = 5) -> dict:
    """Distances between a diff model's feature importances and each model's (F.4)."""
    def norm(v):
        v = np.asarray(v, dtype=float)
        return v / v.sum() if v.sum() > 0 else v

    def top(v):
        v = np.asarray(v, dtype=float)
        order = np.lexsort((np.arange(v.size), -v))  # largest first, ties by index
        return [int(j) for j in order[:k] if v[j] > 0]

    a = norm(imp)
    l1 = [float(np.abs(a - norm(m)).sum()) for m in model_imps]
    ta = set(top(a))
    over = [len(ta & set(top(m))) / max(len(top(m)), 1) for m in model_imps]
    top1 = [float(bool(top(a)) and bool(top(m)) and top(a)[0] == top(m)[0]) for m in model_imps]
    return {"importance_l1": float(np.mean(l1)), "top5_overlap": float(np.mean(over)),
            "top1_agreement": float(np.mean(top1))}


def _run_importance(ctx) -> dict:
    import json

    variant = task_params(ctx.params, PARAMETERS)["variant"]
    if variant not in ("imd", "direct_dt"):
        raise ValueError(f"experiment 'importance' compares 'imd' and 'direct_dt', got {variant!r}")
    m1, m2 = _black_boxes(ctx)
    for name, m in zip(ctx.models, (m1, m2)):
        if not hasattr(m, "feature_importances_"):
            raise ValueError(f"experiment 'importance' needs tree models with feature_importances_ "
                             f"(the paper uses DT1 and DT2); {name} has none")
    X = ctx.X
    y1, y2 = np.asarray(m1.predict(X)), np.asarray(m2.predict(X))
    train, test = ctx.split(test_size=0.3, key="diff")
    est = make_variant(variant, ctx.params, ctx.seed, solver=solver_for(ctx.solver, _brcg_roles()),
                       settings=ctx.settings)
    out = _fit_and_score(est, X[train], y1[train], y2[train], X[test], y1[test], y2[test])
    imps = [np.asarray(m1.feature_importances_), np.asarray(m2.feature_importances_)]
    out.update(importance_agreement(est.feature_importances_, imps))
    names = [str(c) for c in ctx.dataset.X.columns]

    def top(v):
        order = np.argsort(-np.asarray(v), kind="stable")[:5]
        return [[names[j], round(float(v[j]), 4)] for j in order if v[j] > 0]

    out["artifacts"] = {"importances.json": json.dumps(
        {"features": names, "model1": imps[0].tolist(), "model2": imps[1].tolist(),
         variant: np.asarray(est.feature_importances_).tolist(),
         "top5": {"model1": top(imps[0]), "model2": top(imps[1]), variant: top(est.feature_importances_)}}, indent=1)}
    return out


def _fit_and_score(est, X_tr, y1_tr, y2_tr, X_te, y1_te, y2_te) -> dict:
    t0 = time.perf_counter()
    est.fit(X_tr, y1_tr, y2_tr)
    fit_seconds = time.perf_counter() - t0
    out: dict[str, Any] = dict(est.metrics(X_te, y1_te, y2_te))
    out["fit_seconds"] = fit_seconds
    out["limited_by_time"] = limited_by_time(est)
    out["train_diffs"] = float(np.mean(np.asarray(y1_tr) != np.asarray(y2_tr)))
    if getattr(est, "solvers_", None):  # BRCG Diff: the solver of each BRCG role, asked for and run
        from interpretopt.solvers._roles import solver_columns

        out.update(solver_columns(est.solvers_))
        out["solver"] = est.solvers_.get("integer", {}).get("solver") or None
    return out


def _run_diff(ctx) -> dict:
    out = _diff_outputs(ctx)
    out["diff_model"] = diff_model_label(task_params(ctx.params, PARAMETERS)["variant"], ctx.params)
    return out


def _diff_outputs(ctx) -> dict:
    variant = task_params(ctx.params, PARAMETERS)["variant"]
    m1, m2 = _black_boxes(ctx)
    X = ctx.X
    y1, y2 = np.asarray(m1.predict(X)), np.asarray(m2.predict(X))
    train, test = ctx.split(test_size=0.3, key="diff")
    if variant == "brcg_diff" and np.unique(np.concatenate([y1, y2, np.asarray(ctx.y)])).size > 2:
        return {"skipped": "BRCG Diff applies to binary tasks only"}
    est = make_variant(variant, ctx.params, ctx.seed, solver=solver_for(ctx.solver, _brcg_roles()),
                       settings=ctx.settings)
    try:
        out = _fit_and_score(est, X[train], y1[train], y2[train], X[test], y1[test], y2[test])
    except DisagreementTooLargeError as exc:
        # BRCG Diff's exact XOR of the two surrogates' DNFs can be exponentially large; the run has no
        # diff rule set, and says so rather than failing (its cells are reported as not compared)
        return {"skipped": f"BRCG Diff has no diff rules: {exc}"}
    out["n_train"], out["n_test"] = int(train.size), int(test.size)
    names = [str(c) for c in ctx.dataset.X.columns]
    if getattr(est, "diff_rules_", None) is not None and est.n_rules_ <= MAX_ARTIFACT_RULES:
        out["artifacts"] = {"diff_rules.txt": est.render_rules(names)}
        if hasattr(est, "to_dot"):
            from interpretopt.methods.imd_render import graph_to_json, jst_graph

            out["artifacts"]["jst.dot"] = est.to_dot(names)
            out["artifacts"]["jst.json"] = graph_to_json(jst_graph(est, names))  # drawn by the report
    return out


def random_rule(X: np.ndarray, rng: np.random.Generator, *, n_conditions: int = 2, min_support: float = 0.05,
                max_support: float = 0.3, tries: int = 200):
    """A random conjunction of ``n_conditions`` thresholds at quantiles, covering between
    ``min_support`` and ``max_support`` of the rows (the last try is kept otherwise)."""
    from interpretopt.rules import Condition, Conjunction

    d = X.shape[1]
    rule = Conjunction(())
    for _ in range(tries):
        feats = rng.choice(d, size=min(n_conditions, d), replace=False)
        conds = []
        for f in feats:
            col = X[:, f]
            if np.unique(col).size < 2:
                break
            q = float(np.quantile(col, rng.uniform(0.2, 0.8)))
            op = "<=" if rng.random() < 0.5 else ">"
            conds.append(Condition(int(f), op, q))
        else:
            rule = Conjunction(tuple(conds))
            support = float(rule.evaluate(X).mean())
            if min_support <= support <= max_support:
                return rule
    return rule


def _run_perturbation(ctx) -> dict:
    from interpretopt.evaluation.similarity import rule_similarity_matrix, statistical_similarity_matrix
    from interpretopt.rules import RuleSet

    X, y = ctx.X, np.asarray(ctx.y)
    classes = np.unique(y)
    if classes.size != 2:
        return {"skipped": "the perturbation experiment uses binary tasks only"}
    variant = task_params(ctx.params, PARAMETERS)["variant"]
    if variant not in ("imd", "separate"):
        raise ValueError(f"the perturbation experiment compares 'imd' and 'separate', got {variant!r}")
    tp = task_params(ctx.params, PARAMETERS)
    name, p, threshold = tp["perturb_model"], float(tp["flip_prob"]), float(tp["threshold"])
    train, test = ctx.split(test_size=0.3, key="models", rep=0)
    # one rule per repetition, the same for every model class, probability and variant
    from interpretopt.experiments.runner import hash_seed

    rule_rng = np.random.default_rng(hash_seed("imd-perturbation-rule", ctx.dataset_label, ctx.rep))
    rule = random_rule(X[train], rule_rng)
    flip_rng = np.random.default_rng(hash_seed("imd-perturbation-flip", ctx.dataset_label, ctx.rep, p))
    covered = rule.evaluate(X[train])
    flip = covered & (flip_rng.random(train.size) < p)
    y_rev = y[train].copy()
    y_rev[flip] = np.where(y_rev[flip] == classes[0], classes[1], classes[0])
    original = ctx.black_box(name, train)
    revised = ctx.black_box(name, train, y=y_rev)
    y1, y2 = np.asarray(original.predict(X)), np.asarray(revised.predict(X))
    d_train, d_test = ctx.split(test_size=0.3, key="diff")
    est = make_variant(variant, ctx.params, ctx.seed, solver=solver_for(ctx.solver, _brcg_roles()),
                       settings=ctx.settings)
    out = _fit_and_score(est, X[d_train], y1[d_train], y2[d_train], X[d_test], y1[d_test], y2[d_test])
    rules = list(est.diff_rules_)
    if rules:
        sem = float(rule_similarity_matrix(RuleSet((rule,)), RuleSet(tuple(rules))).max())
        stat = float(statistical_similarity_matrix(RuleSet((rule,)), RuleSet(tuple(rules)), X[d_train]).max())
    else:
        sem = stat = 0.0
    out.update(
        rule_support=float(covered.mean()), n_flipped=int(flip.sum()),
        max_semantic=sem, max_statistical=stat,
        recovered_semantic=float(sem >= threshold), recovered_statistical=float(stat >= threshold),
    )
    names = [str(c) for c in ctx.dataset.X.columns]
    out["artifacts"] = {"perturbation.txt": f"rule: {rule.render(names)}\n\n" + est.render_rules(names)}
    return out
