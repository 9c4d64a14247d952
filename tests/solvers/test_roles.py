"""Solver roles: one name for every role it fits or one per role, checked by capability, recorded per role.

Lists of solvers come from the registry (capabilities), never from names written here, except the
backends the issue names as regressions (``highs_direct`` and its MIP start, CP-SAT's integer-only models).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from interpretopt.exceptions import ParameterError
from interpretopt.solvers import SOLVERS, SolverRole, assign_solvers
from interpretopt.solvers._roles import merge_solver_records, qualifying_solvers, solver_columns, solver_for

LP = SolverRole("lp", ("lp", "duals"), "an LP with duals")
MIP = SolverRole("mip", ("milp", "mixed_integer"), "a MILP with continuous variables")
ROLES = {"lp": LP, "mip": MIP}


def _registered(*needs, without=()):
    return [n for n in SOLVERS.names() if all(getattr(SOLVERS.get(n).capabilities, k) for k in needs)
            and not any(getattr(SOLVERS.get(n).capabilities, k) for k in without)]


def test_one_name_goes_to_every_role_it_fits_and_the_others_keep_the_default():
    for name in _registered("lp", "duals", "milp", "mixed_integer"):
        got = assign_solvers(name, ROLES, owner="T")
        assert {r: (a.requested, a.solver) for r, a in got.items()} == {"lp": (name, name), "mip": (name, name)}
    for name in _registered("lp", "duals", without=("milp",)):
        got = assign_solvers(name, ROLES, owner="T")
        assert (got["lp"].solver, got["mip"].requested, got["mip"].solver) == (name, "", "highs")


def test_a_name_that_fits_no_role_is_refused_with_each_roles_qualifying_solvers():
    cannot = _registered(without=("lp", "milp")) + _registered("milp", without=("lp", "mixed_integer"))
    if not cannot:
        pytest.skip("no registered backend lacks both LPs and MILPs with continuous variables")
    with pytest.raises(ParameterError, match=rf"solver '{cannot[0]}' fits none of its roles.*lp \(.*mip \("):
        assign_solvers(cannot[0], ROLES, owner="T")


def test_a_mapping_is_checked_role_by_role():
    got = assign_solvers({"mip": "scipy"}, ROLES, owner="T")
    assert (got["mip"].requested, got["lp"].requested, got["lp"].solver) == ("scipy", "", "highs")
    with pytest.raises(ParameterError, match="has no solver role 'mp' \\(did you mean 'mip'\\?\\)"):
        assign_solvers({"mp": "scipy"}, ROLES, owner="T")
    lp_only = _registered("lp", without=("milp",))[0]
    with pytest.raises(ParameterError, match=f"mip solver '{lp_only}'.*qualify: " + ", ".join(qualifying_solvers(
            MIP.needs))):
        assign_solvers({"mip": lp_only}, ROLES, owner="T")
    with pytest.raises(ParameterError, match="unknown lp solver 'higs' \\(did you mean 'highs'\\?\\)"):
        assign_solvers({"lp": "higs"}, ROLES, owner="T")
    with pytest.raises(ParameterError, match="a solver name or a mapping"):
        assign_solvers(3, ROLES, owner="T")


def test_overrides_win_and_roles_the_run_lacks_are_checked_but_not_assigned():
    got = assign_solvers("highs", {"lp": LP}, owner="T", overrides={"mip": "scipy", "lp": None}, all_roles=ROLES)
    assert set(got) == {"lp"} and got["lp"].solver == "highs"
    lp_only = _registered("lp", without=("milp",))[0]
    with pytest.raises(ParameterError, match=f"mip solver '{lp_only}'"):
        assign_solvers("highs", {"lp": LP}, owner="T", overrides={"mip": lp_only}, all_roles=ROLES)


def test_milp_solvers_for_models_with_continuous_variables_are_a_capability():
    integer_only = _registered("milp", without=("mixed_integer",))
    assert all(not SOLVERS.get(n).capabilities.mixed_integer for n in integer_only)
    assert "scipy" in qualifying_solvers(MIP.needs)
    for name in integer_only:  # e.g. CP-SAT: refused for every MILP role of the project
        with pytest.raises(ParameterError, match="MILPs with continuous variables"):
            assign_solvers({"mip": name}, ROLES, owner="T")


def test_records_merge_and_become_row_columns():
    merged = merge_solver_records([{"integer": {"requested": "", "solver": "highs"}},
                                   {"integer": {"requested": "", "solver": "scipy"}}, None])
    assert merged == {"integer": {"requested": "", "solver": "highs+scipy"}}
    assert solver_columns(merged) == {"solver_integer_requested": "", "solver_integer": "highs+scipy"}
    assert solver_for({"master": "a", "node": "b"}, {"node": None}) == {"node": "b"}
    assert solver_for("a", {"node": None}) == "a"


# ----------------------------------------------------------------------------- the methods' plumbing


def _binary(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 6)) < 0.5).astype(int)
    return X, (X[:, 0] & X[:, 1] | X[:, 2]).astype(int)


def test_brcg_records_the_requested_string_and_the_backend_that_ran_per_role():
    from interpretopt.methods.brcg import BRCGClassifier

    X, y = _binary()
    kw = dict(binarizer="passthrough", form="constraint", C=6, pricing="milp", max_literals=2)
    ref = BRCGClassifier(**kw).fit(X, y)
    m = BRCGClassifier(solver="highs_direct", mip_solver="scipy", **kw).fit(X, y)
    assert m.solvers_ == {"master": {"requested": "highs_direct", "solver": "highs_direct"},
                          "pricing": {"requested": "highs_direct", "solver": "highs_direct"},
                          "integer": {"requested": "scipy", "solver": "scipy"}}
    assert m.objective_ == pytest.approx(ref.objective_)
    beam = BRCGClassifier(binarizer="passthrough", pricing="beam").fit(X, y)
    assert set(beam.solvers_) == {"master", "integer"}  # beam pricing solves no pricing MILP


def test_abbr_certify_gives_the_mip_start_to_every_backend_that_takes_one():
    from interpretopt.methods.abbr import RuleListSearch

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=(300, 3)), rng.integers(0, 2, size=300)])
    y = (rng.random(300) < 1 / (1 + np.exp(-(1.5 * X[:, 0] - X[:, 1])))).astype(int)
    est = RuleListSearch(s=0.15, L=2, M=2, n_iter=60, n_thresholds=3, random_state=0).fit(
        X, LogisticRegression().fit(X, y))
    starts = _registered("milp", "mixed_integer", "incremental", "warm_start")
    # a cold backend that takes arrays (scipy): quick; the Pyomo-driven ones are covered by the solver tests
    cold = [n for n in _registered("milp", "mixed_integer", without=("warm_start",)) if SOLVERS.get(n).solves_arrays]
    values = {}
    for name in starts + cold[:1]:
        cert = est.certify(solver=name, max_rules=6)
        assert cert["solver"] == name and cert["solver_requested"] == name
        assert cert["mip_start"] is (name in starts)
        values[name] = cert["objective"]
    assert max(values.values()) - min(values.values()) < 1e-6
    with pytest.raises(ParameterError, match="no solver role 'node'"):
        est.certify(solver={"node": "highs"})


def test_mtrepan_records_the_backend_asked_for():
    from interpretopt.methods.mtrepan import MTREPANClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    target = LogisticRegression().fit(X, (X[:, 0] + X[:, 1] > 0).astype(int))
    objectives = {}
    # the backends that take the node LP as arrays (incremental or solves_arrays): the dual path
    for name in [n for n in _registered("lp", "duals") if SOLVERS.get(n).capabilities.incremental
                 or SOLVERS.get(n).solves_arrays]:
        t = MTREPANClassifier(max_depth=1, solver={"node": name}, random_state=0).fit(X, target)
        assert t.solvers_ == {"node": {"requested": name, "solver": name}}
        objectives[name] = t.solve_results_[0]["objective"]
    ref = objectives["highs"]
    assert all(abs(v - ref) <= 1e-4 * max(1.0, abs(ref)) for v in objectives.values())


def test_brcg_diff_passes_its_solver_to_both_rule_sets():
    from interpretopt.methods.imd import BRCGDiff

    X, y1 = _binary(seed=1)
    y2 = y1.copy()
    y2[:10] = 1 - y2[:10]
    d = BRCGDiff(brcg_params={"binarizer": "passthrough", "solver": "scipy"}).fit(X, y1, y2)
    assert d.solvers_["integer"] == {"requested": "scipy", "solver": "scipy"}
    assert d.solvers_["master"]["requested"] == "" and d.solvers_["master"]["solver"] == "highs"
