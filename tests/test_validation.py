"""The estimator contract helpers: parameter schemas, input validation, label encoding, fitted state."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError as SkNotFittedError
from sklearn.utils._param_validation import InvalidParameterError

from interpretopt._validation import (
    RANDOM_STATE,
    ContractMixin,
    Interval,
    StrOptions,
    check_fitted,
    check_params,
    did_you_mean,
    encode_binary_target,
    render_names,
    validate_data,
)
from interpretopt.exceptions import InputError, InputTypeError, NotFittedError, ParameterError


class _Toy(ContractMixin, BaseEstimator):
    _parameter_constraints = {
        "depth": [Interval(Integral, 1, None, closed="left")],
        "rate": [Interval(Real, 0, 1, closed="both"), None],
        "mode": [StrOptions({"fast", "exact"})],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, depth=3, rate=None, mode="fast", random_state=None):
        self.depth = depth
        self.rate = rate
        self.mode = mode
        self.random_state = random_state

    def fit(self, X, y=None):
        return self


def test_validate_params_accepts_the_schema_and_names_bad_values():
    _Toy(depth=2, rate=0.5, mode="exact", random_state=np.random.default_rng(0))._validate_params()
    with pytest.raises(ParameterError, match=r"'depth' parameter of _Toy must be an int in the range \[1, inf\)\. Got 0"):
        _Toy(depth=0)._validate_params()
    with pytest.raises(ParameterError, match="'mode'.*Got 'slow'"):
        _Toy(mode="slow")._validate_params()
    with pytest.raises(InvalidParameterError):  # scikit-learn's own type, so its checks recognise it
        _Toy(rate=2.0)._validate_params()


def test_check_params_unknown_key_has_did_you_mean_and_valid_names():
    check_params(_Toy, {"depth": 4, "mode": "fast"})
    with pytest.raises(ParameterError) as e:
        check_params(_Toy, {"dept": 4})
    msg = str(e.value)
    assert "'dept'" in msg and "did you mean 'depth'?" in msg and "valid parameters: depth, mode, random_state, rate" in msg
    with pytest.raises(ParameterError, match="Got 'x'"):
        check_params(_Toy, {"rate": "x"})
    check_params(_Toy, {"extra": 1}, extra={"extra": [Integral]})
    assert did_you_mean("zzz", ["depth"]) == ""


def test_reordered_or_renamed_columns_raise_like_scikit_learn():
    X = pd.DataFrame(np.arange(12.0).reshape(4, 3), columns=["a", "b", "c"])
    est = _Toy()
    validate_data(est, X, reset=True)
    assert list(est.feature_names_in_) == ["a", "b", "c"] and est.n_features_in_ == 3
    with pytest.raises(InputError, match="(?s)same order.*position 0: got column 'c', fit had 'a'"):
        validate_data(est, X[["c", "b", "a"]], reset=False)
    with pytest.raises(InputError, match="unseen at fit time:\n- z"):
        validate_data(est, X.rename(columns={"a": "z"}), reset=False)
    with pytest.raises(InputError, match="missing:\n- c"):
        validate_data(est, X[["a", "b"]], reset=False)
    with pytest.warns(UserWarning, match="does not have valid feature names"), \
            pytest.raises(InputError, match="X has 2 features, but _Toy is expecting 3"):
        validate_data(est, np.ones((2, 2)), reset=False)
    np.testing.assert_array_equal(validate_data(est, X, reset=False), X.to_numpy())


def test_arrays_set_no_feature_names():
    est = _Toy()
    validate_data(est, np.ones((3, 2)), reset=True)
    assert est.n_features_in_ == 2 and not hasattr(est, "feature_names_in_")
    assert render_names(est) == ["x0", "x1"] and render_names(est, ["p", "q"]) == ["p", "q"]


@pytest.mark.parametrize("X, match", [
    (np.array([[1.0, np.nan], [2.0, 3.0]]), r"1 NaN \(missing\) value\(s\) in column 1, first at row 0"),
    (np.array([[1.0, 2.0], [np.inf, 3.0]]), r"1 infinite \(inf\) value\(s\) in column 0, first at row 1"),
    (np.array([[1, "abc"], [2, 3]], dtype=object), "column 1 holds the non-numeric value 'abc' \\(row 0\\)"),
    (np.arange(3.0), "got a 1-D array of length 3; Reshape"),
    (np.ones((2, 2, 2)), r"got shape \(2, 2, 2\)"),
    (np.empty((0, 3)), r"0 sample\(s\) \(shape=\(0, 3\)\)"),
    (np.empty((3, 0)), r"0 feature\(s\) \(shape=\(3, 0\)\) while a minimum of 1 is required"),
    (np.array([[1 + 2j]]), "Complex data not supported"),
    (pd.DataFrame({"a": pd.Categorical(["x", "y"])}), "column 'a' is categorical"),
    (pd.Series([1.0, 2.0]), "got a pandas Series"),
    (None, "X is None"),
])
def test_bad_numeric_inputs_name_the_problem(X, match):
    with pytest.raises(InputError, match=match):
        validate_data(_Toy(), X, reset=True)


def test_a_dict_cell_is_a_type_error_with_numpys_wording():
    X = np.ones((3, 2), dtype=object)
    X[0, 0] = {"foo": "bar"}
    with pytest.raises(InputTypeError, match="argument must be .* string.* number"):
        validate_data(_Toy(), X, reset=True)


def test_object_arrays_of_numbers_and_numeric_strings_are_numeric():
    X = np.array([[1.5, "2"], [3, "4.5"]], dtype=object)
    np.testing.assert_array_equal(validate_data(_Toy(), X, reset=True), [[1.5, 2.0], [3.0, 4.5]])


def test_tables_keep_categorical_columns_and_reject_mixed_ones():
    est = _Toy()
    X = pd.DataFrame({"num": [1, 2, 3], "cat": ["x", "y", "x"], "codes": pd.Categorical([1, 2, 1])})
    out = validate_data(est, X, reset=True, categorical=True)
    assert list(out.columns) == ["num", "cat", "codes"]
    assert out["num"].dtype == float and isinstance(out["cat"].dtype, pd.CategoricalDtype)
    assert isinstance(out["codes"].dtype, pd.CategoricalDtype)
    with pytest.raises(InputError, match="column 'num' is categorical but was numeric at fit"):
        validate_data(est, X.assign(num=["a", "b", "c"]), reset=False, categorical=True)
    mixed = X.assign(cat=["x", 1.5, "y"])
    with pytest.raises(InputError, match="column 'cat' mixes numbers and strings"):
        validate_data(_Toy(), mixed, reset=True, categorical=True)
    # a numeric array with one string cell: an error, never a categorical column
    arr = np.array([[0.1, 1.0], ["abc", 2.0], [0.3, 3.0]], dtype=object)
    with pytest.raises(InputError, match="column 0 mixes numbers and strings \\(e.g. 'abc' at row 1\\)"):
        validate_data(_Toy(), arr, reset=True, categorical=True)
    with pytest.raises(InputError, match="NaN"):
        validate_data(_Toy(), pd.DataFrame({"c": ["x", None, "y"]}), reset=True, categorical=True)
    arr_names = validate_data(_Toy(), np.array([["u", 1.0], ["v", 2.0]], dtype=object), reset=True, categorical=True)
    assert list(arr_names.columns) == ["x0", "x1"] and isinstance(arr_names["x0"].dtype, pd.CategoricalDtype)


def test_a_boolean_array_keeps_boolean_columns_as_a_table_does():
    X = np.array([[True, False], [False, False], [True, True]])
    out = validate_data(_Toy(), X, reset=True, categorical=True)
    table = validate_data(_Toy(), pd.DataFrame(X, columns=["x0", "x1"]), reset=True, categorical=True)
    assert list(out.dtypes) == [bool, bool] == list(table.dtypes)
    assert (out.to_numpy() == X).all()
    # without categorical columns the contract is a float array, booleans included
    assert validate_data(_Toy(), X, reset=True).dtype == float


def test_allow_nan_keeps_nan_and_still_rejects_inf():
    X = np.array([[np.nan, 1.0], [2.0, 3.0]])
    assert np.isnan(validate_data(_Toy(), X, reset=True, allow_nan=True)[0, 0])
    with pytest.raises(InputError, match="inf"):
        validate_data(_Toy(), np.array([[np.inf]]), reset=True, allow_nan=True)


def test_min_samples_message_and_y_length():
    with pytest.raises(InputError, match="n_samples = 1"):
        validate_data(_Toy(), np.ones((1, 2)), reset=True, min_samples=2)
    with pytest.raises(InputError, match="y has 2 labels but X has 3 rows"):
        validate_data(_Toy(), np.ones((3, 2)), [0, 1], reset=True)
    with pytest.raises(InputError, match="requires y"):
        validate_data(_Toy(), np.ones((3, 2)), None, reset=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _, y = validate_data(_Toy(), np.ones((3, 2)), np.array([[0], [1], [0]]), reset=True)
    assert y.shape == (3,) and any("column-vector y" in str(x.message) for x in w)


@pytest.mark.parametrize("y", [[0, 1, 0, 1], [1, 2, 1, 2], [-1, 1, -1, 1], ["no", "yes", "no", "yes"],
                               [False, True, False, True], [0.0, 1.0, 0.0, 1.0]])
def test_label_encoder_takes_any_two_labels(y):
    classes, codes = encode_binary_target(_Toy(), y, n_samples=4)
    assert classes.tolist() == sorted(set(y)) and codes.tolist() == [0, 1, 0, 1]
    np.testing.assert_array_equal(classes[codes], np.asarray(y))


@pytest.mark.parametrize("y, match", [
    ([0, 1, 2, 0], r"Only binary classification is supported.*y has 3 classes \[0, 1, 2\].*OneVsRestClassifier"),
    ([0.1, 0.2, 0.3, 0.4], "Unknown label type: continuous"),
    ([0.0, np.nan, 1.0, 0.0], "1 NaN or infinite label"),
    ([1, 1, 1, 1], r"only one class \[1\]"),
    (np.array(["a", 1, "b", 1], dtype=object), "mixes label types"),
    (np.array(["a", None, "b", "a"], dtype=object), "missing labels"),
])
def test_label_encoder_rejects_what_it_cannot_encode(y, match):
    with pytest.raises(InputError, match=match):
        encode_binary_target(_Toy(), y, n_samples=4)


def test_single_class_allowed_on_request():
    classes, codes = encode_binary_target(_Toy(), ["a", "a"], n_samples=2, allow_single_class=True)
    assert classes.tolist() == ["a"] and codes.tolist() == [0, 0]


def test_check_fitted_raises_our_not_fitted_error():
    est = _Toy()
    with pytest.raises(NotFittedError) as e:
        check_fitted(est)
    assert isinstance(e.value, SkNotFittedError) and "_Toy" in str(e.value)
    est.tree_ = 1
    check_fitted(est)


def test_category_codes_keep_their_fit_meaning():
    est = _Toy()
    validate_data(est, pd.DataFrame({"c": ["b", "a", "c"]}), reset=True, categorical=True)
    out = validate_data(est, pd.DataFrame({"c": ["c", "z"]}), reset=False, categorical=True)
    assert list(out["c"].cat.categories) == ["a", "b", "c", "z"] and out["c"].cat.codes.tolist() == [2, 3]
