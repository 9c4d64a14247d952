"""Clauses in canonical form: no returned literal is redundant on the training rows, in master and pricing alike.

What is guaranteed (:func:`interpretopt.methods._colgen.prune_clause`): *coverage-irredundancy on
the training rows* -- removing any one literal of a returned (non-grounding) clause changes the
set of training rows it covers. Syntactic canonical form follows for nested literals of one
feature (``x <= 2`` implies ``x <= 5`` on every row, so the weaker one never survives), and a
contradictory clause covers no row and is never a column.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpretopt.formulations import brcg as F
from interpretopt.methods import _colgen as CG
from interpretopt.methods.brcg import BRCGClassifier
from tests.instances import tiny


def redundant_literals(Xb: np.ndarray, clause: tuple) -> list[int]:
    """Literals of ``clause`` whose removal leaves its coverage of the rows of ``Xb`` unchanged."""
    full = CG.clause_cover(Xb, clause)
    return [j for j in clause if len(clause) > 1
            and np.array_equal(CG.clause_cover(Xb, tuple(k for k in clause if k != j)), full)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(20, 80), d=st.integers(1, 4),
       pricing=st.sampled_from(["beam", "beam+bnb"]), target=st.sampled_from([0, 1]),
       lam=st.sampled_from([0.0002, 0.001, 0.01]))
def test_no_returned_clause_has_a_redundant_literal(seed, n, d, pricing, target, lam):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 12, size=(n, d)).astype(float), columns=[f"f{i}" for i in range(d)])
    y = (X["f0"] + rng.normal(0, 3, n) > 5).astype(int).to_numpy()
    if y.min() == y.max():
        y[0] = 1 - y[0]
    est = BRCGClassifier(pricing=pricing, max_literals=4, n_thresholds=6, lambda0=lam, lambda1=lam,
                         target_class=target, max_iter=15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        est.fit(X, y)
    Xb = est._binarize(X)
    for clause in est.clauses_:
        assert redundant_literals(Xb, clause) == [], (clause, [est.literals_[j] for j in clause])
    for clause in est.cg_.clauses:  # every column of the master, not only the selected ones
        assert redundant_literals(Xb, clause) == []
    # per feature, at most one literal of each direction (the syntactic consequence)
    for rule in est.rules_.rules:
        kinds = [(c.feature, c.op) for c in rule.conditions]
        assert len(kinds) == len(set(kinds)), rule


def test_nested_thresholds_keep_the_tightest_one():
    """The shape of the reported regression: x <= 9 AND x <= 5 AND x <= 2 is x <= 2."""
    x = np.arange(12)
    Xb = np.stack([x <= 2, x <= 5, x <= 9, x > 5], axis=1)
    assert CG.prune_clause(Xb, (0, 1, 2)) == (0,)
    assert CG.prune_clause(Xb, (2, 1)) == (1,)
    assert not CG.clause_cover(Xb, (0, 3)).any()  # contradictory: covers nothing


def test_master_and_pricing_count_literals_after_simplification():
    """A redundant initial clause enters the master in canonical form, and its cost counts the literals left."""
    X, y = tiny(1, n=30, J=6)
    Xr = np.column_stack([X, X[:, 0]])  # literal 6 equals literal 0 on every row
    spec = F.MasterSpec(form="light", lambda0=0.01, lambda1=0.005, n_samples=30)
    res = CG.column_generation(Xr, y, spec, pricing="beam", max_literals=3, initial_clauses=[(0, 6), (1, 0, 6)])
    for c in res.clauses:
        assert redundant_literals(Xr, c) == [] and not {0, 6} <= set(c)
    nl = [len(c) for c in res.clauses]
    assert res.objective == pytest.approx(F.master_objective(res.selected, res.cover, y, nl, spec), abs=1e-12)
