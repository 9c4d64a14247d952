"""Code fingerprints: the static import closure of a task, the config's runs part, stale runs named."""

from __future__ import annotations

import textwrap

import pandas as pd
import pytest

from interpretopt.experiments import fingerprint as F
from interpretopt.experiments import runner as R
from interpretopt.experiments.config import parse_config
from interpretopt.experiments.results import read_results
from interpretopt.experiments.tasks import task_names


@pytest.fixture(autouse=True)
def _fresh():
    R.clear_caches()
    yield
    R.clear_caches()


def _package(tmp_path, files: dict[str, str]):
    root = tmp_path / "pkg"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return F.module_index(str(root))


def test_closure_follows_relative_and_function_level_imports_but_not_unnamed_packages(tmp_path):
    index = _package(tmp_path, {
        "__init__.py": "from pkg import noisy\n",
        "noisy.py": "",
        "a.py": "from .b import f\n\ndef g():\n    from pkg.sub import c, helper\n    return c, helper\n",
        "b.py": "import pkg.leaf\n",
        "leaf.py": "",
        "sub/__init__.py": "from pkg import unrelated\nhelper = 1\n",
        "other.py": "from pkg.sub import c\n",
        "sub/c.py": "from .. import leaf\n",
        "unrelated.py": "",
    })
    closure = F.import_closure(["pkg.a"], index)
    # `from pkg.sub import c, helper` names the package pkg.sub (helper is defined by its __init__,
    # which is followed); pkg's own __init__ is never named, so its `noisy` import is not a dependency
    assert closure == ["pkg.a", "pkg.b", "pkg.leaf", "pkg.sub", "pkg.sub.c", "pkg.unrelated"]
    # importing only a submodule by name does not make its package's __init__ a dependency
    assert F.import_closure(["pkg.other"], index) == ["pkg.leaf", "pkg.other", "pkg.sub.c"]


def test_every_task_closure_holds_its_module_and_the_runner_but_no_report_code():
    for name in task_names():
        manifest = F.code_manifest(name)
        files = set(manifest)
        mod = F.task_module(name)
        assert "interpretopt/experiments/runner.py" in files
        assert mod.replace(".", "/") + ".py" in files
        for report_file in ("report.py", "tables.py", "plots.py", "cli_commands.py", "fingerprint.py", "record.py"):
            assert f"interpretopt/experiments/{report_file}" not in files, (name, report_file)


def test_a_method_change_does_not_touch_another_tasks_closure():
    # MTRE-PAN's task does not import the ABBR estimator (and vice versa): editing one leaves the other fresh
    assert "interpretopt/methods/abbr.py" not in F.code_manifest("mtrepan")
    assert "interpretopt/methods/abbr.py" in F.code_manifest("abbr")


def test_config_runs_part_ignores_report_keys_but_not_a_seed(tmp_path):
    base = "name: t\nmethod: noop\ndatasets: [breast_cancer]\nseed: 0\n"
    p = tmp_path / "t.yaml"
    p.write_text(base + "description: one\ntables: [{name: a, rows: [dataset], columns: [value]}]\n")
    h = F.config_runs_hash(p)
    p.write_text("# a new comment\n" + base + "description: two\ntables: [{name: b, rows: [dataset], columns: [value]}]\n")
    assert F.config_runs_hash(p) == h
    p.write_text(base.replace("seed: 0", "seed: 1"))
    assert F.config_runs_hash(p) != h


