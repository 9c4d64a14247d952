"""BRCG's results are shaped by work limits only: the same fit on a ten times slower clock is the same fit.

Every wall-clock check of BRCG reads :mod:`interpretopt._clock`, so :func:`slowed_clock` makes
the fit see a machine ``factor`` times slower. At the defaults (work limits: ``max_iter``,
``pricing_node_limit``, ``mip_node_limit``; wall-clock limits only as safety nets) the rules,
objective and bound must not change; the second test shows that the comparison does fail when a
wall-clock limit shapes the result.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from interpretopt._clock import slowed_clock
from interpretopt.data import load_dataset
from interpretopt.formulations import brcg as F
from interpretopt.methods import _colgen as CG
from interpretopt.methods.brcg import BRCGClassifier
from tests.instances import tiny


@pytest.fixture(scope="module")
def bc():
    ds = load_dataset("breast_cancer")
    return ds.X.iloc[:150], np.asarray(ds.y)[:150]


def fingerprint(est) -> tuple:
    return (est.clauses_, est.objective_, est.lower_bound_, est.lp_lower_bound_, est.stop_reason_, est.n_iter_,
            est.work_)


def fit(X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return BRCGClassifier(n_thresholds=5, **kw).fit(X, y)


def same_on_a_slowed_clock(X, y, factor: float, **kw) -> tuple[bool, object]:
    plain = fit(X, y, **kw)
    with slowed_clock(factor):
        slow = fit(X, y, **kw)
    return fingerprint(plain) == fingerprint(slow), slow


@pytest.mark.parametrize("kw", [{}, {"pricing": "beam+bnb", "max_literals": 2},
                                {"pricing": "bnb", "max_literals": 3, "pricing_node_limit": 50}])
def test_default_limits_give_the_same_fit_on_a_ten_times_slower_clock(bc, kw):
    X, y = bc
    same, slow = same_on_a_slowed_clock(X, y, 10, **kw)
    assert same and not slow.limited_by_time_


def test_a_wall_clock_limit_that_shapes_the_fit_is_caught_and_reported(bc):
    """The check above can fail: with the loop's safety net at 100 s and a clock 10^9 times slower the
    fit stops at its first check, differs from the plain fit and says it was limited by time."""
    X, y = bc
    same, slow = same_on_a_slowed_clock(X, y, 1e9, time_limit=100.0)
    assert not same and slow.limited_by_time_ and slow.stop_reason_ == "time_limit"


def test_pricing_safety_net_is_reported_apart_from_the_work_limit(bc):
    X, y = bc
    with slowed_clock(1e9):
        est = fit(X, y, pricing="bnb", max_literals=3, milp_time_limit=100.0)
    assert est.stop_reason_ == "pricing_time_limit" and est.limited_by_time_
    est = fit(X, y, pricing="bnb", max_literals=3, pricing_node_limit=1)
    assert est.stop_reason_ == "pricing_work_limit" and not est.limited_by_time_


def test_integer_master_cut_by_its_node_limit_is_never_worse_than_the_rounded_lp():
    """A node limit of 1 leaves HiGHS at its root; the rule set is still at least as good as the LP
    rounding and the empty set, the candidates the fit already had (and the local search from them)."""
    X, y = tiny(5, n=60, J=10)
    spec = F.MasterSpec(form="light", lambda0=0.002, lambda1=0.001, n_samples=60)
    res = CG.column_generation(X, y, spec, pricing="beam", max_literals=3, mip_node_limit=1)
    nl = np.array([len(c) for c in res.clauses], dtype=float)
    w_lp = res.lp_solution[-len(res.clauses):]
    rounded = np.flatnonzero(w_lp > 0.5)
    assert res.objective <= F.master_objective(rounded, res.cover, y, nl, spec) + 1e-12
    assert res.objective <= F.master_objective([], res.cover, y, nl, spec) + 1e-12
    assert not res.limited_by_time


@pytest.mark.parametrize("node_limit, work_limit, rows, columns, expect", [
    (5000, None, 3000, 700, 5000),          # no work limit: the node limit
    (None, None, 3000, 700, None),
    (5000, 2e8, 2929, 675, 101),            # a large master: the work limit binds
    (5000, 2e8, 400, 175, 2857),
    (5000, 2e8, 100, 50, 5000),             # a small one: the node limit binds
    (None, 2e8, 100, 50, 40000),
    (5000, 10.0, 3000, 700, 1),             # at least the root
])
def test_integer_master_node_limit_is_the_smaller_of_nodes_and_work(node_limit, work_limit, rows, columns, expect):
    im = CG.IntegerMaster(np.zeros(3, np.int8), None, F.MasterSpec(form="light", n_samples=3),
                          node_limit=node_limit, work_limit=work_limit)
    assert im.nodes_for(rows, columns) == expect


def test_mip_work_limit_reaches_the_solver_as_a_node_limit(monkeypatch):
    """The estimator's mip_work_limit becomes HiGHS' node limit over the integer program's merged rows and
    columns; a bad value is refused with its name."""
    seen = []
    orig = CG._master_mip_settings

    def spy(settings, solver, node_limit=None):
        seen.append(node_limit)
        return orig(settings, solver, node_limit)

    monkeypatch.setattr(CG, "_master_mip_settings", spy)
    X, y = tiny(5, n=60, J=10)
    spec = F.MasterSpec(form="light", lambda0=0.002, lambda1=0.001, n_samples=60)
    CG.column_generation(X, y, spec, pricing="beam", max_literals=3, mip_node_limit=5000, mip_work_limit=50.0)
    CG.column_generation(X, y, spec, pricing="beam", max_literals=3, mip_node_limit=7, mip_work_limit=None)
    assert seen[0] is not None and 1 <= seen[0] < 5000 and seen[1] == 7
    with pytest.raises(Exception, match="mip_work_limit"):
        CG.column_generation(X, y, spec, mip_work_limit=0)
    with pytest.raises(Exception, match="mip_work_limit"):
        BRCGClassifier(mip_work_limit=-1.0).fit(X.astype(int), y)


def test_brcg_task_config_gives_the_same_rows_on_a_slowed_clock(tmp_path):
    """A surrogate run of the 'What changed?' task at the estimator's limits, plain and on a clock ten
    times slower: the same rows (every column but the measured times)."""
    import pandas as pd
    import yaml

    from interpretopt.experiments.config import parse_config
    from interpretopt.experiments.runner import run_experiment

    raw = yaml.safe_load("""
