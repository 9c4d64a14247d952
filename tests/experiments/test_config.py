"""Config schema: validation lists every problem, grids, smoke overrides, presets, shipped configs."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.exceptions import ConfigError
from interpretopt.experiments.config import (
    configs_root,
    expand_params,
    find_configs,
    format_value,
    load_config,
    parse_config,
)
from interpretopt.experiments.runner import plan_runs
from interpretopt.experiments.tables import make_table, to_markdown

REPO_CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def _base(**kw):
    d = {"name": "t", "method": "noop", "datasets": ["breast_cancer"]}
    d.update(kw)
    return d


def test_minimal_config_defaults():
    c = parse_config(_base())
    assert c.repetitions == 1 and c.seed == 0 and c.solver == "highs"
    assert c.methods[0].method == "noop" and c.methods[0].params == {}
    assert c.datasets[0].name == c.datasets[0].label == "breast_cancer"
    assert c.split.test_size == 0.3 and c.split.stratify


def test_every_problem_is_listed_at_once(tmp_path):
    bad = textwrap.dedent("""
        name: bad
        method: no_such_method
        params: {depth: [], alpha: [[[1]]], ok_map: {a: [1, 2]}}
        datasets: [breast_cancer, {name: breast_cancer, colour: red}, no_such_data]
        models: [NOPE]
        pairs: {list: [[LR]]}
        repetitions: zero
        seed: -1
        split: {test_size: 1.5}
        settings: {time_limit: -3, threads: 1.5, speed: 9}
        smoke: {repetitions: 0, params: {unknown_param: 1}}
        tables:
          - {name: t1, metric: f1, aggregate: median, tests: [anova]}
          - {metric: f1}
        plots:
          - {name: p, kind: pie, x: a, y: b}
        extra_key: 1
    """)
    path = tmp_path / "bad.yaml"
    path.write_text(bad)
    with pytest.raises(ConfigError) as ei:
        load_config(path)
    e = ei.value
    text = str(e)
    assert str(path) in text
    expected = [
        "method: unknown method 'no_such_method'",
        "params.depth: an empty list",
        "params.alpha[0]",
        "datasets[1].colour: unknown key",
        "unknown dataset 'no_such_data'",
        "models: give either `models` or `pairs`",
        "unknown model 'NOPE'",
        "pairs.list[0]: expected a pair",
        "repetitions: expected an integer",
        "seed: expected an integer >= 0",
        "split.test_size: expected a number in (0, 1)",
        "settings.time_limit",
        "settings.threads: expected an integer",
        "settings.speed: unknown key",
        "smoke.repetitions",
        "smoke.params.unknown_param",
        "tables[0].aggregate: unknown aggregate 'median'",
        "tables[0].tests: unknown test 'anova'",
        "tables[1].name: required key is missing",
        "plots[0].kind: unknown plot kind 'pie'",
        "extra_key: unknown key",
    ]
    for frag in expected:
        assert any(frag in p for p in e.problems), (frag, e.problems)
    assert len(e.problems) >= len(expected)


def test_wrong_top_level_type_and_missing_required():
    with pytest.raises(ConfigError, match="expected a mapping"):
        parse_config([1, 2], "x.yaml")
    with pytest.raises(ConfigError) as ei:
        parse_config({"name": "x"}, "x.yaml")
    assert any("datasets: required" in p for p in ei.value.problems)
    assert any("method: required" in p for p in ei.value.problems)


def test_missing_file_and_bad_yaml(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "none.yaml")
    p = tmp_path / "x.yaml"
    p.write_text("name: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(p)


def test_grid_expansion_is_cartesian_in_order():
    c = parse_config(_base(params={"a": [1, 2, 3], "b": ["x", "y"], "c": 0.5, "lst": [[1, 2]]}))
    grid = expand_params(c.methods[0].params)
    assert len(grid) == 6
    assert grid[0] == {"a": 1, "b": "x", "c": 0.5, "lst": (1, 2)}
    assert grid[1] == {"a": 1, "b": "y", "c": 0.5, "lst": (1, 2)}
    assert [g["a"] for g in grid] == [1, 1, 2, 2, 3, 3]


@given(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]),
                       st.lists(st.integers(-5, 5), min_size=1, max_size=4, unique=True), max_size=4))
def test_grid_size_and_unique_names(axes):
    c = parse_config(_base(params=axes, repetitions=2))
    runs = plan_runs(c)
    assert len(runs) == 2 * math.prod(len(v) for v in axes.values())
    assert len({r.name for r in runs}) == len(runs)
    assert len({r.key for r in runs}) == len(runs)


def test_methods_list_and_dataset_options():
    c = parse_config({
        "name": "m", "datasets": [{"name": "circle", "options": {"n_samples": 200}}, {"name": "circle", "label": "c2"}],
        "methods": [{"method": "noop", "params": {"k": [1, 2]}}, {"method": "sleep", "params": {"seconds": 0.0}}],
    })
    assert [m.method for m in c.methods] == ["noop", "sleep"]
    assert c.datasets[0].label == "circle(n_samples=200)" and c.datasets[1].label == "c2"
    assert len(plan_runs(c)) == 2 * 3


def test_duplicate_dataset_label_is_an_error():
    with pytest.raises(ConfigError, match="appears twice"):
        parse_config(_base(datasets=["breast_cancer", "breast_cancer"]))


def test_smoke_overrides():
    c = parse_config(_base(
        params={"a": [1, 2, 3, 4], "b": [5, 6, 7]}, repetitions=5, settings={"time_limit": 100},
        smoke={"params": {"b": [9]}, "max_grid": 2, "max_rows": 50, "settings": {"time_limit": 5}},
    ))
    s = c.with_smoke()
    assert s.is_smoke and s.repetitions == 1
    assert s.methods[0].params == {"a": (1, 2), "b": (9,)}
    assert s.datasets[0].max_rows == 50 and s.settings["time_limit"] == 5
    assert s.config_hash != c.config_hash
    assert len(plan_runs(s)) == 2


def test_reduced_scale_keeps_what_it_does_not_override():
    c = parse_config(_base(
        params={"a": [1, 2, 3, 4], "b": [5, 6, 7]}, repetitions=5, settings={"time_limit": 100},
        reduced={"repetitions": 2, "params": {"b": [5]}},
    ))
    r = c.with_scale("reduced")
    assert r.scale == "reduced" and not r.is_smoke and r.repetitions == 2
    assert r.methods[0].params == {"a": (1, 2, 3, 4), "b": (5,)}
    assert r.datasets[0].max_rows is None and r.settings["time_limit"] == 100
    assert len({c.config_hash, r.config_hash, c.with_smoke().config_hash}) == 3
    assert c.with_scale("full") is c


def test_a_scale_names_the_full_configs_datasets_by_label_options_included():
    c = parse_config(_base(
        datasets=[{"name": "circle", "label": "c1", "options": {"n_samples": 200}}, "breast_cancer"],
        smoke={"datasets": ["c1"]}, reduced={"datasets": ["circle"]},
    ))
    s = c.with_smoke()
    assert [(d.name, d.options, d.label) for d in s.datasets] == [("circle", {"n_samples": 200}, "c1")]
    # a name that labels none of the full config's datasets is a dataset of its own
    r = c.with_scale("reduced")
    assert [(d.name, d.options, d.label) for d in r.datasets] == [("circle", {}, "circle")]


def test_a_config_without_reduced_section_is_its_own_reduced_scale():
    c = parse_config(_base(params={"a": [1, 2, 3]}, repetitions=3))
    r = c.with_scale("reduced")
    assert r.scale == "reduced" and r.repetitions == 3 and r.methods == c.methods


def test_bad_scales_are_errors():
    c = parse_config(_base())
    with pytest.raises(ConfigError, match="unknown scale 'tiny'; valid scales: smoke, reduced, full"):
        c.with_scale("tiny")
    with pytest.raises(ConfigError, match="already at scale 'smoke'"):
        c.with_smoke().with_scale("reduced")
    with pytest.raises(ConfigError, match=r"reduced\.params\.zz.*not a parameter"):
        parse_config(_base(params={"a": [1]}, reduced={"params": {"zz": [1]}}))
    with pytest.raises(ConfigError, match=r"reduced\.repetitons: unknown key"):
        parse_config(_base(reduced={"repetitons": 2}))


def test_config_hash_ignores_grid_size_but_not_settings():
    a = parse_config(_base(params={"k": [1, 2]}, repetitions=2))
    b = parse_config(_base(params={"k": [1, 2, 3]}, repetitions=5, tables=[{"name": "x", "metric": "value"}]))
    c = parse_config(_base(params={"k": [1, 2]}, repetitions=2, settings={"time_limit": 3}))
    assert a.config_hash == b.config_hash != c.config_hash
    # so a larger grid resumes the runs of a smaller one
    assert {r.key for r in plan_runs(a)} <= {r.key for r in plan_runs(b)}


def test_solver_preset(tmp_path):
    root = tmp_path / "configs"
    (root / "solvers").mkdir(parents=True)
    (root / "solvers" / "fast.yaml").write_text("solver: ortools_glop\nsettings: {time_limit: 7, mip_gap: 0.1}\n")
    (root / "p").mkdir()
    cfg = root / "p" / "t.yaml"
    cfg.write_text("name: t\nmethod: noop\ndatasets: [breast_cancer]\npreset: fast\nsettings: {time_limit: 3}\n")
    c = load_config(cfg)
    assert c.solver == "ortools_glop" and c.settings == {"time_limit": 3.0, "mip_gap": 0.1}
    cfg.write_text("name: t\nmethod: noop\ndatasets: [breast_cancer]\npreset: nope\n")
    with pytest.raises(ConfigError, match="unknown solver preset 'nope'; valid presets: fast"):
        load_config(cfg)


def test_repo_presets_are_valid():
    from interpretopt.experiments.config import load_preset

    names = sorted(p.stem for p in (REPO_CONFIGS / "solvers").glob("*.yaml"))
    assert {"highs_default", "highs_fast", "ortools_glop", "cbc"} <= set(names)
    for n in names:
        solver, settings = load_preset(n, REPO_CONFIGS)
        assert solver


def test_format_value():
    assert format_value(0.1) == "0.1" and format_value(1.0) == "1.0" and format_value(1) == "1"
    assert format_value(None) == "None" and format_value(True) == "True"
    assert format_value((1, 2)) == "[1,2]" and format_value("jst") == "jst"


def test_find_configs_excludes_presets():
    paths = find_configs(REPO_CONFIGS)
    assert REPO_CONFIGS / "smoke.yaml" in paths
    assert not any("solvers" in p.relative_to(REPO_CONFIGS).parts for p in paths)
    assert configs_root(REPO_CONFIGS / "smoke.yaml") == REPO_CONFIGS


@pytest.mark.parametrize("path", find_configs(REPO_CONFIGS), ids=lambda p: str(p.relative_to(REPO_CONFIGS)))
def test_every_shipped_config_validates(path):
    c = load_config(path)
    assert c.name
    s = c.with_smoke()
    assert s.repetitions >= 1
    # the full grid and the smoke grid expand (pairs chosen by `select` need data: skipped here)
    for cfg in (c, s):
        if cfg.pairs is None or cfg.pairs.pairs or cfg.pairs.per_dataset:
            runs = plan_runs(cfg)
            assert runs and len({r.name for r in runs}) == len(runs)


@pytest.mark.slow
@pytest.mark.parametrize("path", find_configs(REPO_CONFIGS), ids=lambda p: str(p.relative_to(REPO_CONFIGS)))
def test_every_shipped_config_runs_in_smoke_mode(path, tmp_path, data_dir):
    from interpretopt.experiments.results import read_results
    from interpretopt.experiments.runner import run_experiment

    c = load_config(path, smoke=True)
    rep = run_experiment(c, out_dir=tmp_path, data_dir=data_dir, progress=False)
    df = read_results(tmp_path)
    assert rep.n_failed == 0, df.loc[df.run_status == "failed", ["run_name", "error"]].to_string()


def test_mapping_parameter_values_are_single_grid_points():
    c = parse_config(_base(params={"brcg": [{"time_limit": 120, "n": [1, 2]}, {"time_limit": 5}], "k": {"a": 1}}))
    grid = expand_params(c.methods[0].params)
    assert len(grid) == 2 and grid[0]["brcg"] == {"time_limit": 120, "n": (1, 2)} and grid[0]["k"] == {"a": 1}
    names = [r.name for r in plan_runs(c)]
    assert names[0] == "noop[brcg={n:[1,2],time_limit:120},k={a:1}]@breast_cancer/-/0"
    with pytest.raises(TypeError):
        grid[0]["brcg"]["time_limit"] = 1  # shared between runs: read-only


def test_docstring_example_validates():
    import yaml

    from interpretopt.experiments import config as C

    doc = C.__doc__
    start = doc.index("    name: imd_table1")
    end = doc.index("Run names are")
    text = "\n".join(line[4:] for line in doc[start:end].splitlines())
    c = parse_config(yaml.safe_load(text), "docstring")
    assert c.name == "imd_table1" and c.pairs.select == "max_min_accuracy_gap"
    assert c.tables[0].reference.values["breast_cancer / max"]["imd"] == 0.93
    assert c.with_smoke().methods[0].params["max_depth"] == (3,)


# -----------------------------------------------------------------------------
# Per-dataset model pairs in the config schema, and tables that print the pair beside each row.


def _cfg(pairs, datasets=("breast_cancer",), **kw):
    raw = {"name": "x", "method": "noop", "datasets": list(datasets), "pairs": pairs}
    raw.update(kw)
    return parse_config(raw)


def test_per_dataset_pairs_give_the_runs_their_models_and_tags():
    c = _cfg({"per_dataset": {"breast_cancer": {"max": ["MLP1", "GB"], "min": ["MLP2", "DT2"]}}}, repetitions=2)
    runs = plan_runs(c)
    assert [(r.models, r.pair_tag, r.rep) for r in runs] == [
        (("MLP1", "GB"), "max", 0), (("MLP1", "GB"), "max", 1), (("MLP2", "DT2"), "min", 0),
        (("MLP2", "DT2"), "min", 1)]
    assert runs[0].name == "noop@breast_cancer/MLP1-GB/0"  # the paper's order, model 1 first
    assert c.model_sets == (("MLP1", "GB"), ("MLP2", "DT2"))


def test_per_dataset_pairs_are_validated():
    with pytest.raises(ConfigError, match="no pairs for dataset"):
        _cfg({"per_dataset": {"other": {"max": ["LR", "GB"]}}})
    with pytest.raises(ConfigError, match="unknown model 'XX'"):
        _cfg({"per_dataset": {"breast_cancer": {"max": ["XX", "GB"]}}})
    with pytest.raises(ConfigError, match=r"expected a pair \[model1, model2\]"):
        _cfg({"per_dataset": {"breast_cancer": {"max": ["LR"]}}})
    with pytest.raises(ConfigError, match="cannot be combined"):
        _cfg({"per_dataset": {"breast_cancer": {"max": ["LR", "GB"]}}, "select": "max_min_accuracy_gap"})
    with pytest.raises(ConfigError, match="listed twice"):
        _cfg({"per_dataset": {"breast_cancer": {"max": ["LR", "GB"], "min": ["LR", "GB"]}}})


def _results():
    rows = []
    for ds, tag, pair, base in (("d1", "max", "A-B", 0.8), ("d1", "min", "C-D", 0.5), ("d2", "max", "A-C", 0.6)):
        for v, s in (("imd", 0.0), ("sep", 0.1), ("dt", -0.2)):
            for rep in (0, 1):
                rows.append({"dataset": ds, "pair_tag": tag, "models": pair, "variant": v, "rep": rep,
                             "run_status": "ok", "f1": base + s, "scale": "reduced"})
    return pd.DataFrame(rows)


def _table(**kw):
    t = {"name": "t", "metric": "f1", "rows": ["dataset", "pair_tag"], "columns": ["variant"], "pair": "models"}
    t.update(kw)
    return parse_config({"name": "x", "method": "noop", "datasets": ["breast_cancer"], "tables": [t]}).tables[0]


def test_tables_print_our_pair_and_the_papers_beside_each_cell():
    ref = {"source": "Paper, Table 1", "values": {"d1 / max": {"imd": 0.7}, "d1 / min": {"imd": 0.5}},
           "pairs": {"d1 / max": "A-B", "d1 / min": "X-Y"}}
    tr = make_table(_results(), _table(reference=ref))
    assert tr.pairs == {"d1 / max": "A-B", "d1 / min": "C-D", "d2 / max": "A-C"}
    comp = tr.comparison.set_index("row")
    assert comp.loc["d1 / max", "pair_ours"] == "A-B" and comp.loc["d1 / max", "pair_paper"] == "A-B"
    assert comp.loc["d1 / min", "pair_ours"] == "C-D" and comp.loc["d1 / min", "pair_paper"] == "X-Y"
    md = to_markdown(tr)
    assert "pair (models)" in md and "| d1 / min | C-D |" in md
    assert "pair (ours)" in md and "X-Y" in md and "reduced scale" in md


def test_wins_and_pct_change_rows_and_published_summary_cells():
    ref = {"source": "Paper, Table 8", "values": {"# imd greater": {"sep": 0, "dt": 3},
                                                   "% change from imd": {"sep": 10.0}, "mean rank": {"imd": 2.0}}}
    tr = make_table(_results(), _table(tests=["wins", "pct_change", "friedman"], baseline="imd", reference=ref,
                                       aggregate="mean_rank"))
    assert tr.extra_rows["# imd greater"] == {"dt": "3/3", "sep": "0/3", "imd": "-"}
    want = np.mean([0.1 / 0.8, 0.1 / 0.5, 0.1 / 0.6]) * 100
    assert tr.extra_rows["% change from imd"]["sep"] == f"{want:+.2f}%"
    comp = tr.comparison.set_index(["row", "column"])
    assert comp.loc[("# imd greater", "dt"), "ours"] == 3 and comp.loc[("mean rank", "imd"), "ours"] == 2.0
    assert comp.loc[("% change from imd", "sep"), "ours"] == pytest.approx(round(want, 2))


def test_with_datasets_keeps_the_whole_configs_hash_and_lists_valid_labels():
    cfg = parse_config({"name": "sel", "method": "dummy_tree", "params": {"max_depth": [1]},
                        "datasets": ["breast_cancer", "circle", "waveform21"], "repetitions": 2})
    sel = cfg.with_datasets(["waveform21", "breast_cancer"])
    assert [d.label for d in sel.datasets] == ["breast_cancer", "waveform21"]  # the config's order
    assert sel.config_hash == cfg.config_hash  # the same runs as the whole table's
    assert sel.with_seed(3).config_hash == cfg.with_seed(3).config_hash
    assert sel.with_seed(3).config_hash != sel.config_hash
    assert cfg.with_datasets(["circle", "breast_cancer", "waveform21"]) is cfg
    with pytest.raises(ConfigError, match="unknown dataset label.*'adult'.*valid labels: breast_cancer, circle, "
                                          "waveform21"):
        cfg.with_datasets(["adult"])
    with pytest.raises(ConfigError, match="no dataset label given"):
        cfg.with_datasets([])
    with pytest.raises(ConfigError, match="choose the scale first"):
        sel.with_scale("smoke")


# ----------------------------------------------------------------------------- --set overrides

_OVR = """
name: ovr
methods:
  - {method: dummy_tree, params: {max_depth: [1, 2]}}
