"""One chart endpoint = an :class:`Endpoint` spec; :func:`handler` serves it.

Order of checks (the first failing one answers; see ``docs/api.md``):

1. authentication: API key missing (API_KEY_MISSING), malformed Authorization
   (UNAUTHORIZED), unknown or rotated key (API_KEY_INVALID), deactivated account
   (ACCOUNT_INACTIVE) -- decided by the gate before routing;
2. tier: ACCESS_DENIED;
3. rate limit: RATE_LIMIT_EXCEEDED (429, Retry-After);
4. headers: HD-Geocode-Key on location endpoints (GEOCODE_KEY_MISSING) when the service
   geocodes with Google (:func:`~bodygraph_server.geocoding.caller_key_required`);
5. body: size (413 INVALID_REQUEST_BODY), JSON object (422), fields in contract order;
6. credits: CREDITS_EXHAUSTED (402), taken as a reservation;
7. geocoding, time zone, chart: their errors; the reservation is released;
8. success: the reservation is committed (1 credit; concurrent requests' commits share
   one transaction, :mod:`bodygraph_server.billing.commits`) and the body returned; the
   charge stands once the body was written, else it is withdrawn
   (:mod:`bodygraph_server.http.delivery`).

Step 7 runs under the request time-out; when it strikes first, the reservation is
released and INTERNAL_ERROR is returned.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import anyio
import anyio.to_thread
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from bodygraph.errors import BodygraphError
from bodygraph_server.billing.accounts import Principal, Reservation
from bodygraph_server.geocoding import caller_key_required
from bodygraph_server.http.delivery import charged
from bodygraph_server.http.envelope import error_response, json_response
from bodygraph_server.http.errors import ApiError, ErrorCode, from_library_error
from bodygraph_server.http.gate import admission_of, internal_error, log_unexpected, request_id_of
from bodygraph_server.http.idempotency import idempotency_key, reserve_charge
from bodygraph_server.http.validation import (
    CoordinatesInput,
    LocationInput,
    parse_coordinates_input,
    parse_json_object,
    parse_location_input,
    parse_v1_input,
)
from bodygraph_server.services import Services, services_of

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart

InputKind = Literal["location", "coordinates", "v1"]
BirthInput = LocationInput | CoordinatesInput


@dataclass(frozen=True, slots=True)
class Call:
    """What a formatter may use besides the chart."""

    principal: Principal
    services: Services
    birth: BirthInput
    request_id: str


Formatter = Callable[[Call, "Chart"], dict[str, Any]]
"""Builds the success body from the chart (in a worker thread if the endpoint says it
blocks)."""

BodyServer = Callable[["Endpoint", Request, Services, Principal, ExitStack],
                      Awaitable[Response]]
"""Serves an admitted request (steps 4 to 8) in place of parse -> chart -> format: the
extension endpoints (:mod:`bodygraph_server.http.extensions`)."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A POST chart endpoint.

    ``kind`` picks the input (2.2, 2.3 or v1) and the error body format (v1 for
    ``"v1"``); ``geocode_key_missing_status`` overrides the status of
    GEOCODE_KEY_MISSING (400 on visual charts). ``summary``, ``success_type`` and
    ``success_message`` feed the OpenAPI document. ``blocking_format`` (default) runs
    ``format`` in a worker thread; endpoints whose formatter is pure turn it off.
    """

    path: str
    kind: InputKind
    format: Formatter
    summary: str
    success_type: str
    success_message: str = ""
    geocode_key_missing_status: int | None = None
    description: str = ""
    blocking_format: bool = True
    body_server: BodyServer | None = None
    request_schema: str = ""
    error_codes: tuple[ErrorCode, ...] = ()

    @property
    def legacy(self) -> bool:
        """Whether this is a v1 endpoint (flat bodies, v1 errors)."""
        return self.kind == "v1"

    @property
    def needs_geocode_key(self) -> bool:
        """Whether the HD-Geocode-Key header is required."""
        return self.kind != "coordinates"


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refused with 413 INVALID_REQUEST_BODY past ``limit`` bytes (declared
    or actual); never buffers more than ``limit`` + one chunk."""
    too_large = ApiError(
        ErrorCode.INVALID_REQUEST_BODY, f"Request body exceeds {limit} bytes", status=413
    )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise too_large
    except ClientDisconnect:
        raise ApiError(ErrorCode.INVALID_REQUEST_BODY, "Request body incomplete") from None
    return bytes(body)


def parse_birth(kind: InputKind, body: dict[str, Any], services: Services) -> BirthInput:
    """The typed input of an endpoint kind."""
    if kind == "coordinates":
        return parse_coordinates_input(body)
    if kind == "location":
        return parse_location_input(body)
    return parse_v1_input(body, services.book.clock.now().date())


