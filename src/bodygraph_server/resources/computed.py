"""A computed operation (the extensions beyond the contract): a body naming births ->
their charts -> ``data`` made from them, in the v2 envelope, 1 credit (docs/api.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from bodygraph.catalog.translations import pgettext
from bodygraph_server.geocoding import caller_key_required
from bodygraph_server.http.births import Birth, needs_geocode_key
from bodygraph_server.http.bodies import parse_json_object, read_raw_body
from bodygraph_server.http.body import Body
from bodygraph_server.http.charging import ChargedRequest, charge_and_answer
from bodygraph_server.http.envelope import (
    JSON_MEDIA_TYPE,
    LABELS_FIELD,
    PLACE_FIELD,
    PLACES_FIELD,
    RENDER_URL_FIELD,
    json_response,
    place_answer,
    v2_success,
)
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.gate import admitted, request_id_of
from bodygraph_server.http.idempotency import idempotency_key
from bodygraph_server.http.language import asked_of
from bodygraph_server.http.negotiation import NOT_ACCEPTABLE, negotiate
from bodygraph_server.http.operation import Answer, Handler, Operation
from bodygraph_server.http.validation import CoordinatesInput
from bodygraph_server.images.route import picture_url
from bodygraph_server.relations_charting import Worded
from bodygraph_server.services import Services, services_of

if TYPE_CHECKING:
    from bodygraph.geo.places.base import Place
    from bodygraph.model.chart import Chart
    from bodygraph_server.images.overlay_tokens import Picture
    from bodygraph_server.settings import GeocoderName

#: What every extension can answer: admission, credits, the body's shape, the computation.
BODY_CODES: tuple[ErrorCode, ...] = (
    ErrorCode.API_KEY_MISSING, ErrorCode.API_KEY_INVALID, ErrorCode.UNAUTHORIZED,
    ErrorCode.CREDITS_EXHAUSTED, ErrorCode.ACCESS_DENIED, ErrorCode.ACCOUNT_INACTIVE,
    ErrorCode.MISSING_REQUIRED_FIELD, ErrorCode.INVALID_REQUEST_BODY,
    ErrorCode.RATE_LIMIT_EXCEEDED, ErrorCode.EPHEMERIS_ERROR,
    ErrorCode.CHART_GENERATION_FAILED, ErrorCode.INTERNAL_ERROR,
)
#: A body that takes place names may also answer their geocoding's codes...
PLACE_CODES: tuple[ErrorCode, ...] = (
    ErrorCode.GEOCODE_KEY_MISSING, ErrorCode.GEOCODE_FAILED, ErrorCode.GEOCODE_KEY_INVALID,
    ErrorCode.GEOCODE_LOCATION_NOT_FOUND, ErrorCode.GEOCODE_RATE_LIMITED,
)
#: ... and one that takes births, the time zone's.
BIRTH_TIME_CODES: tuple[ErrorCode, ...] = (ErrorCode.TIMEZONE_LOOKUP_FAILED,)
EXTENSION_NOTE = pgettext("openapi", "Advanced tier. 1 credit. An extension beyond the contract.")

Data = dict[str, Any] | list[Any]
"""An answer's ``data``: a JSON object, or a JSON array (the calendar's ingresses)."""
Compute = Callable[[Sequence["Chart"]], Data | Worded]
"""Makes the ``data`` from the charts of the job's births, in order (blocking); a
:class:`Worded` one brings its labels (the library result's ``labels(lang)``)."""
Draw = Callable[[Sequence["Chart"]], "Picture"]
"""Makes the picture of an answer's ``svgRenderUrl`` from the same charts (blocking)."""
Document = Callable[[Sequence["Chart"], str | None], bytes]
"""Makes the answer in another media type than JSON from the same charts, its words in
the language asked (None: none asked, English) (blocking)."""


@dataclass(frozen=True, slots=True)
class Job:
    """What a parsed body asks for: the births to chart and what to make of them;
    ``preset`` names a shipped theme for the picture's link (empty: the caller's active
    template); ``documents``: the answer in the operation's other media types, by type."""

    births: tuple[Birth, ...]
    compute: Compute
    draw: Draw | None = None
    preset: str = ""
    documents: Mapping[str, Document] = field(default_factory=dict)


Parser = Callable[[dict[str, Any]], Job]
"""Reads a body (a JSON object) into a :class:`Job`; raises :class:`ApiError`."""
ServicesParser = Callable[[dict[str, Any], Services], Job]
"""A :data:`Parser` whose job also uses the worker's services (the calendar's months)."""


def geocode_key_for(request: Request, births: Sequence[Birth | None],
                    geocoder: GeocoderName) -> str:
    """The HD-Geocode-Key header when a birth needs geocoding (GEOCODE_KEY_MISSING if
    absent and ``geocoder`` needs the caller's key), else the empty string."""
    if not needs_geocode_key(births):
        return ""
    key = request.headers.get("hd-geocode-key", "").strip()
    if not key and caller_key_required(geocoder):
        raise ApiError(ErrorCode.GEOCODE_KEY_MISSING)
    return key


async def chart_of(services: Services, birth: Birth,
                   geocode_key: str) -> tuple[Chart, Place | None]:
    """The chart of one birth through the service's chart source, and the place taken for
    its ``location`` (None for coordinates)."""
    if isinstance(birth, CoordinatesInput):
        chart = await services.charts.from_coordinates(
            birth.birthdate, birth.birthtime, birth.lat, birth.lng)
        return chart, None
    placed = await services.charts.from_place(
        birth.birthdate, birth.birthtime, birth.location, geocode_key)
    return placed.chart, placed.place


def places_taken(places: Sequence[Place | None]) -> dict[str, Any]:
    """The top-level ``place`` of a body of one birth given by place name, ``places`` (one
    entry per birth, null for coordinates) of several when any was; else nothing."""
    if all(place is None for place in places):
        return {}
    answers = [None if place is None else place_answer(place) for place in places]
    return {PLACE_FIELD: answers[0]} if len(answers) == 1 else {PLACES_FIELD: answers}


@dataclass(frozen=True, slots=True, kw_only=True)
class Computed:
    """A computed operation: its path, the envelope's ``type`` and message, its parser;
    ``media_types``: what it answers by ``Accept`` (the first, JSON, by default; the
    others made by the job's ``documents``)."""

    path: str
    type_name: str
    message: str
    parse: ServicesParser
    media_types: tuple[str, ...] = (JSON_MEDIA_TYPE,)


async def _serve(computed: Computed, request: Request) -> Response:
    """Admission, ``Accept``, the body, the geocoding key, then the charged job."""
    principal = admitted(request.scope, computed.path)
    media_type = negotiate(request.headers, computed.media_types)
    services = services_of(request.scope)
    with ExitStack() as announced:
        announced.enter_context(services.charts.upcoming())
        key = idempotency_key(request.headers)
        raw = await read_raw_body(request, services)
        job = computed.parse(parse_json_object(raw), services)
        asked = asked_of(request.scope)
        lang = None if asked is None else asked.lang
        base = ("" if job.draw is None  # only a drawing job links a picture
                else services.settings.render_base(str(request.base_url)))

        def answer(charts: Sequence[Chart]) -> tuple[Data, dict[str, Any]]:
            """The ``data``, when the job draws the ``svgRenderUrl``, and with a language
            the result's ``labels`` (blocking)."""
            made = job.compute(charts)
            data = made.data if isinstance(made, Worded) else made
            words = ({LABELS_FIELD: made.labels(lang)}
                     if isinstance(made, Worded) and lang is not None else {})
            if job.draw is None:
                return data, words
            url = picture_url(job.draw(charts), account_id=principal.account_id,
                              keys=services.keys, hub=services.templates, render_base=base,
                              preset=job.preset)
            return data, {RENDER_URL_FIELD: url, **words}

        geocode_key = geocode_key_for(request, job.births, services.settings.geocoder)

        async def work() -> dict[str, Any]:
            announced.close()
            made = [await chart_of(services, birth, geocode_key) for birth in job.births]
            if media_type != JSON_MEDIA_TYPE:
                document = await anyio.to_thread.run_sync(
                    job.documents[media_type], [chart for chart, _ in made], lang,
                    abandon_on_cancel=True)
                return {"document": document}
            data, siblings = await anyio.to_thread.run_sync(
                answer, [chart for chart, _ in made], abandon_on_cancel=True)
            labels = {LABELS_FIELD: siblings.pop(LABELS_FIELD)} if LABELS_FIELD in siblings else {}
            return {**siblings, **places_taken([place for _, place in made]), **labels,
                    "data": data}

        def respond(made: dict[str, Any]) -> Response:
            """The v2 envelope of ``data`` and its siblings, or the other document."""
            vary = {"Vary": "Accept"} if len(computed.media_types) > 1 else {}
            if "document" in made:
                spoken = {} if lang is None else {"Content-Language": lang}
                return Response(made["document"], media_type=media_type,
                                headers={**vary, **spoken})
            data = made.pop("data")
            return json_response(v2_success(data, type_name=computed.type_name,
                                            message=computed.message, extra=made),
                                 headers=vary)

        charged = ChargedRequest(principal, computed.path, key, raw)
        # a replay of an answered request is computed again (deterministic), uncharged
        return await charge_and_answer(services, charged,
                                       request_id=request_id_of(request.scope),
                                       work=work, respond=respond)


def computed_handler(computed: Computed) -> Handler:
    """The Starlette endpoint function of ``computed``."""

    async def serve(request: Request) -> Response:
        return await _serve(computed, request)

    serve.__name__ = "serve_" + computed.path.strip("/").replace("/", "_").replace("-", "_")
    return serve


def without_services(parse: Parser) -> ServicesParser:
    """A parser that does not need the worker's services, as a :data:`ServicesParser`."""
    return lambda body, services: parse(body)


#: The JSON Schema of an answer that is not JSON: a document of its media type.
_DOCUMENT = {"type": "string"}


def extension_operation(*, path: str, summary: str, description: str, type_name: str,
                        message: str, handler: Handler, request_body: str,
                        error_codes: tuple[ErrorCode, ...],
                        media_types: tuple[str, ...] = (JSON_MEDIA_TYPE,)) -> Operation:
    """The operation of an extension (Advanced tier: not among the Basic paths); one that
    answers other ``media_types`` too refuses an ``Accept`` of none with 406."""
    others = {media_type: _DOCUMENT for media_type in media_types[1:]}
    refusals = {NOT_ACCEPTABLE: Answer(
        description="INVALID_REQUEST_BODY: the Accept header names none of "
        + ", ".join(media_types), schema={"$ref": "#/components/schemas/ErrorEnvelope"})
    } if others else {}
    return Operation(
        method="POST", path=path, summary=summary, description=description, handler=handler,
        success=Answer(description=message,
                       schema={"$ref": f"#/components/schemas/{type_name}Envelope"},
                       also=others),
        tags=("v2",), key="bearer", cost=1, idempotent=True, request_body=request_body,
        error_codes=error_codes, refusals=refusals,
        geocode_key="optional" if ErrorCode.GEOCODE_KEY_MISSING in error_codes else "none",
    )


def body_codes(body: Body[Any]) -> tuple[ErrorCode, ...]:
    """What an extension reading ``body`` can answer: :data:`BODY_CODES`, the body's own
    codes, and those of geocoding and time zones when it takes place names or births."""
    own = body.error_codes()
    places = PLACE_CODES if ErrorCode.INVALID_LOCATION in own else ()
    births = BIRTH_TIME_CODES if ErrorCode.INVALID_BIRTHDATE in own else ()
    return tuple(dict.fromkeys((*BODY_CODES, *own, *places, *births)))


def computed_operation(*, computed: Computed, summary: str, description: str,
                       body: Body[Any]) -> Operation:
    """The operation of a computed extension reading ``body``."""
    return extension_operation(
        path=computed.path, summary=summary, description=description,
        type_name=computed.type_name, message=computed.message,
        handler=computed_handler(computed), request_body=body.name,
        error_codes=body_codes(body), media_types=computed.media_types)
