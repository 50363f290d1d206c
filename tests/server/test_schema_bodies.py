"""Bodies generated from the published request schemas (schemathesis, positive mode) are
accepted by the operations' parsers, unless they break a rule the document states in words
because a JSON Schema cannot: a day that exists in the calendar (February 30), the
calendar's span of at most 366 days, a rectification's of at most 7 days and its cross, a
transit's picture needing a natal birth, a whole number written without a fraction (a
schema's integers include 2020.0)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date, datetime
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from bodygraph.errors import InvalidOptionError
from bodygraph_server.http.errors import ApiError
from bodygraph_server.http.fields import MONTH_NAMES
from bodygraph_server.http.validation import (
    parse_coordinates_input,
    parse_location_input,
    parse_v1_input,
    v1_century,
)
from bodygraph_server.resources import service_document
from bodygraph_server.resources.astrology.operations import parse_astro, parse_wheel
from bodygraph_server.resources.batch.operations import parse_batch
from bodygraph_server.resources.rectification.bodies import (
    CONSTRAINT_MEMBERS,
    STABILITY_COORDINATES_INPUT,
    STABILITY_INPUT,
    parse_rectification,
)
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


def _mcp_message(body: dict[str, Any]) -> object:
    """The MCP SDK's parse of a JSON-RPC message (what ``/mcp`` reads)."""
    from mcp.types import jsonrpc_message_adapter

    return jsonrpc_message_adapter.validate_python(body)


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
    "/v2/hologenetic-profiles": parse_location_input,
    "/v2/hologenetic-profiles/coordinates": parse_coordinates_input,
    "/v2/astro/coordinates": parse_astro,
    "/v2/wheel-charts/coordinates": parse_wheel,
    "/v2/stability": STABILITY_INPUT.parse,
    "/v2/stability/coordinates": STABILITY_COORDINATES_INPUT.parse,
    "/v2/rectifications": parse_rectification,
    "/mcp": _mcp_message,
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
    if any(isinstance(body.get(name), float)
           for name in ("year", "windowMinutes", "boundMinutes")):
        return True
    if path == "/v2/rectifications":
        return _breaks_a_search_rule(body)
    if path == "/v2/transits":
        if _day(body["at"]) is None:
            return True
        try:
            datetime.fromisoformat(body["at"])
        except ValueError:
            return True
        if body.get("visual") is True and body.get("natal") is None:
            return True
    if isinstance(body.get("transitAt"), str):
        try:
            datetime.fromisoformat(body["transitAt"])
        except ValueError:
            return True
    if path == "/v2/calendar":
        first, last = _day(body["from"]), _day(body["to"])
        if first is None or last is None or not 0 <= (last - first).days < 366:
            return True
    return False


def _breaks_a_search_rule(body: dict[str, Any]) -> bool:
    """A rectification's rules in words: real days at most 7 in all, toTime after fromTime
    on one day, a cross that names one, gates written without a fraction."""
    first, last = _day(body["date"]), _day(body.get("toDate") or body["date"])
    if first is None or last is None or not 0 <= (last - first).days < 7:
        return True
    times = body.get("fromTime"), body.get("toTime")
    if first == last and None not in times and times[1] <= times[0]:
        return True
    given = body["constraints"]
    return "cross" in given or any(isinstance(g, float) for g in given.get("gates", ()))


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
        except InvalidOptionError as refusal:  # 400 INVALID_OPTION (the errors table)
            assert breaks_a_stated_rule(path, body), (body, str(refusal))

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


def _bodies() -> list[Any]:
    from bodygraph_server.http.validation import CHART_INPUT, COORDINATES_INPUT, V1_INPUT
    from bodygraph_server.resources.astrology.bodies import ASTRO_INPUT, WHEEL_INPUT
    from bodygraph_server.resources.batch.schemas import BATCH_INPUT
    from bodygraph_server.resources.rectification import bodies as rectification
    from bodygraph_server.resources.relations.bodies import REQUEST_BODIES as RELATIONS
    from bodygraph_server.resources.time_searches.bodies import REQUEST_BODIES as SEARCHES

    return [CHART_INPUT, COORDINATES_INPUT, V1_INPUT, *RELATIONS, *SEARCHES, BATCH_INPUT,
            ASTRO_INPUT, WHEEL_INPUT, rectification.STABILITY_INPUT,
            rectification.STABILITY_COORDINATES_INPUT, rectification.RECTIFICATION_PLACE,
            rectification.RECTIFICATION_POINT]