async def _chart(call: Call, geocode_key: str | None) -> Chart:
    charts = call.services.charts
    birth = call.birth
    if isinstance(birth, CoordinatesInput):
        return await charts.from_coordinates(
            birth.birthdate, birth.birthtime, birth.lat, birth.lng
        )
    assert geocode_key is not None
    return await charts.from_place(birth.birthdate, birth.birthtime, birth.location, geocode_key)


async def _charge_and_answer(
    endpoint: Endpoint, call: Call, geocode_key: str | None, timeout: float,
    announced: ExitStack, once: tuple[str | None, bytes],
) -> tuple[dict[str, Any], Reservation | None]:
    """Reserve a credit, make and format the chart, commit; release on any failure
    (time-out included). ``announced`` (the batching hint) is closed when the chart is
    asked for. ``once``: the Idempotency-Key (or None) and the body; a replay of an
    answered request is answered again without a charge. The body and the charge
    (None for a replay)."""
    services = call.services
    book = services.book
    reservation = await reserve_charge(services, call.principal, endpoint.path, *once)
    try:
        with anyio.fail_after(timeout):
            announced.close()
            chart = await _chart(call, geocode_key)
            if endpoint.blocking_format:
                body = await anyio.to_thread.run_sync(
                    endpoint.format, call, chart, abandon_on_cancel=True
                )
            else:
                body = endpoint.format(call, chart)
    except BaseException:
        if reservation is not None:
            with anyio.CancelScope(shield=True):
                await services.booked(book.release, reservation)
        raise
    if reservation is not None:
        await services.commits.commit(reservation)
    return body, reservation


async def _serve(endpoint: Endpoint, request: Request) -> Response:
    services = services_of(request.scope)
    admission = admission_of(request.scope)
    error = admission.auth_error()
    if error is not None:
        raise error
    principal = admission.principal
    if principal is None:  # pragma: no cover - auth_error covers every anonymous case
        raise ApiError(ErrorCode.UNAUTHORIZED)
    denied = services.book.authorize(principal, endpoint.path)  # pure: no I/O
    if denied is not None:
        raise ApiError(ErrorCode.ACCESS_DENIED, denied.message)
    if not admission.decision.allowed:
        raise ApiError(
            ErrorCode.RATE_LIMIT_EXCEEDED,
            headers={"Retry-After": str(admission.decision.reset_seconds)},
        )
    with ExitStack() as announced:
        announced.enter_context(services.charts.upcoming())
        serve_body = endpoint.body_server or _validated
        return await serve_body(endpoint, request, services, principal, announced)


async def _validated(
    endpoint: Endpoint,
    request: Request,
    services: Services,
    principal: Principal,
    announced: ExitStack,
) -> Response:
    geocode_key: str | None = None
    if endpoint.needs_geocode_key:
        geocode_key = request.headers.get("hd-geocode-key", "").strip()
        if not geocode_key and caller_key_required(services.settings.geocoder):
            raise ApiError(
                ErrorCode.GEOCODE_KEY_MISSING, status=endpoint.geocode_key_missing_status
            )
    key = idempotency_key(request.headers)
    settings = services.settings
    try:
        with anyio.fail_after(settings.request_timeout):
            raw = await read_body(request, settings.max_body_bytes)
    except TimeoutError:
        raise ApiError(ErrorCode.INVALID_REQUEST_BODY, "Request body too slow") from None
    birth = parse_birth(endpoint.kind, parse_json_object(raw), services)
    call = Call(principal, services, birth, request_id_of(request.scope))
    try:
        body, reservation = await _charge_and_answer(
            endpoint, call, geocode_key, settings.request_timeout, announced, (key, raw)
        )
    except TimeoutError:
        raise ApiError(
            ErrorCode.INTERNAL_ERROR,
            f"Request timed out (request id {request_id_of(request.scope)})",
        ) from None
    return charged(json_response(body), reservation, services)


def handler(endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint function serving ``endpoint``."""

    async def serve(request: Request) -> Response:
        try:
            return await _serve(endpoint, request)
        except ApiError as error:
            return error_response(error, legacy=endpoint.legacy)
        except BodygraphError as exc:  # anything else: the gate's INTERNAL_ERROR
            mapped = from_library_error(exc)
            if mapped.status >= 500:
                request_id = request_id_of(request.scope)
                log_unexpected(request_id, exc)
                if mapped.code is ErrorCode.INTERNAL_ERROR:
                    mapped = internal_error(request_id)
                else:
                    mapped = ApiError(mapped.code, f"{mapped.message} (request id {request_id})")
            return error_response(mapped, legacy=endpoint.legacy)

    serve.__name__ = "serve_" + endpoint.path.strip("/").replace("/", "_").replace("-", "_")
    return serve
