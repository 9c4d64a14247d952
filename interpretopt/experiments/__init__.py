"""Experiments: YAML configs, a resumable parallel runner, a results store, tables and plots.

- :func:`load_config` / :class:`ExperimentConfig` (schema in :mod:`interpretopt.experiments.config`)
- :func:`plan_runs`, :func:`run_experiment`, :class:`RunContext` (what a method task receives)
- :func:`read_results` / :class:`ResultStore` (one long-format row per run)
- :func:`make_table`, :func:`to_markdown`, :func:`to_latex`, :func:`to_csv` (paper tables,
  published numbers beside ours), :func:`write_plots`
- :func:`get_task` / :func:`task_names` (methods plug in as ``tasks/<method>.py`` with ``run(ctx)``)
"""

from interpretopt.experiments.config import (
    DatasetSpec,
    ExperimentConfig,
    MethodSpec,
    PairSpec,
    PlotSpec,
    ReferenceSpec,
    SmokeSpec,
    SplitSpec,
    TableSpec,
    expand_params,
    find_configs,
    load_config,
    parse_config,
)
from interpretopt.experiments.results import ResultStore, read_results
from interpretopt.experiments.runner import (
    RunContext,
    RunEnv,
    RunReport,
    RunSpec,
    execute_run,
    hash_seed,
    plan_runs,
    run_experiment,
    run_name,
    run_seed,
    select_pairs,
)
from interpretopt.experiments.tables import TableResult, make_table, render_table, to_csv, to_latex, to_markdown
from interpretopt.experiments.tasks import get_task, task_names


def write_plots(*args, **kwargs):
    """Write the plots of a config (see :func:`interpretopt.experiments.plots.write_plots`)."""
    from interpretopt.experiments.plots import write_plots as _w

    return _w(*args, **kwargs)


__all__ = [
    "DatasetSpec", "ExperimentConfig", "MethodSpec", "PairSpec", "PlotSpec", "ReferenceSpec", "SmokeSpec",
    "SplitSpec", "TableSpec", "expand_params", "find_configs", "load_config", "parse_config",
    "ResultStore", "read_results",
    "RunContext", "RunEnv", "RunReport", "RunSpec", "execute_run", "hash_seed", "plan_runs", "run_experiment",
    "run_name", "run_seed", "select_pairs",
    "TableResult", "make_table", "render_table", "to_csv", "to_latex", "to_markdown", "write_plots",
    "get_task", "task_names",
]
