"""The Idempotency-Key header over HTTP: concurrent and later retries of one request are
answered alike and charged once; the key with another body is 422; a duplicate whose
first request is still running past the time limit is 409 with Retry-After."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest
from server.support import json_headers

from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.billing.idempotency import claim_for

pytestmark = pytest.mark.anyio

PATH = "/v2/charts/coordinates"
BODY = json.dumps(
    {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
).encode()









def _chart(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    body = response.json()
    return {k: v for k, v in body.items() if k != "timestamp"}


async def test_five_concurrent_retries_charge_once(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    issued = book.create_account("developer")
    before = book.account(issued.account.id).balance
    responses: list[httpx.Response] = []

    async def send() -> None:
        responses.append(await client.post(PATH, content=BODY,
                                           headers=json_headers(issued.api_key, '"order-42"')))

    async with anyio.create_task_group() as tasks:
        for _ in range(5):
            tasks.start_soon(send)
    charts = [_chart(r) for r in responses]
    assert all(chart == charts[0] for chart in charts)
    usage = book.usage(issued.account.id)[-1]
    assert (usage.calls, usage.credits, usage.pending) == (1, 1, 0)
    assert book.account(issued.account.id).balance == before - 1

    # Later, the same request again: the same answer, still one charge.
    again = await client.post(PATH, content=BODY, headers=json_headers(issued.api_key, "order-42"))
    assert _chart(again) == charts[0]
    assert book.account(issued.account.id).balance == before - 1

    # The key with another body is refused (another endpoint too: test_store_outages).
    other = BODY.replace(b"14:30", b"14:31")
    reused = await client.post(PATH, content=other,
                               headers=json_headers(issued.api_key, "order-42"))
    assert reused.status_code == 422
    assert reused.json()["errorCode"] == "IDEMPOTENCY_KEY_REUSED"
    assert book.account(issued.account.id).balance == before - 1


async def test_a_duplicate_of_a_request_still_running_is_409(
    client: httpx.AsyncClient, hurried: httpx.AsyncClient, book: Bookkeeper
) -> None:
    issued = book.create_account("developer")
    principal = book.authenticate(issued.api_key)
    assert isinstance(principal, Principal)
    # The first request holds its reservation (as if still computing) past the time limit.
    first = book.reserve(principal, PATH, claim_for(book, principal, "slow", PATH, BODY))
    assert isinstance(first, Reservation)
    response = await hurried.post(PATH, content=BODY, headers=json_headers(issued.api_key, "slow"))
    assert response.status_code == 409
    assert response.json()["errorCode"] == "IDEMPOTENCY_KEY_IN_USE"
    assert response.headers["retry-after"] == "1"
    book.release(first)  # it failed: the key is free, the retry is served and charged
    retried = await client.post(PATH, content=BODY, headers=json_headers(issued.api_key, "slow"))
    _chart(retried)
    assert book.usage(issued.account.id)[-1].calls == 1
