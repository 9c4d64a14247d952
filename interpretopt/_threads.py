"""One BLAS thread for the small matrix products of the search heuristics.

``threadpoolctl.threadpool_limits`` scans the process's loaded libraries (``/proc/self/maps``)
on every call; in column generation, with one beam search per iteration, that scan cost more
than the search it wrapped (breast cancer: 78 of 139 ms of pricing). The controller is built
once, on first use, and its ``limit`` context reused.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from functools import lru_cache, wraps

__all__ = ["single_blas_thread", "on_one_blas_thread"]


@lru_cache(maxsize=1)
def _controller():
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        return None
    return ThreadpoolController()


def single_blas_thread() -> AbstractContextManager:
    """Context in which BLAS runs on one thread (products too small to gain from more)."""
    ctl = _controller()
    return nullcontext() if ctl is None else ctl.limit(limits=1, user_api="blas")


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
