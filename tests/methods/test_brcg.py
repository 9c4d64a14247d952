"""BRCGClassifier / GroundedBRCGClassifier: scikit-learn contract, rules over raw features, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from interpretopt.data import load_dataset
from interpretopt.exceptions import InputError
from interpretopt.methods.brcg import BRCGClassifier, GroundedBRCGClassifier
from interpretopt.rules import Condition, Conjunction, RuleSet

FAST = dict(pricing="beam", max_literals=3, n_thresholds=5, mip_time_limit=5)

# a 5 s integer master may end at an incumbent (status "feasible"); that is reported, and tested below
pytestmark = pytest.mark.filterwarnings("ignore:the integer master over:RuntimeWarning")


@pytest.fixture(scope="module")
def bc():
    ds = load_dataset("breast_cancer")
    return ds.X, np.asarray(ds.y)


@pytest.fixture(scope="module")
def fitted(bc):
    X, y = bc
    return BRCGClassifier(**FAST).fit(X, y)


def test_rules_over_raw_features_predict_like_the_estimator(bc, fitted):
    X, y = bc
    assert isinstance(fitted.rules_, RuleSet) and fitted.rules_.n_rules >= 1
    assert np.array_equal(fitted.predict(X), fitted.rules_.predict(X))
    assert set(np.unique(fitted.predict(X))) <= {0, 1}
    assert np.mean(fitted.predict(X) == y) > 0.85
    assert 0.0 <= fitted.lower_bound_ <= fitted.objective_ + 1e-9
    # the LP's bound is below the LP; the integer bound lifts it to an objective a rule set can take
    assert fitted.lp_lower_bound_ <= fitted.restricted_lp_ + 1e-9
    assert fitted.lp_lower_bound_ <= fitted.lower_bound_
    assert 0.0 <= fitted.gap_ <= 1.0
    assert fitted.solve_results_["lp"].status.value == "optimal"
    assert fitted.solve_results_["integer"].has_solution
    # beam pricing proves nothing: the rule set is a heuristic answer with the best valid bound known
    assert fitted.status_ in ("heuristic", "optimal") and (fitted.status_ != "optimal" or fitted.gap_ <= fitted.tol)
    assert not fitted.proven_ or fitted.stop_reason_ == "proven_optimal"
    assert fitted.history_ and fitted.history_[0]["iteration"] == 0
    assert fitted.stop_reason_ in ("heuristic_pricing_exhausted", "iteration_limit", "time_limit", "proven_optimal",
                                   "pricing_work_limit")
    text = fitted.render()
    assert "mean radius" in text or "worst" in text or "error" in text


def test_negative_class_rules_are_a_cnf_for_the_positive_class(bc):
    X, y = bc
    m = BRCGClassifier(target_class=0, **FAST).fit(X, y)
    assert m.rules_class_ == 0
    assert np.array_equal(m.predict(X), 1 - m.rules_.predict(X))
    assert np.mean(m.predict(X) == y) > 0.85


def test_sklearn_contract(bc, fitted):
    X, y = bc
    est = BRCGClassifier(lambda0=0.01, max_literals=2)
    params = est.get_params()
    assert params["lambda0"] == 0.01 and params["max_literals"] == 2
    c = clone(est)
    assert c.get_params() == params
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        est.predict(X)
    assert list(fitted.classes_) == [0, 1]
    assert fitted.n_features_in_ == X.shape[1]


def test_passthrough_binary_input_with_conditions():
    rng = np.random.default_rng(0)
    Xb = (rng.random((80, 4)) < 0.5).astype(int)
    y = (Xb[:, 0] & Xb[:, 1]).astype(int)
    conds = [Condition(j, "==", 1) for j in range(4)]
    m = BRCGClassifier(binarizer="passthrough", conditions=conds, pricing="milp", max_literals=2,
                       lambda0=0.001, lambda1=0.001).fit(Xb, y)
    assert m.rules_ == RuleSet([Conjunction([conds[0], conds[1]])])
    assert np.array_equal(m.predict(Xb), y)
    with pytest.raises(InputError, match="0/1"):
        m.predict(Xb * 2)


def test_surrogate_fidelity_on_a_black_box(bc):
    from sklearn.ensemble import RandomForestClassifier

    X, y = bc
    rf = RandomForestClassifier(n_estimators=30, random_state=0).fit(X.to_numpy(), y)
    yb = rf.predict(X.to_numpy())
    m = BRCGClassifier(**FAST).fit(X, yb)
    assert m.fidelity(X, yb) > 0.9


def test_grounded_with_large_penalty_keeps_the_grounding_rules(bc, fitted):
    X, y = bc
    rng = np.random.default_rng(1)
    y2 = y.copy()
    flip = rng.random(y.size) < 0.1
    y2[flip] = 1 - y2[flip]
    g = GroundedBRCGClassifier(grounding=fitted.rules_, c_u=1.0, **FAST).fit(X, y2)
    assert g.grounding_kept_.all()
    assert set(fitted.rules_.rules) <= set(g.rules_.rules)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a 2 s integer master may stop at an incumbent
        g0 = GroundedBRCGClassifier(grounding=fitted.rules_, c_u=0.0, **{**FAST, "mip_time_limit": 2}).fit(X, y2)
    assert g0.objective_ >= g0.lower_bound_ - 1e-9
    assert g0.status_ in ("optimal", "heuristic")


def test_grounding_condition_missing_from_the_binarizer(bc):
    X, y = bc
    foreign = RuleSet([Conjunction([Condition(0, "<=", 12.3456)])])
    with pytest.raises(InputError, match="did not produce"):
        GroundedBRCGClassifier(grounding=foreign, **FAST).fit(X, y)
    out_of_range = RuleSet([Conjunction([Condition(99, "<=", 1.0)])])
    with pytest.raises(InputError, match="feature 99"):
        GroundedBRCGClassifier(grounding=out_of_range, **FAST).fit(X, y)
    m = GroundedBRCGClassifier(grounding=foreign, extend_literals=True, c_u=1.0, **FAST).fit(X, y)
    assert m.grounding_kept_.all()
    assert np.array_equal(m.predict(X), m.rules_.predict(X))


@pytest.mark.parametrize("kwargs, match", [
    (dict(form="constraint"), "C"),
    (dict(form="constraint", C=-2.0), "C"),
    (dict(lambda0=-0.1), "lambda0"),
    (dict(lambda1=float("inf")), "lambda1"),
    (dict(pricing="exhaustive"), "pricing"),
    (dict(max_literals=0), "max_literals"),
    (dict(target_class=2), "target_class"),
    (dict(binarizer="kmeans"), "binarizer"),
])
def test_bad_parameters(kwargs, match):
    rng = np.random.default_rng(0)
    X = rng.random((20, 3))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.raises(InputError, match=match):
        BRCGClassifier(**kwargs).fit(X, y)


def test_non_binary_labels_and_bad_grounding_type():
    rng = np.random.default_rng(0)
    X = rng.random((20, 3))
    with pytest.raises(InputError, match="binary"):
        BRCGClassifier().fit(X, np.arange(20) % 3)
    with pytest.raises(InputError, match="RuleSet"):
        GroundedBRCGClassifier(grounding=[("x", 1)]).fit(X, (X[:, 0] > 0.5).astype(int))
    with pytest.raises(InputError, match="c_u"):
        GroundedBRCGClassifier(grounding=RuleSet(()), c_u=-1).fit(X, (X[:, 0] > 0.5).astype(int))


def test_single_class_labels_give_a_constant_rule_set():
    rng = np.random.default_rng(0)
    X = rng.random((30, 3))
    m0 = BRCGClassifier(binarizer="quantile", n_thresholds=3).fit(X, np.zeros(30, int))
    assert m0.rules_.n_rules == 0 and not m0.predict(X).any() and m0.stop_reason_ == "single_class"
    m1 = BRCGClassifier(binarizer="quantile", n_thresholds=3).fit(X, np.ones(30, int))
    # one class c: classes_ = [c], no rule is needed and every prediction is c
    assert m1.classes_.tolist() == [1] and m1.rules_.n_rules == 0 and m1.predict(X).tolist() == [1] * 30
    assert m1.objective_ == 0.0
    m2 = BRCGClassifier(binarizer="quantile", n_thresholds=3, target_class=0).fit(X, np.full(30, "yes"))
    assert m2.predict(X).tolist() == ["yes"] * 30
    # proven by argument: every objective is >= 0
    for m in (m0, m1, m2):
        assert m.status_ == "optimal" and m.lower_bound_ == 0.0 and m.gap_ == 0.0 and m.proven_


# ----------------------------------------------------------------------------- sample_weight, predict_proba, explain
def _binary_problem(seed=0, n=120, d=6):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.5).astype(np.int8)
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] & ~X[:, 3] & 1)).astype(np.int8)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


@pytest.mark.parametrize("form", ["light", "constraint"])
def test_integer_sample_weight_equals_repeated_rows(form):
    X, y = _binary_problem()
    w = np.random.default_rng(1).integers(0, 4, size=len(y))
    kw = dict(binarizer="passthrough", form=form, C=6.0 if form == "constraint" else None, pricing="beam+milp",
              max_literals=3, mip_time_limit=30)
    a = BRCGClassifier(**kw).fit(X, y, sample_weight=w)
    rep = np.repeat(np.arange(len(y)), w)
    b = BRCGClassifier(**kw).fit(X[rep], y[rep])
    assert a.proven_ and b.proven_
    # same optimum up to the weights' rescaling to mean 1 (which changes no argmin)
    scale = len(y) / w.sum() if form == "constraint" else 1.0
    assert a.objective_ == pytest.approx(scale * b.objective_, rel=1e-6)



def test_quantile_thresholds_move_with_repeated_rows_not_with_weights():
    """Why scikit-learn's ``check_sample_weight_equivalence_on_dense_data`` is an expected failure of
    BRCG (``interpretopt.estimator_checks``): the default binarizer takes deciles of the rows as given, so
    repeating rows moves the literals, while the same integer weights leave them where they were."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    w = rng.integers(0, 4, size=len(y))
    rep = np.repeat(np.arange(len(y)), w)
    weighted = BRCGClassifier(max_literals=2, random_state=0).fit(X, y, sample_weight=w)
    unweighted = BRCGClassifier(max_literals=2, random_state=0).fit(X, y)
    repeated = BRCGClassifier(max_literals=2, random_state=0).fit(X[rep], y[rep])
    thresholds = [m.binarizer_.thresholds_ for m in (weighted, unweighted, repeated)]  # feature -> thresholds
    assert list(thresholds[0]) == list(thresholds[1]) == list(thresholds[2]) == [0, 1, 2]
    for j in range(3):
        np.testing.assert_array_equal(thresholds[0][j], thresholds[1][j])
    assert any(not np.array_equal(thresholds[0][j], thresholds[2][j]) for j in range(3))

