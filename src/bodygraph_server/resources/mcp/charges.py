"""An SDK server middleware over the gate's admission: each tool call tiered and charged
like its matching endpoint, refused in its ``lang``; ``tools/list`` gives the tools the
key's tier may call."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, ListToolsResult, TextContent
from starlette.requests import Request
from starlette.types import Scope

from bodygraph_server.http.charging import ChargedRequest, charge, timed_out
from bodygraph_server.http.delivery import SettlingSend
from bodygraph_server.http.errors import ApiError, ErrorCode, outage_error
from bodygraph_server.http.gate import admission_of, admitted, request_id_of
from bodygraph_server.resources.mcp import MCP_PATH, SETTLING_KEY
from bodygraph_server.resources.mcp.refusals import (
    REFUSED,
    call_language,
    in_language,
    jsonrpc_error,
    refusal,
)
from bodygraph_server.services import services_of

MATCHING_ENDPOINTS: Mapping[str, str] = {
    "chart": "/v2/charts",
    "simple_chart": "/v2/charts/simple",
    "render_svg": "/v2/visual-charts",
    "transit": "/v2/transits",
    "connection": "/v2/connections",
    "penta": "/v2/pentas",
    "sensitivity": "/v2/sensitivity",
    "cycles": "/v2/cycles",
    "calendar": "/v2/calendar",
    "stability": "/v2/stability",
    "rectify": "/v2/rectifications",
    "hologenetic": "/v2/hologenetic-profiles",
    "astro": "/v2/astro/coordinates",
    "wheel": "/v2/wheel-charts/coordinates",
}
"""The endpoint whose tier a tool call takes (each costs 1 credit, as they do); a tool
missing here is Advanced (its ledger name, like every path but the simple charts')."""


def matching_endpoint(tool: str) -> str:
    """The endpoint whose tier the tool ``tool`` has."""
    return MATCHING_ENDPOINTS.get(tool) or ledger_endpoint(tool)


def ledger_endpoint(tool: str) -> str:
    """What the ledger names a call of ``tool``: ``/mcp/<tool>``."""
    return f"{MCP_PATH}/{tool}"


def tool_refusal(error: ApiError) -> CallToolResult:
    """A refused tool call: a tool error whose text is ``CODE: message`` and whose
    structured content is ``{"error": {"code", "message", "status"[, "retryAfter"]}}``."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"{error.code.value}: {error.message}")],
        structured_content={"error": refusal(error)}, is_error=True)


def failed(result: HandlerResult) -> bool:
    """Whether a tool call's result is a tool error (the SDK's middleware sees it as the
    JSON object it sends)."""
    if isinstance(result, dict):
        return result.get("isError") is True
    return isinstance(result, CallToolResult) and result.is_error


class ToolFailedError(Exception):
    """The tool answered with an error (bad input): its credit is released."""

    def __init__(self, result: HandlerResult) -> None:
        super().__init__("the tool answered with an error")
        self.result = result


class ToolCharges:
    """The middleware (``mcp.server.context.ServerMiddleware``): the rules of the module
    docstring, for the tools named ``tools`` (another name is the SDK's to refuse)."""

    def __init__(self, tools: Collection[str]) -> None:
        self.tools = frozenset(tools)

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        request = ctx.request
        if ctx.request_id is None:
            return await call_next(ctx)  # a notification: nothing to answer
        if not isinstance(request, Request):  # pragma: no cover - the transport gives one
            raise MCPError(REFUSED, "no HTTP request: the caller is unknown")
        scope = request.scope
        name = (ctx.params or {}).get("name") if ctx.method == "tools/call" else None
        lang = call_language(ctx.method, ctx.params)
        if not isinstance(name, str) or name not in self.tools:
            admission = admission_of(scope)
            error = admission.auth_error()
            if error is None and not admission.decision.allowed:
                error = ApiError(ErrorCode.RATE_LIMIT_EXCEEDED, headers={
                    "Retry-After": str(admission.decision.reset_seconds)})
            if error is not None:
                raise MCPError(**jsonrpc_error(in_language(error, lang)))
            result = await call_next(ctx)
            return self._callable(result, scope) if ctx.method == "tools/list" else result
        return await self._charged(ctx, call_next, name, request=request, lang=lang)

    def _callable(self, listed: HandlerResult, scope: Scope) -> HandlerResult:
        """The tools of a ``tools/list`` result the caller's tier may call."""
        principal = admission_of(scope).principal
        book = services_of(scope).book

        def shown(tool: str) -> bool:
            return tool not in self.tools or (principal is not None and book.authorize(
                principal, matching_endpoint(tool)) is None)

        if isinstance(listed, ListToolsResult):
            return listed.model_copy(
                update={"tools": [tool for tool in listed.tools if shown(tool.name)]})
        if isinstance(listed, dict) and isinstance(listed.get("tools"), list):
            return {**listed, "tools": [tool for tool in listed["tools"]
                                        if shown(str(tool.get("name")))]}
        return listed  # pragma: no cover - the SDK lists tools in one of the two forms

    async def _charged(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext,
                       name: str, *, request: Request, lang: str | None) -> HandlerResult:
        """The tool call: admitted, tiered, charged; released when it fails; a refusal
        said in ``lang``."""
        scope = request.scope
        services = services_of(scope)

        async def work() -> HandlerResult:
            result = await call_next(ctx)
            if failed(result):
                raise ToolFailedError(result)
            return result

        try:
            principal = admitted(scope, matching_endpoint(name))
            charged = ChargedRequest(principal, ledger_endpoint(name), None, b"")
            result, reservation = await charge(services, charged,
                                               services.settings.request_timeout, work)
        except ApiError as error:
            return tool_refusal(in_language(error, lang))
        except ToolFailedError as tool_error:
            return tool_error.result
        except TimeoutError:
            return tool_refusal(in_language(timed_out(request_id_of(scope)), lang))
        except Exception as exc:
            outage = outage_error(exc)  # the database is down: SERVICE_UNAVAILABLE
            if outage is None:
                raise
            return tool_refusal(in_language(outage, lang))
        settling = scope.get(SETTLING_KEY)
        if reservation is not None and isinstance(settling, SettlingSend):
            settling.charges.append(reservation)
        return result
