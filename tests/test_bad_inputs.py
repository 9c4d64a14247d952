"""Bad inputs across the API and the CLI: each raises its error type with a message naming the offending value.

One row per bad input: ``(id, call, error type, regex the message must match)``. The regex
always contains the offending value (or name), so a message that only says "invalid input"
fails the test.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from interpretopt.exceptions import (
    ConfigError,
    InputError,
    InputTypeError,
    NotFittedError,
    ParameterError,
    SolverError,
    UnknownNameError,
)

_RNG = np.random.default_rng(0)
X = _RNG.normal(size=(40, 3))
Y = (X[:, 0] > 0).astype(int)
DF = pd.DataFrame(X, columns=["a", "b", "c"])
SCORES = 1 / (1 + np.exp(-X[:, 0]))


def _with(arr, i, j, v, dtype=None):
    out = np.array(arr, dtype=dtype if dtype is not None else arr.dtype)
    out[i, j] = v
    return out


def _brcg(**kw):
    from interpretopt.methods.brcg import BRCGClassifier

    return BRCGClassifier(max_iter=3, **kw)


def _fitted_brcg_frame():
    return _brcg().fit(DF, Y)


def _grounded(**kw):
    from interpretopt.methods.brcg import GroundedBRCGClassifier

    return GroundedBRCGClassifier(max_iter=3, **kw)


def _crl(**kw):
    from sklearn.naive_bayes import GaussianNB

    from interpretopt.methods.crl import CompanionRuleList

    return CompanionRuleList(**{"black_box": GaussianNB(), "n_iter": 50, "alpha": 0.001, **kw})


def _paired(**kw):
    from interpretopt.methods.crl import PairedRuleList

    return PairedRuleList(**kw)


def _rls(**kw):
    from interpretopt.methods.abbr import RuleListSearch

    return RuleListSearch(**{"L": 2, "M": 2, "n_iter": 10, **kw})


def _check(**kw):
    from interpretopt.methods.abbr import ChecklistSearch

    return ChecklistSearch(**kw)


def _gcr(**kw):
    from interpretopt.methods.abbr import GloballyConsistentRuleSearch

    return GloballyConsistentRuleSearch(**kw)


def _mtrepan(**kw):
    from interpretopt.methods.mtrepan import MTREPANClassifier

    return MTREPANClassifier(**kw)


def _trepan(**kw):
    from interpretopt.methods.mtrepan import TREPANClassifier

    return TREPANClassifier(**kw)


def _imd(**kw):
    from interpretopt.methods.imd import IMDExplainer

    return IMDExplainer(**kw)


def _tree3():
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_depth=2).fit(X, np.arange(40) % 3)


def _ctx():
    from interpretopt.experiments import runner as R
    from interpretopt.experiments.config import parse_config

    cfg = parse_config({"name": "b", "method": "noop", "datasets": [{"name": "breast_cancer", "max_rows": 50}]})
    run = R.plan_runs(cfg)[0]
    return R.RunContext(run, R.RunEnv.from_config(cfg), R._load(run.dataset, None, 0))


def _run_exp(**kw):
    from interpretopt.experiments.config import parse_config
    from interpretopt.experiments.runner import run_experiment

    cfg = parse_config({"name": "b", "method": "noop", "datasets": ["breast_cancer"]})
    return run_experiment(cfg, **kw)


YS = np.where(Y == 1, "yes", "no")


def _t(y):
    """A depth-2 tree fitted on X with labels y."""
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)


def _f2(Z):
    """A binary target as a function of the rows."""
    return (np.asarray(Z)[:, 0] > 0).astype(int)


class _NotAnEstimator:
    """Has fit and predict but no get_params: scikit-learn cannot clone it."""

    def fit(self, X, y):
        return self

    def predict(self, X):
        return _f2(X)


def _grounded_on(frame):
    from interpretopt.methods.brcg import GroundedBRCGClassifier

    return GroundedBRCGClassifier(grounding=_fitted_brcg_frame().rules_, max_iter=3).fit(frame, Y)


def _raiser(Z):
    raise ZeroDivisionError("division by zero")


def _diff(cls, **kw):
    import interpretopt.methods.imd as imd

    return getattr(imd, cls)(**kw)


# ----------------------------------------------------------------------------- the API
API = [
    # BRCG
    ("brcg max_literals 0", lambda: _brcg(max_literals=0).fit(X, Y), ParameterError, r"'max_literals'.*Got 0"),
    ("brcg pricing typo", lambda: _brcg(pricing="bem").fit(X, Y), ParameterError, r"Got 'bem'"),
    ("brcg master solver without duals", lambda: _brcg(solver={"master": "cbc"}).fit(X, Y), ParameterError,
     r"master solver 'cbc'.*incremental model"),
    ("brcg mip solver without MILP", lambda: _brcg(mip_solver="ortools_glop").fit(X, Y), ParameterError,
     r"cannot use integer solver 'ortools_glop'"),
    ("brcg unknown mip solver", lambda: _brcg(mip_solver="hihgs").fit(X, Y), ParameterError,
     r"'hihgs' \(did you mean 'highs'\?\)"),
    ("brcg NaN", lambda: _brcg().fit(_with(X, 3, 1, np.nan), Y), InputError, r"NaN .*column 1, first at row 3"),
    ("brcg inf", lambda: _brcg().fit(_with(X, 5, 2, np.inf), Y), InputError, r"inf.*column 2, first at row 5"),
    ("brcg string cell in numbers", lambda: _brcg().fit(_with(X, 7, 0, "abc", object), Y), InputError,
     r"mixes numbers and strings \(e.g. 'abc' at row 7\)"),
    ("brcg 1-D X", lambda: _brcg().fit(X[:, 0], Y), InputError, r"1-D array of length 40"),
    ("brcg predict before fit", lambda: _brcg().predict(X), NotFittedError, r"BRCGClassifier instance is not fitted"),
    ("brcg three classes", lambda: _brcg().fit(X, np.arange(40) % 3), InputError, r"3 classes \[0, 1, 2\]"),
    ("brcg y length", lambda: _brcg().fit(X, Y[:39]), InputError, r"y has 39 labels but X has 40 rows"),
    ("brcg reordered columns", lambda: _fitted_brcg_frame().predict(DF[["c", "b", "a"]]), InputError,
     r"got column 'c', fit had 'a'"),
    ("brcg renamed column", lambda: _fitted_brcg_frame().predict(DF.rename(columns={"b": "bee"})), InputError,
     r"unseen at fit time:\n- bee"),
    ("brcg wrong feature count", lambda: _brcg().fit(X, Y).predict(X[:, :2]), InputError,
     r"X has 2 features, but BRCGClassifier is expecting 3"),
    ("brcg sparse X", lambda: _brcg().fit(__import__("scipy.sparse").sparse.csr_matrix(X), Y), InputError,
     r"sparse matrix"),
    ("grounded not a rule set", lambda: _grounded(grounding=[1]).fit(X, Y), ParameterError, r"'grounding'.*Got \[1\]"),
    ("grounded c_u negative", lambda: _grounded(grounding=__import__("interpretopt.rules", fromlist=["RuleSet"])
                                                 .RuleSet(()), c_u=-1).fit(X, Y), ParameterError, r"'c_u'.*Got -1"),
    # IMD
    ("imd max_depth 0", lambda: _imd(max_depth=0).fit(X, Y, 1 - Y), InputError, r"max_depth.*0"),
    ("imd label lengths", lambda: _imd().fit(X, Y, Y[:30]), InputError, r"30"),
    # CRL
    ("crl alpha word", lambda: _crl(alpha="sometimes").fit(X, Y), ParameterError, r"'alpha'.*Got 'sometimes'"),
    ("crl black box without predict", lambda: _crl(black_box=object()).fit(X, Y), ParameterError,
     r"'black_box' parameter.*Got <object object"),
    ("crl continuous y", lambda: _crl().fit(X, X[:, 1]), InputError, r"Unknown label type: continuous"),
    ("crl one row", lambda: _crl().fit(X[:1], Y[:1]), InputError, r"n_samples = 1"),
    ("crl predict before fit", lambda: _crl().predict(X), NotFittedError, r"CompanionRuleList instance is not fitted"),
    ("paired learner typo", lambda: _paired(learner="ripper").fit(X, Y), ParameterError, r"Got 'ripper'"),
    # ABBR
    ("abbr s 0", lambda: _rls(s=0.0).fit(X, SCORES), ParameterError, r"'s' parameter.*Got 0.0"),
    ("abbr L 0", lambda: _rls(L=0).fit(X, SCORES), ParameterError, r"'L' parameter.*Got 0"),
    ("abbr K negative", lambda: _check(K=-1).fit(X, SCORES), ParameterError, r"'K' parameter.*Got -1"),
    ("abbr baseline LP-only solver", lambda: _gcr(solver="ortools_glop").fit(X, SCORES), ParameterError,
     r"solver 'ortools_glop' fits none of its roles; .*baseline"),
    ("abbr scores length", lambda: _rls().fit(X, SCORES[:39]), InputError, r"got shape \(39,\)"),
    ("abbr scores NaN", lambda: _rls().fit(X, np.where(np.arange(40) == 2, np.nan, SCORES)), InputError, r"NaN"),
    ("abbr multi-class black box", lambda: _rls().fit(X, _tree3()), InputError, r"shape \(40, 3\)"),
    # MTRE-PAN
    ("mtrepan max_depth 0", lambda: _mtrepan(max_depth=0).fit(X[:, :2], lambda Z: Z[:, 0] > 0), ParameterError,
     r"'max_depth'.*Got 0"),
    ("mtrepan CP-SAT for LPs", lambda: _mtrepan(solver="ortools_cpsat").fit(X[:, :2], lambda Z: Z[:, 0] > 0),
     ParameterError, r"solver 'ortools_cpsat' fits none of its roles; .*node \(LPs"),
    ("mtrepan three-class target", lambda: _mtrepan().fit(X, _tree3()), InputError, r"3 classes"),
    ("mtrepan predict before fit", lambda: _mtrepan().predict(X), NotFittedError, r"MTREPANClassifier"),
    ("trepan criterion", lambda: _trepan(criterion="gini").fit(X[:, :2], lambda Z: Z[:, 0] > 0), ParameterError,
     r"Got 'gini'"),
    ("network n_rounds 0", lambda: __import__("interpretopt.blackbox", fromlist=["MTREPANNetwork"])
     .MTREPANNetwork(n_rounds=0).fit(X, Y), ParameterError, r"'n_rounds'.*Got 0"),
    # registries and settings
    ("unknown model", lambda: __import__("interpretopt.blackbox", fromlist=["make_model"]).make_model("RF9"),
     UnknownNameError, r"unknown model 'RF9'"),
    ("unknown model parameter", lambda: __import__("interpretopt.blackbox", fromlist=["make_model"])
     .make_model("RF1", n_estimatorz=5), InputError, r"n_estimatorz"),
    ("unknown dataset", lambda: __import__("interpretopt.data", fromlist=["load_dataset"]).load_dataset("nosuch"),
     UnknownNameError, r"unknown dataset 'nosuch'"),
    ("unknown solver", lambda: __import__("interpretopt.solvers", fromlist=["get_solver"]).get_solver("nosuch"),
     UnknownNameError, r"unknown solver 'nosuch'"),
    ("mip_gap 2", lambda: __import__("interpretopt.solvers", fromlist=["SolveSettings"]).SolveSettings(mip_gap=2),
     InputError, r"got 2"),
    ("time_limit -1", lambda: __import__("interpretopt.solvers", fromlist=["SolveSettings"])
     .SolveSettings(time_limit=-1), InputError, r"got -1"),
    ("unknown estimator", lambda: __import__("interpretopt.methods", fromlist=["estimator_class"])
     .estimator_class("BRCG"), UnknownNameError, r"unknown estimator 'BRCG'"),
    # validation helpers
    ("dict cell", lambda: _brcg().fit(_with(X, 0, 0, {"foo": 1}, object), Y), InputTypeError, r"holds a dict"),
    ("mixed label types", lambda: _brcg().fit(X, np.array(["a", 1] * 20, dtype=object)), InputError,
     r"mixes label types \(int, str\)"),
    ("parameter typo", lambda: __import__("interpretopt._validation", fromlist=["check_params"]).check_params(
        __import__("interpretopt.methods.brcg", fromlist=["BRCGClassifier"]).BRCGClassifier, {"lamda0": 1}),
     ParameterError, r"'lamda0' \(did you mean 'lambda0'\?\)"),
    ("memo of an object", lambda: _ctx().memo("x", lambda: 1, model=object()), TypeError, r"object"),
    ("n_jobs 0", lambda: _run_exp(n_jobs=0), InputError, r"got 0"),
    ("scheduler timeout 0", lambda: _run_exp(scheduler="tcp://127.0.0.1:9", scheduler_timeout=0), InputError,
     r"got 0"),
    ("blank scheduler address", lambda: _run_exp(scheduler="  "), InputError, r"got '  '"),
    # ---- issue 38, item 5: answers that were silently wrong
    # two models, one labelled {0, 1} and one {"no", "yes"}: every row counted as a difference
    ("imd labels 0/1 against no/yes", lambda: _imd(max_depth=2).fit(X, _t(Y), _t(YS)), InputError,
     r"cannot be matched by value: model1 gives \[0, 1\] and model2 gives \['no', 'yes'\] \(numbers against text\)"
     r".*Encode both the same way"),
    ("imd label vectors 0/1 against no/yes", lambda: _imd(max_depth=2).fit(X, Y, YS), InputError,
     r"numbers against text"),
    ("imd label sets with nothing in common", lambda: _imd(max_depth=2).fit(X, Y, Y + 5), InputError,
     r"model1 gives \[0, 1\] and model2 gives \[5, 6\] \(no label in common\)"),
    ("separate surrogates 0/1 against no/yes", lambda: _diff("SeparateSurrogates", max_depth=2).fit(X, _t(Y), _t(YS)),
     InputError, r"cannot be matched by value"),
    ("direct DT 0/1 against no/yes", lambda: _diff("DirectDT", max_depth=2).fit(X, _t(Y), _t(YS)), InputError,
     r"cannot be matched by value"),
    ("direct GB 0/1 against no/yes", lambda: _diff("DirectGB", max_depth=2).fit(X, _t(Y), _t(YS)), InputError,
     r"cannot be matched by value"),
    ("imd continuous 'labels'", lambda: _imd(max_depth=2).fit(X, X[:, 0], Y), InputError,
     r"model1 / y1 gives continuous values .*not class labels; pass a classifier or its predicted labels"),
    ("imd one row", lambda: _imd().fit(X[:1], Y[:1], Y[:1]), InputError, r"at least 2 samples, got n_samples = 1"),
    # a grounding learned on named columns was carried to other columns by position
    ("grounding on renamed columns", lambda: _grounded_on(DF.set_axis(["p", "q", "r"], axis=1)), InputError,
     r"grounding rules use column\(s\) \['a'.*that X does not have \(X's columns: p, q, r\)"),
    ("grounding on columns without names", lambda: _grounded_on(X), InputError,
     r"learned on named columns \(a.*\) but X has no column names; fit on a DataFrame"),
    ("brcg one row", lambda: _brcg().fit(X[:1], Y[:1]), InputError,
     r"BRCGClassifier needs at least 2 samples, got n_samples = 1"),
    ("zero-volume box: one row", lambda: _mtrepan().fit(X[:1], _f2), InputError,
     r"n_samples = 1\) are all the same point.*zero volume.*pass rows that differ"),
    ("zero-volume box: one row, TRE-PAN", lambda: _trepan().fit(X[:1], _f2), InputError, r"zero volume"),
    ("zero-volume box: repeated row", lambda: _mtrepan().fit(np.repeat(X[:1], 10, axis=0), _f2), InputError,
     r"the 10 row\(s\) of X .*same point"),
    ("crl black box it cannot clone", lambda: _crl(black_box=_NotAnEstimator()).fit(X, Y), InputError,
     r"cannot be copied .*give a scikit-learn estimator.*or pass an already trained model with refit=False"),
    ("crl predict_proba without the black box's", lambda: _crl(black_box=_NotAnEstimator(), refit=False)
     .fit(X, Y).predict_proba(X, transparency=0.0), InputError,
     r"40 row\(s\) go to the black box, which has no predict_proba \(_NotAnEstimator\); use predict"),
    # a bool for an integer parameter was taken as 1
    ("bool for an int: brcg max_literals", lambda: _brcg(max_literals=True).fit(X, Y), ParameterError,
     r"'max_literals' parameter of BRCGClassifier must be an int in the range \[1, inf\)\. Got True.*not a number"),
    ("bool for an int: brcg max_iter", lambda: _brcg().set_params(max_iter=False).fit(X, Y), ParameterError,
     r"'max_iter'.*Got False"),
    ("bool for an int: abbr L", lambda: _rls(L=True).fit(X, SCORES), ParameterError, r"'L' parameter.*Got True"),
    ("bool for an int: abbr K", lambda: _check(K=True).fit(X, SCORES), ParameterError, r"'K' parameter.*Got True"),
    ("bool for an int: crl n_iter", lambda: _crl(n_iter=True).fit(X, Y), ParameterError,
     r"'n_iter' parameter of CompanionRuleList.*Got True"),
    ("bool for an int: mtrepan max_depth", lambda: _mtrepan(max_depth=True).fit(X, _f2), ParameterError,
     r"'max_depth' parameter of MTREPANClassifier must be an int in the range \[1, 64\]\. Got True"),
    ("bool for a float: crl C0", lambda: _crl(C0=True).fit(X, Y), ParameterError, r"'C0'.*Got True"),
    ("bool for an int in a config check", lambda: __import__("interpretopt._validation", fromlist=["check_params"])
     .check_params(__import__("interpretopt.methods.brcg", fromlist=["BRCGClassifier"]).BRCGClassifier,
                   {"beam_width": True}), ParameterError, r"'beam_width'.*Got True"),
    ("abbr constant scores", lambda: _rls().fit(X, np.full(40, 0.5)), InputError,
     r"every score is 0\.5: constant scores carry no ranking.*pass the black box's predicted probabilities"),
    ("abbr checklist constant scores", lambda: _check(K=2, n_iter=10).fit(X, np.zeros(40)), InputError,
     r"every score is 0\.0"),
    # ---- item 6: raw tracebacks
    ("abbr string labels as scores", lambda: _rls().fit(X, YS), InputError,
     r"scores must be numbers .*got labels such as '(no|yes)'.*pass model\.predict_proba\(X\)\[:, 1\]"),
    ("abbr checklist string labels", lambda: _check(K=2, n_iter=10).fit(X, YS), InputError, r"got labels"),
    ("abbr baseline string labels", lambda: _gcr(M=2, n_iter=10, n_seeds=2).fit(X, YS), InputError, r"got labels"),
    ("abbr booleans as scores", lambda: _rls().fit(X, Y.astype(bool)), InputError, r"got booleans such as"),
    ("abbr unfitted black box", lambda: _rls().fit(X, __import__("sklearn.tree", fromlist=["x"])
                                                   .DecisionTreeClassifier()), InputError,
     r"DecisionTreeClassifier could not predict_proba on X \(NotFittedError.*pass a fitted probabilistic model"),
    ("abbr black box without predict_proba", lambda: _rls().fit(X, __import__("sklearn.svm", fromlist=["x"])
                                                                 .LinearSVC().fit(X, Y)), InputError,
     r"LinearSVC has no predict_proba"),
    ("mtrepan unavailable solver before sampling", lambda: _mtrepan(solver="gurobi").fit(X, _f2), SolverError,
     r"MTREPANClassifier: solver 'gurobi' cannot run here: .*available: highs"),
    ("trepan svm splitter, unavailable solver", lambda: _trepan(splitter="svm_1d", solver="gurobi").fit(X, _f2),
     SolverError, r"TREPANClassifier: solver 'gurobi' cannot run here"),
    ("brcg mip_solver unavailable", lambda: _brcg(mip_solver="gurobi").fit(X, Y), SolverError,
     r"mip_solver 'gurobi' cannot run here"),
    ("mtrepan target that raises", lambda: _mtrepan().fit(X, _raiser), InputError,
     r"the target model failed when asked to label \d+ sampled row\(s\) of 3 feature\(s\) \(ZeroDivisionError"),
    # ---- probed as a new user would
    ("brcg empty frame", lambda: _brcg().fit(DF.iloc[:0], Y[:0]), InputError, r"X has no rows: 0 sample\(s\)"),
    ("brcg y 2-D", lambda: _brcg().fit(X, np.c_[Y, Y]), InputError, r"y must be 1-D .*shape \(40, 2\)"),
    ("brcg nullable Int64 with NA", lambda: _brcg().fit(DF.assign(a=pd.array([None] + [1] * 39, dtype="Int64")), Y),
     InputError, r"1 NaN \(missing\) value\(s\) in column 'a', first at row 0"),
    ("brcg missing labels", lambda: _brcg().fit(X, np.array([None] + [1] * 39, dtype=object)), InputError,
     r"missing labels \(None/NaN\), first at row 0"),
    ("brcg datetime column", lambda: _brcg().fit(DF.assign(a=pd.date_range("2020", periods=40)), Y), InputTypeError,
     r"column 'a' holds a Timestamp at row 0"),
    ("brcg bytes column", lambda: _brcg().fit(DF.assign(a=[b"x", b"y"] * 20), Y), InputTypeError,
     r"column 'a' holds bytes at row 0 \(b'x'\).*decode the column first"),
    ("brcg timedelta column", lambda: _brcg().fit(DF.assign(a=pd.to_timedelta(np.arange(40), unit="s")), Y),
     InputTypeError, r"column 'a' holds a Timedelta at row 0"),
    ("mtrepan categorical column", lambda: _mtrepan().fit(DF.assign(a=pd.Categorical(["x", "y"] * 20)), _f2),
     InputError, r"column 'a' is categorical \(dtype 'category'\); MTREPANClassifier needs numeric features"),
    ("brcg columns of mixed name types", lambda: _brcg().fit(DF.set_axis(["a", 1, "c"], axis=1), Y), InputError,
     r"only supported if all input features have string names"),
    ("brcg float labels", lambda: _brcg().fit(X, Y + 0.5), InputError, r"Unknown label type: continuous"),
    ("brcg duplicate column names", lambda: _brcg().fit(DF.set_axis(["a", "a", "b"], axis=1), Y), InputError,
     r"(?s)unique column names.*'a' 2 times"),
    ("brcg negative sample weights", lambda: _brcg().fit(X, Y, sample_weight=-np.ones(40)), InputError,
     r"sample_weight must be finite and >= 0; entry 0 is -1\.0"),
    ("brcg target_class 2", lambda: _brcg(target_class=2).fit(X, Y), ParameterError, r"'target_class'.*Got 2"),
    ("grounded without grounding", lambda: _grounded().fit(X, Y), ParameterError, r"'grounding'.*Got None"),
    ("crl empty", lambda: _crl().fit(X[:0], Y[:0]), InputError, r"X has no rows"),
    ("crl 1-D X", lambda: _crl().fit(X[:, 0], Y), InputError, r"1-D array of length 40"),
    ("crl y length", lambda: _crl().fit(X, Y[:30]), InputError, r"y has 30 labels but X has 40 rows"),
    ("crl three classes", lambda: _crl().fit(X, np.arange(40) % 3), InputError, r"y has 3 classes \[0, 1, 2\]"),
    ("crl predict with fewer columns", lambda: _crl(n_iter=20).fit(X, Y).predict(X[:, :2]), InputError,
     r"X has 2 features, but CompanionRuleList is expecting 3"),
    ("crl NaN", lambda: _crl().fit(np.where(X > 1, np.nan, X), Y), InputError, r"NaN \(missing\) value\(s\)"),
    ("crl one class", lambda: _crl().fit(X, np.zeros(40, int)), InputError, r"only one class \[0\]; two classes"),
    ("paired one class", lambda: _paired().fit(X, np.zeros(40, int)), InputError, r"only one class \[0\]"),
    ("imd unfitted model", lambda: _imd().fit(X, __import__("sklearn.tree", fromlist=["x"]).DecisionTreeClassifier(),
                                              _t(Y)), InputError, r"model1 / y1 could not predict on X \(NotFittedError"),
    ("imd a string for a model", lambda: _imd().fit(X, "tree", _t(Y)), InputError,
     r"model1 / y1 must give one label per row of X, got an array of shape \(\)"),
    ("imd 2-D labels", lambda: _imd().fit(X, np.c_[Y, Y], Y), InputError, r"shape \(40, 2\)"),
    ("imd NaN labels", lambda: _imd().fit(X, np.where(Y == 1, np.nan, 0.0), Y), InputError, r"NaN or infinite labels"),
    ("imd empty X", lambda: _imd().fit(X[:0], Y[:0], Y[:0]), InputError, r"X has no rows"),
    ("imd predict with fewer columns", lambda: _imd(max_depth=2).fit(X, Y, 1 - Y).predict(X[:, :2]), InputError,
     r"X has 2 features, but IMDExplainer is expecting 3"),
    ("abbr scores 2-D", lambda: _rls().fit(X, np.c_[SCORES, SCORES, SCORES]), InputError,
     r"one value per row of X \(40\), got shape \(40, 3\)"),
    ("abbr one row", lambda: _rls().fit(X[:1], SCORES[:1]), InputError, r"at least 2 samples, got n_samples = 1"),
    ("abbr predict with fewer columns", lambda: _rls().fit(X, SCORES).predict(X[:, :2]), InputError,
     r"X has 2 features, but RuleListSearch is expecting 3"),
    ("abbr NaN X", lambda: _rls().fit(np.where(X > 1, np.nan, X), SCORES), InputError, r"NaN \(missing\)"),
    ("mtrepan not a model", lambda: _mtrepan().fit(X, 5), InputError,
     r"must be a fitted classifier with predict\(\) or a callable, got int"),
    ("mtrepan target returns strings", lambda: _mtrepan().fit(X, lambda Z: np.where(_f2(Z) == 1, "y", "n")),
     InputError, r"binary with labels \{0, 1\} or \{-1, 1\}; it returned \['n', 'y'\]"),
    ("mtrepan target returns too few", lambda: _mtrepan().fit(X, lambda Z: np.zeros(3)), InputError,
     r"returned 3 labels for 40 rows"),
    ("mtrepan target returns probabilities", lambda: _mtrepan().fit(X, lambda Z: np.full((len(Z), 2), 0.5)),
     InputError, r"it returned \[0\.5\]"),
    ("mtrepan string column", lambda: _mtrepan().fit(DF.assign(a=["x", "y"] * 20), _f2), InputError,
     r"column 'a' holds the non-numeric value 'x' \(row 0\).*encode categorical columns first"),
    ("brcg conditions without passthrough", lambda: _brcg(conditions=[1, 2]).fit(X, Y), ParameterError,
     r"conditions name the columns of binary input and are read only with binarizer='passthrough', got "
     r"binarizer='quantile'"),
    ("imd metrics with 0/1 against no/yes", lambda: _imd(max_depth=2).fit(X, Y, 1 - Y).metrics(X, Y, YS), InputError,
     r"numbers against text"),
    ("imd refined with labels unseen at fit", lambda: _imd(max_depth=2).fit(X, Y, 1 - Y).refined(X, Y + 5, Y),
     InputError, r"label [56] was not seen in fit; classes: \[0, 1\]"),
    ("mtrepan predict with fewer columns", lambda: _mtrepan(max_depth=1).fit(X, _f2).predict(X[:, :2]), InputError,
     r"X has 2 features, but MTREPANClassifier is expecting 3"),
]

# ---- inputs that are accepted with a warning saying what was done (never silently)
WARNS = [
    ("brcg labels of one class: constant model", lambda: _brcg().fit(X, np.zeros(40, int)),
     __import__("interpretopt._validation", fromlist=["SingleClassWarning"]).SingleClassWarning,
     r"BRCGClassifier: y has only one class \[0\]; the model predicts it on every row"),
    ("brcg labels of one string class", lambda: _brcg().fit(X, np.full(40, "yes")),
     __import__("interpretopt._validation", fromlist=["SingleClassWarning"]).SingleClassWarning,
     r"only one class \['yes'\]"),
    ("imd models that know different labels", lambda: _imd(max_depth=2).fit(X, _t(Y), _t(np.where(Y == 1, 1, 2))),
     UserWarning, r"the two models know different labels \(only model1: \[0\], only model2: \[2\]\)"),
]


@pytest.mark.parametrize("case", API, ids=[c[0] for c in API])
def test_api_bad_input(case):
    from interpretopt.exceptions import InterpretoptError

    _, call, exc, match = case
    with pytest.raises(exc, match=match) as info:
        call()
    # raised on purpose by interpretopt (no raw error from numpy, pandas or a solver), except
    # the TypeError of the run context's memo, which is a programming error
    assert isinstance(info.value, (InterpretoptError, TypeError)), type(info.value)


@pytest.mark.parametrize("case", WARNS, ids=[c[0] for c in WARNS])
def test_api_input_accepted_with_a_warning(case):
    _, call, category, match = case
    with pytest.warns(category, match=match):
        call()


def test_grounding_follows_column_names_not_positions():
    """Regression: a grounding fitted on columns (a, b, c) applied to (c, b, a) kept position 0 = a."""
    g = _fitted_brcg_frame()
    assert g.rules_.feature_names == ("a", "b", "c")
    reordered = DF[["c", "b", "a"]]
    est = _grounded_on(reordered)
    kept = [r for r, k in zip(est.grounding_clauses_, est.grounding_kept_) if k]
    assert kept, "the grounding rules fit these labels; some are kept"
    ours = {r.render(["c", "b", "a"]) for r in est.rules_.rules}
    theirs = {r.render(["a", "b", "c"]) for r in g.rules_.rules}
    assert ours & theirs  # the same conditions, on the same named columns
    assert est.rules_.feature_names == ("c", "b", "a")


# ----------------------------------------------------------------------------- configs
_OK = {"name": "b", "method": "noop", "datasets": ["breast_cancer"]}
CONFIGS = [
    ("unknown top-level key", {**_OK, "paramz": {}}, r"paramz: unknown key"),
    ("unknown method", {**_OK, "method": "nosuch"}, r"unknown method 'nosuch'"),
    ("parameter typo", {**_OK, "method": "mtrepan", "params": {"grow_dept": 2}},
     r"no parameter 'grow_dept' \(did you mean 'grow_depth'\?\)"),
    ("brcg lamda0", {**_OK, "method": "brcg", "params": {"lamda0": 0.5}}, r"'lamda0' \(did you mean 'lambda0'\?\)"),
    ("float for an int", {**_OK, "method": "brcg", "params": {"max_literals": 2.5}}, r"Got 2.5"),
    ("bool for an int", {**_OK, "method": "brcg", "params": {"max_literals": True}},
     r"'max_literals'.*Got True instead: a boolean is not a number here"),
    ("bool for an int in a grid", {**_OK, "method": "abbr", "params": {"M": [3, False]}}, r"'M'.*Got False"),
    ("value in a grid", {**_OK, "method": "abbr", "params": {"M": [3, 0]}}, r"params.M: .*Got 0"),
    ("crl learner typo", {**_OK, "method": "crl", "params": {"learner": "corel"}}, r"Got 'corel'"),
    ("depth above grow_depth", {**_OK, "method": "mtrepan", "params": {"depth": 5, "grow_depth": 3}},
     r"depth 5 exceeds grow_depth 3"),
    ("parameter the task sets", {**_OK, "method": "brcg", "params": {"solver": "highs"}},
     r"'solver' is set by the brcg task"),
    ("brcg unknown solver", {**_OK, "method": "brcg", "solver": "nosuch"}, r"unknown solver 'nosuch'"),
    ("brcg LP solver without duals", {**_OK, "method": "brcg", "solver": "ortools_pdlp"},
     r"'ortools_pdlp' fits none of its roles"),
    ("abbr baseline without MILP", {**_OK, "method": "abbr", "params": {"mode": "baseline"}, "solver": "ortools_glop"},
     r"'ortools_glop' fits none of its roles; .*baseline \(MILPs"),
    ("mip_gap 2", {**_OK, "settings": {"mip_gap": 2}}, r"settings.mip_gap: .*got 2"),
    ("threads 0", {**_OK, "settings": {"threads": 0}}, r"settings.threads: .*got 0"),
    ("settings typo", {**_OK, "settings": {"timelimit": 5}}, r"settings.timelimit: unknown key"),
    ("repetitions 0", {**_OK, "repetitions": 0}, r"repetitions: .*got 0"),
    ("test_size 1.5", {**_OK, "split": {"test_size": 1.5}}, r"split.test_size: .*got 1.5"),
    ("unknown dataset", {**_OK, "datasets": ["irisx"]}, r"unknown dataset 'irisx'"),
    ("unknown model", {**_OK, "models": ["RF9"]}, r"unknown model 'RF9'"),
    ("unknown preset", {**_OK, "preset": "fastest"}, r"unknown solver preset 'fastest'"),
    ("smoke axis not in the grid", {**_OK, "params": {"k": [1]}, "smoke": {"params": {"j": [1]}}},
     r"smoke.params.j: not a parameter"),
    ("table aggregate", {**_OK, "tables": [{"name": "t", "metric": "m", "aggregate": "median"}]},
     r"unknown aggregate 'median'"),
    ("pair selection rule", {**_OK, "pairs": {"candidates": ["LR", "DT1"], "select": "best"}}, r"unknown rule 'best'"),
    ("a list for a mapping", {**_OK, "split": [0.3]}, r"split: expected a mapping, got list"),
]


@pytest.mark.parametrize("case", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_config_bad_input(case):
    from interpretopt.experiments.config import parse_config

    _, raw, match = case
    with pytest.raises(ConfigError, match=match):
        parse_config(raw)


# ----------------------------------------------------------------------------- the CLI
@pytest.fixture
def files(tmp_path) -> Path:
    (tmp_path / "bad.yaml").write_text("name: x\nmethod: [noop\n")
    (tmp_path / "typo.yaml").write_text(textwrap.dedent("""\
        name: typo
        method: mtrepan
        params: {grow_dept: 3}
        datasets: [circle]
    """))
    (tmp_path / "list.yaml").write_text("[1, 2]\n")
    (tmp_path / "ok.yaml").write_text("name: ok\nmethod: noop\ndatasets: [breast_cancer]\n")
    return tmp_path


CLI = [
    ("missing config", ["run", "nosuch-config"], r"no config file 'nosuch-config'"),
    ("YAML syntax error", ["run", "{d}/bad.yaml"], r"bad.yaml.*not valid YAML at line 3, column 1"),
    ("parameter typo", ["run", "{d}/typo.yaml"], r"grow_dept.*did you mean 'grow_depth'"),
    ("not a mapping", ["run", "{d}/list.yaml"], r"expected a mapping, got list \(\[1, 2\]\)"),
    ("n-jobs 0", ["run", "{d}/ok.yaml", "--n-jobs", "0"], r"--n-jobs: got 0"),
    ("n-jobs word", ["run", "{d}/ok.yaml", "--n-jobs", "many"], r"expected an integer, got 'many'"),
    ("scheduler timeout", ["run", "{d}/ok.yaml", "--scheduler-timeout", "-1"], r"got '-1'"),
    ("unknown scale", ["run", "{d}/ok.yaml", "--scale", "huge"], r"invalid choice: 'huge'"),
    ("smoke against full", ["run", "{d}/ok.yaml", "--smoke", "--scale", "full"], r"--smoke contradicts --scale full"),
    ("no results yet", ["table", "{d}/ok.yaml", "--out", "{d}/empty"], r"no results of 'ok'"),
    ("unknown list", ["list", "everything"], r"invalid choice: 'everything'"),
    ("unreachable scheduler", ["run", "{d}/ok.yaml", "--scheduler", "tcp://127.0.0.1:9", "--scheduler-timeout", "0.5",
                               "--out", "{d}/s"], r"could not reach the Dask scheduler at 'tcp://127.0.0.1:9'"),
]


@pytest.mark.parametrize("case", CLI, ids=[c[0] for c in CLI])
def test_cli_bad_input(case, files, capsys):
    from interpretopt.cli import main

    _, argv, match = case
    argv = [a.format(d=files) for a in argv]
    try:
        code = main(argv)
    except SystemExit as e:  # argparse
        code = e.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert __import__("re").search(match, err, flags=__import__("re").S), err
    assert "Traceback" not in err


def test_at_least_a_hundred_and_ten_bad_inputs():
    assert len(API) + len(WARNS) + len(CONFIGS) + len(CLI) >= 110
