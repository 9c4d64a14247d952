"""Column generation with certificates: bounds against brute force, proofs, stop reasons, time limits."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from interpretopt.exceptions import InputError, SolverError
from interpretopt.formulations import brcg as F
from interpretopt.heuristics.clause_enum import MAX_ENUMERATION_LITERALS
from interpretopt.methods import _colgen as CG
from interpretopt.methods.brcg import BRCGClassifier
from interpretopt.solvers import SolveResult, SolveSettings, SolveStatus, solve
from tests.instances import all_clauses, brute_force_master, cover_of, tiny


def full_lp(X, y, spec, D, grounding_clauses=()):
    """The LP over every clause of up to D literals (grounding clauses first), solved by HiGHS."""
    clauses = all_clauses(X.shape[1], D, first=grounding_clauses)
    cov = cover_of(X, clauses)
    nl = [len(c) for c in clauses]
    m = F.build_master(cov, y, nl, spec, grounding=range(len(grounding_clauses)), relax=True)
    solve(m, "highs", duals=True).raise_for_status()
    return F.extract_master(m).objective


def brute_force_ip(X, y, spec, D, grounding_clauses=()):
    clauses = all_clauses(X.shape[1], D, first=grounding_clauses)
    return brute_force_master(X, y, clauses, spec, grounding=list(range(len(grounding_clauses))))


SPECS = {
    "C": F.MasterSpec(form="constraint", C=4, n_samples=10),
    "C_literals": F.MasterSpec(form="constraint", C=3, complexity="literals", n_samples=10),
    "light": F.MasterSpec(form="light", lambda0=0.02, lambda1=0.01, n_samples=10),
}


# ----------------------------------------------------------------------------- the bound (B1)-(B4)
@settings(max_examples=40)
@given(seed=st.integers(0, 10_000), name=st.sampled_from(sorted(SPECS)), n_cols=st.integers(0, 6),
       scale=st.floats(0.0, 2.0))
def test_lagrangian_bound_never_exceeds_the_full_lp(seed, name, n_cols, scale):
    """Any multipliers, any subset of columns, the true bound on the rest: LB <= LP over all clauses."""
    spec = SPECS[name]
    X, y = tiny(seed)
    D = 2
    rng = np.random.default_rng(seed)
    clauses = all_clauses(4, D)
    cols = [clauses[k] for k in rng.choice(len(clauses), size=n_cols, replace=False)]
    s = spec.loss_scale * np.ones(int(y.sum()))
    mu = rng.random(s.size) * s * scale          # clipped into [0, s] by the bound itself when above
    lam = float(rng.random() * scale)
    cov = cover_of(X, cols) if cols else np.zeros((10, 0), bool)
    r, a, b = F.pricing_weights(y, np.clip(mu, 0, s), lam if spec.form == "constraint" else 0.0, spec)
    outside = [c for c in clauses if c not in cols]
    rc_true = min((F.reduced_costs(cover_of(X, [c]), [len(c)], r, a, b)[0] for c in outside), default=np.inf)
    truth = full_lp(X, y, spec, D)
    lb = F.lagrangian_bound(spec, y, mu, lam, cov, [len(c) for c in cols], rc_outside=rc_true)
    assert lb <= truth + 1e-9
    # the always-available bound is below the true minimum reduced cost, so it bounds too
    cheap = F.depth1_bound(X, r, a, b)
    assert cheap <= rc_true + 1e-12
    assert F.lagrangian_bound(spec, y, mu, lam, cov, [len(c) for c in cols], rc_outside=cheap) <= lb + 1e-12


@pytest.mark.parametrize("pricing", ["milp", "bnb", "beam+bnb"])
@pytest.mark.parametrize("name", sorted(SPECS))
@pytest.mark.parametrize("seed", [0, 1, 2, 7])
def test_exact_column_generation_proves_the_lp_and_the_bound_equals_it(name, seed, pricing):
    spec = SPECS[name]
    X, y = tiny(seed)
    truth = full_lp(X, y, spec, 2)
    res = CG.column_generation(X, y, spec, pricing=pricing, max_literals=2, tol=1e-6)
    assert res.proven and res.stop_reason == "proven_optimal"
    assert res.restricted_lp == pytest.approx(truth, abs=1e-7)
    assert res.lower_bound <= truth + 1e-9
    assert res.lower_bound == pytest.approx(truth, rel=1e-6, abs=1e-9)   # tight at proven convergence
    best = brute_force_ip(X, y, spec, 2)
    assert res.lower_bound <= best + 1e-9 <= res.objective + 2e-9
    # the integer bound: the LP's raised to an objective a rule set can take, never above the optimum
    lifted = (F.light_objective_floor(spec, res.lower_bound, max_literals=2) if spec.form == "light"
              else np.ceil(res.lower_bound - 1e-9))
    assert res.lower_bound - 1e-12 <= res.integer_bound == pytest.approx(lifted, abs=1e-12)
    assert res.integer_bound <= best + 1e-9
    assert res.gap == pytest.approx(CG.relative_gap(res.objective, lifted), abs=1e-12)
    assert (res.status == "optimal") == (res.gap <= res.tol)


def test_rc_needed_is_the_pricing_cutoff_of_the_target():
    X, y = tiny(3, n=14, J=5)
    for spec in (F.MasterSpec(form="constraint", C=5, n_samples=14),
                 F.MasterSpec(form="light", lambda0=0.02, lambda1=0.01, n_samples=14)):
        res = CG.column_generation(X, y, spec, pricing="beam", max_literals=2, max_iter=1)
        mu, lam = res.lp_duals
        terms = F.lagrangian_terms(spec, y, mu, lam, res.cover, [len(c) for c in res.clauses])
        target = res.restricted_lp * (1 - 1e-3)
        eps = terms.rc_needed(target)
        if eps > 0:
            assert terms.value(-eps) >= target - 1e-9
            assert terms.value(-eps * 1.01 - 1e-9) < target + 1e-9


# ----------------------------------------------------------------------------- heuristic pricing
def test_regression_beam_stop_is_not_reported_as_optimal():
    """15 samples, 7 literals: the beam stops at LP 5 (integer 5, gap 0 to its own LP); the true
    LP and integer optimum is 4. Nothing may be called converged, proven or optimal."""
    rng = np.random.default_rng(14)
    X = rng.random((15, 7)) < 0.5
    y = rng.integers(0, 2, 15).astype(np.int8)
    spec = F.MasterSpec(form="constraint", C=4, n_samples=15)
    res = CG.column_generation(X, y, spec, pricing="beam", max_literals=3, beam_width=2)
    assert res.restricted_lp == pytest.approx(5.0) and res.objective == pytest.approx(5.0)
    assert full_lp(X, y, spec, 3) == pytest.approx(4.0, abs=1e-7)
    assert not res.proven and res.stop_reason == "heuristic_pricing_exhausted"
    assert res.status == "heuristic" and res.lower_bound <= 4.0 + 1e-9
    assert res.gap > 0
    for pricing in ("beam+milp", "beam+bnb"):
        exact = CG.column_generation(X, y, spec, pricing=pricing, max_literals=3, beam_width=2)
        assert exact.proven and exact.restricted_lp == pytest.approx(4.0, abs=1e-7)
        assert exact.objective == pytest.approx(4.0) and exact.status == "optimal" and exact.gap == 0.0


@settings(max_examples=12)
@given(seed=st.integers(0, 10_000), light=st.booleans(), pricing=st.sampled_from(["beam", "beam+milp", "beam+bnb"]))
def test_bound_objective_and_selection_are_consistent(seed, light, pricing):
    X, y = tiny(seed, n=16, J=6)
    spec = (F.MasterSpec(form="light", lambda0=0.01, lambda1=0.01, n_samples=16) if light
            else F.MasterSpec(form="constraint", C=5, n_samples=16))
    res = CG.column_generation(X, y, spec, pricing=pricing, max_literals=3, beam_width=3)
    assert res.lower_bound <= full_lp(X, y, spec, 3) + 1e-9
    assert res.lower_bound <= res.objective + 1e-9
    nl = [len(c) for c in res.clauses]
    assert res.objective == pytest.approx(F.master_objective(res.selected, res.cover, y, nl, spec), abs=1e-9)
    if spec.form == "constraint":
        assert spec.clause_complexity(np.array(nl)[res.selected]).sum() <= spec.C + 1e-9
    if pricing == "beam" and not res.proven:
        assert res.status in ("heuristic", "optimal")
    assert res.status != "optimal" or res.gap <= res.tol


# ----------------------------------------------------------------------------- the exact pricer
def min_reduced_cost(X, r, a, b, D, exclude=()):
    best = np.inf
    for c in all_clauses(X.shape[1], D):
        if c not in exclude:
            best = min(best, F.reduced_costs(X[:, list(c)].all(axis=1)[:, None], [len(c)], r, a, b)[0])
    return best


def _pricing_instance(seed: int, light: bool, cutoff: float):
    """A 12-row instance with random duals (some zero) and its pricing weights; the light
    form's duals and cutoff are scaled by 1/n as its objective is."""
    X, y = tiny(seed, n=12, J=5)
    rng = np.random.default_rng(seed + 1)
    mu = rng.random(int(y.sum())) * rng.integers(0, 2, int(y.sum())) * 2.0
    spec = (F.MasterSpec(form="light", lambda0=0.05, lambda1=0.02, n_samples=12) if light
            else F.MasterSpec(form="constraint", C=5, n_samples=12))
    if light:
        mu, cutoff = mu / 12.0, cutoff / 12.0
    r, a, b = F.pricing_weights(y, mu, float(rng.random() * 0.5), spec)
    return X, y, r, a, b, cutoff


