"""The service's JSON objects as typed dictionaries (keys exactly as on the wire).

They mirror the JSON Schemas the service publishes (``chart-result``,
``chart-simple-result``, ``v1-bodygraph``, ``v1-bodygraph-simple``); the client's tests
check every key, type and enumeration against those schemas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict

ChartType = Literal["Generator", "Manifesting Generator", "Manifestor", "Projector", "Reflector"]
Profile = Literal[
    "1/3", "1/4", "2/4", "2/5", "3/5", "3/6", "4/1", "4/6", "5/1", "5/2", "6/2", "6/3"
]
Authority = Literal[
    "Ego Manifested", "Ego Projected", "Emotional", "Lunar", "Sacral", "Self-Projected",
    "Sounding Board", "Splenic",
]
Definition = Literal[
    "No Definition", "Single Definition", "Split Definition", "Triple Split Definition",
    "Quad Split Definition",
]
Strategy = Literal["To Inform", "To Respond", "Wait a Lunar Cycle", "Wait for the Invitation"]
Center = Literal[
    "Ajna", "Ego", "G", "Head", "Root", "Sacral", "Solar Plexus", "Spleen", "Throat"
]


class _Planets(TypedDict):
    """The activations both API versions name alike, each ``"<gate>.<line>"``."""

    sun: str
    earth: str
    moon: str
    mercury: str
    venus: str
    mars: str
    jupiter: str
    saturn: str
    uranus: str
    neptune: str
    pluto: str


class ActivationSide(_Planets):
    """One side's 13 activations, each ``"<gate>.<line>"``."""

    northNode: str
    southNode: str


class Activations(TypedDict):
    design: ActivationSide
    personality: ActivationSide


class _Variables(TypedDict):
    """The fields both API versions name alike: signature, the variables and their themes,
    the circuitries."""

    signature: str
    cognition: str
    determination: str
    variables: str
    motivation: str
    transference: str
    perspective: str
    distraction: str
    environment: str
    circuitries: str


class SimpleChart(TypedDict):
    """The ``data`` of ``POST /v2/charts/simple``."""

    type: ChartType
    profile: Profile
    gates: list[str]
    channelsShort: list[str]
    centers: list[Center]


class ChartResult(_Variables):
    """The ``data`` of the v2 full-chart endpoints (contract 2.4)."""

    type: ChartType
    profile: Profile
    channelsShort: list[str]
    centers: list[Center]
    strategy: Strategy
    authority: Authority
    incarnationCross: str
    definition: Definition
    notSelfTheme: str
    channelsLong: list[str]
    gates: list[str]
    activations: Activations
    birthDateUtc: str


@dataclass(frozen=True, slots=True)
class VisualChart:
    """A full chart and the link to its rendered SVG (a bearer link: anyone holding it
    can view the image; it needs no headers)."""

    chart: ChartResult
    svg_render_url: str


class V1ActivationSide(_Planets):
    """One side's activations in the legacy v1 body."""

    north_node: str
    south_node: str


class V1Activations(TypedDict):
    design: V1ActivationSide
    personality: V1ActivationSide


class V1SimpleBodygraph(TypedDict):
    """The body of ``POST /v1/bodygraphs/simple``."""

    type: ChartType
    profile: Profile
    gates: list[str]
    channels_short: list[str]
    centers: list[Center]


class V1Bodygraph(_Variables):
    """The body of ``POST /v1/bodygraphs`` (flat, snake_case)."""

    type: ChartType
    profile: Profile
    channels_short: list[str]
    centers: list[Center]
    strategy: str
    authority: Authority
    incarnation_cross: str
    definition: Definition
    not_self_theme: str
    channels_long: list[str]
    gates: list[str]
    activations: V1Activations
    birth_date_UTC: str
