"""``bodygraph-mcp``: serve the tools over stdio (what assistants start) or streamable
HTTP."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from bodygraph_mcp.server import create_server


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
    server = create_server()
    if args.transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=args.host, port=args.port)
    return 0
