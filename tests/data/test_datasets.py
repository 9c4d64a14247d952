"""Dataset registry: listing, options, errors for missing files and directories, and every file
loader against the row counts stated in the data manifest."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from interpretopt.data import DATASETS, list_datasets, load_dataset, resolve_data_dir
from interpretopt.exceptions import DataError, InputError, UnknownNameError

MANIFEST_KEYS = {
    "adult", "adult_uci_train", "bank_full", "bankm", "banknote", "bc", "german", "magic", "mushroom", "pima",
    "tictactoe", "waveform", "wine_red", "wine_white", "abalone", "eye_movements", "heloc", "compas",
    "readmission", "cdc_diabetes", "coupon", "messidor", "lending_club", "recidivism_mrs_test",
}

# name -> (rows, features, {label: count} or None) after each loader's default cleaning
EXPECTED = {
    "abalone": (4177, 8, None),
    "adult": (48842, 14, {1: 11687, 0: 37155}),
    "adult_uci_train": (32561, 13, {0: 24720, 1: 7841}),
    "bank_full": (45211, 16, {0: 39922, 1: 5289}),
    "bankm": (10578, 7, {0: 5289, 1: 5289}),
    "banknote": (1372, 4, {0: 762, 1: 610}),
    "bc": (569, 30, {0: 357, 1: 212}),
    "german": (1000, 20, {1: 700, 0: 300}),
    "magic": (19020, 10, {0: 12332, 1: 6688}),
    "mushroom": (8124, 22, {0: 4208, 1: 3916}),
    "pima": (768, 8, {0: 500, 1: 268}),
    "tictactoe": (958, 9, {1: 626, 0: 332}),
    "waveform": (5000, 40, {0: 1692, 1: 1653, 2: 1655}),
    "wine_red": (1599, 11, {3: 10, 4: 53, 5: 681, 6: 638, 7: 199, 8: 18}),
    "wine_white": (4898, 11, {3: 20, 4: 163, 5: 1457, 6: 2198, 7: 880, 8: 175, 9: 5}),
    "eye_movements": (10936, 27, {0: 3804, 1: 4262, 2: 2870}),
    "heloc": (9871, 23, {1: 5136, 0: 4735}),
    "compas": (6172, 10, None),
    "readmission": (101763, 47, {1: 46902}),
    "cdc_diabetes": (253680, 21, {0: 218334, 1: 35346}),
    "coupon": (12684, 25, {1: 7210, 0: 5474}),
    "messidor": (1151, 19, {1: 611, 0: 540}),
    "lending_club": (39736, 15, None),
    "recidivism_mrs_test": (2330, 419, {0: 1427, 1: 903}),
}


def test_registry_holds_every_manifest_key_and_the_bundled_sets():
    names = set(DATASETS.names())
    assert MANIFEST_KEYS <= names
    assert {"breast_cancer", "waveform21", "waveform40", "circle"} <= names
    assert set(EXPECTED) == MANIFEST_KEYS


def test_list_datasets_without_data_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("INTERPRETOPT_DATA", raising=False)
    rows = {r["name"]: r for r in list_datasets()}
    assert rows["breast_cancer"]["kind"] == "bundled" and rows["breast_cancer"]["available"]
    assert rows["circle"]["kind"] == "synthetic" and rows["circle"]["n_classes"] == 2
    assert rows["heloc"]["kind"] == "file" and not rows["heloc"]["available"]
    assert rows["heloc"]["file"] == "heloc.csv.gz" and "FICO" in rows["heloc"]["source"]
    assert rows["waveform21"]["n_classes"] == 3
    assert rows["coupon"]["options"] == {"coupon_type": None}
    # a folder holding one of the files makes exactly that one available
    (tmp_path / "banknote.csv.gz").write_bytes(gzip.compress(b"variance,class\n1.0,0\n2.0,1\n"))
    rows = {r["name"]: r for r in list_datasets(tmp_path)}
    assert rows["banknote"]["available"] and not rows["heloc"]["available"]
    for r in rows.values():
        assert set(r) >= {"name", "kind", "n_classes", "source", "available"}


def test_bundled_breast_cancer():
    ds = load_dataset("breast_cancer")
    assert (ds.n_samples, ds.n_features) == (569, 30)
    assert ds.class_names == ("malignant", "benign") and np.bincount(ds.y).tolist() == [212, 357]
    assert "mean radius" in ds.feature_names


def test_unknown_name_and_option():
    with pytest.raises(UnknownNameError, match="valid names: .*breast_cancer"):
        load_dataset("breast-cancer")
    with pytest.raises(InputError, match=r"no option\(s\) \['radious'\].*radius"):
        load_dataset("circle", radious=2)


def test_missing_file_names_dataset_file_path_and_source(tmp_path):
    with pytest.raises(DataError) as info:
        load_dataset("heloc", data_dir=tmp_path)
    msg = str(info.value)
    assert "'heloc'" in msg and "heloc.csv.gz" in msg and str((tmp_path / "heloc.csv.gz").resolve()) in msg
    assert "FICO" in msg and "community.fico.com" in msg


def test_missing_data_dir(tmp_path, monkeypatch):
    with pytest.raises(DataError, match="does not exist"):
        load_dataset("magic", data_dir=tmp_path / "nowhere")
    with pytest.raises(DataError, match="does not exist"):
        resolve_data_dir(tmp_path / "nowhere")
    monkeypatch.delenv("INTERPRETOPT_DATA", raising=False)
    with pytest.raises(DataError, match="INTERPRETOPT_DATA"):
        load_dataset("magic")
    monkeypatch.setenv("INTERPRETOPT_DATA", str(tmp_path / "gone"))
    with pytest.raises(DataError, match="INTERPRETOPT_DATA=.*does not exist"):
        resolve_data_dir()
    afile = tmp_path / "f.txt"
    afile.write_text("x")
    with pytest.raises(DataError, match="not a directory"):
        resolve_data_dir(afile)
    monkeypatch.setenv("INTERPRETOPT_DATA", str(tmp_path))
    assert resolve_data_dir() == tmp_path


def test_file_that_does_not_parse(tmp_path):
    (tmp_path / "magic.tsv.gz").write_bytes(b"not gzip at all")
    with pytest.raises(DataError, match="dataset 'magic'.*magic.tsv.gz"):
        load_dataset("magic", data_dir=tmp_path)
    (tmp_path / "banknote.csv.gz").write_bytes(gzip.compress(b"a,b\n1,2\n"))
    with pytest.raises(DataError, match=r"lacks column\(s\) \['class'\]"):
        load_dataset("banknote", data_dir=tmp_path)
    (tmp_path / "heloc.csv.gz").write_bytes(gzip.compress(b"RiskPerformance,x\nBad,1\nMaybe,2\n"))
    with pytest.raises(DataError, match="unexpected target value.*Maybe"):
        load_dataset("heloc", data_dir=tmp_path)


def test_generic_options_on_a_tiny_file(tmp_path):
    rows = "variance,class\n" + "1.0,0\n1.0,0\n2.0,1\n3.0,1\n4.0,0\n"
    (tmp_path / "banknote.csv.gz").write_bytes(gzip.compress(rows.encode()))
    ds = load_dataset("banknote", data_dir=tmp_path)
    assert ds.n_samples == 5 and ds.target == "class"
    assert load_dataset("banknote", data_dir=tmp_path, drop_duplicates=True).n_samples == 4
    sub = load_dataset("banknote", data_dir=tmp_path, max_samples=3, sample_seed=1)
    assert sub.n_samples == 3 and sub.options["max_samples"] == 3


# ---------------------------------------------------------------------------------- real files
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_file_loader_matches_manifest(name, data_dir):
    rows, cols, counts = EXPECTED[name]
    ds = load_dataset(name, data_dir=data_dir)
    assert (ds.n_samples, ds.n_features) == (rows, cols)
    if counts:
        got = dict(zip(*np.unique(ds.y, return_counts=True)))
        for label, n in counts.items():
            assert got[label] == n, (label, got)
    X = ds.numeric()
    assert X.shape == (rows, cols) and X.dtype == float
    assert not np.isnan(X).any(), "default cleaning leaves no missing values"
    assert set(ds.feature_types) == set(ds.feature_names)
    for c, t in ds.feature_types.items():
        assert (t == "categorical") == (ds.X[c].dtype == "category")


def test_list_datasets_with_the_data_dir(data_dir):
    rows = list_datasets(data_dir)
    assert all(r["available"] for r in rows), [r["name"] for r in rows if not r["available"]]


def test_heloc_options(data_dir):
    raw = load_dataset("heloc", data_dir=data_dir, drop_all_missing=False)
    assert raw.n_samples == 10459 and np.bincount(raw.y).tolist() == [5000, 5459]
    assert raw.class_names == ("Good", "Bad")


def test_compas_filter_and_features(data_dir):
    ds = load_dataset("compas", data_dir=data_dir)
    assert ds.n_samples == 6172 and ds.X["c_charge_degree"].isin(["F", "M"]).all()
    assert not {"id", "name", "dob", "c_jail_in", "decile_score"} & set(ds.feature_names)
    assert (ds.X["length_of_stay"] >= 0).all()
    raw = load_dataset("compas", data_dir=data_dir, propublica_filter=False, include_score=True)
    assert raw.n_samples == 7214 and "decile_score" in raw.feature_names
    assert np.bincount(raw.y).tolist() == [3963, 3251]


def test_coupon_type(data_dir):
    ds = load_dataset("coupon", data_dir=data_dir, coupon_type="Coffee House")
    assert ds.n_samples == 3996 and "coupon" not in ds.feature_names
    assert "missing" in ds.X["car"].cat.categories
    with pytest.raises(InputError, match="valid values: .*Coffee House"):
        load_dataset("coupon", data_dir=data_dir, coupon_type="Pizza")


def test_abalone_targets(data_dir):
    med = load_dataset("abalone", data_dir=data_dir)
    raw = load_dataset("abalone", data_dir=data_dir, target="raw")
    assert np.array_equal(med.y, (raw.y >= np.median(raw.y)).astype(int))
    assert np.bincount(med.y).tolist() == [1407, 2770]
    assert raw.y.min() == 1 and raw.y.max() == 29
    oh = load_dataset("abalone", data_dir=data_dir, one_hot_sex=True)
    assert {"Sex_F", "Sex_I", "Sex_M"} <= set(oh.feature_names) and oh.n_features == 10
    with pytest.raises(InputError, match="'median' or 'raw'"):
        load_dataset("abalone", data_dir=data_dir, target="mean")


def test_adult_options(data_dir):
    dedup = load_dataset("adult", data_dir=data_dir, drop_duplicates=True)
    assert dedup.n_samples == 48842 - 52
    pmlb = load_dataset("adult", data_dir=data_dir, income_over_50k=False)
    assert np.bincount(pmlb.y).tolist() == [11687, 37155]
    codes = load_dataset("adult", data_dir=data_dir, categorical=False)
    assert codes.feature_types["workclass"] == "numeric"


def test_adult_uci_train_question_mark_category(data_dir):
    ds = load_dataset("adult_uci_train", data_dir=data_dir, drop_fnlwgt=False)
    assert ds.n_features == 14 and "?" in ds.X["workclass"].cat.categories
    assert ds.X["workclass"].str.startswith(" ").sum() == 0


def test_lending_club_parsing(data_dir):
    ds = load_dataset("lending_club", data_dir=data_dir, drop_missing=False)
    assert ds.n_samples == 39786 and np.bincount(ds.y).tolist() == [34116, 5670]
    assert set(ds.X["term"].unique()) == {36, 60}
    assert ds.X["revol_util"].iloc[0] == pytest.approx(83.7)
    assert int(ds.X["revol_util"].isna().sum()) == 50
    assert "n/a" in ds.X["emp_length"].cat.categories


def test_eye_movements_drop_line_no(data_dir):
    ds = load_dataset("eye_movements", data_dir=data_dir, drop_line_no=True)
    assert ds.n_features == 26 and "lineNo" not in ds.feature_names


def test_bc_matches_bundled_breast_cancer(data_dir):
    bc = load_dataset("bc", data_dir=data_dir)
    sk = load_dataset("breast_cancer")
    assert bc.feature_names == sk.feature_names
    np.testing.assert_allclose(bc.numeric(), sk.numeric(), atol=1e-12)
    assert np.array_equal(bc.y, 1 - sk.y)
