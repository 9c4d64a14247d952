"""Experiment task ``mtrepan``: global translation by MTRE-PAN or TRE-PAN (Almerri et al., Tables 2-9).

One run = one (dataset, target, variant, evaluation depth, repetition). The target and the
tree of a (dataset, target, variant, repetition) are built once (``ctx.memo``; their seeds
come from ``ctx.seed_for`` and do not depend on ``depth``); the tree is grown up to
``grow_depth`` and evaluated truncated at ``depth`` (root =
depth 1, the paper's convention). Because every node draws from its own seeded generator,
the truncated tree is exactly the tree a run with ``max_depth = depth`` would grow.

Data and target, as the authors' release prepares them (``Oracle.cpp``, ``Ann_Oracle.cpp``):
with ``balance_classes: true`` the rows of the larger class are dropped at random until
both classes are equal; the rows are shuffled and ``test_size`` of them (the release's
``floor((n - 1) 0.3) + 1``) are the validation rows, the rest the training rows. The target
is the network named in ``models`` (``MTREPAN_NET``), trained on the training rows with the
validation rows picking the best training call (``net_*`` parameters override its
settings: ``net_rounds``, ``net_scale_inputs``, ``net_loss``, ``net_optimizer``,
``net_learning_rate``, ``net_samples_per_round``, ``net_arithmetic``), or, for the ``circle`` dataset (no model
named), the circle of radius ``params.radius`` itself (:class:`~interpretopt.blackbox.CircleTarget`)
(``test_size: 0`` makes every row a training row, as the release's circle run).

Evaluation protocols (``evaluation``), the two readings of the paper's evaluation points:

``paper``
    Reading (a), "uniform points in the training box", the authors' release (the value's name
    is historical: it is the release's reading, and what the paper's tables print);
    ``Tree_Builder::Get_All(0.50)``: ``floor(eval_fraction * N_root)``
    points uniform in the training rows' bounding box, ``N_root`` being the number of data
    the root held after sampling on demand (training rows plus samples), labelled by the
    target; one draw per tree, used at every depth. With ``leaf_label: side`` and
    ``root_label: negative`` (the release's labels) the depth-1 model parity is the share of
    the box the target labels negative.
``held_out``
    Reading (b), "over the total number of samples in the validation set" (the paper's text,
    Section 4, eqs. 8-9): the validation rows.
``both``
    ``paper`` in the main columns and ``held_out`` with the suffix ``_held_out``.

Metrics (percent, as the paper's tables): ``model_parity`` (eq. 8), ``certain_model_parity``
(eq. 9), ``boundary_model_parity`` (the paper's definition: points within ``margin`` of the
target's boundary, the input of the network's output unit or the circle's signed
distance; ``n_boundary`` says how many), ``boundary_model_parity_release`` (what the
release computed and the paper printed: certain parity on the points the network calls
negative with ``p < 0.5 - margin``, or inside the circle; ``n_boundary_release``; see
:func:`interpretopt.evaluation.parity.release_boundary_mask`), ``leaf_count``. Also
``n_eval``, ``target_accuracy`` (on the validation rows), ``target_negative_share`` (share
of the evaluation box the target labels 0), ``target_fingerprint`` (which network: the
SHA-1 prefix of its weights, :meth:`~interpretopt.blackbox.MTREPANNetwork.fingerprint`, or
``circle(r=...)``; with the two shares above it tells a table which target a row translated), ``n_queries``, ``fit_seconds``,
``lp_seconds``, ``sampling_seconds`` (drawing points, without the target's time),
``oracle_seconds``, ``n_lp_solves``, ``n_lp_optimal``, ``n_eq7_unmet``,
``n_hit_and_run_nodes``, ``eval_seconds``, ``limited_by_time`` (a node LP stopped by the
settings' time limit, a safety net: its split may differ on another machine). No ``status`` column: the tree is a greedy
construction, not a certified optimum.

Parameters (``params``): the task's own (:data:`PARAMETERS`: ``variant`` (``mtrepan``;
``trepan``, whose splitter is ``trepan_splitter``, default ``svm_1d`` (the release's, which
produced the paper's TRE-PAN tables); ``trepan_c45``, the C4.5-style splitter of the paper's
text), ``depth``, ``grow_depth`` (the estimator's ``max_depth``), ``evaluation``,
``eval_fraction``, ``test_size``, ``balance_classes``, ``radius`` (circle), ``net_*``,
``plot_depths`` (depths at which the 2-D leaf plot of Figure 3 is written as an SVG
artifact, two-feature data only; in YAML a list value is written ``[[9, 12]]``),
``explain_depths`` (depths at which the leaves are written as text and JSON)), and every
parameter of :class:`~interpretopt.methods.mtrepan.MTREPANClassifier` /
:class:`~interpretopt.methods.mtrepan.TREPANClassifier` (``cutoff_entropy``,
``cutoff_variance``, ``margin``, ``box_margin``, ``batch_size``, ``C``, ``class_weight``,
``leaf_label``, ``root_label``, ``criterion``, ``max_node_samples``, ``max_lp_samples``,
``sampler``, ``boundary_estimates``, ...), passed on by name with the estimator's defaults.
"""

