"""Every backend on tiny LPs and MILPs with known optima; agreement; statuses; errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

pe = pytest.importorskip("pyomo.environ")

import pytest

from interpretopt.exceptions import InputError, SolverError, UnknownNameError  # noqa: E402
from interpretopt.solvers import (  # noqa: E402
    SOLVERS,
    PyomoFactoryBackend,
    SolveResult,
    SolveSettings,
    SolveStatus,
    available_solvers,
    describe_solvers,
    get_solver,
    solve,
    to_matrix_form,  # noqa: E402
)

def _all_names() -> list[str]:
    """Every registered backend and the Pyomo solvers CI installs: the backends the shared tests cover."""
    return sorted(set(SOLVERS.names()) | {"cbc", "glpk", "appsi_highs"})


ALL_NAMES = _all_names()


def _backend_or_skip(name, integer=None):
    """The backend ``name``; skip when it is not here, or (``integer`` given) does not solve that model class."""
    try:
        backend = get_solver(name)
    except (SolverError, UnknownNameError) as exc:
        pytest.skip(f"solver {name} unavailable here: {exc}")
    caps = backend.capabilities
    if integer is not None and not (caps.milp if integer else caps.lp):
        pytest.skip(f"{name} does not solve this model class")
    return backend


# -- tiny models with known optima ---------------------------------------------------------


def lp_min():
    """min x0 + x1 + 1 s.t. x0 + 2 x1 >= 2, 3 x0 + x1 >= 3: x = (0.8, 0.6), obj 2.4, duals (0.4, 0.2)."""
    m = pe.ConcreteModel()
    m.x = pe.Var([0, 1], bounds=(0, None))
    m.c1 = pe.Constraint(expr=m.x[0] + 2 * m.x[1] >= 2)
    m.c2 = pe.Constraint(expr=3 * m.x[0] + m.x[1] >= 3)
    m.o = pe.Objective(expr=m.x[0] + m.x[1] + 1)
    return m


def lp_max():
    """max x0 + x1 s.t. x0 + 2 x1 <= 4, -10 <= 3 x0 + x1 <= 6: x = (1.6, 1.2), obj 2.8, duals (0.4, 0.2)."""
    m = pe.ConcreteModel()
    m.x = pe.Var([0, 1], bounds=(0, None))
    m.c1 = pe.Constraint(expr=m.x[0] + 2 * m.x[1] <= 4)
    m.c2 = pe.Constraint(expr=pe.inequality(-10, 3 * m.x[0] + m.x[1], 6))
    m.o = pe.Objective(expr=m.x[0] + m.x[1], sense=pe.maximize)
    return m


KNAP_W = [5.0, 4.0, 3.0, 2.5, 3.5]
KNAP_V = [10.0, 7.5, 5.0, 3.5, 6.0]
KNAP_CAP = 9.5


def knapsack():
    m = pe.ConcreteModel()
    n = len(KNAP_W)
    m.x = pe.Var(range(n), domain=pe.Binary)
    m.c = pe.Constraint(expr=pe.quicksum(KNAP_W[i] * m.x[i] for i in range(n)) <= KNAP_CAP)
    m.o = pe.Objective(expr=pe.quicksum(KNAP_V[i] * m.x[i] for i in range(n)), sense=pe.maximize)
    return m


def knapsack_brute_force():
    best = -math.inf
    for bits in itertools.product([0, 1], repeat=len(KNAP_W)):
        if np.dot(bits, KNAP_W) <= KNAP_CAP:
            best = max(best, float(np.dot(bits, KNAP_V)))
    return best


def int_min():
    """min 3a + 2b s.t. 2a + 2b >= 5 (a, b integer in [0, 10]): brute-force optimum."""
    m = pe.ConcreteModel()
    m.a = pe.Var(domain=pe.NonNegativeIntegers, bounds=(0, 10))
    m.b = pe.Var(domain=pe.NonNegativeIntegers, bounds=(0, 10))
    m.c = pe.Constraint(expr=2 * m.a + 2 * m.b >= 5)
    m.o = pe.Objective(expr=3 * m.a + 2 * m.b + 0.5)
    return m


def int_min_brute_force():
    return min(3 * a + 2 * b + 0.5 for a in range(11) for b in range(11) if 2 * a + 2 * b >= 5)


# -- per backend ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_NAMES)
@pytest.mark.parametrize("make, optimum, x_opt", [(lp_min, 2.4, (0.8, 0.6)), (lp_max, 2.8, (1.6, 1.2))])
def test_lp_optimum_every_backend(name, make, optimum, x_opt):
    backend = _backend_or_skip(name)
    if not backend.capabilities.lp:
        pytest.skip(f"{name} does not solve LPs")
    m = make()
    res = solve(m, name)
    assert isinstance(res, SolveResult)
    assert res.status is SolveStatus.OPTIMAL
    tol = 1e-4 if name == "ortools_pdlp" else 1e-6
    assert res.objective == pytest.approx(optimum, abs=tol)
    assert [pe.value(m.x[i]) for i in range(2)] == pytest.approx(list(x_opt), abs=10 * tol)
    assert res.bound == pytest.approx(optimum, abs=tol)
    assert res.solver == name and res.version
    assert res.wall_time > 0


@pytest.mark.parametrize("name", ALL_NAMES)
@pytest.mark.parametrize("make, brute", [(knapsack, knapsack_brute_force), (int_min, int_min_brute_force)])
def test_milp_optimum_every_backend(name, make, brute):
    backend = _backend_or_skip(name)
    if not backend.capabilities.milp:
        pytest.skip(f"{name} does not solve MILPs")
    m = make()
    res = solve(m, name)
    assert res.status is SolveStatus.OPTIMAL
    assert res.objective == pytest.approx(brute(), abs=1e-6)
    assert pe.value(m.o) == pytest.approx(brute(), abs=1e-6)
    assert res.gap is not None and res.gap <= 1e-4
    for v in m.component_data_objects(pe.Var):
        assert abs(v.value - round(v.value)) <= 1e-6


def test_all_available_backends_agree():
    objs_lp, objs_mip = {}, {}
    for name in available_solvers():
        caps = get_solver(name).capabilities
        if caps.lp:
            objs_lp[name] = solve(lp_max(), name).objective
        if caps.milp:
            objs_mip[name] = solve(knapsack(), name).objective
    assert len(objs_lp) >= 3 and len(objs_mip) >= 3
    ref_lp, ref_mip = objs_lp["highs"], objs_mip["highs"]
    for name, v in objs_lp.items():
        assert v == pytest.approx(ref_lp, abs=1e-4), name
    for name, v in objs_mip.items():
        assert v == pytest.approx(ref_mip, abs=1e-6), name


@pytest.mark.parametrize("make", [lp_min, lp_max])
def test_lp_duals_agree_across_backends(make):
    """d objective / d rhs on the Pyomo suffix: (0.4, 0.2) for both models (checked by perturbation too)."""
    duals = {}
    for name in available_solvers():
        if not get_solver(name).capabilities.duals:
            continue
        m = make()
        solve(m, name, duals=True)
        duals[name] = (m.dual[m.c1], m.dual[m.c2])
    assert {"highs", "highs_direct", "ortools_glop"} <= set(duals)
    for name, d in duals.items():
        assert d == pytest.approx((0.4, 0.2), abs=1e-4), name
    # the sign convention is d objective / d rhs: check by finite differences
    m = make()
    base = solve(m, "highs").objective
    rhs = m.c1.upper if m.c1.upper is not None else m.c1.lower
    if m.c1.upper is not None:
        m.c1.set_value(m.c1.body <= rhs + 0.01)
    else:
        m.c1.set_value(m.c1.body >= rhs + 0.01)
    moved = solve(m, "highs").objective
    assert (moved - base) / 0.01 == pytest.approx(duals["highs"][0], abs=1e-6)


def test_dual_suffix_existing_is_reused_and_cleared():
    m = lp_min()
    m.dual = pe.Suffix(direction=pe.Suffix.IMPORT)
    m.dual[m.c1] = 99.0
    solve(m, "ortools_glop", duals=True)
    assert m.dual[m.c1] == pytest.approx(0.4)


def test_wrong_dual_component_is_an_error():
    m = lp_min()
    m.dual = pe.Var()
    with pytest.raises(InputError, match="dual"):
        solve(m, "highs_direct", duals=True)


# -- statuses ------------------------------------------------------------------------------


def infeasible(integer):
    m = pe.ConcreteModel()
    m.x = pe.Var([0, 1], bounds=(0, None), domain=pe.Integers if integer else pe.Reals)
    m.c1 = pe.Constraint(expr=m.x[0] + m.x[1] >= 5)
    m.c2 = pe.Constraint(expr=m.x[0] + m.x[1] <= 3)
    m.o = pe.Objective(expr=m.x[0])
    return m


def unbounded(integer):
    m = pe.ConcreteModel()
    m.x = pe.Var([0, 1], bounds=(0, None), domain=pe.Integers if integer else pe.Reals)
    m.c1 = pe.Constraint(expr=m.x[0] - m.x[1] <= 1)
    m.o = pe.Objective(expr=m.x[0] + m.x[1], sense=pe.maximize)
    return m


@pytest.mark.parametrize("name", ALL_NAMES)
@pytest.mark.parametrize("integer", [False, True])
def test_infeasible_status(name, integer):
    _backend_or_skip(name, integer=integer)
    res = solve(infeasible(integer), name)
    assert res.status is SolveStatus.INFEASIBLE
    assert not res.has_solution and res.objective is None
    with pytest.raises(SolverError, match="infeasible"):
        res.raise_for_status()


@pytest.mark.parametrize("name", ALL_NAMES)
@pytest.mark.parametrize("integer", [False, True])
def test_unbounded_status(name, integer):
    _backend_or_skip(name, integer=integer)
    res = solve(unbounded(integer), name)
    if name == "ortools_pdlp":  # a first-order method stops without a certificate here
        assert not res.has_solution
        return
    allowed = {SolveStatus.UNBOUNDED}
    if integer and name in ("highs", "appsi_highs"):  # HiGHS' MIP presolve cannot tell which
        allowed.add(SolveStatus.INFEASIBLE_OR_UNBOUNDED)
    assert res.status in allowed
    assert res.objective is None


def infeasible_with_a_ray(integer):
    """Infeasible rows (y >= 2, y <= 1) and an objective unbounded along x: infeasible, not unbounded."""
    m = pe.ConcreteModel()
    m.x = pe.Var(domain=pe.Integers if integer else pe.Reals)
    m.y = pe.Var(bounds=(0, None), domain=pe.Integers if integer else pe.Reals)
    m.c1 = pe.Constraint(expr=m.y >= 2)
    m.c2 = pe.Constraint(expr=m.y <= 1)
    m.o = pe.Objective(expr=-m.x)
    return m


def integer_infeasible_unbounded_relaxation():
    """2 y = 1 with y integer has no point, while the LP relaxation is unbounded in x."""
    m = pe.ConcreteModel()
    m.x = pe.Var(bounds=(0, None), domain=pe.Integers)
    m.y = pe.Var(domain=pe.Integers)
    m.c = pe.Constraint(expr=2 * m.y == 1)
    m.o = pe.Objective(expr=m.x, sense=pe.maximize)
    return m


@pytest.mark.parametrize("name", ALL_NAMES)
@pytest.mark.parametrize("make, integer", [(lambda: infeasible_with_a_ray(False), False),
                                           (lambda: infeasible_with_a_ray(True), True),
                                           (integer_infeasible_unbounded_relaxation, True)],
                         ids=["lp-ray", "milp-ray", "milp-relaxation-unbounded"])
def test_infeasible_is_never_reported_unbounded(name, make, integer):
    """Regression: CBC said "unbounded" for a MILP with no integer point (its relaxation is unbounded)."""
    _backend_or_skip(name, integer=integer)
    res = solve(make(), name)
    assert res.status in (SolveStatus.INFEASIBLE, SolveStatus.INFEASIBLE_OR_UNBOUNDED), res.message
    assert not res.has_solution
    if name in ("cbc", "glpk"):  # the zero-objective check settles it
        assert res.status is SolveStatus.INFEASIBLE, res.message


@pytest.mark.parametrize("log, is_mip, status", [
    ("LP HAS NO PRIMAL FEASIBLE SOLUTION\n", False, SolveStatus.INFEASIBLE),
    ("LP HAS NO PRIMAL FEASIBLE SOLUTION\n", True, SolveStatus.INFEASIBLE),
    ("LP HAS UNBOUNDED PRIMAL SOLUTION\n", False, SolveStatus.UNBOUNDED),
    ("LP HAS UNBOUNDED PRIMAL SOLUTION\n", True, SolveStatus.INFEASIBLE_OR_UNBOUNDED),
    ("LP HAS NO DUAL FEASIBLE SOLUTION\n", False, SolveStatus.INFEASIBLE_OR_UNBOUNDED),
    ("OPTIMAL LP SOLUTION FOUND\n", False, SolveStatus.UNKNOWN),
])
def test_glpk5_log_verdicts(log, is_mip, status):
    """GLPK 5 words its verdicts "LP HAS ..."; Pyomo reads only GLPK 4's "PROBLEM HAS ..." (the file says UNDEFINED)."""
    from interpretopt.solvers._base import _glpk_log_verdict

    assert _glpk_log_verdict(log, is_mip) is status


