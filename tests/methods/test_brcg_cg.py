"""Column generation for BRCG / BRCG+: exactness on tiny instances, fast path vs Pyomo, solver swap."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.exceptions import ParameterError, InputError, SolverError
from interpretopt.formulations import brcg as F
from interpretopt.heuristics.beam import BeamPricer, beam_search
from interpretopt.methods.brcg import BRCGClassifier, column_generation
from interpretopt.solvers import solve


def tiny(seed: int, n: int = 10, J: int = 4):
    rng = np.random.default_rng(seed)
    X = rng.random((n, J)) < 0.5
    y = rng.integers(0, 2, n).astype(np.int8)
    if y.sum() in (0, n):
        y[0] = 1 - y[0]
    return X, y


def all_clauses(J, D):
    return [c for d in range(1, D + 1) for c in itertools.combinations(range(J), d)]


def cover_of(X, clauses):
    return np.stack([X[:, list(c)].all(axis=1) for c in clauses], axis=1)


def brute_force(X, y, spec, D, grounding_clauses=()):
    """Optimum of the integer master over *all* clauses of up to D literals, by enumerating subsets."""
    clauses = list(dict.fromkeys([tuple(c) for c in grounding_clauses] + all_clauses(X.shape[1], D)))
    g = [clauses.index(tuple(c)) for c in grounding_clauses]
    cov = cover_of(X, clauses)
    nl = np.array([len(c) for c in clauses])
    best, best_sel = np.inf, None
    for mask in range(1 << len(clauses)):
        sel = [k for k in range(len(clauses)) if mask >> k & 1]
        if spec.form == "constraint" and spec.clause_complexity(nl[sel]).sum() > spec.C + 1e-9:
            continue
        v = F.master_objective(sel, cov, y, nl, spec, grounding=g)
        if v < best - 1e-12:
            best, best_sel = v, [clauses[k] for k in sel]
    return best, best_sel, clauses, cov, nl


def full_lp(cov, y, nl, spec, grounding=()):
    m = F.build_master(cov, y, nl, spec, grounding=grounding, relax=True)
    solve(m, "highs", duals=True).raise_for_status()
    return F.extract_master(m)


SPECS = {
    "C": F.MasterSpec(form="constraint", C=4, n_samples=10),
    "light": F.MasterSpec(form="light", lambda0=0.02, lambda1=0.01, n_samples=10),
}


@pytest.mark.parametrize("name", list(SPECS))
@pytest.mark.parametrize("seed", [0, 1, 2, 7])
def test_cg_reaches_brute_force_optimum(name, seed):
    spec = SPECS[name]
    X, y = tiny(seed)
    best, _, _, cov, nl = brute_force(X, y, spec, 2)
    res = column_generation(X, y, spec, pricing="milp", max_literals=2)
    assert res.converged and res.stop_reason == "no_negative_column"
    # exact pricing: the restricted LP bound is the LP optimum over all clauses
    assert res.lp_bound == pytest.approx(full_lp(cov, y, nl, spec).objective, abs=1e-7)
    assert res.lp_bound <= res.objective + 1e-9
    assert res.objective == pytest.approx(best, abs=1e-7)
    assert res.gap == pytest.approx((res.objective - res.lp_bound) / max(abs(res.objective), 1e-10), abs=1e-9)


@settings(max_examples=12)
@given(seed=st.integers(0, 10_000), light=st.booleans(), pricing=st.sampled_from(["beam", "beam+milp"]))
def test_lp_bound_never_exceeds_integer_objective(seed, light, pricing):
    X, y = tiny(seed, n=16, J=6)
    spec = (F.MasterSpec(form="light", lambda0=0.01, lambda1=0.01, n_samples=16) if light
            else F.MasterSpec(form="constraint", C=5, n_samples=16))
    res = column_generation(X, y, spec, pricing=pricing, max_literals=3, beam_width=3)
    assert res.lp_bound <= res.objective + 1e-9
    sel = res.selected
    nl = [len(c) for c in res.clauses]
    assert res.objective == pytest.approx(F.master_objective(sel, res.cover, y, nl, spec), abs=1e-9)
    if spec.form == "constraint":
        assert spec.clause_complexity(np.array(nl)[sel]).sum() <= spec.C + 1e-9


def test_fast_path_matches_pyomo_master_over_final_columns():
    """The CG loop's incremental LP and the Pyomo master over the same columns agree (objective, duals)."""
    X, y = tiny(11, n=30, J=6)
    spec = F.MasterSpec(form="constraint", C=6, n_samples=30)
    res = column_generation(X, y, spec, pricing="beam", max_literals=3, beam_width=4)
    nl = [len(c) for c in res.clauses]
    ref = full_lp(res.cover, y, nl, spec)
    assert res.lp_bound == pytest.approx(ref.objective, abs=1e-7)
    mu, lam = res.lp_duals
    w = res.lp_solution[int(y.sum()):]
    xi = res.lp_solution[: int(y.sum())]
    # the loop's duals are an optimal dual solution of the Pyomo master (complementary slackness)
    r, a, b = F.pricing_weights(y, mu, lam, spec)
    rc = F.reduced_costs(res.cover, nl, r, a, b)
    assert (rc >= -1e-7).all()
    assert (np.abs(rc[w > 1e-7]) <= 1e-6).all()
    dual_obj = mu.sum() - lam * spec.C
    assert dual_obj == pytest.approx(ref.objective, abs=1e-6)
    assert xi.sum() + res.cover[~y.astype(bool)].sum(axis=0) @ w == pytest.approx(ref.objective, abs=1e-6)


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


