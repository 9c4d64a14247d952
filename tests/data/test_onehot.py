"""Quantile one-hot binarization (``data._onehot``): bins at the family's quantile thresholds."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.data import QuantileOneHotBinarizer, quantile_thresholds
from interpretopt.heuristics import mining


def test_the_heuristics_layer_re_exports_the_data_layers_binarizer():
    assert mining.QuantileOneHotBinarizer is QuantileOneHotBinarizer


@settings(max_examples=30)
@given(seed=st.integers(0, 10_000), nq=st.integers(2, 9), n=st.integers(2, 60))
def test_bins_are_cut_at_the_quantile_thresholds(seed, nq, n):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).round(1)  # ties: duplicate quantiles merge
    X = np.column_stack([x, rng.random(n)])
    b = QuantileOneHotBinarizer(n_quantiles=nq, feature_types={0: "numeric", 1: "numeric"}).fit(X)
    items = [it for it in b.items_ if it.feature == 0]
    cuts = quantile_thresholds(x, np.arange(1, nq) / nq)
    assert [(it.lo, it.hi) for it in items] == list(zip([-math.inf, *cuts], [*cuts, math.inf]))
    B = b.transform(X)
    assert (B[:, [k for k, it in enumerate(b.items_) if it.feature == 0]].sum(axis=1) == 1).all()


def test_pinned_bins_and_names():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "c": ["u", "v", "u", "w", "v", "u"]}).astype(
        {"c": object})
    b = QuantileOneHotBinarizer(n_quantiles=3, negations=True).fit(X)
    assert b.get_feature_names_out().tolist() == [
        "a <= 2.667", "2.667 < a <= 4.333", "a > 4.333", "c = u", "c = v", "c = w",
        "a > 2.667", "not (2.667 < a <= 4.333)", "a <= 4.333", "c != u", "c != v", "c != w"]
    assert b.transform(X)[:, :6].tolist() == [
        [1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 1, 0], [0, 1, 0, 1, 0, 0], [0, 1, 0, 0, 0, 1], [0, 0, 1, 0, 1, 0],
        [0, 0, 1, 1, 0, 0]]


def test_regression_an_all_missing_numeric_column_is_one_empty_bin():
    """np.quantile of no values raised an IndexError; the column is now one bin that nothing falls in."""
    X = np.column_stack([np.full(5, np.nan), np.arange(5.0)])
    b = QuantileOneHotBinarizer(n_quantiles=3, feature_types={0: "numeric", 1: "numeric"}).fit(X)
    first = [k for k, it in enumerate(b.items_) if it.feature == 0]
    assert len(first) == 1 and b.transform(X)[:, first].sum() == 0
