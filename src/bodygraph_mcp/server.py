"""The MCP server: the official SDK's :class:`MCPServer` with the tools of
:mod:`bodygraph_mcp.tools` (each computed locally by the library: no API key, no
network)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

import bodygraph
from bodygraph_mcp.tools import TOOLS

INSTRUCTIONS = (
    "Human Design charts (bodygraphs) computed locally from JPL ephemerides. Give a birth "
    "as a local date and time with a place name or coordinates, or as a UTC instant. Each "
    "result has a one-line summary to quote and the full data as structured content."
)


def create_server() -> MCPServer[Any]:
    """A server offering every tool of :data:`~bodygraph_mcp.tools.TOOLS`."""
    server: MCPServer[Any] = MCPServer(
        "bodygraph", title="bodygraph", version=bodygraph.__version__,
        instructions=INSTRUCTIONS, log_level="WARNING",
    )
    for tool in TOOLS:
        server.add_tool(tool, annotations=ToolAnnotations(
            read_only_hint=True, idempotent_hint=True, open_world_hint=False))
    return server
