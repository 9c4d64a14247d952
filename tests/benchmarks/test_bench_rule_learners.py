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


def test_brcg_stopped_by_its_iteration_cap_is_marked_work_limited(bench):
    """``limit`` reads BRCG's real stop reasons (it once looked for names BRCG never reports)."""
    from interpretopt.methods._colgen import STOP_REASONS

    assert set(bench.BRCG_LIMIT_STOPS) <= set(STOP_REASONS)
    assert "proven_optimal" not in bench.BRCG_LIMIT_STOPS and "pricing_no_progress" not in bench.BRCG_LIMIT_STOPS
    Xtr, Xte, ytr, _, names = bench.load_split("breast_cancer", 0)
    _, lits, extra = bench._brcg(Xtr, ytr, Xte, names, 0, True, max_iter=1)
    assert extra["limit"] == "work" and lits >= 0
    assert extra["bound"] <= extra["objective"] and 0 <= extra["gap"] <= 1
    assert extra["bound_space"] in ("<=10 lit", "<=3 lit")


def test_brcg_stopped_by_a_wall_clock_safety_net_is_marked_time_limited(bench):
    """A fit whose stage a safety net stopped (here every one: a clock 1e9 times too fast) says ``time``, since
    it may differ on another machine; the summary keeps both marks of a learner's seeds."""
    from interpretopt._clock import slowed_clock

    Xtr, Xte, ytr, _, names = bench.load_split("breast_cancer", 0)
    with slowed_clock(1e9):
        _, _, extra = bench._brcg(Xtr, ytr, Xte, names, 0, True, time_limit=100.0)
    assert extra["limit"] == "time"
    rows = [dict(learner="brcg", group="project", dataset="d", seed=s, status="ok", accuracy=0.8, literals=4,
                 cpu=1.0, limit=lim) for s, lim in ((0, "time"), (1, "work"))]
    assert bench.summarize(rows)["limit"].tolist() == ["time, work"]


def test_summary_names_the_bound_space_and_prints_objective_without_bound(bench):
    rows = [dict(learner="brcg", group="project", dataset="d", seed=s, status="ok", accuracy=0.8, literals=4,
                 cpu=1.0, objective=0.2, bound=0.1, gap=0.5, bound_space="<=3 lit", limit="") for s in (0, 1)]
    rows += [dict(learner="pyc", group="peer", dataset="d", seed=0, status="ok", accuracy=0.7, literals=2,
                  cpu=0.1, objective=0.3)]
    rows += [dict(learner="pyc", group="peer", dataset="d", seed=1, status="TIMEOUT")]
    table = bench._table(bench.summarize(rows))
    assert "| d | brcg | 0.800 | 4.0 | 1.00 | 0.2000 / 0.1000 | <=3 lit |  |" in table
    assert "| d | pyc | 0.700 | 2.0 | 0.10 | 0.3000 / - |  | 1/2 fits |" in table  # a mean over one seed


def test_pycorels_is_run_as_an_oracle_of_the_project_corels(bench):
    """Same mining (min_support 0.05, max_card 2, 7 quantiles, negations) and ``c``: the same list's
    objective and literals (pycorels is optional: skipped where it does not import)."""
    pytest.importorskip("corels")
    Xtr, Xte, ytr, _, names = bench.load_split("breast_cancer", 0)
    _, lits, extra = bench._pycorels(Xtr, ytr, Xte, names, 0, True)
    _, lits_ours, extra_ours = bench._corels(Xtr, ytr, Xte, names, 0, True)
    assert lits == lits_ours and extra["objective"] == pytest.approx(extra_ours["objective"], abs=1e-12)
    assert "bound" not in extra  # pycorels reports none


def test_plot_labels_overlap_neither_each_other_nor_the_legend(bench, tmp_path, monkeypatch):
    """Crowded points (eight learners within 2 literals and 0.01 accuracy, one at 140 literals):
    every label's box is disjoint from every other's and from the legend's."""
    import matplotlib
    import pandas as pd

    matplotlib.use("Agg")
    boxes = []
    real = bench._place_labels

    def spy(fig, ax, points, avoid=()):
        real(fig, ax, points, avoid)
        r = fig.canvas.get_renderer()
        boxes.extend(t.get_window_extent(r) for t in ax.texts)
        boxes.extend(avoid)

    monkeypatch.setattr(bench, "_place_labels", spy)
    rows = [dict(dataset="d", learner=f"learner_{k}", literals=10 + (k % 3), accuracy=0.80 + 0.001 * k, front=k % 2 == 0)
            for k in range(8)] + [dict(dataset="d", learner="rug", literals=140, accuracy=0.83, front=True)]
    (path,) = bench.plot(pd.DataFrame(rows), tmp_path)
    assert path.is_file() and len(boxes) == 10
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)
