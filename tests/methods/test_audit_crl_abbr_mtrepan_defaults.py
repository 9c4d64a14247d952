"""Paper defaults and search details of CRL, ABBR and MTRE-PAN not pinned elsewhere."""

from __future__ import annotations

import inspect
from collections import Counter

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from interpretopt.evaluation import abbr as A
from interpretopt.heuristics import abbr_search as H
from interpretopt.heuristics.mining import pack_bool
from interpretopt.methods.abbr import ChecklistSearch, RuleListSearch
from interpretopt.methods.crl import MOVES, CompanionRuleList, CompanionSearch, search_companion_list
from interpretopt.methods.mtrepan import MTREPANClassifier, TREPANClassifier


def _defaults(cls):
    return {k: p.default for k, p in inspect.signature(cls.__init__).parameters.items()
            if p.default is not inspect.Parameter.empty}


# ----------------------------------------------------------------------------- CRL
def test_crl_defaults_are_the_papers():
    d = _defaults(CompanionRuleList)
    assert d["C0"] == 0.001 and d["n_iter"] == 50_000
    assert d["min_support"] == 0.05 and d["max_card"] == 2 and d["n_quantiles"] == 7
    assert d["blackbox_train_pred"] == "auto" and d["max_conditions"] == 20 and d["default_rule"] == "search"


def _problem(seed=0, n=80, K=10):
    rng = np.random.default_rng(seed)
    cov = rng.random((n, K)) < 0.3
    y = rng.integers(0, 2, n)
    bb = np.where(rng.random(n) < 0.8, y, 1 - y)
    return CompanionSearch(pack_bool(cov), rng.integers(0, 2, K), y, bb, alpha=0.001, coverage=cov)


def test_crl_moves_are_drawn_with_probability_one_quarter(monkeypatch):
    prob = _problem()
    kinds = Counter()
    real = prob.move

    def spy(state, kind, rng):
        kinds[kind] += 1
        return real(state, kind, rng)

    monkeypatch.setattr(prob, "move", spy)
    state = prob.state((0, 1, 2))
    rng = np.random.default_rng(0)
    for _ in range(4000):
        prob.propose(state, state.value, rng)
    assert set(kinds) == set(MOVES)
    for kind in MOVES:
        assert kinds[kind] / 4000 == pytest.approx(0.25, abs=0.03)


def test_crl_search_starts_from_three_rules_and_keeps_the_best():
    prob = _problem(1)
    seen = []
    res = search_companion_list(prob, n_iter=300, rng=2,
                                callback=lambda k, state, value, *a, **kw: seen.append((state.rules, value)))
    start = search_companion_list(prob, n_iter=0, rng=2)
    assert len(start.best_state.rules) == 3
    # the best list returned is the best of every list visited (start included)
    best_seen = max([start.best_value] + [v for _, v in seen])
    assert res.best_value == pytest.approx(best_seen)
    assert res.best_value == pytest.approx(prob.reference_value(res.best_state.rules))


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


# ----------------------------------------------------------------------------- ABBR
def test_abbr_defaults_are_the_papers():
    d = _defaults(RuleListSearch)
    assert d["anneal_K"] == 0.03 and d["n_iter"] == 500 and d["n_trees"] == 50
    assert d["min_support"] == 0.02 and d["filter_factor"] == 1.1
    c = _defaults(ChecklistSearch)
    assert tuple(c["quantiles"]) == (0.2, 0.4, 0.6, 0.8) and c["min_abbr"] == 0.5
    assert c["min_support"] == 0.02 and c["max_support"] == 0.98


def test_abbr_annealing_starts_from_the_M_highest_abbr_rules():
    rng = np.random.default_rng(3)
    n = 200
    X = np.column_stack([rng.normal(size=(n, 3)), rng.integers(0, 3, size=(n, 2))]).astype(float)
    ranks = A.rank_scores(X[:, 0] + 0.7 * X[:, 3] + 0.3 * rng.normal(size=n))
    pool = H.pair_rule_pool(X, ranks, H.discrete_mask(X), n_thresholds=3)
    res = H.anneal_rule_list(pool, ranks, 0.2, 4, n_iter=20, rng=np.random.default_rng(0))
    ab = np.array([A.abbr(pool.cover(i), ranks) for i in range(len(pool))])
    init_abbr = np.sort(ab[list(res.init_rules)])[::-1]
    assert len(res.init_rules) == 4
    assert np.allclose(init_abbr, np.sort(ab)[::-1][:4], atol=1e-12)


