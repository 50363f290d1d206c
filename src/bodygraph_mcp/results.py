"""What the tools return: structured content (typed dictionaries, published as each
tool's output schema) and a short text summary an assistant can quote."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult, ContentBlock, TextContent
from pydantic import WithJsonSchema
from typing_extensions import TypedDict

from bodygraph.cli.report import utc_seconds_text
from bodygraph.model.contract import json_schema
from bodygraph.render import RenderInput
from bodygraph.render.scene import natal_summary
from bodygraph_mcp.birth import Birth, BirthInfo


@cache
def embedded_schema(name: str) -> dict[str, Any]:
    """One of the library's JSON Schemas, to embed in an output schema."""
    return {k: v for k, v in json_schema(name).items() if k not in ("$schema", "$id")}


ChartData = Annotated[dict[str, Any], WithJsonSchema(embedded_schema("chart-result"))]
"""The chart as the service's v2 ChartResult (its JSON Schema: ``chart-result``)."""


ChartSimpleData = Annotated[dict[str, Any],
                            WithJsonSchema(embedded_schema("chart-simple-result"))]
"""The chart as the service's v2 ChartSimpleResult (its JSON Schema: ``chart-simple-result``)."""


class ChartOutput(TypedDict):
    """The ``chart`` tool's structured content."""

    summary: str
    birth: BirthInfo
    chart: ChartData


class ChartSimpleOutput(TypedDict):
    """The ``simple_chart`` tool's structured content."""

    summary: str
    birth: BirthInfo
    chart: ChartSimpleData


class SvgOutput(TypedDict):
    """The ``render_svg`` tool's structured content: the SVG document as text."""

    summary: str
    birth: BirthInfo
    mimeType: Literal["image/svg+xml"]
    svg: str


def summary(birth: Birth, lang: str = "en") -> str:
    """One quotable line in ``lang``: type, profile, authority, definition, cross, and the
    birth (sentences of the catalogs' context ``mcp``)."""
    from bodygraph.catalog.said import said
    from bodygraph.catalog.translations import catalog, cross_text, listed, pgettext

    say = catalog(lang).pgettext
    info = birth.info
    when = utc_seconds_text(birth.chart.birth_utc)
    if info["local"] is not None:
        where = (birth.place.describe(lang) if birth.place is not None
                 else info["place"] or f"{info['lat']}, {info['lng']}")
        when = say("mcp", pgettext("mcp", "{local} ({zone}) at {where}, that is {utc}")).format(
            local=info["local"], zone=info["zone"], where=where, utc=when)
    chart = birth.chart
    headline = listed(natal_summary(RenderInput.from_chart(chart), lang), lang)
    note = (" " + say("mcp", pgettext("mcp", "Note: {note}.")).format(
        note=said(info["placeNote"], lang)) if info["placeNote"] else "")
    return say("mcp", pgettext("mcp", "{headline}; {cross}. Born {when}.")).format(
        headline=headline, cross=cross_text(chart.incarnation_cross, lang), when=when) + note


def tool_result(structured: Mapping[str, Any], *more: ContentBlock) -> CallToolResult:
    """The structured content, its ``summary`` as the first text block, then ``more``."""
    return CallToolResult(
        content=[TextContent(type="text", text=str(structured["summary"])), *more],
        structured_content=dict(structured),
    )
