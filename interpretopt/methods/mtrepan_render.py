"""Rendering and export of MTRE-PAN / TRE-PAN translations: the 2-D leaf plot, JSON, DataFrames.

* :func:`plot_polytopes_2d`: the leaf polytopes of a two-feature translation over the
  target's decision regions (Almerri et al., Figure 3 and 4).
* :func:`translation_to_dict` / :func:`translation_to_json`: the tree (nodes, splits,
  labels, sampling record) and its leaves as minimal inequalities, JSON-ready.
* :func:`leaves_frame`: one row per inequality of every leaf (a pandas DataFrame).

Nothing here fits or changes a translation; the estimators in
:mod:`interpretopt.methods.mtrepan` call these functions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from interpretopt.exceptions import InputError

__all__ = ["plot_polytopes_2d", "polygon_2d", "translation_to_dict", "translation_to_json", "leaves_frame"]


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


def polygon_2d(polytope: Any, lo: Any, hi: Any) -> np.ndarray:
    """Vertices (k, 2), in order, of a 2-D polytope clipped to the box ``[lo, hi]``; ``k = 0`` when empty."""
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    poly = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]], dtype=float)
    for c, b in zip(polytope.C, polytope.b):
        poly = _clip_polygon(poly, c, b)
        if poly.shape[0] == 0:
            break
    if poly.shape[0] > 1:  # a clipping line through a vertex repeats it
        keep = np.linalg.norm(poly - np.roll(poly, 1, axis=0), axis=1) > 1e-12 * (1.0 + np.abs(poly).max())
        poly = poly[keep]
    return poly


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
    from interpretopt._validation import check_fitted, render_names
    from interpretopt.methods.mtrepan import make_oracle

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
    tree = translator.tree_
    for nd in tree.leaves(depth):
        poly = polygon_2d(nd.polytope, lo, hi)
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


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return _jsonable(v.tolist())
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, float) and not np.isfinite(v):
        return None if np.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def translation_to_dict(translator: Any, depth: int | None = None) -> dict:
    """The translation as plain data: parameters, classes, features, root box, nodes and leaves.

    ``nodes`` lists every node of the tree truncated at ``depth`` (id, path, depth, split
    ``c . x <= b`` to the left child, children, label, uncertain, data counts, stop reason,
    sampling record); ``leaves`` lists each leaf as :meth:`LeafExplanation.to_dict` (its
    minimal inequalities).
    """
    from interpretopt._validation import check_fitted, render_names

    check_fitted(translator, "tree_")
    tree = translator.tree_
    leaf_ids = {nd.node_id for nd in tree.leaves(depth)}
    labels, unc = tree.node_arrays(depth)
    nodes = []
    stack = [0]
    while stack:
        nd = tree.nodes[stack.pop()]
        is_leaf = nd.node_id in leaf_ids
        tr = nd.sampling
        entry = {
            "id": nd.node_id, "path": nd.path, "depth": nd.depth, "leaf": is_leaf,
            "label": translator.classes_[labels[nd.node_id]], "uncertain": bool(unc[nd.node_id]),
            "n_samples": nd.n_samples, "n_positive": nd.n_positive, "entropy": nd.entropy,
            "stop_reason": nd.stop_reason if is_leaf and nd.split is None else ("depth" if is_leaf else "split"),
            "sampling": None if tr is None else {
                "n_inherited": tr.n_inherited, "n_sampled": tr.n_sampled, "variance": tr.variance,
                "eq7_met": tr.eq7_met, "stopped_by": tr.stopped_by, "method": tr.method,
                "acceptance": tr.acceptance},
        }
        if not is_leaf:
            entry["split"] = {"c": nd.split.c, "b": nd.split.b, "left_label": translator.classes_[nd.split.left_label],
                              "right_label": translator.classes_[nd.split.right_label]}
            entry["left"], entry["right"] = nd.left, nd.right
            stack.extend([nd.right, nd.left])
        nodes.append(entry)
    lo, hi = translator.root_box_
    out = {
        "method": type(translator).__name__,
        "params": {k: v for k, v in translator.get_params(deep=False).items()
                   if isinstance(v, (int, float, str, bool, type(None)))},
        "classes": translator.classes_,
        "feature_names": render_names(translator),
        "root_box": {"lo": lo, "hi": hi},
        "depth": depth if depth is not None else tree.max_depth,
        "nodes": nodes,
        "leaves": [leaf.to_dict() for leaf in translator.leaves(depth)],
    }
    return _jsonable(out)


def translation_to_json(translator: Any, path: Any = None, depth: int | None = None, indent: int = 1) -> str:
    """:func:`translation_to_dict` as JSON text; written to ``path`` when given."""
    text = json.dumps(translation_to_dict(translator, depth), indent=indent)
    if path is not None:
        Path(path).write_text(text)
    return text


def leaves_frame(leaves: list, feature_names: list[str]):
    """One row per inequality of every leaf: the leaf's attributes, ``kind`` (``"bound"`` for an
    axis-aligned row, ``"split"`` for an oblique one), one coefficient column per feature and
    ``rhs`` (the row reads ``sum_j coef_j x_j <= rhs``)."""
    import pandas as pd

    names = [str(n) for n in feature_names]
    clash = {"leaf_id", "path", "depth", "label", "uncertain", "positive_rate", "entropy", "n_samples",
             "constraint", "kind", "rhs"} & set(names)
    if clash:
        raise InputError(f"feature names {sorted(clash)} clash with the frame's own columns; rename the features")
    rows = []
    for leaf in leaves:
        P = leaf.polytope
        for i in range(P.n_constraints):
            row = {"leaf_id": leaf.node_id, "path": leaf.path, "depth": leaf.depth, "label": leaf.label,
                   "uncertain": leaf.uncertain, "positive_rate": leaf.positive_rate, "entropy": leaf.entropy,
                   "n_samples": leaf.n_samples, "constraint": i,
                   "kind": "bound" if int(np.count_nonzero(P.C[i])) == 1 else "split"}
            row.update({n: float(v) for n, v in zip(names, P.C[i])})
            row["rhs"] = float(P.b[i])
            rows.append(row)
    cols = ["leaf_id", "path", "depth", "label", "uncertain", "positive_rate", "entropy", "n_samples",
            "constraint", "kind"] + names + ["rhs"]
    return pd.DataFrame(rows, columns=cols)
