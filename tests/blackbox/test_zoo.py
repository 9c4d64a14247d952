"""The model zoo: names, paper hyper-parameters, seeding, overrides, optional xgboost."""

from __future__ import annotations

import builtins
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from interpretopt.blackbox import MODELS, ModelUnavailableError, list_models, make_model
from interpretopt.data import load_dataset, train_test_indices
from interpretopt.exceptions import InputError, UnknownNameError

ALL = ["LR", "KN1", "KN2", "MLP1", "MLP2", "DT1", "DT2", "GB", "RF1", "RF2", "GNB", "RF500",
       "CRL_RF", "CRL_ADA", "CRL_XGB", "WC_LR", "WC_RF", "WC_XGB", "WC_XGB_PRE1",
       "MTREPAN_NET"]
# models slow enough to be fitted with fewer iterations in the generic fit test
FAST = {"RF500": {"n_estimators": 10}, "CRL_RF": {"n_estimators": 10}, "CRL_ADA": {"n_estimators": 5},
        "MLP2": {"max_iter": 20}, "MTREPAN_NET": {"n_rounds": 5, "samples_per_round": 3000}}


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X, y


def test_registry_names_and_listing():
    assert set(MODELS.names()) == set(ALL)
    rows = {r["name"]: r for r in list_models()}
    assert set(rows) == set(ALL)
    assert all(r["available"] for r in rows.values() if r["requires"] is None)
    assert "Table 5" in rows["KN1"]["paper"] and "ABBR" in rows["RF500"]["paper"]
    for name in ALL:
        assert MODELS.get(name).factory.__doc__, f"{name} documents its hyper-parameters"
    with pytest.raises(UnknownNameError, match="valid names: .*RF1"):
        make_model("rf1")


@pytest.mark.parametrize("name", ALL)
def test_every_model_fits_and_predicts(name):
    pytest.importorskip("xgboost") if "XGB" in name else None
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = make_model(name, random_state=0, **FAST.get(name, {})).fit(X[:90], y[:90])
    pred = m.predict(X[90:])
    assert pred.shape == (30,) and set(np.unique(pred)) <= {0, 1}
    proba = m.predict_proba(X[90:])
    assert proba.shape == (30, 2) and np.allclose(proba.sum(axis=1), 1)
    assert np.array_equal(pred, m.classes_[np.argmax(proba, axis=1)])
    assert np.mean(m.predict(X) == y) > 0.7
    clone(m)


def test_imd_table5_parameters():
    p = make_model("MLP1").get_params()
    assert (p["alpha"], p["hidden_layer_sizes"], p["random_state"], p["solver"]) == (1e-05, (15,), 1234, "lbfgs")
    p = make_model("MLP2").get_params()
    assert (p["hidden_layer_sizes"], p["random_state"]) == ((100, 100), 1234)
    assert make_model("KN1").n_neighbors == 3 and make_model("KN2").n_neighbors == 5
    assert make_model("DT1").max_depth == 5 and make_model("DT2").max_depth == 10
    rf2 = make_model("RF2")
    assert (rf2.max_depth, rf2.random_state) == (6, 1234)
    assert make_model("LR").random_state == 1234
    assert make_model("RF1").n_estimators == 100 and make_model("RF1").max_depth is None
    assert make_model("RF500").n_estimators == 500
    assert type(make_model("GNB")).__name__ == "GaussianNB"
    assert type(make_model("GB")).__name__ == "GradientBoostingClassifier"


