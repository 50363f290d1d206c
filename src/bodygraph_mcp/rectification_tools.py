"""The tools ``stability`` and ``rectify``: how stable a chart is as the birth time moves,
and the birth times whose chart has what a person knows of it; each returns exactly the
JSON of ``bodygraph stability --json`` / ``bodygraph rectify --json`` and a summary."""

from __future__ import annotations

from collections.abc import Callable
from datetime import tzinfo
from typing import Annotated, Any

from mcp.types import CallToolResult
from pydantic import Field
from typing_extensions import TypedDict

from bodygraph import relations
from bodygraph.catalog.translations import SOURCE_LANGUAGE, pgettext
from bodygraph.cli.rectify import window_lines
from bodygraph.cli.sensitivity import parse_window
from bodygraph.cli.stability import span_text, stretch_text, value_text, words
from bodygraph.geo.birthtime import parse_date, parse_time
from bodygraph.geo.coordinates import check_coordinates
from bodygraph.geo.places import default_geocoder
from bodygraph.geo.timezones import zone, zone_at
from bodygraph.relations import Rectification, Stability
from bodygraph.relations.rectification import NO_CONSTRAINT
from bodygraph_mcp.birth import BirthArg, library_errors, parse_birth
from bodygraph_mcp.languages import Lang, labelled
from bodygraph_mcp.relation_results import relation_result
from bodygraph_mcp.summaries import say, when
from bodygraph_mcp.tool_errors import LAT_WITH_LNG, ONE_WHERE, library_refusal, refused

_Stretch = TypedDict("_Stretch", {"value": str, "from": str | None, "to": str | None})


class Stretch(_Stretch):
    """A value and the birth instants over which it holds (``None``: to the bound)."""


class StabilityOutput(TypedDict):
    """``bodygraph stability --json``: ``properties`` by name (type, profile, authority,
    definition, incarnationCross, strategy, variables), ``activations`` by side and body."""

    birth: str
    properties: dict[str, Stretch]
    activations: dict[str, dict[str, Stretch]]


_Window = TypedDict("_Window", {"from": str, "to": str, "fromLocal": str, "toLocal": str,
                                "fromPass": str | None, "toPass": str | None,
                                "chart": dict[str, str]})
_Searched = TypedDict("_Searched", {"from": str, "to": str, "fromLocal": str,
                                    "toLocal": str, "zone": str})


class Window(_Window):
    """Birth instants ``[from, to)`` whose chart fits, UTC and local (a repeated wall time
    marked by its pass), and the chart's type, profile, authority, definition and cross."""


class RectificationOutput(TypedDict):
    """``bodygraph rectify --json``: the span searched and the windows, in time order."""

    searched: _Searched
    windows: list[Window]


def stability_summary(result: Stability, lang: str = SOURCE_LANGUAGE) -> str:
    """The properties, each with how far it holds either side, in ``lang``."""
    said = words(lang)
    lines = [stretch_text(said[key], s, result.birth, result.bound, said,
                          value_text(key, s.value, lang))
             for key, s in result.properties().items()]
    return say(lang, pgettext("mcp", "Born {when}, within {span} either side: {properties}."),
               when=when(result.birth), span=span_text(result.bound, said),
               properties="; ".join(lines))


def stability(
    birth: BirthArg,
    bound: Annotated[str, Field(description=(
        "How far either side of the birth to look: 12h (default), 90m, 1h30m; at most "
        "48h."))] = "12h",
    lang: Lang = None,
) -> Annotated[CallToolResult, StabilityOutput]:
    """How stable the chart is if the birth time is not exact: for each property (type,
    profile, authority, definition, incarnation cross, strategy, variables) and each of the
    26 activations (line level), its value and the earliest and latest birth instants
    around the birth over which it stays the same (null: it holds to the bound), exact to
    a second (as `bodygraph stability --json`)."""
    found = parse_birth(birth).resolve()
    with library_errors():
        result = relations.stability(found.chart.birth_utc, parse_window(bound, "bound"))
    return labelled(relation_result(result.to_dict(), stability_summary(result, lang or "en")),
                    result.labels, lang)


