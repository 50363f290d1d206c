"""The Idempotency-Key header on ``POST /v2/charts/batch``, on SQLite and PostgreSQL: five
concurrent retries of one batch see one charge (1 credit per chart returned) and the
same answer, a later retry too; the key with another body or another endpoint is 422;
a duplicate of a batch still running past the time limit is 409; a batch that charged
nothing, or had no valid birth, still binds its key; a failed batch frees it; keys
survive the migration to schema 4."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest
from server.support import json_headers

from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.billing.batch_charges import release_many, reserve_many
from bodygraph_server.billing.idempotency import claim_for
from bodygraph_server.policy.clock import ManualClock, to_micros
from bodygraph_server.store import Replay, sqlite_path
from bodygraph_server.store.sql import SqlStore
from bodygraph_server.store.sqlite import SqliteStore

pytestmark = pytest.mark.anyio

PATH = "/v2/charts/batch"
GOOD = [{"birthdate": f"19{60 + i}-0{1 + i}-1{i}", "birthtime": f"1{i}:30",
         "lat": 10.0 * i, "lng": 20.0 * i} for i in range(4)]
BAD = {"birthdate": "2001-02-29", "birthtime": "10:00", "lat": 0, "lng": 0}
#: 4 charts and 1 bad birth: 4 credits.
BODY = json.dumps({"births": [GOOD[0], BAD, *GOOD[1:]]}).encode()







def _data(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()["data"]


def _charged(book: Bookkeeper, account_id: int) -> tuple[int, int, int]:
    usage = book.usage(account_id)[-1]
    return usage.calls, usage.credits, usage.pending


async def test_five_concurrent_retries_of_a_batch_charge_once(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    issued = book.create_account("developer")
    account_id = issued.account.id
    before = book.account(account_id).balance
    responses: list[httpx.Response] = []

    async def send() -> None:
        responses.append(await client.post(PATH, content=BODY,
                                           headers=json_headers(issued.api_key, '"batch-7"')))

    async with anyio.create_task_group() as tasks:
        for _ in range(5):
            tasks.start_soon(send)
    answers = [_data(r) for r in responses]
    assert all(answer == answers[0] for answer in answers)
    assert answers[0]["results"][1]["errorCode"] == "INVALID_BIRTHDATE"
    assert _charged(book, account_id) == (4, 4, 0)
    assert book.account(account_id).balance == before - 4

    # Later, the same batch again: the same answer, nothing more charged.
    again = await client.post(PATH, content=BODY, headers=json_headers(issued.api_key, "batch-7"))
    assert _data(again) == answers[0]
    assert book.account(account_id).balance == before - 4

    # The key with another body, or on another endpoint, is refused and charges nothing.
    other = json.dumps({"births": GOOD}).encode()
    single = json.dumps(GOOD[0]).encode()
    for path, body in ((PATH, other), ("/v2/charts/coordinates", single)):
        reused = await client.post(path, content=body,
                                   headers=json_headers(issued.api_key, "batch-7"))
        assert reused.status_code == 422, reused.text
        assert reused.json()["errorCode"] == "IDEMPOTENCY_KEY_REUSED"
    assert _charged(book, account_id) == (4, 4, 0)
    assert book.audit(account_id).balanced


async def test_a_batch_key_used_by_a_single_chart_is_422(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    issued = book.create_account("developer")
    single = json.dumps(GOOD[0]).encode()
    first = await client.post("/v2/charts/coordinates", content=single,
                              headers=json_headers(issued.api_key, "k1"))
    assert first.status_code == 200
    batch = await client.post(PATH, content=BODY, headers=json_headers(issued.api_key, "k1"))
    assert batch.status_code == 422
    assert batch.json()["errorCode"] == "IDEMPOTENCY_KEY_REUSED"
    assert _charged(book, issued.account.id) == (1, 1, 0)


async def test_a_duplicate_of_a_batch_still_running_is_409(
    client: httpx.AsyncClient, hurried: httpx.AsyncClient, book: Bookkeeper
) -> None:
    issued = book.create_account("developer")
    principal = book.authenticate(issued.api_key)
    assert isinstance(principal, Principal)
    # The first batch holds its reservations (as if still computing) past the time limit.
    first = reserve_many(book, principal, PATH, 4, claim_for(book, principal, "slow", PATH, BODY))
    assert isinstance(first, list)
    response = await hurried.post(PATH, content=BODY, headers=json_headers(issued.api_key, "slow"))
    assert response.status_code == 409
    assert response.json()["errorCode"] == "IDEMPOTENCY_KEY_IN_USE"
    assert response.headers["retry-after"] == "1"
    release_many(book, principal, first)  # it failed: the key is free, the retry is charged
    retried = await client.post(PATH, content=BODY, headers=json_headers(issued.api_key, "slow"))
    assert len(_data(retried)["results"]) == 5
    assert _charged(book, issued.account.id) == (4, 4, 0)


async def test_a_batch_that_charged_nothing_binds_its_key(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    issued = book.create_account("developer")
    before = book.account(issued.account.id).balance
    # No valid birth: no reservation; a birth the ephemeris cannot serve: reserved, released.
    outside = {"birthdate": "1700-01-01", "birthtime": "10:00", "lat": 0, "lng": 0}
    for n, births in enumerate(([BAD, BAD], [outside])):
        body = json.dumps({"births": births}).encode()
        key = f"nothing-{n}"
        first = _data(await client.post(PATH, content=body,
                                         headers=json_headers(issued.api_key, key)))
        assert all("errorCode" in slot for slot in first["results"])
        again = await client.post(PATH, content=body, headers=json_headers(issued.api_key, key))
        assert _data(again) == first
        other = await client.post(PATH, content=BODY, headers=json_headers(issued.api_key, key))
        assert other.status_code == 422, other.text
    assert book.account(issued.account.id).balance == before
    assert _charged(book, issued.account.id) == (0, 0, 0)


def test_keys_survive_the_migration_to_schema_4(fresh_db_url: str, clock: ManualClock) -> None:
    """A database at schema 3 with a key in flight and a key answered: after schema 4
    (SQLite rebuilds the table) both mean what they meant."""
    from bodygraph_server.store.postgres import PostgresStore

    base = SqliteStore if fresh_db_url.startswith("sqlite") else PostgresStore

    class AtSchema3(base):  # type: ignore[valid-type,misc]
        def _migration_files(self) -> list[tuple[int, str]]:
            return [(n, text) for n, text in super()._migration_files() if n <= 3]

    arg = sqlite_path(fresh_db_url) if base is SqliteStore else fresh_db_url
    old = Bookkeeper(AtSchema3(arg), clock=clock)
    try:
        assert old.store.schema_version() == 3
        principal = old.authenticate(old.create_account("developer").api_key)
        assert isinstance(principal, Principal)
        claims = [claim_for(old, principal, key, "/v2/charts", b"{}") for key in "ab"]
        charges = [old.reserve(principal, "/v2/charts") for _ in claims]
        store = old.store
        assert isinstance(store, SqlStore)
        with store.write_transaction() as tx:  # as schema 3's code wrote them
            for claim, charge in zip(claims, charges, strict=True):
                assert isinstance(charge, Reservation)
                tx.execute("INSERT INTO idempotency_keys (key_hash, request_hash, usage_id, "
                           "created_us) VALUES (?, ?, ?, ?)",
                           (claim.key_hash, claim.request_hash, charge.id,
                            to_micros(clock.now())))
        old.commit(charges[1])
    finally:
        old.close()
    new = Bookkeeper.open(fresh_db_url, clock=clock)
    try:
        assert new.store.schema_version() >= 4
        assert [new.reserve(principal, "/v2/charts", c) for c in claims] == [
            Replay.IN_FLIGHT, Replay.ANSWERED]
    finally:
        new.close()