def test_sample_weight_zero_drops_samples():
    X, y = _binary_problem(seed=2)
    w = np.ones(len(y))
    w[::3] = 0
    keep = w > 0
    kw = dict(binarizer="passthrough", pricing="beam+milp", max_literals=3, mip_time_limit=30)
    a = BRCGClassifier(**kw).fit(X, y, sample_weight=w)
    b = BRCGClassifier(**kw).fit(X[keep], y[keep])
    # the light form's 1/n is 1 / (total weight) after rescaling: the same problem as the kept rows
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-6)


@pytest.mark.parametrize("bad, match", [
    (np.r_[np.ones(119), -1.0], "entry 119 is -1.0"),
    (np.r_[np.ones(119), np.nan], "entry 119 is nan"),
    (np.ones(5), r"shape \(120,\) expected, got \(5,\)"),
    (np.zeros(120), "every weight is zero"),
    ("heavy", "120 nonnegative numbers"),
])
def test_sample_weight_bad_input(bad, match):
    X, y = _binary_problem()
    with pytest.raises(InputError, match=match):
        BRCGClassifier(binarizer="passthrough").fit(X, y, sample_weight=bad)


def test_predict_proba_is_the_covering_rules_training_precision(bc):
    X, y = bc
    m = BRCGClassifier(**FAST).fit(X, y)
    cov = m.explain(X).to_numpy()
    assert cov.shape == (len(y), m.rules_.n_rules)
    # brute force: training precision of each rule and of the else branch
    prec = np.array([y[cov[:, k]].mean() for k in range(cov.shape[1])])
    unc = ~cov.any(axis=1)
    np.testing.assert_allclose(m.rule_precision_, prec)
    assert m.default_precision_ == pytest.approx(y[unc].mean())
    P = m.predict_proba(X)
    expect = np.where(unc, y[unc].mean(), np.where(cov, prec[None, :], -1).max(axis=1))
    np.testing.assert_allclose(P[:, 1], expect)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    # explain agrees with predict: a row is predicted positive exactly when some rule holds
    assert np.array_equal(cov.any(axis=1), m.predict(X) == m.classes_[1])
    assert list(m.explain(X.iloc[:2]).index) == list(X.index[:2])
    assert m.explain(X).columns[0].startswith("rule 1: ")


