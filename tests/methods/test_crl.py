"""CompanionRuleList / PairedRuleList estimators: API, consistency with the rule objects, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from interpretopt.evaluation.autac import stochastic_crl_probabilities
from interpretopt.exceptions import InputError
from interpretopt.methods.crl import CompanionRuleList, PairedRuleList, tree_marker
from tests.instances import defaults_of


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": rng.normal(size=n),
        "b": rng.normal(size=n),
        "c": rng.uniform(size=n),
        "kind": pd.Categorical(rng.choice(["p", "q", "r"], n)),
    })
    logit = 2 * X["a"] - X["b"] + (X["kind"] == "p") * 1.5
    y = (logit + rng.normal(scale=0.7, size=n) > 0).astype(int).to_numpy()
    return X, y


@pytest.fixture(scope="module")
def fitted():
    X, y = _data()
    m = CompanionRuleList(black_box=LogisticRegression(), alpha=0.002, n_iter=2000, default_rule="none",
                          random_state=0).fit(X, y)
    return m, X, y


def test_fit_predict_and_curve(fitted):
    m, X, y = fitted
    M = m.n_rules_
    assert 1 <= M and len(m.rule_text_) == M and m.rules_.n_rules == M
    bb = m.black_box_.predict(m_numeric(X))
    assert np.array_equal(m.predict(X, n_rules=0), bb)  # no rule: the black box alone
    fc = m.first_cover(X)
    full = m.predict(X)
    covered = fc >= 0
    assert np.array_equal(full[covered], m.rule_labels_[fc[covered]])
    assert np.array_equal(full[~covered], bb[~covered])
    # the RuleList over original features covers exactly like the binarized items
    assert np.array_equal(m.rules_.first_cover(X), fc)
    curve = m.transparency_accuracy_curve(X, y)
    assert curve.n_rules == M and curve.accuracy[0] == pytest.approx(np.mean(bb == y))
    for k in range(M + 1):
        assert np.mean(m.predict(X, n_rules=k) == y) == pytest.approx(curve.accuracy[k])
    # the training objective is the AUTAC on the training data (with the OOF black-box answers) minus alpha M
    assert m.objective_ == pytest.approx(m.train_curve_.autac - m.alpha_ * M)
    tab = m.rule_table(X, y)
    assert list(tab.columns[:6]) == ["", "rule", "prediction", "cover", "rule_accuracy", "blackbox_accuracy"]
    assert "else" in m.render()


def m_numeric(X):
    from interpretopt.methods.crl import _numeric

    return _numeric(X)


def test_rules_match_items_on_numeric_input():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    m = CompanionRuleList(black_box=LogisticRegression(), alpha=0.002, n_iter=1000, random_state=1).fit(X, y)
    rl = m.rules_.first_cover(X)  # -1 where the RuleList's default answers: our last rule, the default rule
    assert np.array_equal(np.where(rl < 0, m.n_rules_ - 1, rl), m.first_cover(X))


def test_stochastic_crl_expected_transparency(fitted):
    m, X, y = fitted
    T = m.train_curve_.transparency
    for t in (0.0, 0.1, 0.37, 0.8, T[-1]):
        p = stochastic_crl_probabilities(m.first_cover(X), T, t)
        assert p.mean() == pytest.approx(min(t, T[-1]), abs=1e-12)
    pred = m.predict_stochastic(X, 0.3, random_state=0)
    assert set(np.unique(pred)) <= {0, 1}


def test_alpha_tuning_algorithm_2():
    X, y = _data(n=250, seed=3)
    m = CompanionRuleList(black_box=LogisticRegression(), alpha="auto", n_iter=300, random_state=0).fit(X, y)
    assert [r["alpha"] for r in m.tuning_] == [0.01, 0.005, 0.001, 0.0008, 0.0005, 0.0002, 0.0001]
    ok = [r for r in m.tuning_ if r["n_conditions"] < 20]
    assert [r["meets_cap"] for r in m.tuning_] == [r["n_conditions"] < 20 for r in m.tuning_]
    assert ok and m.cap_met_
    assert m.alpha_ == max(ok, key=lambda r: r["autac"])["alpha"]
    assert m.n_conditions_ < 20


def test_same_seed_same_list_and_given_predictions():
    X, y = _data(n=200, seed=5)
    bbp = np.where(np.random.default_rng(0).random(200) < 0.85, y, 1 - y)
    kw = dict(black_box=LogisticRegression(), alpha=0.003, n_iter=500, random_state=4)
    a = CompanionRuleList(**kw).fit(X, y, blackbox_pred=bbp)
    b = CompanionRuleList(**kw).fit(X, y, blackbox_pred=bbp)
    assert a.rule_text_ == b.rule_text_ and a.objective_ == b.objective_
    assert np.array_equal(a.blackbox_train_pred_, bbp)
    c = CompanionRuleList(**kw, blackbox_train_pred="in_sample").fit(X, y)
    assert np.array_equal(c.blackbox_train_pred_, c.black_box_.predict(m_numeric(X)))


def test_paired_baselines_and_tree_markers():
    X, y = _data(n=300, seed=6)
    for learner, params in (("corels", {"max_nodes": 200}), ("sbrl", {"n_iter": 200, "n_chains": 1})):
        b = PairedRuleList(learner=learner, black_box=LogisticRegression(), params=params,
                           max_rules_per_class=30, random_state=0).fit(X, y)
        curve = b.transparency_accuracy_curve(X, y)
        assert curve.transparency[-1] == 1.0  # the default rule closes the list
        assert curve.autac == pytest.approx(curve.autac_completed)
    mk = tree_marker(X, y, X, y, criterion="entropy", random_state=0)
    assert mk["transparency"] == 1.0 and mk["n_splits"] < 20 and 0.5 < mk["accuracy"] <= 1.0


class _NoPredict:
    def fit(self, X, y):
        return self


def test_bad_inputs():
    X, y = _data(n=120, seed=7)
    with pytest.raises(InputError, match="predict"):
        CompanionRuleList(black_box=_NoPredict(), n_iter=10).fit(X, y)
    with pytest.raises(InputError, match="binary"):
        CompanionRuleList(black_box=LogisticRegression(), n_iter=10).fit(X, np.arange(120) % 3)
    for bad in (0.0, 1.0, 1.2):
        with pytest.raises(InputError, match="min_support"):
            CompanionRuleList(black_box=LogisticRegression(), min_support=bad, n_iter=10).fit(X, y)
    Xc = pd.DataFrame({"u": np.arange(120) % 10})  # ten equally frequent values: no item reaches 50%
    with pytest.raises(InputError, match="no rule"):
        CompanionRuleList(black_box=DecisionTreeClassifier(), min_support=0.5, n_iter=10).fit(Xc, y)


def test_majority_rule_labels_fit():
    X, y = _data(n=250, seed=8)
    m = CompanionRuleList(black_box=LogisticRegression(), alpha=0.002, n_iter=800, rule_labels="majority",
                          default_rule="none", random_state=0).fit(X, y)
    curve = m.train_curve_
    # each rule predicts the majority of the training samples it captures
    fc = m.first_cover(X)
    for k, lab in enumerate(m.rule_labels_):
        mine = fc == k
        if mine.any():
            assert np.mean(y[mine] == lab) >= 0.5
    assert m.objective_ == pytest.approx(curve.autac - m.alpha_ * m.n_rules_)


def test_sklearn_contract_params_and_clone():
    from sklearn.base import clone

    est = CompanionRuleList(black_box=LogisticRegression(), alpha=0.01, n_iter=7, random_state=3)
    c = clone(est)
    assert c.get_params()["n_iter"] == 7 and c.get_params()["alpha"] == 0.01
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        c.predict(np.zeros((2, 4)))
    assert "n_iter=7" in repr(est)


# ----------------------------------------------------------------------------- the companion API
@pytest.fixture(scope="module")
def with_default():
    X, y = _data(seed=11)
    m = CompanionRuleList(black_box=LogisticRegression(), alpha=0.002, n_iter=1500, random_state=0).fit(X, y)
    return m, X, y


def test_default_rule_closes_the_list(with_default):
    m, X, y = with_default
    assert m.rule_itemsets_[-1] == () and m.rule_text_[-1].startswith("default")
    assert (m.first_cover(X) >= 0).all()  # every row is answered by a rule
    curve = m.transparency_accuracy_curve(X, y)
    assert curve.transparency[-1] == 1.0 and curve.autac == pytest.approx(curve.autac_completed)
    # the default predicts the majority of the training rows the other rules leave
    fc = m.first_cover(X)
    rest = fc == len(m.rule_labels_) - 1
    if rest.any():
        assert np.mean(y[rest] == m.rule_labels_[-1]) >= 0.5
    assert m.rules_.default == m.classes_[m.rule_labels_[-1]] and m.rules_.n_rules == m.n_rules_ - 1
    assert np.array_equal(m.rules_.predict(X), m.predict(X))
    assert m.n_conditions_ == sum(len(s) for s in m.rule_itemsets_[:-1])


def test_predict_at_transparency_is_the_longest_prefix_within_t(with_default):
    m, X, y = with_default
    T = m.train_curve_.transparency
    bb = m.black_box_.predict(m_numeric(X))
    assert np.array_equal(m.predict(X, transparency=0.0), bb)
    assert np.array_equal(m.predict(X, transparency=1.0), m.predict(X))
    for t in (0.2, 0.5, 0.9):
        k = m.n_rules_at(t)
        assert T[k] <= t + 1e-12 and (k == len(T) - 1 or T[k + 1] > t)
        assert np.array_equal(m.predict(X, transparency=t), m.predict(X, n_rules=k))
    with pytest.raises(InputError, match="transparency"):
        m.predict(X, transparency=1.5)
    with pytest.raises(InputError, match="not both"):
        m.predict(X, n_rules=1, transparency=0.5)


def test_predict_proba_rules_and_black_box(with_default):
    m, X, y = with_default
    p = m.predict_proba(X)
    assert p.shape == (len(y), 2) and np.allclose(p.sum(axis=1), 1.0)
    fc = m.first_cover(X)
    for k in range(m.n_rules_):
        mine = fc == k
        if mine.any():
            assert np.allclose(p[mine, 1], np.mean(y[mine] == 1))  # the rule's training share of class 1
    p0 = m.predict_proba(X, transparency=0.0)
    assert np.allclose(p0, m.black_box_.predict_proba(m_numeric(X)))


def test_explain_names_the_answering_rule_or_the_black_box(with_default):
    m, X, y = with_default
    k = max(1, m.n_rules_at(0.5))
    ex = m.explain(X, n_rules=k)
    assert list(ex.columns) == ["rule", "answered_by", "condition", "prediction", "rule_accuracy",
                                "blackbox_accuracy", "cover"]
    fc = m.first_cover(X)
    by_rule = (fc >= 0) & (fc < k)
    assert np.array_equal(ex["rule"].to_numpy(), np.where(by_rule, fc, -1))
    assert (ex.loc[~by_rule, "answered_by"] == "black box").all() and (ex.loc[by_rule, "answered_by"] == "rule").all()
    assert np.array_equal(ex["prediction"].to_numpy(), m.predict(X, n_rules=k))
    tab = m.rule_table()
    for r in np.unique(ex.loc[by_rule, "rule"]):
        row = ex[ex["rule"] == r].iloc[0]
        assert row["condition"] == m.rule_text_[r]
        assert row["rule_accuracy"] == pytest.approx(tab["rule_accuracy"][r])
        assert row["blackbox_accuracy"] == pytest.approx(tab["blackbox_accuracy"][r])


def test_plot_tradeoff_draws_the_curve_and_the_black_box_line(with_default):
    import matplotlib

    matplotlib.use("Agg", force=True)
    m, X, y = with_default
    ax = m.plot_tradeoff(X, y)
    lines = ax.get_lines()
    curve = m.transparency_accuracy_curve(X, y)
    assert np.allclose(lines[0].get_xdata(), curve.transparency)
    assert np.allclose(lines[1].get_ydata(), curve.accuracy[0])  # the black box's accuracy, as a line


class _PredictOnly:
    """A pre-trained model that can only predict (no fit, no get_params): not clonable."""

    def __init__(self, model):
        self._m = model

    def predict(self, X):
        return self._m.predict(X)


def test_regression_pretrained_predict_only_black_box_is_used_as_is():
    X, y = _data(n=300, seed=12)
    lr = LogisticRegression().fit(m_numeric(X), y)
    bb = _PredictOnly(lr)
    m = CompanionRuleList(black_box=bb, refit=False, alpha=0.002, n_iter=300, random_state=0).fit(X, y)
    assert m.black_box_ is bb and m.blackbox_train_pred_source_ == "in_sample"
    assert np.array_equal(m.blackbox_train_pred_, lr.predict(m_numeric(X)))
    with pytest.raises(InputError, match="refit=False with blackbox_train_pred='in_sample'"):
        CompanionRuleList(black_box=bb, refit=False, blackbox_train_pred="oof", n_iter=10).fit(X, y)
    with pytest.raises(InputError, match="predict_proba"):
        m.predict_proba(X, transparency=0.0)


def test_regression_alpha_tuning_reports_when_no_alpha_meets_the_condition_cap():
    X, y = _data(n=300, seed=13)
    with pytest.warns(UserWarning, match="no alpha"):
        m = CompanionRuleList(black_box=LogisticRegression(), alpha="auto", n_iter=300, max_conditions=1,
                              random_state=0).fit(X, y)
    assert not m.cap_met_ and not any(r["meets_cap"] for r in m.tuning_)
    assert m.n_conditions_ == min(r["n_conditions"] for r in m.tuning_)


def test_crl_defaults_are_the_papers():
    d = defaults_of(CompanionRuleList)
    assert d["C0"] == 0.001 and d["n_iter"] == 50_000
    assert d["min_support"] == 0.05 and d["max_card"] == 2 and d["n_quantiles"] == 7
    assert d["blackbox_train_pred"] == "auto" and d["max_conditions"] == 20 and d["default_rule"] == "search"


def test_crl_default_blackbox_answers_are_out_of_fold():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = ((X[:, 0] + rng.normal(scale=1.0, size=200)) > 0).astype(int)  # noisy: a full tree memorizes
    m = CompanionRuleList(black_box=DecisionTreeClassifier(random_state=0), alpha=0.002, n_iter=50,
                          random_state=0).fit(X, y)
    in_sample = m.black_box_.predict(X)
    assert np.mean(in_sample == y) == 1.0
    # out-of-fold answers are not the memorized training labels
    assert np.mean(m.blackbox_train_pred_ == y) < 0.95
    assert m.train_curve_.accuracy[0] == pytest.approx(np.mean(m.blackbox_train_pred_ == y))
    # the default (out-of-fold) path is seeded too: same seed, same answers and same list
    m2 = CompanionRuleList(black_box=DecisionTreeClassifier(random_state=0), alpha=0.002, n_iter=50,
                           random_state=0).fit(X, y)
    assert np.array_equal(m2.blackbox_train_pred_, m.blackbox_train_pred_)
    assert m2.rule_text_ == m.rule_text_ and m2.objective_ == m.objective_