name: brcg_slowed_clock_check
method: brcg
params: {experiment: surrogate, n_thresholds: 4, max_literals: 2, pricing: beam+bnb, test_size: 0.3}
datasets: [{name: breast_cancer, max_rows: 200}]
models: [DT1]
repetitions: 1
seed: 0
""")
    frames = []
    for factor in (None, 10):
        out = tmp_path / f"run{factor}"
        if factor is None:
            run_experiment(parse_config(raw), out_dir=out, progress=False)
        else:
            with slowed_clock(factor):
                run_experiment(parse_config(raw), out_dir=out, progress=False)
        df = pd.read_parquet(out / "results.parquet")
        assert (df["run_status"] == "ok").all(), df.get("error")
        frames.append(df)
    timing = [c for c in frames[0].columns if c.endswith("_time") or c.endswith("_at") or c.startswith("fit_time")]
    assert not frames[1]["limited_by_time_A"].any()
    a, b = (f.drop(columns=timing, errors="ignore") for f in frames)
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


def test_bound_names_its_clause_space_and_the_gap_is_measured_against_it(bc):
    """At the defaults the exact phase's bound over clauses of up to 3 literals is reported with that space;
    without the phase the bound is over max_literals."""
    X, y = bc
    est = fit(X, y)
    assert est.bound_space_ in ("clauses of up to 3 literals", "clauses of up to 10 literals")
    assert est.full_lower_bound_ <= est.lower_bound_ + 1e-12
    if est.bound_space_ == "clauses of up to 3 literals":
        assert est.lower_bound_ > est.full_lower_bound_
    expect = max(0.0, (est.objective_ - est.lower_bound_) / est.objective_)
    assert est.gap_ == pytest.approx(expect, abs=1e-9)
    beam = fit(X, y, exact_phase_literals=None)
    assert beam.bound_space_ == "clauses of up to 10 literals" and beam.lower_bound_ == beam.full_lower_bound_
    exact3 = fit(X, y, max_literals=3, pricing="beam+bnb", exact_phase_literals=None)
    # a bound over clauses of up to 3 literals never exceeds a rule set of that space
    assert est.lower_bound_ <= exact3.objective_ + 1e-12


def test_exact_phase_stopped_by_its_safety_net_goes_on_with_the_beam_and_says_so(bc):
    X, y = bc
    with slowed_clock(1e9):
        est = fit(X, y, milp_time_limit=100.0)
    # the branch and bound stopped before its first node; the beam over 10 literals finished the fit
    assert est.limited_by_time_ and est.stop_reason_ == "heuristic_pricing_exhausted"
    assert est.work_["bnb_nodes"] == 0 and est.rules_.n_rules >= 1
