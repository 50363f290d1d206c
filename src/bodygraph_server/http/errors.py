"""The contract's error codes (section 7) in one table, the one exception type that carries
them (:class:`ApiError`), and the one table from the library's exception classes to codes."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from types import MappingProxyType

from bodygraph_server.store import DatabaseUnavailableError

LOG = logging.getLogger("bodygraph_server")

#: Seconds a client should wait before retrying a 503 SERVICE_UNAVAILABLE.
RETRY_AFTER_OUTAGE = 2


class ErrorCode(StrEnum):
    """The machine-readable ``errorCode`` values of the contract."""

    API_KEY_MISSING = "API_KEY_MISSING"
    API_KEY_INVALID = "API_KEY_INVALID"
    UNAUTHORIZED = "UNAUTHORIZED"
    GEOCODE_KEY_MISSING = "GEOCODE_KEY_MISSING"
    CREDITS_EXHAUSTED = "CREDITS_EXHAUSTED"
    ACCESS_DENIED = "ACCESS_DENIED"
    ACCOUNT_INACTIVE = "ACCOUNT_INACTIVE"
    INVALID_BIRTHDATE = "INVALID_BIRTHDATE"
    INVALID_BIRTHTIME = "INVALID_BIRTHTIME"
    INVALID_LOCATION = "INVALID_LOCATION"
    INVALID_LATITUDE = "INVALID_LATITUDE"
    INVALID_LONGITUDE = "INVALID_LONGITUDE"
    MISSING_REQUIRED_FIELD = "MISSING_REQUIRED_FIELD"
    INVALID_REQUEST_BODY = "INVALID_REQUEST_BODY"
    GEOCODE_FAILED = "GEOCODE_FAILED"
    GEOCODE_KEY_INVALID = "GEOCODE_KEY_INVALID"
    GEOCODE_LOCATION_NOT_FOUND = "GEOCODE_LOCATION_NOT_FOUND"
    GEOCODE_RATE_LIMITED = "GEOCODE_RATE_LIMITED"
    RATE_LIMIT_EXCEEDED = "RATE_LIMIT_EXCEEDED"
    TIMEZONE_LOOKUP_FAILED = "TIMEZONE_LOOKUP_FAILED"
    EPHEMERIS_ERROR = "EPHEMERIS_ERROR"
    CHART_GENERATION_FAILED = "CHART_GENERATION_FAILED"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    # Not in section 7: the transport-level refusals of unknown paths and methods.
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    # Extension (docs/api.md, "Languages"): an unknown ``lang``.
    INVALID_LANGUAGE = "INVALID_LANGUAGE"
    # Extensions (docs/api.md): an outage of the database instead of a 500, and the
    # Idempotency-Key header.
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"
    IDEMPOTENCY_KEY_INVALID = "IDEMPOTENCY_KEY_INVALID"
    IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
    IDEMPOTENCY_KEY_IN_USE = "IDEMPOTENCY_KEY_IN_USE"
    # Extension: an option of an extension's body that names nothing known.
    INVALID_OPTION = "INVALID_OPTION"


@dataclass(frozen=True, slots=True)
class ErrorSpec:
    """The HTTP status of a code and the message used when the raiser gives none."""

    status: int
    message: str


ERROR_TABLE: Mapping[ErrorCode, ErrorSpec] = MappingProxyType(
    {
        ErrorCode.API_KEY_MISSING: ErrorSpec(401, "API key missing"),
        ErrorCode.API_KEY_INVALID: ErrorSpec(401, "API key invalid or deactivated"),
        ErrorCode.UNAUTHORIZED: ErrorSpec(401, "Authentication failed"),
        ErrorCode.GEOCODE_KEY_MISSING: ErrorSpec(401, "HD-Geocode-Key header missing"),
        ErrorCode.CREDITS_EXHAUSTED: ErrorSpec(402, "No credits left and overage is disabled"),
        ErrorCode.ACCESS_DENIED: ErrorSpec(403, "Your plan does not include this endpoint"),
        ErrorCode.ACCOUNT_INACTIVE: ErrorSpec(403, "Account is inactive"),
        ErrorCode.INVALID_BIRTHDATE: ErrorSpec(400, "birthdate must be a valid date YYYY-MM-DD"),
        ErrorCode.INVALID_BIRTHTIME: ErrorSpec(400, "birthtime must be a valid time HH:MM"),
        ErrorCode.INVALID_LOCATION: ErrorSpec(400, "location must be 4 to 200 characters"),
        ErrorCode.INVALID_LATITUDE: ErrorSpec(400, "lat must be a number from -90 to 90"),
        ErrorCode.INVALID_LONGITUDE: ErrorSpec(400, "lng must be a number from -180 to 180"),
        ErrorCode.MISSING_REQUIRED_FIELD: ErrorSpec(400, "A required field is missing"),
        ErrorCode.INVALID_REQUEST_BODY: ErrorSpec(422, "Request body is malformed"),
        ErrorCode.GEOCODE_FAILED: ErrorSpec(400, "The geocoding service returned an error"),
        ErrorCode.GEOCODE_KEY_INVALID: ErrorSpec(400, "Geocoding key invalid or restricted"),
        ErrorCode.GEOCODE_LOCATION_NOT_FOUND: ErrorSpec(400, "Location could not be geocoded"),
        ErrorCode.GEOCODE_RATE_LIMITED: ErrorSpec(429, "Geocoding service rate limit exceeded"),
        ErrorCode.RATE_LIMIT_EXCEEDED: ErrorSpec(429, "Rate limit exceeded"),
        ErrorCode.TIMEZONE_LOOKUP_FAILED: ErrorSpec(
            500, "Time zone could not be determined for the place"
        ),
        ErrorCode.EPHEMERIS_ERROR: ErrorSpec(500, "Astronomical calculation failed"),
        ErrorCode.CHART_GENERATION_FAILED: ErrorSpec(500, "Chart generation failed"),
        ErrorCode.INTERNAL_ERROR: ErrorSpec(500, "Internal server error"),
        ErrorCode.NOT_FOUND: ErrorSpec(404, "Not found"),
        ErrorCode.METHOD_NOT_ALLOWED: ErrorSpec(405, "Method not allowed"),
        ErrorCode.INVALID_LANGUAGE: ErrorSpec(400, "lang is not a supported language"),
        ErrorCode.SERVICE_UNAVAILABLE: ErrorSpec(
            503, "The service is temporarily unavailable; retry after Retry-After seconds"
        ),
        ErrorCode.IDEMPOTENCY_KEY_INVALID: ErrorSpec(
            400, "Idempotency-Key must be 1 to 255 visible ASCII characters, sent once"
        ),
        ErrorCode.IDEMPOTENCY_KEY_REUSED: ErrorSpec(
            422, "Idempotency-Key was already used with another request"
        ),
        ErrorCode.IDEMPOTENCY_KEY_IN_USE: ErrorSpec(
            409, "A request with this Idempotency-Key is still in progress; retry later"
        ),
        ErrorCode.INVALID_OPTION: ErrorSpec(
            400, "An option names nothing known; the message lists the valid values"
        ),
    }
)
"""Code -> (status, default message). The single source of the statuses."""

#: Statuses that differ from the table on particular endpoints. The contract gives
#: GEOCODE_KEY_MISSING as 400 in the visual-charts description (401 elsewhere).
STATUS_OVERRIDE_VISUAL: Mapping[ErrorCode, int] = MappingProxyType(
    {ErrorCode.GEOCODE_KEY_MISSING: 400}
)


class ApiError(Exception):
    """A refusal with a contract error code.

    ``status`` overrides the table's status (used only for the documented per-endpoint
    differences); ``headers`` are added to the response (for example Retry-After).
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str | None = None,
        *,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        spec = ERROR_TABLE[code]
        self.code = code
        self.message = message if message is not None else spec.message
        self.status = status if status is not None else spec.status
        self.headers: dict[str, str] = dict(headers or {})
        super().__init__(f"{code.value}: {self.message}")


