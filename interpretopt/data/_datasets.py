"""Registry of named datasets: bundled, synthetic, and files in a data directory.

Every file loader knows its file name, target column, where to obtain the file (OpenML id or
UCI name) and its cleaning. Files are never shipped with the package: place them in a
directory and point ``INTERPRETOPT_DATA`` (or ``data_dir=``) at it.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from interpretopt._registry import Registry
from interpretopt._validation import check_int
from interpretopt.data._dataset import Dataset, _categorize, infer_feature_types, read_table
from interpretopt.data._synthetic import make_circle, make_waveform, waveform_frame
from interpretopt.exceptions import DataError, InputError

__all__ = ["DatasetSpec", "DATASETS", "DATA_ENV", "load_dataset", "list_datasets", "resolve_data_dir"]

DATA_ENV = "INTERPRETOPT_DATA"

# A loader returns (features, labels, class_names) and may name extra categorical columns.
LoaderResult = tuple[pd.DataFrame, np.ndarray, "tuple[str, ...] | None"]


@dataclass(frozen=True)
class DatasetSpec:
    """What the registry knows about one dataset.

    ``loader(path, **options)`` for files (``path`` is the full file path) or
    ``loader(**options)`` for bundled / synthetic sets returns ``(X, y, class_names)``.
    """

    name: str
    kind: Literal["bundled", "synthetic", "file"]
    loader: Callable[..., LoaderResult]
    description: str
    source: str
    filename: str | None = None
    target: str = "target"
    n_classes: int | None = None
    categorical: tuple[str, ...] = ()

    def option_names(self) -> list[str]:
        params = list(inspect.signature(self.loader).parameters.values())
        if self.kind == "file":
            params = params[1:]
        return [p.name for p in params if p.kind == p.KEYWORD_ONLY or p.kind == p.POSITIONAL_OR_KEYWORD]

    def option_defaults(self) -> dict[str, Any]:
        sig = inspect.signature(self.loader)
        return {n: sig.parameters[n].default for n in self.option_names()}


DATASETS: Registry[DatasetSpec] = Registry("dataset")


def _add(spec: DatasetSpec) -> None:
    DATASETS.register(spec.name, spec)


# --------------------------------------------------------------------------------------------
# Data directory
# --------------------------------------------------------------------------------------------
def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``data_dir`` if given, else the ``INTERPRETOPT_DATA`` environment variable.

    Raises
    ------
    DataError
        Neither is set, or the directory does not exist / is not a directory.
    """
    if data_dir is None:
        value = os.environ.get(DATA_ENV)
        if not value:
            raise DataError(
                f"no data directory: set the environment variable {DATA_ENV} to the folder holding the "
                "dataset files, or pass data_dir=..."
            )
        origin = f"{DATA_ENV}={value!r}"
        path = Path(value).expanduser()
    else:
        path = Path(data_dir).expanduser()
        origin = f"data_dir={str(data_dir)!r}"
    if not path.exists():
        raise DataError(f"data directory {str(path.resolve())!r} ({origin}) does not exist")
    if not path.is_dir():
        raise DataError(f"data directory {str(path.resolve())!r} ({origin}) is not a directory")
    return path


def _file_path(spec: DatasetSpec, data_dir: str | os.PathLike[str] | None) -> Path:
    assert spec.filename is not None
    try:
        folder = resolve_data_dir(data_dir)
    except DataError as exc:
        raise DataError(f"dataset {spec.name!r} needs the file {spec.filename!r}: {exc}. "
                        f"Obtain it from {spec.source}.") from None
    path = folder / spec.filename
    if not path.is_file():
        raise DataError(
            f"dataset {spec.name!r}: file {spec.filename!r} not found (looked for {str(path.resolve())!r}). "
            f"Obtain it from {spec.source} and place it in {str(folder.resolve())!r}."
        )
    return path


