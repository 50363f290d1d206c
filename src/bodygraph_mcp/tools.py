"""The tools: each one small function of a birth (and what else it needs) that returns
structured content and a summary. :data:`TOOLS` lists them for the server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from mcp.types import CallToolResult, EmbeddedResource, TextResourceContents

from bodygraph.render import svg
from bodygraph_mcp.birth import BirthArg, parse_birth
from bodygraph_mcp.results import ChartOutput, SvgOutput, summary, tool_result


def chart(birth: BirthArg) -> Annotated[CallToolResult, ChartOutput]:
    """Compute a Human Design chart (bodygraph) locally: type, strategy, authority, profile,
    definition, incarnation cross, variables, centers, channels, gates and the 26
    activations (the service's v2 ChartResult), with a one-line summary."""
    found = parse_birth(birth).resolve()
    return tool_result(ChartOutput(summary=summary(found), birth=found.info,
                                   chart=found.chart.to_v2()))


def render_svg(birth: BirthArg) -> Annotated[CallToolResult, SvgOutput]:
    """Draw the bodygraph of a birth as an SVG document (text, image/svg+xml): the nine
    centers, the channels, the gates and both activation columns."""
    found = parse_birth(birth).resolve()
    document = svg(found.chart)
    image = EmbeddedResource(type="resource", resource=TextResourceContents(
        uri="bodygraph://bodygraph.svg", mime_type="image/svg+xml", text=document))
    return tool_result(SvgOutput(summary=summary(found), birth=found.info,
                                 mimeType="image/svg+xml", svg=document), image)


TOOLS: tuple[Callable[..., Any], ...] = (chart, render_svg)
"""Every tool the server offers, named after its function."""
