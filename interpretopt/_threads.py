"""One thread: for the small matrix products of the search heuristics, and for each experiment run.

``threadpoolctl.threadpool_limits`` scans the process's loaded libraries (``/proc/self/maps``)
on every call; in column generation, with one beam search per iteration, that scan cost more
than the search it wrapped (breast cancer: 78 of 139 ms of pricing). The controller is built
once, on first use, and its ``limit`` context reused.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from functools import lru_cache, wraps

__all__ = ["single_blas_thread", "single_thread", "on_one_blas_thread", "thread_counts"]


def _scan():
    """A controller of the thread pools loaded now (a scan of the loaded libraries), or None."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        return None
    return ThreadpoolController()


_controller = lru_cache(maxsize=1)(_scan)  # the first scan, reused where the scan would cost more than the work


def single_blas_thread() -> AbstractContextManager:
    """Context in which BLAS runs on one thread (products too small to gain from more)."""
    ctl = _controller()
    return nullcontext() if ctl is None else ctl.limit(limits=1, user_api="blas")


def single_thread() -> AbstractContextManager:
    """Context in which every native thread pool loaded now (BLAS, OpenMP) runs on one thread.

    The experiment runner executes each run in it, so that a run's numbers do not depend on
    how many threads its process happens to have: an unconverged L-BFGS fit (logistic
    regression on unscaled adult) moves by up to 0.014 in a coefficient, and changes 513 of
    48,842 predictions, between one and two BLAS threads, because the threads split the
    floating-point sums differently. Unlike :func:`single_blas_thread` it scans the loaded
    libraries on every call (a few milliseconds), so that a library loaded since, such as
    scipy's own OpenBLAS, is limited too: use it once per run, not in a loop.
    """
    ctl = _scan()
    return nullcontext() if ctl is None else ctl.limit(limits=1)


def thread_counts() -> dict[str, int]:
    """The largest thread count of each native thread-pool API loaded now (``{"blas": 2, ...}``)."""
    ctl = _scan()
    counts: dict[str, int] = {}
    for info in ([] if ctl is None else ctl.info()):
        api = info["user_api"]
        counts[api] = max(counts.get(api, 0), int(info["num_threads"]))
    return counts


def on_one_blas_thread(func):
    """Decorator: run ``func`` inside :func:`single_blas_thread`.

    For loops of small, memory-bound products between solver calls (column generation):
    OpenBLAS's extra threads add CPU time there (breast cancer: 0.07 s of a 0.45 s fit) and
    no speed.
    """

    @wraps(func)
    def wrapper(*args, **kwargs):
        with single_blas_thread():
            return func(*args, **kwargs)

    return wrapper
