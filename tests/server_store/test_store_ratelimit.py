"""The sliding-window rate limit on every backend (SQLite, PostgreSQL, Redis), with
injected time, and the header values."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server.databases import DatabaseFiles, write_database

from bodygraph_server.billing.accounts import Bookkeeper, Principal
from bodygraph_server.billing.ratelimit import (
    RateLimiter,
    RedisRateLimiter,
    StoreRateLimiter,
    open_rate_limiter,
    partition_key,
    rate_limit_headers,
)
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store import DatabaseURLError, RateDecision, open_store

from .conftest import REDIS_URL, START, MigratedSchema, _empty_pg_schema, pg_schema_url


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        "redis",
    ]
)
def limiter_factory(request: pytest.FixtureRequest) -> Iterator[object]:
    """A function (limit, window) -> RateLimiter on the parametrized backend; the SQL
    stores are freshly migrated, empty databases (a new SQLite file holding the
    session's migrated one, the session's PostgreSQL schema emptied: conftest)."""
    made: list[RateLimiter] = []
    cleanup = []
    if request.param == "sqlite":
        files: DatabaseFiles = request.getfixturevalue("database_files")
        url = files.url(request.node.name)
        write_database(url, request.getfixturevalue("migrated_database"))
        store = open_store(url)
        cleanup.append(store.close)
    elif request.param == "postgres":
        schema: MigratedSchema = request.getfixturevalue("_pg_migrated")
        _empty_pg_schema(schema)
        store = open_store(pg_schema_url(schema.name))
        cleanup.append(store.close)
    else:
        prefix = f"bgtest:{secrets.token_hex(6)}:"

        def drop_keys() -> None:
            import redis  # here, not in every pytest worker that collects this module

            client = redis.Redis.from_url(REDIS_URL)
            keys = list(client.scan_iter(match=prefix + "*"))
            if keys:
                client.delete(*keys)
            client.close()

        cleanup.append(drop_keys)

    def make(limit: int = 100, window: int = 60) -> RateLimiter:
        limiter: RateLimiter
        if request.param == "redis":
            limiter = RedisRateLimiter(REDIS_URL, prefix=prefix, limit=limit, window_seconds=window)
        else:
            limiter = StoreRateLimiter(store, limit=limit, window_seconds=window)
        made.append(limiter)
        return limiter

    yield make
    for limiter in made:
        limiter.close()
    for step in reversed(cleanup):
        step()


def test_101st_request_in_the_window_is_refused(limiter_factory) -> None:  # type: ignore[no-untyped-def]
    limiter = limiter_factory()
    clock = ManualClock(START)
    decisions = []
    for _ in range(100):
        decisions.append(limiter.hit("key-a", clock.now()))
        clock.advance(0.25)  # 100 requests over 25 s
    assert all(d.allowed for d in decisions)
    assert [d.remaining for d in decisions] == list(range(99, -1, -1))
    assert decisions[0].reset_seconds == 60
    refused = limiter.hit("key-a", clock.now())  # at START + 25 s
    assert not refused.allowed
    assert refused.remaining == 0
    assert refused.retry_after == 35  # the first request leaves the window at START + 60 s
    # Another key has its own window.
    assert limiter.hit("key-b", clock.now()).allowed
    # Just before the first request leaves: still refused.
    clock.set(START + timedelta(seconds=60) - timedelta(microseconds=1))
    late = limiter.hit("key-a", clock.now())
    assert not late.allowed and late.retry_after == 1
    # Exactly 60 s after the first request, its slot is free again (and only that one).
    clock.set(START + timedelta(seconds=60))
    freed = limiter.hit("key-a", clock.now())
    assert freed.allowed and freed.remaining == 0
    assert freed.reset_seconds == 1  # the second request leaves at START + 60.25 s
    assert not limiter.hit("key-a", clock.now()).allowed
    clock.set(START + timedelta(seconds=60.25))
    assert limiter.hit("key-a", clock.now()).allowed


def test_refused_requests_do_not_count(limiter_factory) -> None:  # type: ignore[no-untyped-def]
    limiter = limiter_factory(limit=3, window=10)
    clock = ManualClock(START)
    for _ in range(3):
        assert limiter.hit("k", clock.now()).allowed
    for _ in range(50):  # hammering while refused must not extend the wait
        clock.advance(0.1)
        assert not limiter.hit("k", clock.now()).allowed
    clock.set(START + timedelta(seconds=10))
    assert limiter.hit("k", clock.now()).allowed


def _reference(times: list[float], limit: int, window: float) -> list[bool]:
    """The sliding window computed naively from the definition."""
    accepted: list[float] = []
    out = []
    for t in times:
        in_window = [a for a in accepted if a > t - window]
        ok = len(in_window) < limit
        if ok:
            accepted.append(t)
        out.append(ok)
    return out


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(gaps=st.lists(st.integers(min_value=0, max_value=4_000_000), min_size=1, max_size=40))
def test_window_matches_the_definition(limiter_factory, gaps: list[int]) -> None:  # type: ignore[no-untyped-def]
    limit, window = 4, 5
    limiter = limiter_factory(limit=limit, window=window)
    bucket = secrets.token_hex(8)
    micros = []
    total = 0
    for gap in gaps:
        total += gap
        micros.append(total)
    got = [limiter.hit(bucket, START + timedelta(microseconds=m)).allowed for m in micros]
    assert got == _reference([m / 1e6 for m in micros], limit, window)
    # Never more than `limit` accepted in any rolling window.
    accepted = [m for m, ok in zip(micros, got, strict=True) if ok]
    for i, start in enumerate(accepted):
        assert sum(1 for m in accepted[i:] if m < start + window * 1_000_000) <= limit


def test_headers() -> None:
    key_hash = hashlib.sha256(b"bg_example").hexdigest()
    allowed = RateDecision(True, 100, 60, 99, 60)
    headers = rate_limit_headers(allowed, key_hash)
    assert headers["ratelimit"] == '"100-in-1min"; r=99; t=60'
    match = re.fullmatch(
        r'"100-in-1min"; q=100; w=60; pk=:([A-Za-z0-9+/=]+):', headers["ratelimit-policy"]
    )
    assert match is not None
    pk = base64.b64decode(match.group(1))
    assert len(pk) == 12 and match.group(1) == partition_key(key_hash)
    assert key_hash not in headers["ratelimit-policy"]
    assert partition_key(hashlib.sha256(b"other").hexdigest()) != match.group(1)
    assert "Retry-After" not in headers
    refused = rate_limit_headers(RateDecision(False, 100, 60, 0, 17), key_hash)
    assert refused["Retry-After"] == "17"
    assert refused["ratelimit"] == '"100-in-1min"; r=0; t=17'


def test_bookkeeper_rate_limits_per_key(tmp_path: Path) -> None:
    clock = ManualClock(START)
    with Bookkeeper.open(f"sqlite:///{tmp_path / 'b.sqlite3'}", clock=clock) as book:
        issued = book.create_account("developer")
        first = book.authenticate(issued.api_key)
        assert isinstance(first, Principal)
        for _ in range(100):
            assert book.check_rate(first).allowed
        refused = book.check_rate(first)
        assert not refused.allowed
        assert book.rate_headers(first, refused)["Retry-After"] == "60"
        # A rotated key is a new key with its own window.
        rotated = book.authenticate(book.rotate_key(issued.account.id).api_key)
        assert isinstance(rotated, Principal)
        assert book.check_rate(rotated).allowed


def test_open_rate_limiter(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'c.sqlite3'}")
    try:
        assert isinstance(open_rate_limiter(None, store), StoreRateLimiter)
        assert isinstance(open_rate_limiter("store", store), StoreRateLimiter)
        redis_limiter = open_rate_limiter(REDIS_URL, store)
        assert isinstance(redis_limiter, RedisRateLimiter)
        redis_limiter.close()
        with pytest.raises(DatabaseURLError):
            open_rate_limiter("memcached://x", store)
    finally:
        store.close()


def test_redis_backend_through_the_bookkeeper(tmp_path: Path) -> None:
    import redis

    clock = ManualClock(START + timedelta(days=1000 + secrets.randbelow(10_000)))
    with Bookkeeper.open(
        f"sqlite:///{tmp_path / 'd.sqlite3'}", clock=clock, rate_limit_url=REDIS_URL
    ) as book:
        principal = book.authenticate(book.create_account("developer").api_key)
        assert isinstance(principal, Principal)
        results = [book.check_rate(principal).allowed for _ in range(101)]
        assert results == [True] * 100 + [False]
        clock.advance(60)
        assert book.check_rate(principal).allowed
        client = redis.Redis.from_url(REDIS_URL)
        client.delete("bodygraph:ratelimit:" + principal.key_hash)
        client.close()
