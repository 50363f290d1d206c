"""The Idempotency-Key header on ``POST /v2/charts/batch``, on SQLite and PostgreSQL: five
concurrent retries of one batch see one charge (1 credit per chart returned) and the
same answer, a later retry too; the key with another body or another endpoint is 422;
a duplicate of a batch still running past the time limit is 409; a batch that charged
nothing, or had no valid birth, still binds its key; a failed batch frees it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest
from server.support import in_process

from bodygraph_server import Settings, create_app
from bodygraph_server.billing.accounts import Bookkeeper, Principal
from bodygraph_server.billing.batch_charges import release_many, reserve_many
from bodygraph_server.billing.idempotency import claim_for
from bodygraph_server.charting import LibraryCharts

pytestmark = pytest.mark.anyio

PATH = "/v2/charts/batch"
GOOD = [{"birthdate": f"19{60 + i}-0{1 + i}-1{i}", "birthtime": f"1{i}:30",
         "lat": 10.0 * i, "lng": 20.0 * i} for i in range(4)]
BAD = {"birthdate": "2001-02-29", "birthtime": "10:00", "lat": 0, "lng": 0}
#: 4 charts and 1 bad birth: 4 credits.
BODY = json.dumps({"births": [GOOD[0], BAD, *GOOD[1:]]}).encode()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(db_url: str, book: Bookkeeper) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(database_url=db_url, geocoder="offline", warm_up=False,
                        request_timeout=2.0)
    async with in_process(create_app(settings, book=book, charts=LibraryCharts("offline"))) as c:
        yield c


def _headers(key: str, idempotency: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
            "Idempotency-Key": idempotency}


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
                                           headers=_headers(issued.api_key, '"batch-7"')))

    async with anyio.create_task_group() as tasks:
        for _ in range(5):
            tasks.start_soon(send)
    answers = [_data(r) for r in responses]
    assert all(answer == answers[0] for answer in answers)
    assert answers[0]["results"][1]["errorCode"] == "INVALID_BIRTHDATE"
    assert _charged(book, account_id) == (4, 4, 0)
    assert book.account(account_id).balance == before - 4

    # Later, the same batch again: the same answer, nothing more charged.
    again = await client.post(PATH, content=BODY, headers=_headers(issued.api_key, "batch-7"))
    assert _data(again) == answers[0]
    assert book.account(account_id).balance == before - 4

    # The key with another body, or on another endpoint, is refused and charges nothing.
    other = json.dumps({"births": GOOD}).encode()
    single = json.dumps(GOOD[0]).encode()
    for path, body in ((PATH, other), ("/v2/charts/coordinates", single)):
        reused = await client.post(path, content=body,
                                   headers=_headers(issued.api_key, "batch-7"))
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
                              headers=_headers(issued.api_key, "k1"))
    assert first.status_code == 200
    batch = await client.post(PATH, content=BODY, headers=_headers(issued.api_key, "k1"))
    assert batch.status_code == 422
    assert batch.json()["errorCode"] == "IDEMPOTENCY_KEY_REUSED"
    assert _charged(book, issued.account.id) == (1, 1, 0)


async def test_a_duplicate_of_a_batch_still_running_is_409(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    issued = book.create_account("developer")
    principal = book.authenticate(issued.api_key)
    assert isinstance(principal, Principal)
    # The first batch holds its reservations (as if still computing) past the time limit.
    first = reserve_many(book, principal, PATH, 4, claim_for(book, principal, "slow", PATH, BODY))
    assert isinstance(first, list)
    response = await client.post(PATH, content=BODY, headers=_headers(issued.api_key, "slow"))
    assert response.status_code == 409
    assert response.json()["errorCode"] == "IDEMPOTENCY_KEY_IN_USE"
    assert response.headers["retry-after"] == "1"
    release_many(book, principal, first)  # it failed: the key is free, the retry is charged
    retried = await client.post(PATH, content=BODY, headers=_headers(issued.api_key, "slow"))
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
                                         headers=_headers(issued.api_key, key)))
        assert all("errorCode" in slot for slot in first["results"])
        again = await client.post(PATH, content=body, headers=_headers(issued.api_key, key))
        assert _data(again) == first
        other = await client.post(PATH, content=BODY, headers=_headers(issued.api_key, key))
        assert other.status_code == 422, other.text
    assert book.account(issued.account.id).balance == before
    assert _charged(book, issued.account.id) == (0, 0, 0)
