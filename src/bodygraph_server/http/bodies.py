"""Reading a request body: at most a limit of bytes, within the request time-out, as one
JSON object (strict JSON, UTF-8); a v2 body's ``"lang"`` is checked as it is read."""

from __future__ import annotations

import json
from typing import Any

import anyio
from starlette.requests import ClientDisconnect, Request

from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.language import LANG, asked_of
from bodygraph_server.services import Services


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


async def read_raw_body(request: Request, services: Services, limit: int = 0) -> bytes:
    """The body's bytes: 413 past ``limit`` bytes (by default the settings'
    ``max_body_bytes``), 422 when too slow."""
    settings = services.settings
    try:
        with anyio.fail_after(settings.request_timeout):
            raw = await read_body(request, limit or settings.max_body_bytes)
    except TimeoutError:
        raise ApiError(ErrorCode.INVALID_REQUEST_BODY, "Request body too slow") from None
    _settle_language(request, raw)
    return raw


def _settle_language(request: Request, raw: bytes) -> None:
    """The body's ``"lang"`` of a v2 request, checked before its fields (a body that is
    not a JSON object is left to its operation to refuse)."""
    asked = asked_of(request.scope)
    if asked is None or (b"lang" not in raw and b"\\" not in raw):
        return
    try:
        body = parse_json_object(raw)
    except ApiError:
        return
    asked.settle(body.get(LANG))


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def parse_json_object(raw: bytes) -> dict[str, Any]:
    """The body as a JSON object, or INVALID_REQUEST_BODY."""
    if not raw.strip():
        raise ApiError(ErrorCode.INVALID_REQUEST_BODY, "Request body is empty")
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise ApiError(ErrorCode.INVALID_REQUEST_BODY, "Request body is not valid JSON") from None
    if not isinstance(value, dict):
        raise ApiError(ErrorCode.INVALID_REQUEST_BODY, "Request body must be a JSON object")
    return value
