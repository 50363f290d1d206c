"""``bodygraph-mcp``: serve the tools over stdio (what assistants start) or streamable
HTTP."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bodygraph._gc import collector_paused

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options and serve until the client leaves (stdio) or interrupted."""
    parser = argparse.ArgumentParser(
        prog="bodygraph-mcp",
        description="An MCP server computing Human Design charts locally (no API key).",
    )
    parser.add_argument("--transport", choices=("stdio", "streamable-http"), default="stdio",
                        help="stdio (default; the assistant starts this command) or "
                        "streamable-http (a long-running server at http://HOST:PORT/mcp)")
    parser.add_argument("--host", default="127.0.0.1", help="streamable-http: address to bind")
    parser.add_argument("--port", type=int, default=8765, help="streamable-http: port")
    args = parser.parse_args(argv)
    try:
        server = built_server()
    except ModuleNotFoundError as exc:  # installed without the mcp extra
        print(f"bodygraph-mcp: error: the MCP server needs the mcp extra, "
              f"pip install 'bodygraph[mcp]' ({exc})", file=sys.stderr)
        return 1
    if args.transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=args.host, port=args.port)
    return 0


def built_server() -> MCPServer[Any]:
    """The server, its imports (the SDK, the tools' modules) made with Python's cycle
    collector paused, then everything frozen out of the collector's sight (the library's
    package, loaded by then, with it).

    The SDK's import makes some 10^5 long-lived objects (its pydantic models). The
    collections that triggered found ~2,500 objects of garbage (which stay) and took about
    0.15 of the start's 1.05 CPU-seconds; the interpreter's collections at exit went over
    all of them again, 0.3 CPU-s at every exit of the server, 0.04 once they are frozen
    (24 Nov 2026). ``gc.freeze`` also keeps them out of full collections while the tools
    run, as the service does after its start-up (bodygraph_server.app.warm_up)."""
    with collector_paused(freeze=True):
        from bodygraph_mcp.server import create_server

        return create_server()
