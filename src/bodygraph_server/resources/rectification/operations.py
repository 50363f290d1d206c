"""``POST /v2/stability``, ``/v2/stability/coordinates`` and ``/v2/rectifications``: the
command line's ``bodygraph stability --json`` and ``bodygraph rectify --json`` of the same
birth or search."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.bodies import parse_json_object, read_raw_body
from bodygraph_server.http.body import Body
from bodygraph_server.http.charging import ChargedRequest, charge_and_answer
from bodygraph_server.http.envelope import LABELS_FIELD, Envelope, json_response, v2_success
from bodygraph_server.http.errors import ErrorCode
from bodygraph_server.http.gate import admitted, request_id_of
from bodygraph_server.http.idempotency import idempotency_key
from bodygraph_server.http.language import asked_of
from bodygraph_server.http.openapi import sentences
from bodygraph_server.http.operation import Operation
from bodygraph_server.http.validation import CoordinatesInput
from bodygraph_server.relations_charting import Worded, worded
from bodygraph_server.resources.charts.flow import GEOCODING_CODES
from bodygraph_server.resources.computed import (
    BODY_CODES,
    EXTENSION_NOTE,
    Computed,
    Job,
    chart_of,
    computed_handler,
    extension_operation,
    geocode_key_for,
    places_taken,
    without_services,
)
from bodygraph_server.resources.rectification.bodies import (
    RECTIFICATION_PLACE,
    RECTIFICATION_POINT,
    STABILITY_COORDINATES_INPUT,
    STABILITY_INPUT,
    RectificationAsk,
    StabilityAsk,
    parse_rectification,
    request_schemas,
)
from bodygraph_server.resources.rectification.results import result_schemas
from bodygraph_server.services import services_of

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart

STABILITY_RESULT = "StabilityResult"
RECTIFICATION_RESULT = "RectificationResult"
RECTIFICATIONS = "/v2/rectifications"
RECTIFIED = "Birth-time windows computed"


def _codes(*bodies: Body[Any], geocoding: bool) -> tuple[ErrorCode, ...]:
    """What an operation of these bodies may answer."""
    return tuple(dict.fromkeys((*BODY_CODES, *(c for b in bodies for c in b.error_codes()),
                                *(GEOCODING_CODES if geocoding else ()),
                                ErrorCode.TIMEZONE_LOOKUP_FAILED, ErrorCode.INVALID_OPTION)))


def stability_data(birth: Chart, ask: StabilityAsk) -> Worded:
    """``bodygraph stability --bound <minutes>m --json`` of the chart's birth."""
    from bodygraph.relations import stability

    return worded(stability(birth.birth_utc, ask.bound))


def rectification_data(ask: RectificationAsk, lat: float, lng: float) -> Worded:
    """``bodygraph rectify --lat --lng ... --json`` of the search (blocking)."""
    from bodygraph.geo.timezones import zone, zone_at
    from bodygraph.relations import rectify

    return worded(rectify(ask.first_day, ask.constraints, zone=zone(zone_at(lat, lng)),
                          last_day=ask.last_day, from_time=ask.from_time,
                          to_time=ask.to_time))


def _stability_parser(body: Body[StabilityAsk]) -> Computed:
    def parse(raw: dict[str, Any]) -> Job:
        ask = body.parse(raw)

        def compute(charts: Sequence[Chart]) -> Worded:
            return stability_data(charts[0], ask)

        return Job((ask.birth,), compute)

    path = "/v2/stability" + ("" if body is STABILITY_INPUT else "/coordinates")
    return Computed(path=path, type_name=STABILITY_RESULT, message="Stability computed",
                    parse=without_services(parse))


