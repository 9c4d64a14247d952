"""Dataset value, user data (DataFrame / CSV) and its errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from interpretopt.data import (
    Dataset,
    dataset_from_csv,
    dataset_from_frame,
    infer_feature_types,
)
from interpretopt.exceptions import DataError, InputError


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "age": [25, 40, 33, 51, 62, 19],
        "city": ["b", "a", "c", "a", "b", "c"],
        "smoker": [0, 1, 0, 1, 1, 0],
        "code": [3, 7, 3, 7, 9, 3],
        "label": ["yes", "no", "yes", "no", "no", "yes"],
    })


def test_from_frame_types_labels_and_numeric():
    ds = dataset_from_frame(_frame(), "label", categorical=["code"])
    assert ds.feature_types == {"age": "numeric", "city": "categorical", "smoker": "binary", "code": "categorical"}
    assert isinstance(ds.X["city"].dtype, pd.CategoricalDtype)
    assert ds.class_names == ("no", "yes")
    assert ds.y.tolist() == [1, 0, 1, 0, 0, 1]
    assert (ds.n_samples, ds.n_features, ds.n_classes) == (6, 4, 2)
    X = ds.numeric()
    assert X.dtype == float and X.shape == (6, 4)
    # string categories become their sorted codes; numeric categories keep their values
    assert X[:, 1].tolist() == [1, 0, 2, 0, 1, 2]
    assert X[:, 3].tolist() == [3, 7, 3, 7, 9, 3]
    assert ds.categorical_features == [1, 3]


def test_numeric_missing_category_is_nan():
    df = pd.DataFrame({"c": ["x", None, "y"], "t": [0, 1, 0]})
    X = dataset_from_frame(df, "t").numeric()
    assert X[0, 0] == 0 and np.isnan(X[1, 0]) and X[2, 0] == 1


def test_unknown_target_lists_columns():
    with pytest.raises(InputError, match="target column 'nope' not found; columns are: age, city"):
        dataset_from_frame(_frame(), "nope")


@pytest.mark.parametrize("bad", [np.zeros((3, 2)), [[1, 2]]])
def test_from_frame_rejects_non_frames(bad):
    with pytest.raises(InputError, match="expects a pandas DataFrame"):
        dataset_from_frame(bad, "t")


def test_target_with_missing_values():
    df = pd.DataFrame({"a": [1, 2, 3], "t": [0, None, 1]})
    with pytest.raises(InputError, match="missing value"):
        dataset_from_frame(df, "t")


def test_only_target_column():
    with pytest.raises(InputError, match="no feature columns"):
        dataset_from_frame(pd.DataFrame({"t": [0, 1]}), "t")


def test_subsample_and_take():
    ds = dataset_from_frame(pd.DataFrame({"a": np.arange(100.0), "t": np.arange(100) % 2}), "t")
    sub = ds.subsample(10, random_state=3)
    assert sub.n_samples == 10
    a = sub.X["a"].to_numpy()
    assert np.all(np.diff(a) > 0), "subsample keeps the original row order"
    assert np.array_equal(sub.y, a.astype(int) % 2), "labels stay aligned with rows"
    assert np.array_equal(sub.X.index, np.arange(10))
    assert ds.subsample(10, random_state=3).X.equals(sub.X)
    assert ds.subsample(1000) is ds
    strat = ds.subsample(20, random_state=0, stratify=True)
    assert np.bincount(strat.y).tolist() == [10, 10]
    mask = np.zeros(100, dtype=bool)
    mask[[5, 7]] = True
    assert ds.take(mask).X["a"].tolist() == [5.0, 7.0]
    with pytest.raises(InputError):
        ds.subsample(0)


def test_dataset_validates_shapes():
    X = pd.DataFrame({"a": [1.0, 2.0]})
    with pytest.raises(InputError, match="2 rows but y has 3"):
        Dataset("d", X, np.array([0, 1, 0]), {"a": "numeric"})
    with pytest.raises(InputError, match="feature_types lacks"):
        Dataset("d", X, np.array([0, 1]), {})
    with pytest.raises(InputError, match="must be a pandas DataFrame"):
        Dataset("d", np.zeros((2, 1)), np.array([0, 1]), {"a": "numeric"})


def test_dataset_is_frozen():
    ds = dataset_from_frame(_frame(), "label")
    with pytest.raises(AttributeError):
        ds.name = "other"


def test_infer_feature_types_bool_and_two_valued():
    X = pd.DataFrame({"b": [True, False], "two": [0.0, 1.0], "other": [2.0, 5.0], "s": ["u", "v"]})
    assert infer_feature_types(X) == {"b": "binary", "two": "binary", "other": "numeric", "s": "categorical"}


def test_from_csv_roundtrip_and_options(tmp_path):
    path = tmp_path / "mine.csv"
    _frame().to_csv(path, index=False)
    ds = dataset_from_csv(path, "label")
    assert ds.name == "mine" and ds.n_samples == 6 and ds.source == str(path)
    semi = tmp_path / "semi.csv"
    _frame().to_csv(semi, index=False, sep=";")
    assert dataset_from_csv(semi, "label", sep=";").n_features == 4


def test_from_csv_errors(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        dataset_from_csv(tmp_path / "absent.csv", "t")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataError, match="could not parse"):
        dataset_from_csv(empty, "t")
    bad_gz = tmp_path / "broken.csv.gz"
    bad_gz.write_bytes(b"this is not gzip data")
    with pytest.raises(DataError, match="broken.csv.gz"):
        dataset_from_csv(bad_gz, "t")
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,t\n1,0\n1,2,3,4\n")
    with pytest.raises(DataError, match="could not parse"):
        dataset_from_csv(ragged, "t")
    ok = tmp_path / "ok.csv"
    ok.write_text("a,b\n1,0\n2,1\n")
    with pytest.raises(InputError, match="columns are: a, b"):
        dataset_from_csv(ok, "t")


def test_regression_dataset_numeric_names_a_string_column():
    """A Dataset built directly with an object column failed inside pandas/numpy in numeric()."""
    from interpretopt.data import Dataset

    X = pd.DataFrame({"a": [1.0, 2.0], "s": ["u", "v"]})
    ds = Dataset("d", X, np.array([0, 1]), {"a": "numeric", "s": "categorical"})
    with pytest.raises(InputError, match="column 's'.*neither numeric nor a pandas category"):
        ds.numeric()
