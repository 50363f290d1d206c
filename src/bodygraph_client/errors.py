"""The client's errors: one class per errorCode family of the contract (section 7).

Every refusal of the service is a :class:`BodygraphApiError` carrying ``error_code`` (the
contract's machine-readable code; empty for v1 answers, which report the HTTP status
only), ``message`` (the service's text, for people) and ``status``. Program logic should
branch on the class or on ``error_code``, never on ``message``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class BodygraphClientError(Exception):
    """Anything the client raises."""


class ServiceUnreachable(BodygraphClientError):
    """The request did not get an answer (connection refused, time-out, broken link)."""


class BodygraphApiError(BodygraphClientError):
    """The service answered with an error."""

    def __init__(self, message: str, *, error_code: str = "", status: int = 0) -> None:
        self.error_code = error_code
        self.message = message
        self.status = status
        label = error_code or f"HTTP {status}"
        super().__init__(f"{label}: {message}")


class AuthError(BodygraphApiError):
    """401: API key missing, unknown, rotated or malformed (API_KEY_MISSING,
    API_KEY_INVALID, UNAUTHORIZED)."""


class AccessDenied(BodygraphApiError):
    """403: the plan's tier does not include the endpoint (ACCESS_DENIED), or the account
    is deactivated (ACCOUNT_INACTIVE)."""


class CreditsExhausted(BodygraphApiError):
    """402 CREDITS_EXHAUSTED: no credits left and overage disabled."""


class RateLimited(BodygraphApiError):
    """429: too many requests (RATE_LIMIT_EXCEEDED) or the geocoding service's limit
    (GEOCODE_RATE_LIMITED); ``retry_after`` is the wait in seconds the service asked for
    (``None`` when it gave none)."""

    def __init__(
        self, message: str, *, error_code: str = "", status: int = 429,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, error_code=error_code, status=status)
        self.retry_after = retry_after


class InvalidInput(BodygraphApiError):
    """400/413/422: a field is missing or out of its format or bounds (INVALID_BIRTHDATE,
    INVALID_BIRTHTIME, INVALID_LOCATION, INVALID_LATITUDE, INVALID_LONGITUDE,
    MISSING_REQUIRED_FIELD, INVALID_REQUEST_BODY), or an unknown language
    (INVALID_LANGUAGE)."""


class GeocodeError(BodygraphApiError):
    """The location could not be turned into coordinates: geocoding key missing or
    invalid, the place not found, the geocoding service failing (GEOCODE_KEY_MISSING,
    GEOCODE_KEY_INVALID, GEOCODE_LOCATION_NOT_FOUND, GEOCODE_FAILED)."""


class EndpointNotFound(BodygraphApiError):
    """404/405: the service has no such endpoint (NOT_FOUND, METHOD_NOT_ALLOWED), for
    example an older service without an endpoint this client knows."""


class ServerError(BodygraphApiError):
    """5xx: the service failed (TIMEZONE_LOOKUP_FAILED, EPHEMERIS_ERROR,
    CHART_GENERATION_FAILED, INTERNAL_ERROR, or an unavailable service)."""


_BY_CODE: Mapping[str, type[BodygraphApiError]] = {
    "API_KEY_MISSING": AuthError,
    "API_KEY_INVALID": AuthError,
    "UNAUTHORIZED": AuthError,
    "ACCESS_DENIED": AccessDenied,
    "ACCOUNT_INACTIVE": AccessDenied,
    "CREDITS_EXHAUSTED": CreditsExhausted,
    "RATE_LIMIT_EXCEEDED": RateLimited,
    "GEOCODE_RATE_LIMITED": RateLimited,
    "INVALID_BIRTHDATE": InvalidInput,
    "INVALID_BIRTHTIME": InvalidInput,
    "INVALID_LOCATION": InvalidInput,
    "INVALID_LATITUDE": InvalidInput,
    "INVALID_LONGITUDE": InvalidInput,
    "MISSING_REQUIRED_FIELD": InvalidInput,
    "INVALID_REQUEST_BODY": InvalidInput,
    "INVALID_LANGUAGE": InvalidInput,
    "GEOCODE_KEY_MISSING": GeocodeError,
    "GEOCODE_KEY_INVALID": GeocodeError,
    "GEOCODE_LOCATION_NOT_FOUND": GeocodeError,
    "GEOCODE_FAILED": GeocodeError,
    "NOT_FOUND": EndpointNotFound,
    "METHOD_NOT_ALLOWED": EndpointNotFound,
    "TIMEZONE_LOOKUP_FAILED": ServerError,
    "EPHEMERIS_ERROR": ServerError,
    "CHART_GENERATION_FAILED": ServerError,
    "INTERNAL_ERROR": ServerError,
}
"""errorCode -> class: the families of the contract's error table."""

_BY_STATUS: Mapping[int, type[BodygraphApiError]] = {
    400: InvalidInput, 401: AuthError, 402: CreditsExhausted, 403: AccessDenied,
    404: EndpointNotFound, 405: EndpointNotFound, 413: InvalidInput, 422: InvalidInput,
    429: RateLimited,
}
"""HTTP status -> class, for v1 answers (no errorCode) and codes this client does not know."""


def error_class(error_code: str, status: int) -> type[BodygraphApiError]:
    """The class of a refusal: by errorCode when known, else by HTTP status."""
    if error_code in _BY_CODE:
        return _BY_CODE[error_code]
    if status >= 500:
        return ServerError
    return _BY_STATUS.get(status, BodygraphApiError)


def api_error(
    status: int, content: bytes, reason: str, retry_after: float | None
) -> BodygraphApiError:
    """The exception of an error answer: v2 envelope (``errorCode``, ``message``), v1 body
    (``message``) or anything else (the HTTP reason phrase)."""
    body: Any
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    fields: Mapping[str, Any] = body if isinstance(body, dict) else {}
    code = fields.get("errorCode")
    error_code = code if isinstance(code, str) else ""
    text = fields.get("message")
    message = text if isinstance(text, str) and text else reason or f"HTTP {status}"
    cls = error_class(error_code, status)
    if issubclass(cls, RateLimited):
        return cls(message, error_code=error_code, status=status, retry_after=retry_after)
    return cls(message, error_code=error_code, status=status)
