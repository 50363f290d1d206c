"""The tools: each one small function of a birth (and what else it needs) that returns
structured content and a summary. :data:`TOOLS` lists them for the server.

The relation tools (``transit`` ... ``calendar``) return exactly the JSON of the matching
``bodygraph`` command with ``--json`` (:mod:`bodygraph_mcp.relation_results`). Every tool
takes an optional ``lang`` (:mod:`bodygraph_mcp.languages`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, Protocol

from mcp.types import CallToolResult, EmbeddedResource, TextResourceContents
from pydantic import Field

from bodygraph import relations
from bodygraph.catalog.translations import pgettext
from bodygraph.cli.calendar import ingresses
from bodygraph.cli.sensitivity import parse_window
from bodygraph.model.chart import BODIES
from bodygraph.relations.cycles import cycles_of
from bodygraph.relations.penta import MAX_MEMBERS, MIN_MEMBERS
from bodygraph.relations.sensitivity import sensitivity as sensitivity_of
from bodygraph.render import render_svg as draw
from bodygraph.render import svg
from bodygraph.render.from_relations import connection_input, transit_input
from bodygraph_mcp import relation_results as out
from bodygraph_mcp import summaries
from bodygraph_mcp.astrology_tools import ASTROLOGY_TOOLS
from bodygraph_mcp.birth import BirthArg, instant, library_errors, parse_birth
from bodygraph_mcp.languages import Lang, labelled
from bodygraph_mcp.rectification_tools import RECTIFICATION_TOOLS
from bodygraph_mcp.results import (
    ChartOutput,
    ChartSimpleOutput,
    SvgOutput,
    summary,
    tool_result,
)
from bodygraph_mcp.tool_errors import ONE_OVERLAY, refused

Instant = Annotated[str, Field(description=(
    "An instant in ISO 8601 with Z or an offset, e.g. 2024-03-20T03:06:00Z (1800-04-04 to "
    "2199-12-31)."))]
ALL_BODIES = tuple(body.value for body in BODIES)
Day = Annotated[str, Field(description="A day (UTC), YYYY-MM-DD, e.g. 2026-03-01.")]


def chart(birth: BirthArg, lang: Lang = None) -> Annotated[CallToolResult, ChartOutput]:
    """Compute a Human Design chart (bodygraph) locally: type, strategy, authority, profile,
    definition, incarnation cross, variables, centers, channels, gates and the 26
    activations (the service's v2 ChartResult), with a one-line summary."""
    found = parse_birth(birth).resolve()
    data = found.chart.to_v2()
    return labelled(tool_result(ChartOutput(summary=summary(found, lang or "en"),
                                            birth=found.info,
                                            chart=data)),
                    lambda lang: {"chart": found.chart.labels(lang)}, lang)


def simple_chart(birth: BirthArg,
                 lang: Lang = None) -> Annotated[CallToolResult, ChartSimpleOutput]:
    """The simple chart of a birth: type, profile, gates, short channels and defined
    centers (the service's v2 ChartSimpleResult), with the same one-line summary as
    `chart`."""
    found = parse_birth(birth).resolve()
    data = found.chart.to_v2_simple()

    def words(code: str) -> dict[str, Any]:
        """The chart's labels of the keys the simple chart has (as the service's)."""
        every = found.chart.labels(code)
        return {"chart": {key: every[key] for key in data if key in every}}

    return labelled(tool_result(ChartSimpleOutput(summary=summary(found, lang or "en"),
                                                  birth=found.info, chart=data)),
                    words, lang)


def render_svg(
    birth: BirthArg,
    transit_at: Annotated[Instant | None, Field(description=(
        "Optional: draw the transit at this instant over the chart (third colour, own "
        "column), e.g. 2024-03-20T03:06:00Z."))] = None,
    other: Annotated[BirthArg | None, Field(description=(
        "Optional: a second person; draws the connection of the two (each person in their "
        "own colour, electromagnetic channels two-coloured)."))] = None,
    lang: Lang = None,
) -> Annotated[CallToolResult, SvgOutput]:
    """Draw the bodygraph of a birth as an SVG document (text, image/svg+xml): the nine
    centers, the channels, the gates and both activation columns; optionally with a
    transit over it (transit_at) or as the connection with another person (other)."""
    if transit_at is not None and other is not None:
        raise refused(ONE_OVERLAY)
    found = parse_birth(birth).resolve()
    text = summary(found, lang or "en")
    with library_errors():
        if transit_at is not None:
            moment = relations.transit(instant(transit_at, "transit_at"), natal=found.chart)
            document = draw(transit_input(found.chart, moment), lang=lang or "en")
            text += " " + summaries.say(lang or "en", pgettext(
                "mcp", "With the transit at {instant}."), instant=summaries.when(moment.at))
        elif other is not None:
            second = parse_birth(other, "other").resolve()
            document = draw(connection_input(found.chart, second.chart), lang=lang or "en")
            text += " " + summaries.say(lang or "en", pgettext(
                "mcp", "Connection with person 2 born {when}."),
                when=summaries.when(second.chart.birth_utc))
        else:
            document = svg(found.chart, lang=lang or "en")
    image = EmbeddedResource(type="resource", resource=TextResourceContents(
        uri="bodygraph://bodygraph.svg", mime_type="image/svg+xml", text=document))
    return tool_result(SvgOutput(summary=text, birth=found.info,
                                 mimeType="image/svg+xml", svg=document), image)


def transit(
    at: Instant,
    birth: Annotated[BirthArg | None, Field(description=(
        "Optional natal birth: also what the transit completes in that chart."))] = None,
    lang: Lang = None,
) -> Annotated[CallToolResult, out.TransitOutput]:
    """The transit at an instant: the 13 bodies' gate.line, their gates and channels; over a
    natal birth also the channels the transit completes, the centers it newly defines and
    the overlay chart (as `bodygraph transit --json`)."""
    natal = parse_birth(birth).resolve().chart if birth is not None else None
    with library_errors():
        result = relations.transit(instant(at, "at"), natal=natal)
    return relation(result, summaries.transit_summary(result, lang or "en"), lang)


def connection(person1: BirthArg, person2: BirthArg,
               lang: Lang = None) -> Annotated[CallToolResult, out.ConnectionOutput]:
    """The connection chart of two people: each of the 36 channels that is electromagnetic,
    companionship, dominance or compromise between them, and the composite chart (as
    `bodygraph connection --json`; `person` is the one who has the whole channel)."""
    one = parse_birth(person1, "person1").resolve().chart
    two = parse_birth(person2, "person2").resolve().chart
    result = relations.connection(one, two)
    return relation(result, summaries.connection_summary(result, lang or "en"), lang)


def penta(members: Annotated[list[BirthArg], Field(
        description=f"The group: {MIN_MEMBERS} to {MAX_MEMBERS} births.",
        json_schema_extra={"minItems": MIN_MEMBERS, "maxItems": MAX_MEMBERS})],
          lang: Lang = None) -> Annotated[CallToolResult, out.PentaOutput]:
    """The penta (group chart) of 3 to 5 people: which of the 12 penta gates the group has
    and which of the 6 penta channels it defines (as `bodygraph penta --json`)."""
    charts = [parse_birth(m, f"members[{i}]").resolve().chart for i, m in enumerate(members)]
    with library_errors():
        result = relations.penta(charts)
    return relation(result, summaries.penta_summary(result, lang or "en"), lang)


def sensitivity(
    birth: BirthArg,
    window: Annotated[str, Field(description=(
        "How far either side of the birth: 2h (default), 90m, 1h30m; at most 48h."))] = "2h",
    lang: Lang = None,
) -> Annotated[CallToolResult, out.SensitivityOutput]:
    """Birth-time sensitivity: every instant within the window around the birth at which
    one of the 26 activations changes line, exact to a second, and the segments between
    them with type, profile, authority, definition and cross (as
    `bodygraph sensitivity --json`)."""
    found = parse_birth(birth).resolve()
    with library_errors():
        result = sensitivity_of(found.chart.birth_utc, parse_window(window))
    return relation(result, summaries.sensitivity_summary(result, lang or "en"), lang)


def cycles(
    birth: BirthArg,
    year: Annotated[int | None, Field(description=(
        "Year of the solar return (default: this year, or the year after the birth)."))] = None,
    lang: Lang = None,
) -> Annotated[CallToolResult, out.CyclesOutput]:
    """The solar return of a year, the Saturn return (every pass between ages 26 and 33)
    and the Uranus opposition (every pass between ages 35 and 48), exact to a second (as
    `bodygraph cycles --json`)."""
    found = parse_birth(birth).resolve()
    with library_errors():
        result = cycles_of(found.chart.birth_utc, year)
    return relation(result, summaries.cycles_summary(result, lang or "en"), lang)


def calendar(
    start: Day,
    end: Day,
    bodies: Annotated[list[str] | None, Field(description=(
        "Bodies to follow (default: all 13): sun, earth, northNode, southNode, moon, "
        "mercury, venus, mars, jupiter, saturn, uranus, neptune, pluto."))] = None,
    level: Annotated[Literal["gate", "line"], Field(description=(
        "gate (default): gate ingresses; line: every line change."))] = "gate",
    lang: Lang = None,
) -> Annotated[CallToolResult, out.CalendarOutput]:
    """The ingress calendar: every instant from the start of day `start` to the end of day
    `end` (UTC) at which a body enters a new gate (or line), retrograde re-entries
    included, in time order (`bodygraph calendar --json`, under `ingresses`). The Sun
    entering gate 41 is the Rave New Year."""
    with library_errors():
        found = ingresses(start, end, ",".join(bodies or ALL_BODIES), level,
                          names=("start", "end"))
    data = {"ingresses": [i.to_dict() for i in found]}
    text = summaries.calendar_summary(found, start, end, lang or "en")
    return labelled(out.relation_result(data, text),
                    lambda lang: {"ingresses": [i.labels(lang) for i in found]}, lang)


class _Result(Protocol):
    def to_dict(self) -> dict[str, Any]: ...

    def labels(self, lang: str) -> Any: ...


def relation(result: _Result, text: str, lang: str | None) -> CallToolResult:
    """A relation tool's result (:func:`~bodygraph_mcp.relation_results.relation_result`),
    with the result's ``labels(lang)`` when ``lang`` is given."""
    return labelled(out.relation_result(result.to_dict(), text), result.labels, lang)


TOOLS: tuple[Callable[..., Any], ...] = (chart, simple_chart, render_svg, transit, connection,
                                         penta, sensitivity, cycles, calendar,
                                         *ASTROLOGY_TOOLS, *RECTIFICATION_TOOLS)
"""Every tool the server offers, named after its function."""
