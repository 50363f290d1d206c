"""``POST /mcp``: the MCP server's tools (:data:`bodygraph_mcp.tools.TOOLS`) over MCP's
Streamable HTTP transport (the official SDK's session manager, stateless, JSON answers),
for an ``Authorization: Bearer`` API key; the rules: docs/mcp.md, "The remote endpoint"."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.bodies import read_raw_body
from bodygraph_server.http.delivery import SettlingSend
from bodygraph_server.http.envelope import error_schemas
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.gate import admission_of
from bodygraph_server.http.operation import Answer, Operation
from bodygraph_server.resources.mcp import MCP_PATH, SETTLING_KEY
from bodygraph_server.resources.mcp.refusals import http_refusal, refusal_schema
from bodygraph_server.services import Services, services_of

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

MESSAGE = "McpMessage"
ANSWER = "McpAnswer"
REFUSAL = "McpRefusal"
CHALLENGE_HEADER = {"WWW-Authenticate": {"description": 'Bearer realm="bodygraph"',
                                         "schema": {"type": "string"}}}
#: What the endpoint answers over HTTP: a caller it cannot identify. Every other refusal
#: (inactive account, tier, rate limit, credits) is an MCP error in a 200 answer.
HTTP_CODES = (ErrorCode.API_KEY_MISSING, ErrorCode.API_KEY_INVALID, ErrorCode.UNAUTHORIZED,
              ErrorCode.RATE_LIMIT_EXCEEDED, ErrorCode.METHOD_NOT_ALLOWED)


class Transported(Response):
    """The answer the MCP transport writes itself to the message ``body`` (already read);
    the tool calls' charges are settled by whether it was written
    (:class:`~bodygraph_server.http.delivery.SettlingSend`)."""

    def __init__(self, manager: StreamableHTTPSessionManager, services: Services,
                 body: bytes) -> None:
        # Not Response.__init__: the transport makes the status, headers and body.
        self.manager = manager
        self.services = services
        self.body = body
        self.background = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        settling = SettlingSend(send, scope, self.services)
        scope[SETTLING_KEY] = settling
        given = False

        async def replay() -> Message:
            nonlocal given
            if given:
                return await receive()
            given = True
            return {"type": "http.request", "body": self.body, "more_body": False}

        await self.manager.handle_request(scope, replay, settling)


class RemoteMcp:
    """The endpoint of one app: its session manager runs in the app's lifespan."""

    def __init__(self) -> None:
        self.manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self, services: Services) -> AsyncIterator[None]:
        """The MCP server with every tool of the registry and :class:`ToolCharges`, and
        its session manager running while the app serves."""
        from mcp.server.transport_security import TransportSecuritySettings

        from bodygraph_mcp.server import create_server
        from bodygraph_mcp.tools import TOOLS
        from bodygraph_server.resources.mcp.charges import ToolCharges

        root = logging.getLogger()  # the SDK's server configures the root logger: undone
        handlers, level = list(root.handlers), root.level
        server = create_server()
        root.handlers[:] = handlers
        root.setLevel(level)
        server.middleware.append(ToolCharges([tool.__name__ for tool in TOOLS]))
        # The trusted hosts are the app's (TrustedHosts), not the SDK's localhost rule.
        server.streamable_http_app(
            streamable_http_path=MCP_PATH, stateless_http=True, json_response=True,
            max_request_body_size=services.settings.max_body_bytes,
            transport_security=TransportSecuritySettings(
                enable_dns_rebinding_protection=False))
        manager = server.session_manager
        async with manager.run():
            self.manager = manager
            try:
                yield
            finally:
                self.manager = None

    async def serve(self, request: Request) -> Response:
        """Refuse a caller the key does not identify (401, or 429 after many unknown
        keys), then a body too large (413) or too slow (422) as every operation does;
        hand the others' messages to the transport."""
        error = admission_of(request.scope).auth_error()
        if error is not None and error.code is not ErrorCode.ACCOUNT_INACTIVE:
            return http_refusal(error)
        if self.manager is None:  # pragma: no cover - the lifespan runs before requests
            raise ApiError(ErrorCode.SERVICE_UNAVAILABLE)
        services = services_of(request.scope)
        try:
            body = await read_raw_body(request, services)
        except ApiError as refused:
            return http_refusal(refused)
        return Transported(self.manager, services, body)


