"""The ``data`` of the astrology endpoints as typed dictionaries (keys as on the wire),
mirroring ``HologeneticProfileResult``, ``AstroResult`` and ``WheelChartResult`` of the
service's ``/openapi.json`` (the tests check them against it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict

Sign = Literal[
    "Aries", "Taurus", "Gemini", "Cancer", "Leo", "Virgo", "Libra", "Scorpio",
    "Sagittarius", "Capricorn", "Aquarius", "Pisces",
]
"""A tropical zodiac sign."""
HouseSystem = Literal["placidus", "whole-sign"]
"""A house system the service computes."""
Theme = Literal["light", "dark", "print", "high-contrast"]
"""A shipped theme of the pictures."""


class ActivationSequence(TypedDict):
    """The activation sequence: each sphere ``"<key>.<line>"``."""

    lifesWork: str
    evolution: str
    radiance: str
    purpose: str


class VenusSequence(TypedDict):
    """The Venus sequence."""

    attraction: str
    iq: str
    eq: str
    sq: str
    core: str


class PearlSequence(TypedDict):
    """The Pearl sequence."""

    vocation: str
    culture: str
    brand: str
    pearl: str


class HologeneticProfileResult(TypedDict):
    """The ``data`` of ``POST /v2/hologenetic-profiles`` (and ``/coordinates``)."""

    activation: ActivationSequence
    venus: VenusSequence
    pearl: PearlSequence


class ZodiacPosition(TypedDict):
    """One activation: its ``gate.line``, its longitude (degrees), its sign and the
    degree, minute and second within it, whether the body is retrograde."""

    gateLine: str
    longitude: float
    sign: Sign
    degree: int
    minute: int
    second: int
    retrograde: bool


class ZodiacSide(TypedDict):
    """The 13 activations of one side."""

    sun: ZodiacPosition
    earth: ZodiacPosition
    northNode: ZodiacPosition
    southNode: ZodiacPosition
    moon: ZodiacPosition
    mercury: ZodiacPosition
    venus: ZodiacPosition
    mars: ZodiacPosition
    jupiter: ZodiacPosition
    saturn: ZodiacPosition
    uranus: ZodiacPosition
    neptune: ZodiacPosition
    pluto: ZodiacPosition


class ZodiacActivations(TypedDict):
    """Both sides."""

    personality: ZodiacSide
    design: ZodiacSide


class Angles(TypedDict):
    """The Ascendant and the Midheaven, longitudes in degrees."""

    ascendant: float
    midheaven: float


class Houses(TypedDict):
    """The 12 house cusps (longitudes), their system, and ``note`` when whole-sign cusps
    are given though Placidus was asked for (beyond the polar circles)."""

    system: HouseSystem
    cusps: list[float]
    note: str | None


class AstroResult(TypedDict):
    """The ``data`` of ``POST /v2/astro/coordinates``."""

    activations: ZodiacActivations
    angles: Angles
    houses: Houses


class WheelLongitudes(TypedDict):
    """The longitude (degrees) of each of the 13 bodies of one ring."""

    sun: float
    earth: float
    northNode: float
    southNode: float
    moon: float
    mercury: float
    venus: float
    mars: float
    jupiter: float
    saturn: float
    uranus: float
    neptune: float
    pluto: float


class WheelChartResult(TypedDict):
    """The ``data`` of ``POST /v2/wheel-charts/coordinates``: the longitudes drawn."""

    personality: WheelLongitudes
    design: WheelLongitudes
    transit: WheelLongitudes | None


@dataclass(frozen=True, slots=True)
class WheelChart:
    """The longitudes of a mandala wheel and the link to its SVG (a bearer link; the same
    link with ``.png`` for ``.svg`` serves a PNG)."""

    longitudes: WheelChartResult
    svg_render_url: str
