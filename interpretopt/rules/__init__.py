"""Rules as immutable values over feature indices, their vectorized evaluation and coverage.

- :class:`Condition` ``x_j op v`` and :class:`Conjunction` (a rule; canonical, hashable);
- :class:`RuleSet` (DNF), :class:`RuleList` (ordered, with labels and a default),
  :class:`Checklist` (at least t of K conditions), :class:`Polytope` (``C x <= b``);
- coverage matrices on raw or binarized data, boolean or bit-packed (uint64 words) with
  popcount helpers; first cover, support and overlap;
- :func:`tree_to_rules` for fitted scikit-learn trees.

Feature names appear only when rendering (``render(feature_names)``).
"""

from interpretopt.rules._condition import OPS, Condition, Conjunction, format_value
from interpretopt.rules import _coverage
# re-exported: __all__ below takes these names from _coverage.__all__
from interpretopt.rules._coverage import (  # noqa: F401
    and_popcount,
    binary_coverage,
    binary_coverage_packed,
    coverage_matrix,
    first_cover,
    n_words,
    overlap,
    pack_binary_columns,
    pack_coverage,
    pack_vector,
    packed_all,
    packed_and,
    packed_any,
    packed_coverage,
    packed_not,
    packed_or,
    popcount,
    rule_columns,
    support,
    unpack_coverage,
)
from interpretopt.rules._models import Checklist, RuleList, RuleSet
from interpretopt.rules._polytope import Polytope
from interpretopt.rules._tree import TreeLeafRule, tree_leaf_coverage, tree_to_rules

__all__ = [
    "OPS",
    "Condition",
    "Conjunction",
    "RuleSet",
    "RuleList",
    "Checklist",
    "Polytope",
    "TreeLeafRule",
    "tree_to_rules",
    "tree_leaf_coverage",
    *_coverage.__all__,
    "format_value",
]