def _named(schemas: dict[str, Any], name: str) -> list[str]:
    """The body definitions a published request body names: itself, or the bodies its
    ``anyOf`` refers to (a body given by place name or by a point)."""
    schema = schemas[name]
    if "anyOf" not in schema:
        return [name]
    refs = [part.get("$ref") or next(p["$ref"] for p in part["allOf"] if "$ref" in p)
            for part in schema["anyOf"]]
    return [ref.rsplit("/", 1)[1] for ref in refs]


def test_every_request_body_is_published_from_its_definition() -> None:
    document = service_document()
    schemas = document["components"]["schemas"]
    bodies = {body.name: body for body in _bodies()}
    for path, item in document["paths"].items():
        operation = item.get("post", {})
        if "requestBody" not in operation or path == "/mcp":  # the MCP SDK's JSON-RPC
            continue
        content = operation["requestBody"]["content"]
        if "application/json" not in content:  # a job's upload: NDJSON or CSV
            assert set(content) == {"application/x-ndjson", "text/csv"}, path
            continue
        schema = content["application/json"]["schema"]
        # a v2 body: its definition and the language member (http/language.py)
        name = schema.get("$ref") or next(part["$ref"] for part in schema["allOf"]
                                          if "$ref" in part)
        documented = ", ".join(response["description"]
                               for response in operation["responses"].values())
        for named in _named(schemas, name.rsplit("/", 1)[1]):
            body = bodies[named]
            assert schemas[body.name] == body.schema(), path
            for code in body.error_codes():
                assert code.value in documented, (path, code)


def test_the_constraints_schema_is_made_from_the_parser_s_members() -> None:
    """``Constraints`` (a member the library checks, not a :class:`Body`): one property per
    member the parser reads, in its order, an array exactly for a list member."""
    schema = service_document()["components"]["schemas"]["Constraints"]
    assert list(schema["properties"]) == [name for name, _, _ in CONSTRAINT_MEMBERS]
    for name, _, many in CONSTRAINT_MEMBERS:
        assert (schema["properties"][name].get("type") == "array") is many, name


@pytest.mark.parametrize(("body", "code", "message"), [
    ({"from": "2024-01-02", "to": "2024-01-01", "bodies": []}, "INVALID_REQUEST_BODY",
     "to must be from 0 to 365 days after from"),  # the span is checked right after `to`
    ({"from": "2024-01-01", "to": "2024-01-02", "bodies": ["sun"], "level": None}, None, ""),
    ({"to": "x"}, "MISSING_REQUIRED_FIELD", "Missing required field: from"),
])
def test_calendar_checks_in_order(body: dict[str, Any], code: str | None,
                                  message: str) -> None:
    from bodygraph_server.resources.time_searches.bodies import CALENDAR_INPUT

    if code is None:
        assert CALENDAR_INPUT.parse(body).level == "gate"
        return
    with pytest.raises(ApiError) as refused:
        CALENDAR_INPUT.parse(body)
    assert (refused.value.code.value, refused.value.message) == (code, message)


@pytest.mark.parametrize(("visual", "message"), [
    (None, "visual must be true or false"),  # null is not absent for a flag
    (True, "visual needs natal: the picture is the natal chart with the transit over it"),
])
def test_a_transit_flag(visual: object, message: str) -> None:
    from bodygraph_server.resources.relations.bodies import TRANSIT_INPUT

    with pytest.raises(ApiError) as refused:
        TRANSIT_INPUT.parse({"at": "2024-03-20T03:06:00Z", "visual": visual})
    assert refused.value.message == message
    assert not TRANSIT_INPUT.parse({"at": "2024-03-20T03:06:00Z"}).visual
