"""A chart operation: one birth (2.2, 2.3 or v1) -> its chart -> a formatted answer, for the
v2 chart, visual-chart and v1 operations (the order of checks: docs/api.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from bodygraph_server.billing.accounts import Principal
from bodygraph_server.geocoding import caller_key_required
from bodygraph_server.http.bodies import parse_json_object, read_raw_body
from bodygraph_server.http.body import Body
from bodygraph_server.http.charging import ChargedRequest, charge_and_answer
from bodygraph_server.http.envelope import (
    LABELS_FIELD,
    PLACE_FIELD,
    json_response,
    place_answer,
)
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.gate import admitted, request_id_of
from bodygraph_server.http.idempotency import idempotency_key
from bodygraph_server.http.language import asked_of
from bodygraph_server.http.operation import Answer, Handler, Operation
from bodygraph_server.http.validation import (
    CHART_INPUT,
    COORDINATES_INPUT,
    V1_INPUT,
    CoordinatesInput,
    LocationInput,
)
from bodygraph_server.services import Services, services_of

if TYPE_CHECKING:
    from bodygraph.geo.places.base import Place
    from bodygraph.model.chart import Chart

InputKind = Literal["location", "coordinates", "v1"]
BirthInput = LocationInput | CoordinatesInput

#: What every chart operation can answer before its body (contract section 7) ...
ADMISSION_CODES = (
    ErrorCode.API_KEY_MISSING, ErrorCode.API_KEY_INVALID, ErrorCode.UNAUTHORIZED,
    ErrorCode.CREDITS_EXHAUSTED, ErrorCode.ACCESS_DENIED, ErrorCode.ACCOUNT_INACTIVE,
    ErrorCode.RATE_LIMIT_EXCEEDED,
)
#: ... and after it (the body's own codes come from its definition).
CHARTING_CODES = (
    ErrorCode.TIMEZONE_LOOKUP_FAILED, ErrorCode.EPHEMERIS_ERROR,
    ErrorCode.CHART_GENERATION_FAILED, ErrorCode.INTERNAL_ERROR,
)
GEOCODING_CODES = (
    ErrorCode.GEOCODE_KEY_MISSING, ErrorCode.GEOCODE_FAILED, ErrorCode.GEOCODE_KEY_INVALID,
    ErrorCode.GEOCODE_LOCATION_NOT_FOUND, ErrorCode.GEOCODE_RATE_LIMITED,
)
BODIES: Mapping[InputKind, Body[Any]] = {
    "location": CHART_INPUT, "coordinates": COORDINATES_INPUT, "v1": V1_INPUT}
"""The request body of each kind of chart operation."""


@dataclass(frozen=True, slots=True)
class ChartRequest:
    """What a formatter may use besides the chart."""

    principal: Principal
    services: Services
    birth: BirthInput
    request_id: str
    #: the language asked (``lang``), known once the body is read; None: none asked
    lang: str | None = None


def chart_labels(request: ChartRequest, chart: Chart, data: dict[str, Any]) -> dict[str, Any]:
    """With a language asked, ``{"labels": ...}``: the chart's own ``labels(lang)`` of the
    keys ``data`` has, in its order; else nothing."""
    if request.lang is None:
        return {}
    words = chart.labels(request.lang)
    return {LABELS_FIELD: {key: words[key] for key in data if key in words}}


Formatter = Callable[[ChartRequest, "Chart"], dict[str, Any]]
"""Builds the success body from the chart (in a worker thread if the endpoint says it
blocks)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChartEndpoint:
    """A chart operation: ``kind`` picks the input (2.2, 2.3 or v1) and the error body (v1
    for ``"v1"``); ``format`` makes the answer, in a worker thread unless
    ``blocking_format`` is off; ``status_overrides`` (GEOCODE_KEY_MISSING 400 on visual
    charts) and the rest describe it."""

    path: str
    kind: InputKind
    format: Formatter
    summary: str
    description: str
    success_type: str
    success_message: str = ""
    success_schema: str = ""
    blocking_format: bool = True
    status_overrides: Mapping[ErrorCode, int] = field(default_factory=dict)

    @property
    def legacy(self) -> bool:
        """Whether this is a v1 endpoint (flat bodies, v1 errors)."""
        return self.kind == "v1"

    @property
    def needs_geocode_key(self) -> bool:
        """Whether the HD-Geocode-Key header is required."""
        return self.kind != "coordinates"


