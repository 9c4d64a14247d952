"""Beam-search pricing: exact re-pricing, exclusions, depth-1 completeness, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.exceptions import InputError
from interpretopt.formulations import brcg as F
from interpretopt.heuristics.beam import BeamPricer, beam_search
from tests.instances import tiny


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000))
def test_beam_columns_reprice_exactly(seed):
    X, y = tiny(seed, n=25, J=8)
    rng = np.random.default_rng(seed)
    mu = rng.random(int(y.sum()))
    spec = F.MasterSpec(form="constraint", C=5, n_samples=25)
    r, a, b = F.pricing_weights(y, mu, 0.2, spec)
    out = beam_search(X, r, a, b, max_literals=3, width=4, max_columns=5, exclude=[(0,)])
    assert len(out.clauses) == len(set(out.clauses)) <= 5
    for c, v in zip(out.clauses, out.reduced_costs):
        assert (0,) != c and len(c) <= 3
        exact = F.reduced_costs(X[:, list(c)].all(axis=1)[:, None], [len(c)], r, a, b)[0]
        assert v == pytest.approx(exact, abs=1e-9) and v < 0
    # a single literal of negative reduced cost is always found at depth 1
    singles = [F.reduced_costs(X[:, [j]], [1], r, a, b)[0] for j in range(1, 8)]
    if min(singles) < -1e-6:
        assert len(out.clauses) > 0 and out.reduced_costs[0] <= min(singles) + 1e-9


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), share=st.sampled_from([0.05, 0.5, 1.0]))
def test_beam_scores_equal_the_full_product_with_complements_folded(seed, share):
    """The depth product runs over the base literals only; the complements' scores are derived."""
    rng = np.random.default_rng(seed)
    base = rng.random((40, 5)) < 0.5
    X = np.column_stack([base, ~base[:, [0, 3]], base[:, [1]]])  # two negations, one duplicate
    pricer = BeamPricer(X)
    assert pricer.X32.shape[1] == 6  # the duplicate is a base column; the negations are not
    rows = np.flatnonzero(rng.random(40) < share)
    MT = rng.standard_normal((4, rows.size)).astype(np.float32)
    ref = MT.astype(np.float64) @ X[rows].astype(np.float64)
    np.testing.assert_allclose(pricer._scores(MT, rows), ref, rtol=1e-5, atol=1e-4)


def test_beam_pricer_rejects_bad_shapes():
    with pytest.raises(InputError):
        BeamPricer(np.zeros(5))
    with pytest.raises(InputError):
        BeamPricer(np.zeros((5, 2))).search(np.zeros(4), 0.0, 0.0)