def test_runner_stamps_rows_with_the_fingerprint_and_keeps_the_manifest(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("name: c\nmethod: noop\nparams: {k: [1, 2]}\ndatasets: [breast_cancer]\n")
    from interpretopt.experiments.config import load_config

    c = load_config(path)
    R.run_experiment(c, out_dir=tmp_path / "out", progress=False)
    rows = read_results(tmp_path / "out")
    fp, manifest = F.method_fingerprints(c)["noop"]
    assert list(rows["code_fingerprint"]) == [fp, fp]
    stored = F.read_manifests(tmp_path / "out")[fp]
    assert stored["files"] == manifest and stored["method"] == "noop"
    assert "config:c.yaml" in manifest


def _rows(fps, method="imd", commit="abc123"):
    return pd.DataFrame({"method": [method] * len(fps), "code_fingerprint": fps, "git_commit": [commit] * len(fps)})


def test_stale_runs_are_named_with_their_commit_and_changed_files():
    old = {"interpretopt/methods/imd.py": "1", "interpretopt/data/_split.py": "2"}
    new = {"interpretopt/methods/imd.py": "9", "interpretopt/data/_split.py": "2", "interpretopt/x.py": "3"}
    fp_old, fp_new = F.manifest_fingerprint(old), F.manifest_fingerprint(new)
    manifests = {fp_old: {"files": old}, fp_new: {"files": new}}
    assert F.runs_freshness(_rows([fp_new, fp_new]), manifests, {"imd": new}) == []
    stale = F.runs_freshness(_rows([fp_old, fp_new, fp_old]), manifests, {"imd": new})
    assert len(stale) == 1 and stale[0]["n_runs"] == 2 and stale[0]["commits"] == ["abc123"]
    assert stale[0]["changed"] == ["interpretopt/methods/imd.py", "interpretopt/x.py"]
    note = F.freshness_note(stale, 3)
    assert note.startswith("**Stale: 2 of 3 runs") and "`interpretopt/methods/imd.py`" in note and "abc123" in note


_MODULE = '''"""A module."""
import math  # for pi

RATE = 0.5
TEXT = """two

lines"""


def area(r):
    """Area of a circle."""
    return math.pi * r ** 2 * RATE


class Shape:
    """A shape."""

    def name(self):
        return f"shape {RATE:.1f}"
'''


_KEEPS, _CHANGES = True, False


@pytest.mark.parametrize("edit, same", [
    (lambda t: t.replace('"""Area of a circle."""', '"""The area of a circle of radius r\n\n    (a longer docstring)."""'),
     _KEEPS),
    (lambda t: t.replace("  # for pi", "  # pi, from the standard library"), _KEEPS),
    (lambda t: t.replace('    """A shape."""\n', ""), _KEEPS),  # a docstring removed
    (lambda t: t.replace("    def name(self):\n", "    def name(self):\n        \"\"\"Its name.\"\"\"\n"), _KEEPS),  # added
    (lambda t: t.replace("RATE = 0.5\n", "# the rate\n\nRATE = 0.5\n\n"), _KEEPS),  # comment and blank lines
    (lambda t: t.replace("RATE = 0.5", "RATE = 0.25"), _CHANGES),
    (lambda t: t.replace('"""two\n\nlines"""', '"""two\nlines"""'), _CHANGES),  # a blank line inside a string
    (lambda t: t.replace('f"shape {RATE:.1f}"', 'f"shape {RATE:.2f}"'), _CHANGES),  # an f-string's format
    (lambda t: t.replace("return math.pi * r ** 2 * RATE", "return math.pi * r * r * RATE"), _CHANGES),
    (lambda t: t.replace("        return f", "        x = 1\n        return f"), _CHANGES),
], ids=["docstring edited", "comment edited", "docstring removed", "docstring added", "comments and blank lines",
        "constant", "string content", "f-string", "expression", "statement"])
def test_token_hash_ignores_docstrings_and_comments_and_sees_every_code_edit(tmp_path, edit, same):
    path = tmp_path / "m.py"
    path.write_text(_MODULE)
    before = F.file_hash(path)
    path.write_text(edit(_MODULE))
    assert edit(_MODULE) != _MODULE and before.startswith(F.TOKENS_PREFIX)
    assert (F.file_hash(path) == before) is same


def test_token_hashes_are_kept_by_content_so_an_edit_is_seen_and_a_revert_gives_the_first(tmp_path, monkeypatch):
    monkeypatch.setattr(F, "_TOKEN_HASHES", {})
    path, twin = tmp_path / "m.py", tmp_path / "twin.py"
    path.write_text(_MODULE)
    first = F.file_hash(path)
    path.write_text(_MODULE.replace("RATE = 0.5", "RATE = 0.25"))
    edited = F.file_hash(path)
    path.write_text(_MODULE)
    twin.write_text(_MODULE)
    assert edited != first and F.file_hash(path) == first and F.file_hash(twin) == first
    assert len(F._TOKEN_HASHES) == 2   # four hashes of two contents: each content tokenized once
    monkeypatch.setattr(F, "_TOKEN_HASHES", {})
    assert F.file_hash(path) == first   # the kept value is what a fresh process computes


def test_code_tokens_are_named_and_an_f_string_is_one_token_on_every_python():
    """The hash must not depend on the Python version: token names, not numbers (OP is 54 on 3.11 and 55 on
    3.12), and an f-string as its source text (3.12 splits it into FSTRING_START, ... FSTRING_END)."""
    assert F._code_tokens("x = 1  # one\n") == ["NAME x", "OP =", "NUMBER 1", "NEWLINE \n", "ENDMARKER "]
    text = 's = f"a {x!r:>{w}} {f\'{y}\'}" f"""b\n{z}"""\n'
    assert F._code_tokens(text)[2:4] == ['STRING f"a {x!r:>{w}} {f\'{y}\'}"', 'STRING f"""b\n{z}"""']


def test_token_hash_of_a_file_that_does_not_parse_is_its_bytes_and_bad_schemes_are_named(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("def broken(:\n")
    assert F.file_hash(path) == F.TOKENS_PREFIX + F.file_hash(path, "bytes")
    with pytest.raises(ValueError, match="unknown hash scheme 'md5'; accepted: tokens, bytes"):
        F.file_hash(path, "md5")


def test_a_manifest_is_judged_by_the_scheme_it_was_hashed_with(tmp_path):
    """Manifests written before the token hash hash bytes: their runs stay fresh while the bytes are the
    same, and a docstring edit makes them stale; runs of a token manifest stay fresh through it."""
    path = tmp_path / "m.py"
    path.write_text(_MODULE)

    def today(scheme, method):
        return {"interpretopt/m.py": F.file_hash(path, scheme)}

    manifests, fps = {}, {}
    for scheme in F.SCHEMES:
        fps[scheme] = F.manifest_fingerprint(today(scheme, "imd"))
        manifests[fps[scheme]] = {"method": "imd", "files": today(scheme, "imd")}
    assert {F.manifest_scheme(m["files"]) for m in manifests.values()} == set(F.SCHEMES)
    rows = _rows([fps["tokens"], fps["bytes"]])
    assert F.runs_freshness(rows, manifests, today) == []
    path.write_text(_MODULE.replace("Area of a circle.", "Area of a disc."))
    assert [g["fingerprint"] for g in F.runs_freshness(rows, manifests, today)] == [fps["bytes"]]
    assert F.is_fresh(fps["tokens"], "imd", manifests, today) and not F.is_fresh(fps["bytes"], "imd", manifests, today)
    assert F.is_fresh(fps["tokens"], "imd", {}, today)  # no stored manifest: either scheme may match
    path.write_text(_MODULE.replace("RATE = 0.5", "RATE = 0.4"))
    assert len(F.runs_freshness(rows, manifests, today)) == 2
    assert not F.is_fresh(fps["tokens"], "imd", manifests, today)


def test_rows_without_fingerprint_or_manifest_are_stale_as_unknown():
    stale = F.runs_freshness(_rows([None, "feedfeedfeedfeed"]), {}, {"imd": {"a": "1"}})
    assert [g["changed"] for g in stale] == [["(unknown: no code manifest)"]] * 2


def test_table_freshness_reads_the_manifests_beside_the_runs(tmp_path):
    c = parse_config({"name": "c", "method": "noop", "datasets": ["breast_cancer"]})
    R.run_experiment(c, out_dir=tmp_path, progress=False)
    rows = read_results(tmp_path)
    assert F.table_freshness(c, tmp_path, rows) == ""
    (tmp_path / "code.json").write_text("{}")  # the manifests are lost: the runs cannot be vouched for
    assert F.table_freshness(c, tmp_path, rows).startswith("**Stale: 1 of 1 runs")
