"""One-hot encoding of categorical columns (the IMD paper's preprocessing)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from interpretopt.data import OneHotFrame, load_dataset, one_hot_frame
from interpretopt.exceptions import InputError


def _frame():
    return pd.DataFrame({"colour": ["red", "blue", "red", "green"], "size": [1.0, 2.5, 3.0, 4.0],
                         "kind": pd.Categorical([3, 1, 3, 2]), "flag": [True, False, True, True]})


def test_indicators_replace_categorical_columns_in_place():
    out = one_hot_frame(_frame())
    assert list(out.columns) == ["colour=blue", "colour=green", "colour=red", "size", "kind=1", "kind=2", "kind=3",
                                 "flag"]
    assert out["colour=red"].tolist() == [1, 0, 1, 0]
    assert out["kind=3"].tolist() == [1, 0, 1, 0]
    assert out["size"].tolist() == [1.0, 2.5, 3.0, 4.0]
    # exactly one indicator per row and feature
    assert (out[["colour=blue", "colour=green", "colour=red"]].sum(axis=1) == 1).all()


def test_unseen_and_missing_categories_give_all_zeros():
    enc = OneHotFrame().fit(_frame())
    new = pd.DataFrame({"colour": ["purple", None], "size": [0.0, 1.0], "kind": pd.Categorical([1, 2]),
                        "flag": [False, False]})
    X = enc.transform(new)
    assert X.shape == (2, 8) and X[:, :3].sum() == 0
    with pytest.raises(InputError, match="columns"):
        enc.transform(new[["size", "colour", "kind", "flag"]])
    with pytest.raises(InputError, match="not fitted"):
        OneHotFrame().transform(new)
    with pytest.raises(InputError, match="not in the frame"):
        OneHotFrame(("nope",)).fit(new)


def test_load_dataset_one_hot_option(data_dir):
    plain = load_dataset("tictactoe", data_dir=data_dir, drop_duplicates=True)
    oh = load_dataset("tictactoe", data_dir=data_dir, drop_duplicates=True, one_hot=True)
    assert plain.X.shape == (958, 9) and oh.X.shape == (958, 27)
    assert oh.options["one_hot"] is True and set(oh.feature_types.values()) == {"binary"}
    assert (oh.numeric().reshape(958, 9, 3).sum(axis=2) == 1).all()
    adult = load_dataset("adult", data_dir=data_dir, drop_duplicates=True, one_hot=True, drop_fnlwgt=True)
    assert adult.n_samples == 42468 and adult.n_features == 107 and "fnlwgt" not in adult.feature_names
    assert "age" in adult.feature_names and "sex=0" in adult.feature_names


def test_one_hot_restores_the_linear_models_accuracy_on_tictactoe(data_dir):
    """Regression: integer codes gave LR about 70% on tictactoe, the paper reports 97.9% (one-hot)."""
    from interpretopt.blackbox import make_model
    from interpretopt.data import train_test_indices

    accs = {}
    for oh in (False, True):
        ds = load_dataset("tictactoe", data_dir=data_dir, drop_duplicates=True, one_hot=oh)
        tr, te = train_test_indices(ds.n_samples, 0.3, random_state=0, stratify=ds.y)
        m = make_model("LR").fit(ds.numeric()[tr], ds.y[tr])
        accs[oh] = float(np.mean(m.predict(ds.numeric()[te]) == ds.y[te]))
    assert accs[False] < 0.8 and accs[True] > 0.95