@settings(max_examples=12)
@given(seed=st.integers(0, 10_000), D=st.integers(1, 3), light=st.booleans(), cutoff=st.floats(-0.3, 0.0))
def test_milp_pricer_returns_a_column_below_the_cutoff_or_proves_none_exists(seed, D, light, cutoff):
    X, y, r, a, b, cutoff = _pricing_instance(seed, light, cutoff)
    best = min_reduced_cost(X, r, a, b, D, exclude=[(0,)])
    pricer = CG.MilpPricing(X, y, max_literals=D, exclude=[(0,)], settings=SolveSettings())
    out = pricer.price(r, a, b, rc_tol=1e-9, cutoff=cutoff)
    assert out.exact
    assert out.rc_outside <= best + 1e-7                     # a valid bound
    if best < cutoff - 1e-7:
        assert out.columns, out.result.message
        c = out.columns[0]
        assert c != (0,) and out.reduced_costs[0] < cutoff + 1e-9
        assert out.reduced_costs[0] == pytest.approx(F.reduced_costs(cover_of(X, [c]), [len(c)], r, a, b)[0])
    elif best > cutoff + 1e-7:
        assert not out.columns and out.rc_outside >= cutoff - 1e-7


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), D=st.integers(1, 3), light=st.booleans(), cutoff=st.floats(-0.3, 0.0),
       node_limit=st.sampled_from([None, 1, 3]))
