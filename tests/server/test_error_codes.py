"""Every errorCode of contract section 7 is reachable, with its status, in the v2 envelope
(and the v1 error body on v1 paths), with the rate-limit headers."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

import httpx
import pytest

import bodygraph
from bodygraph.errors import BodygraphError
from bodygraph.geo.timezones import TimezoneLookupError
from bodygraph_server import Settings, create_app
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.http.errors import ERROR_TABLE, ErrorCode

from .conftest import charts_for, new_key
from .support import POLICY_RE, STATE_RE, TIMESTAMP_RE, in_process

pytestmark = pytest.mark.anyio

COORDS = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
PLACE = {"birthdate": "1990-07-15", "birthtime": "14:30", "location": "Berlin, Germany"}
V1 = {"birthdate": "15-Jul-90", "birthtime": "14:30", "location": "Berlin, Germany"}


@dataclass(frozen=True)
class Case:
    """One request that must fail with ``code`` and ``status``."""

    code: ErrorCode
    status: int
    path: str
    body: Any = None
    raw: bytes | None = None
    auth: str = "key"  # key | none | wrong | basic
    geocode: bool = True
    plan: str = "developer"
    setup: Callable[[Bookkeeper, int], Any] | None = None
    method: str = "POST"
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def legacy(self) -> bool:
        return self.path.startswith("/v1")

    def request_headers(self, key: str) -> dict[str, str]:
        headers = dict(self.headers)
        token = {"key": key, "wrong": "bg_not-a-key", "none": None, "basic": None}[self.auth]
        if self.auth == "basic":
            headers["Authorization"] = "Basic dXNlcjpwYXNz"
        elif token is not None:
            if self.legacy:
                headers["HD-Api-Key"] = token
            else:
                headers["Authorization"] = f"Bearer {token}"
        if self.geocode:
            headers["HD-Geocode-Key"] = "geo-key"
        return headers


def _zero(book: Bookkeeper, account: int) -> None:
    book.adjust_credits(account, 0)


def _deactivate(book: Bookkeeper, account: int) -> None:
    book.deactivate(account)


CASES = [
    Case(ErrorCode.API_KEY_MISSING, 401, "/v2/charts/coordinates", COORDS, auth="none"),
    Case(ErrorCode.API_KEY_MISSING, 401, "/v2/charts", PLACE, auth="none"),
    Case(ErrorCode.API_KEY_MISSING, 401, "/v1/bodygraphs", V1, auth="none"),
    Case(ErrorCode.API_KEY_INVALID, 401, "/v2/charts/coordinates", COORDS, auth="wrong"),
    Case(ErrorCode.API_KEY_INVALID, 401, "/v1/bodygraphs/simple", V1, auth="wrong"),
    Case(ErrorCode.UNAUTHORIZED, 401, "/v2/charts/coordinates", COORDS, auth="basic"),
    Case(ErrorCode.GEOCODE_KEY_MISSING, 401, "/v2/charts", PLACE, geocode=False),
    Case(ErrorCode.GEOCODE_KEY_MISSING, 401, "/v2/charts/simple", PLACE, geocode=False),
    Case(ErrorCode.GEOCODE_KEY_MISSING, 401, "/v1/bodygraphs", V1, geocode=False),
    Case(ErrorCode.GEOCODE_KEY_MISSING, 401, "/v2/charts", PLACE, geocode=False,
         headers={"HD-Geocode-Key": ""}),
    Case(ErrorCode.GEOCODE_KEY_MISSING, 400, "/v2/visual-charts", PLACE, geocode=False),
    Case(ErrorCode.CREDITS_EXHAUSTED, 402, "/v2/charts/coordinates", COORDS, setup=_zero),
    Case(ErrorCode.CREDITS_EXHAUSTED, 402, "/v1/bodygraphs", V1, setup=_zero),
    Case(ErrorCode.ACCESS_DENIED, 403, "/v2/charts", PLACE, plan="hobbyist"),
    Case(ErrorCode.ACCESS_DENIED, 403, "/v2/visual-charts", PLACE, plan="hobbyist"),
    Case(ErrorCode.ACCESS_DENIED, 403, "/v2/visual-charts/coordinates", COORDS,
         plan="hobbyist"),
    Case(ErrorCode.ACCOUNT_INACTIVE, 403, "/v2/charts/simple", PLACE, setup=_deactivate),
    Case(ErrorCode.INVALID_BIRTHDATE, 400, "/v2/charts/coordinates",
         {**COORDS, "birthdate": "15-07-1990"}),
    Case(ErrorCode.INVALID_BIRTHDATE, 400, "/v2/charts/coordinates",
         {**COORDS, "birthdate": "2023-02-30"}),
    Case(ErrorCode.INVALID_BIRTHDATE, 400, "/v2/charts/coordinates",
         {**COORDS, "birthdate": "1700-01-01"}),
    Case(ErrorCode.INVALID_BIRTHDATE, 400, "/v2/charts/coordinates",
         {**COORDS, "birthdate": "2500-06-01"}),
    Case(ErrorCode.INVALID_BIRTHDATE, 400, "/v2/charts/coordinates",
         {**COORDS, "birthdate": ""}),
    Case(ErrorCode.INVALID_BIRTHDATE, 400, "/v1/bodygraphs", {**V1, "birthdate": "1990-07-15"}),
    Case(ErrorCode.INVALID_BIRTHTIME, 400, "/v2/charts", {**PLACE, "birthtime": "24:00"}),
    Case(ErrorCode.INVALID_BIRTHTIME, 400, "/v2/charts", {**PLACE, "birthtime": "2:30 PM"}),
    Case(ErrorCode.INVALID_LOCATION, 400, "/v2/charts", {**PLACE, "location": "Rom"}),
    Case(ErrorCode.INVALID_LOCATION, 400, "/v2/charts/simple", {**PLACE, "location": "x" * 201}),
    Case(ErrorCode.INVALID_LOCATION, 400, "/v1/bodygraphs", {**V1, "location": ""}),
    Case(ErrorCode.INVALID_LATITUDE, 400, "/v2/charts/coordinates", {**COORDS, "lat": 90.5}),
    Case(ErrorCode.INVALID_LATITUDE, 400, "/v2/charts/coordinates", {**COORDS, "lat": "north"}),
    Case(ErrorCode.INVALID_OPTION, 400, "/v2/astro/coordinates", {**COORDS, "houses": "koch"}),
    Case(ErrorCode.INVALID_LONGITUDE, 400, "/v2/charts/coordinates", {**COORDS, "lng": -181}),
    Case(ErrorCode.MISSING_REQUIRED_FIELD, 400, "/v2/charts/coordinates",
         {k: v for k, v in COORDS.items() if k != "lng"}),
    Case(ErrorCode.MISSING_REQUIRED_FIELD, 400, "/v2/charts", {**PLACE, "location": None}),
    Case(ErrorCode.MISSING_REQUIRED_FIELD, 400, "/v1/bodygraphs", {}),
    Case(ErrorCode.INVALID_REQUEST_BODY, 422, "/v2/charts/coordinates", raw=b"{not json"),
    Case(ErrorCode.INVALID_REQUEST_BODY, 422, "/v2/charts/coordinates", raw=b"[1, 2]"),
    Case(ErrorCode.INVALID_REQUEST_BODY, 422, "/v2/charts/coordinates", raw=b""),
    Case(ErrorCode.INVALID_REQUEST_BODY, 422, "/v2/charts", {**PLACE, "birthdate": 19900715}),
    Case(ErrorCode.INVALID_REQUEST_BODY, 422, "/v1/bodygraphs", raw=b"\x00\x01"),
    Case(ErrorCode.INVALID_REQUEST_BODY, 413, "/v2/charts/coordinates",
         raw=b'{"pad": "' + b"x" * 20_000 + b'"}'),
    Case(ErrorCode.INVALID_REQUEST_BODY, 413, "/v1/bodygraphs",
         {**V1, "location": "x" * 20_000}),
    Case(ErrorCode.GEOCODE_FAILED, 400, "/v2/charts", {**PLACE, "location": "Broken City"}),
    Case(ErrorCode.GEOCODE_KEY_INVALID, 400, "/v2/charts", {**PLACE, "location": "Denied Town"}),
    Case(ErrorCode.GEOCODE_LOCATION_NOT_FOUND, 400, "/v2/charts/simple",
         {**PLACE, "location": "Nowhere Land"}),
    Case(ErrorCode.GEOCODE_LOCATION_NOT_FOUND, 400, "/v1/bodygraphs",
         {**V1, "location": "Nowhere Land"}),
    Case(ErrorCode.GEOCODE_RATE_LIMITED, 429, "/v2/charts", {**PLACE, "location": "Busy City"}),
    Case(ErrorCode.NOT_FOUND, 404, "/v2/unknown", COORDS),
    Case(ErrorCode.NOT_FOUND, 404, "/v2/charts/", COORDS),
    Case(ErrorCode.NOT_FOUND, 404, "/v1/nothing", V1),
    Case(ErrorCode.METHOD_NOT_ALLOWED, 405, "/v2/charts/coordinates", method="GET"),
    Case(ErrorCode.METHOD_NOT_ALLOWED, 405, "/v1/bodygraphs", method="DELETE"),
    Case(ErrorCode.INVALID_LANGUAGE, 400, "/v2/charts/coordinates?lang=xx", COORDS),
    Case(ErrorCode.INVALID_LANGUAGE, 400, "/v2/charts", {**PLACE, "lang": "en-US"}),
    Case(ErrorCode.IDEMPOTENCY_KEY_INVALID, 400, "/v2/charts/coordinates", COORDS,
         headers={"Idempotency-Key": "two words"}),
    Case(ErrorCode.IDEMPOTENCY_KEY_INVALID, 400, "/v1/bodygraphs", V1,
         headers={"Idempotency-Key": "k" * 256}),
    Case(ErrorCode.INVALID_OPTION, 400, "/v2/rectifications",
         {"date": "1980-01-03", "lat": 51.5, "lng": 0.0, "constraints": {"type": "Generatr"}}),
]

#: Codes reached by the dedicated tests below the table.
SPECIAL = {
    ErrorCode.RATE_LIMIT_EXCEEDED, ErrorCode.TIMEZONE_LOOKUP_FAILED, ErrorCode.EPHEMERIS_ERROR,
    ErrorCode.CHART_GENERATION_FAILED, ErrorCode.INTERNAL_ERROR,
    # tests/server_store/test_idempotency.py and tests/faults:
    ErrorCode.IDEMPOTENCY_KEY_REUSED, ErrorCode.IDEMPOTENCY_KEY_IN_USE,
    ErrorCode.SERVICE_UNAVAILABLE,
}


def test_every_code_is_exercised() -> None:
    assert {case.code for case in CASES} | SPECIAL == set(ErrorCode)
    for case in CASES:
        visual_key_missing = (case.path == "/v2/visual-charts"
                              and case.code is ErrorCode.GEOCODE_KEY_MISSING)
        if not visual_key_missing and case.status not in (413,):
            assert ERROR_TABLE[case.code].status == case.status


def check_error(response: httpx.Response, status: int, code: ErrorCode, legacy: bool) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    if legacy:
        assert body == {"status": "error", "code": status, "message": body["message"]}
        assert body["message"]
    else:
        assert set(body) == {"timestamp", "success", "message", "errorCode", "type", "data"}
        assert body["success"] is False
        assert body["errorCode"] == code.value
        assert body["type"] == ""
        assert body["data"] is None
        assert body["message"]
        assert TIMESTAMP_RE.match(body["timestamp"])
    assert POLICY_RE.match(response.headers["ratelimit-policy"])
    assert STATE_RE.match(response.headers["ratelimit"])
    assert len(response.headers["x-request-id"]) == 32
    assert ("retry-after" in response.headers) == (code is ErrorCode.RATE_LIMIT_EXCEEDED)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.code.value}-{c.path}")
async def test_error_case(case: Case, db_url: str, book: Bookkeeper, google_url: str) -> None:
    issued = book.create_account(case.plan)
    if case.setup is not None:
        case.setup(book, issued.account.id)
    settings = Settings(database_url=db_url, geocoder="google", geocoder_url=google_url,
                        warm_up=False, max_body_bytes=16_384)
    app = create_app(settings, book=book, charts=charts_for(google_url))
    before = book.account(issued.account.id).balance
    async with in_process(app) as client:
        kwargs: dict[str, Any] = {"headers": case.request_headers(issued.api_key)}
        if case.raw is not None:
            kwargs["content"] = case.raw
        elif case.body is not None and case.method == "POST":
            kwargs["json"] = case.body
        response = await client.request(case.method, case.path, **kwargs)
    check_error(response, case.status, case.code, case.legacy)
    if case.setup is None:
        assert book.account(issued.account.id).balance == before


async def test_rate_limit(client: httpx.AsyncClient, book: Bookkeeper, clock: Any) -> None:
    key = new_key(book)
    headers = {"Authorization": f"Bearer {key}"}
    remaining = []
    for _ in range(100):
        response = await client.post("/v2/charts/coordinates", json={**COORDS, "lat": 100},
                                     headers=headers)
        assert response.status_code == 400
        match = STATE_RE.match(response.headers["ratelimit"])
        assert match
        remaining.append(int(match.group(1)))
        assert "retry-after" not in response.headers
    assert remaining == list(range(99, -1, -1))
    refused = await client.post("/v2/charts/coordinates", json=COORDS, headers=headers)
    check_error(refused, 429, ErrorCode.RATE_LIMIT_EXCEEDED, legacy=False)
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    legacy = await client.post("/v1/bodygraphs", json=V1, headers={"HD-Api-Key": key,
                                                                    "HD-Geocode-Key": "g"})
    check_error(legacy, 429, ErrorCode.RATE_LIMIT_EXCEEDED, legacy=True)
    other = await client.post("/v2/charts/coordinates", json=COORDS,
                              headers={"Authorization": f"Bearer {new_key(book)}"})
    assert other.status_code == 200  # the limit is per key
    clock.advance(61)
    again = await client.post("/v2/charts/coordinates", json=COORDS, headers=headers)
    assert again.status_code == 200


async def test_tier_is_checked_before_the_rate_limit(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    key = new_key(book, "hobbyist")
    headers = {"Authorization": f"Bearer {key}", "HD-Geocode-Key": "g"}
    for _ in range(100):
        await client.post("/v2/charts/simple", json={}, headers=headers)
    denied = await client.post("/v2/charts", json=PLACE, headers=headers)
    check_error(denied, 403, ErrorCode.ACCESS_DENIED, legacy=False)
    limited = await client.post("/v2/charts/simple", json=PLACE, headers=headers)
    check_error(limited, 429, ErrorCode.RATE_LIMIT_EXCEEDED, legacy=False)


class Failing:
    """A chart source that fails the way ``exc`` says."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    async def from_coordinates(
        self, birthdate: date, birthtime: time, lat: float, lng: float
    ) -> Any:
        raise self.exc

    async def from_place(self, birthdate: date, birthtime: time, place: str, key: str) -> Any:
        raise self.exc

    def upcoming(self) -> AbstractContextManager[None]:
        return nullcontext()


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (TimezoneLookupError("no zone for 52.52, 13.405"), ErrorCode.TIMEZONE_LOOKUP_FAILED),
        (BodygraphError("1990-07-15 14:30 went wrong"), ErrorCode.CHART_GENERATION_FAILED),
        (RuntimeError("1990-07-15 14:30 at 52.52, 13.405"), ErrorCode.INTERNAL_ERROR),
        (ZeroDivisionError(), ErrorCode.INTERNAL_ERROR),
    ],
)
async def test_server_failures(
    exc: BaseException, code: ErrorCode, settings: Settings, book: Bookkeeper,
    caplog: pytest.LogCaptureFixture,
) -> None:
    issued = book.create_account("developer")
    before = book.account(issued.account.id).balance
    app = create_app(settings, book=book, charts=Failing(exc))
    caplog.set_level(logging.INFO)
    async with in_process(app) as client:
        response = await client.post("/v2/charts/coordinates", json=COORDS,
                                     headers={"Authorization": f"Bearer {issued.api_key}"})
        legacy = await client.post("/v1/bodygraphs", json=V1,
                                   headers={"HD-Api-Key": issued.api_key, "HD-Geocode-Key": "g"})
    check_error(response, 500, code, legacy=False)
    check_error(legacy, 500, code, legacy=True)
    request_id = response.headers["x-request-id"]
    assert request_id in response.json()["message"]
    assert request_id in caplog.text
    logged = caplog.text  # without the request ids (32 random hex digits may hold "1990")
    for answer in (response, legacy):
        logged = logged.replace(answer.headers["x-request-id"], "<id>")
    for secret in ("1990", "14:30", "52.52", "13.405", "Berlin"):
        assert secret not in logged
    assert "Traceback" not in response.text
    assert book.account(issued.account.id).balance == before


