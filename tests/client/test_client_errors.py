"""Refusals of the real service map to the client's error families, with the service's
errorCode, message and status, and none of them is retried: for every method a bad input
and, for the extensions, a Basic key (AccessDenied)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from server.support import free_port

from bodygraph_client import (
    AccessDenied,
    AsyncClient,
    AuthError,
    Birth,
    BodygraphApiError,
    Call,
    Client,
    CreditsExhausted,
    Endpoint,
    EndpointNotFound,
    GeocodeError,
    InvalidInput,
    Place,
    RateLimited,
    RetryPolicy,
    ServiceUnreachable,
)

from .conftest import Service, async_loopback, loopback
from .samples import AT, BERLIN, PARIS

LONDON = Place(lat=51.5074, lng=-0.1278)

pytestmark = pytest.mark.timeout(300)

PLACE = ("1990-07-15", "14:30", "Berlin, Germany")
COORDS = (52.52, 13.405, "1990-07-15", "14:30")
V1 = ("15-Jul-90", "14:30", "Berlin, Germany")


def _zero(service: Service, account: int) -> None:
    service.book.adjust_credits(account, 0)


def _deactivate(service: Service, account: int) -> None:
    service.book.deactivate(account)


@dataclass(frozen=True)
class Case:
    error: type[BodygraphApiError]
    code: str
    status: int
    method: str
    args: tuple[Any, ...]
    plan: str = "developer"
    key: str | None = None  # None: the account's own key
    geocode_key: str | None = "geo-key"
    setup: Callable[[Service, int], None] | None = None
    geocoder: str = "offline"  # of the service asked; "google" needs the caller's key


CASES = [
    Case(AuthError, "API_KEY_INVALID", 401, "chart_at", COORDS, key="bg_not-a-key"),
    Case(AuthError, "", 401, "v1_bodygraph", V1, key="bg_not-a-key"),
    Case(AccessDenied, "ACCESS_DENIED", 403, "chart", PLACE, plan="hobbyist"),
    Case(AccessDenied, "ACCESS_DENIED", 403, "visual_chart_at", COORDS, plan="hobbyist"),
    Case(AccessDenied, "", 403, "v1_bodygraph", V1, plan="hobbyist"),
    Case(AccessDenied, "ACCOUNT_INACTIVE", 403, "simple_chart", PLACE, setup=_deactivate),
    Case(CreditsExhausted, "CREDITS_EXHAUSTED", 402, "chart_at", COORDS, setup=_zero),
    Case(CreditsExhausted, "", 402, "v1_simple_bodygraph", V1, setup=_zero),
    Case(GeocodeError, "GEOCODE_KEY_MISSING", 401, "chart", PLACE, geocode_key=None,
         geocoder="google"),
    Case(GeocodeError, "GEOCODE_KEY_MISSING", 400, "visual_chart", PLACE, geocode_key=None,
         geocoder="google"),
    Case(GeocodeError, "GEOCODE_LOCATION_NOT_FOUND", 400, "chart",
         ("1990-07-15", "14:30", "Qqqxzv Wwwjjk")),
    Case(InvalidInput, "INVALID_BIRTHDATE", 400, "chart_at", (52.52, 13.405, "15.07.1990",
                                                              "14:30")),
    Case(InvalidInput, "INVALID_BIRTHTIME", 400, "chart", ("1990-07-15", "2:30 pm", "Berlin")),
    Case(InvalidInput, "INVALID_LATITUDE", 400, "chart_at", (95.0, 13.4, "1990-07-15",
                                                             "14:30")),
    Case(InvalidInput, "INVALID_LONGITUDE", 400, "visual_chart_at", (52.5, 181.0,
                                                                     "1990-07-15", "14:30")),
    Case(InvalidInput, "INVALID_LOCATION", 400, "simple_chart", ("1990-07-15", "14:30", "Ber")),
    Case(InvalidInput, "", 400, "v1_bodygraph", ("1990-07-15", "14:30", "Berlin, Germany")),
]
BASIC = [  # every extension, valid input: the tier decides
    ("transit", (AT, BERLIN)), ("connection", (BERLIN, PARIS)),
    ("penta", ([BERLIN] * 3,)), ("sensitivity", (BERLIN,)), ("cycles", (BERLIN, 2000)),
    ("calendar", ("2024-01-01", "2024-01-01")), ("charts_batch", ([BERLIN],)),
    ("stability", (BERLIN,)), ("rectify", (LONDON, "1980-01-03", {"profile": "3/5"})),
]
CASES += [Case(AccessDenied, "ACCESS_DENIED", 403, method, args, plan="hobbyist")
          for method, args in BASIC] + [
    Case(InvalidInput, "INVALID_REQUEST_BODY", 422, "transit", ("2024-02-30T00:00:00Z",)),
    Case(InvalidInput, "INVALID_LATITUDE", 400, "transit",
         (AT, Birth.at(95.0, 0.0, "1990-07-15", "14:30"))),
    Case(InvalidInput, "INVALID_BIRTHDATE", 400, "connection",
         (BERLIN, Birth.place("15.07.1990", "14:30", "Berlin, Germany"))),
    Case(GeocodeError, "GEOCODE_KEY_MISSING", 401, "connection", (BERLIN, PARIS),
         geocode_key=None,
         geocoder="google"),
    Case(InvalidInput, "INVALID_REQUEST_BODY", 422, "penta", ([BERLIN, PARIS],)),
    Case(InvalidInput, "INVALID_REQUEST_BODY", 422, "sensitivity", (BERLIN, 0)),
    Case(InvalidInput, "INVALID_BIRTHTIME", 400, "sensitivity",
         (Birth.at(52.52, 13.405, "1990-07-15", "25:00"),)),
    Case(InvalidInput, "INVALID_REQUEST_BODY", 422, "cycles", (BERLIN, 1985)),
    Case(InvalidInput, "INVALID_REQUEST_BODY", 422, "calendar", ("2024-01-02", "2024-01-01")),
    Case(InvalidInput, "INVALID_REQUEST_BODY", 422, "calendar",
         ("2024-01-01", "2024-01-02", ["sun", "sun"])),
    Case(InvalidInput, "INVALID_REQUEST_BODY", 422, "charts_batch", ([],)),
    Case(CreditsExhausted, "CREDITS_EXHAUSTED", 402, "charts_batch", ([BERLIN],), setup=_zero),
    Case(InvalidInput, "INVALID_OPTION", 400, "stability", (BERLIN, 2881)),
    Case(InvalidInput, "INVALID_OPTION", 400, "rectify",
         (LONDON, "1980-01-03", {"profile": "1/5"})),
    Case(InvalidInput, "INVALID_OPTION", 400, "rectify", (LONDON, "1980-01-03", {})),
    Case(GeocodeError, "GEOCODE_KEY_MISSING", 401, "rectify",
         (Place(location="London, United Kingdom"), "1980-01-03", {"type": "Generator"}),
         geocode_key=None, geocoder="google"),
]
IDS = [f"{c.code or c.status}-{c.method}-{i}" for i, c in enumerate(CASES)]


def _service(request: pytest.FixtureRequest, case: Case) -> Service:
    """The shared service (offline gazetteer), or the module's Google one."""
    name = "google_service" if case.geocoder == "google" else "service"
    service: Service = request.getfixturevalue(name)
    return service


