"""The v2 extensions beyond the contract: what they share.

An extension is an :class:`~bodygraph_server.http.endpoint.Endpoint` whose
``body_server`` serves the request once the endpoint factory has admitted it (steps 1
to 3 of :mod:`bodygraph_server.http.endpoint`: authentication, tier, rate limit), so the
envelope, the error codes and their order are those of the chart endpoints:

4. body: size (413), a JSON object (422), the fields (each birth by the contract's rules,
   :mod:`bodygraph_server.http.births`);
5. HD-Geocode-Key when a birth is given by place name and the service geocodes with
   Google (GEOCODE_KEY_MISSING, 401);
6. credits (CREDITS_EXHAUSTED, 402), taken as a reservation;
7. the charts of the births (geocoding, time zone, chart: their errors) and the result,
   under the request time-out; the reservation is released on any failure;
8. success: the reservation is committed (1 credit) and the envelope returned, with a
   top-level ``svgRenderUrl`` when the job draws a picture (``"visual": true`` of the
   transit and connection endpoints; the link of
   :func:`bodygraph_server.http.visual.picture_url`).

The batch endpoint (:mod:`bodygraph_server.http.batch`) shares steps 4 and 5 and charges
per chart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from bodygraph_server.billing.accounts import Principal
from bodygraph_server.geocoding import caller_key_required
from bodygraph_server.http.births import Birth, needs_geocode_key
from bodygraph_server.http.delivery import charged
from bodygraph_server.http.endpoint import BodyServer, Endpoint, read_body
from bodygraph_server.http.envelope import json_response, v2_success
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.gate import request_id_of
from bodygraph_server.http.idempotency import idempotency_key, reserve_charge
from bodygraph_server.http.validation import CoordinatesInput, parse_json_object
from bodygraph_server.http.visual import RENDER_URL_FIELD, picture_url
from bodygraph_server.services import Services

if TYPE_CHECKING:
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
#: An extension that takes births may also answer every code of a birth (its fields, the
#: geocoding of a place name, the time zone).
BIRTH_CODES: tuple[ErrorCode, ...] = (
    *BODY_CODES, ErrorCode.INVALID_BIRTHDATE, ErrorCode.INVALID_BIRTHTIME,
    ErrorCode.INVALID_LATITUDE, ErrorCode.INVALID_LONGITUDE, ErrorCode.INVALID_LOCATION,
    ErrorCode.GEOCODE_KEY_MISSING, ErrorCode.GEOCODE_FAILED, ErrorCode.GEOCODE_KEY_INVALID,
    ErrorCode.GEOCODE_LOCATION_NOT_FOUND, ErrorCode.GEOCODE_RATE_LIMITED,
    ErrorCode.TIMEZONE_LOOKUP_FAILED,
)

Data = dict[str, Any] | list[Any]
"""An answer's ``data``: a JSON object, or a JSON array (the calendar's ingresses)."""
Compute = Callable[[Sequence["Chart"]], Data]
"""Makes the ``data`` from the charts of the job's births, in order (blocking)."""
Draw = Callable[[Sequence["Chart"]], "Picture"]
"""Makes the picture of an answer's ``svgRenderUrl`` from the same charts (blocking)."""


@dataclass(frozen=True, slots=True)
class Job:
    """What a parsed body asks for: the births to chart and what to make of them."""

    births: tuple[Birth, ...]
    compute: Compute
    draw: Draw | None = None


Parser = Callable[[dict[str, Any]], Job]
"""Reads a body (a JSON object) into a :class:`Job`; raises :class:`ApiError`."""
ServicesParser = Callable[[dict[str, Any], Services], Job]
"""A :data:`Parser` whose job also uses the worker's services (the calendar's months)."""


async def read_raw_body(request: Request, services: Services, limit: int = 0) -> bytes:
    """The body's bytes (step 4: 413 past ``limit`` bytes, by default the settings'
    ``max_body_bytes``; 422 when too slow)."""
    settings = services.settings
    try:
        with anyio.fail_after(settings.request_timeout):
            return await read_body(request, limit or settings.max_body_bytes)
    except TimeoutError:
        raise ApiError(ErrorCode.INVALID_REQUEST_BODY, "Request body too slow") from None


