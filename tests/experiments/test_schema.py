"""Config specs declared once (``experiments._schema``): keys, types and defaults come from the
dataclass fields, and config hashes do not depend on how the specs are read."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest
import yaml

from interpretopt.exceptions import ConfigError
from interpretopt.experiments import config as C
from interpretopt.experiments._schema import Checker, key, read_spec, spec_keys


@dataclasses.dataclass(frozen=True)
class _Inner:
    flag: bool = key(True)


@dataclasses.dataclass(frozen=True)
class _Toy:
    name: str = key()
    size: int = key(3, low=1)
    ratio: float = key(0.5, low=0, high=1, high_open=True)
    cap: int | None = key(None, low=2)
    mode: str = key("fast", choices=("fast", "slow"), what="mode")
    tags: tuple[str, ...] = key((), yaml="labels")
    inner: _Inner = key(default_factory=_Inner)
    note: str = "not a key"


def _read(raw):
    c = Checker("toy.yaml")
    kw = read_spec(c, _Toy, raw, "toy")
    return c, kw


def test_keys_come_from_the_fields():
    assert spec_keys(_Toy) == {"name", "size", "ratio", "cap", "mode", "labels", "inner"}


def test_absent_keys_keep_the_field_defaults_and_given_ones_are_typed():
    c, kw = _read({"name": "a"})
    assert c.problems == [] and _Toy(**kw) == _Toy("a")
    c, kw = _read({"name": "a", "size": 5, "ratio": 0, "cap": None, "mode": "slow", "labels": "x",
                   "inner": {"flag": False}})
    assert c.problems == []
    assert _Toy(**kw) == _Toy("a", 5, 0.0, None, "slow", ("x",), _Inner(False))
    assert isinstance(kw["ratio"], float)  # numbers are read as floats (config hashes depend on it)


@pytest.mark.parametrize("raw, problem", [
    ({}, "toy.name: required key is missing"),
    ({"name": "a", "size": 0}, "toy.size: expected an integer >= 1, got 0"),
    ({"name": "a", "size": 2.5}, "toy.size: expected an integer, got float (2.5)"),
    ({"name": "a", "ratio": 1}, "toy.ratio: expected a number in [0, 1), got 1"),
    ({"name": "a", "cap": 1}, "toy.cap: expected an integer >= 2, got 1"),
    ({"name": "a", "mode": "medium"}, "toy.mode: unknown mode 'medium'; valid: fast, slow"),
    ({"name": "a", "labels": [1]}, "toy.labels[0]: expected a non-empty string, got int (1)"),
    ({"name": "a", "inner": {"flag": 1}}, "toy.inner.flag: expected true or false, got int (1)"),
    ({"name": "a", "inner": {"flg": True}}, "toy.inner.flg: unknown key; allowed keys: flag (did you mean 'flag'?)"),
    ({"name": "a", "note": "x"}, "toy.note: unknown key; allowed keys: cap, inner, labels, mode, name, ratio, size"),
])
def test_bad_values_name_the_key_and_what_is_accepted(raw, problem):
    c, _ = _read(raw)
    assert problem in c.problems, c.problems


def test_a_mapping_is_required():
    c, kw = _read([1])
    assert kw is None and c.problems == ["toy: expected a mapping, got list ([1])"]


def test_unknown_config_key_suggests_the_closest():
    with pytest.raises(ConfigError, match=r"repetitons: unknown key; allowed keys: .*\(did you mean 'repetitions'\?\)"):
        C.parse_config({"name": "x", "method": "noop", "datasets": ["breast_cancer"], "repetitons": 2}, "x.yaml",
                       check_names=False)


def test_config_sections_allow_exactly_their_spec_fields():
    assert spec_keys(C.SplitSpec) == {"test_size", "stratify"}
    assert spec_keys(C.PairSpec) == {"candidates", "list", "select", "n", "test_size", "per_dataset"}
    assert spec_keys(C.ScaleSpec) == spec_keys(C.SmokeSpec) == {
        "repetitions", "max_rows", "max_grid", "params", "datasets", "models", "pairs", "settings"}
    assert spec_keys(C.ExperimentConfig) == {
        "name", "description", "methods", "datasets", "models", "pairs", "repetitions", "split", "seed", "solver",
        "preset", "settings", "record", "smoke", "reduced", "tables", "plots", "runs_from"}
    assert "stds" not in spec_keys(C.ReferenceSpec)  # read with `values`


def test_settings_keys_are_the_fields_of_solve_settings():
    from interpretopt.solvers import SolveSettings

    names = sorted(f.name for f in dataclasses.fields(SolveSettings))
    with pytest.raises(ConfigError) as ei:
        C.parse_config({"name": "x", "method": "noop", "datasets": ["breast_cancer"], "settings": {"speed": 1}},
                       "x.yaml", check_names=False)
    assert f"settings.speed: unknown key; allowed keys: {', '.join(names)}" in ei.value.problems[0]


_PINNED = textwrap.dedent("""
    name: pinned
    method: noop
    params: {a: [1, 2]}
    datasets:
      - breast_cancer
      - {name: coupon, options: {coupon_type: "Coffee House"}, max_rows: 300}
    models: [DT1]
    repetitions: 3
    split: {test_size: 0.25, stratify: false}
    seed: 7
    solver: highs
    settings: {time_limit: 60, mip_gap: 0, threads: 1, seed: 3, verbose: false, options: {presolve: "off"}}
    smoke: {max_rows: 50, settings: {time_limit: 5}}
    reduced: {repetitions: 1, max_rows: 1000}
""")


def test_config_hash_is_pinned():
    """Every stored run is keyed by config_hash: reading the specs differently must not change it
    (the values below were computed before the specs were declared once)."""
    c = C.parse_config(yaml.safe_load(_PINNED), "pinned.yaml")
    assert {s: c.with_scale(s).config_hash for s in ("full", "reduced", "smoke")} == {
        "full": "8bd2be5a0c1f", "reduced": "0f74e9898b33", "smoke": "bd1d252972fc"}
    assert c.settings == {"time_limit": 60.0, "mip_gap": 0.0, "threads": 1, "seed": 3, "verbose": False,
                          "options": {"presolve": "off"}}
