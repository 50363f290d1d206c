"""The chart model: :class:`Activation`, :class:`Side` and :class:`Chart`, frozen and typed."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from bodygraph.catalog.tables import Channel

if TYPE_CHECKING:
    from collections.abc import Iterator

NodeKind = Literal["true", "mean"]


class Body(StrEnum):
    """The 13 activating bodies; the value is the v2 key of the contract."""

    SUN = "sun"
    EARTH = "earth"
    NORTH_NODE = "northNode"
    SOUTH_NODE = "southNode"
    MOON = "moon"
    MERCURY = "mercury"
    VENUS = "venus"
    MARS = "mars"
    JUPITER = "jupiter"
    SATURN = "saturn"
    URANUS = "uranus"
    NEPTUNE = "neptune"
    PLUTO = "pluto"

    @property
    def v1_key(self) -> str:
        """The v1 key: ``north_node`` and ``south_node``; the others as in v2."""
        return {"northNode": "north_node", "southNode": "south_node"}.get(self.value, self.value)


BODIES: tuple[Body, ...] = tuple(Body)
"""The bodies in the order of the contract's ActivationSide."""

GATE_ORDER: tuple[Body, ...] = (
    Body.SUN, Body.EARTH, Body.NORTH_NODE, Body.SOUTH_NODE, Body.MOON, Body.MERCURY,
    Body.MARS, Body.VENUS, Body.JUPITER, Body.SATURN, Body.URANUS, Body.NEPTUNE, Body.PLUTO,
)
"""The order in which ``gates`` lists first appearances (conventions: mars before venus)."""


class ChartType(StrEnum):
    """The five types."""

    GENERATOR = "Generator"
    MANIFESTING_GENERATOR = "Manifesting Generator"
    PROJECTOR = "Projector"
    MANIFESTOR = "Manifestor"
    REFLECTOR = "Reflector"


class Authority(StrEnum):
    """Inner authority, as written in v1 and v2."""

    EMOTIONAL = "Emotional"
    SACRAL = "Sacral"
    SPLENIC = "Splenic"
    EGO_MANIFESTED = "Ego Manifested"
    EGO_PROJECTED = "Ego Projected"
    SELF_PROJECTED = "Self-Projected"
    SOUNDING_BOARD = "Sounding Board"
    LUNAR = "Lunar"


class Definition(StrEnum):
    """How many separate groups the defined centers form."""

    NONE = "No Definition"
    SINGLE = "Single Definition"
    SPLIT = "Split Definition"
    TRIPLE_SPLIT = "Triple Split Definition"
    QUAD_SPLIT = "Quad Split Definition"


@dataclass(frozen=True, slots=True)
class Activation:
    """Where one body stands on the wheel.

    ``longitude`` is the apparent geocentric ecliptic longitude of date, in
    degrees; gate, line, color, tone and base follow from it exactly.
    """

    body: Body
    longitude: float
    gate: int
    line: int
    color: int
    tone: int
    base: int

    @property
    def arrow(self) -> Literal["L", "R"]:
        """``L`` for tones 1-3, ``R`` for tones 4-6."""
        return "L" if self.tone <= 3 else "R"

    def __str__(self) -> str:
        return f"{self.gate}.{self.line}"


@dataclass(frozen=True, slots=True)
class Side:
    """The 13 activations of one side (personality or design)."""

    sun: Activation
    earth: Activation
    north_node: Activation
    south_node: Activation
    moon: Activation
    mercury: Activation
    venus: Activation
    mars: Activation
    jupiter: Activation
    saturn: Activation
    uranus: Activation
    neptune: Activation
    pluto: Activation

    def __iter__(self) -> Iterator[Activation]:
        """The activations in contract order (sun, earth, northNode, ... pluto)."""
        for name in _SIDE_FIELDS:
            yield getattr(self, name)

    def __getitem__(self, body: Body | str) -> Activation:
        key = Body(body)
        found: Activation = getattr(self, key.v1_key)  # the field named after the body
        if found.body is key:
            return found
        for activation in self:
            if activation.body is key:
                return activation
        raise KeyError(body)  # pragma: no cover - every Body is present


_SIDE_FIELDS: tuple[str, ...] = tuple(field.name for field in fields(Side))


@dataclass(frozen=True, slots=True)
class Chart:
    """A complete bodygraph.

    Build one with :func:`bodygraph.calculate`. Every value is derived from the
    26 activations; the ``to_*`` methods write the contract's JSON objects.
    """

    birth_utc: datetime
    design_utc: datetime
    node: NodeKind
    personality: Side
    design: Side
    type: ChartType
    authority: Authority
    definition: Definition
    profile: str
    channels: tuple[Channel, ...]
    centers: tuple[str, ...]
    gates: tuple[int, ...]
    incarnation_cross: str
    strategy: str
    signature: str
    not_self_theme: str
    cognition: str
    determination: str
    variables: str
    motivation: str
    transference: str
    perspective: str
    distraction: str
    environment: str
    circuitries: str

    def to_v2(self) -> dict[str, Any]:
        """The contract's ChartResult ``data`` object (camelCase)."""
        from bodygraph.model.contract import to_v2

        return to_v2(self)

    def to_v2_simple(self) -> dict[str, Any]:
        """The simplified chart of v2: type, profile, gates, channelsShort, centers."""
        from bodygraph.model.contract import to_v2_simple

        return to_v2_simple(self)

    def to_v1(self) -> dict[str, Any]:
        """The legacy v1 flat object (snake_case, v1 wordings)."""
        from bodygraph.model.contract import to_v1

        return to_v1(self)

    def to_v1_simple(self) -> dict[str, Any]:
        """The legacy v1 simplified object."""
        from bodygraph.model.contract import to_v1_simple

        return to_v1_simple(self)
