"""Shared fixtures: the data directory (tests that need it skip when absent) and hypothesis profile."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "interpretopt", deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.load_profile("interpretopt")
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    pass


# CI exports a relative INTERPRETOPT_DATA; pin it to an absolute path so tests that change
# directory still find the files.
if os.environ.get("INTERPRETOPT_DATA"):
    os.environ["INTERPRETOPT_DATA"] = str(Path(os.environ["INTERPRETOPT_DATA"]).resolve())


def _data_dir() -> Path | None:
    value = os.environ.get("INTERPRETOPT_DATA")
    if value and Path(value).is_dir():
        return Path(value)
    return None


@pytest.fixture
def data_dir() -> Path:
    """The benchmark data directory (``INTERPRETOPT_DATA``); skips the test when it is not set."""
    path = _data_dir()
    if path is None:
        pytest.skip("INTERPRETOPT_DATA is not set to an existing directory")
    return path


def pytest_collection_modifyitems(config, items):
    if os.environ.get("INTERPRETOPT_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow check; set INTERPRETOPT_SLOW=1 to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