# --------------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------------
def load_dataset(name: str, *, data_dir: str | os.PathLike[str] | None = None, drop_duplicates: bool = False,
                 one_hot: bool = False, max_samples: int | None = None, sample_seed: Any = 0,
                 **options: Any) -> Dataset:
    """Load a dataset by registry name.

    Parameters
    ----------
    name : str
        A name from ``list_datasets()``.
    data_dir : path, optional
        Folder with the dataset files (file datasets only); defaults to ``INTERPRETOPT_DATA``.
    drop_duplicates : bool, default False
        Drop exact duplicate rows (features and label), keeping the first (as the IMD paper does).
    one_hot : bool, default False
        Replace every categorical column (those the loader marks categorical, and string
        columns) by one 0/1 column per category, named ``"<column>=<category>"``
        (:class:`~interpretopt.data.OneHotFrame`; all categories kept). With
        ``drop_duplicates`` this is the IMD paper's preprocessing (Section 5: duplicates
        dropped, categoricals one-hot encoded); duplicates are dropped first, which gives the
        same rows since the encoding is one-to-one.
    max_samples : int, optional
        Keep a random subset of this many rows (drawn with ``sample_seed``), after cleaning
        and de-duplication; e.g. the ABBR paper samples 30,000 rows of its large sets.
    sample_seed : int, default 0
        Seed of that subset.
    **options
        Loader options, e.g. ``coupon_type="Coffee House"`` for coupon, ``target="median"`` for
        abalone, ``n_samples=`` / ``random_state=`` for the synthetic sets. Unknown options raise.

    Raises
    ------
    UnknownNameError
        Unknown dataset name (the message lists the valid ones).
    InputError
        Unknown option.
    DataError
        Data directory missing, file missing (the message names the file, the full path
        searched and where to obtain it), or the file does not parse.
    """
    spec = DATASETS.get(name)
    valid = spec.option_names()
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise InputError(f"dataset {name!r} has no option(s) {unknown}; its options are: "
                         f"{', '.join(valid) or '(none)'} plus data_dir, drop_duplicates, one_hot, max_samples, "
                         "sample_seed")
    if spec.kind == "file":
        path = _file_path(spec, data_dir)
        X, y, class_names = spec.loader(path, **options)
        source = f"{path} ({spec.source})"
    else:
        X, y, class_names = spec.loader(**options)
        source = spec.source
    X = X.reset_index(drop=True)
    X.columns = [str(c) for c in X.columns]
    X = _categorize(X, spec.categorical if options.get("categorical", True) else ())
    y = np.asarray(y)
    if drop_duplicates:
        frame = X.copy()
        frame["__y__"] = y
        keep = ~frame.duplicated().to_numpy()
        X, y = X.loc[keep].reset_index(drop=True), y[keep]
    if one_hot:
        from interpretopt.data._preprocess import OneHotFrame

        cats = [c for c, t in infer_feature_types(X).items() if t == "categorical"]
        X = OneHotFrame(tuple(cats)).fit(X).transform_frame(X)
    all_options = {**spec.option_defaults(), **options}
    if drop_duplicates:
        all_options["drop_duplicates"] = True
    if one_hot:
        all_options["one_hot"] = True
    ds = Dataset(name=name, X=X, y=y, feature_types=infer_feature_types(X), source=source,
                 target=spec.target, class_names=class_names, options=all_options)
    if max_samples is not None:
        max_samples = check_int("max_samples", max_samples, 1)
        ds = ds.subsample(max_samples, sample_seed)
        ds.options["max_samples"] = max_samples
        ds.options["sample_seed"] = sample_seed
    return ds