_last_outage_log = [0.0]


def outage_error(exc: BaseException) -> ApiError | None:
    """SERVICE_UNAVAILABLE (503, ``Retry-After``) when ``exc`` is an outage of the
    database (unreachable, or locked by another program), else None. Logged at most once
    every 10 s (an outage fails every request)."""
    if not isinstance(exc, DatabaseUnavailableError):
        return None
    now = time.monotonic()
    if now - _last_outage_log[0] >= 10.0:
        _last_outage_log[0] = now
        LOG.warning("database unavailable, answering 503: %s", exc)
    return ApiError(ErrorCode.SERVICE_UNAVAILABLE,
                    headers={"Retry-After": str(RETRY_AFTER_OUTAGE)})


@cache
def library_errors() -> tuple[tuple[type[BaseException], ErrorCode], ...]:
    """The one table from the library's exception classes to the contract's codes, the
    most specific class first (the first class an exception is an instance of decides)."""
    from bodygraph.errors import (
        BodygraphError,
        EphemerisError,
        InvalidInstantError,
        InvalidOptionError,
    )
    from bodygraph.geo.birthtime import InvalidBirthDateError, InvalidBirthTimeError
    from bodygraph.geo.coordinates import (
        InvalidLatitudeError,
        InvalidLongitudeError,
        PlaceError,
    )
    from bodygraph.geo.places.base import (
        GeocodeError,
        GeocodeKeyInvalidError,
        GeocodeKeyMissingError,
        GeocodeRateLimitedError,
        InvalidLocationError,
        LocationNotFoundError,
    )
    from bodygraph.geo.timezones import TimezoneLookupError

    return (
        (InvalidLocationError, ErrorCode.INVALID_LOCATION),
        (GeocodeKeyMissingError, ErrorCode.GEOCODE_KEY_MISSING),
        (GeocodeKeyInvalidError, ErrorCode.GEOCODE_KEY_INVALID),
        (LocationNotFoundError, ErrorCode.GEOCODE_LOCATION_NOT_FOUND),
        (GeocodeRateLimitedError, ErrorCode.GEOCODE_RATE_LIMITED),
        (GeocodeError, ErrorCode.GEOCODE_FAILED),
        (InvalidLatitudeError, ErrorCode.INVALID_LATITUDE),
        (InvalidLongitudeError, ErrorCode.INVALID_LONGITUDE),
        (PlaceError, ErrorCode.INTERNAL_ERROR),
        (InvalidBirthDateError, ErrorCode.INVALID_BIRTHDATE),
        (InvalidBirthTimeError, ErrorCode.INVALID_BIRTHTIME),
        (TimezoneLookupError, ErrorCode.TIMEZONE_LOOKUP_FAILED),
        (InvalidInstantError, ErrorCode.INVALID_BIRTHDATE),
        (InvalidOptionError, ErrorCode.INVALID_OPTION),
        (EphemerisError, ErrorCode.EPHEMERIS_ERROR),
        (BodygraphError, ErrorCode.CHART_GENERATION_FAILED),
    )