@example(seed=74, D=1, light=False, cutoff=0.0, node_limit=None)  # regression: the excluded clause's rc < 0
@example(seed=3899, D=2, light=False, cutoff=0.0, node_limit=None)  # the optimum dominated by the excluded clause
def test_bnb_pricer_returns_columns_below_the_cutoff_or_proves_none_exists(seed, D, light, cutoff, node_limit):
    """The branch-and-bound pricer: several columns per call, a bound on every other clause
    (also when a limit stops it; a clock that ticks once per node stands for the limit)."""
    X, y, r, a, b, cutoff = _pricing_instance(seed, light, cutoff)
    best = min_reduced_cost(X, r, a, b, D, exclude=[(0,)])
    clock = None
    if node_limit is not None:
        ticks = iter(range(10**6))
        clock = lambda: float(next(ticks))  # noqa: E731  (one reading at the start, one per node)
    pricer = CG.BnbPricing(X, y, max_literals=D, max_columns=3, exclude=[(0,)],
                           time_limit=float(node_limit) if node_limit else 10.0, clock=clock)
    out = pricer.price(r, a, b, rc_tol=1e-9, cutoff=cutoff)
    assert out.exact and out.method == ("enum" if D <= MAX_ENUMERATION_LITERALS else "bnb")
    assert out.rc_outside <= best + 1e-12                     # a valid bound, limit or not
    assert len(out.columns) <= 3
    for c, v in zip(out.columns, out.reduced_costs):
        assert c != (0,) and v < cutoff
        assert v == pytest.approx(F.reduced_costs(cover_of(X, [c]), [len(c)], r, a, b)[0], abs=1e-12)
    if not out.timed_out:
        rc_excluded = F.reduced_costs(cover_of(X, [(0,)]), [1], r, a, b)[0]
        if best < cutoff - 1e-12 and rc_excluded > best + 1e-12:
            assert out.columns and out.reduced_costs[0] == pytest.approx(best, abs=1e-12)
        elif best < cutoff - 1e-12:
            # the best clause may be dominated by the excluded one (same negatives, fewer
            # literals): the search returns the best clauses up to dominance; in column
            # generation the excluded clauses are master columns, which price >= 0 at the
            # LP optimum, so what they dominate prices >= 0 too (clause_bnb's docstring)
            assert rc_excluded <= best + 1e-12 and out.rc_outside <= best + 1e-12
        else:
            # the bound also covers the excluded (master) clause, whose reduced cost these random
            # duals may make negative (at a master optimum it is not): clause_bnb's docstring
            assert not out.columns and out.rc_outside >= min(cutoff, rc_excluded, -1e-9) - 1e-12


def test_bnb_pricing_needs_no_milp_solver():
    X, y = tiny(5)
    spec = SPECS["light"]
    res = CG.column_generation(X, y, spec, pricing="bnb", pricing_solver="ortools_glop", max_literals=2, tol=1e-6)
    assert res.proven and res.restricted_lp == pytest.approx(full_lp(X, y, spec, 2), abs=1e-7)


