"""Experiment task ``mtrepan``: global translation by MTRE-PAN or TRE-PAN (Almerri et al., Tables 2-9).

One run = one (dataset, target, variant, evaluation depth, repetition). The target is
the paper's network (``models: [MTREPAN_NET]``: MinMax to [-1, 1], two hidden layers of
``n_features`` sigmoid units, best validation epoch of 100) trained on the 70% part of
the run's split (key ``mtrepan``), or, for the ``circle`` dataset (no model named), the
circle of radius ``params.radius`` itself (:class:`~interpretopt.methods.mtrepan.CircleTarget`).

The translation is grown once on the training rows up to ``grow_depth`` (cached in the
process, keyed by the data, split, target and growth parameters; its seed does not depend
on ``depth``) and evaluated truncated at ``depth`` (root = depth 1, the paper's
convention). Because every node draws from its own seeded generator, the truncated tree is
exactly the tree a run with ``max_depth = depth`` would grow.

Metrics (percent, as the paper's tables): on the held-out 30% rows, ``model_parity``
(eq. 8), ``certain_model_parity`` (eq. 9), ``boundary_model_parity`` (rows within
``margin`` of the target's boundary: the input of the network's output unit, the
signed distance for the circle; ``n_boundary`` says how many rows that is) and
``leaf_count``; the same three parities on ``n_uniform`` points drawn uniformly from the
training rows' bounding box and labelled by the target (suffix ``_uniform``), since the
rows near the boundary of a network are few. Also ``target_accuracy`` (the target on the
held-out rows), ``n_queries`` (rows labelled by the target during growth),
``fit_seconds``, ``lp_seconds``, ``n_lp_solves``, ``eval_seconds``.

Parameters (``params``): the task's own (:data:`PARAMETERS`: ``variant`` (``mtrepan`` |
``trepan``), ``depth``, ``grow_depth`` (the estimator's ``max_depth``; default: the larger
of ``depth`` and the estimator's default), ``n_uniform``, ``radius`` (circle; default
:class:`~interpretopt.methods.mtrepan.CircleTarget`'s), ``plot_depths`` (depths at which the
2-D leaf plot of Figure 3 is written as an SVG artifact, two-feature data only; in YAML a
list value is written ``[[9, 12]]``), ``explain_depths`` (depths at which the leaves are
written as text)) and every parameter of the translator (``cutoff_entropy``,
``cutoff_variance``, ``margin``, ``box_margin``, ``batch_size``, ``C``, ``leaf_label``,
``boundary_estimates``, ``criterion`` for TRE-PAN, ``max_node_samples``, ``max_lp_samples``,
...), passed on by name with the estimator's defaults. The grown tree is shared between the
depths of a run through ``ctx.memo``.
"""

from __future__ import annotations

import io
import time
from numbers import Integral, Real
from typing import Any

import numpy as np

from interpretopt._validation import Interval, StrOptions
from interpretopt.experiments.tasks import Param, estimator_default, estimator_params, task_params
from interpretopt.methods.mtrepan import MTREPANClassifier, TREPANClassifier

__all__ = ["run", "make_translator", "PARAMETERS"]

_DEPTHS = [Interval(Integral, 1, None, closed="left"), list, tuple, None]
PARAMETERS = {
    "variant": Param([StrOptions({"mtrepan", "trepan"})], "mtrepan", "MTRE-PAN or the TRE-PAN baseline"),
    "depth": Param([Interval(Integral, 1, 64, closed="both"), None], None,
                   "evaluation depth (root = 1); default grow_depth"),
    "grow_depth": Param([Interval(Integral, 1, 64, closed="both"), None], None,
                        "depth the tree is grown to (the estimator's max_depth)"),
    "n_uniform": Param([Interval(Integral, 1, None, closed="left")], 20000, "uniform points for the *_uniform parities"),
    "radius": Param([Interval(Real, 0, None, closed="neither"), None], None, "radius of the circle target"),
    "plot_depths": Param(_DEPTHS, None, "depths of the 2-D leaf plots (SVG artifacts)"),
    "explain_depths": Param(_DEPTHS, None, "depths whose leaves are written as text"),
}
VARIANTS = {"mtrepan": MTREPANClassifier, "trepan": TREPANClassifier}
ESTIMATORS = tuple(VARIANTS.values())
SET_BY_TASK = ("max_depth", "solver", "solver_settings", "random_state")


def solver_needs(params) -> tuple[str, ...]:
    """Node LPs (MTRE-PAN's splits; both variants' boundary estimates)."""
    return ("lp",)