def hard_knapsack(n=60, m=8, seed=0):
    """A multi-dimensional knapsack that HiGHS does not close in a fraction of a second."""
    rng = np.random.default_rng(seed)
    W = rng.integers(10, 100, size=(m, n)).astype(float)
    v = W.sum(0) / m + rng.integers(0, 10, size=n)
    cap = W.sum(1) / 2
    md = pe.ConcreteModel()
    md.x = pe.Var(range(n), domain=pe.Binary)
    md.c = pe.Constraint(range(m), rule=lambda mm, i: pe.quicksum(W[i, j] * mm.x[j] for j in range(n)) <= cap[i])
    md.o = pe.Objective(expr=pe.quicksum(v[j] * md.x[j] for j in range(n)), sense=pe.maximize)
    return md, W, v, cap


def _declaring(*needs: str) -> list[str]:
    """The backends (registered and Pyomo-named) whose declared capabilities include ``needs``: the
    registry decides which backends a shared test covers, so that a new backend is covered unedited."""
    out = []
    for name in _all_names():
        try:
            caps = get_solver(name).capabilities
        except Exception:  # a Pyomo name this installation cannot describe
            continue
        if all(getattr(caps, n) for n in needs):
            out.append(name)
    return out


@pytest.mark.parametrize("name", _declaring("milp", "time_limit"))
def test_time_limit_returns_incumbent(name):
    _backend_or_skip(name)
    m, W, v, cap = hard_knapsack()
    res = solve(m, name, SolveSettings(time_limit=0.4))
    assert res.status is SolveStatus.FEASIBLE, res.message
    assert res.has_solution
    x = np.array([pe.value(m.x[j]) for j in range(len(v))])
    assert np.all(W @ x <= cap + 1e-6)
    assert res.objective == pytest.approx(float(v @ x), rel=1e-9)
    if isinstance(get_solver(name), PyomoFactoryBackend):  # CBC, GLPK through Pyomo: no bound for a stopped solve
        assert res.bound is None or res.bound >= res.objective - 1e-6
    else:
        assert res.bound is not None and res.bound >= res.objective - 1e-6  # maximization
        assert res.gap == pytest.approx((res.bound - res.objective) / abs(res.objective), rel=1e-6)
    # no assertion on the duration: it depends on the machine and its load (an overrun is
    # reported in res.info["overran_time_limit"] by _note_overrun)


