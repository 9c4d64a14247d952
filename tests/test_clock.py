"""The injectable clock behind every wall-clock safety net (interpretopt._clock)."""

import pytest

from interpretopt import _clock


def test_use_clock_replaces_and_restores_the_clock():
    ticks = iter([5.0, 7.5])
    before = _clock.monotonic()
    with _clock.use_clock(lambda: next(ticks)):
        assert _clock.monotonic() == 5.0
        assert _clock.monotonic() == 7.5
    assert _clock.monotonic() >= before


def test_a_deadline_expires_on_the_injected_clock_and_remembers_it():
    now = [0.0]
    with _clock.use_clock(lambda: now[0]):
        d = _clock.Deadline(10.0)
        assert not d.expired() and d.remaining() == 10.0 and not d.hit
        now[0] = 10.0
        assert d.expired() and d.hit and d.remaining() == 0.0
        now[0] = 0.0  # a later check still reports that the limit was hit
        assert d.expired()


def test_no_limit_never_expires():
    now = [0.0]
    with _clock.use_clock(lambda: now[0]):
        d = _clock.Deadline(None)
        now[0] = 1e12
        assert not d.expired() and d.remaining() is None


def test_slowed_clock_scales_elapsed_time():
    now = [100.0]
    with _clock.use_clock(lambda: now[0]):
        with _clock.slowed_clock(10):
            start = _clock.monotonic()
            now[0] += 2.0
            assert _clock.monotonic() - start == pytest.approx(20.0)


@pytest.mark.parametrize("factor", [0, -1, True, "2", None])
def test_slowed_clock_refuses_a_factor_that_is_not_a_positive_number(factor):
    with pytest.raises(ValueError, match="positive number"):
        with _clock.slowed_clock(factor):
            pass