def list_datasets(data_dir: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """One entry per registered dataset: name, kind (bundled/synthetic/file), n_classes (when
    known), file, source (where to obtain it), description, options and whether it is available
    (bundled and synthetic always; files when present in the data directory)."""
    try:
        folder: Path | None = resolve_data_dir(data_dir)
    except DataError:
        folder = None
    rows = []
    for name in DATASETS.names():
        spec = DATASETS.get(name)
        if spec.kind == "file":
            available = folder is not None and (folder / str(spec.filename)).is_file()
        else:
            available = True
        rows.append({
            "name": name, "kind": spec.kind, "n_classes": spec.n_classes, "file": spec.filename,
            "target": spec.target, "source": spec.source, "description": spec.description,
            "options": spec.option_defaults(), "available": bool(available),
        })
    return rows


# --------------------------------------------------------------------------------------------
# Helpers for loaders
# --------------------------------------------------------------------------------------------
def _read(path: Path, name: str, required: list[str], **kwargs: Any) -> pd.DataFrame:
    df = read_table(path, dataset=name, **kwargs)
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise DataError(f"dataset {name!r}: {str(path)!r} lacks column(s) {missing}; "
                        f"found {list(map(str, df.columns))[:20]}. Is it the right file?")
    return df


def _map_target(s: pd.Series, mapping: dict[Any, int], name: str, path: Path) -> np.ndarray:
    values = s.astype(str).str.strip() if not pd.api.types.is_numeric_dtype(s.dtype) else s
    out = values.map(mapping)
    if out.isna().any():
        bad = sorted(map(str, pd.unique(values[out.isna()])))[:5]
        raise DataError(f"dataset {name!r}: unexpected target value(s) {bad} in {str(path)!r}; "
                        f"expected {sorted(map(str, mapping))}")
    return out.to_numpy().astype(np.int64)


def _pmlb(name: str, filename: str, description: str, source: str, n_classes: int | None,
          categorical: tuple[str, ...] = (), class_names: tuple[str, ...] | None = None,
          rename: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
          extra_doc: str = "") -> None:
    """Register a PMLB file (tab-separated, integer-coded, target column ``target``)."""

    def loader(path: Path, *, categorical: bool = True) -> LoaderResult:
        df = _read(path, name, ["target"])
        y = df["target"].to_numpy().astype(np.int64)
        X = df.drop(columns=["target"])
        if rename is not None:
            X = rename(X)
        return X, y, class_names

    loader.__doc__ = (f"{description}\n\nOptions\n-------\ncategorical : bool, default True\n"
                      f"    Treat PMLB's integer-coded categorical columns as pandas categories.\n{extra_doc}")
    _add(DatasetSpec(name=name, kind="file", loader=loader, description=description, source=source,
                     filename=filename, target="target", n_classes=n_classes, categorical=categorical))


# --------------------------------------------------------------------------------------------
# Bundled and synthetic
# --------------------------------------------------------------------------------------------
def _breast_cancer() -> LoaderResult:
    from sklearn.datasets import load_breast_cancer

    b = load_breast_cancer()
    X = pd.DataFrame(b.data, columns=[str(c) for c in b.feature_names])
    return X, b.target.astype(np.int64), tuple(str(c) for c in b.target_names)


_add(DatasetSpec(
    name="breast_cancer", kind="bundled", loader=_breast_cancer,
    description="Wisconsin diagnostic breast cancer (569 x 30) as bundled with scikit-learn; "
                "scikit-learn's coding 0=malignant, 1=benign",
    source="scikit-learn load_breast_cancer (UCI 'Breast Cancer Wisconsin (Diagnostic)', OpenML 1510)",
    target="target", n_classes=2))


def _waveform21(*, n_samples: int = 5000, random_state: Any = 0, noise: float = 1.0) -> LoaderResult:
    X, y = make_waveform(n_samples, 0, random_state, noise)
    return waveform_frame(X), y, None


def _waveform40(*, n_samples: int = 5000, random_state: Any = 0, noise: float = 1.0) -> LoaderResult:
    X, y = make_waveform(n_samples, 19, random_state, noise)
    return waveform_frame(X), y, None


def _circle(*, n_samples: int = 1000, radius: float = 1.0, half_width: float = 2.0,
            random_state: Any = 0) -> LoaderResult:
    X, y = make_circle(n_samples, radius, half_width, random_state)
    return pd.DataFrame(X, columns=["x1", "x2"]), y, ("outside", "inside")


_add(DatasetSpec(name="waveform21", kind="synthetic", loader=_waveform21,
                 description="Breiman's waveform generator, 21 attributes, 3 classes (options n_samples, random_state, noise)",
                 source="generator (Breiman et al. 1984; UCI 'Waveform Database Generator (Version 1)')",
                 n_classes=3))
_add(DatasetSpec(name="waveform40", kind="synthetic", loader=_waveform40,
                 description="Breiman's waveform generator, 21 attributes + 19 N(0,1) noise attributes, 3 classes",
                 source="generator (Breiman et al. 1984; UCI 'Waveform Database Generator (Version 2)')",
                 n_classes=3))
_add(DatasetSpec(name="circle", kind="synthetic", loader=_circle,
                 description="MTRE-PAN circle: uniform points in [-half_width, half_width]^2, label 1 inside "
                             "the circle of the given radius (options n_samples, radius, half_width, random_state)",
                 source="generator (MTRE-PAN paper, Section 4.1)", n_classes=2))


# --------------------------------------------------------------------------------------------
# PMLB files
# --------------------------------------------------------------------------------------------
def _bc_rename(X: pd.DataFrame) -> pd.DataFrame:
    from sklearn.datasets import load_breast_cancer

    names = [str(c) for c in load_breast_cancer().feature_names]
    if X.shape[1] == len(names):
        X = X.copy()
        X.columns = names
    return X


_ADULT_CATS = ("workclass", "education", "marital-status", "occupation", "relationship", "race", "sex",
               "native-country")


def _adult(path: Path, *, categorical: bool = True, income_over_50k: bool = True,
           drop_fnlwgt: bool = False) -> LoaderResult:
    """PMLB adult (UCI Adult train + test, 48842 x 14).

    PMLB codes the target 1='<=50K', 0='>50K'; with ``income_over_50k=True`` (default) it is
    flipped so that 1 = '>50K' as in the papers. ``categorical`` keeps PMLB's integer-coded
    columns as categories. ``drop_fnlwgt=True`` drops the census sampling weight, leaving the
    13 columns of the IMD paper's Table 4 (42,468 rows after dropping duplicates, against the
    paper's 41,034; rows with '?' are kept as their own category).
    """
    df = _read(path, "adult", ["target"])
    if drop_fnlwgt and "fnlwgt" in df.columns:
        df = df.drop(columns=["fnlwgt"])
    y = df["target"].to_numpy().astype(np.int64)
    if income_over_50k:
        return df.drop(columns=["target"]), 1 - y, ("<=50K", ">50K")
    return df.drop(columns=["target"]), y, (">50K", "<=50K")


_add(DatasetSpec(name="adult", kind="file", loader=_adult, filename="adult.tsv.gz", target="target",
                 description="UCI Adult income (PMLB, 48842 x 14, train+test); 1 = income > 50K "
                             "(use drop_duplicates=True as in the IMD paper)",
                 source="PMLB 'adult' (UCI 'Adult', OpenML 1590)", n_classes=2, categorical=_ADULT_CATS))

_pmlb("bc", "bc.tsv.gz", "UCI WDBC breast cancer (PMLB, 569 x 30); 1 = malignant; columns renamed to "
      "scikit-learn's feature names", "PMLB 'breast_cancer_wisconsin' (UCI 'Breast Cancer Wisconsin (Diagnostic)')",
      2, class_names=("benign", "malignant"), rename=_bc_rename)
_pmlb("german", "german.tsv.gz", "UCI Statlog German credit (PMLB, 1000 x 20); 1 = good credit",
      "PMLB 'german' (UCI 'Statlog (German Credit Data)', OpenML 31)", 2,
      categorical=("Status", "Credit-history", "Purpose", "Savings-account", "Employment", "Personal-status",
                   "Debtors", "Property", "Installments", "Housing", "Job", "Telephone", "Foreign"),
      class_names=("bad", "good"))
_pmlb("magic", "magic.tsv.gz", "UCI MAGIC gamma telescope (PMLB, 19020 x 10); 0 = gamma, 1 = hadron",
      "PMLB 'magic' (UCI 'MAGIC Gamma Telescope', OpenML 1120)", 2, class_names=("gamma", "hadron"))
_MUSHROOM_COLS = ("cap-shape", "cap-surface", "cap-color", "bruises?", "odor", "gill-attachment", "gill-spacing",
                  "gill-size", "gill-color", "stalk-shape", "stalk-root", "stalk-surface-above-ring",
                  "stalk-surface-below-ring", "stalk-color-above-ring", "stalk-color-below-ring", "veil-type",
                  "veil-color", "ring-number", "ring-type", "spore-print-color", "population", "habitat")
_pmlb("mushroom", "mushroom.tsv.gz", "UCI Mushroom (PMLB, 8124 x 22, integer-coded categoricals); 1 = poisonous",
      "PMLB 'mushroom' (UCI 'Mushroom', OpenML 24)", 2, categorical=_MUSHROOM_COLS,
      class_names=("edible", "poisonous"))
_pmlb("pima", "pima.tsv.gz", "Pima Indians diabetes (PMLB, 768 x 8; zeros stand for missing); 1 = diabetic",
      "PMLB 'pima' (UCI/NIDDK 'Pima Indians Diabetes', OpenML 37)", 2, class_names=("negative", "diabetic"))
_pmlb("tictactoe", "tictactoe.tsv.gz", "UCI Tic-Tac-Toe endgame (PMLB, 958 x 9 integer-coded squares); 1 = x wins",
      "PMLB 'tic_tac_toe' (UCI 'Tic-Tac-Toe Endgame', OpenML 50)", 2,
      categorical=tuple(f"t{i}" for i in range(1, 10)), class_names=("negative", "positive"))
_pmlb("waveform", "waveform.tsv.gz", "UCI Waveform version 2 (PMLB waveform_40, 5000 x 40), 3 classes",
      "PMLB 'waveform_40' (UCI 'Waveform Database Generator (Version 2)', OpenML 60)", 3)
_pmlb("wine_red", "wine_red.tsv.gz", "UCI Wine Quality red (PMLB, 1599 x 11); quality 3..8 (6 classes)",
      "PMLB 'wine_quality_red' (UCI 'Wine Quality', OpenML 40691)", 6)
_pmlb("wine_white", "wine_white.tsv.gz", "UCI Wine Quality white (PMLB, 4898 x 11); quality 3..9 (7 classes)",
      "PMLB 'wine_quality_white' (UCI 'Wine Quality', OpenML 40498)", 7)


# --------------------------------------------------------------------------------------------
# Other files
# --------------------------------------------------------------------------------------------
_ADULT_UCI_CATS = ("workclass", "education", "marital-status", "occupation", "relationship", "race", "sex",
                   "native-country")


def _adult_uci_train(path: Path, *, drop_fnlwgt: bool = True) -> LoaderResult:
    """UCI adult.data (train split) as shipped with MTRE-PAN. '?' is kept as its own category.
    ``drop_fnlwgt=True`` (default) leaves the 13 inputs the MTRE-PAN paper lists."""
    df = _read(path, "adult_uci_train", ["income"], keep_default_na=False, skipinitialspace=True)
    y = _map_target(df["income"].str.rstrip("."), {"<=50K": 0, ">50K": 1}, "adult_uci_train", path)
    X = df.drop(columns=["income"])
    if drop_fnlwgt and "fnlwgt" in X.columns:
        X = X.drop(columns=["fnlwgt"])
    return X, y, ("<=50K", ">50K")


_add(DatasetSpec(name="adult_uci_train", kind="file", loader=_adult_uci_train, filename="adult_uci_train.csv.gz",
                 target="income", description="UCI Adult train split (32561 rows), string categoricals, '?' as a "
                 "category; 1 = income > 50K; fnlwgt dropped by default (MTRE-PAN, 13 inputs)",
                 source="UCI 'Adult' adult.data (as in the MTRE-PAN release; OpenML 1590 has train+test)",
                 n_classes=2))


def _bank_full(path: Path) -> LoaderResult:
    """UCI bank-full.csv; y yes/no -> 1/0; 'unknown' kept as a category."""
    df = _read(path, "bank_full", ["y"], keep_default_na=False)
    y = _map_target(df["y"], {"yes": 1, "no": 0}, "bank_full", path)
    return df.drop(columns=["y"]), y, ("no", "yes")


_add(DatasetSpec(name="bank_full", kind="file", loader=_bank_full, filename="bank_full.csv.gz", target="y",
                 description="UCI Bank Marketing bank-full (45211 x 16); 1 = subscribed (yes)",
                 source="UCI 'Bank Marketing' bank-full.csv (OpenML 1461)", n_classes=2))


def _simple_numeric(name: str, target: str):
    def loader(path: Path) -> LoaderResult:
        df = _read(path, name, [target])
        y = df[target].to_numpy()
        if y.dtype.kind == "f":
            y = y.astype(np.int64)
        return df.drop(columns=[target]), y.astype(np.int64), None

    return loader


_add(DatasetSpec(name="bankm", kind="file", loader=_simple_numeric("bankm", "y"), filename="bankm.csv.gz",
                 target="y", description="Balanced bank marketing, 7 numeric columns (10578 x 7; a reconstruction of "
                 "OpenML 44126); 1 = yes", source="OpenML 44126 'bank-marketing' (tabular benchmark); reconstructed "
                 "from UCI 'Bank Marketing'", n_classes=2))
_add(DatasetSpec(name="banknote", kind="file", loader=_simple_numeric("banknote", "class"),
                 filename="banknote.csv.gz", target="class",
                 description="UCI Banknote authentication (1372 x 4)",
                 source="UCI 'Banknote Authentication' (OpenML 1462)", n_classes=2))
_add(DatasetSpec(name="messidor", kind="file", loader=_simple_numeric("messidor", "Class"),
                 filename="messidor.csv.gz", target="Class",
                 description="UCI Diabetic Retinopathy Debrecen / Messidor features (1151 x 19); 1 = signs of DR",
                 source="UCI 'Diabetic Retinopathy Debrecen' (messidor_features.arff)", n_classes=2))
_add(DatasetSpec(name="cdc_diabetes", kind="file", loader=_simple_numeric("cdc_diabetes", "Diabetes_binary"),
                 filename="cdc_diabetes.csv.gz", target="Diabetes_binary",
                 description="CDC BRFSS 2015 diabetes health indicators (253680 x 21); 1 = prediabetes/diabetes "
                             "(the ABBR paper samples 30,000 rows: max_samples=30000)",
                 source="UCI 'CDC Diabetes Health Indicators' (id 891); Kaggle diabetes_binary_health_indicators_BRFSS2015",
                 n_classes=2))
_add(DatasetSpec(name="recidivism_mrs_test", kind="file", loader=_simple_numeric("recidivism_mrs_test", "Y"),
                 filename="recidivism_mrs_test.csv.gz", target="Y",
                 description="Recidivism (MRS, Wang 2018) test split only (2330 x 419, one-hot encoded)",
                 source="github.com/wangtongada/MRS recidivism_test.csv (full data: ICPSR)", n_classes=2))


def _abalone(path: Path, *, target: str = "median", one_hot_sex: bool = False) -> LoaderResult:
    """UCI Abalone. ``target="median"`` (default): 1 when Rings >= median (9), else 0, as in the
    MTRE-PAN release; ``target="raw"``: the integer ring count. ``one_hot_sex`` replaces Sex by three
    0/1 columns Sex_F, Sex_I, Sex_M as MTRE-PAN's preprocessing does."""
    if target not in ("median", "raw"):
        raise InputError(f"abalone target must be 'median' or 'raw', got {target!r}")
    df = _read(path, "abalone", ["Rings", "Sex"])
    rings = df["Rings"].to_numpy().astype(np.int64)
    X = df.drop(columns=["Rings"])
    if one_hot_sex:
        dummies = pd.get_dummies(X["Sex"].astype(str), prefix="Sex").astype(np.int64)
        X = pd.concat([X.drop(columns=["Sex"]), dummies], axis=1)
    if target == "median":
        med = np.median(rings)
        return X, (rings >= med).astype(np.int64), (f"rings < {med:g}", f"rings >= {med:g}")
    return X, rings, None


_add(DatasetSpec(name="abalone", kind="file", loader=_abalone, filename="abalone.csv.gz", target="Rings",
                 description="UCI Abalone (4177 x 8); target='median' (default) splits Rings at the median as in "
                             "MTRE-PAN, target='raw' keeps the ring count",
                 source="UCI 'Abalone' (OpenML 183)", n_classes=2))


def _eye_movements(path: Path, *, drop_line_no: bool = False) -> LoaderResult:
    """OpenML eye_movements (27 predictors). ``drop_line_no=True`` leaves 26 features (the IMD paper's count;
    which column the paper dropped is not stated)."""
    df = _read(path, "eye_movements", ["label"])
    X = df.drop(columns=["label"])
    if drop_line_no and "lineNo" in X.columns:
        X = X.drop(columns=["lineNo"])
    return X, df["label"].to_numpy().astype(np.int64), None


_add(DatasetSpec(name="eye_movements", kind="file", loader=_eye_movements, filename="eye_movements.csv.gz",
                 target="label", description="Eye movements (10936 x 27), 3 classes",
                 source="OpenML 1044 'eye_movements'", n_classes=3))


def _heloc(path: Path, *, drop_all_missing: bool = True) -> LoaderResult:
    """FICO HELOC. Target RiskPerformance Bad -> 1, Good -> 0. ``drop_all_missing=True`` (default) drops the
    588 rows whose every feature is -9 (no credit record), leaving 9871 x 23 as in the IMD paper; special
    values -7/-8/-9 elsewhere are kept. The ABBR paper uses all 10459 rows (drop_all_missing=False)."""
    df = _read(path, "heloc", ["RiskPerformance"])
    X = df.drop(columns=["RiskPerformance"])
    y = _map_target(df["RiskPerformance"], {"Bad": 1, "Good": 0}, "heloc", path)
    if drop_all_missing:
        keep = ~(X == -9).all(axis=1).to_numpy()
        X, y = X.loc[keep], y[keep]
    return X, y, ("Good", "Bad")


_add(DatasetSpec(name="heloc", kind="file", loader=_heloc, filename="heloc.csv.gz", target="RiskPerformance",
                 description="FICO HELOC (9871 x 23 after dropping all -9 rows); 1 = Bad (default risk)",
                 source="FICO xML Challenge 'HELOC' dataset heloc_dataset_v1.csv (community.fico.com)", n_classes=2))

_COMPAS_FEATURES = ("sex", "age", "age_cat", "race", "juv_fel_count", "juv_misd_count", "juv_other_count",
                    "priors_count", "c_charge_degree")


def _compas(path: Path, *, propublica_filter: bool = True, length_of_stay: bool = True,
            include_score: bool = False) -> LoaderResult:
    """ProPublica COMPAS two-year recidivism. ``propublica_filter=True`` (default) keeps rows with
    days_b_screening_arrest in [-30, 30], is_recid != -1, c_charge_degree != 'O', score_text != 'N/A'
    (6172 rows). Features: sex, age, age_cat, race, juvenile felony/misdemeanour/other counts,
    priors_count, c_charge_degree, and (``length_of_stay``) days in jail for the charge; ids, names,
    dates and outcome columns are dropped. ``include_score`` adds COMPAS decile_score."""
    required = list(_COMPAS_FEATURES) + ["two_year_recid", "days_b_screening_arrest", "is_recid", "score_text",
                                         "c_jail_in", "c_jail_out", "decile_score"]
    df = _read(path, "compas", required)
    if propublica_filter:
        d = df["days_b_screening_arrest"]
        keep = (d >= -30) & (d <= 30) & (df["is_recid"] != -1) & (df["c_charge_degree"] != "O") \
            & (df["score_text"].astype(str) != "N/A")
        df = df.loc[keep.to_numpy()]
    X = df[list(_COMPAS_FEATURES)].copy()
    if length_of_stay:
        jin = pd.to_datetime(df["c_jail_in"], errors="coerce")
        jout = pd.to_datetime(df["c_jail_out"], errors="coerce")
        X["length_of_stay"] = (jout - jin).dt.total_seconds().div(86400.0).fillna(0.0).clip(lower=0.0).round(2)
    if include_score:
        X["decile_score"] = df["decile_score"].to_numpy()
    y = df["two_year_recid"].to_numpy().astype(np.int64)
    return X, y, ("no recidivism", "recidivism within two years")


_add(DatasetSpec(name="compas", kind="file", loader=_compas, filename="compas.csv.gz", target="two_year_recid",
                 description="ProPublica COMPAS (6172 rows after the ProPublica filter); 1 = recidivism within 2 years",
                 source="ProPublica compas-analysis compas-scores-two-years.csv (github.com/propublica/compas-analysis)",
                 n_classes=2))

_READMISSION_IDS = ("encounter_id", "patient_nbr")
_READMISSION_CATS = ("admission_type_id", "discharge_disposition_id", "admission_source_id")


_READMISSION_OUTCOMES = ("any", "within_30")


def _readmission(path: Path, *, outcome: str = "any") -> LoaderResult:
    """UCI Diabetes 130-US hospitals. Target (``outcome="any"``, default) readmitted != 'NO' -> 1 (46902
    positives); ``outcome="within_30"``: readmitted == '<30' -> 1 (readmission within 30 days, the ABBR
    paper's Table 1 outcome). Read with ``keep_default_na=False`` so 'None' (max_glu_serum, A1Cresult) and
    '?' stay categories; the 3 rows with gender 'Unknown/Invalid' and the id columns are dropped (101763 x 47)."""
    if outcome not in _READMISSION_OUTCOMES:
        raise InputError(f"readmission outcome {outcome!r} unknown; valid: {list(_READMISSION_OUTCOMES)}")
    df = _read(path, "readmission", ["readmitted", "gender"], keep_default_na=False, low_memory=False)
    df = df.loc[(df["gender"] != "Unknown/Invalid").to_numpy()]
    if outcome == "within_30":
        y = (df["readmitted"].astype(str) == "<30").to_numpy().astype(np.int64)
    else:
        y = (df["readmitted"].astype(str) != "NO").to_numpy().astype(np.int64)
    X = df.drop(columns=["readmitted"] + [c for c in _READMISSION_IDS if c in df.columns])
    return X, y, ("not readmitted", "readmitted")


_add(DatasetSpec(name="readmission", kind="file", loader=_readmission, filename="readmission.csv.gz",
                 target="readmitted", description="UCI Diabetes 130-US hospitals (101763 x 47); 1 = readmitted "
                 "(<30 or >30 days) (the ABBR paper samples 30,000 rows: max_samples=30000)",
                 source="UCI 'Diabetes 130-US hospitals for years 1999-2008' (id 296; OpenML 4541)", n_classes=2,
                 categorical=_READMISSION_CATS))


def _coupon(path: Path, *, coupon_type: str | None = None) -> LoaderResult:
    """UCI in-vehicle coupon recommendation, read with ``keep_default_na=False``; empty strings become the
    category 'missing'. ``coupon_type`` (e.g. 'Coffee House', 3996 rows as in the CRL paper) keeps one coupon
    type and drops the then constant ``coupon`` column."""
    df = _read(path, "coupon", ["Y", "coupon"], keep_default_na=False)
    if coupon_type is not None:
        kinds = sorted(map(str, pd.unique(df["coupon"])))
        if coupon_type not in kinds:
            raise InputError(f"coupon_type {coupon_type!r} unknown; valid values: {kinds}")
        df = df.loc[(df["coupon"] == coupon_type).to_numpy()].drop(columns=["coupon"])
    y = df["Y"].to_numpy().astype(np.int64)
    X = df.drop(columns=["Y"]).copy()
    for c in X.columns:
        if not pd.api.types.is_numeric_dtype(X[c].dtype):
            X[c] = X[c].astype(str).replace("", "missing")
    return X, y, ("rejected", "accepted")


_add(DatasetSpec(name="coupon", kind="file", loader=_coupon, filename="coupon.csv.gz", target="Y",
                 description="UCI in-vehicle coupon recommendation (12684 x 25); coupon_type='Coffee House' "
                             "gives the CRL paper's 3996 rows; 1 = coupon accepted",
                 source="UCI 'In-Vehicle Coupon Recommendation' (id 603)", n_classes=2))


def _lending_club(path: Path, *, drop_missing: bool = True) -> LoaderResult:
    """LendingClub LoanStats3a derivative (finished loans). Target loan_status 'Charged Off' -> 1,
    'Fully Paid' -> 0; term ' 36 months' -> 36; revol_util '83.70%' -> 83.7 (empty -> NaN, 50 rows, dropped
    when ``drop_missing=True``, the default); emp_length kept as a category including 'n/a'
    (``keep_default_na=False``)."""
    df = _read(path, "lending_club", ["loan_status", "term", "revol_util"], keep_default_na=False)
    y = _map_target(df["loan_status"], {"Charged Off": 1, "Fully Paid": 0}, "lending_club", path)
    X = df.drop(columns=["loan_status"]).copy()
    X["term"] = pd.to_numeric(X["term"].astype(str).str.extract(r"(\d+)")[0], errors="coerce")
    util = X["revol_util"].astype(str).str.strip().str.rstrip("%").replace("", np.nan)
    X["revol_util"] = pd.to_numeric(util, errors="coerce")
    if drop_missing:
        keep = X.notna().all(axis=1).to_numpy()
        X, y = X.loc[keep], y[keep]
    return X, y, ("Fully Paid", "Charged Off")


_add(DatasetSpec(name="lending_club", kind="file", loader=_lending_club, filename="lending_club.csv.gz",
                 target="loan_status", description="LendingClub 2007-2011 finished loans (39786 x 15); "
                 "1 = Charged Off", source="LendingClub LoanStats3a.csv (lendingclub.com; Kaggle mirrors)",
                 n_classes=2))