# -- errors --------------------------------------------------------------------------------


def test_unknown_solver_lists_available():
    with pytest.raises(UnknownNameError) as err:
        solve(lp_min(), "no_such_solver")
    msg = str(err.value)
    assert "no_such_solver" in msg
    for name in ("highs", "ortools_glop"):
        assert name in msg
    assert "gurobi" not in available_solvers() or "gurobi" in msg


def test_known_but_unavailable_solver_is_a_solver_error():
    missing = [r["name"] for r in describe_solvers() if not r["available"]]
    if not missing:
        pytest.skip("every probed Pyomo solver is installed here")
    with pytest.raises(SolverError, match="not available") as err:
        get_solver(missing[0])
    assert "highs" in str(err.value)


def test_duals_from_backend_without_duals():
    with pytest.raises(SolverError, match="does not return duals"):
        solve(lp_min(), "ortools_scip", duals=True)


def test_duals_of_a_milp_are_refused():
    with pytest.raises(SolverError, match="integer"):
        solve(knapsack(), "highs", duals=True)


def test_lp_only_backend_refuses_milp():
    with pytest.raises(SolverError, match="LPs only"):
        solve(knapsack(), "ortools_glop")


def test_nonlinear_model_to_ortools():
    m = lp_min()
    m.nl = pe.Constraint(expr=m.x[0] * m.x[1] <= 3)
    with pytest.raises(SolverError, match="not linear"):
        solve(m, "ortools_glop")
    with pytest.raises(SolverError, match="not linear"):
        solve(m, "highs_direct")


