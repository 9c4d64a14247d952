"""Uniform points in a polytope: exactness by Kolmogorov-Smirnov against exact marginals, in 2-D and 10-D."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from interpretopt.exceptions import InputError
from interpretopt.heuristics.polytope_sampling import PolytopeSampler
from interpretopt.rules import Polytope

ALPHA = 1e-3  # fixed seeds: the tests are deterministic; a wrong sampler gives p-values far below this


def _simplex(d):
    return Polytope.bounding_box(np.zeros(d), np.ones(d)).add(np.ones(d), 1.0)


def _simplex_points(rng, n, d):
    g = rng.exponential(size=(n, d + 1))
    return (g / g.sum(axis=1, keepdims=True))[:, :d]


def _ks_simplex(X, d):
    """x_1 of a uniform point in the d-simplex is Beta(1, d); sum(x) has CDF s^d."""
    return (stats.kstest(X[:, 0], lambda a: 1 - (1 - np.clip(a, 0, 1)) ** d).pvalue,
            stats.kstest(X.sum(axis=1), lambda s: np.clip(s, 0, 1) ** d).pvalue)


def test_rejection_is_exact_in_2d():
    S = PolytopeSampler(_simplex(2), [0, 0], [1, 1], np.random.default_rng(0))
    X = S.draw(4000)
    assert S.stats.method == "rejection" and X.shape == (4000, 2) and _simplex(2).contains(X, tol=0).all()
    assert min(_ks_simplex(X, 2)) > ALPHA


def test_rejection_is_exact_in_10d():
    # {x in [0,1]^10 : x_0 + x_1 <= 1}: x_0 has CDF 1 - (1 - a)^2, x_9 is uniform
    d = 10
    P = Polytope.bounding_box(np.zeros(d), np.ones(d)).add(np.r_[1.0, 1.0, np.zeros(d - 2)], 1.0)
    S = PolytopeSampler(P, np.zeros(d), np.ones(d), np.random.default_rng(1))
    X = S.draw(5000)
    assert S.stats.method == "rejection" and P.contains(X, tol=0).all()
    assert stats.kstest(X[:, 0], lambda a: 1 - (1 - np.clip(a, 0, 1)) ** 2).pvalue > ALPHA
    assert stats.kstest(X[:, 9], "uniform").pvalue > ALPHA


@pytest.mark.parametrize("start", ["data", "chebyshev"])
def test_hit_and_run_is_uniform_in_2d(start):
    P = _simplex(2)
    rng = np.random.default_rng(2)
    starts = _simplex_points(rng, 50, 2) if start == "data" else None
    S = PolytopeSampler(P, [0, 0], [1, 1], rng, starts=starts, method="hit_and_run", n_chains=3000)
    X = S.draw(3000)  # one point per chain: independent draws
    assert S.stats.method == "hit_and_run" and P.contains(X, tol=1e-9).all()
    assert min(_ks_simplex(X, 2)) > ALPHA


@pytest.mark.parametrize("start", ["data", "chebyshev"])
def test_hit_and_run_is_uniform_in_a_10d_simplex_that_rejection_cannot_reach(start):
    # the 10-simplex fills 1/10! ~ 3e-7 of its bounding box: "auto" must leave rejection
    d = 10
    P = _simplex(d)
    rng = np.random.default_rng(3)
    starts = _simplex_points(rng, 200, d) if start == "data" else None
    burn = None if start == "data" else 30 * d
    S = PolytopeSampler(P, np.zeros(d), np.ones(d), rng, starts=starts, n_chains=3000, burn_in=burn)
    X = S.draw(3000)
    assert S.stats.method == "hit_and_run" and S.stats.tightened
    assert S.stats.acceptance < 1e-3
    assert P.contains(X, tol=1e-9).all()
    assert min(_ks_simplex(X, d)) > ALPHA


def test_hit_and_run_thinned_points_keep_the_mean():
    # successive points of a chain are correlated, but every point is uniform: the mean of a
    # coordinate over many thinned draws matches the exact mean 1 / (d + 1)
    d = 6
    rng = np.random.default_rng(4)
    S = PolytopeSampler(_simplex(d), np.zeros(d), np.ones(d), rng, starts=_simplex_points(rng, 100, d),
                        method="hit_and_run", n_chains=500)
    X = np.vstack([S.draw(500) for _ in range(20)])
    assert abs(X[:, 0].mean() - 1 / (d + 1)) < 0.01
    assert S.stats.n_steps == S.stats.burn_in + 20 * S.stats.thin


def test_draws_are_deterministic_and_never_short():
    P = _simplex(5).add(np.r_[1.0, -1.0, 0, 0, 0], 0.0)
    a = PolytopeSampler(P, np.zeros(5), np.ones(5), np.random.default_rng(7)).draw(1234)
    b = PolytopeSampler(P, np.zeros(5), np.ones(5), np.random.default_rng(7)).draw(1234)
    assert a.shape == (1234, 5) and np.array_equal(a, b)


def test_empty_region_and_rejection_cap():
    P = Polytope.bounding_box([0, 0], [1, 1]).add([1, 1], -0.5)
    S = PolytopeSampler(P, [0, 0], [1, 1], np.random.default_rng(0))
    assert S.draw(10).shape == (0, 2) and S.empty
    thin = Polytope.bounding_box([0, 0], [1, 1]).add([1, 1], 1.01).add([-1, -1], -1.0)  # a diagonal strip
    S2 = PolytopeSampler(thin, [0, 0], [1, 1], np.random.default_rng(0), method="rejection", max_draws=5000,
                         pilot=1000)
    got = S2.draw(1000)
    assert 0 < got.shape[0] < 1000 and S2.stats.n_draws <= 5000 + 1000


def test_bad_input():
    P = _simplex(2)
    with pytest.raises(InputError, match="sampling method"):
        PolytopeSampler(P, [0, 0], [1, 1], np.random.default_rng(0), method="gibbs")
    with pytest.raises(InputError, match="2 bounds"):
        PolytopeSampler(P, [0, 0, 0], [1, 1, 1], np.random.default_rng(0))
    with pytest.raises(InputError, match="finite"):
        PolytopeSampler(P, [0, -math.inf], [1, 1], np.random.default_rng(0))


def test_sampling_on_demand_records_the_variance_inflation_of_hit_and_run():
    from interpretopt.heuristics.trepan import sample_on_demand

    d = 6
    rng = np.random.default_rng(5)
    P = _simplex(d)
    X, y, tr = sample_on_demand(P, np.zeros(d), np.ones(d), lambda Z: (Z[:, 0] > 0.1).astype(int), rng,
                                n_inherited=0, n_positive=0, cutoff_variance=1e-4, batch_size=200,
                                starts=_simplex_points(rng, 100, d))
    assert tr.method == "hit_and_run" and tr.eq7_met and tr.n_chains == 200
    assert np.isfinite(tr.variance_inflation) and 0.3 < tr.variance_inflation < 10
    assert X.shape[0] == tr.n_sampled and P.contains(X, tol=1e-9).all()


def test_hit_and_run_from_inherited_uniform_starts_is_uniform_without_burn_in_in_10d():
    # the parent: the 10-simplex, sampled exactly; the child: its part with sum(x) <= 0.8, a
    # simplex scaled by 0.8 (x_1 / 0.8 is Beta(1, d), sum(x) / 0.8 has CDF s^d). The parent's
    # points inside the child are uniform there (restriction), so chains started at them need
    # no burn-in: every point, one per chain, must already pass the exact marginals.
    d, s = 10, 0.8
    rng = np.random.default_rng(11)
    parent = _simplex_points(rng, 40000, d)
    child = _simplex(d).add(np.ones(d), s)
    inherited = parent[parent.sum(axis=1) <= s]
    S = PolytopeSampler(child, np.zeros(d), np.ones(d), rng, uniform_starts=inherited)
    X = S.draw(3000)
    assert S.stats.method == "hit_and_run" and S.stats.burn_in == 0 and S.stats.thin == d
    assert S.stats.uniform_starts == inherited.shape[0] > 3000
    assert S.stats.n_chain_steps == 3000 * d  # one chain per point, d steps each
    assert child.contains(X, tol=1e-9).all()
    assert len(set(S.chain_start_rows[S.last_chains].tolist())) == 3000  # distinct starts
    assert min(_ks_simplex(X / s, d)) > ALPHA
    # more points than starts: the chains go on, still uniform
    Y = np.vstack([S.draw(1000) for _ in range(3)])
    assert S.stats.n_steps == 2 * d and min(_ks_simplex(Y / s, d)) > ALPHA


def test_the_inherited_start_path_needs_uniform_starts_inside_the_region():
    # starts that are not in the region are dropped; too few left: the burn-in path
    d = 4
    rng = np.random.default_rng(12)
    S = PolytopeSampler(_simplex(d), np.zeros(d), np.ones(d), rng, method="hit_and_run",
                        uniform_starts=np.full((50, d), 0.9))
    S.draw(10)
    assert S.stats.uniform_starts == 0 and S.stats.burn_in == 10 * d + 20


def test_burn_in_from_bad_starts_is_what_the_inherited_path_avoids():
    # control: the same 10-D child from one corner start without burn-in is far from uniform,
    # so the KS test above can fail
    d, s = 10, 0.8
    child = _simplex(d).add(np.ones(d), s)
    S = PolytopeSampler(child, np.zeros(d), np.ones(d), np.random.default_rng(13),
                        uniform_starts=np.full((3000, d), 0.01))
    X = S.draw(3000)
    assert S.stats.burn_in == 0 and min(_ks_simplex(X / s, d)) < ALPHA


def test_sampling_on_demand_records_the_variance_inflation_of_inherited_starts():
    from interpretopt.heuristics.trepan import sample_on_demand

    d = 6
    rng = np.random.default_rng(14)
    P = _simplex(d)
    U = _simplex_points(rng, 4000, d)
    f = lambda Z: (Z[:, 0] > 0.1).astype(int)  # noqa: E731
    yU = f(U)
    X, y, tr = sample_on_demand(P, np.zeros(d), np.ones(d), f, rng, n_inherited=4000, n_positive=int(yU.sum()),
                                cutoff_variance=2e-5, batch_size=1000, starts=U, uniform_starts=U,
                                uniform_starts_y=yU, sampler="hit_and_run")
    assert tr.method == "hit_and_run" and tr.burn_in == 0 and tr.uniform_starts == 4000 and tr.eq7_met
    # start and point are correlated after d steps: the inflation is above 1 and bounded by 3
    assert 1.05 < tr.variance_inflation < 3
    assert abs(y.mean() - yU.mean()) < 0.03


def _slab_case(seed):
    """A tree node whose region sticks out of its parent's box, in 10-D: the region is
    ``[0, 1.05]^10 & {sum(x) <= 4.5}`` (the child's box, padded 5% beyond the parent's faces,
    and an oblique split); the warm starts are uniform in its part inside ``[0, 1]^10`` (the
    parent's box). Exact reference points by rejection from the child's box."""
    d = 10
    rng = np.random.default_rng(seed)
    hi = np.full(d, 1.05)
    P = Polytope.bounding_box(np.zeros(d), hi).add(np.ones(d), 4.5)
    B = rng.random((60000, d)) * hi
    ref = B[B.sum(axis=1) <= 4.5]
    W = rng.random((40000, d))
    warm = W[W.sum(axis=1) <= 4.5]
    return d, rng, P, hi, ref, warm


def test_warm_starts_in_the_parents_box_burn_in_until_uniform_in_10d():
    d, rng, P, hi, ref, warm = _slab_case(21)
    out_ref = (ref > 1).any(axis=1).mean()
    assert 0.15 < out_ref < 0.25  # a sixth of the region holds no start
    S = PolytopeSampler(P, np.zeros(d), hi, rng, method="hit_and_run", warm_starts=warm, warm_lo=np.zeros(d),
                        warm_hi=np.ones(d))
    X = S.draw(3000)
    st = S.stats
    assert st.method == "hit_and_run" and st.warm_starts == warm.shape[0] and st.uniform_starts == 0
    assert 2 * d <= st.burn_in <= 10 * d + 20 and st.thin == d
    assert P.contains(X, tol=1e-9).all()
    assert len(set(S.chain_start_rows[S.last_chains].tolist())) == 3000  # distinct starts
    for f in (lambda Z: Z[:, 0], lambda Z: Z.sum(axis=1), lambda Z: Z.max(axis=1)):
        assert stats.ks_2samp(f(X), f(ref)).pvalue > ALPHA
    se = math.sqrt(out_ref * (1 - out_ref) / 3000)
    assert abs((X > 1).any(axis=1).mean() - out_ref) < 3 * se
    assert abs(st.outside_share - out_ref) < 0.05
    # chains used after the first 1,000 make the same burn-in before their first point
    assert st.n_chain_steps == st.burn_in * 3000 + 3000 * d


def test_warm_starts_without_burn_in_are_not_uniform():
    # control: the same starts with no burn-in leave the part outside the parent's box short,
    # so the checks above can fail
    d, rng, P, hi, ref, warm = _slab_case(21)
    S = PolytopeSampler(P, np.zeros(d), hi, rng, method="hit_and_run", warm_starts=warm, warm_lo=np.zeros(d),
                        warm_hi=np.ones(d), burn_in=0, thin=1)
    X = S.draw(3000)
    assert S.stats.burn_in == 0
    assert (X > 1).any(axis=1).mean() < 0.5 * (ref > 1).any(axis=1).mean()
    assert stats.ks_2samp(X.max(axis=1), ref.max(axis=1)).pvalue < ALPHA
    with pytest.raises(InputError, match="warm_lo"):
        PolytopeSampler(P, np.zeros(d), hi, rng, warm_starts=warm)


def test_the_tree_passes_warm_starts_only_to_regions_that_stick_out_of_the_parents_box():
    from interpretopt.heuristics.trepan import grow_translation_tree

    rng = np.random.default_rng(3)
    d = 6
    X = rng.random((400, d))
    oracle = lambda Z: (((Z - 0.5) ** 2).sum(axis=1) < 0.4).astype(int)  # noqa: E731

    def split(Xn, yn, path):
        from interpretopt.heuristics.trepan import Split

        # oblique median splits: grandchildren whose padded box sticks out of their parent's
        c = np.random.default_rng(len(path) * 7 + path.count("L")).normal(size=Xn.shape[1])
        return Split(c=c, b=float(np.median(Xn @ c)), left_label=0, right_label=1)

    kw = dict(max_depth=4, cutoff_entropy=0.0, cutoff_variance=2e-4, batch_size=500, seed=1,
              sampling={"sampler": "hit_and_run"})
    t0, s0 = grow_translation_tree(X, oracle, split, **{**kw, "sampling": {"sampler": "hit_and_run",
                                                                          "warm_starts": False}})
    t1, s1 = grow_translation_tree(X, oracle, split, **kw)  # warm starts are the default
    warm = [nd.sampling for nd in t1.nodes if nd.sampling is not None and nd.sampling.warm_starts > 0]
    burned0 = [nd.sampling for nd in t0.nodes if nd.sampling is not None and nd.sampling.uniform_starts == 0
               and nd.sampling.method == "hit_and_run" and nd.depth > 1]
    assert warm and len(warm) <= len(burned0)
    assert all(0 < tr.burn_in <= 10 * d + 20 and tr.uniform_starts == 0 for tr in warm)
    assert s1["n_nested"] == s0["n_nested"]  # the same nesting decisions
    assert sum(t.sampling.n_chain_steps for t in t1.nodes) < sum(t.sampling.n_chain_steps for t in t0.nodes)
