"""The package's one clock for wall-clock safety nets, injectable so that tests can slow it.

A limit that shapes a result is a *work* limit (nodes, iterations, pricing calls, sampler
evaluations): it gives the same answer on any machine and under any load. A wall-clock limit
is only a safety net that stops a run which would otherwise not end; a run stopped by one says
so (``limited_by_time``), and the caller keeps the best answer it already had.

Every wall-clock deadline in the package reads :func:`monotonic` (never ``time.perf_counter``
directly), so that :func:`slowed_clock` can make the whole package see a machine ``factor``
times slower: a test runs the same configuration with and without it and asserts identical
results, which holds exactly when no wall-clock limit shaped them. Timings that are only
*reported* (``wall_time``, ``lp_time``) may read :func:`monotonic` too; they then scale with
the injected clock, which is what a slow machine would report.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["Deadline", "monotonic", "slowed_clock", "use_clock"]

_state = threading.local()


def _base() -> Callable[[], float]:
    return getattr(_state, "clock", time.perf_counter)


def monotonic() -> float:
    """Seconds on the package's clock (``time.perf_counter`` unless a test injected another)."""
    return _base()()


@contextmanager
def use_clock(clock: Callable[[], float]) -> Iterator[None]:
    """Within the block, :func:`monotonic` (in this thread) reads ``clock``."""
    previous = getattr(_state, "clock", None)
    _state.clock = clock
    try:
        yield
    finally:
        if previous is None:
            del _state.clock
        else:
            _state.clock = previous


@contextmanager
def slowed_clock(factor: float) -> Iterator[None]:
    """Within the block, time passes ``factor`` times faster than the real clock (a slower machine).

    ``factor`` must be a positive number; 10 simulates a machine ten times slower or ten
    times more loaded. Elapsed times measured across the block's start scale from its start.
    """
    if not isinstance(factor, (int, float)) or isinstance(factor, bool) or not factor > 0:
        raise ValueError(f"slowed_clock: factor must be a positive number, got {factor!r}")
    real = _base()
    start = real()
    with use_clock(lambda: start + (real() - start) * float(factor)):
        yield


@dataclass
class Deadline:
    """A wall-clock safety net of ``seconds`` from creation (``None``: no limit), on :func:`monotonic`.

    ``expired()`` is True once the limit has passed; ``hit`` records that some check found it
    expired, so the caller can report ``limited_by_time`` honestly.
    """

    seconds: float | None
    start: float = field(default_factory=monotonic)
    hit: bool = False

    def elapsed(self) -> float:
        return monotonic() - self.start

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a limit."""
        if self.seconds is None:
            return None
        return max(0.0, self.seconds - self.elapsed())

    def expired(self) -> bool:
        if self.seconds is None:
            return False
        if self.elapsed() >= self.seconds:
            self.hit = True
        return self.hit
