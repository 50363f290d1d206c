"""The MCP server: the official SDK's :class:`MCPServer` with the tools of
:mod:`bodygraph_mcp.tools` (each computed locally by the library: no API key, no
network)."""

from __future__ import annotations

from functools import cache
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations

import bodygraph
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


def create_server() -> MCPServer[Any]:
    """A server offering every tool of :data:`~bodygraph_mcp.tools.TOOLS`."""
    server: MCPServer[Any] = MCPServer(
        "bodygraph", title="bodygraph", version=bodygraph.__version__,
        instructions=INSTRUCTIONS, log_level="WARNING", tools=list(_tools()),
    )
    return server
