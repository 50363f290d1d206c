"""The astrology operations: ``POST /v2/hologenetic-profiles`` (and ``/coordinates``),
``/v2/astro/coordinates`` and ``/v2/wheel-charts/coordinates``; ``data`` is the command
line's ``--json`` of the same command (the wheel: its longitudes, the picture a link)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.envelope import LABELS_FIELD, Envelope, v2_success
from bodygraph_server.http.openapi import sentences
from bodygraph_server.http.operation import Operation
from bodygraph_server.relations_charting import Worded, sky_at, worded
from bodygraph_server.resources.astrology.bodies import (
    ASTRO_INPUT,
    WHEEL_INPUT,
    request_schemas,
)
from bodygraph_server.resources.astrology.results import result_schemas
from bodygraph_server.resources.charts.flow import (
    ChartEndpoint,
    ChartRequest,
    InputKind,
    chart_operation,
)
from bodygraph_server.resources.computed import (
    EXTENSION_NOTE,
    Computed,
    Data,
    Job,
    computed_operation,
    without_services,
)

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart
    from bodygraph.render.wheel import WheelInput

HOLOGENETIC_RESULT = "HologeneticProfileResult"
ASTRO_RESULT = "AstroResult"
WHEEL_RESULT = "WheelChartResult"
PROFILE_MESSAGE = "Hologenetic profile computed"


def _profile(request: ChartRequest, chart: Chart) -> dict[str, Any]:
    """``bodygraph hologenetic --json`` in the v2 envelope (with a language, its labels:
    the spheres' titles)."""
    from bodygraph.relations.labels import hologenetic_labels
    from bodygraph.rules.hologenetic import hologenetic_profile

    profile = hologenetic_profile(chart)
    words = ({} if request.lang is None
             else {LABELS_FIELD: hologenetic_labels(profile, request.lang)})
    return v2_success(profile.to_dict(), type_name=HOLOGENETIC_RESULT,
                      message=PROFILE_MESSAGE, extra=words)


def _profile_endpoint(path: str, kind: InputKind, summary: str, where: str) -> ChartEndpoint:
    return ChartEndpoint(
        path=path, kind=kind, format=_profile, summary=summary,
        success_type=HOLOGENETIC_RESULT, success_message=PROFILE_MESSAGE,
        description=sentences(where, pgettext(
            "openapi", "The hologenetic profile (the Gene Keys profile) of the birth: each of "
            "the 13 spheres is the key (the gate) and line of one named activation (`bodygraph "
            "hologenetic --json`; the mapping: docs/conventions.md). No shadow, gift or siddhi "
            "texts."), EXTENSION_NOTE))


def parse_astro(body: dict[str, Any]) -> Job:
    """Contract 2.3 plus ``houses``."""
    asked = ASTRO_INPUT.parse(body)

    def compute(charts: Sequence[Chart]) -> Worded:
        from bodygraph.relations.astro import astro

        return worded(astro(charts[0].birth_utc, asked.lat, asked.lng, houses=asked.houses))

    return Job((asked.birth,), compute)


class _OneWheel:
    """The wheel of one request: the sky at ``transit_at`` computed once, for the
    ``data`` and the picture alike."""

    def __init__(self, transit_at: datetime | None) -> None:
        self.transit_at = transit_at
        self._sky: Chart | None = None

    def _transit(self) -> Chart | None:
        if self.transit_at is None or self._sky is not None:
            return self._sky
        self._sky = sky_at(self.transit_at, "transitAt")
        return self._sky

    def draw(self, charts: Sequence[Chart]) -> WheelInput:
        """What ``bodygraph wheel`` draws for the birth (and ``--transit-at``)."""
        from bodygraph.render.wheel import WheelInput

        return WheelInput.from_chart(charts[0], self._transit())

    def compute(self, charts: Sequence[Chart]) -> Data:
        """The longitudes the wheel shows, by body."""
        from bodygraph.model.chart import BODIES

        wheel = self.draw(charts)

        def by_body(values: tuple[float, ...]) -> dict[str, float]:
            return {body.value: value for body, value in zip(BODIES, values, strict=True)}

        return {"personality": by_body(wheel.personality), "design": by_body(wheel.design),
                "transit": None if wheel.transit is None else by_body(wheel.transit)}


def parse_wheel(body: dict[str, Any]) -> Job:
    """Contract 2.3 plus ``transitAt`` and ``theme``."""
    asked = WHEEL_INPUT.parse(body)
    wheel = _OneWheel(asked.transit_at)
    return Job((asked.birth,), wheel.compute, wheel.draw, preset=asked.theme or "")


ENDPOINTS = (
    _profile_endpoint("/v2/hologenetic-profiles", "location",
                      pgettext("openapi", "Hologenetic profile"), pgettext(
                          "openapi", "Geocodes the location with the caller's HD-Geocode-Key "
                          "and resolves the time zone of the place (as /v2/charts).")),
    _profile_endpoint("/v2/hologenetic-profiles/coordinates", "coordinates",
                      pgettext("openapi", "Hologenetic profile from coordinates"),
                      pgettext("openapi", "Resolves the time zone from lat and lng (as "
                               "/v2/charts/coordinates).")),
)
OPERATIONS: tuple[Operation, ...] = (
    *(chart_operation(endpoint) for endpoint in ENDPOINTS),
    computed_operation(
        computed=Computed(path="/v2/astro/coordinates", type_name=ASTRO_RESULT,
                          message="Zodiac positions computed",
                          parse=without_services(parse_astro)),
        summary=pgettext("openapi", "Zodiac positions, angles and houses"),
        description=sentences(
            pgettext(
                "openapi", "The tropical zodiac sign, degree, minute and second of each of the "
                "26 activations and whether the body is retrograde; the Ascendant, the Midheaven "
                "and the 12 house cusps at the place (`houses`: placidus, the default, or "
                "whole-sign; beyond the polar circles whole-sign with a note) (`bodygraph astro "
                "--json`)."),
            EXTENSION_NOTE),
        body=ASTRO_INPUT),
    computed_operation(
        computed=Computed(path="/v2/wheel-charts/coordinates", type_name=WHEEL_RESULT,
                          message="Wheel chart drawn", parse=without_services(parse_wheel)),
        summary=pgettext("openapi", "Mandala wheel image"),
        description=sentences(
            pgettext(
                "openapi", "svgRenderUrl, a link to the mandala wheel of the birth (`bodygraph "
                "wheel --svg`): the 64 gates around the zodiac, the 26 activations at their "
                "longitudes, the bodygraph in the centre, with `transitAt` the sky at that "
                "instant as an outer ring; the same link with .png serves a PNG. The link's "
                "token holds the longitudes only. `data` is the longitudes drawn."),
            EXTENSION_NOTE),
        body=WHEEL_INPUT),
)
"""The astrology operations."""
ENVELOPES = (Envelope(HOLOGENETIC_RESULT, place=True), Envelope(ASTRO_RESULT),
             Envelope(WHEEL_RESULT, picture=True, picture_required=True))


def schemas() -> dict[str, Any]:
    """The request bodies, results and envelopes of the astrology operations."""
    return {**request_schemas(), **result_schemas(), **{e.name: e.schema() for e in ENVELOPES}}
