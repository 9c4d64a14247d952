"""IMDExplainer and the baselines: API, equivalences, bad input, rendering."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.naive_bayes import GaussianNB
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from interpretopt.exceptions import InputError, InterpretoptError
from interpretopt.methods.imd import (
    BRCGDiff,
    DirectDT,
    DirectGB,
    IMDExplainer,
    JointSurrogateTree,
    SeparateSurrogates,
    make_diff_model,
)


@pytest.fixture(scope="module")
def bc_pair():
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target
    X_tr, X_te, y_tr, _ = train_test_split(X, y, test_size=0.3, random_state=0)
    m1 = GaussianNB().fit(X_tr, y_tr)
    m2 = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_tr, y_tr)
    D_tr, D_te = train_test_split(X, test_size=0.3, random_state=1)
    return m1, m2, D_tr, D_te


def synthetic(n=600, seed=0, k=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y1 = np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.5, 0.5][: k - 1])
    y2 = np.digitize(X[:, 0] + 0.3 * X[:, 1] + 0.8 * (X[:, 2] > 1), [-0.5, 0.5][: k - 1])
    return X, y1, y2


def test_models_and_labels_give_the_same_fit(bc_pair):
    m1, m2, D_tr, D_te = bc_pair
    a = IMDExplainer(max_depth=4).fit(D_tr, m1, m2)
    b = JointSurrogateTree(max_depth=4).fit(D_tr, m1.predict(D_tr), m2.predict(D_tr))
    assert a.diff_rules_ == b.diff_rules_
    assert np.array_equal(a.predict_diff(D_te), b.predict_diff(D_te))


@pytest.mark.parametrize("max_depth,refine_k", [(2, 0), (6, 0), (4, 1), (3, 2)])
def test_rules_and_surrogate_disagreement_agree_on_train_and_test(bc_pair, max_depth, refine_k):
    m1, m2, D_tr, D_te = bc_pair
    imd = IMDExplainer(max_depth=max_depth, refine=refine_k).fit(D_tr, m1, m2)
    for Z in (D_tr, D_te):
        by_rules = imd.predict_diff(Z)
        assert np.array_equal(by_rules, imd.predict_diff(Z, source="surrogates"))
        assert np.array_equal(by_rules, imd.predict_diff(Z, source="regions"))
        assert np.array_equal(by_rules, (imd.predict1(Z) != imd.predict2(Z)).astype(np.int8))
    assert imd.jst_.height <= max_depth + refine_k


def test_fitted_attributes_and_metrics(bc_pair):
    m1, m2, D_tr, D_te = bc_pair
    imd = IMDExplainer().fit(D_tr, m1, m2)
    assert imd.feature_names_in_[0] == "mean radius"
    assert len(imd.diff_rule_info_) == len(imd.diff_rules_) == imd.n_rules_
    from interpretopt.evaluation.diff_metrics import count_unique_predicates

    assert imd.n_predicates_ == count_unique_predicates(imd.diff_rules_) > 0
    assert {r.or_node for r in imd.diff_rule_info_} <= set(range(len(imd.or_nodes_)))
    assert all(r.label1 != r.label2 for r in imd.diff_rule_info_)
    met = imd.metrics(D_te, m1, m2)
    for key in ("diffs", "precision", "recall", "f1", "n_rules", "n_predicates", "fidelity1", "fidelity2"):
        assert key in met
    d = m1.predict(D_te) != m2.predict(D_te)
    p = imd.predict_diff(D_te).astype(bool)
    assert met["precision"] == pytest.approx((d & p).sum() / max(p.sum(), 1))
    assert met["recall"] == pytest.approx((d & p).sum() / max(d.sum(), 1))
    assert met["fidelity1"] == pytest.approx(np.mean(imd.predict1(D_te) == m1.predict(D_te)))
    assert imd.fidelity(D_te, m1, m2) == (met["fidelity1"], met["fidelity2"])
    assert 0.8 < imd.fidelity_[0] <= 1.0
    assert imd.score(D_te, m1, m2) == met["f1"]


def test_separate_surrogates_is_imd_with_alpha_one():
    X, y1, y2 = synthetic()
    sep = SeparateSurrogates(max_depth=4).fit(X, y1, y2)
    gen = IMDExplainer(max_depth=4, divergence="general", alpha=1.0).fit(X, y1, y2)
    assert sep.diff_rules_ == gen.diff_rules_
    assert len(sep.or_nodes_) == 1 and sep.jst_.n_shared == 0
    imd = IMDExplainer(max_depth=4).fit(X, y1, y2)
    assert imd.jst_.n_shared > 0
    assert imd.n_rules_ <= sep.n_rules_


def test_multiclass_and_string_labels():
    X, y1, y2 = synthetic(k=3)
    names = np.array(["low", "mid", "high"])
    imd = IMDExplainer(max_depth=4).fit(X, names[y1], names[y2])
    assert set(imd.classes_) <= set(names)
    assert set(imd.predict1(X)) <= set(names)
    assert np.array_equal(imd.predict_diff(X), imd.predict_diff(X, source="surrogates"))
    assert any(r.label1 in names for r in imd.diff_rule_info_)


def test_identical_models_give_no_rules():
    X, y1, _ = synthetic()
    imd = IMDExplainer(max_depth=5).fit(X, y1, y1)
    assert imd.n_rules_ == 0
    assert not imd.predict_diff(X).any()
    assert imd.metrics(X, y1, y1)["precision"] == 0.0


def test_bad_input():
    X, y1, y2 = synthetic()
    with pytest.raises(InputError, match="differ in length|rows"):
        IMDExplainer().fit(X, y1, y2[:-1])
    with pytest.raises(InputError, match="max_depth"):
        IMDExplainer(max_depth=0).fit(X, y1, y2)
    with pytest.raises(InputError, match="alpha"):
        IMDExplainer(divergence="general", alpha=1.5).fit(X, y1, y2)
    with pytest.raises(InputError, match="alpha"):
        IMDExplainer(divergence="general").fit(X, y1, y2)
    with pytest.raises(InputError, match="alpha"):
        IMDExplainer(divergence="simplified", alpha=0.5).fit(X, y1, y2)
    with pytest.raises(InputError, match="divergence"):
        IMDExplainer(divergence="eq7").fit(X, y1, y2)
    with pytest.raises(InputError, match="criterion"):
        IMDExplainer(criterion="mse").fit(X, y1, y2)

    class Broken:
        def predict(self, X):
            raise ValueError("expects 7 features")

    with pytest.raises(InputError, match="could not predict.*expects 7 features"):
        IMDExplainer().fit(X, Broken(), y2)
    imd = IMDExplainer(max_depth=2).fit(X, y1, y2)
    with pytest.raises(InputError, match="features"):
        imd.predict_diff(X[:, :2])
    with pytest.raises(InterpretoptError, match="not fitted"):
        IMDExplainer().predict_diff(X)


def test_direct_dt_rules_match_its_tree():
    X, y1, y2 = synthetic(n=800)
    X = X.astype(np.float32).astype(float)  # scikit-learn routes in float32
    dt = DirectDT(max_depth=6, random_state=0).fit(X, y1, y2)
    assert np.array_equal(dt.diff_rules_.predict(X).astype(bool), dt.predict_diff(X).astype(bool))
    met = dt.metrics(X, y1, y2)
    assert met["n_rules"] == len(dt.diff_rules_) > 0


def test_direct_gb_and_constant_dissimilarity():
    X, y1, y2 = synthetic(n=300)
    gb = DirectGB(random_state=0).fit(X, y1, y2)
    assert gb.diff_rules_ is None and gb.metrics(X, y1, y2)["n_rules"] == 0
    assert gb.metrics(X, y1, y2)["f1"] > 0.5
    const = DirectGB().fit(X, y1, y1)
    assert not const.predict_diff(X).any()


def test_brcg_diff_reports_missing_brcg(monkeypatch):
    monkeypatch.setitem(sys.modules, "interpretopt.methods.brcg", None)
    X, y1, y2 = synthetic(n=100)
    with pytest.raises(InterpretoptError, match="BRCG is unavailable|unavailable"):
        BRCGDiff().fit(X, y1, y2)


def test_brcg_diff_binary_only():
    pytest.importorskip("interpretopt.methods.brcg")
    X, y1, y2 = synthetic(n=100, k=3)
    with pytest.raises(InputError, match="binary"):
        BRCGDiff().fit(X, y1, y2)


def test_make_diff_model_names():
    assert isinstance(make_diff_model("separate", max_depth=3), SeparateSurrogates)
    with pytest.raises(KeyError, match="valid names"):
        make_diff_model("nope")


def test_text_dot_and_image_rendering(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    X, y1, y2 = synthetic()
    df = pd.DataFrame(X, columns=["age", "income", "debt", "score"])
    imd = IMDExplainer(max_depth=3).fit(df, y1, y2)
    text = imd.render_rules()
    assert "or-node vo" in text and ("income" in text or "age" in text or "debt" in text)
    assert text.count("IF ") == imd.n_rules_
    dot = imd.to_dot()
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert dot.count("shape=circle") == len(imd.or_nodes_)
    assert dot.count("style=dashed") == 2 * len(imd.or_nodes_)
    assert dot.count("color=red") == len({r.leaf1 for r in imd.diff_regions_}) + len({r.leaf2 for r in imd.diff_regions_})
    ax = imd.plot(engine="matplotlib")
    ax.figure.savefig(tmp_path / "jst.png")
    assert (tmp_path / "jst.png").stat().st_size > 0


def test_refined_copy_equals_fitting_with_refine():
    X, y1, y2 = synthetic(n=500)
    base = IMDExplainer(max_depth=3).fit(X, y1, y2)
    again = base.refined(X, y1, y2, 1)
    direct = IMDExplainer(max_depth=3, refine=1).fit(X, y1, y2)
    assert again.refine == 1 and base.refine == 0
    assert again.diff_rules_ == direct.diff_rules_
    assert np.array_equal(again.predict_diff(X), direct.predict_diff(X))
    with pytest.raises(InputError, match="not seen"):
        base.refined(X, y1 + 5, y2, 1)