async def test_ephemeris_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, client: httpx.AsyncClient,
    book: Bookkeeper,
) -> None:
    broken = tmp_path / "broken.bsp"
    broken.write_bytes(b"this is not a JPL kernel" * 100)
    monkeypatch.setenv("BODYGRAPH_EPHEMERIS", str(broken))
    key = new_key(book)
    response = await client.post("/v2/charts/coordinates", json=COORDS,
                                 headers={"Authorization": f"Bearer {key}"})
    check_error(response, 500, ErrorCode.EPHEMERIS_ERROR, legacy=False)


async def test_time_out_releases_the_credit(
    settings: Settings, book: Bookkeeper
) -> None:
    import threading

    import anyio.to_thread

    gate = threading.Event()

    def slow_chart() -> bodygraph.Chart:
        gate.wait(10)
        return bodygraph.calculate(datetime(1990, 7, 15, 12, 30, tzinfo=UTC))

    class Slow:
        async def from_coordinates(self, *args: Any) -> Any:
            return await anyio.to_thread.run_sync(slow_chart, abandon_on_cancel=True)

        def upcoming(self) -> AbstractContextManager[None]:
            return nullcontext()

        from_place = from_coordinates

    issued = book.create_account("developer")
    before = book.account(issued.account.id).balance
    app = create_app(settings.with_changes(request_timeout=0.3), book=book, charts=Slow())
    async with in_process(app) as client:
        response = await client.post("/v2/charts/coordinates", json=COORDS,
                                     headers={"Authorization": f"Bearer {issued.api_key}"})
    check_error(response, 500, ErrorCode.INTERNAL_ERROR, legacy=False)
    assert "timed out" in response.json()["message"]
    gate.set()
    assert book.account(issued.account.id).balance == before
    assert book.usage(issued.account.id)[-1].pending == 0
