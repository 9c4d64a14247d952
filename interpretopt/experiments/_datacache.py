"""Caches in the output directory that hold data only, verified before use.

A results folder is shared between collaborators, so nothing read from it may run code: the
caches here are numeric arrays in ``.npz`` files read with ``allow_pickle=False`` and JSON
documents, never pickles. Each file carries the SHA-256 of its cache key and contents, written
with it; a file that does not parse, holds other data (a pickle, object arrays), belongs to
another key or fails its hash is ignored with a :class:`CacheWarning` and the value is
recomputed (and the file rewritten). Fitted models, which cannot be stored as data, are not
cached on disk at all: they are refitted (deterministically, from hashed seeds) and kept in
memory per process.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CacheWarning", "save_arrays", "load_arrays", "save_json", "load_json"]

_DIGEST = "__sha256__"


class CacheWarning(UserWarning):
    """A cache file was ignored (unreadable, not data, another key's, or altered); it is recomputed."""


def _arrays_digest(key: str, arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256(f"key={key}".encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"|{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _tmp_for(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def _replace_or_clean(tmp: Path, path: Path) -> None:
    try:
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink(missing_ok=True)


def save_arrays(path: Path, key: str, arrays: dict[str, Any]) -> bool:
    """Write numeric ``arrays`` with their digest to ``path`` (atomically); False when it cannot be written.

    Raises ``TypeError`` for an object array (it would need a pickle).
    """
    arrs = {k: np.asarray(v) for k, v in arrays.items()}
    for k, a in arrs.items():
        if a.dtype.hasobject:
            raise TypeError(f"cache array {k!r} has dtype object; only numeric and string arrays are stored")
    digest = _arrays_digest(key, arrs)
    tmp = _tmp_for(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrs, **{_DIGEST: np.array(digest)})
        _replace_or_clean(tmp, path)
        return True
    except OSError:  # a read-only or full output directory: the value stays in memory only
        tmp.unlink(missing_ok=True)
        return False


def _ignored(path: Path, why: str) -> None:
    warnings.warn(f"ignoring cache file {path} ({why}); recomputing it", CacheWarning, stacklevel=3)


def load_arrays(path: Path, key: str) -> dict[str, np.ndarray] | None:
    """The arrays stored in ``path`` for ``key``, or None (absent, or ignored with a :class:`CacheWarning`)."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except Exception as exc:  # a pickle, a truncated or foreign file: never executed, only refused
        _ignored(path, f"not a data file: {type(exc).__name__}")
        return None
    stored = arrays.pop(_DIGEST, None)
    if stored is None or stored.shape != () or str(stored) != _arrays_digest(key, arrays):
        _ignored(path, "its content hash does not match its key and contents")
        return None
    return arrays


def _json_digest(key: str, payload: Any) -> str:
    return hashlib.sha256(json.dumps({"key": key, "payload": payload}, sort_keys=True).encode()).hexdigest()


def save_json(path: Path, key: str, payload: Any) -> bool:
    """Write ``payload`` (JSON-able) with its key and digest to ``path``; False when it cannot be written."""
    doc = {"key": key, "payload": payload, "sha256": _json_digest(key, payload)}
    tmp = _tmp_for(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(doc, sort_keys=True, indent=1))
        _replace_or_clean(tmp, path)
        return True
    except OSError:
        tmp.unlink(missing_ok=True)
        return False


def load_json(path: Path, key: str) -> Any:
    """The payload stored in ``path`` for ``key``, or None (absent, or ignored with a :class:`CacheWarning`)."""
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text())
        payload, digest = doc["payload"], doc["sha256"]
    except Exception as exc:
        _ignored(path, f"not a cache document: {type(exc).__name__}")
        return None
    if doc.get("key") != key or digest != _json_digest(key, payload):
        _ignored(path, "its content hash does not match its key and contents")
        return None
    return payload