def test_crl_and_what_changed_parameters():
    rf = make_model("CRL_RF")
    assert (rf.n_estimators, rf.max_depth, rf.min_samples_split, rf.random_state) == (400, 15, 12, 0)
    ada = make_model("CRL_ADA")
    assert (ada.n_estimators, ada.learning_rate, ada.estimator.max_depth, ada.estimator.min_samples_leaf) == \
        (200, 1.0, 20, 2)
    lr = make_model("WC_LR")
    assert lr.C == 1.0 and lr.l1_ratio in (None, 0, 0.0)
    if pytest.importorskip("xgboost"):
        xgb = make_model("CRL_XGB")
        assert (xgb.learning_rate, xgb.max_depth, xgb.min_child_weight, xgb.n_estimators) == (0.08, 3, 2, 100)
        pre1 = make_model("WC_XGB_PRE1")
        assert (pre1.max_depth, pre1.learning_rate, pre1.n_estimators) == (3, 0.1, 100)
        assert make_model("WC_XGB").max_depth is None  # left to the core library (depth 6)


def test_seeding_and_overrides():
    assert make_model("RF1").random_state == 0
    assert make_model("RF2", random_state=7).random_state == 1234  # the paper fixes it (Table 5)
    assert make_model("RF2", random_state=7, override_paper_seed=True).random_state == 7
    g1 = make_model("RF1", random_state=np.random.default_rng(3)).random_state
    g2 = make_model("RF1", random_state=np.random.default_rng(3)).random_state
    assert g1 == g2
    X, y = _data()
    a = make_model("RF1", random_state=5, n_estimators=5).fit(X, y).predict_proba(X)
    b = make_model("RF1", random_state=5, n_estimators=5).fit(X, y).predict_proba(X)
    assert np.array_equal(a, b)
    assert make_model("DT1", max_depth=2).max_depth == 2
    with pytest.raises(InputError, match="no parameter.*max_dept.*valid parameters: .*max_depth"):
        make_model("DT1", max_dept=2)
    with pytest.raises(InputError, match="random_state"):
        make_model("RF1", random_state="seven")