def mcp_operations() -> tuple[Operation, ...]:
    """The endpoint's operation (one per app: it owns its session manager)."""
    remote = RemoteMcp()
    return (Operation(
        method="POST", path=MCP_PATH, summary=pgettext("openapi", "MCP tools (Streamable HTTP)"),
        description=pgettext(
            "openapi", "The MCP server's tools (chart, simple_chart, render_svg, transit, ...) "
            "over MCP's Streamable HTTP transport, for an MCP client: one JSON-RPC message a "
            "request, answered as JSON (no session: any worker answers). Each tool call costs 1 "
            "credit and has the tier of its matching endpoint (a Basic key: simple_chart only); "
            "a refused call is a tool error with the contract's code and message, other refused "
            'messages a JSON-RPC error (docs/mcp.md, "The remote endpoint").'),
        handler=remote.serve, tags=("mcp",), key="bearer", cost=1, request_body=MESSAGE,
        success=Answer(description="the JSON-RPC answer (a tool's result or error inside)",
                       schema={"$ref": "#/components/schemas/" + ANSWER}),
        error_codes=HTTP_CODES, operation_id="mcp", running=remote.running,
        refusals={
            **{status: Answer(description=f"{codes} (also a JSON-RPC error)",
                              schema={"$ref": "#/components/schemas/" + REFUSAL},
                              headers=CHALLENGE_HEADER if status == 401 else {})
               for status, codes in ((401, "API_KEY_MISSING, API_KEY_INVALID, "
                                      "UNAUTHORIZED"),
                                     (413, "INVALID_REQUEST_BODY (a body over the size "
                                      "limit)"),
                                     (429, "RATE_LIMIT_EXCEEDED (unknown keys)"))},
            **{status: Answer(description=f"the MCP transport's refusal: {what} (a "
                              "JSON-RPC error)",
                              schema={"$ref": "#/components/schemas/" + ANSWER})
               for status, what in ((400, "not a JSON-RPC message of MCP (a Content-Type "
                                     "other than application/json: a line of text)"),
                                    (406, "Accept lacks application/json and "
                                     "text/event-stream"))}},
        parameters=({"name": "Accept", "in": "header", "required": True,
                     "description": pgettext(
                         "openapi", "application/json, text/event-stream (as MCP clients "
                         "send it)"), "schema": {"type": "string"}},),
    ),)


def schemas() -> dict[str, Any]:
    """The JSON-RPC 2.0 message and answer (their MCP content: the MCP specification), and
    the HTTP refusal."""
    return {
        REFUSAL: refusal_schema(error_schemas()["ErrorEnvelope"]),
        MESSAGE: {"type": "object", "required": ["jsonrpc", "method"],
                  "description": "A JSON-RPC 2.0 request or notification of MCP, e.g. "
                  "initialize, tools/list, tools/call.",
                  "properties": {"jsonrpc": {"const": "2.0"},
                                 "id": {"type": ["string", "integer"]},
                                 "method": {"type": "string"},
                                 "params": {"type": "object"}}},
        ANSWER: {"type": "object", "required": ["jsonrpc"],
                 "description": "A JSON-RPC 2.0 answer: result, or error (a refused "
                 "message: error.data holds the contract's code, message and status).",
                 "properties": {"jsonrpc": {"const": "2.0"},
                                "id": {"type": ["string", "integer", "null"]},
                                "result": {"type": "object"},
                                "error": {"type": "object"}}},
    }
