"""MTRE-PAN and TRE-PAN: global translation of a binary black box into a tree of polytopes.

Almerri et al., "Global translation of classification models" (Sections 3-4, Table 1).

:class:`MTREPANClassifier` splits every uncertain node by the hyperplane of a linear SVM
trained on the node's data; the SVM is the L1-norm soft-margin LP of
:mod:`interpretopt.formulations.svm_lp`, solved through the solver registry (HiGHS by
default). :class:`TREPANClassifier` is the binary C4.5-style baseline the paper compares
against: axis-aligned entropy splits, with the same sampling on demand, cutoffs and depth
handling. Both grow with :func:`interpretopt.heuristics.trepan.grow_translation_tree`.

Each leaf is explained as a polytope ``C x <= b`` in the original feature units (rows
scaled so the largest coefficient has magnitude 1, as in the paper's eqs. 10-12), its label
or ``"uncertain"``, the bounding box of its data, and, for uncertain leaves, a linear
estimate of the target's boundary inside it (eq. 13: the node's SVM hyperplane, class 0 on
the side ``c . x <= b``).

The node LP is built once per node. Nodes hold up to ~25,000 samples (the variance rule
stops at ``N >= 1 / (4 cutoff_variance)``), and there the primal LP (one row per sample)
takes HiGHS several seconds while its dual (``d + 1`` rows) takes a fraction of one. So
with ``lp_path="auto"`` (default) and a backend with a direct interface (``highs``,
``ortools_glop``), the *dual* LP is handed to the backend as arrays
(:func:`interpretopt.formulations.svm_lp.dual_matrix_form`) and the hyperplane is read from
its row duals; ``lp_path="matrix"`` hands over the primal arrays; any other backend (or
``lp_path="pyomo"``) builds the primal Pyomo model
(:func:`interpretopt.formulations.svm_lp.build`, the tested source of truth) and solves it
with :func:`interpretopt.solvers.solve`. Tests check that all paths give the same hyperplane.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from interpretopt._validation import (
    RANDOM_STATE,
    ContractMixin,
    HasMethods,
    Interval,
    StrOptions,
    as_generator,
    check_fitted,
    check_in_range,
    check_int,
    check_solver,
    render_names,
    validate_data,
)
from interpretopt.exceptions import InputError
from interpretopt.heuristics.trepan import (
    NodeSolveError,
    Split,
    TreeNode,
    best_axis_split,
    grow_translation_tree,
    node_rng,
    path_label,
)
from interpretopt.rules import Polytope

__all__ = ["MTREPANClassifier", "TREPANClassifier", "LeafExplanation", "CircleTarget", "make_oracle",
           "fit_node_svm", "plot_polytopes_2d"]


# --------------------------------------------------------------------------------------
# the target as an oracle


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
                out = np.asarray(model.predict(X)).ravel()
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
        out = np.asarray(fn(X)).ravel()
        if out.dtype == bool:
            return out.astype(np.int8)
        vals = np.unique(out)
        if not (np.isin(vals, [0, 1]).all() or np.isin(vals, [-1, 1]).all()):
            raise InputError(f"the target must be binary with labels {{0, 1}} or {{-1, 1}}; it returned "
                             f"{vals[:6].tolist()}")
        return (out > 0).astype(np.int8)

    return oracle_fn, np.array([0, 1])


class CircleTarget:
    """The paper's synthetic target (Section 4.1): label 1 inside the circle ``||x|| <= radius``.

    ``boundary_score(X) = radius - ||x||`` is the signed distance used for boundary parity.
    """

    def __init__(self, radius: float = 1.0) -> None:
        self.radius = check_in_range("radius", radius, 0.0, low_open=True)
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = 2

    def fit(self, X: Any = None, y: Any = None) -> CircleTarget:
        return self

    def boundary_score(self, X: Any) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        return self.radius - np.sqrt(np.einsum("ij,ij->i", X, X))

    decision_function = boundary_score

    def predict(self, X: Any) -> np.ndarray:
        return (self.boundary_score(X) >= 0).astype(np.int64)

    def predict_proba(self, X: Any) -> np.ndarray:
        p = self.predict(X).astype(float)
        return np.column_stack([1 - p, p])


# --------------------------------------------------------------------------------------
# the node classifier


LP_PATHS = ("auto", "dual", "matrix", "pyomo")


def fit_node_svm(X: np.ndarray, y: np.ndarray, *, C: float = 1.0, class_weight: Any = "balanced",
                 solver: str = "highs", settings: Any = None, lp_path: str = "auto", path: str = "",
                 scale: bool = True) -> tuple[Split | None, Any]:
    """Train the L1-norm SVM LP on one node's data; the split ``c . x <= b`` is the class-0 side.

    The features are scaled to [-1, 1] by the node's own minima and maxima before the LP
    (as the authors' release does) and the hyperplane is mapped back to original units;
    the row is then scaled so that ``max |c_j| = 1``.

    Returns
    -------
    split : Split or None
        ``None`` when the LP gives ``w = 0`` (the data cannot be split by it).
    result : SolveResult

    Raises
    ------
    NodeSolveError
        When the LP is infeasible, unbounded or fails; the message names the node's path.
    """
    from interpretopt.formulations import svm_lp
    from interpretopt.solvers import INCREMENTAL_SOLVERS, SolveSettings, make_incremental, solve

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
    backend = "highs" if solver == "highs_direct" else solver
    if lp_path == "auto":
        lp_path = "dual" if backend in INCREMENTAL_SOLVERS else "pyomo"
    if lp_path in ("dual", "matrix") and backend not in INCREMENTAL_SOLVERS:
        raise InputError(f"lp_path={lp_path!r} needs a backend with a direct interface "
                         f"({', '.join(INCREMENTAL_SOLVERS)}), got {solver!r}; use lp_path='pyomo'")
    try:
        if lp_path == "dual":
            darr = svm_lp.dual_matrix_form(Z, y, C=C, class_weight=class_weight)
            inc = make_incremental(backend, sense="max")
            inc.add_rows(darr.row_lower, darr.row_upper)
            inc.add_columns(darr.c, darr.col_lower, darr.col_upper, A=darr.A)
            res = inc.solve(settings, duals=True)
            sol = (svm_lp.solution_from_duals(res.duals, darr, res.objective)
                   if res.has_solution and res.duals is not None else None)
        elif lp_path == "matrix":
            arr = svm_lp.matrix_form(Z, y, C=C, class_weight=class_weight)
            inc = make_incremental(backend, sense="min")
            inc.add_rows(arr.row_lower, arr.row_upper)
            inc.add_columns(arr.c, arr.col_lower, arr.col_upper, A=arr.A)
            res = inc.solve(settings, duals=False)
            sol = svm_lp.solution_from_vector(res.x, arr) if res.has_solution and res.x is not None else None
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
    if sol is None:
        raise NodeSolveError(path, f"the SVM LP on {X.shape[0]} samples returned status {res.status.value} "
                                   f"with solver {solver!r} ({res.message}); the L1-SVM LP is always feasible and "
                                   "bounded, so this is a numerical failure: try another solver or scale the data")
    w = sol.w / half
    w0 = sol.w0 - float(np.sum(sol.w * mid / half))
    scale_c = float(np.max(np.abs(w)))
    if not scale_c > 1e-12 * max(1.0, abs(w0)) or not np.isfinite(scale_c):
        return None, res
    c = w / scale_c
    b = -w0 / scale_c
    return Split(c=c, b=float(b), left_label=0, right_label=1,
                 info={"objective": sol.objective, "status": res.status.value, "wall_time": res.wall_time}), res


# --------------------------------------------------------------------------------------
# explanations


@dataclass(frozen=True)
class LeafExplanation:
    """One leaf of a translation as a polytope in the original feature units.

    Attributes
    ----------
    node_id, path, depth
        Where the leaf sits (``path`` is the string of L/R moves from the root).
    polytope : Polytope
        ``C x <= b``: the root's bounding box rows followed by one row per split on the path.
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
    feature_names: tuple = field(default=(), compare=False)

    def render(self, feature_names: Any = None, precision: int = 3) -> str:
        names = list(feature_names) if feature_names is not None else (list(self.feature_names) or None)
        lines = [f"leaf {path_label(self.path)} (depth {self.depth}): {self.label}  "
                 f"[p+ = {self.positive_rate:.3f}, entropy = {self.entropy:.3f}, n = {self.n_samples}]"]
        lines += ["  " + r for r in self.polytope.render(names, precision=precision).splitlines()]
        if self.boundary is not None:
            lines.append("  boundary estimate (class 0 side): " + self.boundary.render(names, precision=precision))
        return "\n".join(lines)


def _normalized_polytope(P: Polytope) -> Polytope:
    if P.n_constraints == 0:
        return P
    s = np.max(np.abs(P.C), axis=1)
    s = np.where(s > 0, s, 1.0)
    return Polytope(P.C / s[:, None], P.b / s)


def _clip_polygon(poly: np.ndarray, c: np.ndarray, b: float) -> np.ndarray:
    """Sutherland-Hodgman: the part of a convex 2-D polygon with ``c . x <= b``."""
    if poly.shape[0] == 0:
        return poly
    out = []
    n = poly.shape[0]
    vals = poly @ c - b
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        vp, vq = vals[i], vals[(i + 1) % n]
        if vp <= 0:
            out.append(p)
        if (vp <= 0) != (vq <= 0):
            t = vp / (vp - vq)
            out.append(p + t * (q - p))
    return np.array(out).reshape(-1, 2)


def plot_polytopes_2d(translator: Any, model: Any = None, *, depth: int | None = None, ax: Any = None,
                      resolution: int = 300, feature_names: Any = None, title: str | None = None):
    """Leaf polytopes of a two-feature translation over the target's decision regions (Figure 3).

    Certain-positive leaves are outlined in green, certain-negative in blue, uncertain in
    red (hatched); the background shades the target's predicted class on a grid.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Polygon as MplPolygon

    check_fitted(translator, "tree_")
    if translator.n_features_in_ != 2:
        raise InputError(f"plot_polytopes_2d needs a two-feature translation, got {translator.n_features_in_} features")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 6))
    lo, hi = translator.root_box_
    if model is not None:
        gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution))
        G = np.column_stack([gx.ravel(), gy.ravel()])
        oracle, _ = make_oracle(model)
        z = oracle(G).reshape(gx.shape)
        ax.contourf(gx, gy, z, levels=[-0.5, 0.5, 1.5], colors=["#dde6f5", "#f5e6c8"], alpha=0.9)
    rect = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]], dtype=float)
    tree = translator.tree_
    for nd in tree.leaves(depth):
        poly = rect
        for c, b in zip(nd.polytope.C, nd.polytope.b):
            poly = _clip_polygon(poly, c, b)
            if poly.shape[0] == 0:
                break
        if poly.shape[0] < 3:
            continue
        uncertain = nd.uncertain or nd.split is not None
        if uncertain:
            patch = MplPolygon(poly, closed=True, facecolor=(0.85, 0.2, 0.2, 0.25), edgecolor="#b00000",
                               hatch="//", linewidth=0.6)
        else:
            color = "#1a7f37" if tree.label_of(nd) == 1 else "#1f4e9c"
            patch = MplPolygon(poly, closed=True, facecolor="none", edgecolor=color, linewidth=0.8)
        ax.add_patch(patch)
    names = render_names(translator, feature_names)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_aspect("equal", adjustable="box")
    d = depth if depth is not None else tree.max_depth
    ax.set_title(title if title is not None else
                 f"{type(translator).__name__}: {tree.leaf_count(depth)} leaves at depth {d}")
    return ax


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
        "leaf_label": [StrOptions({"majority", "side"})],
        "boundary_estimates": ["boolean"],
        "C": [Interval(Real, 0, None, closed="neither")],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "solver": [str],
        "solver_settings": [HasMethods(["replace"]), dict, None],
        "lp_path": [StrOptions(set(LP_PATHS))],
        "max_lp_samples": [Interval(Integral, 2, None, closed="left"), None],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, max_depth: int = 10, cutoff_entropy: float = 0.0808, cutoff_variance: float = 1e-5,
                 margin: float = 0.05, box_margin: float = 0.05, batch_size: int = 1000, min_batches: int = 1,
                 max_node_samples: int | None = None, leaf_label: str = "majority", boundary_estimates: bool = True,
                 C: float = 10.0, class_weight: Any = "balanced", solver: str = "highs", solver_settings: Any = None,
                 lp_path: str = "auto", max_lp_samples: int | None = None, random_state: Any = None) -> None:
        self.max_depth = max_depth
        self.cutoff_entropy = cutoff_entropy
        self.cutoff_variance = cutoff_variance
        self.margin = margin
        self.box_margin = box_margin
        self.batch_size = batch_size
        self.min_batches = min_batches
        self.max_node_samples = max_node_samples
        self.leaf_label = leaf_label
        self.boundary_estimates = boundary_estimates
        self.C = C
        self.class_weight = class_weight
        self.solver = solver
        self.solver_settings = solver_settings
        self.lp_path = lp_path
        self.max_lp_samples = max_lp_samples
        self.random_state = random_state

    # -- validation
    def _validate_params(self) -> None:
        super()._validate_params()
        check_solver(self.solver, ("lp",), owner=type(self).__name__)

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
    def _svm(self, X: np.ndarray, y: np.ndarray, path: str) -> Split | None:
        if self.max_lp_samples is not None and X.shape[0] > self.max_lp_samples:
            rng = node_rng(self._seed ^ 0x5EED, path)
            idx = np.sort(rng.choice(X.shape[0], size=self.max_lp_samples, replace=False))
            if np.unique(y[idx]).size < 2:  # keep both classes
                idx = np.union1d(idx, [int(np.flatnonzero(y == 0)[0]), int(np.flatnonzero(y == 1)[0])])
            X, y = X[idx], y[idx]
        t0 = time.perf_counter()
        split, res = fit_node_svm(X, y, C=float(self.C), class_weight=self.class_weight, solver=self.solver,
                                  settings=self._settings_obj, lp_path=self.lp_path, path=path)
        self.lp_time_ += time.perf_counter() - t0
        self.n_lp_solves_ += 1
        self.lp_sizes_.append(int(X.shape[0]))
        self.solve_results_.append({"path": path_label(path), "n_samples": int(X.shape[0]), **res.as_dict()})
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
        """
        self._validate_params()
        X = validate_data(self, X, reset=True)
        oracle, classes = make_oracle(model)
        rng = as_generator(self.random_state)
        self._seed = int(rng.integers(2**62))
        self._settings_obj = self._settings()
        self.lp_time_ = 0.0
        self.n_lp_solves_ = 0
        self.lp_sizes_: list[int] = []
        self.solve_results_: list[dict] = []
        t0 = time.perf_counter()
        tree, stats = grow_translation_tree(
            X, oracle, self._split, max_depth=int(self.max_depth), cutoff_entropy=float(self.cutoff_entropy),
            cutoff_variance=float(self.cutoff_variance), box_margin=float(self.box_margin),
            batch_size=int(self.batch_size), min_batches=int(self.min_batches), max_node_samples=self.max_node_samples,
            seed=self._seed, leaf_label=self.leaf_label,
            boundary_fn=self._svm if self.boundary_estimates else None)
        self.fit_time_ = time.perf_counter() - t0
        self.tree_ = tree
        self.classes_ = classes
        self.n_queries_ = int(stats["n_queries"])
        self.stats_ = stats
        self.root_box_ = (X.min(axis=0), X.max(axis=0))
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
        """The leaf label of each row (uncertain leaves give their majority label)."""
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
               boundary: str = "auto") -> dict:
        """Model, certain and boundary model parity and leaf count (see :mod:`interpretopt.evaluation.parity`)."""
        from interpretopt.evaluation.parity import parity_report

        X = self._X(X)
        oracle, classes = make_oracle(model)
        return parity_report(self, model, X, depth=depth, margin=float(self.margin if margin is None else margin),
                             boundary=boundary, target=classes[oracle(X)])

    # -- explanations
    def _boundary_of(self, nd: TreeNode) -> Split | None:
        if nd.split is not None and self._split_kind == "svm":
            return nd.split
        return nd.boundary

    def explain(self, depth: int | None = None) -> list[LeafExplanation]:
        """One :class:`LeafExplanation` per leaf of the tree truncated at ``depth``."""
        check_fitted(self, "tree_")
        depth = self._check_depth(depth)
        out = []
        for nd in sorted(self.tree_.leaves(depth), key=lambda n: n.node_id):
            uncertain = bool(nd.uncertain or nd.split is not None)
            pred = self.classes_[self.tree_.label_of(nd)]
            bnd = self._boundary_of(nd) if uncertain else None
            bbox = (nd.data_lo.copy(), nd.data_hi.copy()) if nd.data_lo is not None else (None, None)
            out.append(LeafExplanation(
                node_id=nd.node_id, path=nd.path, depth=nd.depth, polytope=_normalized_polytope(nd.polytope),
                label="uncertain" if uncertain else pred, predicted_label=pred, uncertain=uncertain,
                positive_rate=nd.positive_rate, entropy=nd.entropy, n_samples=nd.n_samples, bounding_box=bbox,
                boundary=None if bnd is None else Polytope(bnd.c[None, :], np.array([bnd.b])),
                feature_names=tuple(render_names(self))))
        return out

    def render(self, depth: int | None = None, feature_names: Any = None) -> str:
        """All leaves as text."""
        return "\n\n".join(e.render(feature_names) for e in self.explain(depth))

    def plot_2d(self, model: Any = None, *, depth: int | None = None, ax: Any = None, **kwargs: Any):
        """Figure 3: the leaf polytopes over the target's decision regions (two features only)."""
        return plot_polytopes_2d(self, model, depth=depth, ax=ax, **kwargs)


