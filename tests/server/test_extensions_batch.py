"""``POST /v2/charts/batch`` in process, and the bulk reservations under it: results in
input order equal the single charts, each bad item has its own code and costs nothing,
1 credit per chart returned, 402 with nothing charged when the batch cannot be paid for,
one request against the rate limit."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import httpx
import pytest

import bodygraph
from bodygraph.geo.timezones import local_to_utc
from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.billing.batch_charges import release_many, reserve_many, settle_batch
from bodygraph_server.store import ChargeRefusal

from .conftest import new_key, v2_headers
from .support import STATE_RE
from .test_endpoints import account_id, balance, check_envelope
from .test_extensions import check_schema

pytestmark = pytest.mark.anyio

PATH = "/v2/charts/batch"


def birth(i: int) -> dict[str, Any]:
    """A valid coordinates birth, different for each ``i``."""
    return {"birthdate": f"{1950 + i:04d}-{1 + i % 12:02d}-{1 + i % 28:02d}",
            "birthtime": f"{i % 24:02d}:{(7 * i) % 60:02d}",
            "lat": -60 + 11.5 * (i % 11), "lng": -170 + 33.3 * (i % 10)}


def chart_of(item: dict[str, Any]) -> dict[str, Any]:
    """The ChartResult a single coordinates chart gives for ``item``."""
    local = datetime.fromisoformat(f"{item['birthdate']}T{item['birthtime']}")
    return bodygraph.calculate(local_to_utc(local, lat=item["lat"], lng=item["lng"]).utc).to_v2()


BAD = {
    2: ({**birth(2), "birthdate": "2001-02-29"}, "INVALID_BIRTHDATE"),
    5: ({**birth(5), "lat": 123}, "INVALID_LATITUDE"),
    8: ({"birthdate": "1970-01-01", "birthtime": "10:00"}, "MISSING_REQUIRED_FIELD"),
}


async def test_ten_births_three_bad_charge_seven(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    key = new_key(book)
    before = balance(book, key)
    births = [BAD[i][0] if i in BAD else birth(i) for i in range(10)]
    response = await client.post(PATH, json={"births": births},
                                 headers=v2_headers(key, geocode=None))
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "ChartBatchResult", "Charts generated")
    results = body["data"]["results"]
    assert len(results) == 10
    for i, result in enumerate(results):
        if i in BAD:
            assert result["errorCode"] == BAD[i][1]
            assert f"births[{i}]" in result["message"]
        else:
            assert result == chart_of(births[i])
    check_schema("ChartBatchResult", body["data"])
    assert balance(book, key) == before - 7
    usage = book.usage(account_id(book, key))[-1]
    assert usage.calls == 7
    assert book.audit(account_id(book, key)).balanced
    state = STATE_RE.match(response.headers["ratelimit"])
    assert state is not None and state.group(1) == "99"  # one request, not ten


async def test_a_birth_outside_the_ephemeris_gets_its_slot_and_its_credit_back(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    key = new_key(book)
    before = balance(book, key)
    births = [birth(0), {**birth(1), "birthdate": "1700-06-01"}, birth(2)]
    response = await client.post(PATH, json={"births": births}, headers=v2_headers(key))
    results = response.json()["data"]["results"]
    assert results[0] == chart_of(births[0]) and results[2] == chart_of(births[2])
    assert results[1]["errorCode"] == "INVALID_BIRTHDATE"
    assert "supported range" in results[1]["message"]
    assert balance(book, key) == before - 2
    assert book.audit(account_id(book, key)).balanced


async def test_a_batch_that_cannot_be_paid_for_is_402_and_charges_nothing(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    issued = book.create_account("developer")
    book.adjust_credits(issued.account.id, 5)
    births = [birth(i) for i in range(6)] + [{"lat": 1}]  # 6 valid births, 1 bad
    response = await client.post(PATH, json={"births": births},
                                 headers=v2_headers(issued.api_key))
    assert response.status_code == 402
    assert response.json()["errorCode"] == "CREDITS_EXHAUSTED"
    assert book.account(issued.account.id).balance == 5
    assert book.usage(issued.account.id)[-1].calls == 0
    paid = await client.post(PATH, json={"births": births[:5]},
                             headers=v2_headers(issued.api_key))
    assert paid.status_code == 200
    assert book.account(issued.account.id).balance == 0


async def test_overage_pays_for_what_the_balance_does_not(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    issued = book.create_account("developer")
    book.adjust_credits(issued.account.id, 2)
    book.set_overage(issued.account.id, True)
    births = [birth(i) for i in range(4)] + [{**birth(9), "birthdate": "1600-01-01"}]
    response = await client.post(PATH, json={"births": births},
                                 headers=v2_headers(issued.api_key))
    assert response.status_code == 200
    usage = book.usage(issued.account.id)[-1]
    assert (usage.calls, usage.overage_calls) == (4, 2)
    assert book.account(issued.account.id).balance == 0
    assert book.audit(issued.account.id).balanced


@pytest.mark.parametrize(("body", "status", "code"), [
    ({}, 400, "MISSING_REQUIRED_FIELD"),
    ({"births": []}, 422, "INVALID_REQUEST_BODY"),
    ({"births": [birth(0)] * 1001}, 422, "INVALID_REQUEST_BODY"),
    ({"births": birth(0)}, 422, "INVALID_REQUEST_BODY"),
    ([birth(0)], 422, "INVALID_REQUEST_BODY"),
])
async def test_a_wrong_shape_refuses_the_whole_batch(
    client: httpx.AsyncClient, book: Bookkeeper, body: Any, status: int, code: str
) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await client.post(PATH, json=body, headers=v2_headers(key))
    assert response.status_code == status
    assert response.json()["errorCode"] == code
    assert balance(book, key) == before


async def test_every_item_bad_answers_every_slot_and_charges_nothing(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    key = new_key(book)
    before = balance(book, key)
    place = {"birthdate": "1990-01-01", "birthtime": "10:00", "location": "Berlin, Germany"}
    births = ["text", {**birth(1), "birthtime": "7:00"}, place]
    response = await client.post(PATH, json={"births": births}, headers=v2_headers(key))
    assert response.status_code == 200
    codes = [slot["errorCode"] for slot in response.json()["data"]["results"]]
    assert codes == ["INVALID_REQUEST_BODY", "INVALID_BIRTHTIME", "MISSING_REQUIRED_FIELD"]
    assert balance(book, key) == before


async def test_every_item_message_names_its_birth(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    """Refused by the field checks or by the ephemeris: each slot's message starts with
    the birth it concerns, as the field checks' own messages do."""
    key = new_key(book)
    births = [{**birth(0), "birthdate": "1700-06-01"}, "text", birth(2),
              *(bad for bad, _ in BAD.values())]
    response = await client.post(PATH, json={"births": births}, headers=v2_headers(key))
    assert response.status_code == 200, response.text
    results = response.json()["data"]["results"]
    refused = {i: slot["message"] for i, slot in enumerate(results) if "errorCode" in slot}
    assert sorted(refused) == [0, 1, 3, 4, 5]
    for i, message in refused.items():
        assert message.startswith(f"births[{i}]: "), message


