"""Bodies generated from the published request schemas (schemathesis, positive mode) are
accepted by the operations' parsers, unless they break a rule the document states in words
because a JSON Schema cannot: a day that exists in the calendar (February 30), the
calendar's span of at most 366 days, a transit's picture needing a natal birth, a whole
number written without a fraction (a schema's integers include 2020.0)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date, datetime
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from bodygraph_server.http.errors import ApiError
from bodygraph_server.http.fields import MONTH_NAMES
from bodygraph_server.http.validation import (
    parse_coordinates_input,
    parse_location_input,
    parse_v1_input,
    v1_century,
)
from bodygraph_server.resources import service_document
from bodygraph_server.resources.batch.operations import parse_batch
from bodygraph_server.resources.relations.operations import (
    parse_connection,
    parse_penta,
    parse_transit,
)
from bodygraph_server.resources.time_searches.operations import (
    parse_calendar,
    parse_cycles,
    parse_sensitivity,
)

TODAY = date(2026, 11, 29)
Parser = Callable[[dict[str, Any]], object]
PARSERS: dict[str, Parser] = {
    "/v2/charts": parse_location_input,
    "/v2/charts/simple": parse_location_input,
    "/v2/visual-charts": parse_location_input,
    "/v2/charts/coordinates": parse_coordinates_input,
    "/v2/visual-charts/coordinates": parse_coordinates_input,
    "/v1/bodygraphs": lambda body: parse_v1_input(body, TODAY),
    "/v1/bodygraphs/simple": lambda body: parse_v1_input(body, TODAY),
    "/v2/transits": parse_transit,
    "/v2/connections": parse_connection,
    "/v2/pentas": parse_penta,
    "/v2/sensitivity": parse_sensitivity,
    "/v2/cycles": parse_cycles,
    "/v2/calendar": lambda body: parse_calendar(body, None),  # type: ignore[arg-type]
    "/v2/charts/batch": parse_batch,
}


@cache
def _schema() -> Any:
    import schemathesis

    return schemathesis.openapi.from_dict(service_document())


def test_every_operation_with_a_body_has_a_parser_here() -> None:
    paths = service_document()["paths"]
    assert {path for path, item in paths.items()  # a job's upload is NDJSON or CSV
            if "application/json" in item.get("post", {}).get("requestBody", {}).get(
                "content", {})} == set(PARSERS)


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        return None


def _v1_day(text: str) -> date | None:
    day, month, year = text.split("-")
    try:
        return date(v1_century(int(year), TODAY), MONTH_NAMES.index(month.lower()) + 1,
                    int(day))
    except ValueError:
        return None


def _births(value: object) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _births(item)


def breaks_a_stated_rule(path: str, body: dict[str, Any]) -> bool:
    """Whether ``body`` breaks a rule the document states only in words."""
    births = [*_births(body), *_births(body.get("natal")), *_births(body.get("people"))]
    for birth in births:
        text = birth.get("birthdate")
        if isinstance(text, str) and (_v1_day(text) if path.startswith("/v1/")
                                      else _day(text)) is None:
            return True
    if any(isinstance(body.get(name), float) for name in ("year", "windowMinutes")):
        return True
    if path == "/v2/transits":
        if _day(body["at"]) is None:
            return True
        try:
            datetime.fromisoformat(body["at"])
        except ValueError:
            return True
        if body.get("visual") is True and body.get("natal") is None:
            return True
    if path == "/v2/calendar":
        first, last = _day(body["from"]), _day(body["to"])
        if first is None or last is None or not 0 <= (last - first).days < 366:
            return True
    return False


@pytest.mark.parametrize("path", sorted(PARSERS))
def test_schema_valid_bodies_are_accepted(path: str) -> None:
    operation = _schema()[path]["POST"]
    parse = PARSERS[path]
    accepted: list[object] = []

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(operation.as_strategy())
    def check(case: Any) -> None:
        body = case.body
        assert isinstance(body, dict)
        try:
            accepted.append(parse(body))
        except ApiError as refusal:
            assert breaks_a_stated_rule(path, body), (body, refusal.code, refusal.message)

    check()
    assert accepted, "no generated body was accepted"


def test_a_body_gives_its_parser_schema_and_codes() -> None:
    from bodygraph_server.http.errors import ErrorCode
    from bodygraph_server.http.validation import COORDINATES_INPUT

    document = service_document()
    assert document["components"]["schemas"]["CoordinatesInput"] == COORDINATES_INPUT.schema()
    assert COORDINATES_INPUT.error_codes() == (
        ErrorCode.MISSING_REQUIRED_FIELD, ErrorCode.INVALID_REQUEST_BODY,
        ErrorCode.INVALID_BIRTHDATE, ErrorCode.INVALID_BIRTHTIME,
        ErrorCode.INVALID_LATITUDE, ErrorCode.INVALID_LONGITUDE)
    responses = document["paths"]["/v2/charts/coordinates"]["post"]["responses"]
    documented = ", ".join(response["description"] for response in responses.values())
    for code in COORDINATES_INPUT.error_codes():
        assert code.value in documented
    with pytest.raises(ApiError) as refused:
        COORDINATES_INPUT.parse({"birthdate": "1990-02-30", "birthtime": "25:00"})
    assert refused.value.code is ErrorCode.INVALID_BIRTHDATE  # the contract's order
