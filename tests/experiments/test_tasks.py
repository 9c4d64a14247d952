"""Every method task: parameters validated at load time, and results that do not depend on run order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from interpretopt.exceptions import ConfigError
from interpretopt.experiments import runner as R
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.results import read_results
from interpretopt.experiments.runner import plan_runs, run_experiment
import interpretopt.experiments.tasks as T
from interpretopt.experiments.tasks import accepted_parameters, check_method_params

REPO_CONFIGS = Path(__file__).resolve().parents[2] / "configs"


# one small grid per method task, from its registration (``MethodInfo.check_config``): a method
# registered by the recipe of CONTRIBUTING.md is covered here without editing this file
def grids() -> dict[str, dict]:
    from interpretopt.methods import METHODS

    return {m.key: m.check_config for m in METHODS}


GRIDS = grids()
_BC = {"name": "breast_cancer", "max_rows": 160}

_VOLATILE = ("wall_time", "cpu_time", "started_at", "finished_at", "host", "warnings")


def test_every_method_task_has_a_grid_here():
    assert set(grids()) == set(T.METHOD_TASKS)
    for method, grid in grids().items():
        assert grid.get("params") and grid.get("datasets"), f"method {method} registers no check_config"


def _module_state(method: str) -> dict:
    """Sizes of the task module's module-level containers (a cache of its own would grow)."""
    import importlib

    from interpretopt.methods import method_info

    mod = importlib.import_module(method_info(method).task)
    return {k: len(v) for k, v in vars(mod).items() if isinstance(v, (dict, list, set)) and not k.startswith("__")}


def _rows(df: pd.DataFrame) -> pd.DataFrame:
    keep = [c for c in df.columns if c not in _VOLATILE and "seconds" not in c and "time" not in c]
    return df[keep].sort_values("run_name").reset_index(drop=True)


@pytest.mark.parametrize("method", sorted(GRIDS))
def test_grid_in_both_orders_gives_identical_rows(method, tmp_path):
    """Regression: the BRCG task's cache ignored test_size, so in a test_size grid the second split's run
    reused rule set A of the first; the MTRE-PAN and CRL tasks kept caches and seeds of their own."""
    cfg = parse_config({"name": f"order-{method}", "method": method, "seed": 3, **grids()[method]})
    runs = plan_runs(cfg)
    assert len(runs) >= 4
    state = _module_state(method)
    frames = []
    for tag, order in (("forward", runs), ("reverse", runs[::-1])):
        R.clear_caches()
        rep = run_experiment(cfg, out_dir=tmp_path / tag, runs=order, progress=False)
        assert rep.n_failed == 0, rep.summary()
        frames.append(_rows(read_results(tmp_path / tag)))
    R.clear_caches()
    pd.testing.assert_frame_equal(frames[0], frames[1])
    assert frames[0]["run_status"].eq("ok").all()
    assert _module_state(method) == state, "the task keeps state of its own between runs; use ctx.memo"


@pytest.mark.parametrize("method", sorted(GRIDS))
def test_each_task_declares_its_parameters(method):
    accepted = accepted_parameters(method)
    assert accepted, f"task {method} declares no parameters"
    for key in grids()[method]["params"]:
        assert key in accepted


@pytest.mark.parametrize("method, params, match", [
    ("mtrepan", {"grow_dept": 2}, "has no parameter 'grow_dept' \\(did you mean 'grow_depth'\\?\\)"),
    ("brcg", {"lamda0": 0.5}, "has no parameter 'lamda0' \\(did you mean 'lambda0'\\?\\)"),
    ("brcg", {"max_literals": 0}, "'max_literals' parameter .* range \\[1, inf\\)\\. Got 0"),
    ("crl", {"learner": "corel"}, "'learner' parameter .* Got 'corel'"),
    ("abbr", {"s": 1.5}, "'s' parameter .* Got 1.5"),
    ("mtrepan", {"depth": 5, "grow_depth": 3}, "depth 5 exceeds grow_depth 3"),
    ("imd", {"max_dept": 2}, "has no parameter 'max_dept' \\(did you mean 'max_depth'\\?\\)"),
    ("imd", {"variant": "jst"}, "'variant' parameter .* Got 'jst'"),
    ("imd", {"variant": "imd", "alpha": 1.5}, "'alpha' parameter .* Got 1.5"),
    ("imd", {"variant": "brcg_diff", "brcg": {"lamda0": 0.1}}, "lamda0"),
])
def test_a_config_typo_fails_at_load_time(method, params, match):
    """Regression: `max_dept: 2` ran at depth 6 and was stored as ok; `lamda0: 0.5` ran the default."""
    with pytest.raises(ConfigError, match=match):
        parse_config({"name": "t", "method": method, "params": params, "datasets": ["breast_cancer"]})