# ----------------------------------------------------------------------------- limits never crash
class StepClock:
    """A clock that advances one second per reading: the loop's decisions follow its readings only."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


@pytest.mark.parametrize("limit", [0.5, 1.5, 2.5, 3.5, 5.5, 8.5, 12.5, 20.5])
@pytest.mark.parametrize("light", [True, False])
def test_time_limit_at_every_point_of_the_loop_returns_an_integer_solution(limit, light):
    X, y = tiny(4, n=40, J=8)
    spec = (F.MasterSpec(form="light", lambda0=0.001, lambda1=0.001, n_samples=40) if light
            else F.MasterSpec(form="constraint", C=6, n_samples=40))
    res = CG.column_generation(X, y, spec, pricing="beam", max_literals=3, columns_per_iter=2,
                               time_limit=limit, clock=StepClock())
    assert res.stop_reason in ("time_limit", "heuristic_pricing_exhausted", "proven_optimal")
    seen = res.history[-1]["n_columns"] if res.history else 0
    assert len(res.clauses) == seen                         # the columns the last LP saw
    assert res.lower_bound <= res.objective + 1e-9 and res.lower_bound <= full_lp(X, y, spec, 3) + 1e-9
    nl = [len(c) for c in res.clauses]
    assert res.objective == pytest.approx(F.master_objective(res.selected, res.cover, y, nl, spec), abs=1e-9)
    assert res.status in ("heuristic", "optimal") and (res.status != "optimal" or res.gap <= res.tol)


def test_regression_lp_that_times_out_keeps_the_last_solved_lp(monkeypatch):
    """The third LP solve returns no solution (time limit): the integer master uses the columns of the second."""
    X, y = tiny(4, n=40, J=8)
    spec = F.MasterSpec(form="light", lambda0=0.001, lambda1=0.001, n_samples=40)
    orig = CG.RestrictedMaster.solve
    calls = {"n": 0}

    def solve_or_time_out(self, time_limit):
        calls["n"] += 1
        if calls["n"] == 3:
            res = SolveResult(status=SolveStatus.TIME_LIMIT, message="time limit reached")
            self.last_failed = res
            return None
        return orig(self, time_limit)

    monkeypatch.setattr(CG.RestrictedMaster, "solve", solve_or_time_out)
    res = CG.column_generation(X, y, spec, pricing="beam", max_literals=3, columns_per_iter=2, time_limit=1e6)
    assert res.stop_reason == "time_limit" and len(res.history) == 2
    assert len(res.clauses) == res.history[-1]["n_columns"]
    assert res.objective == pytest.approx(
        F.master_objective(res.selected, res.cover, y, [len(c) for c in res.clauses], spec), abs=1e-12)


def test_estimator_warns_when_time_runs_out_before_any_rule(monkeypatch):
    X, y = tiny(4, n=40, J=8)
    Xi = X.astype(int)
    est = BRCGClassifier(binarizer="passthrough", time_limit=1e-9, max_literals=3)
    with pytest.warns(RuntimeWarning, match="empty for lack of time"):
        est.fit(Xi, y)
    assert est.stop_reason_ == "time_limit" and est.rules_.n_rules == 0
    assert est.status_ != "optimal" and est.lower_bound_ <= est.objective_
    assert est.objective_ == pytest.approx(F.master_objective([], np.zeros((40, 0)), y, [], est._spec(40)))


def test_iteration_limit_is_reported():
    X, y = tiny(2, n=30, J=8)
    spec = F.MasterSpec(form="light", lambda0=0.001, lambda1=0.001, n_samples=30)
    res = CG.column_generation(X, y, spec, pricing="beam", max_literals=3, max_iter=1, columns_per_iter=1)
    assert res.stop_reason == "iteration_limit" and not res.proven
    assert len(res.history) == 2


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, match", [
    (dict(time_limit=0), "time_limit"),
    (dict(time_limit=-1.0), "time_limit"),
    (dict(time_limit="10"), "time_limit"),
    (dict(tol=0.0), "tol"),
    (dict(tol=1.0), "tol"),
    (dict(tol=-0.1), "tol"),
])
def test_bad_limits_and_tolerances_are_clear_errors(kwargs, match):
    X, y = tiny(0)
    with pytest.raises(InputError, match=match):
        CG.column_generation(X, y, SPECS["C"], **kwargs)
    with pytest.raises(InputError, match=match):
        BRCGClassifier(binarizer="passthrough", **kwargs).fit(X.astype(int), y)


def test_exact_pricing_needs_a_milp_solver_and_the_master_needs_duals():
    pytest.importorskip("ortools")
    X, y = tiny(0)
    with pytest.raises(SolverError, match="MILP"):
        CG.column_generation(X, y, SPECS["C"], pricing="beam+milp", pricing_solver="ortools_glop")
    with pytest.raises(InputError, match="ortools_glop.*MILP"):
        BRCGClassifier(binarizer="passthrough", pricing="milp", pricing_solver="ortools_glop").fit(X.astype(int), y)
    with pytest.raises(SolverError, match="duals"):
        CG.column_generation(X, y, SPECS["C"], solver="ortools_cpsat")


def test_merged_rows_give_the_same_answer_as_the_copies():
    """Equal rows are one weighted row in master and pricing: the LP value, the bound and the rule set
    are those of the unmerged problem (checked by duplicating every sample)."""
    X, y = tiny(9, n=12, J=5)
    spec = F.MasterSpec(form="constraint", C=5, n_samples=12)
    spec2 = F.MasterSpec(form="constraint", C=5, n_samples=24)
    one = CG.column_generation(X, y, spec, pricing="milp", max_literals=2, tol=1e-6)
    two = CG.column_generation(np.vstack([X, X]), np.concatenate([y, y]), spec2, pricing="milp", max_literals=2,
                               tol=1e-6)
    assert two.restricted_lp == pytest.approx(2 * one.restricted_lp, abs=1e-7)
    assert two.objective == pytest.approx(2 * one.objective, abs=1e-7)
    assert two.proven and one.proven


def test_grounding_large_penalty_keeps_U_and_is_exact():
    X, y = tiny(3, n=10, J=4)
    U = [(0, 1), (2,)]
    spec = F.MasterSpec(form="constraint", C=6, c_u=10.0, n_samples=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = CG.column_generation(X, y, spec, pricing="milp", max_literals=2, initial_clauses=U, grounding=[0, 1],
                                   tol=1e-6)
    assert set(U) <= {res.clauses[k] for k in res.selected}
    assert res.proven
    assert res.lower_bound <= full_lp(X, y, spec, 2, grounding_clauses=U) + 1e-9
    assert res.objective == pytest.approx(brute_force_ip(X, y, spec, 2, grounding_clauses=U), abs=1e-7)


@pytest.mark.parametrize("form", ["constraint", "light"])
def test_grounded_lp_value_includes_the_penalty_constant(form):
    """Regression: the restricted LP of BRCG+ lacked the constant ``g |U|`` of eq. (5), so with
    c_u > 0 its value was below the Lagrangian bound and the first LP counted as "proven": no
    column was ever priced. With a poor grounding rule and a small penalty, column generation must
    price better clauses, and its proven LP value is the LP over every clause."""
    X, y = tiny(5, n=14, J=5)
    U = [(0, 1, 2)]
    if form == "constraint":
        spec = F.MasterSpec(form="constraint", C=6, c_u=0.05, n_samples=14)
    else:
        spec = F.MasterSpec(form="light", lambda0=0.01, lambda1=0.01, c_u=0.05, n_samples=14)
    res = CG.column_generation(X, y, spec, pricing="milp", max_literals=2, initial_clauses=U, grounding=[0],
                               tol=1e-6)
    assert len(res.clauses) > len(U)
    assert res.proven
    ref = full_lp(X, y, spec, 2, grounding_clauses=U)
    assert res.restricted_lp == pytest.approx(ref, abs=1e-6)
    assert res.lower_bound <= ref + 1e-9
    assert res.objective == pytest.approx(brute_force_ip(X, y, spec, 2, grounding_clauses=U), abs=1e-7)


def test_is_grounded_reads_the_initial_masters_grounding_columns():
    """One flag, read from the initial master: grounding columns are added there only."""
    X, y = tiny(5, n=14, J=5)
    spec = F.MasterSpec(form="light", lambda0=0.01, lambda1=0.01, c_u=0.05, n_samples=14)
    X, yu, wu, _ = F.unique_rows(X.astype(bool), y.astype(np.int8))
    U = [(0, 1, 2), (3,)]
    grounded = CG._initial_master(X, yu, wu, spec, "highs", None, U, [0], "singletons")
    assert CG._is_grounded(grounded) and grounded.grounded[:2] == [True, False]
    grounded.add([(1, 4)])
    assert CG._is_grounded(grounded)
    assert not CG._is_grounded(CG._initial_master(X, yu, wu, spec, "highs", None, U, [], "singletons"))


def test_grounded_light_bound_is_not_lifted_by_the_ungrounded_floor():
    """The light form's floor (whole errors, clause and literal counts) holds without grounding only:
    with a grounding column, the integer bound is the LP bound itself."""
    X, y = tiny(5, n=14, J=5)
    spec = F.MasterSpec(form="light", lambda0=0.02, lambda1=0.02, c_u=0.05, n_samples=14)
    res = CG.column_generation(X, y, spec, pricing="milp", max_literals=2, initial_clauses=[(0, 1, 2)],
                               grounding=[0], tol=1e-6)
    assert F.light_objective_floor(spec, res.lower_bound, max_literals=2) > res.lower_bound + 1e-3
    assert res.integer_bound == float(res.lower_bound)


# ----------------------------------------------------------------------------- the master and the backends
def test_incremental_master_matches_the_pyomo_master_over_the_final_columns():
    """The loop's LP (built as arrays, columns appended) and the Pyomo master over the same columns
    agree on the objective, and the loop's duals are optimal duals of the Pyomo master."""
    X, y = tiny(11, n=30, J=6)
    spec = F.MasterSpec(form="constraint", C=6, n_samples=30)
    res = CG.column_generation(X, y, spec, pricing="beam", max_literals=3, beam_width=4)
    nl = [len(c) for c in res.clauses]
    m = F.build_master(res.cover, y, nl, spec, relax=True)
    solve(m, "highs", duals=True).raise_for_status()
    ref = F.extract_master(m)
    assert res.restricted_lp == pytest.approx(ref.objective, abs=1e-7)
    mu, lam = res.lp_duals
    w = res.lp_solution[int(y.sum()):]
    r, a, b = F.pricing_weights(y, mu, lam, spec)
    rc = F.reduced_costs(res.cover, nl, r, a, b)
    assert (rc >= -1e-7).all()
    assert (np.abs(rc[w > 1e-7]) <= 1e-6).all()
    assert mu.sum() - lam * spec.C == pytest.approx(ref.objective, abs=1e-6)