datasets: [breast_cancer, {name: circle, options: {n_samples: 200}}]
repetitions: 2
settings: {time_limit: 30}
smoke: {params: {max_depth: [1]}}
tables:
  - {name: t, metric: accuracy, columns: [max_depth]}
"""


def _ovr(tmp_path, *sets, text=_OVR, scale=None):
    from interpretopt.experiments.config import load_config

    p = tmp_path / "ovr.yaml"
    p.write_text(text)
    return load_config(p, scale=scale, overrides=list(sets))


def test_overrides_set_keys_list_elements_and_method_parameters(tmp_path):
    base = _ovr(tmp_path)
    c = _ovr(tmp_path, "methods.0.params.max_depth=3", "datasets.1.options.n_samples=100", "repetitions=1")
    assert c.methods[0].params["max_depth"] == (3,) and c.repetitions == 1
    assert c.datasets[1].options == {"n_samples": 100} and c.datasets[0] == base.datasets[0]
    assert c.overrides == ("methods.0.params.max_depth=3", "datasets.1.options.n_samples=100", "repetitions=1")
    assert _ovr(tmp_path, "max_depth=[2, 5]").methods[0].params["max_depth"] == (2, 5)  # a bare parameter name
    assert _ovr(tmp_path, "datasets.0.max_rows=50").datasets[0].max_rows == 50  # a bare name becomes a mapping
    # a parameter set on the command line holds at the scale whose section sets it too
    assert _ovr(tmp_path, "max_depth=4", scale="smoke").methods[0].params["max_depth"] == (4,)
    assert _ovr(tmp_path, scale="smoke").methods[0].params["max_depth"] == (1,)
    # a config written with `method:` + `params:` takes the methods.0 path too
    single = "name: s\nmethod: dummy_tree\nparams: {max_depth: 2}\ndatasets: [breast_cancer]\n"
    assert _ovr(tmp_path, "methods.0.params.max_depth=5", text=single).methods[0].params["max_depth"] == (5,)


def test_overrides_enter_the_hash_when_they_change_results(tmp_path):
    base = _ovr(tmp_path)
    assert _ovr(tmp_path, "settings.time_limit=5").config_hash != base.config_hash
    assert _ovr(tmp_path, "seed=7").config_hash != base.config_hash
    assert _ovr(tmp_path, "tables.0.name=u").config_hash == base.config_hash  # a table's name changes no result
    # a method parameter changes the runs' names (and keys), not the hash of what every run shares
    from interpretopt.experiments.runner import plan_runs

    names = {r.name for r in plan_runs(_ovr(tmp_path, "max_depth=3"))}
    assert names and all("max_depth=3" in n for n in names)


@pytest.mark.parametrize("item, message", [
    ("max_dept=3", "--set max_dept: no such key (did you mean 'max_depth'?)"),
    ("repetiton=3", "did you mean 'repetitions'?"),
    ("methods.0.parms.max_depth=3", "methods[0].parms: unknown key; allowed keys: method, params (did you mean "
                                    "'params'?)"),
    ("settings.time_limt=5", "(did you mean 'time_limit'?)"),
    ("methods.3.params.max_depth=3", "methods.3: no element '3'; methods has 1 (indices 0 to 0)"),
    ("repetitions.x=1", "repetitions is a value (2), not a mapping or list"),
    ("repetitions=-1", "repetitions"),
    ("noequals", "expected PATH=VALUE"),
    ("a..b=1", "expected PATH=VALUE"),
    ("seed=[1", "the value is not YAML"),
])
def test_bad_overrides_name_the_closest_valid_key(tmp_path, item, message):
    with pytest.raises(ConfigError) as err:
        _ovr(tmp_path, item)
    assert message in str(err.value)


def test_an_override_of_a_method_parameter_is_checked_against_its_schema(tmp_path):
    imd = "name: i\nmethod: imd\nparams: {max_depth: 3}\ndatasets: [breast_cancer]\npairs: {list: [[DT1, GNB]]}\n"
    with pytest.raises(ConfigError, match=r"imd has no parameter 'max_dept' \(did you mean 'max_depth'\?\)"):
        _ovr(tmp_path, "methods.0.params.max_dept=3", text=imd)
    with pytest.raises(ConfigError, match=r"--set max_dept: no such key \(did you mean 'max_depth'\?\)"):
        _ovr(tmp_path, "max_dept=3", text=imd)
    with pytest.raises(ConfigError, match="with --set params.max_depth=0"):
        _ovr(tmp_path, "params.max_depth=0", text=imd)
    # a parameter the file leaves at its default is set by its bare name
    assert _ovr(tmp_path, "alpha=0.05", text=imd).methods[0].params["alpha"] == (0.05,)
