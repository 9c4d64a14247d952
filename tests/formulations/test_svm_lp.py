"""The L1-norm SVM LP: Pyomo model vs program vs dual, backends, scikit-learn, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.exceptions import InputError
from interpretopt.formulations import svm_lp
from interpretopt.solvers import INCREMENTAL_SOLVERS, SolveSettings, available_solvers, solve, solve_lp


def _blobs(n=60, d=3, shift=1.2, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    X = rng.normal(size=(n, d)) + shift * (2 * y[:, None] - 1) * np.linspace(1.0, 0.3, d)
    return X, y


def _solve_pyomo(X, y, solver="highs", **kw):
    m = svm_lp.build(X, y, **kw)
    res = solve(m, solver, SolveSettings())
    assert res.status.value == "optimal", res.message
    return svm_lp.extract(m), res


def _solve_dual(X, y, solver="highs", **kw):
    res = solve_lp(svm_lp.dual_lp(X, y, **kw), solver, SolveSettings(), duals=True)
    assert res.status.value == "optimal"
    return svm_lp.solution_from_duals(res.duals, X, y, dual_objective=res.objective, **kw), res


def _normalized(sol):
    v = np.append(sol.w, sol.w0)
    return v / np.max(np.abs(sol.w))


def test_pyomo_primal_and_dual_give_the_same_hyperplane_and_objective():
    X, y = _blobs(n=80, d=4, shift=0.6, seed=3)
    p, _ = _solve_pyomo(X, y, C=0.7)
    q, r = _solve_dual(X, y, C=0.7)
    assert p.objective == pytest.approx(q.objective, rel=1e-7, abs=1e-7)
    assert r.objective == pytest.approx(p.objective, rel=1e-7)
    assert np.allclose(p.w, q.w, atol=1e-6) and p.w0 == pytest.approx(q.w0, abs=1e-6)
    # the slacks are the hinge losses at the optimum
    hinge = np.maximum(0, 1 - svm_lp.signed_labels(y) * (X @ p.w + p.w0))
    assert np.allclose(p.xi, hinge, atol=1e-7)


def test_accuracy_matches_linear_svc_l1():
    from sklearn.svm import LinearSVC

    X, y = _blobs(n=200, d=5, shift=0.5, seed=7)
    sol, _ = _solve_pyomo(X, y, C=1.0, class_weight=None)
    ours = np.mean((sol.predict(X) > 0) == (y == 1))
    svc = LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=1.0, max_iter=5000).fit(X, y)
    theirs = svc.score(X, y)
    assert abs(ours - theirs) <= 0.03
    assert ours >= 0.75  # better than the 60% majority rate


_LP_BACKENDS = [name for name in ("highs", "highs_direct", "appsi_highs", "ortools_glop", "ortools_scip", "cbc",
                                  "glpk", "ortools_pdlp") if name in available_solvers()]


@pytest.mark.parametrize("solver", _LP_BACKENDS)
def test_every_lp_backend_returns_the_same_hyperplane(solver):
    X, y = _blobs(n=50, d=3, shift=0.5, seed=11)
    ref, _ = _solve_pyomo(X, y, "highs", C=0.5)
    m = svm_lp.build(X, y, C=0.5)
    res = solve(m, solver, SolveSettings(time_limit=30))
    assert res.has_solution, f"{solver}: {res.status} {res.message}"
    sol = svm_lp.extract(m)
    tol = 2e-2 if solver == "ortools_pdlp" else 1e-5
    assert sol.objective == pytest.approx(ref.objective, rel=tol)
    assert np.allclose(_normalized(sol), _normalized(ref), atol=50 * tol)


@pytest.mark.parametrize("solver", sorted(INCREMENTAL_SOLVERS))
def test_dual_path_on_every_incremental_backend(solver):
    X, y = _blobs(n=50, d=3, shift=0.5, seed=11)
    ref, _ = _solve_pyomo(X, y, "highs", C=0.5)
    sol, _ = _solve_dual(X, y, solver, C=0.5)
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6)
    assert np.allclose(_normalized(sol), _normalized(ref), atol=1e-5)


def test_class_weights_balance_the_classes():
    y = np.array([1, 1, 0, 0, 0, 0])
    s = svm_lp.sample_weights(svm_lp.signed_labels(y), "balanced")
    assert s[y == 1].sum() == pytest.approx(s[y == 0].sum())
    s2 = svm_lp.sample_weights(svm_lp.signed_labels(y), {1: 3.0, 0: 1.0})
    assert np.allclose(s2, [3, 3, 1, 1, 1, 1])


@pytest.mark.parametrize("bad", [
    dict(y=[0, 1, 2, 1]),
    dict(C=0.0),
    dict(C=-1.0),
    dict(X=[[0.0, np.nan], [1, 1], [2, 2], [3, 3]]),
    dict(class_weight="auto"),
])
def test_bad_input_is_rejected(bad):
    kw = dict(X=[[0.0, 0], [1, 1], [2, 2], [3, 3]], y=[0, 1, 0, 1], C=1.0, class_weight="balanced")
    kw.update(bad)
    with pytest.raises(InputError):
        svm_lp.build(kw.pop("X"), kw.pop("y"), **kw)


@given(st.integers(0, 10_000), st.floats(0.05, 20.0))
def test_property_strong_duality_and_nonnegative_objective(seed, C):
    rng = np.random.default_rng(seed)
    n, d = 20, 2
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    lp = svm_lp.primal_lp(X, y, C=C)
    res = solve_lp(lp, "highs", SolveSettings())
    primal = svm_lp.solution_from_vector(res.x, lp)
    dual, _ = _solve_dual(X, y, C=C)
    assert primal.objective >= -1e-9
    assert primal.objective == pytest.approx(dual.objective, rel=1e-6, abs=1e-7)
    # the optimum is no worse than w = 0 (objective C * sum(s) with the best w0)
    s = svm_lp.sample_weights(svm_lp.signed_labels(y))
    assert primal.objective <= C * s.sum() + 1e-7
