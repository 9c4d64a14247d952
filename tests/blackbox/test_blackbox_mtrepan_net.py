"""The MTRE-PAN target network: architecture, scaling, best-epoch selection, logits."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from interpretopt.blackbox import MTREPANNetwork, make_model
from interpretopt.data import load_dataset
from interpretopt.exceptions import InputError


@pytest.fixture(scope="module")
def circle_net():
    ds = load_dataset("circle", n_samples=1500, random_state=0)
    X = ds.numeric() * 10 + 3  # scaling to [-1, 1] must make the raw units irrelevant
    net = make_model("MTREPAN_NET", random_state=0, max_epochs=40, learning_rate_init=0.01).fit(X, ds.y)
    return net, X, ds.y


def test_architecture_matches_the_paper(circle_net):
    net, X, _ = circle_net
    shapes = [w.shape for w in net.mlp_.coefs_]
    assert shapes == [(2, 2), (2, 2), (2, 1)]
    assert net.mlp_.activation == "logistic" and net.mlp_.out_activation_ == "logistic"
    Z = net.scaler_.transform(X)
    assert Z.min() == pytest.approx(-1) and Z.max() == pytest.approx(1)
    defaults = make_model("MTREPAN_NET")
    assert defaults.max_epochs == 100 and defaults.validation_fraction == 0.3


def test_best_epoch_is_kept(circle_net):
    net, _, _ = circle_net
    scores = net.validation_scores_
    assert len(scores) == 40
    assert net.best_validation_score_ == max(scores)
    assert scores[net.best_epoch_ - 1] == max(scores)


def test_logit_proba_and_predict_agree(circle_net):
    net, X, y = circle_net
    z = net.decision_function(X)
    p = net.predict_proba(X)[:, 1]
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-z)), rtol=1e-6, atol=1e-9)
    assert np.array_equal(net.predict(X), (z > 0).astype(int))
    h = net.last_hidden(X)
    assert h.shape == (len(X), 2) and np.all((h > 0) & (h < 1))
    np.testing.assert_allclose(h @ net.mlp_.coefs_[-1][:, 0] + net.mlp_.intercepts_[-1][0], z)


def test_learns_a_separable_problem():
    rng = np.random.default_rng(0)
    X = rng.uniform(-5, 5, size=(600, 3))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    net = MTREPANNetwork(max_epochs=30, learning_rate_init=0.02, random_state=1).fit(X, y)
    assert np.mean(net.predict(X) == y) > 0.95
    # an explicit validation set is used instead of a held-out fraction
    net2 = MTREPANNetwork(max_epochs=3, random_state=1).fit(X[:400], y[:400], X_val=X[400:], y_val=y[400:])
    assert len(net2.validation_scores_) == 3


def test_seeded_runs_are_identical():
    X = np.random.default_rng(2).normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    a = MTREPANNetwork(max_epochs=3, random_state=4).fit(X, y).decision_function(X)
    b = MTREPANNetwork(max_epochs=3, random_state=4).fit(X, y).decision_function(X)
    assert np.array_equal(a, b)


def test_bad_input():
    X = np.random.default_rng(0).normal(size=(20, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(InputError, match="only one class"):
        MTREPANNetwork(max_epochs=1).fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="NaN"):
        MTREPANNetwork(max_epochs=1).fit(np.full((20, 2), np.nan), y)
    with pytest.raises(InputError, match="max_epochs"):
        MTREPANNetwork(max_epochs=0).fit(X, y)
    with pytest.raises(InputError, match="both X_val and y_val"):
        MTREPANNetwork(max_epochs=1).fit(X, y, X_val=X)
    net = MTREPANNetwork(max_epochs=1, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features"):
        net.predict(np.ones((2, 3)))
    with pytest.raises(NotFittedError):
        MTREPANNetwork().predict(X)
