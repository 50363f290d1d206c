"""How the MCP endpoint words a refusal: the contract's code, message and status as
JSON-RPC error data (the message in a tool call's ``lang``), and the HTTP refusal that is
both the error envelope and a JSON-RPC error (so that MCP clients show its message)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.responses import Response

from bodygraph.catalog.translations import LANGUAGES
from bodygraph_server.http.envelope import json_response, v2_error
from bodygraph_server.http.error_words import translated
from bodygraph_server.http.errors import ApiError
from bodygraph_server.http.language import LANG

REFUSED = -32000
"""The JSON-RPC error code of a refused message (the contract's code is in its data)."""
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="bodygraph"'}


def call_language(method: str, params: Mapping[str, Any] | None) -> str | None:
    """The language of a ``tools/call``'s refusals: its arguments' ``lang`` when it is a
    supported code (else None: English, as the tool's own check then says)."""
    arguments = (params or {}).get("arguments") if method == "tools/call" else None
    lang = arguments.get(LANG) if isinstance(arguments, Mapping) else None
    return lang if isinstance(lang, str) and lang in LANGUAGES else None


def in_language(error: ApiError, lang: str | None) -> ApiError:
    """``error`` with its message in ``lang`` (the service's error words; the code, status
    and headers kept); unchanged without one."""
    if lang is None:
        return error
    return ApiError(error.code, translated(error.message, lang), status=error.status,
                    headers=error.headers)


def refusal(error: ApiError) -> dict[str, Any]:
    """The contract's code, message and status of ``error`` (and ``retryAfter``)."""
    data: dict[str, Any] = {"code": error.code.value, "message": error.message,
                            "status": error.status}
    retry_after = error.headers.get("Retry-After")
    if retry_after is not None:
        data["retryAfter"] = int(retry_after)
    return data


def jsonrpc_error(error: ApiError) -> dict[str, Any]:
    """The JSON-RPC ``error`` object of a refused message."""
    return {"code": REFUSED, "message": f"{error.code.value}: {error.message}",
            "data": refusal(error)}


def http_refusal(error: ApiError) -> Response:
    """The HTTP answer refusing a caller: the v2 error envelope with ``jsonrpc``, ``id``
    (null) and ``error`` added, and ``WWW-Authenticate`` on a 401."""
    body = {**v2_error(error), "jsonrpc": "2.0", "id": None, "error": jsonrpc_error(error)}
    challenge = CHALLENGE if error.status == 401 else {}
    return json_response(body, error.status, {**error.headers, **challenge})


def refusal_schema(envelope: dict[str, Any]) -> dict[str, Any]:
    """The schema of :func:`http_refusal`'s body, from the error envelope's."""
    properties = {**envelope["properties"], "jsonrpc": {"const": "2.0"}, "id": {"type": "null"},
                  "error": {"type": "object", "required": ["code", "message", "data"],
                            "properties": {"code": {"const": REFUSED},
                                           "message": {"type": "string"},
                                           "data": {"type": "object"}}}}
    return {**envelope, "required": [*envelope["required"], "jsonrpc", "id", "error"],
            "properties": properties,
            "description": "The error envelope, also a JSON-RPC error (for MCP clients)."}
