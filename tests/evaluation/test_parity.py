"""Model parity (eq. 8), certain model parity (eq. 9), boundary model parity, boundary definitions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.evaluation.parity import (
    boundary_kind,
    boundary_mask,
    boundary_model_parity,
    certain_model_parity,
    model_parity,
    parity_report,
)
from interpretopt.exceptions import InputError


def test_hand_computed_values():
    target = np.array([1, 1, 0, 0, 1, 0, 1, 0])
    pred = np.array([1, 0, 0, 0, 1, 1, 1, 0])  # 6 agree
    unc = np.array([0, 0, 1, 0, 1, 0, 0, 0], dtype=bool)  # two agreeing samples are uncertain
    assert model_parity(pred, target) == pytest.approx(75.0)
    assert certain_model_parity(pred, unc, target) == pytest.approx(50.0)
    near = np.array([1, 1, 1, 0, 0, 0, 0, 0], dtype=bool)  # agree, miss, uncertain
    assert boundary_model_parity(pred, unc, target, near) == pytest.approx(100.0 / 3)
    assert np.isnan(boundary_model_parity(pred, unc, target, np.zeros(8, dtype=bool)))


@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_property_certain_parity_never_exceeds_model_parity(rows):
    a = np.array(rows, dtype=bool)
    pred, target, unc, near = a[:, 0].astype(int), a[:, 1].astype(int), a[:, 2], a[:, 3]
    mp = model_parity(pred, target)
    cp = certain_model_parity(pred, unc, target)
    assert 0.0 <= cp <= mp <= 100.0
    if not unc.any():
        assert cp == mp
    if near.any():
        bp = boundary_model_parity(pred, unc, target, near)
        assert bp == pytest.approx(certain_model_parity(pred[near], unc[near], target[near]))


def test_boundary_definitions():
    from sklearn.linear_model import LogisticRegression

    from interpretopt.blackbox import CircleTarget

    X = np.array([[0.0, 0.99], [0.0, 0.5], [2.0, 0.0], [1.02, 0.0]])
    circle = CircleTarget(1.0)
    assert boundary_kind(circle) == "score"
    assert boundary_mask(circle, X, 0.05).tolist() == [True, False, False, True]
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(200, 2))
    lr = LogisticRegression().fit(Z, (Z[:, 0] > 0).astype(int))
    assert boundary_kind(lr) == "probability"
    p = lr.predict_proba(Z)[:, 1]
    assert np.array_equal(boundary_mask(lr, Z, 0.1), np.abs(p - 0.5) <= 0.1)
    assert np.array_equal(boundary_mask(lr, Z, 0.1, kind="logit"), np.abs(lr.decision_function(Z)) <= 0.1)
    with pytest.raises(InputError):
        boundary_mask(lr, Z, 0.0)
    with pytest.raises(InputError):
        boundary_kind(lr, "distance")


def test_networks_use_the_input_of_the_last_layer():
    from interpretopt.blackbox import make_model

    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    net = make_model("MTREPAN_NET", random_state=0, n_rounds=2, samples_per_round=500).fit(X, y)
    assert boundary_kind(net) == "logit"
    assert np.array_equal(boundary_mask(net, X, 0.05), np.abs(net.decision_function(X)) <= 0.05)


def test_parity_report_on_a_translation():
    from interpretopt.blackbox import CircleTarget
    from interpretopt.methods.mtrepan import MTREPANClassifier

    X = np.random.default_rng(0).uniform(-2, 2, (200, 2))
    est = MTREPANClassifier(max_depth=3, batch_size=100, cutoff_variance=1e-3, random_state=0).fit(X, CircleTarget())
    V = np.random.default_rng(1).uniform(-2, 2, (3000, 2))
    rep = parity_report(est, CircleTarget(), V, depth=3)
    pred = est.predict(V, depth=3)
    assert rep["model_parity"] == pytest.approx(model_parity(pred, CircleTarget().predict(V)))
    assert rep["leaf_count"] == est.leaf_count(3)
    assert rep["n_boundary"] == int(boundary_mask(CircleTarget(), V, 0.05).sum()) > 0
    assert rep["boundary_kind"] == "score"
    # depth 1: the root alone is uncertain, so certain and boundary parity are 0
    rep1 = parity_report(est, CircleTarget(), V, depth=1)
    assert rep1["certain_model_parity"] == 0.0 and rep1["boundary_model_parity"] == 0.0 and rep1["leaf_count"] == 1
    # a plain function target: boundary parity is not defined
    rep_fn = est.parity(lambda Z: (np.einsum("ij,ij->i", Z, Z) <= 1).astype(int), V, depth=3)
    assert np.isnan(rep_fn["boundary_model_parity"]) and rep_fn["boundary_kind"] == "none"
    assert rep_fn["model_parity"] == pytest.approx(rep["model_parity"])


def test_length_mismatch_is_an_error():
    with pytest.raises(InputError):
        model_parity([0, 1], [0, 1, 1])
    with pytest.raises(InputError):
        certain_model_parity([0, 1], [True], [0, 1])


def test_release_boundary_set_is_the_chained_comparison_of_the_release():
    """Release Ann_Oracle::MarginFilter keeps x when `0.5 - margin > p > margin + 0.5`, which C++
    evaluates as `((0.5 - margin) > p) > (margin + 0.5)`: true exactly when p < 0.5 - margin."""
    from interpretopt.evaluation.parity import release_boundary_mask

    class Fixed:
        def __init__(self, p):
            self.p = np.asarray(p, dtype=float)

        def predict_proba(self, X):
            return np.column_stack([1 - self.p, self.p])

    p = np.array([0.0, 0.2, 0.449, 0.45, 0.47, 0.5, 0.53, 0.55, 0.9, 1.0])
    m = 0.05
    cxx = np.array([float((0.5 - m) > v) > (m + 0.5) for v in p])  # the C++ expression, step by step
    got = release_boundary_mask(Fixed(p), np.zeros((p.size, 1)), m)
    assert np.array_equal(got, cxx.astype(bool))
    assert got.tolist() == [True, True, True, False, False, False, False, False, False, False]
    # the circle oracle keeps the points inside the circle
    from interpretopt.blackbox import CircleTarget

    Z = np.array([[0.0, 0.0], [0.99, 0.0], [1.0, 0.0], [1.2, 0.3], [3.0, 3.0]])
    assert release_boundary_mask(CircleTarget(), Z, m).tolist() == [True, True, True, False, False]
    with pytest.raises(InputError, match="predict_proba or boundary_score"):
        release_boundary_mask(object(), Z, m)


def test_parity_report_adds_the_release_quantity_only_when_asked():
    from interpretopt.blackbox import CircleTarget
    from interpretopt.evaluation.parity import release_boundary_mask
    from interpretopt.methods.mtrepan import MTREPANClassifier

    X = np.random.default_rng(0).uniform(-2, 2, (200, 2))
    est = MTREPANClassifier(max_depth=3, batch_size=100, cutoff_variance=1e-3, random_state=0).fit(X, CircleTarget())
    V = np.random.default_rng(1).uniform(-2, 2, (3000, 2))
    rep = est.parity(CircleTarget(), V, depth=3, release_boundary=True)
    mask = release_boundary_mask(CircleTarget(), V)
    pred, unc = est.predict(V, depth=3), est.predict_uncertain(V, depth=3)
    t = CircleTarget().predict(V)
    assert rep["n_boundary_release"] == int(mask.sum())
    assert rep["boundary_model_parity_release"] == pytest.approx(certain_model_parity(pred[mask], unc[mask], t[mask]))
    assert "boundary_model_parity_release" not in est.parity(CircleTarget(), V, depth=3)
