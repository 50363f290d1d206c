"""Failed authentications are limited per client address, in a window of their own kept
where the keys' windows are (SQLite, PostgreSQL, Redis)."""

from __future__ import annotations

import secrets
from datetime import timedelta

import httpx
import pytest

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.billing.ratelimit import AUTH_FAILURE_LIMIT, RedisRateLimiter
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store.sql import SqlStore

from .conftest import REDIS_URL, START

COORDS = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}


def unknown() -> dict[str, str]:
    return {"Authorization": f"Bearer bg_{secrets.token_hex(16)}"}


@pytest.mark.anyio
async def test_unknown_keys_from_one_address_are_throttled(
        client: httpx.AsyncClient, book: Bookkeeper, clock: ManualClock) -> None:
    path = "/v2/charts/coordinates"
    for _ in range(AUTH_FAILURE_LIMIT):
        response = await client.post(path, json=COORDS, headers=unknown())
        assert (response.status_code, response.json()["errorCode"]) == (401, "API_KEY_INVALID")
    refused = await client.post(path, json=COORDS, headers=unknown())
    assert refused.status_code == 429
    assert refused.json()["errorCode"] == "RATE_LIMIT_EXCEEDED"
    assert refused.headers["retry-after"] == "60"
    assert refused.headers["ratelimit"] == f'"{AUTH_FAILURE_LIMIT}-in-1min"; r=0; t=60'
    assert refused.headers["ratelimit-policy"].startswith(
        f'"{AUTH_FAILURE_LIMIT}-in-1min"; q={AUTH_FAILURE_LIMIT}; w=60; pk=:')
    # The same window under v1 (the v1 error body).
    v1 = await client.post("/v1/bodygraphs/simple", headers={"HD-Api-Key": "bg_nope"},
                           json={"birthdate": "15-Jul-90", "birthtime": "14:30",
                                 "location": "Berlin, Germany"})
    assert v1.status_code == 429 and v1.headers["retry-after"] == "60"
    # A valid key from the same address is served (an attacker sharing a customer's address
    # cannot lock the customer out), and missing keys are not counted.
    key = book.create_account("developer").api_key
    served = await client.post(path, json=COORDS, headers={"Authorization": f"Bearer {key}"})
    assert served.status_code == 200, served.text
    assert (await client.post(path, json=COORDS)).status_code == 401
    # Once the failures have left the window (refusals are not counted), the address
    # gets its whole allowance again.
    clock.advance(60)
    statuses = [(await client.post(path, json=COORDS, headers=unknown())).status_code
                for _ in range(AUTH_FAILURE_LIMIT + 1)]
    assert statuses == [401] * AUTH_FAILURE_LIMIT + [429]


def test_idle_windows_of_addresses_are_pruned(book: Bookkeeper, clock: ManualClock) -> None:
    """An address's window goes with its last hit, so that addresses trying keys once
    each do not make the database grow for ever."""
    store = book.store
    assert isinstance(store, SqlStore)

    def count(table: str) -> int:
        with store.read_transaction() as tx:
            row = tx.one(f"SELECT COUNT(*) FROM {table}")
        assert row is not None
        return int(row[0])

    for n in range(30):
        book.count_auth_failure(f"10.0.0.{n}")
    assert (count("rate_buckets"), count("rate_hits")) == (30, 30)
    clock.advance(30)
    book.count_auth_failure("10.0.0.0")
    clock.advance(31)
    store.prune_rate_hits(clock.now() - timedelta(seconds=60))
    assert (count("rate_buckets"), count("rate_hits")) == (1, 1)
    assert book.count_auth_failure("10.0.0.0").remaining == AUTH_FAILURE_LIMIT - 2
    assert book.count_auth_failure("10.0.0.1").remaining == AUTH_FAILURE_LIMIT - 1


def test_the_failures_window_lives_with_the_keys_windows(db_url: str) -> None:
    """With the keys' windows in Redis, the failures' are there too, per address."""
    clock = ManualClock(START)
    with Bookkeeper.open(db_url, clock=clock, rate_limit_url=REDIS_URL) as book:
        assert isinstance(book.failure_limiter, RedisRateLimiter)
        address, other = f"test-{secrets.token_hex(8)}", f"test-{secrets.token_hex(8)}"
        decisions = [book.count_auth_failure(address) for _ in range(AUTH_FAILURE_LIMIT + 1)]
        assert [d.allowed for d in decisions] == [True] * AUTH_FAILURE_LIMIT + [False]
        assert decisions[-1].limit == AUTH_FAILURE_LIMIT
        assert book.count_auth_failure(other).allowed
        clock.set(clock.now() + timedelta(seconds=60))
        assert book.count_auth_failure(address).allowed
