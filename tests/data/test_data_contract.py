"""scikit-learn's estimator checks on the binarizers."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from interpretopt.data import QuantileBinarizer, TreeBinarizer


@parametrize_with_checks([QuantileBinarizer(), TreeBinarizer()])
def test_sklearn_contract(estimator, check):
    check(estimator)