def test_master_is_built_once_and_grows_by_columns(monkeypatch):
    calls = {"init": 0, "add": []}
    orig_init, orig_add = CG.RestrictedMaster.__init__, CG.RestrictedMaster.add

    def init_spy(self, *a, **k):
        calls["init"] += 1
        orig_init(self, *a, **k)

    def add_spy(self, clauses, grounded=False):
        calls["add"].append(len(clauses))
        return orig_add(self, clauses, grounded)

    monkeypatch.setattr(CG.RestrictedMaster, "__init__", init_spy)
    monkeypatch.setattr(CG.RestrictedMaster, "add", add_spy)
    X, y = tiny(11, n=40, J=8)
    spec = F.MasterSpec(form="constraint", C=6, n_samples=40)
    res = CG.column_generation(X, y, spec, pricing="beam", max_literals=3, beam_width=4, columns_per_iter=5)
    assert calls["init"] == 1
    added = [h["n_added"] for h in res.history if h.get("n_added")]
    assert max(added) > 1 and sum(added) == len(res.clauses)


@pytest.mark.parametrize("lp_solver", ["ortools_glop"])
def test_solver_swap_gives_the_same_certificate(lp_solver):
    pytest.importorskip("ortools")
    X, y = tiny(5, n=14, J=5)
    spec = F.MasterSpec(form="constraint", C=5, n_samples=14)
    a = CG.column_generation(X, y, spec, pricing="milp", max_literals=2, solver="highs", tol=1e-6)
    b = CG.column_generation(X, y, spec, pricing="milp", max_literals=2, solver=lp_solver,
                             pricing_solver="ortools_scip", mip_solver="ortools_scip", tol=1e-6)
    assert a.proven and b.proven
    assert a.restricted_lp == pytest.approx(b.restricted_lp, abs=1e-6)
    assert a.lower_bound == pytest.approx(b.lower_bound, abs=1e-6)
    assert a.objective == pytest.approx(b.objective, abs=1e-6)