async def read_json_object(request: Request, services: Services,
                           limit: int = 0) -> dict[str, Any]:
    """The body as a JSON object (see :func:`read_raw_body`; 422 when not a JSON object)."""
    return parse_json_object(await read_raw_body(request, services, limit))


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


async def chart_of(services: Services, birth: Birth, geocode_key: str) -> Chart:
    """The chart of one birth through the service's chart source."""
    if isinstance(birth, CoordinatesInput):
        return await services.charts.from_coordinates(
            birth.birthdate, birth.birthtime, birth.lat, birth.lng)
    return await services.charts.from_place(
        birth.birthdate, birth.birthtime, birth.location, geocode_key)


def timed_out(request: Request) -> ApiError:
    """INTERNAL_ERROR of a request that ran past the time-out."""
    return ApiError(ErrorCode.INTERNAL_ERROR,
                    f"Request timed out (request id {request_id_of(request.scope)})")


def single(parse: Parser) -> BodyServer:
    """The body server of an extension that charges 1 credit for one ``data`` object
    (its envelope ``type`` and message are the endpoint's)."""
    return single_served(lambda body, services: parse(body))


def single_served(parse: ServicesParser) -> BodyServer:
    """:func:`single` for a parser that also takes the worker's services."""

    async def serve_body(endpoint: Endpoint, request: Request, services: Services,
                         principal: Principal, announced: ExitStack) -> Response:
        key = idempotency_key(request.headers)
        raw = await read_raw_body(request, services)
        job = parse(parse_json_object(raw), services)
        base = services.settings.render_base(str(request.base_url))

        def answer(charts: Sequence[Chart]) -> tuple[Data, dict[str, str]]:
            """The ``data`` and, when the job draws, the ``svgRenderUrl`` (blocking)."""
            data = job.compute(charts)
            if job.draw is None:
                return data, {}
            url = picture_url(job.draw(charts), principal.account_id, services.keys,
                              services.templates, base)
            return data, {RENDER_URL_FIELD: url}

        geocode_key = geocode_key_for(request, job.births, services.settings.geocoder)
        book = services.book
        # None: a replay of an answered request (same Idempotency-Key and body): the answer
        # is computed again (deterministic) and nothing is charged.
        reservation = await reserve_charge(services, principal, endpoint.path, key, raw)
        try:
            with anyio.fail_after(services.settings.request_timeout):
                announced.close()
                charts = [await chart_of(services, birth, geocode_key) for birth in job.births]
                data, extra = await anyio.to_thread.run_sync(answer, charts,
                                                             abandon_on_cancel=True)
        except BaseException as exc:
            if reservation is not None:
                with anyio.CancelScope(shield=True):
                    await services.booked(book.release, reservation)
            if isinstance(exc, TimeoutError):
                raise timed_out(request) from None
            raise
        if reservation is not None:
            await services.commits.commit(reservation)
        return charged(json_response(v2_success(data, type_name=endpoint.success_type,
                                                message=endpoint.success_message,
                                                extra=extra)), reservation, services)

    return serve_body


def _answered_by_body_server(call: object, chart: object) -> dict[str, Any]:
    """The ``format`` of an extension spec: never called, its body server answers."""
    raise AssertionError("an extension's body server makes its answer")


def extension(path: str, summary: str, description: str, type_name: str, message: str,
              body_server: BodyServer, request_schema: str,
              error_codes: tuple[ErrorCode, ...]) -> Endpoint:
    """The endpoint spec of an extension (Advanced tier: not among the Basic paths)."""

    return Endpoint(path=path, kind="coordinates", format=_answered_by_body_server, summary=summary,
                    success_type=type_name, success_message=message,
                    description=description, body_server=body_server,
                    request_schema=request_schema, error_codes=error_codes)