async def test_basic_tier_is_refused(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book, "hobbyist")
    response = await client.post(PATH, json={"births": [birth(0)]}, headers=v2_headers(key))
    assert response.status_code == 403
    assert response.json()["errorCode"] == "ACCESS_DENIED"


def test_reserve_and_release_many(book: Bookkeeper) -> None:
    issued = book.create_account("developer")
    book.adjust_credits(issued.account.id, 3)
    principal = book.authenticate(issued.api_key)
    assert isinstance(principal, Principal)
    keeper = book
    assert reserve_many(keeper, principal, PATH, 4) is ChargeRefusal.CREDITS_EXHAUSTED
    assert book.account(issued.account.id).balance == 3
    taken = reserve_many(keeper, principal, PATH, 3)
    assert isinstance(taken, list) and len(taken) == 3
    assert all(isinstance(r, Reservation) and r.credits == 1 for r in taken)
    settle_batch(keeper, principal, taken, 2)  # two answered, the third released
    release_many(keeper, principal, taken)  # the committed ones stay committed
    assert book.account(issued.account.id).balance == 1
    assert book.usage(issued.account.id)[-1].calls == 2
    assert book.audit(issued.account.id).balanced


def test_results_written_from_columns_equal_every_chart() -> None:
    """The batch's ChartResults (from the table's columns) are ``to_v2()`` of the same
    charts, over 400 random births 1800-2199 (every type, both signs of epoch time)."""
    import numpy as np

    from bodygraph_server.relations_charting import chart_results

    rng = np.random.default_rng(13)
    first, last = np.datetime64("1800-04-05", "us"), np.datetime64("2199-12-30", "us")
    span = int((last - first).astype(np.int64))
    instants = first + rng.integers(0, span, 400).astype("timedelta64[us]")
    table = bodygraph.calculate_many(instants)
    written, expected = chart_results(table), [chart.to_v2() for chart in table]
    assert json.dumps(written) == json.dumps(expected)  # same values, same member order
    assert {chart.type for chart in table} == set(bodygraph.ChartType)


async def test_openapi_offers_the_idempotency_key_on_every_charged_endpoint(
    client: httpx.AsyncClient,
) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    # /mcp charges its tool calls, one JSON-RPC message a request: no Idempotency-Key;
    # the caller's own account's operations are free: no key
    charged = {path: item["post"] for path, item in paths.items()
               if "post" in item and path != "/mcp" and not path.startswith("/v2/account/")}
    assert PATH in charged
    for path, operation in charged.items():
        assert "Idempotency-Key" in [p["name"] for p in operation["parameters"]], path
        descriptions = {status: answer["description"]
                        for status, answer in operation["responses"].items()}
        assert "IDEMPOTENCY_KEY_IN_USE" in descriptions["409"], path
        assert "IDEMPOTENCY_KEY_REUSED" in descriptions["422"], path
        assert "IDEMPOTENCY_KEY_INVALID" in descriptions["400"], path
