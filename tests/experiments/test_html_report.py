"""REPORT.html: one self-contained page, filterable by paper and verdict, checked in headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from interpretopt.experiments import report as R
from interpretopt.experiments.html_report import VERDICT_FILTERS, render_html
from tests.instances import demo_table, write_demo_configs


TABLE = demo_table(
    {"breast_cancer": '{"1": {value: 0.90, std: 0.05}, "2": 0.10}', "juvenile": '{"1": 0.8}'},
    notes="# Protocol: Demo et al. (2020), Section 5.\n",
    runs="smoke: {repetitions: 1, max_grid: 1}\n",
    caption="Accuracy over the 2 repetitions",
    after="""\
plots:
  - name: acc_by_depth
    kind: bar
    x: dataset
    y: accuracy
    hue: max_depth
    formats: [png]
""")


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("html")
    configs = write_demo_configs(root, TABLE)
    out = root / "rep"
    R.reproduce_all("smoke", out, configs_root=configs, command="interpretopt reproduce --all --scale smoke")
    return out


def test_the_page_is_self_contained_with_inline_figures(report_dir):
    text = (report_dir / "REPORT.html").read_text()
    assert text.startswith("<!DOCTYPE html>") and "</html>" in text
    assert not re.search(r'(src|href)="(https?:)?//', text), "no external assets"
    assert 'src="data:image/png;base64,' in text  # the config's plot, inline
    assert 'data-paper="imd"' in text and 'data-paper="crl"' in text


def test_every_cell_is_a_row_with_its_paper_and_verdict(report_dir):
    text = (report_dir / "REPORT.html").read_text()
    verdicts = set(re.findall(r'data-verdict="([^"]+)"', text))
    assert verdicts <= set(VERDICT_FILTERS) and "no data" in verdicts
    assert len(re.findall(r"<tr [^>]*data-verdict=", text)) == 6  # 3 published cells of each paper
    for v in VERDICT_FILTERS:
        assert f'<option value="{v}">' in text


def test_each_table_links_to_its_protocol_notes(report_dir):
    text = (report_dir / "REPORT.html").read_text()
    for paper in ("imd", "crl"):
        assert f'href="#protocol-{paper}-t1"' in text and f'id="protocol-{paper}-t1"' in text
    assert "Protocol: Demo et al. (2020), Section 5." in text
    assert "its protocol, not this scale" in text  # the caption says 2 repetitions; smoke runs 1
    assert "repetitions: 1 (the paper&#x27;s protocol: 2)" in text


def test_render_html_escapes_text():
    page = render_html([], scale="smoke", command="<script>alert(1)</script>")
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _headless(url: str, *extra: str) -> subprocess.CompletedProcess:
    exe = _chromium()
    args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", *extra, url]
    # the time-out is a safety net for a hung browser, not a measurement
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def _console(stderr: str) -> list[str]:
    """The page's console messages (Chromium logs them as ``CONSOLE(line)] "text"``); the page logs none."""
    return [ln for ln in stderr.splitlines() if "CONSOLE" in ln]


def _blank(png: Path) -> bool:
    import matplotlib.image as mpimg
    import numpy as np

    img = mpimg.imread(png)[..., :3]
    return float(np.mean(np.any(img < 0.9, axis=-1))) < 0.01  # under 1% of the pixels carry any ink


@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed (Debian package `chromium`; "
                                                "CI installs it in .ci/run)")
def test_chromium_renders_the_page_without_console_errors(report_dir, tmp_path):
    shot = tmp_path / "report.png"
    done = _headless((report_dir / "REPORT.html").as_uri(), f"--screenshot={shot}", "--window-size=1280,1600")
    assert shot.is_file(), done.stderr[-2000:]
    assert not _console(done.stderr), _console(done.stderr)
    assert not _blank(shot), "the screenshot is an empty page"


@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed")
def test_chromium_console_check_can_fail(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><script>nosuchfunction();</script></body></html>")
    shot = tmp_path / "bad.png"
    done = _headless(bad.as_uri(), f"--screenshot={shot}", "--window-size=400,300")
    assert any("nosuchfunction" in ln for ln in _console(done.stderr))
    assert _blank(shot)


@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed")
def test_chromium_filters_by_paper_and_verdict_from_the_address(report_dir):
    done = _headless((report_dir / "REPORT.html").as_uri() + "#paper=crl&verdict=no%20data", "--dump-dom")
    assert not _console(done.stderr), _console(done.stderr)
    rows = re.findall(r'<tr class="[^"]*" data-paper="(\w+)" data-verdict="([^"]+)"( style="display: none;")?',
                      done.stdout)
    assert rows, done.stdout[:500]
    shown = [(p, v) for p, v, hidden in rows if not hidden]
    assert shown == [("crl", "no data")]