class MTREPANClassifier(_TranslatorBase):
    """MTRE-PAN: a tree whose uncertain nodes split by a linear SVM (an LP), leaves are polytopes.

    Defaults follow the paper's Table 1 where it gives one.

    Parameters
    ----------
    max_depth : int, default 10
        Maximum depth, the root having depth 1 (the paper's tables: depth 1 is the root
        alone, one leaf).
    cutoff_entropy : float, default 0.0808
        A node whose entropy (eq. 4) exceeds it is uncertain and a candidate for splitting.
    cutoff_variance : float, default 1e-5
        Sampling on demand stops when ``p (1 - p) / N`` falls to it (eq. 7).
    margin : float, default 0.05
        Width around the target's decision boundary for boundary model parity (not used
        in training).
    box_margin : float, default 0.05
        Widening of the sampling box around a node's data, as a fraction of each range.
    batch_size : int, default 1000
        Points accepted per sampling batch (the authors' release uses 1000).
    min_batches : int, default 1
        Batches sampled at every node before the variance rule may stop.
    max_node_samples : int or None, default None
        Cap on samples drawn per node (``None``: the variance rule alone).
    leaf_label : {"majority", "side"}, default "majority"
        A leaf's label: the majority of its data, or the side of its parent's split it lies
        on (the paper's wording, "leaf nodes inherit a label from the SVM classifier"; the
        root then takes its majority label). The two differ only where the SVM side and
        the data disagree.
    boundary_estimates : bool, default True
        Fit an SVM in every uncertain leaf as its linear boundary estimate (eq. 13).
    C : float, default 10.0
        Hinge-loss weight of the node LP (features scaled to [-1, 1] per node). The paper
        does not give it; its release trains mlpack's L2 linear SVM with the weak
        regularization lambda = 1e-4, so the hinge term dominates; C = 10 likewise lets a
        separable node be split without error.
    class_weight : "balanced", None or mapping, default "balanced"
    solver : str, default "highs"
        Any LP backend of :mod:`interpretopt.solvers`.
    solver_settings : SolveSettings, dict or None
    lp_path : {"auto", "dual", "matrix", "pyomo"}, default "auto"
        How the node LP reaches the solver (see the module docstring).
    max_lp_samples : int or None, default None
        Subsample larger nodes to this many rows for the LP (``None``: all rows).
    random_state : int, Generator or None

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
        Per LP: node path, size, solver, status, objective, times.
    fit_time_ : float
    stats_ : dict
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
    """TRE-PAN (binary C4.5-style variant): axis-aligned entropy splits, same sampling and cutoffs.

    Parameters are those of :class:`MTREPANClassifier` (the LP settings serve the boundary
    estimates of uncertain leaves) plus

    criterion : {"gain", "gain_ratio"}, default "gain"
        Information gain, or C4.5's gain ratio.
    """

    _split_kind = "axis"

    def __init__(self, *, criterion: str = "gain", max_depth: int = 10, cutoff_entropy: float = 0.0808,
                 cutoff_variance: float = 1e-5, margin: float = 0.05, box_margin: float = 0.05, batch_size: int = 1000,
                 min_batches: int = 1, max_node_samples: int | None = None, leaf_label: str = "majority",
                 boundary_estimates: bool = True, C: float = 10.0, class_weight: Any = "balanced",
                 solver: str = "highs", solver_settings: Any = None, lp_path: str = "auto",
                 max_lp_samples: int | None = None, random_state: Any = None) -> None:
        super().__init__(max_depth=max_depth, cutoff_entropy=cutoff_entropy, cutoff_variance=cutoff_variance,
                         margin=margin, box_margin=box_margin, batch_size=batch_size, min_batches=min_batches,
                         max_node_samples=max_node_samples, leaf_label=leaf_label,
                         boundary_estimates=boundary_estimates, C=C, class_weight=class_weight, solver=solver,
                         solver_settings=solver_settings, lp_path=lp_path, max_lp_samples=max_lp_samples,
                         random_state=random_state)
        self.criterion = criterion

    _parameter_constraints: dict = {**_TranslatorBase._parameter_constraints,
                                     "criterion": [StrOptions({"gain", "gain_ratio"})]}

    def _split(self, X: np.ndarray, y: np.ndarray, path: str) -> Split | None:
        return best_axis_split(X, y, criterion=self.criterion)
