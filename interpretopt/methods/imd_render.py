"""Rendering of Joint Surrogate Trees (the paper's Figure 2) and of diff rules.

* :func:`jst_graph` turns a fitted JST into a small node/edge list that both renderers use:
  shared decision nodes (white ovals), or-nodes (dotted circles ``vo0, vo1, ...``), the
  per-model sub-trees (pink for model 1, orange for model 2) and leaves (boxes coloured by
  label, marked pure or impure, with a thick red border when they take part in a diff region).
* :func:`jst_to_dot` writes Graphviz DOT text.
* :func:`plot_jst` draws the tree with matplotlib: through Graphviz ``dot`` when it is
  installed (``engine="auto"`` or ``"graphviz"``), otherwise with a pure-matplotlib tidy
  layout (``engine="matplotlib"``).
* :func:`render_diff_rules` lists the diff rules grouped by or-node, with the or-node's path
  condition and each rule's two labels.
* :func:`graph_to_json` / :func:`graph_from_json` store the drawing's nodes as text (an
  experiment run's ``jst.json`` artifact), and :func:`plot_jst_graph` draws stored nodes, so a
  report can show a run's tree without the fitted estimator.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = ["GraphNode", "jst_graph", "jst_to_dot", "plot_jst", "plot_jst_graph", "graph_to_json", "graph_from_json",
           "render_diff_rules", "MODEL_COLORS", "LEAF_COLORS"]

MODEL_COLORS = ("lightpink", "lightsalmon")
LEAF_COLORS = ("antiquewhite", "lightcyan", "palegreen", "khaki", "plum", "lightsteelblue", "wheat", "thistle")
_MPL_COLORS = {"lightsalmon": "#ffa07a", "lightpink": "#ffb6c1", "antiquewhite": "#faebd7", "lightcyan": "#e0ffff",
               "palegreen": "#98fb98", "khaki": "#f0e68c", "plum": "#dda0dd", "lightsteelblue": "#b0c4de",
               "wheat": "#f5deb3", "thistle": "#d8bfd8", "white": "#ffffff"}


@dataclass
class GraphNode:
    id: int
    kind: str  # "shared" | "or" | "split1" | "split2" | "leaf1" | "leaf2"
    label: str
    fill: str
    in_diff: bool = False
    children: list = field(default_factory=list)  # (child id, edge label, dashed)


def _fmt(v: float) -> str:
    from interpretopt.rules import format_value

    return format_value(float(v))


def _parts(est: Any, feature_names: Any, class_names: Any):
    jst = getattr(est, "jst_", est)
    names = list(feature_names) if feature_names is not None else list(
        getattr(est, "feature_names_", None) or getattr(est, "feature_names_in_", None)
        or [f"x{j}" for j in range(jst.n_features)])
    classes = class_names if class_names is not None else getattr(est, "classes_", np.arange(jst.n_classes))
    regions = getattr(est, "diff_regions_", None)
    if regions is None:
        from interpretopt.heuristics.jst import diff_regions

        regions = diff_regions(jst)
    return jst, names, list(classes), regions


def jst_graph(est: Any, feature_names: Any = None, class_names: Any = None) -> list[GraphNode]:
    """Nodes of the JST drawing in depth-first order (node 0 is the root)."""
    jst, names, classes, regions = _parts(est, feature_names, class_names)
    diff1 = {r.leaf1 for r in regions}
    diff2 = {r.leaf2 for r in regions}
    or_of = {on.node1: k for k, on in enumerate(jst.or_nodes)}
    nodes: list[GraphNode] = []

    def new(kind, label, fill, in_diff=False) -> GraphNode:
        g = GraphNode(len(nodes), kind, label, fill, in_diff)
        nodes.append(g)
        return g

    def split_label(tree, i):
        return f"{names[tree.feature[i]]} < {_fmt(tree.threshold[i])}"

    def single(tree, i, which):
        if tree.feature[i] < 0:
            lab = int(tree.label[i])
            purity = "pure" if tree.pure[i] else "impure"
            text = f"{classes[lab]}\n{purity} (n={int(tree.n_samples[i])})"
            hit = i in (diff1 if which == 1 else diff2)
            return new(f"leaf{which}", text, LEAF_COLORS[lab % len(LEAF_COLORS)], hit).id
        g = new(f"split{which}", split_label(tree, i), MODEL_COLORS[which - 1])
        g.children.append((single(tree, int(tree.left[i]), which), "T", False))
        g.children.append((single(tree, int(tree.right[i]), which), "F", False))
        return g.id

    def walk(i):
        t1 = jst.tree1
        if i in or_of:
            k = or_of[i]
            on = jst.or_nodes[k]
            g = new("or", f"vo{k}", "white")
            g.children.append((single(jst.tree1, on.node1, 1), "M1", True))
            g.children.append((single(jst.tree2, on.node2, 2), "M2", True))
            return g.id
        g = new("shared", split_label(t1, i), "white")
        g.children.append((walk(int(t1.left[i])), "T", False))
        g.children.append((walk(int(t1.right[i])), "F", False))
        return g.id

    walk(0)
    return nodes


def graph_to_json(nodes: list[GraphNode]) -> str:
    """The nodes of :func:`jst_graph` as JSON text (read back by :func:`graph_from_json`)."""
    return json.dumps([asdict(g) for g in nodes])


def graph_from_json(text: str) -> list[GraphNode]:
    """Nodes written by :func:`graph_to_json`."""
    return [GraphNode(d["id"], d["kind"], d["label"], d["fill"], bool(d["in_diff"]),
                      [(int(c), str(lab), bool(dashed)) for c, lab, dashed in d["children"]])
            for d in json.loads(text)]


def _dot_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def jst_to_dot(est: Any, feature_names: Any = None, class_names: Any = None, *, name: str = "JST") -> str:
    """Graphviz DOT text of a fitted JST (an :class:`IMDExplainer` or a ``JointTree``)."""
    nodes = jst_graph(est, feature_names, class_names)
    lines = [f'digraph "{_dot_escape(name)}" {{', '  node [fontname="Helvetica"];', '  edge [fontname="Helvetica"];']
    for g in nodes:
        label = _dot_escape(g.label)
        if g.kind == "or":
            attrs = f'label="{label}", shape=circle, style=dotted'
        elif g.kind.startswith("leaf"):
            border = ', color=red, penwidth=3' if g.in_diff else ''
            attrs = f'label="{label}", shape=box, style=filled, fillcolor="{g.fill}"{border}'
        elif g.kind == "shared":
            attrs = f'label="{label}", shape=ellipse, style=filled, fillcolor=white'
        else:
            attrs = f'label="{label}", shape=ellipse, style=filled, fillcolor="{g.fill}"'
        lines.append(f"  n{g.id} [{attrs}];")
    for g in nodes:
        for c, lab, dashed in g.children:
            style = ", style=dashed" if dashed else ""
            lines.append(f'  n{g.id} -> n{c} [label="{lab}"{style}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _layout(nodes: list[GraphNode]) -> dict[int, tuple[float, float]]:
    pos: dict[int, tuple[float, float]] = {}
    next_x = [0.0]

    def place(i, level):
        g = nodes[i]
        if not g.children:
            pos[i] = (next_x[0], -level)
            next_x[0] += 1.0
        else:
            xs = [place(c, level + 1)[0] for c, _, _ in g.children]
            pos[i] = (float(np.mean(xs)), -level)
        return pos[i]

    place(0, 0)
    return pos


def plot_jst(est: Any, ax: Any = None, feature_names: Any = None, class_names: Any = None, *,
             engine: str = "auto", fontsize: float = 7.0):
    """Draw a fitted JST; returns the matplotlib Axes.

    ``engine="auto"`` uses Graphviz ``dot`` when it is on the PATH, else matplotlib only.
    """
    if engine not in ("auto", "graphviz", "matplotlib"):
        raise ValueError(f"engine must be 'auto', 'graphviz' or 'matplotlib', got {engine!r}")
    dot = shutil.which("dot")
    if engine == "graphviz" and dot is None:
        raise RuntimeError("engine='graphviz' needs Graphviz's `dot` on the PATH; use engine='matplotlib'")
    nodes = jst_graph(est, feature_names, class_names)
    if dot is not None and engine in ("auto", "graphviz"):
        import io

        import matplotlib.image as mpimg

        ax = _axes(nodes) if ax is None else ax
        png = subprocess.run([dot, "-Tpng"], input=jst_to_dot(est, feature_names, class_names).encode(),
                             capture_output=True, check=True).stdout
        ax.imshow(mpimg.imread(io.BytesIO(png), format="png"))
        ax.set_axis_off()
        return ax
    return plot_jst_graph(nodes, ax, fontsize=fontsize)


def _axes(nodes: list[GraphNode]):
    import matplotlib.pyplot as plt

    n_leaves = sum(1 for g in nodes if not g.children)
    depth = -min(_layout(nodes).values(), key=lambda p: p[1])[1] + 1
    return plt.subplots(figsize=(max(6.0, 1.1 * n_leaves), max(3.0, 1.2 * depth)))[1]


def plot_jst_graph(nodes: list[GraphNode], ax: Any = None, *, fontsize: float = 7.0):
    """Draw the nodes of :func:`jst_graph` (or :func:`graph_from_json`) with matplotlib's tidy
    layout; returns the Axes."""
    ax = _axes(nodes) if ax is None else ax
    pos = _layout(nodes)
    for g in nodes:
        x0, y0 = pos[g.id]
        for c, lab, dashed in g.children:
            x1, y1 = pos[c]
            ax.plot([x0, x1], [y0, y1], color="0.3", lw=0.8, ls="--" if dashed else "-", zorder=1)
            ax.text((x0 + x1) / 2, (y0 + y1) / 2, lab, fontsize=fontsize * 0.8, color="0.25", ha="center",
                    va="center", zorder=2, bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.7))
    for g in nodes:
        x, y = pos[g.id]
        fill = _MPL_COLORS.get(g.fill, g.fill)
        if g.kind == "or":
            box = dict(boxstyle="circle,pad=0.3", fc="white", ec="0.2", ls=":")
        elif g.kind.startswith("leaf"):
            box = dict(boxstyle="square,pad=0.3", fc=fill, ec="red" if g.in_diff else "0.3",
                       lw=2.5 if g.in_diff else 0.8)
        else:
            box = dict(boxstyle="round,pad=0.3", fc=fill, ec="0.3")
        ax.text(x, y, g.label, fontsize=fontsize, ha="center", va="center", zorder=3, bbox=box)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    ax.set_xlim(min(xs) - 0.8, max(xs) + 0.8)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.set_axis_off()
    return ax


def render_diff_rules(est: Any, feature_names: Any = None) -> str:
    """Diff rules as text, grouped by or-node (with the or-node's path condition), each with
    its training support (rows in the region, share of the training set) and precision (share
    of those rows where the two models disagree; ``-`` for a region holding no training row)."""
    jst, names, classes, regions = _parts(est, feature_names, None)
    info = getattr(est, "diff_rule_info_", None)
    if info is None:
        from interpretopt.methods.imd import DiffRule, _box_rule

        info = [DiffRule(_box_rule(r.lo, r.hi), r.or_node, classes[r.label1], classes[r.label2]) for r in regions]
    from interpretopt.methods.imd import _box_rule

    support = getattr(est, "diff_rule_support_", None)
    precision = getattr(est, "diff_rule_precision_", None)
    n_train = int(jst.tree1.n_samples[0]) if jst.tree1.n_nodes else 0

    def stats(i: int) -> str:
        if support is None or i >= len(support):
            return ""
        sup = int(support[i])
        share = f" ({sup / n_train:.1%})" if n_train else ""
        pr = "-" if sup == 0 or np.isnan(precision[i]) else f"{precision[i]:.2f}"
        return f"  [support {sup}{share}, precision {pr}]"

    by_or: dict[int, list] = {}
    for i, r in enumerate(info):
        by_or.setdefault(r.or_node, []).append((i, r))
    lines = [f"{len(info)} diff rule(s) under {len(by_or)} of {len(jst.or_nodes)} or-node(s)"]
    if support is not None and len(support):
        empty = int(np.count_nonzero(np.asarray(support) == 0))
        lines[0] += f"; support and precision on the {n_train} training rows ({empty} rule(s) cover none)"
    for k in sorted(by_or):
        on = jst.or_nodes[k]
        path = _box_rule(on.lo, on.hi).render(names) if np.isfinite(on.lo).any() or np.isfinite(on.hi).any() else "TRUE"
        lines.append(f"or-node vo{k} (depth {on.depth}): {path}")
        for j, (i, r) in enumerate(by_or[k], 1):
            lines.append(f"  {j}. IF {r.rule.render(names) or 'TRUE'} THEN M1={r.label1}, M2={r.label2}{stats(i)}")
    return "\n".join(lines)
