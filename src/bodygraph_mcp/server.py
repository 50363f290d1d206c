"""The MCP server: the official SDK's :class:`MCPServer` with the tools of
:mod:`bodygraph_mcp.tools` (each computed locally by the library: no API key, no
network), whose errors are said in the call's ``lang`` (:mod:`bodygraph_mcp.tool_errors`)."""

from __future__ import annotations

from functools import cache
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations

import bodygraph
from bodygraph_mcp.tool_errors import in_language
from bodygraph_mcp.tools import TOOLS

INSTRUCTIONS = (
    "Human Design charts (bodygraphs) computed locally from JPL ephemerides. Give a birth "
    "as a local date and time with a place name or coordinates, or as a UTC instant. Each "
    "result has a one-line summary to quote and the full data as structured content."
)


@cache
def _tools() -> tuple[Tool, ...]:
    """The SDK's description of every tool (their arguments' models and JSON schemas),
    made once per process and shared by its servers: the service's app makes a server in
    every lifespan, and the tests run hundreds of apps (docs/performance.md)."""
    annotations = ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                  open_world_hint=False)
    return tuple(Tool.from_function(tool, annotations=annotations) for tool in TOOLS)


class SpeakingServer(MCPServer[Any]):
    """The SDK's server, a tool call's failure (its arguments' validation, the tool's own
    refusal, an unknown tool) said in the call's ``lang``: the same tool error
    (``isError``), its text in the language."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None,
                        ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as failed:
            text = in_language(failed, name, arguments)
            if text is None:
                raise
            kind = UnexpectedToolError if isinstance(failed, UnexpectedToolError) else ToolError
            raise kind(text) from failed.__cause__


def create_server() -> MCPServer[Any]:
    """A server offering every tool of :data:`~bodygraph_mcp.tools.TOOLS`."""
    server = SpeakingServer(
        "bodygraph", title="bodygraph", version=bodygraph.__version__,
        instructions=INSTRUCTIONS, log_level="WARNING", tools=list(_tools()),
    )
    return server
