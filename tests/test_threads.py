"""interpretopt._threads: one BLAS thread inside the context and the decorator, restored after."""

from threadpoolctl import threadpool_info

from interpretopt._threads import on_one_blas_thread, single_blas_thread


def _blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_single_blas_thread_limits_and_restores():
    before = _blas_threads()
    with single_blas_thread():
        assert all(n == 1 for n in _blas_threads())
    assert _blas_threads() == before


def test_on_one_blas_thread_wraps_the_call():
    @on_one_blas_thread
    def inside():
        return _blas_threads()

    before = _blas_threads()
    assert all(n == 1 for n in inside())
    assert _blas_threads() == before
