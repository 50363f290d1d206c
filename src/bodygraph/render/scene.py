"""One description of everything a render shows, whatever was asked for.

A :class:`Scene` lists its activation *sources* (natal design and personality, a
transit, or each side of two persons), the texts (header, summary, title, description)
and a key that identifies the scene. The drawing code reads only scenes; a source's
colour encodes who activates, its shape and line pattern whether it is design
(square dot, double line) or personality (round dot, solid line), so the two are told
apart without colour.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from bodygraph.catalog.tables import CENTER_NAMES, Channel, reading_order
from bodygraph.catalog.wording import STRATEGY
from bodygraph.relations.connection import ConnectionKind, classify
from bodygraph.render.glyphs import PLANET_NAMES
from bodygraph.render.model import Placement, RenderInput
from bodygraph.render.overlay import ConnectionInput, TransitInput
from bodygraph.rules.graph import CenterGraph, center_graph, defined_channels
from bodygraph.rules.properties import chart_type, definition
from bodygraph.rules.text import incarnation_cross

Shape = Literal["circle", "square", "diamond"]
Kind = Literal["chart", "transit", "connection"]


@dataclass(frozen=True, slots=True)
class Source:
    """One set of activations and how its marks look."""

    key: str  # unique within the scene: "design", "person-a-design", ...
    classes: str  # CSS classes of its marks: "design", "person-a personality", ...
    colour: str  # the theme colour: "design", "personality", "transit", "person-a", ...
    shape: Shape
    hollow: bool  # design: a line of the background inside its channel halves
    heading: str
    sub: str | None
    placements: tuple[Placement, ...]
    left: bool  # column left of the graph

    @property
    def label(self) -> str:
        """The legend's name of the source."""
        return f"{self.heading} {self.sub}" if self.sub else self.heading


def _design(placements: tuple[Placement, ...], *, colour: str = "design", person: str = "",
            heading: str = "Design", sub: str | None = None, left: bool = True) -> Source:
    prefix = f"{person}-" if person else ""
    classes = f"{person} design" if person else "design"
    return Source(f"{prefix}design", classes, colour, "square", True, heading, sub,
                  placements, left)


def _personality(placements: tuple[Placement, ...], *, colour: str = "personality",
                 person: str = "", heading: str = "Personality", sub: str | None = None,
                 left: bool = False) -> Source:
    prefix = f"{person}-" if person else ""
    classes = f"{person} personality" if person else "personality"
    return Source(f"{prefix}personality", classes, colour, "circle", False, heading, sub,
                  placements, left)


@dataclass(frozen=True)
class Scene:
    """Sources, texts and identity of one image."""

    kind: Kind
    sources: tuple[Source, ...]
    header: tuple[tuple[str, str], ...]
    summary: tuple[str, ...]
    title: str
    description: str
    #: The chart's arrows (``"PLR DRL"``) drawn beside the head, or None.
    variables: str | None = None

    @cached_property
    def gate_sources(self) -> dict[int, tuple[Source, ...]]:
        """The sources that activate each active gate, in source order."""
        out: dict[int, list[Source]] = {}
        for source in self.sources:
            for gate in dict.fromkeys(p.gate for p in source.placements):
                out.setdefault(gate, []).append(source)
        return {g: tuple(s) for g, s in out.items()}

    @cached_property
    def channels(self) -> tuple[Channel, ...]:
        """Channels defined by all sources together."""
        return defined_channels(frozenset(self.gate_sources))

    @cached_property
    def graph(self) -> CenterGraph:
        """Defined centers of all sources together."""
        return center_graph(self.channels)

    @property
    def key(self) -> str:
        """Text that identifies what the scene shows (the seed of its ids)."""
        parts = [self.kind] + [
            f"{s.key}:{s.heading}:" + ",".join(map(str, s.placements)) for s in self.sources
        ]
        if self.variables is not None:
            parts.append(f"variables:{self.variables}")
        return "|".join(parts)

    def state(self, gate: int) -> str | None:
        """``None`` (inactive), the one source's key, or ``"both"`` (several sources)."""
        sources = self.gate_sources.get(gate, ())
        if not sources:
            return None
        return sources[0].classes.split()[-1] if len(sources) == 1 else "both"


def natal_header(data: RenderInput) -> tuple[tuple[str, str], ...]:
    """Type, strategy, authority, profile, definition and incarnation cross."""
    cross = incarnation_cross(data.profile, data.personality[0].gate, data.personality[1].gate,
                              data.design[0].gate, data.design[1].gate)
    return (("Type", data.type.value), ("Strategy", STRATEGY[data.type]),
            ("Authority", data.authority.value), ("Profile", data.profile),
            ("Definition", data.definition.value), ("Cross", cross))


