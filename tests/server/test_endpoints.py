"""Every endpoint's success response, the plan (tier) rules and the charging rules,
in process. Expected charts come from the library directly, with the zone of the place
named here (not looked up by the service's code)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from contract_schemas import validate_contract as validate

import bodygraph
from bodygraph_server.billing.accounts import Bookkeeper, Principal

from .conftest import new_key, v1_headers, v2_headers
from .support import POLICY_RE, STATE_RE, TIMESTAMP_RE

pytestmark = pytest.mark.anyio

BERLIN = ZoneInfo("Europe/Berlin")
BIRTH = {"birthdate": "1990-07-15", "birthtime": "14:30"}
PLACE = {**BIRTH, "location": "Berlin, Germany"}
COORDS = {**BIRTH, "lat": 52.52, "lng": 13.405}
V1 = {"birthdate": "15-Jul-90", "birthtime": "14:30", "location": "Berlin, Germany"}
ENVELOPE_KEYS = {"timestamp", "success", "message", "errorCode", "type", "data"}


def expected() -> bodygraph.Chart:
    return bodygraph.calculate(datetime(1990, 7, 15, 14, 30, tzinfo=BERLIN))


def account_id(book: Bookkeeper, key: str) -> int:
    principal = book.authenticate(key)
    assert isinstance(principal, Principal)
    return principal.account_id


def balance(book: Bookkeeper, key: str) -> int:
    return book.account(account_id(book, key)).balance


def check_envelope(body: dict[str, Any], type_name: str, message: str,
                   siblings: frozenset[str] = frozenset()) -> None:
    assert set(body) == ENVELOPE_KEYS | siblings
    assert body["success"] is True
    assert body["errorCode"] == ""
    assert body["type"] == type_name
    assert body["message"] == message
    assert TIMESTAMP_RE.match(body["timestamp"])


async def test_full_chart_from_coordinates(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await client.post("/v2/charts/coordinates", json=COORDS,
                                 headers=v2_headers(key, geocode=None))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    check_envelope(body, "ChartResult", "Chart generated from coordinates")
    assert body["data"] == expected().to_v2()
    validate(body["data"], "chart-result")
    assert balance(book, key) == before - 1


async def test_full_chart_from_place(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book, "scale")
    response = await client.post("/v2/charts", json=PLACE, headers=v2_headers(key))
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "ChartResult", "Chart generated", frozenset({"place"}))
    assert body["place"]["name"] == "Berlin, Germany"
    assert body["data"] == expected().to_v2()
    assert body["data"]["birthDateUtc"] == "1990-07-15T12:30:00.000Z"  # CEST = UTC+2


async def test_simple_chart(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book, "hobbyist")
    response = await client.post("/v2/charts/simple", json=PLACE, headers=v2_headers(key))
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "ChartSimpleResult", "Chart generated", frozenset({"place"}))
    assert body["data"] == expected().to_v2_simple()
    validate(body["data"], "chart-simple-result")


async def test_v1_bodygraph(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book, "lifetime")
    response = await client.post("/v1/bodygraphs", json=V1, headers=v1_headers(key))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body == expected().to_v1()
    validate(body, "v1-bodygraph")


async def test_v1_simple(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book, "hobbyist")
    response = await client.post("/v1/bodygraphs/simple", json=V1, headers=v1_headers(key))
    assert response.status_code == 200, response.text
    assert response.json() == expected().to_v1_simple()
    validate(response.json(), "v1-bodygraph-simple")


async def test_same_input_same_chart(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    first = await client.post("/v2/charts/coordinates", json=COORDS, headers=v2_headers(key))
    second = await client.post("/v2/charts/coordinates", json=COORDS, headers=v2_headers(key))
    assert first.json()["data"] == second.json()["data"]


ADVANCED_ONLY = [
    ("/v2/charts", PLACE, False),
    ("/v2/charts/coordinates", COORDS, False),
    ("/v1/bodygraphs", V1, True),
]


@pytest.mark.parametrize(("path", "body", "legacy"), ADVANCED_ONLY)
async def test_basic_tier_is_refused_above_it(
    client: httpx.AsyncClient, book: Bookkeeper, path: str, body: dict[str, Any], legacy: bool
) -> None:
    key = new_key(book, "hobbyist")
    before = balance(book, key)
    headers = v1_headers(key) if legacy else v2_headers(key)
    response = await client.post(path, json=body, headers=headers)
    assert response.status_code == 403
    if legacy:
        assert response.json() == {"status": "error", "code": 403,
                                   "message": response.json()["message"]}
    else:
        assert response.json()["errorCode"] == "ACCESS_DENIED"
    assert balance(book, key) == before


@pytest.mark.parametrize("plan", ["developer", "scale", "lifetime"])
@pytest.mark.parametrize(
    ("path", "body", "legacy"),
    [*ADVANCED_ONLY, ("/v2/charts/simple", PLACE, False), ("/v1/bodygraphs/simple", V1, True)],
)
async def test_advanced_plans_reach_every_endpoint(
    client: httpx.AsyncClient, book: Bookkeeper, plan: str, path: str,
    body: dict[str, Any], legacy: bool,
) -> None:
    key = new_key(book, plan)
    headers = v1_headers(key) if legacy else v2_headers(key)
    response = await client.post(path, json=body, headers=headers)
    assert response.status_code == 200, response.text


async def test_v1_and_v2_share_one_pool(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    before = balance(book, key)
    await client.post("/v1/bodygraphs", json=V1, headers=v1_headers(key))
    await client.post("/v2/charts", json=PLACE, headers=v2_headers(key))
    assert balance(book, key) == before - 2


async def test_failures_cost_nothing(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    before = balance(book, key)
    bad = [
        {**COORDS, "lat": 100},
        {**COORDS, "birthdate": "2023-02-30"},
        {**COORDS, "birthdate": "1700-01-01"},
    ]
    for body in bad:
        response = await client.post("/v2/charts/coordinates", json=body,
                                     headers=v2_headers(key))
        assert response.status_code == 400
    response = await client.post("/v2/charts", json={**PLACE, "location": "Qq"},
                                 headers=v2_headers(key))
    assert response.json()["errorCode"] == "INVALID_LOCATION"
    assert balance(book, key) == before


async def test_exhausted_credits_and_overage(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    account = book.account(account_id(book, key))
    book.adjust_credits(account.id, 1)
    ok = await client.post("/v2/charts/coordinates", json=COORDS, headers=v2_headers(key))
    assert ok.status_code == 200
    refused = await client.post("/v2/charts/coordinates", json=COORDS, headers=v2_headers(key))
    assert refused.status_code == 402
    assert refused.json()["errorCode"] == "CREDITS_EXHAUSTED"
    legacy = await client.post("/v1/bodygraphs", json=V1, headers=v1_headers(key))
    assert legacy.status_code == 402
    assert legacy.json()["code"] == 402
    book.set_overage(account.id, True)
    overage = await client.post("/v2/charts/coordinates", json=COORDS, headers=v2_headers(key))
    assert overage.status_code == 200
    assert book.usage(account.id)[-1].overage_calls == 1


async def test_validation_comes_before_credits(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    key = new_key(book)
    account = book.account(account_id(book, key))
    book.adjust_credits(account.id, 0)
    response = await client.post("/v2/charts/coordinates", json={**COORDS, "lat": 91},
                                 headers=v2_headers(key))
    assert response.json()["errorCode"] == "INVALID_LATITUDE"


async def test_rotated_and_deactivated_keys(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    account = book.account(account_id(book, key))
    new = book.rotate_key(account.id).api_key
    old = await client.post("/v2/charts/coordinates", json=COORDS, headers=v2_headers(key))
    assert (old.status_code, old.json()["errorCode"]) == (401, "API_KEY_INVALID")
    fresh = await client.post("/v2/charts/coordinates", json=COORDS, headers=v2_headers(new))
    assert fresh.status_code == 200
    book.deactivate(account.id)
    inactive = await client.post("/v2/charts/coordinates", json=COORDS, headers=v2_headers(new))
    assert (inactive.status_code, inactive.json()["errorCode"]) == (403, "ACCOUNT_INACTIVE")
    legacy = await client.post("/v1/bodygraphs", json=V1, headers=v1_headers(new))
    assert legacy.json() == {"status": "error", "code": 403, "message": "Account is inactive"}


async def test_rate_limit_headers_on_success(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    first = await client.post("/v2/charts/coordinates", json=COORDS, headers=v2_headers(key))
    second = await client.post("/v2/charts/coordinates", json=COORDS, headers=v2_headers(key))
    for response in (first, second):
        assert POLICY_RE.match(response.headers["ratelimit-policy"])
        assert "retry-after" not in response.headers
    assert first.headers["ratelimit-policy"] == second.headers["ratelimit-policy"]
    assert STATE_RE.match(first.headers["ratelimit"]).group(1) == "99"  # type: ignore[union-attr]
    assert STATE_RE.match(second.headers["ratelimit"]).group(1) == "98"  # type: ignore[union-attr]
    other = await client.post("/v2/charts/coordinates", json=COORDS,
                              headers=v2_headers(new_key(book)))
    assert other.headers["ratelimit-policy"] != first.headers["ratelimit-policy"]  # own pk
    assert key not in first.headers["ratelimit-policy"]


async def test_anonymous_requests_are_not_counted(client: httpx.AsyncClient) -> None:
    for _ in range(3):
        response = await client.post("/v2/charts/coordinates", json=COORDS)
        assert response.status_code == 401
        assert response.headers["ratelimit"] == '"100-in-1min"; r=100; t=60'
        assert POLICY_RE.match(response.headers["ratelimit-policy"])


async def test_service_pages_carry_no_rate_headers(client: httpx.AsyncClient) -> None:
    for path in ("/openapi.json", "/docs", "/health"):
        response = await client.get(path)
        assert response.status_code == 200
        assert "ratelimit" not in response.headers
        assert len(response.headers["x-request-id"]) == 32


async def test_content_type_is_not_required(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    import json as jsonlib

    key = new_key(book)
    response = await client.post("/v2/charts/coordinates", content=jsonlib.dumps(COORDS),
                                 headers={**v2_headers(key), "Content-Type": "text/plain"})
    assert response.status_code == 200


async def test_case_of_the_bearer_scheme(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = new_key(book)
    response = await client.post("/v2/charts/coordinates", json=COORDS,
                                 headers={"Authorization": f"bearer   {key}"})
    assert response.status_code == 200
