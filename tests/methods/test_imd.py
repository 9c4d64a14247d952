"""IMDExplainer and the baselines: API, equivalences, bad input, rendering."""

from __future__ import annotations

import shutil
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
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
    xor_dnf,
)
from interpretopt.rules import Condition, Conjunction, RuleSet


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


# -----------------------------------------------------------------------------
# IMD estimators: alpha = 0, string categoricals, per-rule support/precision, JST importances,
# and BRCG Diff's disagreement rules.


def binary_synthetic(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y1 = (X[:, 0] > 0).astype(int)
    y2 = ((X[:, 0] > 0) & (X[:, 2] < 1.0)).astype(int)
    return X, y1, y2


def test_alpha_zero_works_and_is_eq5():
    """Regression: IMDExplainer(alpha=0.0) raised under the default divergence."""
    X, y1, y2 = binary_synthetic()
    a = IMDExplainer(alpha=0.0, max_depth=4).fit(X, y1, y2)
    b = IMDExplainer(divergence="general", alpha=0.0, max_depth=4).fit(X, y1, y2)
    assert np.array_equal(a.predict_diff(X), b.predict_diff(X)) and a.n_rules_ == b.n_rules_
    # alpha = 0 diverges only where both best splits are pure: at least as many shared nodes as eq. (6)
    c = IMDExplainer(max_depth=4).fit(X, y1, y2)
    assert a.jst_.n_shared >= c.jst_.n_shared
    sep = IMDExplainer(alpha=1.0, max_depth=4).fit(X, y1, y2)
    assert sep.jst_.n_shared == 0


def test_string_categoricals_are_one_hot_encoded():
    """Regression: string categorical columns were rejected."""
    rng = np.random.default_rng(1)
    colour = rng.choice(["red", "green", "blue"], size=800)
    size = rng.normal(size=800)
    X = pd.DataFrame({"colour": colour, "size": size})
    y1 = (size > 0).astype(int)
    y2 = ((size > 0) | (colour == "red")).astype(int)
    imd = IMDExplainer(max_depth=3).fit(X, y1, y2)
    assert list(imd.feature_names_in_) == ["colour", "size"]
    assert imd.feature_names_ == ["colour=blue", "colour=green", "colour=red", "size"]
    d_hat = imd.predict_diff(X)
    assert np.mean(d_hat == (y1 != y2)) > 0.95
    assert "colour=red" in imd.render_rules()
    dt = DirectDT(max_depth=3).fit(X, y1, y2)
    assert dt.predict_diff(X.iloc[:5]).shape == (5,)


def test_rule_support_and_precision_are_those_of_the_rules():
    X, y1, y2 = binary_synthetic()
    for est in (IMDExplainer(max_depth=5), SeparateSurrogates(max_depth=5), DirectDT(max_depth=5)):
        est.fit(X[:1000], y1[:1000], y2[:1000])
        st_ = est.rule_stats(X[1000:], y1[1000:], y2[1000:])
        d = y1[1000:] != y2[1000:]
        for k, rule in enumerate(est.diff_rules_):
            cov = np.asarray(rule.evaluate(X[1000:]), dtype=bool)
            assert st_["support"][k] == cov.sum()
            if cov.any():
                assert st_["precision"][k] == pytest.approx(d[cov].mean())
        train_cov = np.array([np.asarray(r.evaluate(X[:1000]), bool).sum() for r in est.diff_rules_])
        assert np.array_equal(est.diff_rule_support_, train_cov)
        m = est.metrics(X[1000:], y1[1000:], y2[1000:])
        assert m["n_rules_empty"] == np.count_nonzero(train_cov == 0)
        assert "support" in est.render_rules() and "precision" in est.render_rules()


def test_separate_surrogates_can_have_regions_without_training_rows():
    X = np.random.default_rng(3).normal(size=(3000, 4))
    y1 = (X[:, 0] * X[:, 2] > 0).astype(int)
    y2 = (X[:, 1] * X[:, 3] > 0.2).astype(int)  # other features: many leaf boxes intersect off the data
    sep = SeparateSurrogates(max_depth=6).fit(X, y1, y2)
    sup = sep.diff_rule_support_
    assert sup.shape == (sep.n_rules_,) and (sup == 0).any()
    assert np.isnan(sep.diff_rule_precision_[sup == 0]).all()


def test_jst_feature_importances_match_scikit_learn_definition():
    from sklearn.tree import DecisionTreeClassifier

    X, y1, y2 = binary_synthetic()
    X = np.round(X, 1)
    imd = IMDExplainer(alpha=1.0, max_depth=3, criterion="entropy").fit(X, y1, y2)  # two independent trees
    sk = DecisionTreeClassifier(max_depth=3, criterion="entropy", random_state=0).fit(X, y2)
    np.testing.assert_allclose(imd.surrogate_importances_[1], sk.feature_importances_, atol=1e-9)
    assert imd.feature_importances_.sum() == pytest.approx(1.0)
    # only the features the trees split on are important
    used = set(imd.surrogate1_.feature[imd.surrogate1_.feature >= 0]) | set(imd.surrogate2_.feature[imd.surrogate2_.feature >= 0])
    assert set(np.nonzero(imd.feature_importances_)[0]) == used


# ---------------------------------------------------------------------------------- BRCG Diff
_lit = st.builds(lambda f, op, v: Condition(f, op, float(v)), st.integers(0, 2), st.sampled_from(["<=", ">"]),
                 st.integers(0, 4))
_rule = st.lists(_lit, min_size=1, max_size=3).map(lambda cs: Conjunction(tuple(cs)))
_ruleset = st.lists(_rule, min_size=0, max_size=4).map(lambda rs: RuleSet(tuple(rs)))


@settings(max_examples=60, deadline=None)
@given(A=_ruleset, B=_ruleset)
def test_xor_dnf_is_exactly_the_disagreement(A, B):
    grid = np.array(np.meshgrid(*[np.arange(-1, 6) + 0.5 * k for k in (0, 1, 0)])).reshape(3, -1).T
    grid = np.vstack([grid, np.array(np.meshgrid(*[np.arange(-1, 6)] * 3)).reshape(3, -1).T])
    want = A.predict(grid) != B.predict(grid)
    got = RuleSet(tuple(xor_dnf(A, B))).predict(grid).astype(bool) if xor_dnf(A, B) else np.zeros(len(grid), bool)
    assert np.array_equal(got, want)


def _absorb_pairs(terms):
    """Slow reference: keep a distinct term unless a shorter-or-equal kept one is a subset of it."""
    uniq = sorted(dict.fromkeys(terms), key=len)
    kept = []
    for t in uniq:
        if not any(set(k.conditions) <= set(t.conditions) for k in kept):
            kept.append(t)
    return kept


@settings(max_examples=80, deadline=None)
@given(terms=st.lists(st.lists(_lit, min_size=0, max_size=4).map(lambda cs: Conjunction(tuple(cs))), max_size=30))
def test_absorption_equals_the_all_pairs_reference(terms):
    from interpretopt.methods.imd import _absorb

    assert _absorb(terms) == _absorb_pairs(terms)


def test_a_disagreement_dnf_blow_up_fails_fast():
    """Regression: on a smoke run the XOR of two 10-rule sets expanded for over 20 minutes before the
    size check (made after absorbing every step's terms) could fire."""
    from interpretopt.exceptions import InterpretoptError

    A = RuleSet(tuple(Conjunction((Condition(j, "<=", 0.5), Condition(j + 10, ">", 0.5), Condition(j + 20, "<=", 0.5)))
                      for j in range(10)))
    B = RuleSet(tuple(Conjunction((Condition(j + 30, "<=", 0.5), Condition(j + 40, ">", 0.5),
                                   Condition(j + 50, "<=", 0.5))) for j in range(10)))
    from interpretopt.methods.imd import DisagreementTooLargeError

    with pytest.raises(DisagreementTooLargeError, match="exceeds max_terms=500"):
        xor_dnf(A, B, max_terms=500)
    assert issubclass(DisagreementTooLargeError, InterpretoptError)


def test_xor_dnf_of_constant_rule_sets():
    true, false = RuleSet((Conjunction(()),)), RuleSet(())
    r = RuleSet((Conjunction((Condition(0, "<=", 1.0),)),))
    assert xor_dnf(false, false) == [] and xor_dnf(true, true) == []
    assert xor_dnf(true, r) == [Conjunction((Condition(0, ">", 1.0),))]
    assert xor_dnf(r, false) == [Conjunction((Condition(0, "<=", 1.0),))]


def test_brcg_diff_rules_describe_its_own_predictions():
    """Regression: the rules were the union of the two rule sets while predictions were their XOR."""
    pytest.importorskip("interpretopt.methods.brcg")
    X, y1, y2 = binary_synthetic(n=600)
    params = dict(pricing="beam", max_literals=2, n_thresholds=4, mip_time_limit=5, time_limit=10)
    bd = BRCGDiff(brcg_params=params).fit(X, y1, y2)
    p1, p2 = bd.predict_surrogates(X)
    assert np.array_equal(bd.predict_diff(X), (p1 != p2).astype(np.int8))
    assert np.array_equal(bd.diff_rules_.predict(X), bd.predict_diff(X))
    X2 = np.random.default_rng(9).normal(size=(400, 4)) * 2
    q1, q2 = bd.predict_surrogates(X2)
    assert np.array_equal(bd.predict_diff(X2), (q1 != q2).astype(np.int8))  # off the training data too
    un = BRCGDiff(brcg_params=params, construction="union").fit(X, y1, y2)
    r1, r2 = un.surrogate_rules_
    assert np.array_equal(un.predict_diff(X), (r1.predict(X) | r2.predict(X)).astype(np.int8))
    with pytest.raises(Exception, match="construction"):
        BRCGDiff(construction="and").fit(X, y1, y2)


# -----------------------------------------------------------------------------
# IMD checks not covered elsewhere: the Graphviz image path and the BRCG Diff baseline fitted end to end.


def _or_synthetic(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y1 = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    y2 = ((X[:, 0] + 0.3 * X[:, 1] > 0) | (X[:, 2] > 1.0)).astype(int)
    return X, y1, y2


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_image_path_draws_the_dot_layout(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y1, y2 = _or_synthetic()
    imd = IMDExplainer(max_depth=3).fit(X, y1, y2)
    assert imd.n_rules_ > 0
    for engine in ("graphviz", "auto"):
        ax = imd.plot(engine=engine)
        images = ax.get_images()
        assert len(images) == 1  # the PNG rendered by dot, not the matplotlib node layout
        h, w = images[0].get_array().shape[:2]
        assert h > 50 and w > 50
        assert not ax.texts  # the pure-matplotlib layout writes node labels as texts
        ax.figure.savefig(tmp_path / f"jst_{engine}.png")
        assert (tmp_path / f"jst_{engine}.png").stat().st_size > 0
        plt.close(ax.figure)
    ax = imd.plot(engine="matplotlib")
    assert not ax.get_images() and len(ax.texts) > 0
    plt.close(ax.figure)


def test_graphviz_engine_without_dot_is_a_clear_error(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from interpretopt.methods import imd_render

    X, y1, y2 = _or_synthetic(n=200)
    imd = IMDExplainer(max_depth=2).fit(X, y1, y2)
    monkeypatch.setattr(imd_render.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="dot"):
        imd.plot(engine="graphviz")
    ax = imd.plot(engine="auto")  # falls back to the matplotlib layout
    assert not ax.get_images() and len(ax.texts) > 0
    plt.close(ax.figure)


def test_a_stored_jst_graph_reads_back_equal_and_draws():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from interpretopt.methods import imd_render

    X, y1, y2 = _or_synthetic(n=200)
    imd = IMDExplainer(max_depth=2).fit(X, y1, y2)
    nodes = imd_render.jst_graph(imd)
    back = imd_render.graph_from_json(imd_render.graph_to_json(nodes))
    assert back == nodes
    ax = imd_render.plot_jst_graph(back)
    assert len(ax.texts) >= len(nodes)
    plt.close(ax.figure)


def test_brcg_diff_predicts_where_the_two_rule_sets_differ():
    pytest.importorskip("interpretopt.methods.brcg")
    X, y1, y2 = _or_synthetic()
    params = dict(pricing="beam", max_literals=2, n_thresholds=4, mip_time_limit=5, time_limit=10)
    bd = BRCGDiff(brcg_params=params).fit(X, y1, y2)
    m1, m2 = bd.models_
    assert m1 is not None and m2 is not None
    # the second rule set is grounded in the first (BRCG+)
    assert type(m2).__name__ == "GroundedBRCGClassifier" and m2.grounding is m1.rules_
    p1, p2 = m1.predict(X), m2.predict(X)
    assert np.array_equal(bd.predict_diff(X), (p1 != p2).astype(np.int8))
    assert np.array_equal(np.asarray(m1.rules_.predict(X)), p1)
    met = bd.metrics(X, y1, y2)
    # #r counts the diff rules (the disagreement DNF), not the two surrogates' rules
    assert met["n_rules"] == len(bd.diff_rules_)
    assert np.array_equal(bd.diff_rules_.predict(X), (p1 != p2).astype(np.int8))
    d = y1 != y2
    pred = bd.predict_diff(X).astype(bool)
    assert met["recall"] == pytest.approx((d & pred).sum() / max(d.sum(), 1))
    # the two models differ only on x2 > 1: the rule sets should localize most of it
    assert met["f1"] > 0.5
    plain = BRCGDiff(brcg_params=params, grounded=False).fit(X, y1, y2)
    assert type(plain.models_[1]).__name__ == "BRCGClassifier"


def test_refinement_splits_every_impure_diff_leaf_once():
    """IMD_{h+1}: each impure leaf taking part in a diff region gains one split (by its own
    model's best split); pure leaves and leaves outside diff regions stay leaves."""
    from interpretopt.heuristics.jst import best_split, diff_regions, grow_joint_tree, refine

    rng = np.random.default_rng(4)
    X = rng.normal(size=(600, 3))
    y1 = ((X[:, 0] + X[:, 1] > 0) ^ (rng.random(600) < 0.1)).astype(int)
    y2 = ((X[:, 0] - X[:, 2] > 0.3) ^ (rng.random(600) < 0.1)).astype(int)
    jst = grow_joint_tree(X, y1, y2, 2)
    regions = diff_regions(jst)
    assert regions
    new = refine(jst, X, y1, y2, 1)
    n_split = 0
    for tree, new_tree, y, in_diff in ((jst.tree1, new.tree1, y1, {r.leaf1 for r in regions}),
                                       (jst.tree2, new.tree2, y2, {r.leaf2 for r in regions})):
        leaf_of = tree.apply(X)
        for leaf in np.flatnonzero(tree.is_leaf):
            idx = np.flatnonzero(leaf_of == leaf)
            splittable = idx.size >= 2 and best_split(X[idx], y[idx], 2)[0] >= 0
            if leaf in in_diff and not tree.pure[leaf] and splittable:
                assert new_tree.feature[leaf] >= 0
                f, t, _ = best_split(X[idx], y[idx], 2)
                assert (new_tree.feature[leaf], new_tree.threshold[leaf]) == (f, pytest.approx(t))
                n_split += 1
            else:
                assert new_tree.feature[leaf] < 0
    assert n_split > 0
    assert new.height == jst.height + 1
