"""MTRE-PAN and TRE-PAN: global translation of a binary black box into a tree of polytopes.

Almerri et al., "Global translation of classification models" (Sections 3-4, Table 1).

:class:`MTREPANClassifier` splits every uncertain node by the hyperplane of a linear SVM
trained on the node's data; the SVM is the L1-norm soft-margin LP of
:mod:`interpretopt.formulations.svm_lp`, solved through the solver registry (HiGHS by
default). :class:`TREPANClassifier` is the axis-aligned baseline the paper compares
against, with the same sampling on demand, cutoffs and depth handling, and two splitters:

``splitter="c45"`` (default)
    The binary C4.5-style split the paper's text names (Section 4: "the C4.5 binary
    implementation of TRE-PAN was used"): the threshold of highest information gain (or
    gain ratio).
``splitter="svm_1d"``
    What the authors' release actually runs as "TRE-PAN" (``source/Deci_Tree_Node.cpp``):
    a one-feature linear SVM on every feature of the node's data, and the feature whose SVM
    has the smallest training objective gives the split. The paper's Tables 3, 5, 7 and 9
    were produced by the release, so it is this splitter that they report (the circle run
    of :mod:`configs/mtrepan/tables2_3_circle.yaml` compares both).

Both grow with :func:`interpretopt.heuristics.trepan.grow_translation_tree` and sample with
:mod:`interpretopt.heuristics.polytope_sampling`.

Explanations: :meth:`~_TranslatorBase.leaves` gives every leaf as its minimal polytope
(redundant rows removed by LPs, printed with box rows as ``lo <= x <= hi``), its label or
``"uncertain"``, and for uncertain leaves the linear estimate of the boundary inside it
(eq. 13); :meth:`~_TranslatorBase.boundary_estimate` adds Section 4.1's estimate of the
boundaries that lie between certain leaves (the shared constraint of neighbouring leaves
of different labels); :meth:`~_TranslatorBase.explain` explains one point (its leaf, the
leaf's inequalities and label, and the nearest leaf of the other label with the closest
point in it); :meth:`~_TranslatorBase.to_json` and :meth:`~_TranslatorBase.to_frame` export.
Rendering lives in :mod:`interpretopt.methods.mtrepan_render`.

The node LP is built once per node. Nodes hold up to ~25,000 samples (the variance rule
stops at ``N >= 1 / (4 cutoff_variance)``), and there the primal LP (one row per sample)
takes HiGHS several seconds while its dual (``d + 1`` rows) takes a fraction of one. So
with ``lp_path="auto"`` (default) and a backend that takes a program as arrays and returns
duals (capabilities ``incremental`` or ``solves_arrays``, and ``duals``: ``highs``,
``highs_direct``, ``ortools_glop``, ``scipy``), the *dual* LP is handed to the backend as arrays
(:func:`interpretopt.formulations.svm_lp.dual_matrix_form`) and the hyperplane is read from
its row duals; ``lp_path="matrix"`` hands over the primal arrays; any other backend (or
``lp_path="pyomo"``) builds the primal Pyomo model
(:func:`interpretopt.formulations.svm_lp.build`, the tested source of truth) and solves it
with :func:`interpretopt.solvers.solve`. Tests check that all paths give the same hyperplane.
Every node LP's outcome is recorded in the shared status vocabulary (``optimal``,
``feasible``, ``infeasible``, ``unbounded``, ``error``) with its objective, bound and gap;
the tree itself is a greedy construction and carries no status.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any


import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from interpretopt.solvers._roles import SolverRole, assign_solvers

from interpretopt._validation import (
    RANDOM_STATE,
    ContractMixin,
    HasMethods,
    Interval,
    StrOptions,
    as_generator,
    check_fitted,
    check_int,
    check_solver_available,
    render_names,
    validate_data,
)
from interpretopt.exceptions import InputError, InterpretoptError
from interpretopt.heuristics.polytope_sampling import SAMPLING_METHODS
from interpretopt.heuristics.trepan import (
    LEAF_LABELS,
    ROOT_LABELS,
    NodeSolveError,
    Split,
    TreeNode,
    best_axis_split,
    grow_translation_tree,
    node_rng,
    path_label,
)
from interpretopt.rules import Polytope

__all__ = ["MTREPANClassifier", "TREPANClassifier", "LeafExplanation", "PointExplanation", "BoundaryPiece",
           "SamplingCapWarning", "make_oracle", "fit_node_svm", "fit_feature_svm_split", "node_lp_status",
           "LP_PATHS", "TREPAN_SPLITTERS"]


class SamplingCapWarning(UserWarning):
    """Sampling on demand stopped at some nodes before eq. 7 was met (a cap was reached)."""


# --------------------------------------------------------------------------------------
# the target as an oracle


def _ask_target(fn: Any, X: np.ndarray) -> Any:
    """The target's answers on ``X``; an exception inside the user's model becomes one clear error (chained)."""
    try:
        return fn(X)
    except InterpretoptError:
        raise
    except Exception as exc:
        raise InputError(f"the target model failed when asked to label {X.shape[0]} sampled row(s) of "
                         f"{X.shape[1]} feature(s) ({type(exc).__name__}: {exc}); the target must label any row of "
                         "the box X spans, given as a float array (n, d)") from exc


def make_oracle(model: Any) -> tuple[Any, np.ndarray]:
    """``(oracle, classes)``: ``oracle(X) -> {0, 1}`` (1 = ``classes[1]``) from a fitted binary classifier.

    A plain callable returning two distinct labels is also accepted (classes ``[0, 1]``;
    its outputs must be ``{0, 1}``, ``{-1, 1}`` or booleans).
    """
    if hasattr(model, "predict"):
        classes = getattr(model, "classes_", None)
        if classes is not None:
            classes = np.asarray(classes)
            if classes.ndim != 1 or classes.shape[0] != 2:
                raise InputError(f"the target model must be a binary classifier; {type(model).__name__} has "
                                 f"{np.size(classes)} classes ({np.asarray(classes).ravel()[:6].tolist()})")
            pos = classes[1]

            def oracle(X: np.ndarray) -> np.ndarray:
                out = np.asarray(_ask_target(model.predict, X)).ravel()
                bad = ~np.isin(out, classes)
                if bad.any():
                    raise InputError(f"the target predicted {out[bad][0]!r}, not one of its classes {classes.tolist()}")
                return (out == pos).astype(np.int8)

            return oracle, classes
        fn = model.predict
    elif callable(model):
        fn = model
    else:
        raise InputError(f"the target must be a fitted classifier with predict() or a callable, "
                         f"got {type(model).__name__}")

    def oracle_fn(X: np.ndarray) -> np.ndarray:
        out = np.asarray(_ask_target(fn, X)).ravel()
        if out.dtype == bool:
            return out.astype(np.int8)
        vals = np.unique(out)
        if not (np.isin(vals, [0, 1]).all() or np.isin(vals, [-1, 1]).all()):
            raise InputError(f"the target must be binary with labels {{0, 1}} or {{-1, 1}}; it returned "
                             f"{vals[:6].tolist()}")
        return (out > 0).astype(np.int8)

    return oracle_fn, np.array([0, 1])


def _check_box_has_extent(X: np.ndarray, owner: str) -> None:
    """Refuse rows that are all one point: their bounding box (the translated region) has no extent.

    The translation samples the box the rows span; one distinct row spans a single point,
    whose translation would be a constant tree that says nothing about the target.
    """
    if X.shape[0] == 1 or not np.any(X.max(axis=0) > X.min(axis=0)):
        raise InputError(f"{owner}: the {X.shape[0]} row(s) of X (n_samples = {X.shape[0]}) are all the same point, so the box they span "
                         "(the region the target is translated on) has zero volume and nothing can be sampled; "
                         "pass rows that differ in at least one feature (the target's training rows)")


# --------------------------------------------------------------------------------------
# the node classifiers


LP_PATHS = ("auto", "dual", "matrix", "pyomo")
#: MTRE-PAN's one optimization problem and what it needs of its solver
SOLVER_ROLES = {
    "node": SolverRole("node", ("lp",), "the L1-norm SVM LP of each node, whose hyperplane is the node's split"),
}
TREPAN_SPLITTERS = ("c45", "svm_1d")


def node_lp_status(status: Any) -> str:
    """A solve status in the shared vocabulary: ``optimal`` (proven), ``feasible`` (an incumbent
    without proof), ``infeasible``, ``unbounded``; anything else (a limit without an
    incumbent, an unknown outcome, a failure) is ``error``."""
    s = str(getattr(status, "value", status))
    return s if s in ("optimal", "feasible", "infeasible", "unbounded") else "error"


def _svm_objective(w: np.ndarray, w0: float, Z: np.ndarray, y: np.ndarray, C: float, class_weight: Any) -> float:
    """``||w||_1 + C sum_i s_i max(0, 1 - y_i (w . z_i + w0))``: the primal value of any hyperplane."""
    from interpretopt.formulations import svm_lp

    ys = svm_lp.signed_labels(y)
    s = svm_lp.sample_weights(ys, class_weight)
    hinge = np.maximum(0.0, 1.0 - ys * (Z @ w + w0))
    return float(np.abs(w).sum() + C * np.dot(s, hinge))


def _lp_capabilities(solver: str):
    """The backend's capabilities, and whether it takes a program as arrays (an incremental model or
    ``solves_arrays``): the condition of the ``dual`` and ``matrix`` paths, by capability, never by name."""
    from interpretopt.solvers import get_solver

    backend = get_solver(solver)
    return backend.capabilities, bool(backend.capabilities.incremental or backend.solves_arrays)


def _direct_backends() -> list[str]:
    from interpretopt.solvers import SOLVERS

    return [n for n in SOLVERS.names()
            if SOLVERS.get(n).capabilities.incremental or SOLVERS.get(n).solves_arrays]


def fit_node_svm(X: np.ndarray, y: np.ndarray, *, C: float = 1.0, class_weight: Any = "balanced",
                 solver: str = "highs", settings: Any = None, lp_path: str = "auto", path: str = "",
                 scale: bool = True) -> tuple[Split | None, Any]:
    """Train the L1-norm SVM LP on one node's data; the split ``c . x <= b`` is the class-0 side.

    The features are scaled to [-1, 1] by the node's own minima and maxima before the LP
    (as the authors' release does, ``MyStats::Norm``) and the hyperplane is mapped back to
    original units; the row is then scaled so that ``max |c_j| = 1``.

    Returns
    -------
    split : Split or None
        ``None`` when the LP gives ``w = 0`` (the data cannot be split by it).
        ``split.info`` holds the LP's ``status`` in the shared vocabulary (see
        :func:`node_lp_status`), ``objective``, ``bound`` and ``gap``.
    result : SolveResult

    Raises
    ------
    NodeSolveError
        When the LP is infeasible, unbounded or fails; the message names the node's path.
    """
    from interpretopt.formulations import svm_lp
    from interpretopt.solvers import SolveSettings, solve, solve_lp

    X = np.asarray(X, dtype=float)
    if scale:
        lo, hi = X.min(axis=0), X.max(axis=0)
        mid = 0.5 * (lo + hi)
        half = np.where(hi > lo, 0.5 * (hi - lo), 1.0)
        Z = (X - mid) / half
    else:
        mid, half, Z = np.zeros(X.shape[1]), np.ones(X.shape[1]), X
    settings = settings if settings is not None else SolveSettings()
    if lp_path not in LP_PATHS:
        raise InputError(f"lp_path must be one of {', '.join(LP_PATHS)}, got {lp_path!r}")
    backend = solver
    caps, direct = _lp_capabilities(solver)
    if lp_path == "auto":
        lp_path = "dual" if direct and caps.duals else "pyomo"
    if lp_path in ("dual", "matrix") and not direct:
        raise InputError(f"lp_path={lp_path!r} hands the LP over as arrays, which needs a backend with a direct "
                         f"interface ({', '.join(_direct_backends())}), got {solver!r}; use lp_path='pyomo'")
    if lp_path == "dual" and not caps.duals:
        raise InputError(f"lp_path='dual' reads the hyperplane from row duals, and {solver!r} returns none; "
                         "use lp_path='matrix' or 'pyomo'")
    try:
        if lp_path == "dual":
            res = solve_lp(svm_lp.dual_lp(Z, y, C=C, class_weight=class_weight), backend, settings, duals=True)
            sol = (svm_lp.solution_from_duals(res.duals, Z, y, C=C, class_weight=class_weight,
                                              dual_objective=res.objective)
                   if res.has_solution and res.duals is not None else None)
        elif lp_path == "matrix":
            lp = svm_lp.primal_lp(Z, y, C=C, class_weight=class_weight)
            res = solve_lp(lp, backend, settings)
            sol = svm_lp.solution_from_vector(res.x, lp) if res.has_solution and res.x is not None else None
        else:
            model = svm_lp.build(Z, y, C=C, class_weight=class_weight)
            res = solve(model, solver, settings)
            sol = svm_lp.extract(model) if res.has_solution else None
        res.info["lp_path"] = lp_path
    except NodeSolveError:
        raise
    except InputError:
        raise
    except Exception as exc:
        raise NodeSolveError(path, f"the SVM LP failed on {X.shape[0]} samples with solver {solver!r}: "
                                   f"{type(exc).__name__}: {exc}") from exc
    status = node_lp_status(res.status)
    if sol is None:
        raise NodeSolveError(path, f"the SVM LP on {X.shape[0]} samples returned status {status} "
                                   f"({res.status.value}) with solver {solver!r} ({res.message}); the L1-SVM LP is "
                                   "always feasible and bounded, so this is a numerical failure: try another solver "
                                   "or scale the data")
    if status == "optimal":
        objective, bound, gap = float(sol.objective), float(sol.objective), 0.0
    else:
        # an incumbent without proof (e.g. a time limit): its primal value is exact, no bound is known
        objective, bound, gap = _svm_objective(sol.w, sol.w0, Z, y, C, class_weight), None, None
    w = sol.w / half
    w0 = sol.w0 - float(np.sum(sol.w * mid / half))
    scale_c = float(np.max(np.abs(w)))
    info = {"objective": objective, "bound": bound, "gap": gap, "status": status, "wall_time": res.wall_time}
    if not scale_c > 1e-12 * max(1.0, abs(w0)) or not np.isfinite(scale_c):
        return None, res
    c = w / scale_c
    b = -w0 / scale_c
    return Split(c=c, b=float(b), left_label=0, right_label=1, info=info), res


def fit_feature_svm_split(X: np.ndarray, y: np.ndarray, *, C: float = 10.0, class_weight: Any = "balanced",
                          solver: str = "highs", settings: Any = None, lp_path: str = "auto",
                          path: str = "") -> tuple[Split | None, list]:
    """The authors' release's "TRE-PAN" split: a one-feature SVM per feature, the lowest objective wins.

    Release ``Deci_Tree_Node::Train_``: the node's data are scaled to [-1, 1] per feature, a
    linear SVM is trained on each feature alone, and the feature whose SVM reaches the
    smallest training objective gives the threshold ``x_j <= t`` (class-0 side left). Here
    each one-feature SVM is the L1-SVM LP of :func:`fit_node_svm` (in one dimension the L1
    and L2 norms of ``w`` coincide up to squaring; the release uses mlpack's L2 SVM with
    lambda = 1e-4).

    Returns
    -------
    split : Split or None
        ``None`` when no feature's SVM separates anything (``w = 0`` everywhere).
    results : list of SolveResult
        One per feature.
    """
    X = np.asarray(X, dtype=float)
    best: tuple[float, int, Split] | None = None
    results = []
    for j in range(X.shape[1]):
        col = X[:, [j]]
        if col.max() <= col.min():
            continue
        split, res = fit_node_svm(col, y, C=C, class_weight=class_weight, solver=solver, settings=settings,
                                  lp_path=lp_path, path=path)
        results.append(res)
        if split is None:
            continue
        obj = float(split.info["objective"])
        if best is None or obj < best[0] - 1e-12:
            best = (obj, j, split)
    if best is None:
        return None, results
    obj, j, s1 = best
    c = np.zeros(X.shape[1])
    c[j] = s1.c[0]  # +-1
    return Split(c=c, b=s1.b, left_label=0, right_label=1, info={**s1.info, "feature": j}), results


# --------------------------------------------------------------------------------------
# explanations


def _normalized_polytope(P: Polytope) -> Polytope:
    if P.n_constraints == 0:
        return P
    s = np.max(np.abs(P.C), axis=1)
    s = np.where(s > 0, s, 1.0)
    return Polytope(P.C / s[:, None], P.b / s)


@dataclass(frozen=True)
class LeafExplanation:
    """One leaf of a translation as a polytope in the original feature units.

    Attributes
    ----------
    node_id, path, depth
        Where the leaf sits (``path`` is the string of L/R moves from the root).
    polytope : Polytope
        ``C x <= b`` in its minimal form: rows implied by the others removed (by LPs),
        each row scaled so its largest coefficient has magnitude 1 (the paper's eqs. 10-12).
        :meth:`render` prints the axis-aligned rows as ``lo <= x <= hi``.
    label : class value or "uncertain"
    predicted_label : class value
        The label :meth:`predict` gives (also for uncertain leaves).
    uncertain : bool
    positive_rate, entropy : float
        Of the leaf's data (training rows plus samples).
    n_samples : int
    bounding_box : (lo, hi)
        Minimum and maximum of each feature over the leaf's data.
    boundary : Polytope or None
        For uncertain leaves, the linear estimate of the boundary (eq. 13) as the
        one-row polytope ``c . x <= b`` (class 0 on this side): the SVM fitted in the leaf
        (``boundary_estimates=True``), or, for a node cut off by ``depth``, its MTRE-PAN
        split. ``None`` for certain leaves (and for TRE-PAN nodes cut off by ``depth``).
    eq7_met : bool
        Whether sampling on demand met the variance rule (eq. 7) at this node.
    stop_reason : str
    """

    node_id: int
    path: str
    depth: int
    polytope: Polytope
    label: Any
    predicted_label: Any
    uncertain: bool
    positive_rate: float
    entropy: float
    n_samples: int
    bounding_box: tuple
    boundary: Polytope | None = None
    eq7_met: bool = True
    stop_reason: str = ""
    feature_names: tuple = field(default=(), compare=False)

    def render(self, feature_names: Any = None, precision: int = 3) -> str:
        names = list(feature_names) if feature_names is not None else (list(self.feature_names) or None)
        lines = [f"leaf {path_label(self.path)} (depth {self.depth}): {self.label}  "
                 f"[p+ = {self.positive_rate:.3f}, entropy = {self.entropy:.3f}, n = {self.n_samples}]"]
        lines += ["  " + r for r in self.polytope.render(names, precision=precision, intervals=True).splitlines()]
        if self.boundary is not None:
            lines.append("  boundary estimate (class 0 side): " + self.boundary.render(names, precision=precision))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Plain data (JSON-ready): where the leaf is, its label and statistics, its inequalities."""
        lo, hi = self.bounding_box
        return {"id": self.node_id, "path": self.path, "depth": self.depth, "label": self.label,
                "predicted_label": self.predicted_label, "uncertain": self.uncertain,
                "positive_rate": self.positive_rate, "entropy": self.entropy, "n_samples": self.n_samples,
                "eq7_met": self.eq7_met, "stop_reason": self.stop_reason, "inequalities": self.polytope.to_dict(),
                "data_box": {"lo": None if lo is None else lo.tolist(), "hi": None if hi is None else hi.tolist()},
                "boundary": None if self.boundary is None else self.boundary.to_dict()}


@dataclass(frozen=True)
class PointExplanation:
    """Why a translation labels one point as it does (:meth:`_TranslatorBase.explain`).

    Attributes
    ----------
    x : ndarray (d,)
    label : class value or "uncertain"
        The label of the point's leaf; ``predicted_label`` is what :meth:`predict` returns.
    predicted_label : class value
    leaf : LeafExplanation
        The leaf the point lands in.
    nearest_other : LeafExplanation or None
        The nearest leaf whose predicted label differs (``None`` when every leaf has the same).
    nearest_point : ndarray (d,) or None
        The closest point of ``nearest_other`` (distance in units of each feature's range).
    distance : float
        ``sum_j |z_j - x_j| / range_j`` to that point (L1 in range units, by an LP).
    changes : dict
        Feature name -> change ``z_j - x_j`` for the features that must change.
    """

    x: np.ndarray
    label: Any
    predicted_label: Any
    leaf: LeafExplanation
    nearest_other: LeafExplanation | None
    nearest_point: np.ndarray | None
    distance: float
    changes: dict
    feature_names: tuple = field(default=(), compare=False)

    def render(self, precision: int = 3) -> str:
        names = list(self.feature_names) or None
        lines = [f"point -> {self.label} (leaf {path_label(self.leaf.path)}, depth {self.leaf.depth})",
                 "  the leaf's inequalities:"]
        lines += ["    " + r for r in self.leaf.polytope.render(names, precision=precision,
                                                                intervals=True).splitlines()]
        if self.nearest_other is None:
            lines.append("  no leaf gives another label")
        else:
            ch = ", ".join(f"{k} {v:+.{precision}g}" for k, v in self.changes.items()) or "none"
            lines.append(f"  nearest leaf of another label: {path_label(self.nearest_other.path)} "
                         f"({self.nearest_other.label}), distance {self.distance:.{precision}g} "
                         f"(range units); changes: {ch}")
        return "\n".join(lines)


@dataclass(frozen=True)
class BoundaryPiece:
    """A piece of the estimated decision boundary (Section 4.1 and eq. 13).

    ``kind="shared_constraint"``: the hyperplane ``c . x = b`` of the split at ``node_id``
    where it separates the neighbouring leaves ``leaves = (left, right)`` of different
    labels, restricted to ``face`` (the rows of both leaves other than that split, minimal).
    ``kind="uncertain_leaf"``: the linear estimate inside an uncertain leaf (eq. 13), the
    leaf's SVM hyperplane restricted to the leaf (``face`` = the leaf's polytope).
    ``labels`` are the predicted labels on the ``c . x <= b`` side and the other side.
    """

    kind: str
    node_id: int
    c: np.ndarray
    b: float
    leaves: tuple
    labels: tuple
    face: Polytope
    certain: bool

    def render(self, feature_names: Any = None, precision: int = 3) -> str:
        hp = Polytope(self.c[None, :], np.array([self.b])).render(feature_names, precision=precision)
        head = f"{hp.replace('<=', '=')}  ({self.labels[0]} on the <= side, {self.labels[1]} on the other)"
        where = self.face.render(feature_names, precision=precision, intervals=True).replace("\n", "; ")
        return f"[{self.kind}, node {self.node_id}] {head}\n  where {where}"


# --------------------------------------------------------------------------------------
# estimators


class _TranslatorBase(ContractMixin, ClassifierMixin, BaseEstimator):
    """Shared parameters, validation and fitted API of MTRE-PAN and TRE-PAN."""

    _split_kind = ""

    _parameter_constraints: dict = {
        "max_depth": [Interval(Integral, 1, 64, closed="both")],
        "cutoff_entropy": [Interval(Real, 0, 1, closed="left")],
        "cutoff_variance": [Interval(Real, 0, 0.25, closed="right")],
        "margin": [Interval(Real, 0, 0.5, closed="neither")],
        "box_margin": [Interval(Real, 0, 1, closed="both")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "min_batches": [Interval(Integral, 0, None, closed="left")],
        "max_node_samples": [Interval(Integral, 1, None, closed="left"), None],
        "leaf_label": [StrOptions(set(LEAF_LABELS))],
        "root_label": [StrOptions(set(ROOT_LABELS))],
        "boundary_estimates": ["boolean"],
        "C": [Interval(Real, 0, None, closed="neither")],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "solver": [str, dict],
        "solver_settings": [HasMethods(["replace"]), dict, None],
        "lp_path": [StrOptions(set(LP_PATHS))],
        "max_lp_samples": [Interval(Integral, 2, None, closed="left"), None],
        "sampler": [StrOptions(set(SAMPLING_METHODS))],
        "min_acceptance": [Interval(Real, 0, 1, closed="right")],
        "burn_in": [Interval(Integral, 0, None, closed="left"), None],
        "thin": [Interval(Integral, 1, None, closed="left"), None],
        "max_draws": [Interval(Integral, 1, None, closed="left"), None],
        "inherited_starts": ["boolean"],
        "warm_starts": ["boolean"],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, max_depth: int = 10, cutoff_entropy: float = 0.0808, cutoff_variance: float = 1e-5,
                 margin: float = 0.05, box_margin: float = 0.05, batch_size: int = 1000, min_batches: int = 1,
                 max_node_samples: int | None = None, leaf_label: str = "majority", root_label: str = "majority",
                 boundary_estimates: bool = True, C: float = 10.0, class_weight: Any = "balanced",
                 solver: str = "highs", solver_settings: Any = None, lp_path: str = "auto",
                 max_lp_samples: int | None = None, sampler: str = "auto", min_acceptance: float = 0.02,
                 burn_in: int | None = None, thin: int | None = None, max_draws: int | None = None,
                 inherited_starts: bool = True, warm_starts: bool = True, random_state: Any = None) -> None:
        self.max_depth = max_depth
        self.cutoff_entropy = cutoff_entropy
        self.cutoff_variance = cutoff_variance
        self.margin = margin
        self.box_margin = box_margin
        self.batch_size = batch_size
        self.min_batches = min_batches
        self.max_node_samples = max_node_samples
        self.leaf_label = leaf_label
        self.root_label = root_label
        self.boundary_estimates = boundary_estimates
        self.C = C
        self.class_weight = class_weight
        self.solver = solver
        self.solver_settings = solver_settings
        self.lp_path = lp_path
        self.max_lp_samples = max_lp_samples
        self.sampler = sampler
        self.min_acceptance = min_acceptance
        self.burn_in = burn_in
        self.thin = thin
        self.max_draws = max_draws
        self.inherited_starts = inherited_starts
        self.warm_starts = warm_starts
        self.random_state = random_state

    # -- validation
    def _validate_params(self) -> None:
        super()._validate_params()
        self._solver_assignment = assign_solvers(self.solver, SOLVER_ROLES, owner=type(self).__name__)
        if self._uses_solver():
            for a in self._solver_assignment.values():
                check_solver_available(a.solver, owner=type(self).__name__)
        if self.max_draws is not None and self.sampler != "rejection":
            raise InputError(f"{type(self).__name__}: max_draws caps rejection sampling only; set "
                             "sampler='rejection' or drop max_draws (the default sampler never gives up)")

    def _uses_solver(self) -> bool:
        """Whether this configuration solves LPs (node SVMs or boundary estimates)."""
        return True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # the paper translates binary classifiers
        return tags

    def _settings(self):
        from interpretopt.solvers import SolveSettings

        s = self.solver_settings
        if s is None:
            return SolveSettings()
        if isinstance(s, SolveSettings):
            return s
        if isinstance(s, dict):
            return SolveSettings(**s)
        raise InputError(f"solver_settings must be a SolveSettings, a dict or None, got {type(s).__name__}")

    # -- node classifiers
    def _record(self, res: Any, path: str, n: int) -> None:
        self.n_lp_solves_ += 1
        self.solvers_["node"]["solver"] = res.solver
        self.lp_sizes_.append(int(n))
        row = {"path": path_label(path), "n_samples": int(n), **res.as_dict()}
        row["solver_status"] = row["status"]
        row["status"] = node_lp_status(res.status)
        self.solve_results_.append(row)
        self.lp_status_counts_[row["status"]] = self.lp_status_counts_.get(row["status"], 0) + 1

    def _lp_data(self, X: np.ndarray, y: np.ndarray, path: str) -> tuple[np.ndarray, np.ndarray]:
        if self.max_lp_samples is not None and X.shape[0] > self.max_lp_samples:
            rng = node_rng(self._seed ^ 0x5EED, path)
            idx = np.sort(rng.choice(X.shape[0], size=self.max_lp_samples, replace=False))
            if np.unique(y[idx]).size < 2:  # keep both classes
                idx = np.union1d(idx, [int(np.flatnonzero(y == 0)[0]), int(np.flatnonzero(y == 1)[0])])
            X, y = X[idx], y[idx]
        return X, y

    def _svm(self, X: np.ndarray, y: np.ndarray, path: str) -> Split | None:
        X, y = self._lp_data(X, y, path)
        t0 = time.perf_counter()
        split, res = fit_node_svm(X, y, C=float(self.C), class_weight=self.class_weight,
                                  solver=self._solver_assignment["node"].solver, settings=self._settings_obj,
                                  lp_path=self.lp_path, path=path)
        self.lp_time_ += time.perf_counter() - t0
        self._record(res, path, X.shape[0])
        return split

    def _split(self, X: np.ndarray, y: np.ndarray, path: str) -> Split | None:  # pragma: no cover
        raise NotImplementedError

    # -- fit
    def fit(self, X: Any, model: Any) -> _TranslatorBase:
        """Translate the fitted binary classifier ``model`` using the training rows ``X``.

        Parameters
        ----------
        X : array-like (n, d)
            Rows the target was trained on (their bounding box is the translated region);
            they are relabelled by the target.
        model : fitted binary classifier or callable
            The target: anything with ``predict`` (and ``classes_`` of length 2), or a
            function returning {0, 1} labels.

        Returns
        -------
        self

        Warns
        -----
        SamplingCapWarning
            When ``max_node_samples`` (or ``max_draws``) stopped sampling at some node before
            the variance rule (eq. 7) was met; ``n_eq7_unmet_`` counts them and each node's
            ``sampling.eq7_met`` says which.
        """
        self._validate_params()
        X = validate_data(self, X, reset=True)
        _check_box_has_extent(X, type(self).__name__)
        oracle, classes = make_oracle(model)
        rng = as_generator(self.random_state)
        self._seed = int(rng.integers(2**62))
        self._settings_obj = self._settings()
        self.lp_time_ = 0.0
        self.n_lp_solves_ = 0
        self.solvers_ = {"node": {"requested": self._solver_assignment["node"].requested, "solver": ""}}
        self.lp_sizes_: list[int] = []
        self.solve_results_: list[dict] = []
        self.lp_status_counts_: dict[str, int] = {}
        sampling = {"sampler": self.sampler, "min_acceptance": float(self.min_acceptance), "burn_in": self.burn_in,
                    "thin": self.thin, "max_draws": self.max_draws, "inherited_starts": bool(self.inherited_starts),
                    "warm_starts": bool(self.warm_starts)}
        t0, c0 = time.perf_counter(), time.process_time()
        tree, stats = grow_translation_tree(
            X, oracle, self._split, max_depth=int(self.max_depth), cutoff_entropy=float(self.cutoff_entropy),
            cutoff_variance=float(self.cutoff_variance), box_margin=float(self.box_margin),
            batch_size=int(self.batch_size), min_batches=int(self.min_batches), max_node_samples=self.max_node_samples,
            seed=self._seed, leaf_label=self.leaf_label, root_label=self.root_label, sampling=sampling,
            boundary_fn=self._svm if self.boundary_estimates else None)
        self.fit_time_ = time.perf_counter() - t0
        self.fit_cpu_ = time.process_time() - c0
        self.tree_ = tree
        self.classes_ = classes
        self.n_queries_ = int(stats["n_queries"])
        self.stats_ = stats
        self.n_eq7_unmet_ = int(stats["n_eq7_unmet"])
        self.root_box_ = (X.min(axis=0), X.max(axis=0))
        self._leaf_cache: dict = {}
        if self.n_eq7_unmet_:
            why = sorted({nd.sampling.stopped_by for nd in tree.nodes
                          if nd.sampling is not None and not nd.sampling.eq7_met})
            warnings.warn(f"{type(self).__name__}: sampling stopped before the variance rule (eq. 7) was met at "
                          f"{self.n_eq7_unmet_} of {len(tree.nodes)} nodes ({', '.join(why)}); their entropy "
                          "estimates are less precise than cutoff_variance asks. Raise or drop max_node_samples / "
                          "max_draws to meet it.", SamplingCapWarning, stacklevel=2)
        return self

    # -- prediction
    def _check_depth(self, depth: int | None) -> int | None:
        if depth is None:
            return None
        return check_int("depth", depth, 1)

    def _X(self, X: Any) -> np.ndarray:
        check_fitted(self, "tree_")
        return validate_data(self, X, reset=False)

    def apply(self, X: Any, depth: int | None = None) -> np.ndarray:
        """Id of the leaf (node) each row lands in; ``depth`` truncates the tree (root = 1)."""
        X = self._X(X)
        return self.tree_.apply(X, self._check_depth(depth))

    def predict(self, X: Any, depth: int | None = None) -> np.ndarray:
        """The leaf label of each row (uncertain leaves give their label too: majority or side)."""
        X = self._X(X)
        lab, _ = self.tree_.predict_index(X, self._check_depth(depth))
        return self.classes_[lab]

    def predict_uncertain(self, X: Any, depth: int | None = None) -> np.ndarray:
        """Boolean (n,): rows landing in uncertain leaves."""
        X = self._X(X)
        _, unc = self.tree_.predict_index(X, self._check_depth(depth))
        return unc

    def leaf_count(self, depth: int | None = None) -> int:
        check_fitted(self, "tree_")
        return self.tree_.leaf_count(self._check_depth(depth))

    def parity(self, model: Any, X: Any, *, depth: int | None = None, margin: float | None = None,
               boundary: str = "auto", release_boundary: bool = False) -> dict:
        """Model, certain and boundary model parity and leaf count (see :mod:`interpretopt.evaluation.parity`)."""
        from interpretopt.evaluation.parity import parity_report

        X = self._X(X)
        oracle, classes = make_oracle(model)
        return parity_report(self, model, X, depth=depth, margin=float(self.margin if margin is None else margin),
                             boundary=boundary, target=classes[oracle(X)], release_boundary=release_boundary)

    # -- explanations
    def _boundary_of(self, nd: TreeNode) -> Split | None:
        if nd.split is not None and self._split_kind == "svm":
            return nd.split
        return nd.boundary

    def _leaf_explanation(self, nd: TreeNode, minimal: bool) -> LeafExplanation:
        key = (nd.node_id, minimal)
        cached = self._leaf_cache.get(key)
        if cached is not None:
            return cached
        uncertain = bool(nd.uncertain or nd.split is not None)
        pred = self.classes_[self.tree_.label_of(nd)]
        bnd = self._boundary_of(nd) if uncertain else None
        bbox = (nd.data_lo.copy(), nd.data_hi.copy()) if nd.data_lo is not None else (None, None)
        P = nd.polytope.minimal() if minimal else _normalized_polytope(nd.polytope)
        leaf = LeafExplanation(
            node_id=nd.node_id, path=nd.path, depth=nd.depth, polytope=P,
            label="uncertain" if uncertain else pred, predicted_label=pred, uncertain=uncertain,
            positive_rate=nd.positive_rate, entropy=nd.entropy, n_samples=nd.n_samples, bounding_box=bbox,
            boundary=None if bnd is None else Polytope(bnd.c[None, :], np.array([bnd.b])),
            eq7_met=bool(nd.sampling.eq7_met) if nd.sampling is not None else True,
            stop_reason=nd.stop_reason if nd.split is None else "depth",
            feature_names=tuple(render_names(self)))
        self._leaf_cache[key] = leaf
        return leaf

    def leaves(self, depth: int | None = None, *, minimal: bool = True) -> list[LeafExplanation]:
        """One :class:`LeafExplanation` per leaf of the tree truncated at ``depth``, in node order.

        ``minimal=True`` (default) removes the redundant rows of every leaf by LPs (the
        result is cached per leaf); ``minimal=False`` keeps every row (box and path rows).
        """
        check_fitted(self, "tree_")
        depth = self._check_depth(depth)
        return [self._leaf_explanation(nd, minimal) for nd in sorted(self.tree_.leaves(depth), key=lambda n: n.node_id)]

    def explain(self, x: Any, depth: int | None = None) -> PointExplanation:
        """Why the translation labels the point ``x`` as it does.

        Returns the point's leaf (its minimal inequalities and label), and the nearest leaf
        whose predicted label differs, with its closest point. Distances are L1 in units of
        each feature's range over the training box, so that features on large scales do
        not dominate; the nearest point solves one LP per candidate leaf (candidates are
        visited by a lower bound, the distance to their box rows, and skipped once that
        bound exceeds the best distance found).
        """
        from scipy.optimize import linprog

        check_fitted(self, "tree_")
        depth = self._check_depth(depth)
        xv = self._X(np.asarray(x, dtype=float).reshape(1, -1))[0]
        nid = int(self.tree_.apply(xv[None, :], depth)[0])
        leaf = self._leaf_explanation(self.tree_.nodes[nid], True)
        lo, hi = self.root_box_
        rng_ = np.where(hi > lo, hi - lo, 1.0)
        d = xv.shape[0]
        cands = [nd for nd in self.tree_.leaves(depth)
                 if self.tree_.label_of(nd) != self.tree_.label_of(self.tree_.nodes[nid])]
        scored = []
        for nd in cands:
            blo, bhi, _ = nd.polytope.axis_bounds()
            gap = np.maximum(0.0, np.maximum(blo - xv, xv - bhi)) / rng_
            scored.append((float(gap.sum()), nd))
        scored.sort(key=lambda t: t[0])
        best = (np.inf, None, None)
        # variables z (d), e (d): min sum e_j / r_j  s.t.  z - e <= x, -z - e <= -x, C z <= b
        eye = np.eye(d)
        cost = np.concatenate([np.zeros(d), 1.0 / rng_])
        for lb, nd in scored:
            if lb >= best[0] - 1e-12:
                break
            C, b = nd.polytope.C, nd.polytope.b
            A = np.vstack([np.hstack([eye, -eye]), np.hstack([-eye, -eye]), np.hstack([C, np.zeros_like(C)])])
            rhs = np.concatenate([xv, -xv, b])
            res = linprog(cost, A_ub=A, b_ub=rhs, bounds=[(None, None)] * d + [(0, None)] * d, method="highs")
            if res.status == 0 and res.fun < best[0]:
                best = (float(res.fun), nd, np.asarray(res.x[:d]))
        pred = self.classes_[self.tree_.label_of(self.tree_.nodes[nid])]
        names = tuple(render_names(self))
        if best[1] is None:
            return PointExplanation(x=xv, label=leaf.label, predicted_label=pred, leaf=leaf, nearest_other=None,
                                    nearest_point=None, distance=float("inf"), changes={}, feature_names=names)
        z = best[2]
        delta = z - xv
        changes = {names[j]: float(delta[j]) for j in range(d) if abs(delta[j]) > 1e-9 * rng_[j]}
        return PointExplanation(x=xv, label=leaf.label, predicted_label=pred, leaf=leaf,
                                nearest_other=self._leaf_explanation(best[1], True), nearest_point=z,
                                distance=best[0], changes=changes, feature_names=names)

    def boundary_estimate(self, depth: int | None = None, *, tol: float = 1e-7) -> list[BoundaryPiece]:
        """The estimated decision boundary: Section 4.1's shared constraints and eq. 13's uncertain-leaf planes.

        For every split of the tree truncated at ``depth``, each pair of leaves on its two
        sides whose predicted labels differ and which are neighbours across it (their
        closures share a ``(d-1)``-dimensional piece of the split hyperplane: an LP finds a
        ball of positive radius inside that piece) gives a ``shared_constraint`` piece. Every
        uncertain leaf with a linear estimate (eq. 13) gives an ``uncertain_leaf`` piece.
        """
        from scipy.optimize import linprog

        check_fitted(self, "tree_")
        depth = self._check_depth(depth)
        tree = self.tree_
        leaf_ids = {nd.node_id for nd in tree.leaves(depth)}
        labels, unc = tree.node_arrays(depth)

        def subtree_leaves(nid: int) -> list[TreeNode]:
            out, stack = [], [nid]
            while stack:
                nd = tree.nodes[stack.pop()]
                if nd.node_id in leaf_ids:
                    out.append(nd)
                else:
                    stack.extend([nd.right, nd.left])
            return out

        def touches(nd: TreeNode, c: np.ndarray, b: float) -> bool:
            res = linprog(-c, A_ub=nd.polytope.C, b_ub=nd.polytope.b, bounds=[(None, None)] * c.size, method="highs")
            return res.status == 0 and -res.fun >= b - tol * max(1.0, abs(b))

        pieces: list[BoundaryPiece] = []
        internal, stack = [], [0]
        while stack:
            nd = tree.nodes[stack.pop()]
            if nd.node_id not in leaf_ids:
                internal.append(nd)
                stack.extend([nd.right, nd.left])
        for nd in internal:
            c, b = nd.split.c, float(nd.split.b)
            cn = c / np.linalg.norm(c)
            left = [a for a in subtree_leaves(nd.left) if touches(a, c, b)]
            right = [a for a in subtree_leaves(nd.right) if touches(a, -c, -b)]
            for a in left:
                for r in right:
                    if labels[a.node_id] == labels[r.node_id]:
                        continue
                    rows = np.vstack([a.polytope.C, r.polytope.C])
                    rhs = np.concatenate([a.polytope.b, r.polytope.b])
                    # drop the split's own two rows (c . x <= b on the left, -c . x <= -b on the right)
                    own = ((np.all(rows == c, axis=1) & (rhs == b)) | (np.all(rows == -c, axis=1) & (rhs == -b)))
                    rows, rhs = rows[~own], rhs[~own]
                    proj = np.linalg.norm(rows - np.outer(rows @ cn, cn), axis=1)
                    A_ub = np.column_stack([rows, proj])
                    obj = np.zeros(c.size + 1)
                    obj[-1] = -1.0
                    res = linprog(obj, A_ub=A_ub, b_ub=rhs, A_eq=np.append(c, 0.0)[None, :], b_eq=[b],
                                  bounds=[(None, None)] * c.size + [(0, 1e6)], method="highs")
                    scale = float(np.max(np.where(self.root_box_[1] > self.root_box_[0],
                                                  self.root_box_[1] - self.root_box_[0], 1.0)))
                    if res.status != 0 or res.x[-1] <= tol * scale:
                        continue
                    face = Polytope(rows, rhs).minimal()
                    pieces.append(BoundaryPiece(
                        kind="shared_constraint", node_id=nd.node_id, c=c.copy(), b=b, leaves=(a.node_id, r.node_id),
                        labels=(self.classes_[labels[a.node_id]], self.classes_[labels[r.node_id]]), face=face,
                        certain=not (unc[a.node_id] or unc[r.node_id])))
        for nd in tree.leaves(depth):
            bnd = self._boundary_of(nd) if unc[nd.node_id] else None
            if bnd is None:
                continue
            pieces.append(BoundaryPiece(kind="uncertain_leaf", node_id=nd.node_id, c=bnd.c.copy(), b=float(bnd.b),
                                        leaves=(nd.node_id,), labels=(self.classes_[0], self.classes_[1]),
                                        face=nd.polytope.minimal(), certain=False))
        return pieces

    def render(self, depth: int | None = None, feature_names: Any = None) -> str:
        """All leaves as text (minimal inequalities, box rows as intervals)."""
        return "\n\n".join(e.render(feature_names) for e in self.leaves(depth))

    def to_dict(self, depth: int | None = None) -> dict:
        """The tree and its leaves as plain data (see :func:`~interpretopt.methods.mtrepan_render.translation_to_dict`)."""
        from interpretopt.methods.mtrepan_render import translation_to_dict

        return translation_to_dict(self, depth)

    def to_json(self, path: Any = None, depth: int | None = None) -> str:
        """:meth:`to_dict` as JSON text, written to ``path`` when given."""
        from interpretopt.methods.mtrepan_render import translation_to_json

        check_fitted(self, "tree_")
        return translation_to_json(self, path, self._check_depth(depth))

    def to_frame(self, depth: int | None = None):
        """The leaves' minimal inequalities as a DataFrame, one row per inequality
        (see :func:`~interpretopt.methods.mtrepan_render.leaves_frame`)."""
        from interpretopt.methods.mtrepan_render import leaves_frame

        return leaves_frame(self.leaves(depth), render_names(self))

    def plot_2d(self, model: Any = None, *, depth: int | None = None, ax: Any = None, **kwargs: Any):
        """Figure 3: the leaf polytopes over the target's decision regions (two features only)."""
        from interpretopt.methods.mtrepan_render import plot_polytopes_2d

        return plot_polytopes_2d(self, model, depth=depth, ax=ax, **kwargs)


_COMMON_PARAMS_DOC = """
    max_depth : int, default 10
        Maximum depth, the root having depth 1 (the paper's tables: depth 1 is the root
        alone, one leaf).
    cutoff_entropy : float, default 0.0808
        A node whose entropy (eq. 4) exceeds it is uncertain and a candidate for splitting
        (0: every impure node, as the release's circle run).
    cutoff_variance : float, default 1e-5
        Sampling on demand stops when ``p (1 - p) / N`` falls to it (eq. 7).
    margin : float, default 0.05
        Width around the target's decision boundary for boundary model parity (not used
        in training).
    box_margin : float, default 0.05
        Widening of the sampling box around a node's data, as a fraction of each range.
    batch_size : int, default 1000
        Points per sampling batch (the authors' release uses 1000).
    min_batches : int, default 1
        Batches sampled at every node before the variance rule may stop.
    max_node_samples : int or None, default None
        Cap on samples drawn per node (``None``: the variance rule alone). A node stopped
        by it records ``eq7_met=False`` and ``fit`` warns.
    leaf_label : {"majority", "side"}, default "majority"
        A leaf's label: the majority of its data, or the side of its parent's split it lies
        on (the paper's wording, "leaf nodes inherit a label from the SVM classifier
        according to the side of the split they fall into", and the release).
    root_label : {"majority", "negative"}, default "majority"
        The root's label while it is the only leaf: its majority, or class 0 as the
        release (so the paper's depth-1 model parity is the share of class 0).
    boundary_estimates : bool, default True
        Fit an SVM in every uncertain leaf as its linear boundary estimate (eq. 13).
    C : float, default 10.0
        Hinge-loss weight of the node LP (features scaled to [-1, 1] per node). The paper
        does not give it; its release trains mlpack's L2 linear SVM with the weak
        regularization lambda = 1e-4, so the hinge term dominates; C = 10 likewise lets a
        separable node be split without error.
    class_weight : "balanced", None or mapping, default "balanced"
        Sample weights of the node LP (the release's SVM is unweighted: ``None``).
    solver : str or dict, default "highs"
        Any LP backend of :mod:`interpretopt.solvers`, or ``{"node": name}`` (role ``node`` of
        :data:`SOLVER_ROLES`). ``solvers_["node"]`` records the string given and the backend
        that ran.
    solver_settings : SolveSettings, dict or None
    lp_path : {"auto", "dual", "matrix", "pyomo"}, default "auto"
        How the node LP reaches the solver (see the module docstring).
    max_lp_samples : int or None, default None
        Subsample larger nodes to this many rows for the LP (``None``: all rows).
    sampler : {"auto", "rejection", "hit_and_run"}, default "auto"
        How points uniform in a node's region are drawn
        (:mod:`interpretopt.heuristics.polytope_sampling`): rejection where it accepts at
        least ``min_acceptance`` of its proposals, else hit-and-run.
    min_acceptance : float, default 0.02
    burn_in, thin : int or None
        Hit-and-run's burn-in and thinning (``None``: ``10 d + 20`` and ``3 d``; chains
        started at inherited uniform points make no burn-in and, with ``thin=None``, ``d``
        steps per point).
    max_draws : int or None, default None
        With ``sampler="rejection"`` only: cap on box points per node (it then warns and
        records that eq. 7 was not met).
    inherited_starts : bool, default True
        Where a node needs hit-and-run and its sampling box lies inside its parent's, start
        the chains at the inherited points an ancestor sampled (uniform in the node's region,
        :mod:`interpretopt.heuristics.polytope_sampling`, "Chains started at uniform
        points") without burn-in; ``False``: every hit-and-run node burns in.
    warm_starts : bool, default True
        Where a node needs hit-and-run and its sampling box sticks out of its parent's (the
        release's box, data box + ``box_margin``, is not nested in the parent's), start the
        chains at the inherited points (uniform in the part of the region inside the parent's
        box, a warm start whose total-variation error is at most the share of the region
        outside that box from the first step on) and burn in only until the share of chains
        outside the parent's box is stable (at most ``burn_in`` steps)
        (:mod:`interpretopt.heuristics.polytope_sampling`, "Chains started at warm points").
        ``False``: those nodes burn in ``10 d + 20`` steps from the node's data (a point mass,
        with no such bound) and take ``3 d`` steps per point. Measured at cutoff variance 1e-5,
        depth 10 (``benchmarks/bench_mtrepan.py``): sampling is 27.8% of an adult fit and 19.6%
        of an abalone fit with warm starts, 37.2% and 25.7% without.
    random_state : int, Generator or None
"""


class MTREPANClassifier(_TranslatorBase):
    __doc__ = """MTRE-PAN: a tree whose uncertain nodes split by a linear SVM (an LP), leaves are polytopes.

    Defaults follow the paper's Table 1 where it gives one.

    Parameters
    ----------""" + _COMMON_PARAMS_DOC + """
    Attributes
    ----------
    tree_ : TranslationTree
    classes_ : ndarray
    n_queries_ : int
        Rows labelled by the target (training rows included).
    lp_time_ : float
        Seconds in node LPs (scaling, building the LP, solving, reading the hyperplane).
    n_lp_solves_ : int
    lp_sizes_ : list of int
    solve_results_ : list of dict
        Per LP: node path, size, solver, ``status`` (shared vocabulary), ``solver_status``,
        objective, bound, gap, times.
    lp_status_counts_ : dict
        Node LPs per status.
    n_eq7_unmet_ : int
        Nodes where sampling stopped before eq. 7 was met (0 unless a cap is set).
    fit_time_, fit_cpu_ : float
        Wall and process CPU seconds of ``fit``.
    stats_ : dict
        Times in wall seconds (``sampling_time`` without the target's own time,
        ``oracle_time``, ``split_time``, ``boundary_time``) and the same in CPU seconds
        (``*_cpu``), ``n_nodes``, ``sampling_methods``.
    root_box_ : (lo, hi)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(-1, 1, (200, 2))
    >>> est = MTREPANClassifier(max_depth=2, random_state=0).fit(X, lambda Z: Z[:, 0] + Z[:, 1] > 0)
    >>> est.leaf_count()
    2
    """

    _split_kind = "svm"

    def _split(self, X: np.ndarray, y: np.ndarray, path: str) -> Split | None:
        return self._svm(X, y, path)


class TREPANClassifier(_TranslatorBase):
    __doc__ = """TRE-PAN baseline: axis-aligned splits, same sampling, cutoffs and depth handling as MTRE-PAN.

    Parameters
    ----------
    splitter : {"c45", "svm_1d"}, default "c45"
        ``"c45"``: the binary C4.5-style threshold of highest information gain (the paper's
        text); ``"svm_1d"``: a one-feature SVM LP per feature, lowest objective wins (the
        authors' release, which produced the paper's TRE-PAN tables).
    criterion : {"gain", "gain_ratio"}, default "gain"
        For ``splitter="c45"``: information gain, or C4.5's gain ratio.""" + _COMMON_PARAMS_DOC + """
    The LP settings serve the boundary estimates of uncertain leaves and the ``svm_1d``
    splits. Attributes are those of :class:`MTREPANClassifier`.
    """

    _split_kind = "axis"

    def __init__(self, *, splitter: str = "c45", criterion: str = "gain", max_depth: int = 10,
                 cutoff_entropy: float = 0.0808, cutoff_variance: float = 1e-5, margin: float = 0.05,
                 box_margin: float = 0.05, batch_size: int = 1000, min_batches: int = 1,
                 max_node_samples: int | None = None, leaf_label: str = "majority", root_label: str = "majority",
                 boundary_estimates: bool = True, C: float = 10.0, class_weight: Any = "balanced",
                 solver: str = "highs", solver_settings: Any = None, lp_path: str = "auto",
                 max_lp_samples: int | None = None, sampler: str = "auto", min_acceptance: float = 0.02,
                 burn_in: int | None = None, thin: int | None = None, max_draws: int | None = None,
                 inherited_starts: bool = True, warm_starts: bool = True, random_state: Any = None) -> None:
        super().__init__(max_depth=max_depth, cutoff_entropy=cutoff_entropy, cutoff_variance=cutoff_variance,
                         margin=margin, box_margin=box_margin, batch_size=batch_size, min_batches=min_batches,
                         max_node_samples=max_node_samples, leaf_label=leaf_label, root_label=root_label,
                         boundary_estimates=boundary_estimates, C=C, class_weight=class_weight, solver=solver,
                         solver_settings=solver_settings, lp_path=lp_path, max_lp_samples=max_lp_samples,
                         sampler=sampler, min_acceptance=min_acceptance, burn_in=burn_in, thin=thin,
                         max_draws=max_draws, inherited_starts=inherited_starts, warm_starts=warm_starts,
                         random_state=random_state)
        self.splitter = splitter
        self.criterion = criterion

    _parameter_constraints: dict = {**_TranslatorBase._parameter_constraints,
                                     "splitter": [StrOptions(set(TREPAN_SPLITTERS))],
                                     "criterion": [StrOptions({"gain", "gain_ratio"})]}

    def _uses_solver(self) -> bool:
        return self.splitter == "svm_1d" or bool(self.boundary_estimates)

    def _split(self, X: np.ndarray, y: np.ndarray, path: str) -> Split | None:
        if self.splitter == "c45":
            return best_axis_split(X, y, criterion=self.criterion)
        Xl, yl = self._lp_data(X, y, path)
        t0 = time.perf_counter()
        split, results = fit_feature_svm_split(Xl, yl, C=float(self.C), class_weight=self.class_weight,
                                               solver=self._solver_assignment["node"].solver,
                                               settings=self._settings_obj, lp_path=self.lp_path, path=path)
        self.lp_time_ += time.perf_counter() - t0
        for res in results:
            self._record(res, path, Xl.shape[0])
        return split
