"""benchmarks/crl_insample.py runs the crl task's baselines and CRL on one fold (small work limits)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture()
def script(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    import crl_insample

    yield crl_insample
    sys.modules.pop("crl_insample", None)


def test_one_fold_scores_every_list_in_and_out_of_sample(script, monkeypatch):
    from interpretopt.data import list_datasets

    if not any(r["name"] == "german" and r["available"] for r in list_datasets()):
        pytest.skip("german is not in the data directory (INTERPRETOPT_DATA)")
    monkeypatch.setitem(script.CRL_PARAMS, "n_iter", 300)
    monkeypatch.setitem(script.CRL_PARAMS, "alpha", 0.001)
    monkeypatch.setitem(script.BASELINE_PARAMS["sbrl"], "sbrl_lams", [5])
    monkeypatch.setitem(script.BASELINE_PARAMS["sbrl"], "sbrl_chains", [2])
    monkeypatch.setitem(script.BASELINE_PARAMS["sbrl"], "sbrl_n_iter", 100)
    monkeypatch.setattr(script, "_crl", _fewer_steps(script._crl))
    rows = script.fold_rows("german", 0, ["sbrl"], "validation", None)
    assert [r["learner"] for r in rows] == ["crl", "crl_4x_steps", "crl_other_seed", "sbrl_validation_tuned"]
    for r in rows:
        assert 0.0 < r["train_autac"] <= 1.0 and 0.0 < r["test_autac"] <= 1.0
        assert r["n_conditions"] >= 0


def _fewer_steps(crl):
    def run(Xtr, ytr, bb, bb_train, ftypes, seed, n_iter):
        return crl(Xtr, ytr, bb, bb_train, ftypes, seed, max(n_iter // 100, 100))
    return run