from __future__ import annotations

import inspect
import io
import time
from numbers import Integral, Real
from typing import Any

import numpy as np

from interpretopt._validation import Interval, StrOptions
from interpretopt.methods.mtrepan import SOLVER_ROLES as MTREPAN_SOLVER_ROLES
from interpretopt.solvers._roles import solver_columns, solver_for
from interpretopt.experiments.tasks import Param, estimator_default, estimator_params, task_params
from interpretopt.methods.mtrepan import TREPAN_SPLITTERS, MTREPANClassifier, TREPANClassifier

__all__ = ["run", "make_translator", "release_split", "VARIANTS", "EVALUATIONS", "PARAMETERS"]

VARIANTS = ("mtrepan", "trepan", "trepan_c45")
EVALUATIONS = ("paper", "held_out", "both")

#: task parameter -> the MTREPANNetwork parameter it overrides in the target network
_NET_KEYS = {"net_rounds": "n_rounds", "net_scale_inputs": "scale_inputs", "net_loss": "loss",
             "net_optimizer": "optimizer", "net_learning_rate": "learning_rate",
             "net_samples_per_round": "samples_per_round", "net_arithmetic": "arithmetic"}


def _net_constraints(arg: str) -> list:
    from interpretopt.blackbox import MTREPANNetwork

    return list(getattr(MTREPANNetwork, "_parameter_constraints", {}).get(arg, [object])) + [None]


_DEPTHS = [Interval(Integral, 1, None, closed="left"), list, tuple, None]
PARAMETERS = {
    "variant": Param([StrOptions(set(VARIANTS))], "mtrepan",
                     "mtrepan; trepan (splitter trepan_splitter); trepan_c45 (the C4.5-style splitter)"),
    "trepan_splitter": Param([StrOptions(set(TREPAN_SPLITTERS))], "svm_1d",
                             "TRE-PAN's splitter for variant trepan (the release's one-feature SVMs)"),
    "depth": Param([Interval(Integral, 1, 64, closed="both"), None], None, "evaluation depth (root = 1)"),
    "grow_depth": Param([Interval(Integral, 1, 64, closed="both"), None], None,
                        "depth the tree is grown to (the estimator's max_depth)"),
    "evaluation": Param([StrOptions(set(EVALUATIONS))], "paper", "evaluation protocol (module docstring)"),
    "eval_fraction": Param([Interval(Real, 0, 1, closed="right")], 0.5, "points per root datum of the paper protocol"),
    "test_size": Param([Interval(Real, 0, 1, closed="left")], 0.3, "validation share of the release split"),
    "balance_classes": Param(["boolean"], False, "drop rows of the larger class first (the release's option)"),
    "radius": Param([Interval(Real, 0, None, closed="neither"), None], None, "radius of the circle target"),
    "plot_depths": Param(_DEPTHS, None, "depths of the 2-D leaf plots (SVG artifacts)"),
    "explain_depths": Param(_DEPTHS, None, "depths whose leaves are written as text and JSON"),
    **{k: Param(_net_constraints(arg), None, f"the target network's {arg}") for k, arg in _NET_KEYS.items()},
}
ESTIMATORS = (MTREPANClassifier, TREPANClassifier)
SET_BY_TASK = ("max_depth", "solver", "solver_settings", "random_state", "splitter")


SOLVER_ROLES = MTREPAN_SOLVER_ROLES


def solver_roles(params) -> dict:
    """Node LPs (MTRE-PAN's and the release TRE-PAN's splits; boundary estimates): role ``node``."""
    return dict(SOLVER_ROLES)


def check(params) -> None:
    """``depth`` must not exceed ``grow_depth``."""
    tp = task_params(params, PARAMETERS)
    if tp["depth"] is not None and tp["grow_depth"] is not None and tp["depth"] > tp["grow_depth"]:
        raise ValueError(f"depth {tp['depth']} exceeds grow_depth {tp['grow_depth']}")


