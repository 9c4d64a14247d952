"""BRCG master and pricing formulations: the program, its Pyomo model, brute force on tiny instances."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.exceptions import InputError
from interpretopt.formulations import brcg as F
from interpretopt.solvers import SolveSettings, solve, solve_lp
from tests.instances import all_clauses, brute_force_master, cover_of, tiny


def solve_program(lp, solver="highs"):
    """The program through the direct (incremental) path, objective with its constant."""
    res = solve_lp(lp, solver, SolveSettings(), duals=not lp.is_mip)
    return res, float(res.objective)


SPECS = [
    F.MasterSpec(form="constraint", C=4, n_samples=10),
    F.MasterSpec(form="constraint", C=3, complexity="literals", n_samples=10),
    F.MasterSpec(form="light", lambda0=0.02, lambda1=0.01, n_samples=10),
]


@pytest.mark.parametrize("spec", SPECS, ids=["C", "C_literals", "light"])
@pytest.mark.parametrize("relax", [True, False], ids=["lp", "ip"])
def test_master_program_and_its_pyomo_model_solve_alike(spec, relax):
    X, y = tiny(1)
    clauses = all_clauses(4, 2)
    cov = cover_of(X, clauses)
    nl = [len(c) for c in clauses]
    m = F.build_master(cov, y, nl, spec, grounding=[0, 3], relax=relax)
    res = solve(m, "highs", duals=relax)
    assert res.status.value == "optimal"
    sol = F.extract_master(m)
    lp = F.master_lp(cov, y, nl, spec, grounding=[0, 3], relax=relax)
    res2, obj2 = solve_program(lp)
    assert sol.objective == pytest.approx(obj2, abs=1e-7)
    if relax:
        # both dual vectors are optimal duals of the same LP (they may differ where the LP is degenerate)
        lam2 = -res2.duals[lp.rows("complexity")][0] if spec.form == "constraint" else 0.0
        for mu, lam in [(sol.mu, sol.lam), (res2.duals[lp.rows("cover")], lam2)]:
            assert_optimal_duals(cov, y, nl, spec, [0, 3], sol.w, sol.xi, mu, lam)


def assert_optimal_duals(cov, y, nl, spec, grounding, w, xi, mu, lam, tol=1e-7):
    """Primal-dual optimality certificate of the master LP: dual feasibility and complementary slackness."""
    y = np.asarray(y).astype(bool)
    grounded = np.zeros(cov.shape[1], bool)
    grounded[list(grounding)] = True
    assert (mu >= -tol).all() and (mu <= spec.loss_scale + tol).all() and lam >= -tol
    r, a, b = F.pricing_weights(y.astype(int), mu, lam, spec)
    rc = F.reduced_costs(cov, nl, r, a, b) - spec.grounding_penalty * grounded
    assert (rc[~grounded] >= -tol).all()                      # dual feasible (w >= 0)
    assert (np.abs(rc[w > tol][~grounded[w > tol]]) <= 1e-6).all()   # basic columns price at 0
    assert (rc[grounded & (w < 1 - tol)] >= -tol).all()       # w_u < 1 needs rc >= 0
    slack = xi + cov[y].astype(float) @ w - 1.0
    assert (np.abs(mu[slack > 1e-6]) <= 1e-6).all()           # loose rows have zero duals
    assert (np.abs(mu[xi > tol] - spec.loss_scale) <= 1e-6).all()


def test_fast_path_from_pyomo_gives_same_objective_and_duals():
    """The incremental path translated from the Pyomo master returns the same LP objective and duals."""
    from interpretopt.solvers import IncrementalModel

    X, y = tiny(4, n=14, J=5)
    clauses = all_clauses(5, 2)
    cov = cover_of(X, clauses)
    nl = [len(c) for c in clauses]
    spec = F.MasterSpec(form="constraint", C=5, n_samples=14)
    m = F.build_master(cov, y, nl, spec, relax=True)
    inc = IncrementalModel.from_pyomo(m, "highs")
    res = inc.solve(SolveSettings())
    inc.load_solution(res)
    fast = F.extract_master(m)
    m2 = F.build_master(cov, y, nl, spec, relax=True)
    solve(m2, "highs_direct", duals=True).raise_for_status()
    ref = F.extract_master(m2)
    assert fast.objective == pytest.approx(ref.objective, abs=1e-9)
    assert np.allclose(fast.mu, ref.mu, atol=1e-9) and fast.lam == pytest.approx(ref.lam, abs=1e-9)
    assert_optimal_duals(cov, y, nl, spec, [], ref.w, ref.xi, ref.mu, ref.lam)


@pytest.mark.parametrize("spec", SPECS, ids=["C", "C_literals", "light"])
@pytest.mark.parametrize("seed", [0, 2])
def test_integer_master_matches_brute_force(spec, seed):
    X, y = tiny(seed)
    clauses = all_clauses(4, 2)
    cov = cover_of(X, clauses)
    nl = [len(c) for c in clauses]
    m = F.build_master(cov, y, nl, spec, relax=False)
    solve(m, "highs").raise_for_status()
    ip = F.extract_master(m).objective
    assert ip == pytest.approx(brute_force_master(X, y, clauses, spec), abs=1e-7)
    lp_model = F.build_master(cov, y, nl, spec, relax=True)
    solve(lp_model, "highs", duals=True).raise_for_status()
    assert F.extract_master(lp_model).objective <= ip + 1e-9


def _ten_clauses(seed: int, which: int, grounded_k: int):
    """A tiny master: ten clauses of up to 2 literals on 8 rows, clause ``grounded_k`` grounded (none: -1)."""
    spec = SPECS[which]
    X, y = tiny(seed, n=8, J=4)
    clauses = all_clauses(4, 2)[:10]
    cov = cover_of(X, clauses)
    nl = np.array([len(c) for c in clauses])
    grounded = np.zeros(len(clauses), bool)
    if grounded_k >= 0:
        grounded[grounded_k] = True
        spec = F.MasterSpec(**{**spec.__dict__, "c_u": 0.05})
    return spec, X, y, clauses, cov, nl, grounded


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), which=st.sampled_from([0, 1, 2]), grounded_k=st.integers(-1, 9))
def test_dominated_columns_leave_the_integer_optimum_unchanged(seed, which, grounded_k):
    spec, X, y, clauses, cov, nl, grounded = _ten_clauses(seed, which, grounded_k)
    dom = F.dominated_columns(cov, y, nl, grounded=grounded)
    keep = np.flatnonzero(dom < 0)
    assert grounded[dom >= 0].sum() == 0  # grounding columns are never dropped
    yb = y.astype(bool)
    for k in np.flatnonzero(dom >= 0):
        k2 = dom[k]
        assert k2 in keep and nl[k2] <= nl[k]
        assert not (cov[yb, k] & ~cov[yb, k2]).any() and not (cov[~yb, k2] & ~cov[~yb, k]).any()
    g_all = np.flatnonzero(grounded)
    full = brute_force_master(X, y, clauses, spec, grounding=g_all)
    kept = brute_force_master(X, y, [clauses[k] for k in keep], spec,
                              grounding=np.flatnonzero(grounded[keep]))
    assert kept == pytest.approx(full, abs=1e-9)


def test_dominated_columns_on_equal_columns_keep_the_first_or_the_grounding_one():
    cov = np.array([[1, 1, 1], [0, 0, 0], [1, 1, 0]], bool)  # columns 0 and 1 equal, 2 covers less
    y = np.array([1, 0, 1])
    assert F.dominated_columns(cov, y, [1, 1, 1]).tolist() == [-1, 0, 0]
    assert F.dominated_columns(cov, y, [1, 1, 1], grounded=[False, True, False]).tolist() == [1, -1, 1]
    # a longer clause never dominates a shorter one
    assert F.dominated_columns(cov, y, [2, 2, 1]).tolist() == [-1, 0, -1]


def test_grounding_penalty_in_objective():
    X, y = tiny(3)
    clauses = all_clauses(4, 2)
    cov = cover_of(X, clauses)
    nl = [len(c) for c in clauses]
    spec = F.MasterSpec(form="constraint", C=6, c_u=0.5, n_samples=10)
    # dropping grounding clause 2 costs c_u * n = 5 Hamming units
    base = F.master_objective([], cov, y, nl, F.MasterSpec(form="constraint", C=6, n_samples=10))
    assert F.master_objective([], cov, y, nl, spec, grounding=[2]) == pytest.approx(base + 5.0)
    m = F.build_master(cov, y, nl, spec, grounding=[2], relax=False)
    solve(m, "highs").raise_for_status()
    ip = F.extract_master(m).objective
    assert ip == pytest.approx(brute_force_master(X, y, clauses, spec, grounding=[2]), abs=1e-7)


@pytest.mark.parametrize("spec", SPECS, ids=["C", "C_literals", "light"])
def test_column_costs_are_the_master_objective_of_the_clause_columns(spec):
    X, y = tiny(3)
    clauses = all_clauses(4, 2)
    cov = cover_of(X, clauses)
    nl = np.array([len(c) for c in clauses], dtype=float)
    sw = np.random.default_rng(0).uniform(0.5, 2.0, size=len(y))
    grounded = np.zeros(len(clauses), dtype=bool)
    grounded[[1, 4]] = True
    spec = F.MasterSpec(**{**spec.__dict__, "c_u": 0.05})
    costs = F.column_costs(cov, y, nl, spec, grounded=grounded, sample_weight=sw)
    lp = F.master_lp(cov, y, nl, spec, grounding=[1, 4], sample_weight=sw)
    np.testing.assert_allclose(costs, lp.c[lp.cols("w")], rtol=0, atol=1e-12)
    # by hand: the weighted negatives covered, the complexity penalty, less the grounding penalty
    neg = ~y.astype(bool)
    expect = (spec.loss_scale * (sw[neg] @ cov[neg]) + spec.clause_penalty(nl)
              - spec.grounding_penalty * grounded)
    np.testing.assert_allclose(costs, expect, rtol=0, atol=1e-12)


def _light_lattice(spec, D, bound):
    """Every light objective up to just past ``bound`` that a rule set of clauses of 1..D literals can take
    (whole weights), by enumeration."""
    s, l0, l1 = spec.loss_scale, spec.lambda0, spec.lambda1
    e_max = int(np.ceil(bound / s)) + 1
    q_max = int(bound / (l0 + l1)) + 2 if l0 + l1 > 0 else 1
    vals = [s * e for e in range(e_max + 1)]
    vals += [s * e + l0 * q + l1 * L for e in range(e_max + 1) for q in range(1, q_max + 1)
             for L in range(q, D * q + 1)]
    return np.array(sorted(vals))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(5, 400), l0=st.sampled_from([0.0, 0.001, 0.002, 0.005, 0.01]),
       l1=st.sampled_from([0.0, 0.001, 0.003, 0.01]), D=st.integers(1, 4), frac=st.floats(0.0, 0.06))
def test_light_objective_floor_is_the_least_objective_at_or_above_the_bound(n, l0, l1, D, frac):
    spec = F.MasterSpec(form="light", lambda0=l0, lambda1=l1, n_samples=n)
    lattice = _light_lattice(spec, D, float(frac))
    bound = float(frac)
    got = F.light_objective_floor(spec, bound, max_literals=D)
    reachable = lattice[lattice >= bound - 1e-12]
    assert got >= bound - 1e-12   # never below the bound it lifts
    assert got <= reachable[0] + 1e-12   # never above an objective a rule set can take (a valid bound)
    below = lattice[lattice < bound]
    if below.size and bound - below[-1] <= 1e-6 * spec.loss_scale:
        assert got == bound   # within its float slack of an objective below: left as it is (the safe side)
    else:
        assert got == pytest.approx(reachable[0], abs=1e-9)   # else the least objective at or above it


def test_light_objective_floor_on_breast_cancers_lattice_and_its_limits():
    spec = F.MasterSpec(form="light", lambda0=0.001, lambda1=0.001, n_samples=398)
    # 0.0137 (the LP over clauses of up to 3 literals) lifts to 4 clauses of 10 literals with no error
    assert F.light_objective_floor(spec, 0.0137, max_literals=3) == pytest.approx(0.014)
    tiny = F.MasterSpec(form="light", lambda0=1e-9, lambda1=1e-9, n_samples=398)
    assert F.light_objective_floor(tiny, 0.0137, max_literals=3) == 0.0137   # too many (q, L): unchanged
    with pytest.raises(InputError, match="light form"):
        F.light_objective_floor(F.MasterSpec(form="constraint", C=3, n_samples=10), 1.0, max_literals=3)
    with pytest.raises(InputError, match="max_literals"):
        F.light_objective_floor(spec, 0.01, max_literals=0)


def _ranged_lattice(spec, D, top, q, L, E, empty):
    """(objective) of every (q, L, e) in the ranges up to ``top``, the empty rule set at ``empty`` errors."""
    s, l0, l1 = spec.loss_scale, spec.lambda0, spec.lambda1
    hi = lambda r, cap: cap if r[1] is None else min(r[1], cap)   # noqa: E731
    e_max = E[0] + int(np.ceil(top / s)) + 2   # past every point up to top, whatever the ranges' low ends
    q_max = max(q[0], -(-L[0] // D)) + int(top / (l0 + l1)) + 2
    vals = [s * empty] if q[0] <= 0 and L[0] <= 0 and E[0] <= empty <= hi(E, 10**9) else []
    vals += [s * e + l0 * qq + l1 * LL for qq in range(max(1, q[0]), hi(q, q_max) + 1)
             for LL in range(max(qq, L[0]), hi(L, D * qq) + 1) for e in range(E[0], hi(E, e_max) + 1)]
    return np.array(sorted(vals))


_RANGE = st.tuples(st.integers(0, 4), st.one_of(st.none(), st.integers(0, 12)))


@settings(max_examples=80, deadline=None)
@given(n=st.integers(5, 60), l0=st.sampled_from([0.001, 0.005, 0.02]), l1=st.sampled_from([0.0, 0.003, 0.01]),
       D=st.integers(1, 3), frac=st.floats(0.0, 0.3), q=_RANGE, L=_RANGE, E=_RANGE,
       empty=st.one_of(st.none(), st.integers(0, 20)))
def test_light_lattice_floor_and_below_are_the_enumerated_points_of_the_ranges(n, l0, l1, D, frac, q, L, E, empty):
    spec = F.MasterSpec(form="light", lambda0=l0, lambda1=l1, n_samples=n)
    v = float(frac)
    pts = _ranged_lattice(spec, D, v + 0.1, q, L, E, 10**6 if empty is None else empty)
    if empty is None:   # no empty_errors: the empty rule set may have any number of errors
        pts = np.sort(np.concatenate([pts, [spec.loss_scale * e for e in range(E[0], E[0] + int(np.ceil(v * n)) + 3)
                                            if q[0] <= 0 and L[0] <= 0 and (E[1] is None or e <= E[1])]]))
    kw = dict(max_literals=D, clauses=q, literals=L, errors=E, empty_errors=empty)
    got = F.light_lattice_floor(spec, v, **kw)
    up = pts[pts >= v - 1e-6 * spec.loss_scale]
    assert got == (pytest.approx(up[0], abs=1e-12) if up.size else np.inf)
    below = F.light_lattice_below(spec, v, **kw)
    down = pts[pts < v]
    assert below == (pytest.approx(down[-1], abs=1e-12) if down.size else -np.inf)
    # the pruning rule: a bound above below (with slack) proves that nothing in the ranges is under v
    if np.isfinite(below):
        assert F.light_lattice_floor(spec, below + 2e-6 * spec.loss_scale, **kw) >= v - 1e-12


def test_light_lattice_on_breast_cancer_with_the_empty_rule_set():
    """Breast cancer (n = 398, 250 positives): below 0.0153 the largest objective with a clause is 4 errors + 5
    units of complexity (0.01505); without the empty set's own objective 6 errors and no clause (0.015075) would be
    a point too, and a bound past 0.01506 would lift to it instead of to 0.01551."""
    spec = F.MasterSpec(form="light", lambda0=0.001, lambda1=0.001, n_samples=398)
    assert F.light_lattice_below(spec, 0.0153, max_literals=3, empty_errors=250) == pytest.approx(4 / 398 + 0.005)
    assert F.light_lattice_floor(spec, 0.01506, max_literals=3, empty_errors=250) == pytest.approx(1 / 398 + 0.013)
    assert F.light_lattice_floor(spec, 0.01506, max_literals=3) == pytest.approx(6 / 398)
    assert F.light_lattice_floor(spec, 0.0137, max_literals=3) == pytest.approx(0.014)   # light_objective_floor's
    assert F.light_lattice_floor(spec, 0.0137, max_literals=3, clauses=(4, 4), literals=(10, 10),
                                 errors=(1, None)) == pytest.approx(0.014 + 1 / 398)


def enumerate_min_rc(X, r, a, b, D, exclude=()):
    best, arg = np.inf, None
    for c in all_clauses(X.shape[1], D):
        if c in exclude:
            continue
        rc = F.reduced_costs(X[:, list(c)].all(axis=1)[:, None], [len(c)], r, a, b)[0]
        if rc < best:
            best, arg = rc, c
    return best, arg


def random_duals(seed, y):
    rng = np.random.default_rng(seed)
    mu = rng.random(int(y.sum())) * rng.integers(0, 2, int(y.sum())) * 2.0
    return mu, float(rng.random() * 0.5)


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000), D=st.integers(1, 3), light=st.booleans())
def test_pricing_milp_finds_negative_column_when_one_exists(seed, D, light):
    X, y = tiny(seed, n=12, J=5)
    mu, lam = random_duals(seed, y)
    spec = (F.MasterSpec(form="light", lambda0=0.05, lambda1=0.02, n_samples=12) if light
            else F.MasterSpec(form="constraint", C=5, n_samples=12))
    if light:
        mu = mu / 12.0
    r, a, b = F.pricing_weights(y, mu, lam, spec)
    best, _ = enumerate_min_rc(X, r, a, b, D)
    m = F.build_pricing(X, y, r, a, b, D)
    solve(m, "highs").raise_for_status()
    clause = F.extract_pricing(m)
    import pyomo.environ as pyo

    # the aggregated model's optimum is the true minimum reduced cost ...
    assert pyo.value(m.obj) == pytest.approx(best, abs=1e-7)
    # ... and the clause it returns re-prices to it (delta binary on positives)
    rc = F.reduced_costs(X[:, list(clause)].all(axis=1)[:, None], [len(clause)], r, a, b)[0]
    assert rc == pytest.approx(best, abs=1e-7)
    if best < -1e-9:
        assert rc < 0


def test_pricing_program_and_its_pyomo_model_find_the_least_reduced_cost():
    X, y = tiny(5, n=12, J=5)
    mu, lam = random_duals(5, y)
    spec = F.MasterSpec(form="constraint", C=5, n_samples=12)
    r, a, b = F.pricing_weights(y, mu, lam, spec)
    exclude = [(0, 1)]
    best, _ = enumerate_min_rc(X, r, a, b, 2, exclude=exclude)
    lp = F.pricing_lp(X, y, r, a, b, 2, exclude=exclude)
    res, obj = solve_program(lp)
    assert obj == pytest.approx(best, abs=1e-7)
    assert F.pricing_clause(res.x, lp) != (0, 1)
    # new duals on the same structure, with a cutoff below the optimum: no clause qualifies
    res_cut = solve_lp(F.set_pricing_objective(lp, r, a, b, cutoff=best - 1e-3), "highs")
    assert res_cut.status.value == "infeasible"
    m = F.build_pricing(X, y, r, a, b, 2, exclude=exclude)
    solve(m, "highs").raise_for_status()
    import pyomo.environ as pyo

    assert pyo.value(m.obj) == pytest.approx(best, abs=1e-7)
    assert F.extract_pricing(m) != (0, 1)


def test_aggregated_rows_need_binary_delta():
    # with delta continuous on positives the aggregated row lets an uncovered sample count
    X = np.array([[1, 0], [1, 1], [0, 1]], dtype=bool)
    y = np.array([1, 1, 0], dtype=np.int8)
    r = np.array([-1.0, -1.0, 1.0])
    m = F.build_pricing(X, y, r, 0.1, 0.1, 2)
    assert all(m.delta[i].is_binary() for i in m.IP)
    assert not any(m.delta[i].is_binary() for i in m.IZ)


@pytest.mark.parametrize("kwargs", [
    dict(form="constraint"),
    dict(form="constraint", C=0),
    dict(form="constraint", C=-1),
    dict(form="light", lambda0=-0.1),
    dict(form="light", lambda1=float("nan")),
    dict(form="light", c_u=-1),
    dict(form="other"),
    dict(form="light", complexity="clauses"),
])
def test_bad_parameters_are_clear_errors(kwargs):
    with pytest.raises(InputError):
        F.MasterSpec(**kwargs)


def test_non_binary_labels_rejected():
    X, _ = tiny(0)
    with pytest.raises(InputError, match="binary"):
        F.build_master(X[:, :2], np.arange(10) % 3, [1, 1], F.MasterSpec(form="light"))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30))
def test_depth1_bound_class_folds_complements_and_equals_the_function(seed, n):
    """Depth1Bound multiplies the base literals only; the value is depth1_bound's."""
    rng = np.random.default_rng(seed)
    base = rng.random((n, 4)) < 0.5
    X = np.column_stack([base, ~base[:, [2, 0]], base[:, [1]]])
    r = rng.standard_normal(n)
    a, b = float(rng.random()), float(rng.random())
    assert F.Depth1Bound(X)(r, a, b) == pytest.approx(F.depth1_bound(X, r, a, b), abs=1e-12)
    assert F.Depth1Bound(X[:, :0])(r, a, b) == F.depth1_bound(X[:, :0], r, a, b) == np.inf


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), which=st.sampled_from([0, 1, 2]), grounded_k=st.integers(-1, 9),
       at_lp=st.booleans(), inc=st.floats(0.0, 1.0))
