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
    literals of A); compare A-B and A-B+ (semantic and statistical similarity). Section 4.1
    counts a change as recovered when "the perturbed rule (from A) was identified by the rule
    comparison as a change": its semantic match in B is not an identical rule (score below
    1). That alone cannot tell detection from churn (a B that shares no rule with A
    "recovers" every change), so each comparison reports, from the semantic matching
    (:func:`recovery_metrics`): ``detected_*`` (the perturbed rule changed; also written
    ``recovered_*``), ``false_change_*`` (share of the *unperturbed* rules of A that changed),
    ``kept_*`` (share of A's rules that B keeps identically) and ``detection_lift_*`` =
    detected - false change (about 0 when changes are churn, 1 for a clean detection).
``compare`` (Section 4, "Model comparison example")
    Two models (a pair); one rule set each; their matching and similarity; each rule set's
    fidelity and each model's accuracy on the test split.

Complexity (Section 4, "Complexity considerations"): the paper determines BRCG-light's
``lambda0`` and ``lambda1`` by grid search, changes them for mushroom "to provide larger
rules, as the optimal rule had only three literals", and reports complexities of 7-52
literals, which become B+'s bound ``C``. It states neither the grid nor the criterion. With
``lambda_grid`` set (``{"lambda0": [...], "lambda1": [...]}``) :func:`tune_lambdas` does the
search per dataset and model, on the labels of A's model over the run's training rows: each
grid point is fitted on a seeded 75% of those rows and scored by its fidelity on the other
25%; the chosen point is the one of *fewest literals* among those whose validation fidelity is
within ``lambda_tol`` of the best (ties: higher fidelity, then larger lambdas), and among
points with at least ``min_literals`` literals (per dataset label when a mapping; this is the
mushroom exception) and at most ``max_total_literals`` (the paper's reported range, 7-52, is its
complexity budget: a point above it is chosen only when no point is in range) when any is in
that range, and never an empty rule set unless all are empty.
A, B (and, in ``compare``, both rule sets) are then fitted on all training rows with the
chosen lambdas; ``lambda0_A``/``lambda1_A`` (``_B`` for the second model of ``compare``), the
validation fidelity and the search's time are recorded in every row, and the whole grid in
the artifact ``lambda_search_<model>.csv``.

Model inputs: the paper does not say what the black boxes learn from. ``model_inputs: raw``
(the default) trains them on the data (``Dataset.numeric()``); ``binarized`` on the binary
features BRCG sees (the run's binarizer, fitted on the training rows, applied to every row), so
that model and rule set share one feature space; in ``perturbation`` the retrained model uses
the same matrix.

Parameters: the task's own (:data:`PARAMETERS`: ``experiment``, ``test_size``, ``p``,
``grounded_form``, ``grounded_pricing``, ``model_inputs`` and the lambda search's) and every parameter of :class:`~interpretopt.methods.brcg.BRCGClassifier`
and :class:`~interpretopt.methods.brcg.GroundedBRCGClassifier` (``lambda0``, ``lambda1``,
``max_literals``, ``pricing``, ``time_limit`` per fit, ``mip_time_limit``, ``binarizer``,
``n_thresholds``, ``c_u``, ...), passed on by name with the estimators' own defaults. The
run's ``solver`` (one name for every role it fits, or one per role: ``master``, ``pricing``,
``integer``; see :data:`~interpretopt.methods.brcg.SOLVER_ROLES`) is checked against each role
when the config loads; ``solver_<role>_requested`` and ``solver_<role>`` record, per role, the
string given and the backend that ran. The config's ``settings`` pass on without
their time limit: each stage has its own work limit (``max_iter``, ``pricing_node_limit``,
``mip_node_limit``) and wall-clock safety net (``time_limit``, ``milp_time_limit``,
``mip_time_limit``); a row says when a safety net stopped a fit (``limited_by_time_A``). Rule sets reused across runs (rule set A of a repetition, B of a
flip probability) are shared through ``ctx.memo``, keyed by the training rows, the model and
every fit parameter; random draws come from ``ctx.rng_for``.
"""

from __future__ import annotations

import time
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np

from interpretopt._validation import Interval, StrOptions
from interpretopt.exceptions import InputError
from interpretopt.experiments.tasks import Param, estimator_params, task_params
from interpretopt.methods.brcg import PRICING_STRATEGIES, BRCGClassifier, GroundedBRCGClassifier
from interpretopt.methods.brcg import SOLVER_ROLES as BRCG_SOLVER_ROLES
from interpretopt.solvers._roles import solver_columns, solver_for

__all__ = ["run", "perturb_labels", "exclusive_region", "recovery_metrics", "tune_lambdas", "select_lambdas",
           "PARAMETERS"]

PARAMETERS = {
    "experiment": Param([StrOptions({"surrogate", "perturbation", "compare"})], "surrogate",
                        "what one run does (see the module docstring)"),
    "test_size": Param([Interval(Real, 0, 1, closed="neither")], 0.2, "test share of the split (key 'whatchanged')"),
    "p": Param([Interval(Real, 0, 1, closed="both")], 1.0, "flip probability in the perturbed region"),
    "grounded_form": Param([StrOptions({"constraint", "light"})], "constraint",
                           "BRCG+ with the paper's complexity bound C = literals of A, or the light form"),
    "grounded_pricing": Param([StrOptions(set(PRICING_STRATEGIES)), None], None,
                              "pricing of B+ (default: the run's pricing); 'beam+milp' and 'beam+bnb' can prove B+'s "
                              "LP optimal"),
    "model_inputs": Param([StrOptions({"raw", "binarized"})], "raw",
                          "features the black boxes learn from: the data ('raw') or the binarization BRCG sees "
                          "('binarized': the run's binarizer fitted on the training rows)"),
    "lambda_grid": Param([dict, None], None,
                         "grid search of BRCG-light's weights, {'lambda0': [...], 'lambda1': [...]} (None: no search, "
                         "the lambda0/lambda1 given)"),
    "lambda_tol": Param([Interval(Real, 0, 1, closed="left")], 0.01,
                        "lambda search: validation-fidelity tolerance within which the simplest rule set is chosen"),
    "min_literals": Param([Interval(Integral, 0, None, closed="left"), dict], 0,
                          "lambda search: fewest literals accepted (a mapping: per dataset label, e.g. mushroom)"),
    "max_total_literals": Param([Interval(Integral, 1, None, closed="left"), dict, None], None,
                                "lambda search: most literals of the whole rule set accepted (None: no bound; a "
                                "mapping: per dataset label), e.g. the paper's reported range 7-52"),
}
ESTIMATORS = (BRCGClassifier, GroundedBRCGClassifier)
SOLVER_ROLES = BRCG_SOLVER_ROLES
SET_BY_TASK = ("solver", "settings", "random_state", "grounding", "extend_literals", "conditions")


def solver_request(params, solver):
    """The run's solver and the per-role solvers its parameters name (``pricing_solver``, ``mip_solver``)."""
    return solver, {"pricing": params.get("pricing_solver"), "integer": params.get("mip_solver")}


def solver_roles(params) -> dict:
    """The run's optimization problems (:data:`~interpretopt.methods.brcg.SOLVER_ROLES`): the master LP and
    the integer master always, the pricing MILP when the pricing of a fit solves it (``pricing`` or
    ``grounded_pricing`` 'milp' / 'beam+milp')."""
    from interpretopt.methods.brcg import SOLVER_ROLES, active_solver_roles

    pricing = params.get("pricing", "beam")
    grounded = params.get("grounded_pricing") or pricing
    roles = {**active_solver_roles(pricing), **active_solver_roles(grounded)}
    return {k: SOLVER_ROLES[k] for k in SOLVER_ROLES if k in roles}


def _fit_params(params: dict) -> dict:
    """The estimator parameters of the run (the estimators' defaults for the others)."""
    return estimator_params(params, BRCGClassifier, exclude=SET_BY_TASK)


def _estimator(fp: dict, ctx, **extra):
    kw = dict(fp, solver=solver_for(ctx.solver, SOLVER_ROLES), settings=_settings(ctx),
              random_state=ctx.seed_for("brcg-estimator"))
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


def recovery_metrics(matching, perturbed: int) -> dict:
    """Detection of the perturbed rule apart from churn, from a semantic A-vs-B matching.

    A rule of A has *changed* when the comparison matches it to a rule of B that is not
    identical to it (semantic score below 1) or to none: Section 4.1's test, applied to every
    rule of A, not only to the perturbed one. A rule of A is *kept* when B holds an identical
    rule (a row of the similarity matrix reaches 1, whatever the assignment chose).

    Returns
    -------
    dict
        ``detected`` 1.0 when rule ``perturbed`` of A changed (the paper's "recovered");
        ``false_change`` the share of the other rules of A that changed (NaN when A has one
        rule); ``kept`` the share of A's rules that B holds unchanged; ``detection_lift`` =
        detected - false_change (NaN with false_change).
    """
    m = matching.n_rules1
    if not 0 <= perturbed < m:
        raise InputError(f"perturbed rule index {perturbed} is out of range for a rule set of {m} rules")
    changed = np.ones(m, dtype=bool)
    for i in range(m):
        j, score = matching.partner(i)
        changed[i] = j is None or score < 1.0 - 1e-9
    others = np.delete(changed, perturbed)
    fc = float(others.mean()) if len(others) else float("nan")
    det = float(changed[perturbed])
    S = np.asarray(matching.matrix, dtype=float).reshape(m, matching.n_rules2)
    kept = (S >= 1.0 - 1e-9).any(axis=1) if S.shape[1] else np.zeros(m, dtype=bool)
    return {"detected": det, "false_change": fc, "kept": float(kept.mean()), "detection_lift": det - fc}


def select_lambdas(points: list[dict], *, tol: float = 0.01, min_literals: int = 0,
                   max_total_literals: int | None = None) -> dict:
    """The grid point the lambda search chooses (see the module docstring).

    ``points``: one dict per grid point with ``lambda0``, ``lambda1``, ``fidelity`` (validation)
    and ``n_literals``. Empty rule sets are dropped unless every point is empty. Among the
    points with ``min_literals`` to ``max_total_literals`` literals (when none is in that range:
    those with at least ``min_literals``; when none has: all points), those within ``tol`` of
    the best validation fidelity; of these the one with fewest literals, then highest fidelity,
    then largest ``lambda0 + lambda1``.
    """
    if not points:
        raise InputError("the lambda search needs at least one grid point")
    # an empty rule set (the constant "else" label) explains nothing and leaves no rule to perturb:
    # it is chosen only when every point is empty
    points = [q for q in points if q["n_literals"] > 0] or list(points)
    top = np.inf if max_total_literals is None else max_total_literals
    pool = ([q for q in points if min_literals <= q["n_literals"] <= top]
            or [q for q in points if q["n_literals"] >= min_literals] or list(points))
    best = max(q["fidelity"] for q in pool)
    near = [q for q in pool if q["fidelity"] >= best - tol - 1e-12]
    return min(near, key=lambda q: (q["n_literals"], -q["fidelity"], -(q["lambda0"] + q["lambda1"])))


def _grid(lambda_grid) -> list[tuple[float, float]]:
    bad = set(lambda_grid) - {"lambda0", "lambda1"}
    if bad or not {"lambda0", "lambda1"} <= set(lambda_grid):
        raise InputError(f"lambda_grid must be a mapping with the keys 'lambda0' and 'lambda1' (lists of numbers >= 0), "
                         f"got keys {sorted(lambda_grid)}")
    axes = []
    for k in ("lambda0", "lambda1"):
        v = lambda_grid[k]
        v = list(v) if isinstance(v, (list, tuple)) else [v]
        if not v or any(isinstance(x, bool) or not isinstance(x, Real) or not x >= 0 for x in v):
            raise InputError(f"lambda_grid[{k!r}] must be a non-empty list of numbers >= 0, got {lambda_grid[k]!r}")
        axes.append([float(x) for x in v])
    return [(a, b) for a in axes[0] for b in axes[1]]


def _per_dataset(value, label: str, default=0):
    """A lambda-search bound: one value, or a mapping from dataset labels (``default`` for others)."""
    if isinstance(value, dict):
        value = value.get(label, default)
    return None if value is None else int(value)


def tune_lambdas(ctx, fp: dict, params: dict, X, y, *, key: str) -> dict:
    """Grid search of ``lambda0``/``lambda1`` on ``(X, y)`` (the module docstring gives the protocol).

    Returns the chosen point (``lambda0``, ``lambda1``, validation ``fidelity``, ``n_literals``)
    with ``grid``, every point's record. ``key`` names the labels (e.g. the model) in the seed
    of the validation split.
    """
    tp = task_params(params, PARAMETERS)
    grid = _grid(tp["lambda_grid"])
    n = len(y)
    rng = ctx.rng_for("brcg-lambda-search", key, rows=np.asarray(X.index))
    perm = rng.permutation(n)
    n_val = max(1, int(round(0.25 * n)))
    val, fit_rows = np.sort(perm[:n_val]), np.sort(perm[n_val:])
    points = []
    for l0, l1 in grid:
        est = _fit(_estimator(dict(fp, lambda0=l0, lambda1=l1), ctx), X.iloc[fit_rows], y[fit_rows])
        points.append({"lambda0": l0, "lambda1": l1, "fidelity": float(np.mean(est.predict(X.iloc[val]) == y[val])),
                       "n_literals": int(est.rules_.n_conditions), "n_rules": int(est.rules_.n_rules),
                       "fit_time": float(est.fit_time_)})
    chosen = select_lambdas(points, tol=float(tp["lambda_tol"]),
                            min_literals=_per_dataset(tp["min_literals"], ctx.dataset_label),
                            max_total_literals=_per_dataset(tp["max_total_literals"], ctx.dataset_label, None))
    return dict(chosen, grid=points)


def _lambda_search(ctx, fp: dict, params: dict, X, y, *, key: str) -> dict:
    """:func:`tune_lambdas`, once per process for the same rows, labels, fit and search parameters."""
    tp = task_params(params, PARAMETERS)
    return ctx.memo("brcg/lambda-search", lambda: tune_lambdas(ctx, fp, params, X, y, key=key), key=key,
                    rows=np.asarray(X.index), labels=y, fit=fp, grid=tp["lambda_grid"], tol=tp["lambda_tol"],
                    min_literals=tp["min_literals"], max_total_literals=tp["max_total_literals"])


def _tuned(ctx, fp: dict, params: dict, X, y, *, key: str, tag: str) -> tuple[dict, dict]:
    """``fp`` with the searched lambdas (when ``lambda_grid`` is set) and the metrics to record."""
    tp = task_params(params, PARAMETERS)
    if tp["lambda_grid"] is None:
        return fp, {}
    choice = _lambda_search(ctx, fp, params, X, y, key=key)
    rec = {f"lambda0_{tag}": choice["lambda0"], f"lambda1_{tag}": choice["lambda1"],
           f"lambda_val_fidelity_{tag}": choice["fidelity"],
           f"lambda_search_time_{tag}": float(sum(q["fit_time"] for q in choice["grid"]))}
    return dict(fp, lambda0=choice["lambda0"], lambda1=choice["lambda1"]), rec


def _search_table(ctx, params, fp, X, y, key) -> str | None:
    """The lambda search's grid (one line per point) as CSV, for the run's artifacts."""
    import pandas as pd

    tp = task_params(params, PARAMETERS)
    if tp["lambda_grid"] is None:
        return None
    choice = _lambda_search(ctx, fp, params, X, y, key=key)
    df = pd.DataFrame(choice["grid"])
    df["chosen"] = (df["lambda0"] == choice["lambda0"]) & (df["lambda1"] == choice["lambda1"])
    return df.to_csv(index=False)


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
        # a wall-clock safety net stopped a stage of the fit: the row may depend on the machine's load
        f"limited_by_time_{prefix}": bool(getattr(est, "limited_by_time_", False)),
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


def _model_inputs(ctx, params, train):
    """The matrix the black boxes learn from and predict on (``model_inputs``), or None for the data."""
    if task_params(params, PARAMETERS)["model_inputs"] == "raw":
        return None
    fp = {k: v for k, v in _fit_params(params).items() if k in ("binarizer", "n_thresholds", "negations")}

    def make():
        est = _estimator(fp, ctx)
        est._fit_binarize(ctx.dataset.X.iloc[train], ctx.y[train])  # the binarizer BRCG fits on these rows
        if est.binarizer_ is None:  # passthrough: the data are binary already
            return np.asarray(ctx.X, dtype=np.float32)
        return np.asarray(est.binarizer_.transform(ctx.dataset.X), dtype=np.float32)

    return ctx.memo("brcg/model-inputs", make, rows=np.asarray(train), fit=fp)


def _model_labels(ctx, name, train, y=None, params=None):
    features = None if params is None else _model_inputs(ctx, params, train)
    bb = ctx.black_box(name, train, y=y, features=features)
    return np.asarray(bb.predict(ctx.X if features is None else features)).astype(np.int8)


def _run_surrogate(ctx, params) -> dict:
    fp = _fit_params(params)
    train, test = _split(ctx, params)
    Xdf = ctx.dataset.X
    model = ctx.models[0] if ctx.models else None
    yl = _model_labels(ctx, model, train, params=params) if model else np.asarray(ctx.y).astype(np.int8)
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
        **solver_columns(getattr(est, "solvers_", None)),
        # a fit with no solve (labels of one class: proven by argument) names no solver
        "solver": getattr(res, "solver", None) if res is not None else "none",
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

    yA = _model_labels(ctx, model, train, params=params)
    fp0 = fp
    fp, tuned = _tuned(ctx, fp, params, Xtr, yA[train], key=model, tag="A")
    A = ctx.memo("brcg/A", lambda: _fit(_estimator(fp, ctx), Xtr, yA[train]), model=model, rows=train, fit=fp,
                 labels=yA[train])
    cov = A.rules_.coverage(Xtr)
    out: dict[str, Any] = dict(tuned)
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
    yB = _model_labels(ctx, model, train, y=y_pert[train], params=params)

    B = ctx.memo("brcg/B", lambda: _fit(_estimator(fp, ctx), Xtr, yB[train]), model=model, rows=train, fit=fp,
                 labels=yB[train])
    extra: dict[str, Any] = dict(grounded_fp, **fp, grounding=A.rules_, extend_literals=True)  # fp: searched lambdas
    if tp["grounded_pricing"] is not None:
        extra["pricing"] = tp["grounded_pricing"]
    if grounded_form == "constraint":
        extra.update(form="constraint", C=float(max(A.rules_.n_conditions, 1)), complexity="literals")
    Bg = _fit(_estimator(fp, ctx, **extra), Xtr, yB[train])

    X_stat = Xtr
    for tag, R in (("B", B), ("Bg", Bg)):
        sem = compare_rule_sets(A.rules_, R.rules_, similarity="semantic")
        stat = compare_rule_sets(A.rules_, R.rules_, similarity="statistical", X=X_stat)
        out[f"sim_sem_{tag}"] = sem.score
        out[f"sim_stat_{tag}"] = stat.score
        rec = recovery_metrics(sem, k)
        for name, value in rec.items():
            out[f"{name}_{tag}"] = value
        out[f"recovered_{tag}"] = rec["detected"]
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
    table = _search_table(ctx, params, fp0, Xtr, yA[train], model)
    if table is not None:
        out["artifacts"]["lambda_search_A.csv"] = table
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
    searches: dict[str, str] = {}
    for tag, name in zip(("A", "B"), ctx.models):
        yl = _model_labels(ctx, name, train, params=params)
        fpm, tuned = _tuned(ctx, fp, params, Xtr, yl[train], key=name, tag=tag)
        out.update(tuned)
        table = _search_table(ctx, params, fp, Xtr, yl[train], name)
        if table is not None:
            searches[f"lambda_search_{name}.csv"] = table
        est = _fit(_estimator(fpm, ctx), Xtr, yl[train])
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
        **searches,
    }
    return out