def make_translator(params: dict, seed: int, solver: str = "highs", settings: Any = None):
    """The unfitted MTRE-PAN / TRE-PAN estimator of a run (grown to ``grow_depth``)."""
    tp = task_params(params, PARAMETERS)
    if tp["variant"] not in VARIANTS:
        from interpretopt.exceptions import ParameterError

        raise ParameterError(f"variant must be one of {', '.join(VARIANTS)}, got {tp['variant']!r}")
    cls = VARIANTS[tp["variant"]]
    grow = tp["grow_depth"] if tp["grow_depth"] is not None else estimator_default(cls, "max_depth")
    return cls(**estimator_params(params, cls, exclude=SET_BY_TASK), max_depth=int(grow), solver=solver,
               solver_settings=settings, random_state=seed)


def _target(ctx, train):
    from interpretopt.methods.mtrepan import CircleTarget

    if ctx.models:
        if len(ctx.models) != 1:
            raise ValueError(f"the mtrepan task translates one model, got {list(ctx.models)}")
        return ctx.black_box(ctx.models[0], train), ctx.models[0]
    if ctx.dataset.name != "circle":
        raise ValueError("name the target model (models: [MTREPAN_NET]); only the circle dataset has a built-in target")
    radius = task_params(ctx.params, PARAMETERS)["radius"]
    return (CircleTarget() if radius is None else CircleTarget(float(radius))), "circle"


def _depths(value) -> set:
    if value is None:
        return set()
    if isinstance(value, (list, tuple)):
        return {int(v) for v in value}
    return {int(value)}


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    return buf.getvalue()


def check(params) -> None:
    """``depth`` must not exceed ``grow_depth``."""
    tp = task_params(params, PARAMETERS)
    if tp["depth"] is not None and tp["grow_depth"] is not None and tp["depth"] > tp["grow_depth"]:
        raise ValueError(f"depth {tp['depth']} exceeds grow_depth {tp['grow_depth']}")


def run(ctx) -> dict:
    params = ctx.params
    tp = task_params(params, PARAMETERS)
    default_depth = estimator_default(VARIANTS[tp["variant"]], "max_depth")
    depth = int(tp["depth"] if tp["depth"] is not None else (tp["grow_depth"] or default_depth))
    grow_depth = int(tp["grow_depth"] if tp["grow_depth"] is not None else max(depth, default_depth))
    check({**params, "depth": depth, "grow_depth": grow_depth})
    train, test = ctx.split(test_size=0.3, key="mtrepan")
    target, target_name = _target(ctx, train)
    X_tr, X_te = ctx.X[train], ctx.X[test]
    grow = {**estimator_params(params, VARIANTS[tp["variant"]], exclude=SET_BY_TASK), "variant": tp["variant"],
            "grow_depth": grow_depth, "radius": tp["radius"]}

    def grow_tree():
        seed = ctx.seed_for("mtrepan-tree", ctx.rep, target_name, rows=train)
        est = make_translator({**params, "grow_depth": grow_depth}, seed, ctx.solver, ctx.settings)
        est.fit(X_tr, target)
        lo, hi = est.root_box_
        U = ctx.rng_for("mtrepan-uniform", ctx.rep, rows=train).uniform(lo, hi, (int(tp["n_uniform"]), X_tr.shape[1]))
        return est, U

    est, U = ctx.memo("mtrepan/tree", grow_tree, target=target_name, rows=train, grow=grow, n_uniform=tp["n_uniform"])
    margin = float(est.margin)
    t0 = time.perf_counter()
    rep_test = est.parity(target, X_te, depth=depth, margin=margin)
    rep_uni = est.parity(target, U, depth=depth, margin=margin)
    out: dict[str, Any] = {
        "model_parity": rep_test["model_parity"],
        "certain_model_parity": rep_test["certain_model_parity"],
        "boundary_model_parity": rep_test["boundary_model_parity"],
        "leaf_count": rep_test["leaf_count"],
        "n_boundary": rep_test["n_boundary"],
        "model_parity_uniform": rep_uni["model_parity"],
        "certain_model_parity_uniform": rep_uni["certain_model_parity"],
        "boundary_model_parity_uniform": rep_uni["boundary_model_parity"],
        "n_boundary_uniform": rep_uni["n_boundary"],
        "boundary_kind": rep_test["boundary_kind"],
        "target_accuracy": float(np.mean(np.asarray(target.predict(X_te)) == ctx.y[test])),
        "n_queries": est.n_queries_,
        "fit_seconds": est.fit_time_,
        "lp_seconds": est.lp_time_,
        "n_lp_solves": est.n_lp_solves_,
        "eval_seconds": time.perf_counter() - t0,
        "solver": ctx.solver,
    }
    artifacts = {}
    if depth in _depths(tp["explain_depths"]):
        artifacts[f"leaves_depth{depth}.txt"] = est.render(depth=depth, feature_names=list(ctx.dataset.X.columns))
    if depth in _depths(tp["plot_depths"]) and X_tr.shape[1] == 2:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        ax = est.plot_2d(target, depth=depth, resolution=200)
        artifacts[f"polytopes_depth{depth}.svg"] = _svg(ax.figure)
        plt.close(ax.figure)
    if artifacts:
        out["artifacts"] = artifacts
    return out
