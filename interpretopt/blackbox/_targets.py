"""Synthetic black boxes given by a formula (no training): the MTRE-PAN circle."""

from __future__ import annotations

from typing import Any

import numpy as np

from interpretopt._validation import check_in_range

__all__ = ["CircleTarget"]


class CircleTarget:
    """The MTRE-PAN paper's synthetic target (Section 4.1): label 1 inside the circle ``||x|| <= radius``.

    Almerri et al., "Global translation of classification models"; the authors' release
    (``source/Circle_Oracle.cpp``) labels a point 1 when its distance to the origin is at
    most the radius (1) and -1 otherwise. ``boundary_score(X) = radius - ||x||`` is the
    signed distance to the boundary, used for boundary model parity.

    It has the classifier interface of a fitted scikit-learn model (``classes_``,
    ``predict``, ``predict_proba``, ``decision_function``) so that it can stand wherever a
    trained black box does; ``fit`` does nothing.
    """

    def __init__(self, radius: float = 1.0) -> None:
        self.radius = check_in_range("radius", radius, 0.0, low_open=True)
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = 2

    def fit(self, X: Any = None, y: Any = None) -> CircleTarget:
        return self

    def boundary_score(self, X: Any) -> np.ndarray:
        """``radius - ||x||``: positive inside, 0 on the circle."""
        X = np.asarray(X, dtype=float)
        return self.radius - np.sqrt(np.einsum("ij,ij->i", X, X))

    decision_function = boundary_score

    def predict(self, X: Any) -> np.ndarray:
        return (self.boundary_score(X) >= 0).astype(np.int64)

    def predict_proba(self, X: Any) -> np.ndarray:
        p = self.predict(X).astype(float)
        return np.column_stack([1 - p, p])
