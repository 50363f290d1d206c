"""A rotated key's rate-limit window goes on under the new key (``RateLimiter.carry``), in
the store (SQLite, PostgreSQL) and in Redis: a rotation is no way around the limit."""

from __future__ import annotations

from datetime import timedelta

from bodygraph_server.policy.clock import ManualClock

from .conftest import START
from .test_store_ratelimit import limiter_factory

__all__ = ["limiter_factory"]  # the fixture, on every backend


def test_the_hits_in_the_window_are_carried(limiter_factory) -> None:  # type: ignore[no-untyped-def]
    limiter = limiter_factory(limit=5, window=10)
    clock = ManualClock(START)
    for _ in range(3):  # at START, +1 s, +2 s
        assert limiter.hit("old", clock.now()).allowed
        clock.advance(1)
    clock.set(START + timedelta(seconds=10.5))  # the first hit has left the window
    limiter.carry("old", "new", clock.now())
    decision = limiter.hit("new", clock.now())
    assert (decision.allowed, decision.remaining, decision.reset_seconds) == (True, 2, 1)
    assert limiter.hit("new", clock.now()).allowed
    assert limiter.hit("new", clock.now()).allowed
    assert not limiter.hit("new", clock.now()).allowed  # 5 in the window
    clock.set(START + timedelta(seconds=11))  # the hit of +1 s leaves
    assert limiter.hit("new", clock.now()).allowed
    # a bucket without hits carries nothing
    limiter.carry("never", "fresh", clock.now())
    assert limiter.hit("fresh", clock.now()).remaining == 4
