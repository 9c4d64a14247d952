"""Synthetic generators and their registry entries: Breiman's waveform and the MTRE-PAN circle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpretopt.data import load_dataset, make_circle, make_waveform, waveform_base_waves
from interpretopt.exceptions import InputError


def test_base_waves_are_shifted_triangles():
    h = waveform_base_waves()
    assert h.shape == (3, 21)
    assert h.max() == 6 and [int(np.argmax(r)) + 1 for r in h] == [11, 15, 7]
    assert np.array_equal(h[1][4:], h[0][:-4]) and np.array_equal(h[2][:-4], h[0][4:])


def test_waveform_noise_free_points_lie_on_their_segment():
    X, y = make_waveform(300, random_state=1, noise=0.0)
    h = waveform_base_waves()
    pairs = {0: (0, 1), 1: (0, 2), 2: (1, 2)}
    for x, c in zip(X, y):
        a, b = pairs[int(c)]
        d = h[a] - h[b]
        u = float(d @ (x - h[b]) / (d @ d))
        assert 0.0 <= u <= 1.0
        np.testing.assert_allclose(x, u * h[a] + (1 - u) * h[b], atol=1e-9)


def test_waveform21_and_40_shapes_seeds_and_class_balance():
    a = load_dataset("waveform21", n_samples=3000, random_state=7)
    b = load_dataset("waveform21", n_samples=3000, random_state=7)
    c = load_dataset("waveform40", n_samples=3000, random_state=7)
    assert a.X.shape == (3000, 21) and c.X.shape == (3000, 40)
    assert np.array_equal(a.numeric(), b.numeric()) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.numeric(), load_dataset("waveform21", n_samples=3000, random_state=8).numeric())
    frac = np.bincount(a.y) / a.n_samples
    assert np.all(np.abs(frac - 1 / 3) < 0.05)
    # the 19 extra attributes of waveform40 are N(0, 1) noise
    noise = c.numeric()[:, 21:]
    assert abs(noise.mean()) < 0.05 and abs(noise.std() - 1) < 0.05
    # class means follow the base waves: class 0 mixes h1, h2 so its mean is (h1 + h2) / 2
    h = waveform_base_waves()
    np.testing.assert_allclose(a.numeric()[a.y == 0].mean(axis=0), (h[0] + h[1]) / 2, atol=0.3)


@given(st.integers(1, 300), st.floats(0.1, 3.0), st.floats(0.5, 4.0), st.integers(0, 2**16))
def test_circle_labels_are_inside_the_radius(n, radius, half_width, seed):
    X, y = make_circle(n, radius, half_width, seed)
    assert X.shape == (n, 2) and np.all(np.abs(X) <= half_width)
    assert np.array_equal(y == 1, np.hypot(X[:, 0], X[:, 1]) <= radius + 1e-12)


def test_circle_default_square_and_share_inside():
    ds = load_dataset("circle", n_samples=20000, random_state=0)
    X = ds.numeric()
    assert ds.feature_names == ["x1", "x2"] and X.min() >= -2 and X.max() <= 2
    assert abs(ds.y.mean() - np.pi / 16) < 0.01  # area of the unit circle over the 4x4 square


@pytest.mark.parametrize("kwargs", [{"n_samples": 0}, {"radius": 0.0}, {"half_width": -1.0}])
def test_circle_bad_options(kwargs):
    with pytest.raises(InputError):
        load_dataset("circle", **kwargs)
