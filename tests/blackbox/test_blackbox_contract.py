"""scikit-learn's estimator checks on the MTRE-PAN target network."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from interpretopt.blackbox import MTREPANNetwork

_EXPECTED = {
    "check_classifiers_train": "two hidden layers of n_features (= 2) sigmoid units, trained a few calls, do not "
                               "reach the accuracy this check demands on its 3-class toy data",
}


@parametrize_with_checks([MTREPANNetwork(n_rounds=3, samples_per_round=2000, random_state=0)],
                         expected_failed_checks=lambda est: _EXPECTED)
def test_sklearn_contract(estimator, check):
    check(estimator)