def test_xgboost_missing_gives_install_hint(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "xgboost" or name.startswith("xgboost."):
            raise ImportError("No module named 'xgboost'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    for name in ("CRL_XGB", "WC_XGB", "WC_XGB_PRE1"):
        with pytest.raises(ModelUnavailableError, match=r"pip install interpretopt\[xgboost\]"):
            make_model(name)
    rows = {r["name"]: r for r in list_models()}
    assert not rows["CRL_XGB"]["available"] and rows["RF1"]["available"]


@pytest.mark.parametrize("name", ["LR", "MLP1", "MLP2", "RF2"])
def test_a_seed_the_imd_paper_fixes_is_never_replaced(name):
    """Regression: the runner passed hashed seeds that replaced Table 5's random_state=1234."""
    for rs in (None, 0, 99, np.random.default_rng(5)):
        assert make_model(name, random_state=rs).random_state == 1234
    assert make_model("DT1", random_state=99).random_state == 99  # the paper gives DT1 no seed


def test_runner_black_boxes_keep_the_paper_seed(tmp_path):
    from interpretopt.experiments.runner import _fit_model

    X, y = _data()
    assert _fit_model("MLP1", X, y, 424242).random_state == 1234
    assert _fit_model("GB", X, y, 424242).random_state == 424242


# -----------------------------------------------------------------------------
# Reduced-scale reproduction checks: the zoo's models reach the test accuracies the papers report.


# Reference: IMD paper, Appendix B Table 6 "Test Accuracy (%) of Models" (published numbers).
IMD_TABLE6_REFERENCE = {
    "banknote": dict(LR=98.30, KN1=100.00, DT1=97.33, MLP1=100.00, MLP2=100.00, DT2=97.82, GB=99.51, RF1=99.51,
                     KN2=100.00, RF2=99.51, GNB=83.74),
    "pima": dict(LR=77.06, KN1=71.86, DT1=74.03, MLP1=71.00, MLP2=68.40, DT2=69.70, GB=80.09, RF1=75.32,
                 KN2=72.29, RF2=76.19, GNB=75.32),
}
# Tolerances in percentage points: (mean gap over the models, largest gap for one model). pima's test
# part has ~230 rows, so one split's accuracy has a standard error of about 3 points.
TOLERANCE = {"banknote": (1.0, 2.5), "pima": (2.5, 6.0)}
SLOW_MODELS = ("MLP1", "MLP2")


def _imd_options(dataset: str) -> dict:
    """The dataset options of configs/imd/table6.yaml (the paper's preprocessing): banknote keeps its 24
    duplicate rows there, as Table 4's 1,372 rows show the paper did."""
    from pathlib import Path

    from interpretopt.experiments import load_config

    repo = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
    cfg = load_config(repo / "configs" / "imd" / "table6.yaml")
    return dict(next(d for d in cfg.datasets if d.name == dataset).options)


def test_imd_options_keep_banknote_duplicates():
    assert _imd_options("banknote")["drop_duplicates"] is False and _imd_options("pima")["drop_duplicates"] is True


def _table6_gaps(dataset: str, data_dir, models, reps: int) -> dict[str, float]:
    ds = load_dataset(dataset, data_dir=data_dir, **_imd_options(dataset))  # as the IMD configs; splits 70/30
    X, y = ds.numeric(), ds.y
    ours: dict[str, list[float]] = {}
    for rep in range(reps):
        tr, te = train_test_indices(len(y), 0.3, rep)
        for name in models:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = make_model(name).fit(X[tr], y[tr])
            ours.setdefault(name, []).append(100 * np.mean(model.predict(X[te]) == y[te]))
    return {m: abs(np.mean(a) - IMD_TABLE6_REFERENCE[dataset][m]) for m, a in ours.items()}


@pytest.mark.repro
@pytest.mark.parametrize("dataset", sorted(IMD_TABLE6_REFERENCE))
def test_imd_table6_accuracies(dataset, data_dir):
    """Reduced scale: 2 random 70/30 splits instead of 5, the two MLPs left to the slow check."""
    models = [m for m in IMD_TABLE6_REFERENCE[dataset] if m not in SLOW_MODELS]
    gaps = _table6_gaps(dataset, data_dir, models, reps=2)
    mean_tol, max_tol = TOLERANCE[dataset]
    assert np.mean(list(gaps.values())) <= mean_tol and max(gaps.values()) <= max_tol, gaps


@pytest.mark.slow
@pytest.mark.parametrize("dataset", sorted(IMD_TABLE6_REFERENCE))
def test_imd_table6_accuracies_mlp(dataset, data_dir):
    gaps = _table6_gaps(dataset, data_dir, SLOW_MODELS, reps=5)
    assert max(gaps.values()) <= TOLERANCE[dataset][1], gaps


def _release_abalone(data_dir):
    """Abalone as the MTRE-PAN release prepares it: one-hot Sex, rings >= median -> 1, classes
    balanced by dropping rows of the larger class, 30% validation rows."""
    from interpretopt.experiments.tasks.mtrepan import release_split

    ds = load_dataset("abalone", data_dir=data_dir, one_hot_sex=True)
    X, y = ds.numeric(), ds.y
    tr, va = release_split(y, 0.3, 0, balance=True)
    return X, y, tr, va


@pytest.mark.repro
def test_mtrepan_net_abalone_accuracy(data_dir):
    """MTRE-PAN Section 4.2 reports 84.4% validation accuracy on abalone. The release trains 1,000
    calls of RMSProp; reduced scale: 10 calls (the best call of a full run comes early)."""
    X, y, tr, va = _release_abalone(data_dir)
    net = make_model("MTREPAN_NET", random_state=0, n_rounds=10).fit(X[tr], y[tr], X_val=X[va], y_val=y[va])
    assert net.best_validation_score_ >= 0.80


@pytest.mark.slow
def test_mtrepan_net_abalone_accuracy_full(data_dir):
    X, y, tr, va = _release_abalone(data_dir)
    net = make_model("MTREPAN_NET", random_state=0, n_rounds=1000).fit(X[tr], y[tr], X_val=X[va], y_val=y[va])
    assert abs(net.best_validation_score_ - 0.844) <= 0.02