def natal_summary(data: RenderInput) -> tuple[str, ...]:
    """The summary line's parts: type, profile, authority, definition."""
    return (data.type.value, f"Profile {data.profile}", f"{data.authority.value} Authority",
            data.definition.value)


def _listing(data: RenderInput) -> str:
    centers = ", ".join(n for n in CENTER_NAMES if n in data.centers) or "none"
    channels = ", ".join(c.short for c in sorted(data.channels, key=reading_order)) or "none"
    return f"Defined centers: {centers}. Defined channels: {channels}."


def side_text(name: str, placements: tuple[Placement, ...]) -> str:
    """``"Design: Sun 13.4, Earth 7.4, ..."``."""
    return f"{name}: " + ", ".join(f"{PLANET_NAMES[p.body]} {p}" for p in placements) + "."


def natal_scene(data: RenderInput) -> Scene:
    """A natal chart: design and personality."""
    summary = natal_summary(data)
    description = (f"{', '.join(summary)}. {_listing(data)} "
                   f"{side_text('Design', data.design)} "
                   f"{side_text('Personality', data.personality)}")
    if data.variables is not None:
        description += f" Variables: {data.variables}."
    return Scene("chart", (_design(data.design), _personality(data.personality)),
                 natal_header(data), summary,
                 f"Human Design bodygraph: {data.type.value}, profile {data.profile}",
                 description, data.variables)


def transit_scene(data: TransitInput) -> Scene:
    """A natal chart with a transit over it (third colour, own column on the right)."""
    natal = natal_scene(data.natal)
    transit = Source("transit", "transit", "transit", "diamond", False, data.label, None,
                     data.transit, False)
    scene = Scene("transit", (*natal.sources, transit), natal.header, natal.summary,
                  f"{natal.title}, with {data.label.lower()}",
                  f"{natal.description} {side_text(data.label, data.transit)}",
                  natal.variables)
    added = [c.short for c in sorted(scene.channels, key=reading_order)
             if c not in data.natal.channels]
    return Scene(scene.kind, scene.sources,
                 (*scene.header, (data.label, ", ".join(added) or "no new channel")),
                 scene.summary, scene.title, f"{scene.description} Channels the "
                 f"{data.label.lower()} completes: {', '.join(added) or 'none'}.",
                 scene.variables)


def connection_scene(data: ConnectionInput) -> Scene:
    """Two persons: each one's activations in their own colour."""
    a, b = data.first_label, data.second_label
    sources = (
        _design(data.first.design, colour="person-a", person="person-a", heading=a,
                sub="design"),
        _personality(data.first.personality, colour="person-a", person="person-a",
                     heading=a, sub="personality", left=True),
        _personality(data.second.personality, colour="person-b", person="person-b",
                     heading=b, sub="personality"),
        _design(data.second.design, colour="person-b", person="person-b", heading=b,
                sub="design", left=False),
    )
    probe = Scene("connection", sources, (), (), "", "")
    kind, together = chart_type(probe.graph), definition(probe.graph).value
    first = data.first.design_gates | data.first.personality_gates
    second = data.second.design_gates | data.second.personality_gates
    electro = [c.short for c in sorted(probe.channels, key=reading_order)
               if (link := classify(c, first, second))
               and link.kind is ConnectionKind.ELECTROMAGNETIC]
    header = (("Connection", f"{a} and {b}"), ("Together", kind.value),
              ("Definition", together),
              ("Electromagnetic", ", ".join(electro) or "none"))
    description = (f"Connection of {a} and {b}: together {kind.value}, "
                   f"{together}. Electromagnetic channels: "
                   f"{', '.join(electro) or 'none'}. "
                   f"{side_text(f'{a} design', data.first.design)} "
                   f"{side_text(f'{a} personality', data.first.personality)} "
                   f"{side_text(f'{b} personality', data.second.personality)} "
                   f"{side_text(f'{b} design', data.second.design)}")
    return Scene("connection", sources, header, (f"{a} and {b}", kind.value, together),
                 f"Human Design connection: {a} and {b}", description)


def scene_of(data: RenderInput | TransitInput | ConnectionInput) -> Scene:
    """The scene of any render input."""
    if isinstance(data, TransitInput):
        return transit_scene(data)
    if isinstance(data, ConnectionInput):
        return connection_scene(data)
    return natal_scene(data)
