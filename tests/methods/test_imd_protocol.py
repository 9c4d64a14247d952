"""IMD estimators: alpha = 0, string categoricals, per-rule support/precision, JST importances,
and BRCG Diff's disagreement rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpretopt.heuristics import jst as J
from interpretopt.methods.imd import BRCGDiff, DirectDT, IMDExplainer, SeparateSurrogates, xor_dnf
from interpretopt.rules import Condition, Conjunction, RuleSet


def synthetic(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y1 = (X[:, 0] > 0).astype(int)
    y2 = ((X[:, 0] > 0) & (X[:, 2] < 1.0)).astype(int)
    return X, y1, y2


def test_alpha_zero_works_and_is_eq5():
    """Regression: IMDExplainer(alpha=0.0) raised under the default divergence."""
    X, y1, y2 = synthetic()
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
    X, y1, y2 = synthetic()
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

    X, y1, y2 = synthetic()
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
    with pytest.raises(InterpretoptError, match="exceeds max_terms=500"):
        xor_dnf(A, B, max_terms=500)


def test_xor_dnf_of_constant_rule_sets():
    true, false = RuleSet((Conjunction(()),)), RuleSet(())
    r = RuleSet((Conjunction((Condition(0, "<=", 1.0),)),))
    assert xor_dnf(false, false) == [] and xor_dnf(true, true) == []
    assert xor_dnf(true, r) == [Conjunction((Condition(0, ">", 1.0),))]
    assert xor_dnf(r, false) == [Conjunction((Condition(0, "<=", 1.0),))]


def test_brcg_diff_rules_describe_its_own_predictions():
    """Regression: the rules were the union of the two rule sets while predictions were their XOR."""
    pytest.importorskip("interpretopt.methods.brcg")
    X, y1, y2 = synthetic(n=600)
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
