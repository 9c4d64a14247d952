"""Rules from the root-to-leaf paths of a fitted scikit-learn decision tree.

Each leaf gives the conjunction of the tests on its path: the left child of a node
``(feature j, threshold t)`` adds ``x_j <= t``, the right child ``x_j > t``. The leaves
partition the input space, so every sample satisfies exactly one leaf rule.

scikit-learn routes samples after casting them to float32; for inputs that are not exact
float32 values and lie within float32 rounding of a threshold, the float64 rule and the
tree may disagree. Cast ``X`` with ``X.astype(np.float32)`` to reproduce the tree exactly.
A sample with a missing value (NaN) on a tested feature satisfies neither branch, so it
falls in no leaf rule (trees fitted with missing-value support route NaN themselves).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from interpretopt.exceptions import InputError
from interpretopt.rules._condition import Condition, Conjunction, format_value

__all__ = ["TreeLeafRule", "tree_to_rules", "tree_leaf_coverage"]


@dataclass(frozen=True)
class TreeLeafRule:
    """One leaf of a fitted tree as a rule.

    Attributes
    ----------
    conjunction : Conjunction
        The path conditions (``<=`` for left branches, ``>`` for right).
    leaf_id : int
        Node index of the leaf in ``tree_``.
    value : tuple of float
        The leaf's ``tree_.value`` flattened (class fractions or counts, or regression values).
    class_counts : tuple of float or None
        Weighted number of training samples of each class at the leaf (classifiers), else None.
    n_samples : int
        Training samples that reached the leaf.
    prediction : object
        The tree's prediction at the leaf: a class label (the estimator's ``classes_`` when
        given a classifier, else the class index) or the regression value.
    depth : int
        Number of splits on the path (conditions before canonical merging).
    """

    conjunction: Conjunction
    leaf_id: int
    value: tuple[float, ...]
    class_counts: tuple[float, ...] | None
    n_samples: int
    prediction: Any
    depth: int

    @property
    def conditions(self) -> tuple[Condition, ...]:
        return self.conjunction.conditions

    def evaluate(self, X: Any) -> np.ndarray:
        """Boolean (n,): rows that fall in this leaf."""
        return self.conjunction.evaluate(X)

    def render(self, feature_names: Sequence[str] | None = None) -> str:
        """``IF path THEN prediction``."""
        pred = format_value(self.prediction) if isinstance(self.prediction, (int, float)) else str(self.prediction)
        return f"IF {self.conjunction.render(feature_names)} THEN {pred}"

    def __str__(self) -> str:
        return self.render()


def _tree_parts(tree: Any) -> tuple[Any, Any]:
    """(low-level Tree, estimator or None)."""
    t = getattr(tree, "tree_", None)
    if t is not None:
        return t, tree
    if all(hasattr(tree, a) for a in ("children_left", "children_right", "feature", "threshold", "value")):
        return tree, None
    if hasattr(tree, "fit") and hasattr(tree, "get_params"):
        raise InputError(f"{type(tree).__name__} is not fitted (no tree_ attribute); call fit(X, y) first")
    raise InputError(
        f"tree_to_rules needs a fitted scikit-learn DecisionTreeClassifier/Regressor or its tree_, got {type(tree).__name__}"
    )


def tree_to_rules(tree: Any) -> list[TreeLeafRule]:
    """One :class:`TreeLeafRule` per leaf of a fitted scikit-learn tree, in depth-first (left first) order.

    Parameters
    ----------
    tree : fitted DecisionTreeClassifier, DecisionTreeRegressor (or ExtraTree*), or its ``tree_``

    Returns
    -------
    list of TreeLeafRule
    """
    t, est = _tree_parts(tree)
    left, right = t.children_left, t.children_right
    feature, threshold = t.feature, t.threshold
    value = np.asarray(t.value)
    weighted = np.asarray(t.weighted_n_node_samples, dtype=float)
    n_node = np.asarray(t.n_node_samples)
    n_classes = np.atleast_1d(np.asarray(t.n_classes))
    is_classifier = bool(n_classes.max() > 1) if est is None else hasattr(est, "classes_")
    classes = getattr(est, "classes_", None) if est is not None else None
    single_output = value.shape[1] == 1

    out: list[TreeLeafRule] = []
    stack: list[tuple[int, tuple[Condition, ...]]] = [(0, ())]
    while stack:
        node, path = stack.pop()
        if left[node] == right[node]:  # leaf (both -1)
            v = value[node]
            if is_classifier and single_output:
                frac = v[0]
                total = frac.sum()
                counts = tuple(float(x) for x in (frac / total * weighted[node] if total > 0 else frac))
                idx = int(np.argmax(frac))
                pred = classes[idx] if classes is not None and np.ndim(classes) == 1 else idx
                pred = pred.item() if isinstance(pred, np.generic) else pred
            elif is_classifier:
                counts = None
                pred = tuple(int(np.argmax(v[o])) for o in range(v.shape[0]))
            else:
                counts = None
                pred = float(v[0, 0]) if single_output and v.shape[1] == 1 else tuple(float(x) for x in v[:, 0])
            out.append(TreeLeafRule(
                conjunction=Conjunction(path), leaf_id=int(node),
                value=tuple(float(x) for x in v.ravel()), class_counts=counts,
                n_samples=int(n_node[node]), prediction=pred, depth=len(path),
            ))
            continue
        f, thr = int(feature[node]), float(threshold[node])
        # push right first so that the left subtree comes out first
        stack.append((int(right[node]), path + (Condition(f, ">", thr),)))
        stack.append((int(left[node]), path + (Condition(f, "<=", thr),)))
    return out


def tree_leaf_coverage(leaf_rules: Sequence[TreeLeafRule], X: Any) -> np.ndarray:
    """Index (n,) into ``leaf_rules`` of the leaf each row of ``X`` falls in (-1 when none)."""
    from interpretopt.rules._coverage import coverage_matrix, first_cover

    return first_cover(coverage_matrix([r.conjunction for r in leaf_rules], X))