def test_reduced_cost_fixing_never_removes_a_column_of_a_selection_better_than_the_incumbent(
        seed, which, grounded_k, at_lp, inc):
    """Eq. (B1) at any multipliers (the LP's duals or random ones in [0, s]): every 0/1 selection of
    objective below the incumbent uses no fixed column, so the integer optimum below it is kept."""
    spec, X, y, clauses, cov, nl, grounded = _ten_clauses(seed, which, grounded_k)
    g = np.flatnonzero(grounded)
    rng = np.random.default_rng(seed)
    yb = y.astype(bool)
    if at_lp:
        lp = F.build_master(cov, y, nl, spec, grounding=g, relax=True)
        solve(lp, "highs", duals=True).raise_for_status()
        sol = F.extract_master(lp)
        mu, lam = sol.mu, sol.lam
    else:
        mu, lam = rng.random(int(yb.sum())) * spec.loss_scale, float(rng.random())
    objs = []
    for mask in range(1 << len(clauses)):
        sel = [k for k in range(len(clauses)) if mask >> k & 1]
        if spec.form == "constraint" and spec.clause_complexity(nl[sel]).sum() > spec.C + 1e-9:
            continue
        objs.append((F.master_objective(sel, cov, y, nl, spec, grounding=g), sel))
    lo, hi = min(o for o, _ in objs), max(o for o, _ in objs)
    incumbent = lo + inc * (hi - lo)
    fixed = F.fixed_by_reduced_cost(spec, y, mu, lam, cov, nl, incumbent=incumbent, grounded=grounded)
    assert not fixed[grounded].any()
    for o, sel in objs:
        if o < incumbent - 1e-12:
            assert not fixed[sel].any()
    if lo < incumbent:   # the optimum over the columns left equals the optimum
        left = min(o for o, sel in objs if not fixed[sel].any())
        assert left == pytest.approx(lo, abs=1e-12)