def test_pricing_through_a_pyomo_solver_matches_the_direct_path():
    X, y = tiny(8, n=12, J=5)
    spec = F.MasterSpec(form="light", lambda0=0.02, lambda1=0.01, n_samples=12)
    a = CG.column_generation(X, y, spec, pricing="milp", max_literals=2, pricing_solver="highs", tol=1e-6)
    b = CG.column_generation(X, y, spec, pricing="milp", max_literals=2, pricing_solver="appsi_highs",
                             mip_solver="highs_direct", tol=1e-6)
    assert a.proven and b.proven
    assert a.restricted_lp == pytest.approx(b.restricted_lp, abs=1e-7)
    assert a.objective == pytest.approx(b.objective, abs=1e-7)


def test_beam_then_milp_proves_what_the_beam_alone_cannot():
    X, y = tiny(3, n=30, J=8)
    spec = F.MasterSpec(form="light", lambda0=0.001, lambda1=0.001, n_samples=30)
    res = CG.column_generation(X, y, spec, pricing="beam+milp", max_literals=3, beam_width=3)
    assert res.proven and res.stop_reason == "proven_optimal"
    assert any(h.get("pricing") == "beam+milp" for h in res.history)
    assert res.lower_bound == pytest.approx(full_lp(X, y, spec, 3), rel=res.tol)


def test_integer_master_highs_options_are_defaults_the_users_settings_override():
    from interpretopt.methods._colgen import _master_mip_settings
    from interpretopt.solvers import SolveSettings

    assert _master_mip_settings(SolveSettings(), "highs").options["highs"]["mip_heuristic_run_rins"] is False
    flat = _master_mip_settings(SolveSettings(options={"mip_heuristic_run_rins": True}), "highs").options
    assert flat["mip_heuristic_run_rins"] is True and "mip_heuristic_run_rins" not in flat["highs"]
    scoped = _master_mip_settings(SolveSettings(options={"highs": {"mip_heuristic_run_rens": True}}), "highs")
    assert scoped.options["highs"]["mip_heuristic_run_rens"] is True
    assert _master_mip_settings(SolveSettings(), "cbc").options == {}


def _master_instance(seed: int, light: bool, grounded_k: int):
    """Ten clauses of at most 2 literals over a tiny instance, one of them grounding when ``grounded_k >= 0``."""
    X, y = tiny(seed, n=10, J=4)
    clauses = all_clauses(4, 2)[:10]
    cov = cover_of(X, clauses)
    nl = np.array([len(c) for c in clauses], dtype=float)
    grounded = np.zeros(len(clauses), bool)
    c_u = 0.0
    if grounded_k >= 0:
        grounded[grounded_k], c_u = True, 0.05
    spec = (F.MasterSpec(form="light", lambda0=0.02, lambda1=0.01, c_u=c_u, n_samples=10) if light
            else F.MasterSpec(form="constraint", C=4, c_u=c_u, n_samples=10))
    return X, y, clauses, cov, nl, grounded, spec


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), light=st.booleans(), grounded_k=st.integers(-1, 9))
def test_integer_master_without_dominated_columns_reaches_the_brute_force_optimum(seed, light, grounded_k):
    X, y, clauses, cov, nl, grounded, spec = _master_instance(seed, light, grounded_k)
    truth = brute_force_master(X, y, clauses, spec, grounding=np.flatnonzero(grounded))
    w_lp = np.random.default_rng(seed).random(len(clauses))  # any start: it is only a start
    rng = np.random.default_rng(seed)
    # reduced-cost fixing at any multipliers in [0, s] (here random ones) keeps the optimum
    duals = (rng.random(int(y.sum())) * spec.loss_scale, float(rng.random()))
    for work, dual in [(CG.IntegerMaster.max_dominance_work, None), (0.0, None), (0.0, duals)]:
        im = CG.IntegerMaster(y.astype(np.int8), np.ones(len(y)), spec)
        im.max_dominance_work = work
        sol = im.solve(cov, nl, grounded, w_lp, None, duals=dual)
        assert sol.objective == pytest.approx(truth, abs=1e-9)
        assert F.master_objective(sol.selected, cov, y, nl, spec, grounding=np.flatnonzero(grounded)) == \
            pytest.approx(sol.objective, abs=1e-12)
        assert 0 <= sol.n_fixed <= len(clauses) and (dual is not None or sol.n_fixed == 0)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), light=st.booleans(), grounded_k=st.integers(-1, 9))