def test_beam_pricer_rejects_bad_shapes():
    with pytest.raises(InputError):
        BeamPricer(np.zeros(5))
    with pytest.raises(InputError):
        BeamPricer(np.zeros((5, 2))).search(np.zeros(4), 0.0, 0.0)


def test_grounding_large_penalty_keeps_U_and_zero_penalty_is_brcg():
    X, y = tiny(3, n=10, J=4)
    U = [(0, 1), (2,)]
    # large c_u: every grounding clause stays selected
    spec_big = F.MasterSpec(form="constraint", C=6, c_u=10.0, n_samples=10)
    res = column_generation(X, y, spec_big, pricing="milp", max_literals=2, initial_clauses=U, grounding=[0, 1])
    chosen = {res.clauses[k] for k in res.selected}
    assert set(U) <= chosen
    best, _, _, _, _ = brute_force(X, y, spec_big, 2, grounding_clauses=U)
    assert res.objective == pytest.approx(best, abs=1e-7)
    # c_u = 0: the grounded problem is BRCG (same optimum as without grounding)
    spec0 = F.MasterSpec(form="constraint", C=6, c_u=0.0, n_samples=10)
    res0 = column_generation(X, y, spec0, pricing="milp", max_literals=2, initial_clauses=U, grounding=[0, 1])
    plain = column_generation(X, y, spec0, pricing="milp", max_literals=2)
    best0, _, _, _, _ = brute_force(X, y, spec0, 2)
    assert res0.objective == pytest.approx(best0, abs=1e-7)
    assert plain.objective == pytest.approx(best0, abs=1e-7)
    assert res0.lp_bound == pytest.approx(plain.lp_bound, abs=1e-7)


@pytest.mark.parametrize("lp_solver", ["ortools_glop"])
def test_solver_swap_same_lp_bound_and_objective(lp_solver):
    pytest.importorskip("ortools")
    X, y = tiny(5, n=14, J=5)
    spec = F.MasterSpec(form="constraint", C=5, n_samples=14)
    a = column_generation(X, y, spec, pricing="milp", max_literals=2, solver="highs")
    b = column_generation(X, y, spec, pricing="milp", max_literals=2, solver=lp_solver,
                          pricing_solver="ortools_scip", mip_solver="ortools_scip")
    assert a.lp_bound == pytest.approx(b.lp_bound, abs=1e-6)
    assert a.objective == pytest.approx(b.objective, abs=1e-6)


def test_pricing_through_pyomo_solver_matches_direct():
    X, y = tiny(8, n=12, J=5)
    spec = F.MasterSpec(form="light", lambda0=0.02, lambda1=0.01, n_samples=12)
    a = column_generation(X, y, spec, pricing="milp", max_literals=2, pricing_solver="highs")
    b = column_generation(X, y, spec, pricing="milp", max_literals=2, pricing_solver="highs_direct",
                          mip_solver="highs_direct")
    assert a.lp_bound == pytest.approx(b.lp_bound, abs=1e-7)
    assert a.objective == pytest.approx(b.objective, abs=1e-7)


def test_iteration_limit_is_reported():
    X, y = tiny(2, n=30, J=8)
    spec = F.MasterSpec(form="light", lambda0=0.001, lambda1=0.001, n_samples=30)
    res = column_generation(X, y, spec, pricing="beam", max_literals=3, max_iter=1, columns_per_iter=1)
    assert res.stop_reason == "max_iter" and not res.converged
    assert len(res.history) == 2


def test_time_limit_is_reported_and_an_integer_master_still_solved():
    X, y = tiny(4, n=40, J=8)
    spec = F.MasterSpec(form="light", lambda0=0.001, lambda1=0.001, n_samples=40)
    res = column_generation(X, y, spec, pricing="beam", max_literals=3, time_limit=1e-3, columns_per_iter=1,
                            initial_clauses=[(0,), (1, 2)])
    assert res.stop_reason == "time_limit" and not res.converged
    assert res.objective is not None and res.lp_bound <= res.objective + 1e-9


def test_lp_solver_without_duals_is_an_error():
    X, y = tiny(0)
    with pytest.raises(SolverError, match="duals"):
        column_generation(X, y, SPECS["C"], solver="ortools_cpsat")
    with pytest.raises(ParameterError, match="'solver' parameter .* providing LP duals.* Got 'cbc'"):
        BRCGClassifier(binarizer="passthrough", solver="cbc").fit(X.astype(int), y)
