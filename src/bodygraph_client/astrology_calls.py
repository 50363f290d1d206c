"""The calls of the service's astrology endpoints (Advanced tier, beyond the contract): the
hologenetic profile, the zodiac positions and angles, the mandala wheel's link."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from bodygraph_client.astrology_types import (
    AstroResult,
    HologeneticProfileResult,
    HouseSystem,
    Theme,
    WheelChart,
    WheelChartResult,
)
from bodygraph_client.calls import (
    Call,
    DateLike,
    Endpoint,
    TimeLike,
    at_coordinates,
    at_place,
    data,
)
from bodygraph_client.extension_calls import instant_text

HOLOGENETIC_PROFILES = Endpoint("/v2/hologenetic-profiles", geocoded=True)
HOLOGENETIC_PROFILES_COORDINATES = Endpoint("/v2/hologenetic-profiles/coordinates")
ASTRO_COORDINATES = Endpoint("/v2/astro/coordinates")
WHEEL_CHARTS_COORDINATES = Endpoint("/v2/wheel-charts/coordinates")


def hologenetic_profile(birthdate: DateLike, birthtime: TimeLike,
                        location: str) -> Call[HologeneticProfileResult]:
    """POST /v2/hologenetic-profiles: the profile of a birth at a place (geocoding key)."""
    return Call(HOLOGENETIC_PROFILES, at_place(birthdate, birthtime, location),
                data(HologeneticProfileResult))


def hologenetic_profile_at(lat: float, lng: float, birthdate: DateLike,
                           birthtime: TimeLike) -> Call[HologeneticProfileResult]:
    """POST /v2/hologenetic-profiles/coordinates: the profile of a birth at coordinates."""
    return Call(HOLOGENETIC_PROFILES_COORDINATES,
                at_coordinates(lat, lng, birthdate, birthtime), data(HologeneticProfileResult))


def astro_at(lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike,
             houses: HouseSystem | None = None) -> Call[AstroResult]:
    """POST /v2/astro/coordinates: zodiac positions, angles and house cusps (``houses``:
    the service's default, placidus, when ``None``)."""
    body = at_coordinates(lat, lng, birthdate, birthtime)
    if houses is not None:
        body["houses"] = houses
    return Call(ASTRO_COORDINATES, body, data(AstroResult))


def _wheel(body: Any) -> WheelChart:
    return WheelChart(longitudes=cast(WheelChartResult, body["data"]),
                      svg_render_url=str(body["svgRenderUrl"]))


def wheel_chart_at(lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike,
                   transit_at: datetime | str | None = None,
                   theme: Theme | None = None) -> Call[WheelChart]:
    """POST /v2/wheel-charts/coordinates: the link to the mandala wheel of a birth, with
    the sky at ``transit_at`` (an aware datetime or ``"YYYY-MM-DDTHH:MM:SSZ"``) as an outer
    ring, in a shipped ``theme`` (else the account's active template)."""
    body = at_coordinates(lat, lng, birthdate, birthtime)
    if transit_at is not None:
        body["transitAt"] = instant_text(transit_at)
    if theme is not None:
        body["theme"] = theme
    return Call(WHEEL_CHARTS_COORDINATES, body, _wheel)
