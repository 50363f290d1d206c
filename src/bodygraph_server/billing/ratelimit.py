"""The sliding-window rate limit (100 requests per rolling 60 s per API key, 20 failed
authentications per client address), kept in the store or in Redis, and its headers
(docs/accounts.md, "Rate limit")."""

from __future__ import annotations

import base64
import hashlib
import secrets
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.store import (
    ApiKeyRecord,
    DatabaseUnavailableError,
    DatabaseURLError,
    RateDecision,
)
from bodygraph_server.store.base import RateWindowStore
from bodygraph_server.store.records import decision_from_window

if TYPE_CHECKING:
    import redis

LIMIT = 100
WINDOW_SECONDS = 60
POLICY_NAME = "100-in-1min"
AUTH_FAILURE_LIMIT = 20
"""Failed authentications per client address and rolling :data:`WINDOW_SECONDS`."""

__all__ = [
    "AUTH_FAILURE_LIMIT",
    "LIMIT",
    "POLICY_NAME",
    "WINDOW_SECONDS",
    "RateDecision",
    "RateLimitStoreUnavailableError",
    "RateLimiter",
    "RedisRateLimiter",
    "StoreRateLimiter",
    "auth_failure_bucket",
    "decision_from_window",
    "open_rate_limiter",
    "partition_key",
    "rate_limit_headers",
]


class RateLimiter(Protocol):
    """Anything that can count one request against a bucket atomically."""

    def hit(self, bucket: str, now: datetime) -> RateDecision:
        """Count a request at ``now`` if the window allows it; report the outcome."""
        ...

    def carry(self, source: str, target: str, now: datetime) -> None:
        """Count the requests of bucket ``source`` still in its window at ``now`` in
        bucket ``target`` too (a rotated key's window goes on under the new key)."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


class StoreRateLimiter:
    """The window kept in the bookkeeping store (SQLite or PostgreSQL table)."""

    def __init__(
        self, store: RateWindowStore, *, limit: int = LIMIT, window_seconds: int = WINDOW_SECONDS
    ) -> None:
        self._store = store
        self._limit = limit
        self._window = window_seconds

    @property
    def store(self) -> RateWindowStore:
        """The store keeping the windows."""
        return self._store

    @property
    def limit(self) -> int:
        """Requests allowed per window."""
        return self._limit

    @property
    def window_seconds(self) -> int:
        """The window's length."""
        return self._window

    def hit(self, bucket: str, now: datetime) -> RateDecision:
        """Count a request at ``now`` if the window allows it."""
        return self._store.rate_limit_hit(bucket, now, self._limit, self._window)

    def carry(self, source: str, target: str, now: datetime) -> None:
        """See :meth:`RateLimiter.carry`."""
        self._store.carry_rate_hits(source, target, now, self._window)

    def admit(
        self, key_hash: str, now: datetime
    ) -> tuple[ApiKeyRecord | None, RateDecision | None]:
        """The key with this hash and, for a current key of an active account, this
        request counted against its window (bucket ``key_hash``): one store call
        (:meth:`~bodygraph_server.store.Store.admit_key`)."""
        return self._store.admit_key(key_hash, now, self._limit, self._window)

    def close(self) -> None:
        """Nothing to do: the store belongs to the caller."""


_LUA_HIT = """
-- KEYS[1] bucket; ARGV: now, cutoff (both integer microseconds, as text so that no float
-- formatting loses digits), limit, unique member for this request.
local key = KEYS[1]
redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[2])
local count = redis.call('ZCARD', key)
local allowed = 0
if count < tonumber(ARGV[3]) then
  redis.call('ZADD', key, ARGV[1], ARGV[4])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, ARGV[5])
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local first = ARGV[1]
if oldest[2] then first = oldest[2] end
return {allowed, count, first}
"""


_LUA_CARRY = """
-- KEYS[1] source, KEYS[2] target; ARGV: cutoff (integer microseconds, as text), expiry ms.
local hits = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES')
for i = 1, #hits, 2 do
  redis.call('ZADD', KEYS[2], hits[i + 1], hits[i])
end
if #hits > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return #hits / 2
"""


class RateLimitStoreUnavailableError(DatabaseUnavailableError):
    """The rate-limit store (Redis) cannot be reached: an outage like the database's
    (503 SERVICE_UNAVAILABLE with ``Retry-After``, ``/health`` 503)."""