def from_library_error(exc: BaseException) -> ApiError:
    """The contract's refusal of an exception raised while charting: the code of
    :func:`library_errors` with the table's fixed message (never the exception text, which
    may hold the caller's birth data or place); anything else INTERNAL_ERROR. A date
    outside the ephemeris (``OutOfRangeError``) is INVALID_BIRTHDATE naming the range when
    it is a birth's, INVALID_REQUEST_BODY when a search or another instant of the request
    reaches outside (the library names it: ``reaching``)."""
    from bodygraph.errors import OutOfRangeError

    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, OutOfRangeError) and exc.reaching is not None:
        return ApiError(
            ErrorCode.INVALID_REQUEST_BODY,
            f"{exc.reaching} reaches outside the supported range of dates "
            f"({exc.first.year} to {exc.last.year})",
        )
    if isinstance(exc, OutOfRangeError):
        return ApiError(
            ErrorCode.INVALID_BIRTHDATE,
            "birthdate is outside the supported range: births from "
            f"{exc.first:%Y-%m-%d %H:%M} UTC to {exc.last:%Y-%m-%d %H:%M} UTC",
        )
    for kind, code in library_errors():
        if isinstance(exc, kind):
            return _coded(code, exc)
    return ApiError(ErrorCode.INTERNAL_ERROR)


def _coded(code: ErrorCode, exc: BaseException) -> ApiError:
    """The table's message of ``code`` (for INVALID_OPTION the library's own, which names
    the option and its valid values, never a birth), close matches of an unknown place,
    Retry-After of a geocoding rate limit."""
    message = str(exc) if code is ErrorCode.INVALID_OPTION else ERROR_TABLE[code].message
    suggestions = getattr(exc, "suggestions", ())
    if code is ErrorCode.GEOCODE_LOCATION_NOT_FOUND and suggestions:
        message += "; close matches: " + "; ".join(str(s) for s in suggestions)
    headers: dict[str, str] = {}
    retry_after = getattr(exc, "retry_after", None)
    if isinstance(retry_after, int | float) and retry_after >= 0:
        headers["Retry-After"] = str(max(1, math.ceil(retry_after)))
    return ApiError(code, message, headers=headers)
