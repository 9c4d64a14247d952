"""Algorithm cores as pure functions over arrays.

Modules: ``annealing`` (the simulated-annealing loop shared by CRL and ABBR), ``beam``
(beam-search pricing for BRCG), ``clause_enum`` and ``clause_bnb`` (exact pricing for BRCG:
enumeration up to three literals, branch and bound beyond), ``jst`` (joint surrogate trees for IMD), ``mining``
(bit-packed frequent-itemset rule pools for CRL), ``companion`` (CRL's Algorithm 1 search core),
``corels`` and ``sbrl`` (CRL baselines), ``abbr_search``
(rule pools, filters and annealing for ABBR), ``trepan`` (MTRE-PAN / TRE-PAN tree growth
with sampling on demand).
"""

from interpretopt.heuristics.annealing import AnnealResult, anneal, metropolis

__all__ = ["AnnealResult", "anneal", "metropolis"]
