"""scikit-learn's estimator checks over every registered estimator (see :mod:`interpretopt.estimator_checks`),
and the contract regressions of issue 12 on each of them."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone, is_classifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from interpretopt.estimator_checks import check_instance, expected_failed_checks
from interpretopt.exceptions import InputError, NotFittedError
from interpretopt.methods import ESTIMATORS

# Estimators whose modules are being rewritten by their method's work; the contract is applied
# to them when that work lands (until then they keep their own checks).
# BRCGDiff is binary-only, and the generic checks give a non-classifier multi-class targets.
CONTRACT_PENDING = {"BRCGDiff"}
NAMES = [n for n in (e.name for e in ESTIMATORS.values()) if n not in CONTRACT_PENDING]
REG_NAMES = NAMES


@parametrize_with_checks([check_instance(n) for n in NAMES], expected_failed_checks=expected_failed_checks)
def test_sklearn_contract(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # incumbents at a time limit are reported as warnings
        check(estimator)


def _data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X, y


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return clone(est).fit(X, y)


@pytest.mark.parametrize("name", REG_NAMES)
def test_reordered_or_renamed_dataframe_columns_raise(name):
    """Regression: every estimator predicted by column position, so reversed columns gave other predictions."""
    X, y = _data()
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    est = _fit(check_instance(name), df, y)
    assert list(est.feature_names_in_) == ["a", "b", "c"]
    with pytest.raises(InputError, match="(?s)same order as they were in fit.*got column 'c', fit had 'a'"):
        est.predict(df[["c", "b", "a"]])
    with pytest.raises(InputError, match="unseen at fit time:\n- z"):
        est.predict(df.rename(columns={"a": "z"}))


@pytest.mark.parametrize("name", REG_NAMES)
def test_nan_inf_and_string_cells_are_rejected(name):
    """Regression: NaN was fitted and predicted; one 'abc' cell made a numeric column categorical."""
    X, y = _data()
    est = check_instance(name)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(InputError, match="NaN .* in column 1, first at row 3"):
        _fit(est, bad, y)
    bad[3, 1] = np.inf
    with pytest.raises(InputError, match="inf"):
        _fit(est, bad, y)
    cell = X.astype(object)
    cell[5, 0] = "abc"
    with pytest.raises(InputError, match="'abc'"):
        _fit(est, cell, y)
    fitted = _fit(est, X, y)
    with pytest.raises(InputError, match="NaN"):
        fitted.predict(np.where(np.arange(X.size).reshape(X.shape) == 4, np.nan, X))


@pytest.mark.parametrize("name", REG_NAMES)
def test_predict_before_fit_and_1d_input(name):
    """Regression: predict before fit raised AttributeError; 1-D X raised IndexError."""
    X, y = _data()
    est = check_instance(name)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        est.predict(X)
    with pytest.raises(InputError, match="1-D array of length 80"):
        _fit(est, X[:, 0], y)


@pytest.mark.parametrize("name", [n for n in REG_NAMES if is_classifier(check_instance(n))])
@pytest.mark.parametrize("labels", [(1, 2), (-1, 1), ("no", "yes"), (False, True)])
def test_binary_classifiers_take_any_two_labels(name, labels):
    """Regression: BRCG accepted only {0, 1} (classes_ was hard-coded)."""
    X, y = _data()
    est = check_instance(name)
    ref = _fit(est, X, y)
    yl = np.where(y == 1, labels[1], labels[0])
    got = _fit(est, X, yl)
    assert got.classes_.tolist() == sorted(labels)
    np.testing.assert_array_equal(got.predict(X), np.where(ref.predict(X) == 1, labels[1], labels[0]))
