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

Parameters (``params``): ``variant`` (``mtrepan`` | ``trepan``), ``depth``,
``grow_depth`` (default 10), ``cutoff_entropy`` (0.0808), ``cutoff_variance`` (1e-5),
``margin`` (0.05), ``box_margin`` (0.05), ``batch_size`` (1000), ``C`` (10),
``leaf_label`` (``majority``), ``criterion`` (TRE-PAN, ``gain``), ``max_node_samples``,
``max_lp_samples``, ``n_uniform`` (20000), ``radius`` (circle, 1.0), ``plot_depths``
(depths at which the 2-D leaf plot of Figure 3 is written as an SVG artifact, two-feature
data only; in YAML a list value is written ``[[9, 12]]``), ``explain_depths`` (depths at
which the leaves are written as text).
"""

from __future__ import annotations

import hashlib
import io
import threading
import time
from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = ["run", "make_translator"]

_TREES: OrderedDict = OrderedDict()
_TREES_LOCK = threading.Lock()
_MAX_CACHED = 8

_GROW_KEYS = ("variant", "grow_depth", "cutoff_entropy", "cutoff_variance", "box_margin", "batch_size", "C",
              "leaf_label", "criterion", "max_node_samples", "max_lp_samples", "radius", "margin")


def make_translator(params: dict, seed: int, solver: str = "highs", settings: Any = None):
    """The unfitted MTRE-PAN / TRE-PAN estimator of a run."""
    from interpretopt.methods.mtrepan import MTREPANClassifier, TREPANClassifier

    variant = params.get("variant", "mtrepan")
    kw = dict(max_depth=int(params.get("grow_depth", 10)), cutoff_entropy=float(params.get("cutoff_entropy", 0.0808)),
              cutoff_variance=float(params.get("cutoff_variance", 1e-5)), margin=float(params.get("margin", 0.05)),
              box_margin=float(params.get("box_margin", 0.05)), batch_size=int(params.get("batch_size", 1000)),
              C=float(params.get("C", 10.0)), leaf_label=params.get("leaf_label", "majority"),
              boundary_estimates=bool(params.get("boundary_estimates", False)), solver=solver,
              solver_settings=settings, max_node_samples=params.get("max_node_samples"),
              max_lp_samples=params.get("max_lp_samples"), random_state=seed)
    if variant == "mtrepan":
        return MTREPANClassifier(**kw)
    if variant == "trepan":
        return TREPANClassifier(criterion=params.get("criterion", "gain"), **kw)
    raise ValueError(f"params.variant must be 'mtrepan' or 'trepan', got {variant!r}")


def _target(ctx, train):
    from interpretopt.methods.mtrepan import CircleTarget

    if ctx.models:
        if len(ctx.models) != 1:
            raise ValueError(f"the mtrepan task translates one model, got {list(ctx.models)}")
        return ctx.black_box(ctx.models[0], train), ctx.models[0]
    if ctx.dataset.name != "circle":
        raise ValueError("name the target model (models: [MTREPAN_NET]); only the circle dataset has a built-in target")
    return CircleTarget(float(ctx.params.get("radius", 1.0))), "circle"


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


def run(ctx) -> dict:
    from interpretopt.experiments.runner import hash_seed

    params = ctx.params
    depth = int(params.get("depth", params.get("grow_depth", 10)))
    grow_depth = int(params.get("grow_depth", max(depth, 10)))
    if depth > grow_depth:
        raise ValueError(f"depth {depth} exceeds grow_depth {grow_depth}")
    train, test = ctx.split(test_size=0.3, key="mtrepan")
    target, target_name = _target(ctx, train)
    X_tr, X_te = ctx.X[train], ctx.X[test]
    grow = {k: params.get(k) for k in _GROW_KEYS}
    grow["grow_depth"] = grow_depth
    rows_hash = hashlib.sha1(np.ascontiguousarray(train, dtype=np.int64).tobytes()).hexdigest()[:16]
    seed = hash_seed("mtrepan-tree", ctx.dataset_label, ctx.rep, target_name, rows_hash)
    key = (ctx.dataset_label, ctx.X.shape, rows_hash, target_name, ctx.rep, ctx.solver, repr(sorted(grow.items())))
    with _TREES_LOCK:
        cached = _TREES.get(key)
    if cached is None:
        est = make_translator({**params, "grow_depth": grow_depth}, seed, ctx.solver, ctx.settings)
        est.fit(X_tr, target)
        lo, hi = est.root_box_
        rng = np.random.default_rng(hash_seed("mtrepan-uniform", ctx.dataset_label, ctx.rep, rows_hash))
        U = rng.uniform(lo, hi, (int(params.get("n_uniform", 20000)), X_tr.shape[1]))
        cached = (est, U)
        with _TREES_LOCK:
            _TREES[key] = cached
            while len(_TREES) > _MAX_CACHED:
                _TREES.popitem(last=False)
    est, U = cached
    margin = float(params.get("margin", 0.05))
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
    if depth in _depths(params.get("explain_depths")):
        artifacts[f"leaves_depth{depth}.txt"] = est.render(depth=depth, feature_names=list(ctx.dataset.X.columns))
    if depth in _depths(params.get("plot_depths")) and X_tr.shape[1] == 2:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        ax = est.plot_2d(target, depth=depth, resolution=200)
        artifacts[f"polytopes_depth{depth}.svg"] = _svg(ax.figure)
        plt.close(ax.figure)
    if artifacts:
        out["artifacts"] = artifacts
    return out