def _key(service: Service, case: Case) -> str:
    issued = service.account(case.plan)
    if case.setup is not None:
        case.setup(service, issued.account.id)
    return case.key or issued.api_key


def _check(case: Case, error: BodygraphApiError, slept: list[float]) -> None:
    assert type(error) is case.error
    assert (error.error_code, error.status) == (case.code, case.status)
    assert error.message and error.message in str(error)
    assert slept == []  # never retried


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sync_error(request: pytest.FixtureRequest, case: Case) -> None:
    service = _service(request, case)
    slept: list[float] = []
    with Client(_key(service, case), base_url=service.base_url, geocode_key=case.geocode_key,
                sleep=slept.append, transport=loopback()) as client, \
            pytest.raises(BodygraphApiError) as caught:
        getattr(client, case.method)(*case.args)
    _check(case, caught.value, slept)


@pytest.mark.anyio
@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_async_error(request: pytest.FixtureRequest, case: Case) -> None:
    service = _service(request, case)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async with AsyncClient(_key(service, case), base_url=service.base_url,
                           geocode_key=case.geocode_key, sleep=sleep,
                           transport=async_loopback()) as client:
        with pytest.raises(BodygraphApiError) as caught:
            await getattr(client, case.method)(*case.args)
    _check(case, caught.value, slept)


def test_unknown_endpoint(service: Service) -> None:
    with Client(service.key(), base_url=service.base_url, transport=loopback()) as client, \
            pytest.raises(EndpointNotFound) as caught:
        client.send(Call(Endpoint("/v2/no-such-endpoint"), {}, dict))
    assert (caught.value.error_code, caught.value.status) == ("NOT_FOUND", 404)


def test_rate_limit_is_waited_for_then_raised(service: Service) -> None:
    slept: list[float] = []
    key = service.key()
    with Client(key, base_url=service.base_url, retry=RetryPolicy(backoff=()),
                transport=loopback()) as client:
        for _ in range(100):
            with pytest.raises(InvalidInput):
                client.chart_at(95.0, 0.0, "1990-07-15", "14:30")
        assert client.rate_limit.remaining == 0
        with pytest.raises(RateLimited) as caught:
            client.chart_at(*COORDS)
    first = caught.value
    assert (first.error_code, first.status) == ("RATE_LIMIT_EXCEEDED", 429)
    assert first.retry_after is not None and 0 < first.retry_after <= 60
    with Client(key, base_url=service.base_url, sleep=slept.append,
                transport=loopback()) as client, pytest.raises(RateLimited) as caught:
        client.chart_at(*COORDS)
    # the contract's rule: wait Retry-After, at most three retries, then give up
    assert len(slept) == 3 and all(0 < s <= 60 for s in slept)
    assert caught.value.retry_after == slept[-1]


def test_empty_key_is_refused_before_any_request() -> None:
    with pytest.raises(ValueError, match="API key"):
        Client("")


def test_service_unreachable() -> None:
    with Client("key", base_url=f"http://127.0.0.1:{free_port()}") as client, \
            pytest.raises(ServiceUnreachable, match=r"127\.0\.0\.1"):
        client.chart_at(*COORDS)