def _variant_class(variant: str) -> type:
    if variant not in VARIANTS:
        from interpretopt.exceptions import ParameterError

        raise ParameterError(f"params.variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    return MTREPANClassifier if variant == "mtrepan" else TREPANClassifier


def make_translator(params: dict, seed: int, solver: str = "highs", settings: Any = None):
    """The unfitted MTRE-PAN / TRE-PAN estimator of a run, grown to ``grow_depth``; every other
    estimator parameter of ``params`` is passed on by name (the estimator's defaults otherwise)."""
    tp = task_params(params, PARAMETERS)
    cls = _variant_class(tp["variant"])
    grow = tp["grow_depth"] if tp["grow_depth"] is not None else estimator_default(cls, "max_depth")
    kw = dict(estimator_params(params, cls, exclude=SET_BY_TASK), max_depth=int(grow), solver=solver,
              solver_settings=settings, random_state=seed)
    if cls is TREPANClassifier:
        kw["splitter"] = "c45" if tp["variant"] == "trepan_c45" else tp["trepan_splitter"]
    return cls(**kw)


def release_split(y: np.ndarray, test_size: float, seed: int, balance: bool) -> tuple[np.ndarray, np.ndarray]:
    """Training and validation rows as the authors' release forms them (``Oracle::Oracle``).

    Shuffle; with ``balance`` drop the first rows of the larger class (in shuffled order)
    until both classes have as many rows; shuffle again; the first
    ``floor((n - 1) test_size) + 1`` rows validate, the rest train (``test_size = 0``: every
    row trains). Returned sorted.
    """
    rng = np.random.default_rng(seed)
    y = np.asarray(y)
    idx = rng.permutation(y.shape[0])
    if balance:
        classes, counts = np.unique(y, return_counts=True)
        if classes.size == 2 and counts[0] != counts[1]:
            big = classes[int(np.argmax(counts))]
            drop = idx[y[idx] == big][: int(counts.max() - counts.min())]
            idx = idx[~np.isin(idx, drop)]
        idx = idx[rng.permutation(idx.shape[0])]
    if test_size <= 0:
        return np.sort(idx), np.empty(0, dtype=np.int64)
    n_val = int(np.floor((idx.shape[0] - 1) * float(test_size))) + 1
    return np.sort(idx[n_val:]), np.sort(idx[:n_val])


def _target(ctx, train: np.ndarray, val: np.ndarray):
    """The black box: the circle, or the named network trained on ``train`` with ``val`` picking its best call."""
    from interpretopt.blackbox import CircleTarget, make_model

    if not ctx.models:
        if ctx.dataset.name != "circle":
            raise ValueError("name the target model (models: [MTREPAN_NET]); only the circle dataset has a built-in "
                             "target")
        radius = task_params(ctx.params, PARAMETERS)["radius"]
        return (CircleTarget() if radius is None else CircleTarget(float(radius))), "circle"
    if len(ctx.models) != 1:
        raise ValueError(f"the mtrepan task translates one model, got {list(ctx.models)}")
    name = ctx.models[0]
    overrides = {arg: ctx.params[k] for k, arg in _NET_KEYS.items() if ctx.params.get(k) is not None}
    deps = dict(model=name, overrides=overrides, train=train, val=val, rep=ctx.rep)

    def make():
        model = make_model(name, random_state=ctx.seed_for("mtrepan/target", **deps), **overrides)
        if len(val) and "X_val" in inspect.signature(model.fit).parameters:
            return model.fit(ctx.X[train], ctx.y[train], X_val=ctx.X[val], y_val=ctx.y[val])
        return model.fit(ctx.X[train], ctx.y[train])

    return ctx.memo("mtrepan/target", make, **deps), name


def _fingerprint(target) -> str:
    """Which target a row translated: the network's weight digest, or the circle's radius."""
    fp = getattr(target, "fingerprint", None)
    if callable(fp):
        return str(fp())
    if hasattr(target, "radius"):
        return f"circle(r={float(target.radius):g})"
    return type(target).__name__


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


def _metrics(est, target, X: np.ndarray, depth: int, margin: float, suffix: str = "") -> dict:
    rep = est.parity(target, X, depth=depth, margin=margin, release_boundary=hasattr(target, "predict_proba"))
    keys = ("model_parity", "certain_model_parity", "boundary_model_parity", "n_boundary",
            "boundary_model_parity_release", "n_boundary_release")
    out = {k + suffix: rep[k] for k in keys if k in rep}
    out["n_eval" + suffix] = rep["n_validation"]
    return out


def run(ctx) -> dict:
    params = ctx.params
    tp = task_params(params, PARAMETERS)
    cls = _variant_class(tp["variant"])
    default_depth = estimator_default(cls, "max_depth")
    depth = int(tp["depth"] if tp["depth"] is not None else (tp["grow_depth"] or default_depth))
    grow_depth = int(tp["grow_depth"] if tp["grow_depth"] is not None else max(depth, default_depth))
    check({**params, "depth": depth, "grow_depth": grow_depth})
    evaluation = tp["evaluation"]
    test_size = float(tp["test_size"])
    split_seed = ctx.seed_for("mtrepan/split", rep=ctx.rep, test_size=test_size, balance=tp["balance_classes"])
    train, val = release_split(ctx.y, test_size, split_seed, tp["balance_classes"])
    if evaluation != "paper" and val.size == 0:
        raise ValueError(f"evaluation {evaluation!r} needs held-out rows; set test_size > 0")
    target, target_name = _target(ctx, train, val)
    X_tr = ctx.X[train]
    grow = {**estimator_params(params, cls, exclude=SET_BY_TASK), "variant": tp["variant"],
            "trepan_splitter": tp["trepan_splitter"], "grow_depth": grow_depth, "radius": tp["radius"],
            "eval_fraction": tp["eval_fraction"]}
    net = {k: tp[k] for k in _NET_KEYS}
    deps = dict(train=train, val=val, target=target_name, rep=ctx.rep, grow=grow, net=net)

    def grow_tree():
        est = make_translator({**params, "grow_depth": grow_depth}, ctx.seed_for("mtrepan/tree", **deps),
                              solver_for(ctx.solver, SOLVER_ROLES), ctx.settings)
        est.fit(X_tr, target)
        lo, hi = est.root_box_
        n_eval = int(np.floor(float(tp["eval_fraction"]) * est.tree_.nodes[0].n_samples))
        rng = ctx.rng_for("mtrepan/eval", **deps)
        U = lo + rng.random((max(n_eval, 1), X_tr.shape[1])) * (hi - lo)
        return est, U

    cached = ctx.memo("mtrepan/tree", grow_tree, **deps)
    est, U = cached
    margin = float(est.margin)
    t0 = time.perf_counter()
    out: dict[str, Any] = {"evaluation": evaluation}
    if evaluation in ("paper", "both"):
        out.update(_metrics(est, target, U, depth, margin))
    if evaluation == "held_out":
        out.update(_metrics(est, target, ctx.X[val], depth, margin))
    elif evaluation == "both":
        out.update(_metrics(est, target, ctx.X[val], depth, margin, "_held_out"))
    st = est.stats_
    out.update({
        "leaf_count": est.leaf_count(depth),
        "target_accuracy": (float(np.mean(np.asarray(target.predict(ctx.X[val])) == ctx.y[val]))
                            if val.size else float("nan")),
        "target_negative_share": float(np.mean(np.asarray(target.predict(U)) == est.classes_[0]) * 100.0),
        "target_fingerprint": _fingerprint(target),
        "n_train": int(train.size),
        "n_root": int(est.tree_.nodes[0].n_samples),
        "n_queries": est.n_queries_,
        "fit_seconds": est.fit_time_,
        "fit_cpu_seconds": est.fit_cpu_,
        "sampling_cpu_seconds": float(st["sampling_cpu"]),
        "lp_seconds": est.lp_time_,
        "sampling_seconds": float(st["sampling_time"]),
        "oracle_seconds": float(st["oracle_time"]),
        "n_lp_solves": est.n_lp_solves_,
        "n_lp_optimal": int(est.lp_status_counts_.get("optimal", 0)),
        "n_eq7_unmet": est.n_eq7_unmet_,
        "n_hit_and_run_nodes": int(st["sampling_methods"].get("hit_and_run", 0)),
        "n_nodes": int(st["n_nodes"]),
        # sampling and growth are bounded by work (eq. 7's points, depth); only a solver's time
        # limit, a safety net of the config's settings, can stop a node's LP by the clock
        "limited_by_time": any(bool(r.get("limited_by_time")) for r in est.solve_results_),
        "eval_seconds": time.perf_counter() - t0,
        "solver": est.solvers_["node"]["solver"] or None,
        **solver_columns(est.solvers_),
    })
    artifacts = {}
    if depth in _depths(tp["explain_depths"]):
        names = list(ctx.dataset.X.columns) if len(ctx.dataset.X.columns) == ctx.X.shape[1] else None
        artifacts[f"leaves_depth{depth}.txt"] = est.render(depth=depth, feature_names=names)
        artifacts[f"tree_depth{depth}.json"] = est.to_json(depth=depth)
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