def parse_birth(kind: InputKind, body: dict[str, Any], services: Services) -> BirthInput:
    """The typed input of an endpoint kind."""
    if kind == "v1":
        return V1_INPUT.parse(body, services.book.clock.now().date())
    parsed: BirthInput = BODIES[kind].parse(body)
    return parsed


async def _chart(request: ChartRequest, geocode_key: str | None) -> tuple[Chart, Place | None]:
    """The chart of the request's birth and the place taken for its ``location`` (None for
    coordinates)."""
    charts = request.services.charts
    birth = request.birth
    if isinstance(birth, CoordinatesInput):
        chart = await charts.from_coordinates(
            birth.birthdate, birth.birthtime, birth.lat, birth.lng
        )
        return chart, None
    assert geocode_key is not None
    placed = await charts.from_place(birth.birthdate, birth.birthtime, birth.location,
                                     geocode_key)
    return placed.chart, placed.place


async def _answer(endpoint: ChartEndpoint, request: ChartRequest, geocode_key: str | None,
                  announced: ExitStack) -> dict[str, Any]:
    """Make and format the chart (``announced``, the batching hint, is closed when the
    chart is asked for), with the place taken on v2."""
    announced.close()
    chart, place = await _chart(request, geocode_key)
    if endpoint.blocking_format:
        body = await anyio.to_thread.run_sync(endpoint.format, request, chart,
                                              abandon_on_cancel=True)
    else:
        body = endpoint.format(request, chart)
    if place is not None and not endpoint.legacy:
        body[PLACE_FIELD] = place_answer(place)
    return body


async def serve_chart(endpoint: ChartEndpoint, request: Request) -> Response:
    """Admission, the geocoding key, the body, then the charged chart."""
    principal = admitted(request.scope, endpoint.path)
    services = services_of(request.scope)
    with ExitStack() as announced:
        announced.enter_context(services.charts.upcoming())
        geocode_key: str | None = None
        if endpoint.needs_geocode_key:
            geocode_key = request.headers.get("hd-geocode-key", "").strip()
            if not geocode_key and caller_key_required(services.settings.geocoder):
                raise ApiError(ErrorCode.GEOCODE_KEY_MISSING,
                               status=endpoint.status_overrides.get(
                                   ErrorCode.GEOCODE_KEY_MISSING))
        key = idempotency_key(request.headers)
        raw = await read_raw_body(request, services)
        birth = parse_birth(endpoint.kind, parse_json_object(raw), services)
        asked = asked_of(request.scope)
        chart_request = ChartRequest(principal, services, birth, request_id_of(request.scope),
                                     lang=None if asked is None else asked.lang)
        charged = ChargedRequest(principal, endpoint.path, key, raw)
        return await charge_and_answer(
            services, charged, request_id=chart_request.request_id,
            work=lambda: _answer(endpoint, chart_request, geocode_key, announced),
            respond=json_response)


def chart_handler(endpoint: ChartEndpoint) -> Handler:
    """The Starlette endpoint function serving ``endpoint`` (refusals and library errors
    are answered by the app's exception handlers, :mod:`bodygraph_server.http.refusals`)."""

    async def serve(request: Request) -> Response:
        return await serve_chart(endpoint, request)

    serve.__name__ = "serve_" + endpoint.path.strip("/").replace("/", "_").replace("-", "_")
    return serve


def chart_operation(endpoint: ChartEndpoint, handler: Handler | None = None) -> Operation:
    """The operation of ``endpoint`` (served by ``handler``, by default
    :func:`chart_handler`)."""
    body = BODIES[endpoint.kind]
    geocoding = () if endpoint.kind == "coordinates" else GEOCODING_CODES
    success = endpoint.success_schema or (
        endpoint.success_type if endpoint.legacy else f"{endpoint.success_type}Envelope")
    return Operation(
        method="POST", path=endpoint.path, summary=endpoint.summary,
        description=endpoint.description,
        handler=handler or chart_handler(endpoint),
        success=Answer(description=endpoint.success_message or "the chart",
                       schema={"$ref": "#/components/schemas/" + success}),
        tags=("v1 (legacy)",) if endpoint.legacy else ("v2",),
        key="v1" if endpoint.legacy else "bearer", cost=1, idempotent=True,
        request_body=body.name,
        error_codes=(*ADMISSION_CODES, *body.error_codes(), *geocoding, *CHARTING_CODES),
        status_overrides=endpoint.status_overrides,
        geocode_key="required" if endpoint.needs_geocode_key else "none",
    )
