"""Pyomo models only: each module's ``build(...)`` returns a model and ``extract(...)`` reads the
answer; nothing here solves or does I/O (solving is :mod:`interpretopt.solvers`).

Modules: ``brcg`` (BRCG master in constraint and light forms, pricing MILP, grounded BRCG+),
``svm_lp`` (L1-norm soft-margin SVM for MTRE-PAN nodes), ``abbr_baseline`` (globally
consistent rule MILP), ``abbr_certify`` (exact rule-list selection at a target support).
Import the module you need, e.g. ``from interpretopt.formulations import brcg``.
"""