class RedisRateLimiter:
    """The window kept in Redis: one sorted set per bucket (scores are microseconds),
    checked and updated by one Lua script, so it is atomic across processes and hosts.

    Instants come from the caller's clock (not Redis ``TIME``), so tests can inject time.
    """

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "bodygraph:ratelimit:",
        limit: int = LIMIT,
        window_seconds: int = WINDOW_SECONDS,
    ) -> None:
        import redis

        self._errors = (redis.ConnectionError, redis.TimeoutError)
        self._client: redis.Redis = redis.Redis.from_url(url)
        self._script = self._client.register_script(_LUA_HIT)
        self._carry = self._client.register_script(_LUA_CARRY)
        self._prefix = prefix
        self._limit = limit
        self._window = window_seconds

    def hit(self, bucket: str, now: datetime) -> RateDecision:
        """Count a request at ``now`` if the window allows it."""
        now_us = to_micros(now)
        member = f"{now_us}:{secrets.token_hex(8)}"
        try:
            raw = self._script(
                keys=[self._prefix + bucket],
                args=[
                    str(now_us),
                    str(now_us - self._window * 1_000_000),
                    self._limit,
                    member,
                    self._window * 1000 + 1000,
                ],
            )
        except self._errors as exc:
            raise _unreachable(exc) from exc
        allowed, count, first = int(raw[0]), int(raw[1]), _score(raw[2])
        return decision_from_window(
            allowed=bool(allowed),
            count=count,
            oldest_us=first if count else None,
            now_us=now_us,
            limit=self._limit,
            window_seconds=self._window,
        )

    def carry(self, source: str, target: str, now: datetime) -> None:
        """See :meth:`RateLimiter.carry`."""
        cutoff = to_micros(now) - self._window * 1_000_000
        try:
            self._carry(keys=[self._prefix + source, self._prefix + target],
                        args=[str(cutoff), self._window * 1000 + 1000])
        except self._errors as exc:
            raise _unreachable(exc) from exc

    def ping(self) -> None:
        """:class:`RateLimitStoreUnavailableError` unless Redis answers."""
        try:
            self._client.ping()
        except self._errors as exc:
            raise _unreachable(exc) from exc

    def close(self) -> None:
        """Close the Redis connection pool."""
        self._client.close()


def _unreachable(exc: Exception) -> RateLimitStoreUnavailableError:
    """The outage of a Redis connection error ``exc``."""
    return RateLimitStoreUnavailableError(f"the rate-limit store (Redis) cannot be reached: {exc}")


def _score(raw: object) -> int:
    """A sorted-set score returned by Redis (text) as integer microseconds, exactly."""
    text = raw.decode("ascii") if isinstance(raw, bytes) else str(raw)
    return int(Decimal(text))


def open_rate_limiter(
    url: str | None, store: RateWindowStore, *, limit: int = LIMIT
) -> RateLimiter:
    """The limiter named by ``url`` allowing ``limit`` per window: None, ``""`` or
    ``"store"`` use ``store``; ``redis://...`` uses Redis."""
    if url is None or url in ("", "store"):
        return StoreRateLimiter(store, limit=limit)
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisRateLimiter(url, limit=limit)
    raise DatabaseURLError(f"unsupported rate-limit URL {url!r} (use 'store' or redis://...)")


def auth_failure_bucket(address: str) -> str:
    """The window of the failed authentications from client ``address`` (hashed, so no
    address is stored)."""
    return "authfail:" + hashlib.sha256(address.encode("utf-8")).hexdigest()


def partition_key(key_hash: str) -> str:
    """The ``pk`` value: base64 of a hash of the API key (its stored hash, hashed again)."""
    digest = hashlib.sha256(b"bodygraph ratelimit pk\x00" + key_hash.encode("ascii")).digest()
    return base64.b64encode(digest[:12]).decode("ascii")


def rate_limit_headers(decision: RateDecision, key_hash: str) -> dict[str, str]:
    """The response headers for ``decision``: ``ratelimit-policy``, ``ratelimit`` and,
    when refused, ``Retry-After``."""
    name = f"{decision.limit}-in-{decision.window_seconds // 60}min"  # POLICY_NAME for keys
    headers = {
        "ratelimit-policy": (
            f'"{name}"; q={decision.limit}; w={decision.window_seconds}; '
            f"pk=:{partition_key(key_hash)}:"
        ),
        "ratelimit": f'"{name}"; r={decision.remaining}; t={decision.reset_seconds}',
    }
    if decision.retry_after is not None:
        headers["Retry-After"] = str(decision.retry_after)
    return headers
