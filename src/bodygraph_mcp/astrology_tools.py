"""The astrology tools: ``hologenetic``, ``astro`` and ``wheel``, each the matching
``bodygraph`` command (``--json``, or ``--svg`` for the wheel) of one birth, computed
locally, with a quotable summary."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult, EmbeddedResource, TextResourceContents
from pydantic import Field
from typing_extensions import TypedDict

from bodygraph.calculator import calculate
from bodygraph.catalog.translations import pgettext
from bodygraph.render import Theme
from bodygraph_mcp import astrology_summaries as summaries
from bodygraph_mcp.birth import BirthArg, BirthInfo, instant, library_errors, parse_birth
from bodygraph_mcp.languages import Lang, labelled
from bodygraph_mcp.relation_results import relation_result
from bodygraph_mcp.results import summary, tool_result
from bodygraph_mcp.summaries import say

HouseSystem = Literal["placidus", "whole-sign"]
"""``bodygraph.rules.houses.HOUSE_SYSTEMS`` (a test holds them equal)."""
ThemeName = Literal["light", "dark", "print", "high-contrast"]
"""``bodygraph.render.PRESET_NAMES`` (a test holds them equal)."""


class ActivationSequenceOutput(TypedDict):
    """The activation sequence, each sphere ``key.line``."""

    lifesWork: str
    evolution: str
    radiance: str
    purpose: str


class VenusSequenceOutput(TypedDict):
    """The Venus sequence."""

    attraction: str
    iq: str
    eq: str
    sq: str
    core: str


class PearlSequenceOutput(TypedDict):
    """The Pearl sequence."""

    vocation: str
    culture: str
    brand: str
    pearl: str


class HologeneticOutput(TypedDict):
    """``bodygraph hologenetic --json``."""

    activation: ActivationSequenceOutput
    venus: VenusSequenceOutput
    pearl: PearlSequenceOutput


class ZodiacPositionOutput(TypedDict):
    """One activation: gate.line, longitude, sign, degree, minute, second, retrograde."""

    gateLine: str
    longitude: float
    sign: str
    degree: int
    minute: int
    second: int
    retrograde: bool


class AnglesOutput(TypedDict):
    """The Ascendant and the Midheaven (longitudes, degrees)."""

    ascendant: float
    midheaven: float


class HousesOutput(TypedDict):
    """The 12 cusps, their system, and why whole-sign was given for Placidus (or null)."""

    system: str
    cusps: list[float]
    note: str | None


class AstroOutput(TypedDict):
    """``bodygraph astro --json`` (``angles`` and ``houses`` null without a place)."""

    activations: dict[str, dict[str, ZodiacPositionOutput]]
    angles: AnglesOutput | None
    houses: HousesOutput | None


class WheelOutput(TypedDict):
    """The ``wheel`` tool's structured content: the SVG document as text."""

    summary: str
    birth: BirthInfo
    mimeType: Literal["image/svg+xml"]
    svg: str


def hologenetic(birth: BirthArg,
                lang: Lang = None) -> Annotated[CallToolResult, HologeneticOutput]:
    """The hologenetic profile (the Gene Keys profile) of a birth: each of the 13 spheres
    of the activation, Venus and Pearl sequences is the key (gate) and line of one named
    activation (as `bodygraph hologenetic --json`; no shadow, gift or siddhi texts)."""
    from bodygraph.relations.labels import hologenetic_labels
    from bodygraph.rules.hologenetic import hologenetic_profile

    found = parse_birth(birth).resolve()
    profile = hologenetic_profile(found.chart)
    return labelled(relation_result(profile.to_dict(), summaries.hologenetic_summary(
        profile, found.chart.birth_utc, lang or "en")),
        lambda code: hologenetic_labels(profile, code), lang)


def astro(
    birth: BirthArg,
    houses: Annotated[HouseSystem, Field(description=(
        "House system: placidus (default) or whole-sign; beyond the polar circles "
        "Placidus is undefined and whole-sign cusps come with a note."))] = "placidus",
    lang: Lang = None,
) -> Annotated[CallToolResult, AstroOutput]:
    """Zodiac positions of a birth: the tropical sign, degree, minute and second of each of
    the 26 activations and whether the body is retrograde; with a place (name or lat/lng)
    also the Ascendant, the Midheaven and the 12 house cusps (as `bodygraph astro
    --json`; a birth given as utc alone has no angles)."""
    from bodygraph.relations.astro import astro as astro_of

    found = parse_birth(birth).resolve()
    lat, lng = found.info["lat"], found.info["lng"]
    with library_errors():
        table = astro_of(found.chart.birth_utc, lat, lng, houses=houses)
    data = table.to_dict()
    words = None if lang is None else table.labels(lang)
    note = None if words is None else words.get("houses", {}).get("note")
    text = summaries.astro_summary(data, found.chart.birth_utc, lang or "en", note)
    return labelled(relation_result(data, text), lambda _: words, lang)


def wheel(
    birth: BirthArg,
    transit_at: Annotated[str | None, Field(description=(
        "Optional: also draw the sky at this instant (ISO 8601 with Z or an offset, e.g. "
        "2027-01-01T00:00:00Z) as an outer ring."))] = None,
    theme: Annotated[ThemeName, Field(description=(
        "Theme: light (default), dark, print or high-contrast."))] = "light",
    lang: Lang = None,
) -> Annotated[CallToolResult, WheelOutput]:
    """Draw the mandala wheel of a birth as an SVG document (text, image/svg+xml): the 64
    gates around the zodiac, the 26 activations at their longitudes, the bodygraph in the
    centre, optionally a transit as an outer ring (as `bodygraph wheel --svg`)."""
    from bodygraph.render.wheel import WheelInput, wheel_svg

    found = parse_birth(birth).resolve()
    text = summary(found, lang or "en")
    with library_errors():
        sky = None
        label = "Transit"
        if transit_at is not None:
            moment = instant(transit_at, "transit_at")
            sky = calculate(moment)
            label = f"Transit {sky.birth_utc:%Y-%m-%d %H:%M} UTC"
            text += " " + say(lang or "en", pgettext(
                "mcp", "With the sky at {instant} as the outer ring."),
                instant=summaries.when(sky.birth_utc))
        document = wheel_svg(WheelInput.from_chart(found.chart, sky, transit_label=label),
                             Theme.preset(theme), lang=lang or "en")
    image = EmbeddedResource(type="resource", resource=TextResourceContents(
        uri="bodygraph://wheel.svg", mime_type="image/svg+xml", text=document))
    return tool_result(WheelOutput(summary=text, birth=found.info,
                                   mimeType="image/svg+xml", svg=document), image)


ASTROLOGY_TOOLS: tuple[Callable[..., Any], ...] = (hologenetic, astro, wheel)
"""The astrology tools, in the order the server lists them."""