def test_cpsat_refuses_continuous_unless_discretized():
    m = lp_min()
    with pytest.raises(SolverError, match="continuous"):
        solve(m, "ortools_cpsat")
    res = solve(m, "ortools_cpsat", SolveSettings(options={"ortools_cpsat": {"discretize_continuous": True}}))
    assert res.status is SolveStatus.FEASIBLE  # optimal only for the discretized model
    assert res.objective == pytest.approx(3.0)  # x = (1, 1) is the integer optimum
    assert res.bound is None


def test_cpsat_scales_fractional_coefficients():
    m = pe.ConcreteModel()
    m.x = pe.Var(range(3), domain=pe.Binary)
    m.c = pe.Constraint(expr=0.35 * m.x[0] + 0.45 * m.x[1] + 0.3 * m.x[2] <= 0.8)
    m.o = pe.Objective(expr=1.1 * m.x[0] + 1.3 * m.x[1] + 0.95 * m.x[2], sense=pe.maximize)
    res = solve(m, "ortools_cpsat")
    assert res.status is SolveStatus.OPTIMAL
    assert res.objective == pytest.approx(2.4)


def test_not_a_model():
    with pytest.raises(InputError):
        solve("model", "highs")
    with pytest.raises(InputError):
        solve(lp_min(), "")


