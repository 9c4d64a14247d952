"""Datasets, binarizers and seeded splits.

- :class:`Dataset`: features as a DataFrame (categoricals as pandas ``category``), labels,
  feature types, name and source; :meth:`Dataset.numeric` gives the float matrix black boxes use.
- :func:`load_dataset` / :func:`list_datasets`: the registry of named datasets: bundled
  (``breast_cancer``), synthetic (``waveform21``, ``waveform40``, ``circle``) and files placed in a
  data directory (``INTERPRETOPT_DATA`` or ``data_dir=``), each with its own cleaning.
- :func:`dataset_from_frame` / :func:`dataset_from_csv` for user data.
- The binarizer family (one threshold rule, :func:`splitting_thresholds` /
  :func:`quantile_thresholds`): :class:`QuantileBinarizer` / :class:`TreeBinarizer`,
  scikit-learn transformers to 0/1 columns, each column one :class:`~interpretopt.rules.Condition`;
  :class:`QuantileOneHotBinarizer`, quantile bins one-hot encoded (CRL); and the condition
  tables of ABBR (:func:`threshold_conditions`, :func:`checklist_conditions`).
- :class:`OneHotFrame` / :func:`one_hot_frame`: one-hot encoding of categorical columns
  (``load_dataset(..., one_hot=True)``).
- :func:`train_test_indices` / :func:`kfold_indices`: seeded splits over row indices.
"""

from interpretopt.data._binarize import QuantileBinarizer, TreeBinarizer, quantile_thresholds, splitting_thresholds
from interpretopt.data._conditions import ConditionTable, checklist_conditions, threshold_conditions
from interpretopt.data._onehot import QuantileOneHotBinarizer
from interpretopt.data._dataset import (
    Dataset,
    FeatureType,
    dataset_from_csv,
    dataset_from_frame,
    infer_feature_types,
)
from interpretopt.data._datasets import (
    DATA_ENV,
    DATASETS,
    DatasetSpec,
    list_datasets,
    load_dataset,
    resolve_data_dir,
)
from interpretopt.data._preprocess import ONE_HOT_SEP, OneHotFrame, one_hot_frame
from interpretopt.data._split import kfold_indices, train_test_indices
from interpretopt.data._unavailable import UNAVAILABLE_DATASETS, unavailable_reason
from interpretopt.data._synthetic import make_circle, make_waveform, waveform_base_waves

__all__ = [
    "DATASETS",
    "DATA_ENV",
    "Dataset",
    "ONE_HOT_SEP",
    "OneHotFrame",
    "one_hot_frame",
    "DatasetSpec",
    "FeatureType",
    "QuantileBinarizer",
    "QuantileOneHotBinarizer",
    "TreeBinarizer",
    "ConditionTable",
    "checklist_conditions",
    "quantile_thresholds",
    "splitting_thresholds",
    "threshold_conditions",
    "UNAVAILABLE_DATASETS",
    "dataset_from_csv",
    "dataset_from_frame",
    "infer_feature_types",
    "kfold_indices",
    "list_datasets",
    "load_dataset",
    "make_circle",
    "make_waveform",
    "resolve_data_dir",
    "train_test_indices",
    "unavailable_reason",
    "waveform_base_waves",
]
