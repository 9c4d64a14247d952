"""interpretopt._threads: one thread inside the contexts and the decorator, restored after."""

from threadpoolctl import threadpool_info, threadpool_limits

from interpretopt._threads import on_one_blas_thread, single_blas_thread, single_thread, thread_counts


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


def test_single_thread_limits_every_pool_and_restores():
    with threadpool_limits(limits=2):
        before = thread_counts()
        with single_thread():
            inside = thread_counts()
        assert thread_counts() == before
    assert inside and all(n == 1 for n in inside.values())
    assert set(inside) == set(before)