# -- settings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [{"time_limit": -1}, {"time_limit": 0}, {"mip_gap": -0.1}, {"threads": 0}, {"threads": 1.5}, {"seed": -1},
     {"options": [("a", 1)]}, {"time_limit": True}],
)
def test_settings_validation(kwargs):
    with pytest.raises(InputError):
        SolveSettings(**kwargs)


def test_settings_frozen_and_replace():
    s = SolveSettings(time_limit=5, options={"presolve": "off"})
    with pytest.raises(Exception):
        s.time_limit = 3  # type: ignore[misc]
    t = s.replace(mip_gap=0.01)
    assert t.mip_gap == 0.01 and t.time_limit == 5 and s.mip_gap is None


def test_options_scoped_per_backend():
    s = SolveSettings(options={"presolve": "off", "highs": {"presolve": "on"}, "cbc": {"cuts": "off"}})
    names = frozenset({"highs", "cbc"})
    assert s.options_for("highs", names) == {"presolve": "on"}
    assert s.options_for("cbc", names) == {"presolve": "off", "cuts": "off"}


def test_solver_specific_option_wins_over_common_setting():
    # a zero node limit in HiGHS options stops before any incumbent despite the generous common settings
    m, *_ = hard_knapsack(n=30, m=5, seed=3)
    res = solve(m, "highs_direct", SolveSettings(time_limit=30, options={"time_limit": 1e-9}))
    assert res.status in (SolveStatus.TIME_LIMIT, SolveStatus.FEASIBLE)
    assert res.status is not SolveStatus.OPTIMAL


def test_bad_solver_option_is_reported():
    with pytest.raises(SolverError, match="option"):
        solve(lp_min(), "highs_direct", SolveSettings(options={"no_such_option": 1}))


def test_settings_as_dict():
    res = solve(lp_min(), "highs", {"time_limit": 10})
    assert res.status is SolveStatus.OPTIMAL
    with pytest.raises(InputError):
        solve(lp_min(), "highs", {"time_limt": 10})