def rectification_summary(result: Rectification, lang: str = SOURCE_LANGUAGE) -> str:
    """The windows (local times first), or that none fits, in ``lang``."""
    if not result.windows:
        return say(lang, pgettext(
            "mcp", "No birth time from {start} to {end} ({zone}) fits all the "
            "constraints."), start=when(result.start), end=when(result.end),
            zone=result.zone)
    found = [" ".join(" ".join(window_lines(w, lang)).split()) for w in result.windows]
    return say(lang, pgettext("mcp", "Birth times that fit, in {zone}: {windows}."),
               zone=result.zone, windows="; ".join(found))


def _zone(place: str | None, lat: float | None, lng: float | None,
          tz: str | None) -> tzinfo:
    if (lat is None) != (lng is None):
        raise refused(LAT_WITH_LNG)
    if sum(value is not None for value in (place, lat, tz)) != 1:
        raise refused(ONE_WHERE)
    if tz is not None:
        return zone(tz)
    if place is not None:
        found = default_geocoder().geocode(place)
        return zone(zone_at(found.lat, found.lng))
    assert lat is not None and lng is not None
    return zone(zone_at(*check_coordinates(lat, lng)))


Text = Annotated[str | None, Field(description="Optional; see the tool's description.")]
Texts = Annotated[list[str] | None, Field(description="Optional list.")]


def rectify(
    date: Annotated[str, Field(description="The local date searched, YYYY-MM-DD.")],
    place: Annotated[str | None, Field(description=(
        "The birth place name, e.g. 'London, United Kingdom' (offline gazetteer); or give "
        "lat and lng, or tz."))] = None,
    lat: Annotated[float | None, Field(description="Latitude, with lng.")] = None,
    lng: Annotated[float | None, Field(description="Longitude, with lat.")] = None,
    tz: Annotated[str | None, Field(description="A tz database zone, e.g. "
                                    "Europe/London, instead of a place.")] = None,
    to_date: Annotated[str | None, Field(description=(
        "Last local date of a range, at most 7 days in all."))] = None,
    from_time: Annotated[str | None, Field(description="Local HH:MM to start at.")] = None,
    to_time: Annotated[str | None, Field(description=(
        "Local HH:MM to end at on the last date."))] = None,
    type: Text = None, profile: Text = None, authority: Text = None,
    definition: Text = None, cross: Text = None, strategy: Text = None,
    centers: Texts = None, open_centers: Texts = None, channels: Texts = None,
    gates: Annotated[list[int] | None, Field(description="Activated gates, 1-64.")] = None,
    activations: Texts = None,
    lang: Lang = None,
) -> Annotated[CallToolResult, RectificationOutput]:
    """Find the birth time: every window of birth instants in a local date (or up to 7
    days) at a place whose chart has all that is known of it, exact to a second, with UTC
    and local times, in time order (as `bodygraph rectify --json`). Give at least one of:
    type (Generator, Manifesting Generator, Projector, Manifestor, Reflector), profile
    (3/5), authority (Emotional, Sacral, Splenic, ...), definition (Split, ...), cross (a
    name or its four gates 13/7/1/2), strategy (To Respond, ...), centers and open_centers
    (Sacral, Head, ...), channels (13-33), gates, activations (personality.sun=38.3 or
    design.moon=2). No window is an answer: nothing fits."""
    with library_errors():
        known = relations.constraints(type=type, profile=profile, authority=authority,
                                      definition=definition, cross=cross, strategy=strategy,
                                      centers=centers or (), open_centers=open_centers or (),
                                      channels=channels or (), gates=gates or (),
                                      activations=activations or ())
        if not known:
            raise library_refusal(NO_CONSTRAINT)
        where = _zone(place, lat, lng, tz)
        result = relations.rectify(
            parse_date(date), known, zone=where,
            last_day=None if to_date is None else parse_date(to_date),
            from_time=None if from_time is None else parse_time(from_time),
            to_time=None if to_time is None else parse_time(to_time))
    return labelled(relation_result(result.to_dict(),
                                    rectification_summary(result, lang or "en")),
                    result.labels, lang)


RECTIFICATION_TOOLS: tuple[Callable[..., Any], ...] = (stability, rectify)
"""The tools of this module."""
