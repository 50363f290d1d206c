"""bodygraph_mcp: an MCP server (Model Context Protocol) offering the library's charts to
AI assistants, computed locally: no API key, place names from the offline gazetteer.

Tools: ``chart`` (the chart's properties and activations), ``simple_chart``,
``render_svg`` (the bodygraph as SVG, optionally with a transit or a second person), the
relations ``transit``, ``connection``, ``penta``, ``sensitivity``, ``cycles`` and
``calendar``, the astrology ``hologenetic``, ``astro`` and ``wheel``, and ``stability``
and ``rectify`` (the JSON of the matching ``bodygraph`` command); each takes an optional
``lang``. Start it with ``bodygraph-mcp`` (stdio) or ``bodygraph-mcp --transport
streamable-http``; see ``docs/mcp.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bodygraph_mcp.server import create_server

__all__ = ["create_server"]


def __getattr__(name: str) -> Any:
    """``create_server`` imported on first use: ``python -m bodygraph_mcp`` imports this
    package before its ``__main__``, which imports the SDK in its own way
    (:func:`bodygraph_mcp.cli.built_server`)."""
    if name == "create_server":
        from bodygraph_mcp.server import create_server

        return create_server
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
