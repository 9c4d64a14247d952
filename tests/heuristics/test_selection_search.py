"""Local search over the integer master's selections: checked against the master's own objective."""

import itertools

import numpy as np
import pytest

from interpretopt.exceptions import InputError
from interpretopt.formulations import brcg as F
from interpretopt.heuristics.selection_search import improve_selection


def _instance(seed: int, n: int = 40, K: int = 8, form: str = "light"):
    rng = np.random.default_rng(seed)
    cover = rng.random((n, K)) < rng.uniform(0.1, 0.6, K)
    y = (rng.random(n) < 0.5).astype(np.int8)
    n_lit = rng.integers(1, 4, K).astype(float)
    w = rng.integers(1, 4, n).astype(float)
    spec = F.MasterSpec(form=form, C=6.0 if form == "constraint" else None, lambda0=0.01, lambda1=0.005,
                        n_samples=n)
    return cover, y, n_lit, w, spec


def _search_args(cover, y, n_lit, w, spec):
    pos = y.astype(bool)
    cost = spec.loss_scale * (w[~pos] @ cover[~pos]) + spec.clause_penalty(n_lit)
    constraint = spec.form == "constraint"
    return (cover[pos], w[pos], spec.loss_scale, cost), dict(
        complexity=spec.clause_complexity(n_lit) if constraint else None,
        capacity=float(spec.C) if constraint else None)


def _objective(sel, cover, y, n_lit, w, spec):
    return F.master_objective(list(sel), cover, y, n_lit, spec, sample_weight=w)


def _neighbours(sel: set, K: int):
    for k in range(K):
        yield sel ^ {k}                      # add or remove
    for j, k in itertools.product(sorted(sel), sorted(set(range(K)) - sel)):
        yield (sel - {j}) | {k}              # swap


@pytest.mark.parametrize("form", ["light", "constraint"])
@pytest.mark.parametrize("seed", range(12))
def test_the_answer_is_a_local_optimum_of_the_masters_objective(seed, form):
    cover, y, n_lit, w, spec = _instance(seed, form=form)
    args, kw = _search_args(cover, y, n_lit, w, spec)
    res = improve_selection(*args, **kw)
    sel = set(res.selected.tolist())
    obj = _objective(sel, cover, y, n_lit, w, spec)
    assert res.local_optimum
    assert obj == pytest.approx(_objective([], cover, y, n_lit, w, spec) + res.delta, abs=1e-12)
    q = spec.clause_complexity(n_lit)
    for nb in _neighbours(sel, cover.shape[1]):
        if form == "constraint" and q[list(nb)].sum() > spec.C + 1e-9:
            continue
        assert _objective(nb, cover, y, n_lit, w, spec) >= obj - 1e-12, (sorted(sel), sorted(nb))
    if form == "constraint":
        assert q[list(sel)].sum() <= spec.C + 1e-9


@pytest.mark.parametrize("seed", range(8))
def test_never_worse_than_its_start_and_within_its_move_limit(seed):
    cover, y, n_lit, w, spec = _instance(seed, K=10)
    args, kw = _search_args(cover, y, n_lit, w, spec)
    rng = np.random.default_rng(100 + seed)
    start = np.flatnonzero(rng.random(10) < 0.5)
    for moves in (0, 1, 2, 1000):
        res = improve_selection(*args, start=start, max_moves=moves, **kw)
        assert res.moves <= moves
        assert _objective(res.selected, cover, y, n_lit, w, spec) <= _objective(start, cover, y, n_lit, w, spec) + 1e-12
    assert improve_selection(*args, start=start, max_moves=0, **kw).selected.tolist() == sorted(start.tolist())


def test_it_is_deterministic():
    cover, y, n_lit, w, spec = _instance(3, n=200, K=30)
    args, kw = _search_args(cover, y, n_lit, w, spec)
    a, b = improve_selection(*args, **kw), improve_selection(*args, **kw)
    assert a.selected.tolist() == b.selected.tolist() and a.delta == b.delta


def test_bad_inputs_are_named():
    cover, y, n_lit, w, spec = _instance(0)
    (cp, wp, s, c), _ = _search_args(cover, y, n_lit, w, spec)
    with pytest.raises(InputError, match="cover_pos must be 2-D"):
        improve_selection(cp[:, 0], wp, s, c)
    with pytest.raises(InputError, match="cost must hold 8"):
        improve_selection(cp, wp, s, c[:3])
    with pytest.raises(InputError, match="max_moves"):
        improve_selection(cp, wp, s, c, max_moves=-1)
    with pytest.raises(InputError, match="above the capacity"):
        improve_selection(cp, wp, s, c, start=range(8), complexity=np.ones(8), capacity=2.0)
