"""Reduced-scale reproduction of Table 2 (Yao et al., TMLR 2025) on HELOC (FICO), and the Phase 1 pool
reaching the paper's lists: the transcribed Figure 6c adult list (M = 3, L = 4) against ours."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

from interpretopt.evaluation import abbr as A
from interpretopt.methods.abbr import ChecklistSearch, RuleListSearch


@pytest.mark.repro
def test_heloc_optimality_ratio_reduced_scale(data_dir):
    from interpretopt.data import load_dataset, train_test_indices

    ds = load_dataset("heloc", data_dir=data_dir).subsample(4000, 0)
    X, y = ds.numeric(), ds.y
    train, test = train_test_indices(len(y), 0.3, 0, stratify=y)
    bb = RandomForestClassifier(n_estimators=100, min_samples_leaf=3, random_state=0, n_jobs=1)
    bb.fit(X[train], y[train])
    p_train, p_test = bb.predict_proba(X[train])[:, 1], bb.predict_proba(X[test])[:, 1]
    ratios = {}
    for name, est in {
        "RLS L=4 M=5": RuleListSearch(s=0.2, L=4, M=5, random_state=0),
        "RLS L=2 M=3": RuleListSearch(s=0.2, L=2, M=3, random_state=0),
        "CLS K=5": ChecklistSearch(s=0.2, K=5, random_state=0),
    }.items():
        est.fit(ds.X.iloc[train], p_train)
        assert est.abbr_ >= est.init_abbr_ - 1e-12
        ratios[name] = est.evaluate(ds.X.iloc[test], p_test)["optimality_ratio"]
    # the paper's best configurations reach about 0.93 on average; a reduced-scale run (4,000
    # rows, 100-tree black box) must at least be far above the naive 0
    assert all(r > 0.6 for r in ratios.values()), ratios
    assert np.mean(list(ratios.values())) > 0.7, ratios


def figure6c_covers(X) -> np.ndarray:
    """Figure 6c (Adults, support 0.105, ABBR 0.941), on PMLB's alphabetical codes:
    relationship 0 = Husband, marital-status 2 = Married-civ-spouse, sex 1 = Male;
    "Education" is education-num and "Married = 1" is marital-status = Married-civ-spouse."""
    married = X["marital-status"].astype(float) == 2
    r1 = (X["relationship"].astype(float) == 0) & (X["education-num"] >= 14) & (X["age"] >= 30)
    r2 = married & (X["capital-gain"] >= 5000)
    r3 = (X["sex"].astype(float) == 1) & married & (X["hours-per-week"] >= 42) & (X["education-num"] >= 13)
    return np.column_stack([r1, r2, r3]).astype(bool)


@pytest.mark.repro
def test_pool_reaches_figure_6c_list_on_adult(data_dir):
    from interpretopt.data import load_dataset, train_test_indices

    ds = load_dataset("adult", data_dir=data_dir).subsample(16000, 0)
    X, y = ds.numeric(), ds.y
    train, test = train_test_indices(len(y), 0.3, 0, stratify=y)
    rng = np.random.default_rng(0)
    perm = rng.permutation(train)
    bb_rows, search = np.sort(perm[: len(train) // 2]), np.sort(perm[len(train) // 2:])
    bb = RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1).fit(X[bb_rows], y[bb_rows])
    p_search, p_test = bb.predict_proba(X[search])[:, 1], bb.predict_proba(X[test])[:, 1]
    Xs, Xt = ds.X.iloc[search].reset_index(drop=True), ds.X.iloc[test].reset_index(drop=True)
    paper = A.abbr_at_support(figure6c_covers(Xt), s=0.1, scores=p_test)
    ours = RuleListSearch(s=0.1, L=4, M=3, random_state=0).fit(Xs, p_search)
    found = ours.evaluate(Xt, p_test)["abbr_at_s"]
    # the default pool (a third of the features per split) holds a list as good as the paper's
    assert found >= paper - 0.01, (found, paper)
