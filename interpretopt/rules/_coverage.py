"""Coverage of rules on samples: boolean matrices and bit-packed rows.

A coverage matrix ``A`` has one row per sample and one column per rule, ``A[i, k] = 1`` when
rule ``k`` holds on sample ``i``. The packed form stores rule ``k`` as a row of 64-bit words,
``ceil(n / 64)`` of them, bit ``i`` of the row being sample ``i`` (tail bits are zero).
Counting (support, positives covered, overlaps) is then a popcount of AND / OR of words:
``np.bitwise_count`` where numpy has it (numpy >= 2), a byte lookup table otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from interpretopt.exceptions import InputError
from interpretopt.rules._condition import Condition, Conjunction, as_matrix

__all__ = [
    "coverage_matrix",
    "packed_coverage",
    "binary_coverage",
    "binary_coverage_packed",
    "pack_binary_columns",
    "rule_columns",
    "pack_coverage",
    "pack_vector",
    "unpack_coverage",
    "n_words",
    "popcount",
    "and_popcount",
    "packed_and",
    "packed_or",
    "packed_not",
    "packed_any",
    "packed_all",
    "first_cover",
    "support",
    "overlap",
]

_BYTE_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def n_words(n: int) -> int:
    """Number of 64-bit words that hold ``n`` bits."""
    return (int(n) + 63) // 64


def _rules_of(rules: Any) -> list:
    """Rules from a RuleSet/RuleList/Checklist-like object or any iterable of Conjunction/Condition."""
    inner = getattr(rules, "rules", None)
    if inner is not None and not isinstance(rules, (list, tuple)):
        rules = inner
    if isinstance(rules, (Condition, Conjunction)):
        rules = [rules]
    out = []
    for r in rules:
        if isinstance(r, (Condition, Conjunction)):
            out.append(r)
        elif hasattr(r, "conjunction") and isinstance(r.conjunction, Conjunction):  # e.g. TreeLeafRule
            out.append(r.conjunction)
        else:
            out.append(Conjunction(r))
    return out


def coverage_matrix(rules: Any, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
    """Boolean coverage matrix (n, k) of ``rules`` on ``X``.

    Each distinct condition is evaluated once and shared by every rule that uses it.

    Parameters
    ----------
    rules : iterable of Conjunction or Condition, or a RuleSet / RuleList
    X : array-like (n, d) or DataFrame
        The raw feature matrix; or, with ``conditions``, a binarized 0/1 matrix.
    conditions : sequence of Condition, optional
        The condition encoded by each column of a binarized ``X`` (a binarizer's
        ``conditions_``); coverage is then computed on the binary columns (bit-packed).
    """
    if conditions is not None:
        return binary_coverage(X, rule_columns(rules, conditions))
    rules = _rules_of(rules)
    X = as_matrix(X)
    n = X.shape[0]
    out = np.ones((n, len(rules)), dtype=bool)
    cache: dict[Condition, np.ndarray] = {}

    def mask(c: Condition) -> np.ndarray:
        m = cache.get(c)
        if m is None:
            m = cache[c] = c.evaluate(X)
        return m

    for k, r in enumerate(rules):
        conds = (r,) if isinstance(r, Condition) else r.conditions
        if not conds:
            continue
        col = mask(conds[0]).copy()
        for c in conds[1:]:
            col &= mask(c)
        out[:, k] = col
    return out


def packed_coverage(rules: Any, X: Any, *, conditions: Sequence[Condition] | None = None) -> np.ndarray:
    """Bit-packed coverage uint64 (k, ceil(n/64)) of ``rules`` on ``X`` (see :func:`coverage_matrix`)."""
    if conditions is not None:
        return binary_coverage_packed(X, rule_columns(rules, conditions))
    return pack_coverage(coverage_matrix(rules, X))


def _check_binary(X_bin: Any) -> np.ndarray:
    """Validate a 0/1 matrix and return it as uint8 (a view when it already is bool or uint8)."""
    arr = np.asarray(X_bin)
    if arr.ndim != 2:
        raise InputError(f"X_bin must be 2-D (n_samples, n_columns), got shape {arr.shape}")
    if arr.dtype == bool:
        return arr.view(np.uint8)
    kind = arr.dtype.kind
    if kind not in "biuf":
        raise InputError(f"X_bin must hold 0/1 values, got dtype {arr.dtype}")
    if arr.size:
        if kind == "u":
            ok = arr.max() <= 1
        elif kind == "i":
            ok = arr.min() >= 0 and arr.max() <= 1
        else:
            ok = bool(((arr == 0) | (arr == 1)).all())
        if not ok:
            raise InputError("X_bin must hold only 0/1 values (a binarized matrix); "
                             f"found values outside {{0, 1}} (min {arr.min()}, max {arr.max()})")
    return arr if arr.dtype == np.uint8 else arr.astype(np.uint8)


def _check_columns(rule_columns: Iterable[Any], n_cols: int) -> list[np.ndarray]:
    out = []
    for k, cols in enumerate(rule_columns):
        raw = np.asarray(cols)
        if raw.size and raw.dtype.kind not in "iu":
            ok = raw.dtype.kind == "f" and bool(np.all(np.isfinite(raw))) and bool(np.all(raw == np.round(raw)))
            if not ok:
                raise InputError(f"rule {k}: column indices must be integers, got {raw.ravel()[:5].tolist()} "
                                 f"(dtype {raw.dtype})")
        c = raw.astype(np.intp, copy=False).ravel() if raw.size else np.zeros(0, dtype=np.intp)
        if c.size and (c.min() < 0 or c.max() >= n_cols):
            raise InputError(f"rule {k} uses column(s) {c[(c < 0) | (c >= n_cols)].tolist()} outside 0..{n_cols - 1}")
        out.append(c)
    return out


def binary_coverage(X_bin: Any, rule_columns: Sequence[Any]) -> np.ndarray:
    """Boolean coverage (n, k) on a binarized matrix: rule ``k`` holds where all its columns are 1.

    Computed through the packed path (AND of 64-bit words) and unpacked at the end.

    Parameters
    ----------
    X_bin : array-like (n, J) of 0/1
    rule_columns : sequence of k integer arrays, the columns of each rule (empty = always true)
    """
    arr = _check_binary(X_bin)
    packed = binary_coverage_packed(arr, rule_columns)
    return unpack_coverage(packed, arr.shape[0])


def pack_binary_columns(X_bin: Any) -> np.ndarray:
    """Pack the columns of a binarized matrix (n, J) into words: uint64 (J, ceil(n/64))."""
    return _pack_uint8(_check_binary(X_bin))


def binary_coverage_packed(X_bin: Any, rule_columns: Sequence[Any], *, packed_columns: np.ndarray | None = None,
                           n_samples: int | None = None) -> np.ndarray:
    """Packed coverage uint64 (k, ceil(n/64)) of rules given by column indices of a binarized matrix.

    Rules of the same length are evaluated together: for length L, ``P[cols[:, 0]] & ... &
    P[cols[:, L-1]]`` over the packed columns ``P``.

    Parameters
    ----------
    X_bin : array-like (n, J) of 0/1, or None when ``packed_columns`` is given
    rule_columns : sequence of k integer arrays
    packed_columns : uint64 (J, W), optional
        The output of :func:`pack_binary_columns`, to reuse across calls.
    n_samples : int, optional
        Number of samples; needed with ``packed_columns`` for rules with no column.
    """
    if packed_columns is None:
        arr = _check_binary(X_bin)
        P = _pack_uint8(arr)
        n = arr.shape[0]
    else:
        P = np.asarray(packed_columns, dtype=np.uint64)
        if P.ndim != 2:
            raise InputError(f"packed_columns must be 2-D (n_columns, n_words), got shape {P.shape}")
        n = n_samples if n_samples is not None else P.shape[1] * 64
    cols = _check_columns(rule_columns, P.shape[0])
    k, W = len(cols), P.shape[1]
    out = np.empty((k, W), dtype=np.uint64)
    by_len: dict[int, list[int]] = {}
    for i, c in enumerate(cols):
        by_len.setdefault(c.size, []).append(i)
    for L, idx in by_len.items():
        idx_arr = np.asarray(idx, dtype=np.intp)
        if L == 0:
            out[idx_arr] = pack_coverage(np.ones((n, 1), dtype=bool))[0]
            continue
        C = np.stack([cols[i] for i in idx], axis=0)  # (k_L, L)
        acc = P[C[:, 0]]
        for j in range(1, L):
            np.bitwise_and(acc, P[C[:, j]], out=acc)
        out[idx_arr] = acc
    return out


def rule_columns(rules: Any, conditions: Sequence[Condition]) -> list[np.ndarray]:
    """Column indices of each rule's conditions in a binarized matrix whose columns are ``conditions``.

    Use with a binarizer's ``conditions_``; a condition that no column encodes raises
    :class:`InputError`.
    """
    index = {c: j for j, c in enumerate(conditions)}
    out = []
    for k, r in enumerate(_rules_of(rules)):
        conds = (r,) if isinstance(r, Condition) else r.conditions
        try:
            out.append(np.array([index[c] for c in conds], dtype=np.intp))
        except KeyError as exc:
            raise InputError(f"rule {k} uses condition {exc.args[0]} that is not a column of the binarized matrix") from None
    return out


# ----------------------------------------------------------------------------- packing
def pack_coverage(A: Any) -> np.ndarray:
    """Pack a boolean coverage matrix (n, k) into uint64 words (k, ceil(n/64)); bit i = sample i."""
    arr = np.asarray(A)
    if arr.ndim != 2:
        raise InputError(f"coverage matrix must be 2-D (n_samples, n_rules), got shape {arr.shape}")
    if arr.dtype != bool:
        if arr.dtype.kind not in "biuf":
            raise InputError(f"coverage matrix must be boolean, got dtype {arr.dtype}")
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            raise InputError("coverage matrix contains NaN; it must hold booleans (or 0/1)")
        arr = arr != 0
    return _pack_uint8(arr.view(np.uint8))


def _pack_uint8(U: np.ndarray) -> np.ndarray:
    """Pack a 0/1 uint8 matrix (n, k) into uint64 words (k, ceil(n/64)).

    Bytes are assembled along the sample axis with 8 shifted ORs over contiguous row
    blocks, then the small (bytes, k) array is transposed: much faster than packing a
    transposed (strided) view.
    """
    n, k = U.shape
    W = n_words(n)
    out = np.zeros((W * 8, k), dtype=np.uint8)
    n8 = n // 8
    if n8:
        main = U[: n8 * 8].reshape(n8, 8, k)
        acc = out[:n8]
        acc[...] = main[:, 0, :]
        for b in range(1, 8):
            acc |= main[:, b, :] << np.uint8(b)
    for b in range(n - n8 * 8):
        out[n8] |= U[n8 * 8 + b] << np.uint8(b)
    return np.ascontiguousarray(out.T).view("<u8").astype(np.uint64, copy=False)


def pack_vector(v: Any) -> np.ndarray:
    """Pack a boolean vector (n,) into uint64 words (ceil(n/64),)."""
    arr = np.asarray(v)
    if arr.ndim != 1:
        raise InputError(f"expected a 1-D boolean vector, got shape {arr.shape}")
    return pack_coverage(arr.reshape(-1, 1))[0]


def unpack_coverage(packed: Any, n: int) -> np.ndarray:
    """Inverse of :func:`pack_coverage`: boolean (n, k) from uint64 (k, W); a 1-D input gives (n,)."""
    P = np.asarray(packed, dtype=np.uint64)
    one = P.ndim == 1
    P2 = P.reshape(1, -1) if one else P
    if P2.ndim != 2:
        raise InputError(f"packed coverage must be 1-D or 2-D, got shape {P.shape}")
    if n > P2.shape[1] * 64:
        raise InputError(f"cannot unpack {n} samples from {P2.shape[1]} words ({P2.shape[1] * 64} bits)")
    b = np.ascontiguousarray(P2.astype("<u8", copy=False)).view(np.uint8)
    bits = np.unpackbits(b, axis=1, count=n, bitorder="little").astype(bool)
    return bits[0] if one else bits.T


def _tail_mask(n: int, W: int) -> np.ndarray:
    mask = np.full(W, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    r = n % 64
    if W and r:
        mask[-1] = np.uint64((1 << r) - 1)
    return mask


def _count_words_lut(P: np.ndarray) -> np.ndarray:
    """Popcount per row through a 256-entry byte table (used when numpy has no bitwise_count)."""
    P = np.ascontiguousarray(P, dtype=np.uint64)
    b = P.view(np.uint8).reshape(P.shape[:-1] + (P.shape[-1] * 8,))
    return _BYTE_POPCOUNT[b].sum(axis=-1, dtype=np.int64)


if hasattr(np, "bitwise_count"):
    def _count_words(P: np.ndarray) -> np.ndarray:
        return np.bitwise_count(P).sum(axis=-1, dtype=np.int64)
else:  # pragma: no cover - numpy < 2
    _count_words = _count_words_lut


def popcount(packed: Any) -> np.ndarray:
    """Number of set bits per row: (k,) int64 for (k, W) words; a scalar for a 1-D vector of words."""
    P = np.asarray(packed)
    if P.dtype != np.uint64:
        raise InputError(f"packed coverage must be uint64 words, got dtype {P.dtype}")
    c = _count_words(P)
    return int(c) if P.ndim == 1 else c


def and_popcount(a: Any, b: Any) -> np.ndarray:
    """``popcount(a & b)`` with broadcasting: e.g. rules (k, W) against a packed label vector (W,)."""
    A, B = np.asarray(a), np.asarray(b)
    if A.dtype != np.uint64 or B.dtype != np.uint64:
        raise InputError("and_popcount expects uint64 packed words")
    if A.shape[-1] != B.shape[-1]:
        raise InputError(f"packed widths differ: {A.shape[-1]} words vs {B.shape[-1]} words")
    _broadcastable(A, B, "and_popcount")
    return popcount(np.bitwise_and(A, B))


def _broadcastable(A: np.ndarray, B: np.ndarray, what: str) -> None:
    try:
        np.broadcast_shapes(A.shape, B.shape)
    except ValueError:
        raise InputError(f"{what}: packed shapes {A.shape} and {B.shape} do not match (rules x words, "
                         "or one packed vector of words)") from None


def packed_and(a: Any, b: Any) -> np.ndarray:
    """Bitwise AND of packed coverage (intersection of covered sets)."""
    A, B = np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64)
    _broadcastable(A, B, "packed_and")
    return np.bitwise_and(A, B)


def packed_or(a: Any, b: Any) -> np.ndarray:
    """Bitwise OR of packed coverage (union of covered sets)."""
    A, B = np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64)
    _broadcastable(A, B, "packed_or")
    return np.bitwise_or(A, B)


def packed_not(a: Any, n: int) -> np.ndarray:
    """Complement of packed coverage over ``n`` samples (tail bits stay zero)."""
    A = np.asarray(a, dtype=np.uint64)
    return np.bitwise_and(np.invert(A), _tail_mask(n, A.shape[-1]))


def packed_any(packed: Any, rows: Any = None) -> np.ndarray:
    """OR over rules (rows) of packed coverage: the samples covered by at least one rule, (W,)."""
    P = np.asarray(packed, dtype=np.uint64)
    if rows is not None:
        P = P[np.asarray(rows, dtype=np.intp)]
    if P.shape[0] == 0:
        return np.zeros(P.shape[1], dtype=np.uint64)
    return np.bitwise_or.reduce(P, axis=0)


def packed_all(packed: Any, n: int, rows: Any = None) -> np.ndarray:
    """AND over rules (rows) of packed coverage over ``n`` samples, (W,); all ones when no rows."""
    P = np.asarray(packed, dtype=np.uint64)
    if rows is not None:
        P = P[np.asarray(rows, dtype=np.intp)]
    if P.shape[0] == 0:
        return _tail_mask(n, P.shape[1])
    return np.bitwise_and.reduce(P, axis=0)


# ----------------------------------------------------------------------------- statistics
def first_cover(coverage: Any) -> np.ndarray:
    """Index of the first covering rule per sample from a boolean coverage (n, k); -1 when none."""
    A = np.asarray(coverage, dtype=bool)
    if A.ndim != 2:
        raise InputError(f"coverage must be 2-D (n_samples, n_rules), got shape {A.shape}")
    if A.shape[1] == 0:
        return np.full(A.shape[0], -1, dtype=np.int64)
    idx = A.argmax(axis=1).astype(np.int64)
    idx[~A.any(axis=1)] = -1
    return idx


def support(rules: Any, X: Any, *, normalize: bool = True) -> np.ndarray:
    """Support of each rule on ``X``: the fraction (or, with ``normalize=False``, the number) of rows covered, (k,)."""
    A = coverage_matrix(rules, X)
    counts = A.sum(axis=0, dtype=np.int64)
    if not normalize:
        return counts
    return counts / max(A.shape[0], 1)


def overlap(rules: Any, X: Any, *, normalize: bool = True) -> np.ndarray:
    """Pairwise overlap (k, k): fraction (or number) of rows covered by both rules; the diagonal is the support."""
    A = coverage_matrix(rules, X).astype(np.int64)
    M = A.T @ A
    if not normalize:
        return M
    return M / max(A.shape[0], 1)
