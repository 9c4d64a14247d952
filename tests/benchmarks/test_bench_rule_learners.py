"""The rule-learner leaderboard runs in --quick mode with the project's learners (no peers needed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture()
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # the fits' own processes import the script by name
    import bench_rule_learners

    yield bench_rule_learners
    sys.modules.pop("bench_rule_learners", None)


def test_pareto_front_keeps_exactly_the_undominated_points(bench):
    pts = [(3, 0.90), (5, 0.95), (5, 0.93), (9, 0.95), (12, 0.97), (2, 0.80)]
    assert bench.pareto_front(pts) == [5, 0, 1, 4]


def test_quick_leaderboard_with_project_learners(bench, tmp_path, capsys):
    """Bundled breast cancer, seed 0, small work limits; each fit in its own process."""
    project = [lr.name for lr in bench.LEARNERS if lr.group == "project"]
    assert bench.main(["--quick", "--project-only", "--datasets", "breast_cancer", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for name in project:
        assert f"| breast_cancer | {name} |" in out
    import pandas as pd

    rows = pd.read_csv(tmp_path / "leaderboard.csv")
    assert sorted(rows["learner"]) == sorted(project) and (rows["status"] == "ok").all()
    assert rows["accuracy"].between(0.5, 1.0).all() and (rows["literals"] >= 0).all()
    # a learner with a bound reports one below its objective
    withb = rows.dropna(subset=["bound"])
    assert len(withb) and (withb["bound"] <= withb["objective"] + 1e-9).all()
    assert (tmp_path / "breast_cancer_pareto.png").stat().st_size > 0


def test_missing_peer_is_skipped_with_the_install_command(bench, tmp_path, capsys):
    fake = bench.Learner("fake_peer", "peer", bench._tree, (("depth", 2),), "no_such_package_xyz")
    assert bench.missing_module(fake) == "no_such_package_xyz"
    bench.LEARNERS = bench.LEARNERS + (fake,)
    assert bench.main(["--quick", "--learners", "fake_peer", "tree_d2", "--datasets", "breast_cancer",
                       "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "skipped fake_peer" in out and bench.PEERS_INSTALL in out and "| breast_cancer | tree_d2 |" in out