# ----------------------------------------------------------------------------- MTRE-PAN
@pytest.mark.parametrize("cls", [MTREPANClassifier, TREPANClassifier])
def test_mtrepan_defaults_are_table_1(cls):
    d = _defaults(cls)
    assert d["max_depth"] == 10 and d["cutoff_entropy"] == 0.0808
    assert d["cutoff_variance"] == 1e-5 and d["margin"] == 0.05


def test_abbr_baseline_counts_and_reports_milp_timeouts(monkeypatch):
    import interpretopt.solvers as solvers
    from interpretopt.exceptions import InputError
    from interpretopt.methods.abbr import GloballyConsistentRuleSearch
    from interpretopt.solvers import SolveResult, SolveStatus

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=(150, 2)), rng.integers(0, 3, size=150)]).astype(float)
    proba = 1 / (1 + np.exp(-2 * X[:, 0]))

    def timed_out(model, solver="highs", settings=None, **kw):
        return SolveResult(status=SolveStatus.TIME_LIMIT, solver=solver, message="forced time limit")

    monkeypatch.setattr(solvers, "solve", timed_out)
    est = GloballyConsistentRuleSearch(p=0.5, k=2, n_seeds=3, n_iter=10, n_thresholds=3, time_limit=1,
                                       random_state=0)
    with pytest.raises(InputError, match="time_limit") as info:
        est.fit(X, proba)
    assert "no globally consistent rule" in str(info.value)
    assert est.n_timeouts_ + est.solve_statuses_.get("infeasible_presolved", 0) == 3
    assert est.n_timeouts_ >= 1


@pytest.mark.parametrize("cls", [MTREPANClassifier, TREPANClassifier])
def test_mtrepan_nodes_follow_the_entropy_and_variance_rules(cls):
    from interpretopt.heuristics.trepan import binary_entropy
    from interpretopt.blackbox import CircleTarget

    X = np.random.default_rng(0).uniform(-3, 3, (200, 2))
    cut_h, cut_v, depth = 0.0808, 1e-3, 4
    est = cls(max_depth=depth, cutoff_entropy=cut_h, cutoff_variance=cut_v, batch_size=100,
              random_state=0).fit(X, CircleTarget())
    nodes = est.tree_.nodes
    assert nodes[0].depth == 1 and nodes[0].uncertain and nodes[0].split is not None
    n_split = 0
    for nd in nodes:
        p = nd.n_positive / nd.n_samples
        assert nd.entropy == pytest.approx(binary_entropy(p))
        assert nd.uncertain == (nd.entropy > cut_h)
        tr = nd.sampling
        assert nd.n_samples == tr.n_inherited + tr.n_sampled
        if tr.stopped_by == "variance":
            assert tr.variance <= cut_v and tr.variance == pytest.approx(p * (1 - p) / nd.n_samples)
        if nd.split is not None:
            n_split += 1
            # only uncertain nodes above the maximum depth are split
            assert nd.uncertain and nd.depth < depth
            assert nodes[nd.left].depth == nodes[nd.right].depth == nd.depth + 1
        elif nd.uncertain:
            assert nd.depth == depth or nd.stop_reason in ("no_split", "split_does_not_separate")
        else:
            assert nd.stop_reason == "certain"
    assert n_split >= 2 and est.leaf_count() == n_split + 1
    # every branch of the rule is exercised: split, certain leaf, uncertain leaf at the maximum depth
    assert {nd.stop_reason for nd in nodes} >= {"split", "certain", "max_depth"}
    assert any(nd.sampling.stopped_by == "variance" for nd in nodes)


def test_abbr_multiclass_black_box_is_a_clear_error():
    import numpy as np
    import pytest
    from sklearn.tree import DecisionTreeClassifier

    from interpretopt.exceptions import InputError
    from interpretopt.methods.abbr import RuleListSearch

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = rng.integers(0, 3, size=120)
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    with pytest.raises(InputError, match="binary black box"):
        RuleListSearch(s=0.2, L=2, M=2, random_state=0).fit(X, model)
