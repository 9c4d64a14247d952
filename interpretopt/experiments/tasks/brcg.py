"""Experiment task for BRCG / BRCG+ and rule-set comparison ("What changed?").

``params["experiment"]`` selects what one run does:

``surrogate``
    Fit a BRCG rule set to a black box's training-set predictions; report fidelity on the
    test split, complexity and the column-generation diagnostics.
``perturbation`` (Section 4, "Perturbation" and "Change detection")
    Learn rule set A on model labels; pick one rule of A (seeded per dataset, model and
    repetition) and flip the ground-truth label of each training sample covered by that
    rule *exclusively* with probability ``p``; retrain the model; learn B (BRCG) and B+
    (BRCG+ grounded in A with penalty ``c_u`` and complexity bound ``C`` = number of
    literals of A); compare A-B and A-B+ (semantic and statistical similarity). The change
    counts as recovered when the perturbed rule of A is not matched to an identical rule
    (semantic match score below 1).
``compare`` (Section 4, "Model comparison example")
    Two models (a pair); one rule set each; their matching and similarity; each rule set's
    fidelity and each model's accuracy on the test split.

Parameters: the task's own (:data:`PARAMETERS`: ``experiment``, ``test_size``, ``p``,
``grounded_form``) and every parameter of :class:`~interpretopt.methods.brcg.BRCGClassifier`
and :class:`~interpretopt.methods.brcg.GroundedBRCGClassifier` (``lambda0``, ``lambda1``,
``max_literals``, ``pricing``, ``time_limit`` per fit, ``mip_time_limit``, ``binarizer``,
``n_thresholds``, ``c_u``, ...), passed on by name with the estimators' own defaults. The
run's solver is the master LP solver (it must return LP duals on an incremental model:
``highs`` or ``ortools_glop``; any other is an error, never replaced); MILPs use
``mip_solver`` / ``pricing_solver`` (default HiGHS). The config's ``settings`` pass on without
their time limit: each stage has its own limit (``time_limit``, ``mip_time_limit``,
``milp_time_limit``). Rule sets reused across runs (rule set A of a repetition, B of a
flip probability) are shared through ``ctx.memo``, keyed by the training rows, the model and
every fit parameter; random draws come from ``ctx.rng_for``.
"""

from __future__ import annotations

import time
import warnings
from numbers import Real
from typing import Any

import numpy as np

from interpretopt._validation import Interval, StrOptions
from interpretopt.experiments.tasks import Param, estimator_params, task_params
from interpretopt.methods.brcg import BRCGClassifier, GroundedBRCGClassifier

__all__ = ["run", "perturb_labels", "exclusive_region", "PARAMETERS"]

PARAMETERS = {
    "experiment": Param([StrOptions({"surrogate", "perturbation", "compare"})], "surrogate",
                        "what one run does (see the module docstring)"),
    "test_size": Param([Interval(Real, 0, 1, closed="neither")], 0.2, "test share of the split (key 'whatchanged')"),
    "p": Param([Interval(Real, 0, 1, closed="both")], 1.0, "flip probability in the perturbed region"),
    "grounded_form": Param([StrOptions({"constraint", "light"})], "constraint",
                           "BRCG+ with the paper's complexity bound C = literals of A, or the light form"),
}
ESTIMATORS = (BRCGClassifier, GroundedBRCGClassifier)
SET_BY_TASK = ("solver", "settings", "random_state", "grounding", "extend_literals", "conditions")
SOLVER_PARAMETER = (BRCGClassifier, "solver")


def solver_needs(params) -> tuple[str, ...]:
    """Every run solves the master LP (with duals) and MILPs."""
    return ("lp", "duals")


def _fit_params(params: dict) -> dict:
    """The estimator parameters of the run (the estimators' defaults for the others)."""
    return estimator_params(params, BRCGClassifier, exclude=SET_BY_TASK)


def _estimator(fp: dict, ctx, **extra):
    kw = dict(fp, solver=ctx.solver, settings=_settings(ctx), random_state=ctx.seed_for("brcg-estimator"))
    kw.update(extra)
    cls = GroundedBRCGClassifier if "grounding" in kw else BRCGClassifier
    return cls(**kw)


def _settings(ctx):
    s = ctx.settings
    return s.replace(time_limit=None)  # per-stage limits are set by the fit parameters


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an incumbent at the time limit is reported, not raised
        t0 = time.perf_counter()
        est.fit(X, y)
        est.fit_time_ = time.perf_counter() - t0
    return est


def exclusive_region(coverage: np.ndarray, k: int) -> np.ndarray:
    """Samples covered by rule ``k`` and by no other rule (coverage is bool (n, K))."""
    cov = np.asarray(coverage, dtype=bool)
    return cov[:, k] & (cov.sum(axis=1) == 1)