@pytest.mark.parametrize("solver, match", [
    ("nosuch", "solver.*'nosuch'"),
    ({"master": "cbc"}, "master solver 'cbc'.*an incremental model.*qualify: highs"),
    ("ortools_cpsat", "'ortools_cpsat' fits none of its roles"),
    ({"integer": "ortools_cpsat"}, "integer solver 'ortools_cpsat'.*MILPs with continuous variables"),
    ({"nodes": "highs"}, "no method of this config has solver role 'nodes'"),
])
def test_a_solver_the_method_cannot_use_is_an_error(solver, match):
    """Regression: the BRCG task ran HiGHS for any solver but highs / ortools_glop (`solver: nosuch` ran), and
    CP-SAT passed the load check, then failed at the first MILP (its models are integer only)."""
    with pytest.raises(ConfigError, match=match):
        parse_config({"name": "t", "method": "brcg", "datasets": ["breast_cancer"], "solver": solver})


@pytest.mark.parametrize("params", [{"pricing_solver": "scipyy"}, {"mip_solver": "ortools_glop"}])
def test_per_role_solver_parameters_are_checked_at_load_time(params):
    """Regression: `pricing_solver: scipyy` and `mip_solver: ortools_glop` loaded and failed at fit."""
    with pytest.raises(ConfigError, match=r"(pricing|integer) solver"):
        parse_config({"name": "t", "method": "brcg", "datasets": ["breast_cancer"], "params": params})


def test_one_solver_goes_to_every_role_it_fits_and_a_mapping_names_them():
    base = {"name": "t", "datasets": ["breast_cancer"], "method": "brcg"}
    assert parse_config({**base, "solver": "scipy"}).solver == "scipy"  # pricing and integer; master: default
    cfg = parse_config({**base, "solver": {"master": "ortools_glop", "integer": "scipy"}})
    assert cfg.solver == {"master": "ortools_glop", "integer": "scipy"}


def test_solver_checks_follow_what_the_run_solves():
    ok = {"name": "t", "datasets": ["breast_cancer"], "solver": "ortools_glop"}
    with pytest.raises(ConfigError, match="'ortools_glop' fits none of its roles.*baseline \\(MILPs"):
        parse_config({**ok, "method": "abbr", "params": {"mode": ["rule_list", "baseline"]}})
    parse_config({**ok, "method": "mtrepan"})  # LPs only


@pytest.mark.parametrize("method, params, search", [
    ("imd", {"variant": ["imd", "separate"]}, "greedy split search"),
    ("crl", {}, "simulated annealing"),
    ("abbr", {"mode": ["rule_list", "checklist"]}, "simulated annealing"),
])
def test_a_method_with_no_optimization_problem_refuses_a_solver(method, params, search):
    """Regression: IMD and CRL configs loaded with `solver: nosuch`; ABBR searches took any solver silently."""
    cfg = {"name": "t", "datasets": ["breast_cancer"], "method": method, "params": params}
    parse_config(cfg)
    for key, value in (("solver", "highs"), ("solver", "nosuch"), ("preset", "highs_fast")):
        with pytest.raises(ConfigError, match=f"{key}: no run of this config solves an optimization problem.*{search}"):
            parse_config({**cfg, key: value}, path=str(REPO_CONFIGS / "x.yaml"))


def test_brcg_diff_of_imd_takes_the_configs_solver():
    cfg = {"name": "t", "datasets": ["breast_cancer"], "method": "imd", "params": {"variant": "brcg_diff"}}
    assert parse_config({**cfg, "solver": "scipy"}).solver == "scipy"
    with pytest.raises(ConfigError, match="'ortools_cpsat' fits none of its roles"):
        parse_config({**cfg, "solver": "ortools_cpsat"})


def test_run_params_are_checked_again_at_run_time(tmp_path):
    cfg = parse_config({"name": "t", "method": "abbr", "params": {"mode": "rule_list"}, "datasets": [_BC],
                        "models": ["DT1"]})
    run = R.replace_runs(plan_runs(cfg), params={"mode": "rule_list", "n_iterr": 3})[0]
    row, _ = R.execute_run(run, R.RunEnv.from_config(cfg))
    assert row["run_status"] == "failed" and "has no parameter 'n_iterr'" in row["error"]


def test_values_inside_a_grid_are_each_checked():
    problems = check_method_params("brcg", {"max_literals": (3, 0, 6)}, grid=True)
    assert len(problems) == 1 and "Got 0" in problems[0][1]
    assert np.all([k == "max_literals" for k, _ in problems])
