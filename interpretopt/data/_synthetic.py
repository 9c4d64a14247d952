"""Synthetic data generators: Breiman's waveform and the MTRE-PAN circle."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from interpretopt._validation import as_generator, check_in_range, check_int

__all__ = ["waveform_base_waves", "make_waveform", "make_circle"]


def waveform_base_waves() -> np.ndarray:
    """The three triangular base waves h1, h2, h3 of Breiman et al. (1984), shape (3, 21).

    ``h1(i) = max(6 - |i - 11|, 0)`` for i = 1..21, ``h2(i) = h1(i - 4)``, ``h3(i) = h1(i + 4)``.
    """
    i = np.arange(1, 22)
    h1 = np.maximum(6 - np.abs(i - 11), 0)
    h2 = np.maximum(6 - np.abs(i - 15), 0)
    h3 = np.maximum(6 - np.abs(i - 7), 0)
    return np.vstack([h1, h2, h3]).astype(float)


def make_waveform(n_samples: int = 5000, n_noise: int = 0, random_state: Any = 0,
                  noise: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Breiman's waveform data: 3 equally likely classes, 21 attributes (+ pure noise attributes).

    Each class is a random convex combination of two of the three base waves plus Gaussian
    noise: class 0 = u h1 + (1-u) h2, class 1 = u h1 + (1-u) h3, class 2 = u h2 + (1-u) h3,
    with u ~ U(0, 1) per sample and N(0, noise^2) added to each attribute. ``n_noise`` extra
    N(0, 1) attributes give the 40-attribute version (n_noise=19).

    References
    ----------
    L. Breiman, J. Friedman, R. Olshen, C. Stone. Classification and Regression Trees, 1984,
    Section 2.6.2; UCI "Waveform Database Generator (Version 1 / 2)".
    """
    n_samples = check_int("n_samples", n_samples, 1)
    n_noise = check_int("n_noise", n_noise, 0)
    check_in_range("noise", noise, 0.0)
    rng = as_generator(random_state)
    h = waveform_base_waves()
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    y = rng.integers(0, 3, size=n_samples)
    u = rng.random(n_samples)[:, None]
    a, b = pairs[y, 0], pairs[y, 1]
    X = u * h[a] + (1.0 - u) * h[b] + noise * rng.standard_normal((n_samples, 21))
    if n_noise:
        X = np.hstack([X, rng.standard_normal((n_samples, n_noise))])
    return X, y.astype(np.int64)


def make_circle(n_samples: int = 1000, radius: float = 1.0, half_width: float = 2.0,
                random_state: Any = 0) -> tuple[np.ndarray, np.ndarray]:
    """The MTRE-PAN circle: points uniform in the square [-half_width, half_width]^2,
    label 1 inside the circle of the given radius around the origin (``x1^2 + x2^2 <= r^2``), else 0.

    References
    ----------
    Almerri et al., "Global translation of classification models", Section 4.1 (circle of radius 1).
    """
    n_samples = check_int("n_samples", n_samples, 1)
    check_in_range("radius", radius, 0.0, low_open=True)
    check_in_range("half_width", half_width, 0.0, low_open=True)
    rng = as_generator(random_state)
    X = rng.uniform(-half_width, half_width, size=(n_samples, 2))
    y = (np.einsum("ij,ij->i", X, X) <= radius**2).astype(np.int64)
    return X, y


def waveform_frame(X: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(X.shape[1])])
