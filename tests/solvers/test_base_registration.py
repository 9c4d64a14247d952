"""Adding a backend is one module and one registration (CONTRIBUTING.md), checked with a toy backend.

The toy solves any linear Pyomo model with ``scipy.optimize.milp`` on the model's matrix form
and declares ``lp`` and ``milp`` only (the project's real ``scipy`` backend lives in
``interpretopt/solvers/_scipy.py``; the toy has its own name). Once registered it is listed with
its capabilities, given every solver role it fits (BRCG's integer master and pricing MILP), and
refused, with the qualifying solvers named, for a role that needs one it lacks (the
column-generation master needs ``duals`` and ``incremental``). No method names it.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import Bounds, LinearConstraint, milp

from interpretopt._validation import solver_capabilities
from interpretopt.exceptions import ParameterError
from interpretopt.solvers import (
    SOLVERS,
    Capabilities,
    SolveResult,
    SolverBackend,
    SolveStatus,
    describe_solvers,
    register_backend,
    unregister_backend,
)
from interpretopt.solvers._matrix import to_matrix_form


class ToyMilpBackend(SolverBackend):
    name = "toy_milp"
    capabilities = Capabilities(lp=True, milp=True, duals=False)
    description = "scipy.optimize.milp on the matrix form (a test backend)"

    def available(self) -> bool:
        return True

    def version(self) -> str:
        import scipy

        return scipy.__version__

    def _solve(self, model, settings, duals):
        mf = to_matrix_form(model)
        sign = 1.0 if mf.sense == "min" else -1.0
        opts = {"time_limit": settings.time_limit} if settings.time_limit is not None else {}
        res = milp(sign * mf.c, integrality=mf.integrality.astype(int), bounds=Bounds(mf.col_lower, mf.col_upper),
                   constraints=[LinearConstraint(mf.A, mf.row_lower, mf.row_upper)] if mf.n_rows else [],
                   options=opts)
        if res.x is None:
            status = SolveStatus.INFEASIBLE if res.status == 2 else SolveStatus.TIME_LIMIT
            return SolveResult(status=status, objective=None, bound=None, gap=None, solver=self.name,
                               version=self.version(), message=str(res.message))
        mf.load_primal(res.x)
        obj = float(mf.c @ res.x + mf.offset)
        return SolveResult(status=SolveStatus.OPTIMAL if res.status == 0 else SolveStatus.FEASIBLE, objective=obj,
                           bound=obj if res.status == 0 else None, gap=0.0 if res.status == 0 else None,
                           solver=self.name, version=self.version(), x=res.x)


@pytest.fixture
def toy_backend():
    """Step 2 of "Adding a solver backend": the public registration, undone after the test."""
    register_backend(ToyMilpBackend)
    try:
        yield ToyMilpBackend.name
    finally:
        unregister_backend(ToyMilpBackend.name)


def test_the_shared_backend_tests_cover_a_new_backend(toy_backend):
    """Step 4: the shared tests of tests/solvers/test_base.py take their backends from the registry;
    called here with the toy, as pytest collects them once it is registered."""
    import tests.solvers.test_base as B

    assert toy_backend in SOLVERS.names() and toy_backend in B._declaring("milp")
    B.test_lp_optimum_every_backend(toy_backend, B.lp_min, 2.4, (0.8, 0.6))
    B.test_lp_optimum_every_backend(toy_backend, B.lp_max, 2.8, (1.6, 1.2))
    B.test_milp_optimum_every_backend(toy_backend, B.knapsack, B.knapsack_brute_force)
    B.test_milp_optimum_every_backend(toy_backend, B.int_min, B.int_min_brute_force)


def test_register_backend_refuses_what_is_not_a_backend(toy_backend):
    from interpretopt.exceptions import SolverError

    class NoName(SolverBackend):
        pass

    class NoModel(ToyMilpBackend):
        name = "toy_incremental"
        capabilities = Capabilities(lp=True, milp=False, duals=True, incremental=True)

    with pytest.raises(SolverError, match="already registered"):
        register_backend(ToyMilpBackend)
    with pytest.raises(SolverError, match="set `name`"):
        register_backend(NoName)
    with pytest.raises(SolverError, match="sets no `incremental_model`"):
        register_backend(NoModel)
    with pytest.raises(SolverError, match="SolverBackend subclass or instance"):
        register_backend(object())


def test_a_registered_backend_is_listed_with_its_capabilities(toy_backend):
    row = next(r for r in describe_solvers() if r["name"] == toy_backend)
    assert row["available"] and row["milp"] and not row["duals"] and not row["incremental"]
    assert set(Capabilities.FIELDS) <= set(row)
    assert solver_capabilities(toy_backend) == ToyMilpBackend.capabilities.as_dict()


def test_methods_take_a_new_backend_by_its_capabilities(toy_backend):
    from interpretopt.methods.brcg import BRCGClassifier

    rng = np.random.default_rng(0)
    X = (rng.random((40, 6)) < 0.5).astype(int)
    y = (X[:, 0] & X[:, 1] | X[:, 2]).astype(int)
    kw = dict(binarizer="passthrough", form="constraint", C=6, pricing="beam+milp", max_literals=2)
    ref = BRCGClassifier(**kw).fit(X, y)
    toy = BRCGClassifier(mip_solver=toy_backend, pricing_solver=toy_backend, **kw).fit(X, y)
    assert toy.solve_results_["integer"].solver == toy_backend
    assert toy.objective_ == pytest.approx(ref.objective_)
    assert toy.lower_bound_ == pytest.approx(ref.lower_bound_, abs=1e-6)
    # one name goes to every role it fits; the master (duals on an incremental model) keeps the default
    one = BRCGClassifier(solver=toy_backend, **kw).fit(X, y)
    assert one.solvers_["integer"] == {"requested": toy_backend, "solver": toy_backend}
    assert one.solvers_["master"]["requested"] == "" and one.solvers_["master"]["solver"] != toy_backend
    assert one.objective_ == pytest.approx(ref.objective_)
    # named for the master, which needs duals and an incremental model the toy does not declare: refused
    with pytest.raises(ParameterError, match=r"master solver 'toy_milp'.*LP duals.*incremental model"):
        BRCGClassifier(solver={"master": toy_backend}, **kw).fit(X, y)


def test_the_master_solver_check_lists_every_capable_backend():
    from interpretopt.methods.brcg import BRCGClassifier

    from interpretopt.solvers import SOLVERS

    capable = [n for n in SOLVERS.names() if all(getattr(SOLVERS.get(n).capabilities, k)
                                                 for k in ("lp", "duals", "incremental"))]
    with pytest.raises(ParameterError, match="qualify: " + ", ".join(capable) + "$"):
        BRCGClassifier(solver={"master": "cbc"}, binarizer="passthrough").fit(np.eye(4, dtype=int), [0, 1, 0, 1])
