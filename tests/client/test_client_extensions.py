"""The extension methods of both clients against the real service (uvicorn on 127.0.0.1):
each result validates against the ``data`` schema of the service's own ``/openapi.json``
and equals what the library computes in this process for the same births (through the
service's own builders, ``bodygraph_server.relations_charting``); its typed dictionary
matches that schema. The refusals (a bad input of each, a Basic key: AccessDenied) are in
``test_client_errors``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

import pytest

import bodygraph
from bodygraph_client import (
    AsyncClient,
    Birth,
    CalendarResult,
    ChartBatchResult,
    Client,
    ConnectionResult,
    CyclesResult,
    PentaResult,
    Place,
    RectificationResult,
    SensitivityResult,
    StabilityResult,
    TransitResult,
)
from bodygraph_server.relations_charting import (
    calendar_data,
    connection_data,
    cycles_data,
    penta_data,
    sensitivity_data,
    transit_of,
)

from .conftest import Service, async_loopback, loopback
from .samples import AT, BERLIN, PARIS
from .schema_check import conforms

pytestmark = pytest.mark.timeout(300)


def chart(zone: str, year: int, month: int, day: int, hour: int, minute: int
          ) -> bodygraph.Chart:
    return bodygraph.calculate(datetime(year, month, day, hour, minute, tzinfo=ZoneInfo(zone)))


def berlin() -> bodygraph.Chart:
    return chart("Europe/Berlin", 1990, 7, 15, 14, 30)


def paris() -> bodygraph.Chart:
    return chart("Europe/Paris", 1985, 1, 2, 8, 0)


@dataclass(frozen=True, eq=False)  # hashed by identity: expected_data's cache
class Case:
    method: str
    args: tuple[Any, ...]
    schema: str
    expected: Callable[[], dict[str, Any]]
    charged: int = 1
    options: dict[str, Any] = field(default_factory=dict)


def stability_of(birth: bodygraph.Chart, minutes: int) -> dict[str, Any]:
    from bodygraph.relations import stability

    return stability(birth.birth_utc, timedelta(minutes=minutes)).to_dict()


def rectified(day: date, last: date | None = None, **known: Any) -> dict[str, Any]:
    from bodygraph.relations import constraints, rectify

    return rectify(day, constraints(**known), zone=ZoneInfo("Europe/London"),
                   last_day=last).to_dict()


LONDON = Place(lat=51.5074, lng=-0.1278)


CASES = [
    Case("transit", (AT,), "TransitResult", lambda: transit_of(AT, None).to_dict()),
    Case("transit", ("2024-03-20T03:06:00Z", PARIS), "TransitResult",
         lambda: transit_of(AT, paris()).to_dict()),
    Case("connection", (BERLIN, PARIS), "ConnectionResult",
         lambda: connection_data(berlin(), paris()).data),
    Case("penta", ([BERLIN, PARIS, Birth.at(40.7128, -74.006, "2001-09-09", "23:15")],),
         "PentaResult", lambda: penta_data(
             [berlin(), paris(), chart("America/New_York", 2001, 9, 9, 23, 15)]).data),
    Case("sensitivity", (BERLIN, 30), "SensitivityResult",
         lambda: sensitivity_data(berlin(), 30).data),
    Case("sensitivity", (PARIS,), "SensitivityResult",
         lambda: sensitivity_data(paris(), 120).data),
    Case("cycles", (BERLIN, 2024), "CyclesResult", lambda: cycles_data(berlin(), 2024).data),
    Case("calendar", (date(2024, 1, 1), "2024-01-02", ["sun", "moon"], "line"),
         "CalendarResult",
         lambda: calendar_data(date(2024, 1, 1), date(2024, 1, 2), ["sun", "moon"],
                               "line").data),
    Case("calendar", ("2024-03-01", "2024-03-31"), "CalendarResult",
         lambda: calendar_data(date(2024, 3, 1), date(2024, 3, 31),
                               [b.value for b in bodygraph.model.chart.BODIES], "gate").data),
    Case("charts_batch", ([BERLIN, Birth.at(95.0, 0.0, "1990-07-15", "14:30"), BERLIN],),
         "ChartBatchResult", lambda: {"results": [berlin().to_v2(), {
             "errorCode": "INVALID_LATITUDE", "message": ""}, berlin().to_v2()]}, charged=2),
    Case("stability", (BERLIN, 60), "StabilityResult", lambda: stability_of(berlin(), 60)),
    Case("stability", (PARIS,), "StabilityResult", lambda: stability_of(paris(), 720)),
    Case("rectify", (LONDON, date(1980, 1, 3), {"profile": "3/5", "type": "Generator"}),
         "RectificationResult", lambda: rectified(date(1980, 1, 3), profile="3/5",
                                                  type="Generator")),
    Case("rectify", (Place(location="London, United Kingdom"), "1980-01-03",
                     {"centers": ["Sacral"], "gates": [38]}), "RectificationResult",
         lambda: rectified(date(1980, 1, 3), date(1980, 1, 4), centers=["Sacral"],
                           gates=[38]), options={"to_day": date(1980, 1, 4)}),
]
IDS = [f"{c.method}-{i}" for i, c in enumerate(CASES)]




@cache
def expected_data(case: Case) -> dict[str, Any]:
    """What the library computes for ``case`` (one of :data:`CASES`), once for its sync
    and its async test: the sensitivity, cycles and calendar cases take 10-50 ms each."""
    return case.expected()


def check(case: Case, result: Any, openapi: dict[str, Any]) -> None:
    import jsonschema

    schema = {**openapi, "$ref": f"#/components/schemas/{case.schema}"}
    jsonschema.Draft202012Validator(schema).validate(result)
    expected = expected_data(case)
    if case.method == "charts_batch":  # a slot's message is the service's wording
        for slot in result["results"]:
            if "errorCode" in slot:
                assert slot["message"]
                slot["message"] = ""
    assert result == expected


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sync_method(service: Service, openapi: dict[str, Any], case: Case) -> None:
    issued = service.account()
    with Client(issued.api_key, base_url=service.base_url, geocode_key="geo-key",
                transport=loopback()) as client:
        result = getattr(client, case.method)(*case.args, **case.options)
        assert client.rate_limit.remaining == 99
    check(case, result, openapi)
    service.assert_charged(issued.account.id, case.charged)


@pytest.mark.anyio
@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_async_method(service: Service, openapi: dict[str, Any], case: Case) -> None:
    issued = service.account()
    async with AsyncClient(issued.api_key, base_url=service.base_url,
                           geocode_key="geo-key", transport=async_loopback()) as client:
        result = await getattr(client, case.method)(*case.args, **case.options)
    check(case, result, openapi)
    service.assert_charged(issued.account.id, case.charged)


TYPES = [
    (TransitResult, "TransitResult"), (ConnectionResult, "ConnectionResult"),
    (PentaResult, "PentaResult"), (SensitivityResult, "SensitivityResult"),
    (CyclesResult, "CyclesResult"), (CalendarResult, "CalendarResult"),
    (ChartBatchResult, "ChartBatchResult"), (StabilityResult, "StabilityResult"),
    (RectificationResult, "RectificationResult"),
]


@pytest.mark.parametrize(("kind", "name"), TYPES, ids=[t[1] for t in TYPES])
def test_typed_dict_matches_openapi(openapi: dict[str, Any], kind: Any, name: str) -> None:
    conforms(kind, {"$ref": f"#/components/schemas/{name}"}, name, openapi)


def test_birth_needs_coordinates_or_a_place() -> None:
    for wrong in ({}, {"lat": 1.0}, {"lat": 1.0, "lng": 2.0, "location": "Berlin"}):
        with pytest.raises(ValueError, match="lat and lng, or a location"):
            Birth("1990-07-15", "14:30", **wrong)
    assert BERLIN.body() == {"birthdate": "1990-07-15", "birthtime": "14:30",
                             "lat": 52.52, "lng": 13.405}
    assert PARIS.body() == {"birthdate": "1985-01-02", "birthtime": "08:00",
                            "location": "Paris, France"}


def test_place_needs_coordinates_or_a_name() -> None:
    for wrong in ({}, {"lat": 1.0}, {"lat": 1.0, "lng": 2.0, "location": "London"}):
        with pytest.raises(ValueError, match="lat and lng, or a location"):
            Place(**wrong)
    assert LONDON.body() == {"lat": 51.5074, "lng": -0.1278}


def test_refused_before_sending() -> None:
    with Client("key", base_url="http://127.0.0.1:9") as client:
        with pytest.raises(ValueError, match="by coordinates"):
            client.charts_batch([BERLIN, PARIS])
        with pytest.raises(ValueError, match="aware datetime"):
            client.transit(datetime(2024, 3, 20, 3, 6))


def test_instant_in_any_zone_is_sent_in_utc(service: Service) -> None:
    east = timezone(timedelta(hours=5, minutes=30))
    with Client(service.key(), base_url=service.base_url, transport=loopback()) as client:
        result = client.transit(AT.astimezone(east))
    assert result["at"] == "2024-03-20T03:06:00.000Z" and result["natal"] is None
