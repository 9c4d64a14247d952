"""The command line: --version, and configs found from any directory."""

from __future__ import annotations

import subprocess
import sys

import interpretopt
from interpretopt.cli import main
from interpretopt.experiments.config import configs_root, find_configs


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as e:
        assert e.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"interpretopt {interpretopt.__version__}") and "Python" in out


def test_configs_ship_with_the_package_and_are_found_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no configs/ here: the package's
    root = configs_root()
    assert root == __import__("pathlib").Path(interpretopt.__file__).resolve().parent / "configs"
    assert (root / "smoke.yaml").is_file() and (root / "imd" / "table1.yaml").is_file()
    assert len(find_configs()) >= 20
    code = "from interpretopt.cli import main; raise SystemExit(main(['list', 'configs']))"
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "imd/table1.yaml" in res.stdout and "smoke.yaml" in res.stdout


def test_package_data_lists_the_configs():
    """The wheel takes the configs (interpretopt/configs) as package data."""
    from pathlib import Path

    import pytest

    tomllib = pytest.importorskip("tomllib")

    meta = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    data = meta["tool"]["setuptools"]["package-data"]["interpretopt"]
    assert "configs/*.yaml" in data and "configs/*/*.yaml" in data
