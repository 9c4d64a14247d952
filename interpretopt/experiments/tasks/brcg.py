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

Other parameters: ``lambda0``, ``lambda1``, ``max_literals``, ``pricing``, ``beam_width``,
``columns_per_iter``, ``max_iter``, ``time_limit`` (per fit), ``mip_time_limit``,
``binarizer`` (``quantile`` or ``tree``), ``n_thresholds``, ``p``, ``c_u``,
``grounded_form`` (``constraint``, as in the paper, or ``light``), ``test_size`` (0.2).
"""

from __future__ import annotations

import time
import warnings
import zlib
from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = ["run", "perturb_labels", "exclusive_region"]

_CACHE: OrderedDict = OrderedDict()
_CACHE_MAX = 64

def _cached(key, make):
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    value = make()
    _CACHE[key] = value
    while len(_CACHE) > _CACHE_MAX:
        _CACHE.popitem(last=False)
    return value


def _fit_params(params: dict, ctx) -> dict:
    out = {
        "lambda0": float(params.get("lambda0", 0.001)),
        "lambda1": float(params.get("lambda1", 0.001)),
        "max_literals": int(params.get("max_literals", 5)),
        "pricing": str(params.get("pricing", "beam")),
        "beam_width": int(params.get("beam_width", 5)),
        "columns_per_iter": int(params.get("columns_per_iter", 10)),
        "max_iter": int(params.get("max_iter", 100)),
        "time_limit": params.get("time_limit", 300.0),
        "mip_time_limit": params.get("mip_time_limit", 60.0),
        "milp_time_limit": float(params.get("milp_time_limit", 10.0)),
        "binarizer": str(params.get("binarizer", "quantile")),
        "n_thresholds": int(params.get("n_thresholds", 9)),
    }
    return out


def _estimator(fp: dict, ctx, **extra):
    from interpretopt.methods.brcg import BRCGClassifier, GroundedBRCGClassifier

    kw = dict(fp)
    binarizer = kw.pop("binarizer")
    if binarizer == "tree":
        from interpretopt.data import TreeBinarizer

        binarizer = TreeBinarizer(random_state=0)
    kw.update(binarizer=binarizer, solver=_lp_solver(ctx.solver), settings=_settings(ctx))
    kw.update(extra)
    cls = GroundedBRCGClassifier if "grounding" in kw else BRCGClassifier
    return cls(**kw)


def _lp_solver(name: str) -> str:
    return name if name in ("highs", "ortools_glop") else "highs"


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


def _key(ctx, *parts) -> tuple:
    return (ctx.dataset_label, ctx.n_samples, int(ctx.X.shape[1]), ctx.rep, *parts)


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
    experiment = str(params.get("experiment", "surrogate"))
    if experiment == "surrogate":
        return _run_surrogate(ctx, params)
    if experiment == "perturbation":
        return _run_perturbation(ctx, params)
    if experiment == "compare":
        return _run_compare(ctx, params)
    from interpretopt.exceptions import InputError

    raise InputError(f"brcg task: experiment must be 'surrogate', 'perturbation' or 'compare', got {experiment!r}")


def _split(ctx, params):
    return ctx.split(test_size=float(params.get("test_size", 0.2)), key="whatchanged")


def _model_labels(ctx, name, train, y=None):
    bb = ctx.black_box(name, train, y=y)
    return np.asarray(bb.predict(ctx.X)).astype(np.int8)


def _run_surrogate(ctx, params) -> dict:
    fp = _fit_params(params, ctx)
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


def _rule_rng(ctx, *parts) -> np.random.Generator:
    words = [ctx.rep] + [zlib.crc32(str(p).encode()) for p in (ctx.dataset_label, *parts)]
    return np.random.default_rng(words)


def _run_perturbation(ctx, params) -> dict:
    from interpretopt.evaluation.similarity import compare_rule_sets

    fp = _fit_params(params, ctx)
    p = float(params.get("p", 1.0))
    c_u = float(params.get("c_u", 0.01))
    grounded_form = str(params.get("grounded_form", "constraint"))
    model = ctx.models[0]
    train, test = _split(ctx, params)
    Xdf = ctx.dataset.X
    Xtr, Xte = Xdf.iloc[train], Xdf.iloc[test]
    fkey = tuple(sorted(fp.items()))

    yA = _model_labels(ctx, model, train)
    A = _cached(_key(ctx, "A", model, fkey), lambda: _fit(_estimator(fp, ctx), Xtr, yA[train]))
    cov = A.rules_.coverage(Xtr)
    out: dict[str, Any] = {}
    # the perturbed rule: seeded per (dataset, model, repetition), among rules with an exclusive region
    candidates = [k for k in range(cov.shape[1]) if exclusive_region(cov, k).any()]
    if not candidates:
        out.update(note="rule set A has no rule with an exclusive region", n_rules_A=int(A.rules_.n_rules))
        return out
    k = int(_rule_rng(ctx, model, "rule").choice(candidates))
    region = np.zeros(ctx.n_samples, dtype=bool)
    region[train] = exclusive_region(cov, k)
    y_pert, flipped = perturb_labels(np.asarray(ctx.y).astype(np.int8), region, p, _rule_rng(ctx, model, "flip", p))
    yB = _model_labels(ctx, model, train, y=y_pert[train])

    B = _cached(_key(ctx, "B", model, fkey, p), lambda: _fit(_estimator(fp, ctx), Xtr, yB[train]))
    extra: dict[str, Any] = dict(grounding=A.rules_, c_u=c_u, extend_literals=True)
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

    fp = _fit_params(params, ctx)
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