def perturb_labels(y: np.ndarray, region: np.ndarray, p: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Flip ``y`` (0/1) in ``region`` with probability ``p``; returns (new labels, flipped mask)."""
    flip = np.asarray(region, dtype=bool) & (rng.random(len(y)) < p)
    out = np.asarray(y).copy()
    out[flip] = 1 - out[flip]
    return out, flip


def _summary(prefix: str, est, X_test, y_test) -> dict:
    return {
        f"fidelity_{prefix}": float(np.mean(est.predict(X_test) == y_test)),
        f"n_rules_{prefix}": int(est.rules_.n_rules),
        f"n_literals_{prefix}": int(est.rules_.n_conditions),
        f"fit_time_{prefix}": float(est.fit_time_),
        f"gap_{prefix}": float(est.gap_) if est.gap_ is not None else float("nan"),
        f"lower_bound_{prefix}": float(est.lower_bound_),
        f"proven_{prefix}": bool(est.proven_),
        f"cg_iterations_{prefix}": int(est.n_iter_),
        f"stop_{prefix}": str(est.stop_reason_),
    }


def _names(ctx) -> list[str]:
    return [str(c) for c in ctx.dataset.X.columns]


def run(ctx) -> dict:
    params = dict(ctx.params)
    experiment = task_params(params, PARAMETERS)["experiment"]
    return {"surrogate": _run_surrogate, "perturbation": _run_perturbation, "compare": _run_compare}[experiment](
        ctx, params)


def _split(ctx, params):
    return ctx.split(test_size=float(task_params(params, PARAMETERS)["test_size"]), key="whatchanged")


def _model_labels(ctx, name, train, y=None):
    bb = ctx.black_box(name, train, y=y)
    return np.asarray(bb.predict(ctx.X)).astype(np.int8)


def _run_surrogate(ctx, params) -> dict:
    fp = _fit_params(params)
    train, test = _split(ctx, params)
    Xdf = ctx.dataset.X
    model = ctx.models[0] if ctx.models else None
    yl = _model_labels(ctx, model, train) if model else np.asarray(ctx.y).astype(np.int8)
    est = _fit(_estimator(fp, ctx), Xdf.iloc[train], yl[train])
    out = _summary("A", est, Xdf.iloc[test], yl[test])
    out.update(fidelity=out["fidelity_A"], n_rules=out["n_rules_A"], n_literals=out["n_literals_A"],
               restricted_lp=est.restricted_lp_, **_status(est))
    if model:
        out["blackbox_accuracy"] = float(np.mean(yl[test] == ctx.y[test]))
    out["artifacts"] = {"rules.txt": est.render()}
    return out


def _status(est) -> dict:
    """The results store's ``status``/``bound``/``gap`` are the fit's certificate, never invented ones.

    ``status`` is the rule set's status for the whole problem (``optimal`` only when its
    objective meets a valid lower bound; ``heuristic`` with beam pricing; ``feasible`` for an
    incumbent with a bound), ``bound`` the valid lower bound, ``gap`` the gap to it.
    """
    res = est.solve_results_.get("integer")
    return {
        "solver": getattr(res, "solver", None) or "highs",
        "status": str(est.status_),
        "objective": float(est.objective_),
        "bound": float(est.lower_bound_) if est.lower_bound_ is not None else None,
        "gap": float(est.gap_) if est.gap_ is not None else None,
    }


def _run_perturbation(ctx, params) -> dict:
    from interpretopt.evaluation.similarity import compare_rule_sets

    fp = _fit_params(params)
    tp = task_params(params, PARAMETERS)
    p = float(tp["p"])
    grounded_fp = estimator_params(params, GroundedBRCGClassifier, exclude=SET_BY_TASK)
    grounded_form = tp["grounded_form"]
    model = ctx.models[0]
    train, test = _split(ctx, params)
    Xdf = ctx.dataset.X
    Xtr, Xte = Xdf.iloc[train], Xdf.iloc[test]

    yA = _model_labels(ctx, model, train)
    A = ctx.memo("brcg/A", lambda: _fit(_estimator(fp, ctx), Xtr, yA[train]), model=model, rows=train, fit=fp,
                 labels=yA[train])
    cov = A.rules_.coverage(Xtr)
    out: dict[str, Any] = {}
    # the perturbed rule: seeded per (dataset, model, repetition), among rules with an exclusive region
    candidates = [k for k in range(cov.shape[1]) if exclusive_region(cov, k).any()]
    if not candidates:
        out.update(note="rule set A has no rule with an exclusive region", n_rules_A=int(A.rules_.n_rules))
        return out
    k = int(ctx.rng_for("brcg-perturbed-rule", model, ctx.rep).choice(candidates))
    region = np.zeros(ctx.n_samples, dtype=bool)
    region[train] = exclusive_region(cov, k)
    y_pert, flipped = perturb_labels(np.asarray(ctx.y).astype(np.int8), region, p,
                                     ctx.rng_for("brcg-flip", model, ctx.rep, p))
    yB = _model_labels(ctx, model, train, y=y_pert[train])

    B = ctx.memo("brcg/B", lambda: _fit(_estimator(fp, ctx), Xtr, yB[train]), model=model, rows=train, fit=fp,
                 labels=yB[train])
    extra: dict[str, Any] = dict(grounded_fp, grounding=A.rules_, extend_literals=True)
    if grounded_form == "constraint":
        extra.update(form="constraint", C=float(max(A.rules_.n_conditions, 1)), complexity="literals")
    Bg = _fit(_estimator(fp, ctx, **extra), Xtr, yB[train])

    X_stat = Xtr
    for tag, R in (("B", B), ("Bg", Bg)):
        sem = compare_rule_sets(A.rules_, R.rules_, similarity="semantic")
        stat = compare_rule_sets(A.rules_, R.rules_, similarity="statistical", X=X_stat)
        j, score = sem.partner(k)
        out[f"sim_sem_{tag}"] = sem.score
        out[f"sim_stat_{tag}"] = stat.score
        out[f"recovered_{tag}"] = float(j is None or score < 1.0 - 1e-9)
        out[f"recovered_stat_{tag}"] = float(stat.partner(k)[0] is None or stat.partner(k)[1] < 1.0 - 1e-9)
    out.update(_summary("A", A, Xte, yA[test]))
    out.update(_summary("B", B, Xte, yB[test]))
    out.update(_summary("Bg", Bg, Xte, yB[test]))
    out.update(
        grounding_kept=float(np.mean(Bg.grounding_kept_)) if len(Bg.grounding_kept_) else float("nan"),
        n_flipped=int(flipped.sum()), region_size=int(region.sum()), perturbed_rule=k,
        model_change=float(np.mean(yA[test] != yB[test])), **_status(Bg),
    )
    names = _names(ctx)
    out["artifacts"] = {
        "A.txt": A.rules_.render(names),
        "B.txt": B.rules_.render(names),
        "B_grounded.txt": Bg.rules_.render(names),
        "A_vs_B.txt": compare_rule_sets(A.rules_, B.rules_).render(names, ("A", "B")),
        "A_vs_B_grounded.txt": compare_rule_sets(A.rules_, Bg.rules_).render(names, ("A", "B+")),
        "perturbed_rule.txt": f"rule {k + 1} of A: {A.rules_[k].render(names)}\n",
    }
    return out


def _run_compare(ctx, params) -> dict:
    from interpretopt.evaluation.similarity import compare_rule_sets

    fp = _fit_params(params)
    if len(ctx.models) != 2:
        from interpretopt.exceptions import InputError

        raise InputError(f"experiment 'compare' needs a model pair, got {ctx.models}")
    train, test = _split(ctx, params)
    Xdf = ctx.dataset.X
    Xtr, Xte = Xdf.iloc[train], Xdf.iloc[test]
    out: dict[str, Any] = {}
    fits = []
    for tag, name in zip(("A", "B"), ctx.models):
        yl = _model_labels(ctx, name, train)
        est = _fit(_estimator(fp, ctx), Xtr, yl[train])
        fits.append(est)
        out[f"accuracy_{tag}"] = float(np.mean(yl[test] == ctx.y[test]))
        out.update(_summary(tag, est, Xte, yl[test]))
        out[f"missed_{tag}"] = 1.0 - out[f"fidelity_{tag}"]
    sem = compare_rule_sets(fits[0].rules_, fits[1].rules_, similarity="semantic")
    stat = compare_rule_sets(fits[0].rules_, fits[1].rules_, similarity="statistical", X=Xte)
    out.update(sim_sem=sem.score, sim_stat=stat.score, **_status(fits[1]))
    names = _names(ctx)
    labels = tuple(ctx.models)
    out["artifacts"] = {
        "matching_semantic.txt": sem.render(names, labels),
        "matching_statistical.txt": stat.render(names, labels),
        "matching_statistical.csv": stat.to_frame(names, labels).to_csv(index=False),
        f"rules_{labels[0]}.txt": fits[0].rules_.render(names),
        f"rules_{labels[1]}.txt": fits[1].rules_.render(names),
    }
    return out
