"""Binarizers: every output column is its Condition evaluated on the input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from interpretopt.data import QuantileBinarizer, TreeBinarizer, dataset_from_frame
from interpretopt.exceptions import InputError
from interpretopt.rules import Condition


def _check_columns_are_conditions(binarizer, X):
    Z = binarizer.transform(X)
    assert Z.dtype == np.uint8 and Z.shape == (len(X), len(binarizer.conditions_))
    for k, c in enumerate(binarizer.conditions_):
        assert np.array_equal(Z[:, k].astype(bool), c.evaluate(X)), c
    return Z


def _mixed() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 60
    return pd.DataFrame({
        "age": rng.integers(18, 80, n).astype(float),
        "color": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
        "flag": rng.integers(0, 2, n),
        "sex": rng.choice(["F", "M"], n),
        "income": rng.normal(size=n),
    })


def test_quantile_binarizer_on_mixed_frame():
    X = _mixed()
    b = QuantileBinarizer().fit(X)
    assert b.feature_kinds_ == ["numeric", "categorical", "binary", "binary", "numeric"]
    names = b.get_feature_names_out().tolist()
    assert "color == red" in names and "color != red" in names
    assert "flag == 1" in names and "flag != 1" in names
    assert "sex == M" in names and "sex != M" in names and "sex == F" not in names
    assert len(b.thresholds_[4]) == 9, "deciles of a continuous feature"
    np.testing.assert_allclose(b.thresholds_[4], np.quantile(X["income"], np.arange(1, 10) / 10))
    Z = _check_columns_are_conditions(b, X)
    # each numeric threshold gives a <= column and its complement > column
    k = len(b.thresholds_[0])
    assert np.all(Z[:, :k] + Z[:, k:2 * k] == 1)
    assert list(b.feature_names_in_) == list(X.columns)


def test_negations_off_keeps_both_threshold_directions():
    X = _mixed()
    b = QuantileBinarizer(n_thresholds=3, negations=False).fit(X)
    ops = {(c.feature, c.op) for c in b.conditions_}
    assert (0, "<=") in ops and (0, ">") in ops
    assert not any(c.op == "!=" for c in b.conditions_)
    _check_columns_are_conditions(b, X)


def test_categorical_features_option_on_numeric_codes():
    X = np.array([[0, 1.5], [1, 2.5], [2, 0.5], [1, 3.5]])
    b = QuantileBinarizer(n_thresholds=2, categorical_features=[0]).fit(X)
    assert b.feature_kinds_[0] == "categorical"
    assert [c for c in b.conditions_ if c.feature == 0][:3] == [Condition(0, "==", 0.0), Condition(0, "==", 1.0),
                                                                Condition(0, "==", 2.0)]
    assert b.get_feature_names_out(["code", "v"])[0] == "code == 0"
    assert b.get_feature_names_out()[0] == "x0 == 0"
    with pytest.raises(InputError, match="not found"):
        QuantileBinarizer(categorical_features=[5]).fit(X)


def test_dataset_frame_with_unseen_category_and_nan():
    X = _mixed()
    b = QuantileBinarizer(n_thresholds=4).fit(X)
    Y = X.head(3).copy()
    Y["color"] = pd.Categorical(["purple", None, "red"])
    Y.loc[0, "age"] = np.nan
    Z = _check_columns_are_conditions(b, Y)
    names = list(b.get_feature_names_out())
    assert Z[0, names.index("color != red")] == 1 and Z[0, names.index("color == red")] == 0
    assert Z[0, [i for i, c in enumerate(b.conditions_) if c.feature == 0]].sum() == 0


def test_constant_and_nan_columns():
    X = np.array([[1.0, np.nan, 5.0], [1.0, np.nan, 6.0], [1.0, np.nan, 7.0]])
    b = QuantileBinarizer(n_thresholds=3).fit(X)
    assert all(c.feature == 2 for c in b.conditions_)
    _check_columns_are_conditions(b, X)


def test_bad_input():
    with pytest.raises(InputError, match="2-D"):
        QuantileBinarizer().fit(np.arange(4.0))
    with pytest.raises(InputError, match="n_thresholds"):
        QuantileBinarizer(n_thresholds=0).fit(np.ones((3, 1)))
    with pytest.raises(InputError, match="infinite"):
        QuantileBinarizer().fit(np.array([[1.0], [np.inf], [2.0]]))
    b = QuantileBinarizer().fit(np.arange(10.0).reshape(5, 2))
    with pytest.raises(InputError, match="X has 3 features, but QuantileBinarizer is expecting 2"):
        b.transform(np.ones((2, 3)))
    with pytest.raises(InputError, match="requires y to be passed"):
        TreeBinarizer().fit(np.ones((3, 1)), None)
    with pytest.raises(InputError, match="1-D with 3 labels"):
        TreeBinarizer().fit(np.ones((3, 1)), [0, 1])


@given(hnp.arrays(np.float64, st.tuples(st.integers(2, 40), st.integers(1, 4)),
                  elements=st.floats(-100, 100, allow_nan=False)), st.integers(1, 12))
def test_property_columns_equal_conditions(X, n_thresholds):
    b = QuantileBinarizer(n_thresholds=n_thresholds).fit(X)
    Z = _check_columns_are_conditions(b, X)
    # no constant threshold columns; <= and > columns are complements
    for j, thr in b.thresholds_.items():
        assert len(thr) <= n_thresholds and np.all(np.diff(thr) > 0)
        col = X[:, j]
        assert np.all((thr >= col.min()) & (thr < col.max()))
    assert Z.shape[0] == X.shape[0]


def test_tree_binarizer_finds_the_true_threshold():
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, 400)
    noise = rng.normal(size=400)
    y = (x > 6.3).astype(int)
    X = np.column_stack([x, noise])
    b = TreeBinarizer(max_depth=1).fit(X, y)
    assert len(b.thresholds_[0]) == 1 and abs(b.thresholds_[0][0] - 6.3) < 0.1
    Z = _check_columns_are_conditions(b, X)
    col = [k for k, c in enumerate(b.conditions_) if c == Condition(0, ">", float(b.thresholds_[0][0]))][0]
    assert np.array_equal(Z[:, col], y)


def test_tree_binarizer_regression_and_categoricals_and_depth():
    X = _mixed()
    y = X["age"].to_numpy() * 0.5 + 0.1
    b = TreeBinarizer(max_depth=2, random_state=0).fit(X, y)
    assert all(len(t) <= 3 for t in b.thresholds_.values())
    _check_columns_are_conditions(b, X)
    assert TreeBinarizer(max_depth=1).fit(X, np.zeros(len(X))).thresholds_[0].size == 0


def test_sklearn_contract_clone_and_pipeline():
    ds = dataset_from_frame(pd.DataFrame({"a": np.arange(40.0), "b": np.arange(40.0) % 7,
                                          "t": (np.arange(40) > 20).astype(int)}), "t")
    for est in (QuantileBinarizer(n_thresholds=3), TreeBinarizer(max_depth=2)):
        c = clone(est)
        assert c.get_params() == est.get_params()
        pipe = make_pipeline(c, LogisticRegression()).fit(ds.X, ds.y)
        assert pipe.score(ds.X, ds.y) > 0.9


def test_max_categories_keeps_the_most_frequent():
    X = pd.DataFrame({"c": ["a"] * 5 + ["b"] * 3 + ["c"] * 2 + ["d"], "v": np.arange(11.0)})
    b = QuantileBinarizer(n_thresholds=2, max_categories=2).fit(X)
    assert b.categories_[0] == ["a", "b"]
    Z = _check_columns_are_conditions(b, X)
    assert Z[-1, :2].sum() == 0 and Z[-1, 2:4].sum() == 2  # 'd' is in neither == column, in both != columns
    with pytest.raises(InputError, match="max_categories"):
        QuantileBinarizer(max_categories=0).fit(X)


def test_mixed_type_category_column():
    X = pd.DataFrame({"m": pd.Series([1, "one", 1, "two", None], dtype=object)})
    b = QuantileBinarizer().fit(X)
    assert b.feature_kinds_ == ["categorical"]
    _check_columns_are_conditions(b, X)


@pytest.mark.parametrize("name", ["compas", "german", "coupon"])
def test_columns_equal_conditions_on_real_data(name, data_dir):
    from interpretopt.data import load_dataset

    ds = load_dataset(name, data_dir=data_dir)
    for b in (QuantileBinarizer().fit(ds.X), TreeBinarizer(random_state=0).fit(ds.X, ds.y)):
        _check_columns_are_conditions(b, ds.X)
        kinds = dict(zip(ds.feature_names, b.feature_kinds_))
        assert all(kinds[c] != "numeric" for c, t in ds.feature_types.items() if t == "categorical")


# -----------------------------------------------------------------------------
# scikit-learn's estimator checks on the binarizers.


@parametrize_with_checks([QuantileBinarizer(), TreeBinarizer()])
def test_sklearn_contract(estimator, check):
    check(estimator)


def test_regression_binarizer_rejects_inf_in_two_valued_numeric_column():
    """A numeric column with values {1, inf} was taken as a binary feature and inf as a category."""
    with pytest.raises(InputError, match="infinite"):
        QuantileBinarizer().fit(np.array([[1.0], [np.inf], [1.0]]))
    with pytest.raises(InputError, match="infinite"):
        TreeBinarizer().fit(np.array([[1.0], [-np.inf]]), [0, 1])
    # bool and categorical columns are not numeric values and stay accepted
    QuantileBinarizer().fit(pd.DataFrame({"b": [True, False], "c": pd.Categorical(["u", "v"])}))


@pytest.mark.parametrize("bad, match", [
    (np.array([[1.0, np.nan]]), None),  # NaN is allowed by the binarizers; checked below
    (np.array([1.0, 2.0]), "2-D"),
    (np.zeros((2, 2, 2)), "2-D"),
])
def test_binarizer_shapes_and_nan(bad, match):
    if match is None:
        b = QuantileBinarizer(n_thresholds=1).fit(np.array([[1.0, 1.0], [2.0, 2.0], [3.0, np.nan]]))
        out = b.transform(bad)
        assert out.shape == (1, len(b.conditions_))
        # a missing value satisfies no '<=', '>', '==' column, and every '!=' column (as Condition.evaluate)
        for k, c in enumerate(b.conditions_):
            if c.feature == 1:
                assert out[0, k] == (c.op == "!=")
            assert out[0, k] == c.evaluate(bad)[0]
        return
    with pytest.raises(InputError, match=match):
        QuantileBinarizer().fit(bad)


# ----------------------------------------------------------------------------- the family's threshold rule
def test_splitting_thresholds_keep_the_distinct_cuts_inside_min_max():
    from interpretopt.data import splitting_thresholds

    v = np.array([1.0, 2.0, 2.0, 5.0])
    assert splitting_thresholds([5.0, 0.5, 2.0, 2.0, 1.0, 4.9], v).tolist() == [1.0, 2.0, 4.9]
    assert splitting_thresholds([1.0], np.array([])).tolist() == []


@settings(max_examples=30)
@given(seed=st.integers(0, 10_000), nt=st.integers(1, 12))
def test_quantile_binarizer_thresholds_are_the_familys(seed, nt):
    from interpretopt.data import quantile_thresholds

    rng = np.random.default_rng(seed)
    x = rng.exponential(size=40).round(1)
    b = QuantileBinarizer(n_thresholds=nt).fit(x.reshape(-1, 1))
    assert np.array_equal(b.thresholds_[0], quantile_thresholds(x, np.arange(1, nt + 1) / (nt + 1)))
