"""Run claims: a run is claimed in its output directory before it is computed.

``<out>/claims/<run key>.claim`` is created with ``O_CREAT | O_EXCL`` (atomic: of several
processes, one creates it) and holds the claiming host, process id and start time. A process
computes only the runs it claimed, so two processes (or two Dask clients) on one folder split
the work and each run is computed once. The claim is released after the run's row is stored,
or when the process stops (error, Ctrl-C). A claim left by a killed process is *stale* and is
taken over: its process is gone (same host, pid not alive), or it is older than ``max_age``
seconds (any host; a claim of another host can only age out). A take-over is serialized by a
second ``O_EXCL`` file (``<key>.takeover``), so that two processes never both take one claim.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ClaimBook", "DEFAULT_MAX_AGE", "claim_is_stale", "read_claim"]

#: Seconds after which a claim is stale whatever its host (a run longer than this may be
#: computed twice, by a second process that takes its claim over).
DEFAULT_MAX_AGE = 24 * 3600.0

_HOST = socket.gethostname()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process of another user
        return True
    except OSError:
        return False
    return True


def read_claim(path: Path) -> dict | None:
    """The claim in ``path`` (``{"host", "pid", "started"}``), ``{}`` when unreadable, None when absent."""
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return doc if isinstance(doc, dict) else {}


def claim_is_stale(doc: dict, path: Path, max_age: float, now: float | None = None) -> bool:
    """A claim whose process is gone (this host, pid not alive) or older than ``max_age`` seconds.

    An unreadable claim (a process killed while writing it) is stale once its file is older than
    a few seconds.
    """
    now = time.time() if now is None else now
    try:
        started = float(doc["started"])
        host, pid = str(doc["host"]), int(doc["pid"])
    except (KeyError, TypeError, ValueError):
        try:
            return now - path.stat().st_mtime > 5.0
        except OSError:
            return False
    if now - started > max_age:
        return True
    return host == _HOST and not _pid_alive(pid)


@dataclass
class ClaimBook:
    """The claims this process holds in ``out_dir``."""

    out_dir: Path
    max_age: float = DEFAULT_MAX_AGE
    held: set = field(default_factory=set)
    taken_over: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def dir(self) -> Path:
        return Path(self.out_dir) / "claims"

    def _path(self, key: str) -> Path:
        return self.dir / f"{key}.claim"

    def _create(self, key: str) -> bool:
        path = self._path(key)
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(json.dumps({"host": _HOST, "pid": os.getpid(), "started": time.time()}))
        except BaseException:  # a full disk: no half-written claim stays behind
            path.unlink(missing_ok=True)
            raise
        with self._lock:
            self.held.add(key)
        return True

    def claim(self, key: str) -> bool:
        """Claim run ``key``: True when this process now holds it (created, or a stale claim taken over).

        Raises ``OSError`` when the claims folder cannot be written (a read-only or full disk).
        """
        if key in self.held:
            return True
        self.dir.mkdir(parents=True, exist_ok=True)
        if self._create(key):
            return True
        return self._take_over(key)

    def _take_over(self, key: str) -> bool:
        path = self._path(key)
        doc = read_claim(path)
        if doc is None:  # released meanwhile
            return self._create(key)
        if not claim_is_stale(doc, path, self.max_age):
            return False
        lock = self.dir / f"{key}.takeover"
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            self._clear_stale_lock(lock)
            return False
        os.close(fd)
        try:
            again = read_claim(path)  # still the stale claim (no one took it over before our lock)?
            if again is not None and again != doc:
                return False
            path.unlink(missing_ok=True)
            ok = self._create(key)
            self.taken_over += int(ok)
            return ok
        finally:
            lock.unlink(missing_ok=True)

    def _clear_stale_lock(self, lock: Path) -> None:
        """A take-over lock left by a process killed during its take-over (older than a minute)."""
        try:
            if time.time() - lock.stat().st_mtime > 60.0:
                lock.unlink(missing_ok=True)
        except OSError:
            pass

    def release(self, key: str) -> None:
        """Give up the claim of run ``key`` (after its row is stored, or when not computing it)."""
        with self._lock:
            mine = key in self.held
            self.held.discard(key)
        if mine:
            try:
                self._path(key).unlink(missing_ok=True)
            except OSError:
                pass

    def release_all(self) -> None:
        with self._lock:
            keys = list(self.held)
        for key in keys:
            self.release(key)