def test_predict_proba_target_class_zero_and_weights(bc):
    X, y = bc
    w = np.where(y == 1, 3.0, 1.0)
    m = BRCGClassifier(**FAST, target_class=0).fit(X, y, sample_weight=w)
    cov = m.explain(X).to_numpy()
    k0 = cov[:, 0]
    t = (y == 0).astype(float)
    assert m.rule_precision_[0] == pytest.approx((w[k0] * t[k0]).sum() / w[k0].sum())
    P = m.predict_proba(X)
    # the rules describe class 0: column 0 is their precision
    row = int(np.flatnonzero(k0 & (cov.sum(axis=1) == 1))[0])
    assert P[row, 0] == pytest.approx(m.rule_precision_[0])


def test_grounding_error_names_the_column(bc):
    X, y = bc
    g = RuleSet((Conjunction((Condition(2, "<=", 1.2345),)),))
    with pytest.raises(InputError, match="'mean perimeter <= 1.2345'"):
        GroundedBRCGClassifier(grounding=g, **FAST).fit(X, y)


def test_solver_roles_match_what_the_estimator_accepts():
    """The roles `interpretopt list solvers` prints. Both MILPs have continuous variables, so CP-SAT (integer
    models only) fills none, and naming it for one is refused before any solve (it was accepted, then failed
    at the first solve, after a whole column generation)."""
    from interpretopt.exceptions import ParameterError
    from interpretopt.methods.brcg import solver_roles

    assert solver_roles("highs", lp=True, milp=True, duals=True) == "master,pricing,integer"
    assert solver_roles("ortools_glop", lp=True, milp=False, duals=True) == "master"
    assert solver_roles("ortools_pdlp", lp=True, milp=False, duals=True) == "-"
    assert solver_roles("ortools_cpsat") == "-"
    assert solver_roles("scipy") == "pricing,integer"
    X, y = _binary_problem(n=60)
    with pytest.raises(ParameterError, match="integer solver 'ortools_cpsat'.*MILPs with continuous variables"):
        BRCGClassifier(binarizer="passthrough", mip_solver="ortools_cpsat").fit(X, y)
    with pytest.raises(ParameterError, match="fits none of its roles"):
        BRCGClassifier(binarizer="passthrough", solver="ortools_cpsat").fit(X, y)