async def serve_rectification(request: Request) -> Response:
    """Admission, the body, the geocoding key, then the charged search: the place (its
    noon chart on the first day checks the date and finds the point), its zone, the
    windows."""
    principal = admitted(request.scope, RECTIFICATIONS)
    services = services_of(request.scope)
    with ExitStack() as announced:
        announced.enter_context(services.charts.upcoming())
        key = idempotency_key(request.headers)
        raw = await read_raw_body(request, services)
        ask = parse_rectification(parse_json_object(raw))
        geocode_key = geocode_key_for(request, (ask.where,), services.settings.geocoder)
        asked = asked_of(request.scope)
        lang = None if asked is None else asked.lang

        async def work() -> dict[str, Any]:
            announced.close()
            _, place = await chart_of(services, ask.where, geocode_key)
            point = ask.where if isinstance(ask.where, CoordinatesInput) else place
            assert point is not None
            made = await anyio.to_thread.run_sync(rectification_data, ask, point.lat,
                                                  point.lng, abandon_on_cancel=True)
            labels = {} if lang is None else {LABELS_FIELD: made.labels(lang)}
            return {**places_taken([place]), **labels, "data": made.data}

        def respond(made: dict[str, Any]) -> Response:
            data = made.pop("data")
            return json_response(v2_success(data, type_name=RECTIFICATION_RESULT,
                                            message=RECTIFIED, extra=made))

        charged = ChargedRequest(principal, RECTIFICATIONS, key, raw)
        return await charge_and_answer(services, charged,
                                       request_id=request_id_of(request.scope),
                                       work=work, respond=respond)


_STABILITY = pgettext(
    "openapi", "For each property (type, profile, authority, definition, incarnationCross, "
    "strategy, variables) and each of the 26 activations (line level), its value and the "
    "earliest and latest birth instants around the birth over which it stays the same (the "
    "design instant moving with the birth), exact to a second, within boundMinutes either "
    "side (null: it holds to the bound). `data` is `bodygraph stability --json`.")

OPERATIONS: tuple[Operation, ...] = (
    replace(extension_operation(
        path="/v2/stability", summary=pgettext("openapi", "Stability of a chart"),
        type_name=STABILITY_RESULT,
        description=sentences(
            _STABILITY,
            pgettext("openapi", "The birth is given by place name (2.2)."),
            EXTENSION_NOTE),
        message="Stability computed", request_body=STABILITY_INPUT.name,
        handler=computed_handler(_stability_parser(STABILITY_INPUT)),
        error_codes=_codes(STABILITY_INPUT, geocoding=True)), geocode_key="required"),
    extension_operation(
        path="/v2/stability/coordinates",
        summary=pgettext("openapi", "Stability of a chart from coordinates"),
        type_name=STABILITY_RESULT, message="Stability computed",
        description=sentences(
            _STABILITY,
            pgettext("openapi", "The birth is given by coordinates (2.3)."),
            EXTENSION_NOTE),
        request_body=STABILITY_COORDINATES_INPUT.name,
        handler=computed_handler(_stability_parser(STABILITY_COORDINATES_INPUT)),
        error_codes=_codes(STABILITY_COORDINATES_INPUT, geocoding=False)),
    extension_operation(
        path=RECTIFICATIONS, summary=pgettext("openapi", "Birth-time rectification"),
        type_name=RECTIFICATION_RESULT,
        message=RECTIFIED, handler=serve_rectification, request_body="RectificationInput",
        description=sentences(
            pgettext(
                "openapi", "Every window of birth instants in a local date (or a range of up to "
                "7 days, optionally from fromTime to toTime) at a place name or a point whose "
                "chart satisfies all the constraints, exact to a second, with UTC and local "
                "times (a wall time that occurs twice is marked with its pass), in time order. "
                "No window is an answer, not an error. `data` is `bodygraph rectify --json`."),
            EXTENSION_NOTE),
        error_codes=_codes(RECTIFICATION_PLACE, RECTIFICATION_POINT, geocoding=True)),
)
"""The stability and rectification operations."""
ENVELOPES = (Envelope(STABILITY_RESULT, place=True), Envelope(RECTIFICATION_RESULT, place=True))


def schemas() -> dict[str, Any]:
    """The request bodies, results and envelopes of stability and rectification."""
    return {**request_schemas(), **result_schemas(), **{e.name: e.schema() for e in ENVELOPES}}
