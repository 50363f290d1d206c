"""The ``data`` of the service's extension endpoints as typed dictionaries (keys exactly as
on the wire), and the calendar's list of them.

They mirror the schemas the service publishes in ``/openapi.json`` (``components.schemas``:
``TransitResult``, ``ConnectionResult``, ``PentaResult``, ``SensitivityResult``,
``CyclesResult``, ``CalendarResult``, ``ChartBatchResult``, ``StabilityResult``,
``RectificationResult``); the client's tests check every
key, type and enumeration against that document, fetched from the running service.
Instants are UTC texts ``YYYY-MM-DDTHH:MM:SS.sssZ``. Keys that are Python keywords
(``from``) make some of them use the functional ``TypedDict`` form.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from bodygraph_client.types import (
    ActivationSide,
    Authority,
    Center,
    ChartResult,
    ChartType,
    Definition,
    Profile,
    Strategy,
)

Body = Literal[
    "sun", "earth", "northNode", "southNode", "moon", "mercury", "venus", "mars", "jupiter",
    "saturn", "uranus", "neptune", "pluto",
]
"""A body of the chart, by its v2 activation key."""
Level = Literal["gate", "line"]
"""What an ingress of the calendar is: into a new gate, or into a new line."""
Side = Literal["personality", "design"]


class Composite(TypedDict):
    """A composite chart: a transit's overlay, a connection's composite."""

    type: ChartType
    definition: Definition
    authority: Authority
    centers: list[Center]
    channelsShort: list[str]


class TransitNatal(TypedDict):
    """What a transit does to a natal chart."""

    completedChannels: list[str]
    newCenters: list[Center]
    overlay: Composite


class TransitResult(TypedDict):
    """The ``data`` of ``POST /v2/transits``: the 13 bodies at ``at`` (each
    ``"<gate>.<line>"``), their gates and channels, and ``natal`` (``None`` without a
    natal birth)."""

    at: str
    activations: ActivationSide
    gates: list[str]
    channelsShort: list[str]
    natal: TransitNatal | None


class HeldChannel(TypedDict):
    """A channel one person holds alone (``person`` 1 or 2)."""

    channel: str
    person: Literal[1, 2]


class ConnectionResult(TypedDict):
    """The ``data`` of ``POST /v2/connections``: each channel between two people
    classified, and their composite chart."""

    electromagnetic: list[str]
    companionship: list[str]
    dominance: list[HeldChannel]
    compromise: list[HeldChannel]
    composite: Composite


class PentaResult(TypedDict):
    """The ``data`` of ``POST /v2/pentas``: the members' birth instants (in order), the
    penta gates and channels the group defines."""

    members: list[str]
    gates: list[str]
    channels: list[str]


LineChange = TypedDict("LineChange", {
    "at": str, "side": Side, "body": Body, "from": str, "to": str,
})
"""An instant at which one activation changes line (``from`` and ``to``: ``gate.line``)."""

Segment = TypedDict("Segment", {
    "from": str, "to": str, "type": ChartType, "profile": Profile, "authority": Authority,
    "definition": Definition, "incarnationCross": str,
})
"""A stretch of the window over which the chart's main properties stay the same."""

SensitivityResult = TypedDict("SensitivityResult", {
    "from": str, "to": str, "changes": list[LineChange], "segments": list[Segment],
})
"""The ``data`` of ``POST /v2/sensitivity``: the window searched, every line change in it
and the segments between them."""


class CyclesResult(TypedDict):
    """The ``data`` of ``POST /v2/cycles``: the solar return of the year asked for, the
    Saturn returns and the Uranus oppositions of the birth."""

    solarReturn: str
    saturnReturn: list[str]
    uranusOpposition: list[str]


class Ingress(TypedDict):
    """A body entering a gate (or a line of it) at ``at``; ``line`` is ``"1"`` to
    ``"6"``."""

    at: str
    body: Body
    gate: str
    line: str


CalendarResult = list[Ingress]
"""The ``data`` of ``POST /v2/calendar``: the ingresses, in time order (a JSON array, as
``bodygraph calendar --json`` prints it)."""


class BatchSlotError(TypedDict):
    """A batch slot whose birth has no chart: the errorCode and message the single-chart
    endpoint would have given it."""

    errorCode: str
    message: str


class ChartBatchResult(TypedDict):
    """The ``data`` of ``POST /v2/charts/batch``: one slot per birth, in input order."""

    results: list[ChartResult | BatchSlotError]


Stretch = TypedDict("Stretch", {"value": str, "from": str | None, "to": str | None})
"""A value of the chart and the birth instants over which it holds: ``from`` the first
with it, ``to`` the first after the birth with another (``None``: to the bound)."""


class StabilityProperties(TypedDict):
    """The stretch of each property of the chart."""

    type: Stretch
    profile: Stretch
    authority: Stretch
    definition: Stretch
    incarnationCross: Stretch
    strategy: Stretch
    variables: Stretch


class SideStretches(TypedDict):
    """The stretch of each activation of one side (its value ``"<gate>.<line>"``)."""

    sun: Stretch
    earth: Stretch
    northNode: Stretch
    southNode: Stretch
    moon: Stretch
    mercury: Stretch
    venus: Stretch
    mars: Stretch
    jupiter: Stretch
    saturn: Stretch
    uranus: Stretch
    neptune: Stretch
    pluto: Stretch


class StabilityActivations(TypedDict):
    """The stretches of the 26 activations."""

    personality: SideStretches
    design: SideStretches


class StabilityResult(TypedDict):
    """The ``data`` of ``POST /v2/stability`` (and ``/coordinates``): how far either side
    of ``birth`` each property and activation stays the same."""

    birth: str
    properties: StabilityProperties
    activations: StabilityActivations


class Constraints(TypedDict, total=False):
    """What is known of a chart (all must hold; at least one): the members of the
    service's ``Constraints``, the options of ``bodygraph rectify``."""

    type: ChartType
    profile: Profile
    authority: Authority
    definition: Definition
    cross: str
    strategy: Strategy
    centers: list[Center]
    openCenters: list[Center]
    channels: list[str]
    gates: list[int]
    activations: list[str]


WallPass = Literal["first", "second"]
"""Which pass of a wall time that occurs twice (clocks turned back)."""


class WindowChart(TypedDict):
    """The chart all through a window."""

    type: ChartType
    profile: Profile
    authority: Authority
    definition: Definition
    incarnationCross: str


Window = TypedDict("Window", {
    "from": str, "to": str, "fromLocal": str, "toLocal": str, "fromPass": WallPass | None,
    "toPass": WallPass | None, "chart": WindowChart,
})
"""Birth instants ``[from, to)`` whose chart fits, in UTC and local time (with the UTC
offset)."""

Searched = TypedDict("Searched", {
    "from": str, "to": str, "fromLocal": str, "toLocal": str, "zone": str,
})
"""The birth instants searched and the time zone of the place."""


class RectificationResult(TypedDict):
    """The ``data`` of ``POST /v2/rectifications``: the span searched and the windows
    whose chart has all the constraints, in time order (none: nothing fits)."""

    searched: Searched
    windows: list[Window]