def test_integer_master_starts_from_a_local_optimum_never_worse_than_the_rounding(seed, light, grounded_k):
    """With no solver answer (a solver stopped before its first incumbent) the integer master
    returns the best of the empty set, the rounded LP and the local search from each: never
    worse than those, and no single add, remove or swap improves it."""
    X, y, clauses, cov, nl, grounded, spec = _master_instance(seed, light, grounded_k)
    w_lp = np.random.default_rng(seed).random(len(clauses))
    im = CG.IntegerMaster(y.astype(np.int8), np.ones(len(y)), spec)
    im._solve_columns = lambda *a, **k: (None, None)
    sol = im.solve(cov, nl, grounded, w_lp, None)

    def obj(sel):
        return F.master_objective(sorted(sel), cov, y, nl, spec, grounding=np.flatnonzero(grounded))

    rounding = np.flatnonzero(im._rounding(w_lp, nl) > 0.5)
    assert sol.objective == pytest.approx(obj(sol.selected), abs=1e-12)
    assert sol.objective <= min(obj([]), obj(rounding)) + 1e-12
    sel, q = set(sol.selected.tolist()), spec.clause_complexity(nl)
    swaps = [(sel - {j}) | {k} for j in sel for k in set(range(len(clauses))) - sel]
    for nb in [sel ^ {k} for k in range(len(clauses))] + swaps:
        if light or q[sorted(nb)].sum() <= spec.C + 1e-9:
            assert obj(nb) >= sol.objective - 1e-12


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_estimator_bounds_are_consistent_and_valid_in_the_counting_form(seed):
    """Constraint form, beam pricing: ``lower_bound_`` is the LP bound rounded up to whole samples,
    never above the brute-force optimum; ``gap_`` and ``status_`` are taken against it."""
    X, y = tiny(seed)
    est = BRCGClassifier(binarizer="passthrough", form="constraint", C=4, complexity="literals+1", pricing="beam",
                         max_literals=2).fit(X.astype(int), y)
    spec = est._spec(10)
    # rounding up forgives 1e-9 of float noise in the LP bound
    assert est.lp_lower_bound_ - 1e-9 <= est.lower_bound_ <= brute_force_ip(X, y, spec, 2) + 1e-9
    assert est.lower_bound_ == np.ceil(est.lp_lower_bound_ - 1e-9 * max(1.0, abs(est.lp_lower_bound_)))
    assert est.gap_ == pytest.approx(CG.relative_gap(est.objective_, est.lower_bound_), abs=1e-12)
    assert (est.status_ == "optimal") == (est.gap_ <= est.tol)
    if est.proven_:
        assert est.lp_lower_bound_ == pytest.approx(est.restricted_lp_, rel=est.tol, abs=1e-9)


def test_numpy_scalars_are_accepted_as_limits_and_tolerances():
    X, y = tiny(3, n=30, J=6)
    spec = F.MasterSpec(form="light", lambda0=0.001, lambda1=0.001, n_samples=30)
    res = CG.column_generation(X, y, spec, pricing="beam", max_literals=2, time_limit=np.int64(60),
                               tol=np.float32(1e-3))
    assert res.stop_reason in CG.STOP_REASONS
    assert SolveSettings(time_limit=np.float32(2.0), mip_gap=np.float32(0.01)).time_limit == 2.0


# ----------------------------------------------------------------------------- the loop's named parts
class ZeroFirst(CG.MasterDuals):
    """A dual policy whose first point (all duals 0) prices nothing out at the master's duals: every round
    with a column is a mispricing first."""

    name = "zero-first"

    def __init__(self) -> None:
        self.n_points = 0

    def points(self, mu, lam):
        self.n_points += 1
        yield CG.DualPoint(np.zeros_like(mu), 0.0, 0.5)
        yield CG.DualPoint(mu, lam, 0.0)


@pytest.mark.parametrize("policy", ["wentges", "neame", "zero"])
@pytest.mark.parametrize("seed", [0, 3])
def test_dual_policies_prove_the_same_lp_with_valid_bounds(policy, seed):
    """With exact pricing every policy ends at the LP over all clauses, and each bound it reports is valid."""
    X, y = tiny(seed, n=30, J=6)
    spec = F.MasterSpec(form="light", lambda0=0.01, lambda1=0.005, n_samples=30)
    pol = ZeroFirst() if policy == "zero" else policy
    res = CG.column_generation(X, y, spec, pricing="bnb", max_literals=2, tol=1e-6, dual_policy=pol)
    lp = full_lp(X, y, spec, 2)
    assert res.proven and res.restricted_lp == pytest.approx(lp, abs=1e-7)
    assert all(h["lower_bound"] <= lp + 1e-7 for h in res.history)
    if policy == "zero":
        assert res.work["pricing_calls"] > len(res.history) - 1  # mispricings were recovered
        assert res.dual_policy == "zero-first"


