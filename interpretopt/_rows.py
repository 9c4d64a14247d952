"""Unique rows of a byte matrix, and complementary columns of a boolean one, fast.

``numpy.unique(a, axis=0)`` compares rows through a structured dtype with one field per
column; viewing each row as one opaque ``void`` scalar gives the same order (both compare
bytes lexicographically) and the same first occurrences, about ten times faster (adult,
48,842 packed rows: 0.089 s against 0.009 s).
"""

from __future__ import annotations

import numpy as np

__all__ = ["LiteralMatrix", "complement_columns", "unique_rows_index"]


def unique_rows_index(a: np.ndarray, *, return_inverse: bool = False):
    """``first`` (and ``inverse``) of ``numpy.unique(a, axis=0, return_index=True, ...)`` for a 2-D
    ``uint8``/``bool`` array: ``a[first]`` are the unique rows in sorted order, ``first`` the
    index of each one's first occurrence, ``a[first][inverse] == a``."""
    a = np.ascontiguousarray(a)
    if a.ndim != 2 or a.dtype.itemsize != 1:
        raise ValueError(f"expected a 2-D array of bytes, got shape {a.shape} and dtype {a.dtype}")
    if a.shape[1] == 0:
        first = np.zeros(min(1, a.shape[0]), dtype=np.intp)
        return (first, np.zeros(a.shape[0], dtype=np.intp)) if return_inverse else first
    v = a.view(np.dtype((np.void, a.shape[1]))).ravel()
    if return_inverse:
        _, first, inverse = np.unique(v, return_index=True, return_inverse=True)
        return first, inverse.reshape(-1)
    _, first = np.unique(v, return_index=True)
    return first


class LiteralMatrix:
    """A binarized matrix in the layouts the pricers and bounds read, built once per fit.

    Attributes
    ----------
    X : ndarray (n, J) bool
        Sample-major.
    XT : ndarray (J, n) bool, C-contiguous
        Literal-major: each literal's rows are contiguous.
    partner : ndarray (J,)
        :func:`complement_columns`.
    base, derived : ndarray of int
        Literals with ``partner < 0`` and the others.
    derived_src : ndarray of int
        Position in ``base`` of each derived literal's partner.
    """

    def __init__(self, X) -> None:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"expected a 2-D array, got shape {X.shape}")
        self.X = X.astype(bool, copy=False)
        self.XT = np.ascontiguousarray(self.X.T)
        self.partner = complement_columns(self.XT, literal_major=True)
        self.base = np.flatnonzero(self.partner < 0)
        self.derived = np.flatnonzero(self.partner >= 0)
        pos = np.zeros(self.X.shape[1], dtype=np.intp)
        pos[self.base] = np.arange(self.base.size)
        self.derived_src = pos[self.partner[self.derived]]

    @classmethod
    def of(cls, X) -> "LiteralMatrix":
        """``X`` itself when it is one already."""
        return X if isinstance(X, cls) else cls(X)

    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape

    def base_columns(self, dtype) -> np.ndarray:
        """``X[:, base]`` as a C-contiguous (n, J_base) array of ``dtype``."""
        return np.ascontiguousarray(self.XT[self.base].T, dtype=dtype)

    def fold(self, base_sums: np.ndarray, totals: np.ndarray) -> np.ndarray:
        """Sums over all literals (k, J) from sums over the base literals (k, J_base): a derived
        literal's sum is the total minus its partner's."""
        out = np.empty((base_sums.shape[0], self.X.shape[1]))
        out[:, self.base] = base_sums
        if self.derived.size:
            out[:, self.derived] = np.asarray(totals, dtype=np.float64)[:, None] - base_sums[:, self.derived_src]
        return out


def complement_columns(X: np.ndarray, *, literal_major: bool = False) -> np.ndarray:
    """``partner`` (J,): for each column ``j`` of the boolean matrix ``X`` either ``-1`` (a *base*
    column) or the index of an earlier base column ``p`` with ``X[:, j] == ~X[:, p]``.

    A binarizer with negations makes most literals come in such pairs (``x <= t`` / ``x > t``,
    ``= v`` / ``!= v``); found on the data, not assumed, so a column is derived only when it
    is the complement row for row. Columns are scanned in order: a column whose complement is
    a base column seen before is derived from it; every derived column's partner is a base
    column. Then ``w @ X[:, j] == w.sum() - w @ X[:, partner[j]]`` for any weights ``w``.
    """
    X = np.asarray(X, dtype=bool)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D array, got shape {X.shape}")
    XT = X if literal_major else np.ascontiguousarray(X.T)  # packing contiguous rows is ~80x faster
    J, n = XT.shape
    partner = np.full(J, -1, dtype=np.intp)
    if n == 0 or J == 0:
        return partner
    packed = np.packbits(XT, axis=1)  # (J, ceil(n / 8)), one row per column
    comp = ~packed
    pad = 8 * packed.shape[1] - n
    comp[:, -1] &= np.uint8((0xFF << pad) & 0xFF)  # packbits pads the last byte with zeros
    base: dict[bytes, int] = {}
    for j in range(J):
        p = base.get(comp[j].tobytes())
        if p is not None:
            partner[j] = p
        else:
            base.setdefault(packed[j].tobytes(), j)
    return partner
