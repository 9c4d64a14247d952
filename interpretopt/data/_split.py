"""Seeded train/test splits and K-folds over row indices."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from interpretopt._validation import as_generator, check_int
from interpretopt.exceptions import InputError

__all__ = ["train_test_indices", "kfold_indices"]


def _n_test(n: int, test_size: Any) -> int:
    if isinstance(test_size, bool):
        raise InputError(f"test_size must be a fraction in (0, 1) or a row count, got {test_size!r}")
    if isinstance(test_size, numbers.Integral):
        if not 1 <= test_size <= n - 1:
            raise InputError(f"test_size as a row count must be in [1, {n - 1}], got {test_size}")
        return int(test_size)
    if isinstance(test_size, numbers.Real) and 0.0 < float(test_size) < 1.0:
        k = int(np.ceil(float(test_size) * n))
        return min(max(k, 1), n - 1)
    raise InputError(f"test_size must be a fraction in (0, 1) or a row count, got {test_size!r}")


def _check_stratify(stratify: Any, n: int) -> np.ndarray:
    s = np.asarray(stratify)
    if s.ndim != 1 or s.shape[0] != n:
        raise InputError(f"stratify must be a 1-D array of length {n}, got shape {s.shape}")
    return s


def train_test_indices(n: int, test_size: float | int = 0.3, random_state: Any = None,
                       stratify: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Split ``range(n)`` into sorted train and test index arrays.

    Parameters
    ----------
    n : int
        Number of rows (at least 2).
    test_size : float in (0, 1) or int, default 0.3
        Fraction of rows (rounded up) or number of rows in the test part.
    random_state : None, int, SeedSequence or Generator
        Same seed, same split.
    stratify : array of length n, optional
        Labels whose proportions both parts keep (each class is split in proportion, the
        remainder assigned so that the totals are exact).

    Returns
    -------
    train, test : numpy.ndarray of int64, sorted, disjoint, covering range(n).
    """
    n = check_int("n", n, 2)
    n_test = _n_test(n, test_size)
    rng = as_generator(random_state)
    if stratify is None:
        perm = rng.permutation(n)
        test = np.sort(perm[:n_test])
    else:
        s = _check_stratify(stratify, n)
        classes, inv = np.unique(s, return_inverse=True)
        counts = np.bincount(inv)
        exact = counts * (n_test / n)
        alloc = np.floor(exact).astype(int)
        # largest remainders get the leftover test rows (ties broken at random)
        short = n_test - alloc.sum()
        if short > 0:
            order = np.lexsort((rng.random(classes.size), -(exact - alloc)))
            alloc[order[:short]] += 1
        alloc = np.minimum(alloc, counts)
        picks = []
        for c in range(classes.size):
            members = np.flatnonzero(inv == c)
            picks.append(rng.permutation(members)[: alloc[c]])
        test = np.sort(np.concatenate(picks)) if picks else np.empty(0, dtype=np.int64)
    mask = np.zeros(n, dtype=bool)
    mask[test] = True
    return np.flatnonzero(~mask).astype(np.int64), test.astype(np.int64)


def kfold_indices(n: int, k: int = 5, random_state: Any = None,
                  stratify: Any = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """K shuffled folds of ``range(n)``: a list of ``(train, test)`` sorted index arrays.

    The test parts are disjoint and cover ``range(n)``; their sizes differ by at most one (per
    class when ``stratify`` is given: rows of each class are dealt round-robin over the folds).
    """
    n = check_int("n", n, 2)
    k = check_int("k", k, 2)
    if k > n:
        raise InputError(f"k={k} folds need at least k rows, got n={n}")
    rng = as_generator(random_state)
    fold_of = np.empty(n, dtype=np.int64)
    if stratify is None:
        perm = rng.permutation(n)
        fold_of[perm] = np.arange(n) % k
    else:
        s = _check_stratify(stratify, n)
        _, inv = np.unique(s, return_inverse=True)
        offset = 0
        for c in range(inv.max() + 1):
            members = rng.permutation(np.flatnonzero(inv == c))
            fold_of[members] = (np.arange(members.size) + offset) % k
            offset += members.size
    folds = []
    for f in range(k):
        test = np.flatnonzero(fold_of == f)
        train = np.flatnonzero(fold_of != f)
        folds.append((train.astype(np.int64), test.astype(np.int64)))
    return folds