def test_smoothed_points_are_convex_combinations_ending_at_the_master_duals():
    pol = CG.WentgesSmoothing(alpha=0.75)
    mu, lam = np.array([1.0, 0.0]), 2.0
    assert [p.alpha for p in pol.points(mu, lam)] == [0.0]      # no center yet: the master's duals
    pol.evaluated(CG.DualPoint(np.array([0.0, 1.0]), 0.0), 0.5)
    pts = list(pol.points(mu, lam))
    assert [p.alpha for p in pts] == [0.75, 0.5, 0.25, 0.0]
    assert np.allclose(pts[0].mu, [0.25, 0.75]) and pts[0].lam == pytest.approx(0.5)
    pol.evaluated(CG.DualPoint(mu, lam), 0.1)                  # a worse bound does not move the center
    assert np.allclose(list(pol.points(mu, lam))[0].mu, [0.25, 0.75])
    with pytest.raises(InputError, match="alpha"):
        CG.WentgesSmoothing(alpha=1.0)
    with pytest.raises(InputError, match="dual_policy"):
        CG.column_generation(*tiny(0, n=20, J=4), SPECS["light"], dual_policy="bogus")


def test_pricing_node_limit_stops_the_loop_as_a_work_limit():
    """One node per exact call: the branch and bound stops without a column, the stop says so, and no
    wall-clock limit was involved."""
    X, y = tiny(2, n=40, J=8)
    spec = F.MasterSpec(form="light", lambda0=0.001, lambda1=0.001, n_samples=40)
    res = CG.column_generation(X, y, spec, pricing="bnb", max_literals=3, pricing_node_limit=1)
    assert res.stop_reason == "pricing_work_limit" and not res.proven and not res.limited_by_time
    assert res.work["bnb_nodes"] == res.work["pricing_calls"]
    assert res.lower_bound <= full_lp(X, y, spec, 3) + 1e-9


@pytest.mark.parametrize("kw", [{"pricing_node_limit": 0}, {"mip_node_limit": 1.5}, {"pricing_node_limit": True}])
def test_work_limits_must_be_positive_integers(kw):
    with pytest.raises(InputError, match="work limit"):
        CG.column_generation(*tiny(0, n=20, J=4), SPECS["light"], **kw)


# ----------------------------------------------------------------------------- the exact phase before the beam
@pytest.mark.parametrize("seed", [0, 1, 4, 7])
@pytest.mark.parametrize("light", [True, False])
def test_exact_phase_then_beam_is_never_worse_than_exact_pricing_at_its_depth(seed, light):
    """The phase generates the columns exact pricing at depth 2 would, then the beam adds more: the integer
    master over the larger set is no worse; its bound over clauses of up to 2 literals is valid."""
    X, y = tiny(seed, n=40, J=7)
    spec = (F.MasterSpec(form="light", lambda0=0.01, lambda1=0.005, n_samples=40) if light
            else F.MasterSpec(form="constraint", C=5, n_samples=40))
    exact = CG.column_generation(X, y, spec, pricing="beam+bnb", max_literals=2, tol=1e-6)
    phased = CG.column_generation(X, y, spec, pricing="beam", max_literals=4, tol=1e-6, exact_phase_literals=2,
                                  exact_phase_work=1e12)
    assert set(exact.clauses) <= set(phased.clauses)
    assert phased.objective <= exact.objective + 1e-9
    assert phased.space_literals == 2 and phased.space_complete
    lp2 = full_lp(X, y, spec, 2)
    assert phased.space_bound <= lp2 + 1e-7 and phased.space_bound >= lp2 - 1e-4 * abs(lp2) - 1e-9
    assert phased.lower_bound <= full_lp(X, y, spec, 4) + 1e-7 and phased.lower_bound <= phased.space_bound


def test_exact_phase_budget_is_a_work_limit_and_its_bound_stays_valid():
    """A budget of one root expansion (rows x literals row-literal pairs): the phase stops at once, by work."""
    X, y = tiny(3, n=40, J=8)
    spec = F.MasterSpec(form="light", lambda0=0.002, lambda1=0.001, n_samples=40)
    res = CG.column_generation(X, y, spec, pricing="beam", max_literals=4, exact_phase_literals=3,
                               exact_phase_work=1.0)
    assert res.work["bnb_nodes"] == 1 and not res.space_complete and not res.limited_by_time
    assert res.space_bound <= full_lp(X, y, spec, 3) + 1e-7


def test_exact_phase_over_the_whole_space_proves_like_exact_pricing():
    X, y = tiny(2, n=30, J=6)
    spec = F.MasterSpec(form="light", lambda0=0.01, lambda1=0.005, n_samples=30)
    res = CG.column_generation(X, y, spec, pricing="beam", max_literals=2, tol=1e-6, exact_phase_literals=3,
                               exact_phase_work=1e12)
    assert res.proven and res.restricted_lp == pytest.approx(full_lp(X, y, spec, 2), abs=1e-7)