def test_describe_solvers_rows():
    rows = {r["name"]: r for r in describe_solvers()}
    for name in ("highs", "ortools_glop", "ortools_pdlp", "ortools_cpsat", "ortools_scip"):
        assert rows[name]["available"], name
    assert rows["ortools_glop"]["duals"] and not rows["ortools_glop"]["milp"]
    assert rows["ortools_cpsat"]["milp"] and not rows["ortools_cpsat"]["duals"]


def test_status_enum():
    assert SolveStatus.OPTIMAL.has_solution and SolveStatus.FEASIBLE.has_solution
    assert not SolveStatus.TIME_LIMIT.has_solution and not SolveStatus.INFEASIBLE.has_solution
    assert SolveStatus("feasible") is SolveStatus.FEASIBLE
    assert str(SolveStatus.OPTIMAL) == "optimal"


@pytest.mark.parametrize("name", ["highs", "highs_direct"])
def test_highs_thread_count_can_change_between_solves(name):
    # HiGHS refuses to run when `threads` differs from its running scheduler; the layer restarts it
    for threads in (1, 2, None, 1):
        res = solve(lp_min(), name, SolveSettings(threads=threads))
        assert res.status is SolveStatus.OPTIMAL, (threads, res.message)


def test_result_as_dict_row():
    res = solve(knapsack(), "highs_direct", SolveSettings(mip_gap=0.0))
    row = res.as_dict()
    assert row["status"] == "optimal" and row["solver"] == "highs_direct"
    assert row["objective"] == pytest.approx(knapsack_brute_force())
    assert set(row) >= {"solver", "status", "objective", "bound", "gap", "wall_time"}


# -- regressions: bad models ---------------------------------------------------------------
def _lp(coef=1.0, obj=1.0):
    m = pe.ConcreteModel()
    m.x = pe.Var(bounds=(0, 1))
    m.c = pe.Constraint(expr=coef * m.x <= 1)
    m.o = pe.Objective(expr=obj * m.x, sense=pe.maximize)
    return m


@pytest.mark.parametrize("coef, obj", [(float("nan"), 1.0), (1.0, float("nan")), (float("inf"), 1.0)])
def test_regression_highs_through_pyomo_refuses_nan_coefficients(coef, obj):
    """Pyomo handed NaN to HiGHS, which reported an optimum of a different model; a row with an infinite
    coefficient was refused by HiGHS and silently left out."""
    with pytest.raises(SolverError, match="NaN or infinite"):
        solve(_lp(coef, obj), "highs")
    assert solve(_lp(), "highs").objective == pytest.approx(1.0)


@pytest.mark.parametrize("coef, obj, match", [
    (float("nan"), 1.0, "constraint c has a non-finite coefficient"),
    (float("inf"), 1.0, "constraint c has a non-finite coefficient"),
    (1.0, float("nan"), "objective has a non-finite coefficient"),
])
def test_regression_matrix_form_names_the_non_finite_coefficient(coef, obj, match):
    """The matrix path (highs_direct, OR-Tools) now names the row; GLOP used to answer 'infeasible'."""
    with pytest.raises(SolverError, match=match):
        to_matrix_form(_lp(coef, obj))
    for name in ("highs_direct", "ortools_glop"):
        if name in available_solvers():
            with pytest.raises(SolverError, match=match):
                solve(_lp(coef, obj), name)


def test_regression_pyomo_solver_load_failure_is_a_solver_error():
    """CBC on a model with an infinite coefficient crashed inside Pyomo's solution loader."""
    if "cbc" not in available_solvers():
        pytest.skip("cbc is not installed here")
    try:
        res = solve(_lp(float("inf")), "cbc")
    except SolverError:
        return
    assert res.status is not None  # a status, never a raw Pyomo exception


def test_regression_implausible_pyomo_solver_version_is_unknown(monkeypatch):
    """A CBC 'devel' build made Pyomo report versions such as 0.298977.0.0, different at every call."""
    from interpretopt.solvers import PyomoFactoryBackend

    class _Fake:
        def version(self):
            return (0, 298977, 0, 0)

    backend = PyomoFactoryBackend("cbc")
    monkeypatch.setattr(backend, "_factory", lambda: _Fake())
    assert backend.version() == "unknown"

    class _Good:
        def version(self):
            return (2, 10, 11)

    monkeypatch.setattr(backend, "_factory", lambda: _Good())
    assert backend.version() == "2.10.11"
