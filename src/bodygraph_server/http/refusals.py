"""The app's exception handlers: a refusal, a library error or a routing refusal is
answered here, once, in the body format of the path (v1 or the v2 envelope), its message
in the asked language on v2."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from bodygraph.errors import BodygraphError
from bodygraph_server.http.envelope import error_response
from bodygraph_server.http.error_words import spoken
from bodygraph_server.http.errors import ApiError, ErrorCode, from_library_error
from bodygraph_server.http.gate import api_version, internal_error, log_unexpected, request_id_of
from bodygraph_server.http.language import answer_language

_HTTP_CODES = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED}


def _answer(request: Request, error: ApiError) -> Response:
    error = spoken(error, answer_language(request))  # v2 with lang: http/error_words.py
    return error_response(error, legacy=api_version(request.url.path) == "v1")


async def refused(request: Request, exc: Exception) -> Response:
    """An :class:`ApiError` raised by an operation."""
    assert isinstance(exc, ApiError)
    return _answer(request, exc)


async def library_failed(request: Request, exc: Exception) -> Response:
    """A library error: its contract code (:func:`from_library_error`); a 5xx is logged
    (type and stack, never the text) and names the request id."""
    mapped = from_library_error(exc)
    if mapped.status >= 500:
        request_id = request_id_of(request.scope)
        log_unexpected(request_id, exc)
        if mapped.code is ErrorCode.INTERNAL_ERROR:
            mapped = internal_error(request_id)
        else:
            mapped = ApiError(mapped.code, f"{mapped.message} (request id {request_id})")
    return _answer(request, mapped)


async def not_routed(request: Request, exc: Exception) -> Response:
    """Routing refusals (unknown path, wrong method)."""
    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, ErrorCode.INVALID_REQUEST_BODY)
    return _answer(request, ApiError(code, status=exc.status_code, headers=exc.headers))


EXCEPTION_HANDLERS: Mapping[type[Exception], Callable[[Request, Exception],
                                                      Awaitable[Response]]] = {
    ApiError: refused,
    BodygraphError: library_failed,
    HTTPException: not_routed,
}
"""Starlette's ``exception_handlers`` of the app."""
