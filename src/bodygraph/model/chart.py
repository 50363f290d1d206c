"""The chart model: :class:`Activation`, :class:`Side` and :class:`Chart`, frozen and typed."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from bodygraph._time import utc_text
from bodygraph.catalog.tables import Channel
from bodygraph.model import contract

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


#: The enums in code order: the ``type``, ``authority`` and ``definition`` codes of a
#: :class:`~bodygraph.columnar.ChartTable` index these; a definition's index is the number
#: of separate groups of defined centers.
TYPES: tuple[ChartType, ...] = tuple(ChartType)
AUTHORITIES: tuple[Authority, ...] = tuple(Authority)
DEFINITIONS: tuple[Definition, ...] = tuple(Definition)


def arrow(tone: int) -> Literal["L", "R"]:
    """The arrow of a tone: ``L`` for tones 1-3, ``R`` for tones 4-6."""
    return "L" if tone <= 3 else "R"


def gate_line(gate: int, line: int) -> str:
    """An activation as written in the contract: ``"<gate>.<line>"``."""
    return f"{gate}.{line}"


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
        return arrow(self.tone)

    def __str__(self) -> str:
        return gate_line(self.gate, self.line)


@dataclass(frozen=True, slots=True, repr=False)
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

    def __repr__(self) -> str:
        """The 13 activations as ``gate.line``; each :class:`Activation` is one attribute
        away."""
        return "Side(" + ", ".join(f"{name}={getattr(self, name)}" for name in _SIDE_FIELDS) + ")"

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


@dataclass(frozen=True, slots=True, repr=False)
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

    def __repr__(self) -> str:
        """A short summary; every property is one attribute away (``chart.channels``,
        ``chart.personality``, ...) and ``to_v2()`` has them all."""
        return (f"Chart(birth_utc={utc_text(self.birth_utc)}, node={self.node!r}, "
                f"type={self.type.value!r}, profile={self.profile!r}, "
                f"authority={self.authority.value!r}, definition={self.definition.value!r})")

    def to_v2(self) -> dict[str, Any]:
        """The contract's ChartResult ``data`` object (camelCase)."""
        return contract.to_v2(self)

    def to_v2_simple(self) -> dict[str, Any]:
        """The simplified chart of v2: type, profile, gates, channelsShort, centers."""
        return contract.to_v2_simple(self)

    def labels(self, lang: str) -> dict[str, Any]:
        """The word fields of :meth:`to_v2` in language ``lang`` (one of
        :func:`bodygraph.languages`), under the same keys: type, centers, strategy,
        authority, incarnationCross, definition, signature, notSelfTheme, the variables'
        words, circuitries and channelsLong (docs/languages.md). ``"en"`` gives them as
        ``to_v2()`` does; an unknown code raises
        :class:`~bodygraph.errors.UnsupportedLanguageError`.

        >>> from datetime import datetime, timezone
        >>> from bodygraph import calculate
        >>> calculate(datetime(1990, 5, 17, 10, 30, tzinfo=timezone.utc)).labels("de")["type"]
        'Projektor'
        """
        from bodygraph.catalog.translations import chart_labels

        return chart_labels(self, lang)

    def to_v1(self) -> dict[str, Any]:
        """The legacy v1 flat object (snake_case, v1 wordings)."""
        return contract.to_v1(self)

    def to_v1_simple(self) -> dict[str, Any]:
        """The legacy v1 simplified object."""
        return contract.to_v1_simple(self)
