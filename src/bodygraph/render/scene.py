"""One description of everything a render shows, whatever was asked for.

A :class:`Scene` lists its activation *sources* (natal design and personality, a
transit, or each side of two persons), the texts (header, summary, title, description)
and a key that identifies the scene. The drawing code reads only scenes; a source's
colour encodes who activates, its shape and line pattern whether it is design
(square dot, double line) or personality (round dot, solid line), so the two are told
apart without colour.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Literal

from bodygraph.catalog.tables import CENTER_NAMES, Channel, reading_order
from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, cross_text, listed, term
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
    #: The legend's words for a gate several sources activate.
    both_label: str = "Both"
    #: The bodies' names in the scene's language (``BODIES`` order), for the columns.
    body_names: tuple[str, ...] = tuple(PLANET_NAMES.values())

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


def natal_header(data: RenderInput,
                 lang: str = SOURCE_LANGUAGE) -> tuple[tuple[str, str], ...]:
    """Type, strategy, authority, profile, definition and incarnation cross."""
    tr = catalog(lang)
    cross = incarnation_cross(data.profile, data.personality[0].gate, data.personality[1].gate,
                              data.design[0].gate, data.design[1].gate)
    return ((tr.pgettext("image", "Type"), term("type", data.type.value, lang)),
            (tr.pgettext("image", "Strategy"), term("strategy", STRATEGY[data.type], lang)),
            (tr.pgettext("image", "Authority"), term("authority", data.authority.value, lang)),
            (tr.pgettext("image", "Profile"), data.profile),
            (tr.pgettext("image", "Definition"),
             term("definition", data.definition.value, lang)),
            (tr.pgettext("image", "Cross"), cross_text(cross, lang)))


def natal_summary(data: RenderInput, lang: str = SOURCE_LANGUAGE) -> tuple[str, ...]:
    """The summary line's parts: type, profile, authority, definition."""
    tr = catalog(lang)
    return (term("type", data.type.value, lang),
            tr.pgettext("image", "Profile {profile}").format(profile=data.profile),
            tr.pgettext("image", "{authority} Authority").format(
                authority=term("authority", data.authority.value, lang)),
            term("definition", data.definition.value, lang))


def _listing(data: RenderInput, lang: str) -> str:
    tr = catalog(lang)
    none = tr.pgettext("image", "none")
    centers = listed((term("center", n, lang) for n in CENTER_NAMES
                      if n in data.centers), lang) or none
    channels = ", ".join(c.short for c in sorted(data.channels, key=reading_order)) or none
    return tr.pgettext("image", "Defined centers: {centers}. Defined channels: {channels}."
                       ).format(centers=centers, channels=channels)


def planet_name(placement: Placement, lang: str) -> str:
    """The name of a placement's body in ``lang``."""
    return term("body", PLANET_NAMES[placement.body], lang)


def side_text(name: str, placements: tuple[Placement, ...],
              lang: str = SOURCE_LANGUAGE) -> str:
    """``"Design: Sun 13.4, Earth 7.4, ..."`` (``name`` already in ``lang``)."""
    return f"{name}: " + listed((f"{planet_name(p, lang)} {p}" for p in placements),
                                lang) + "."


def natal_scene(data: RenderInput, lang: str = SOURCE_LANGUAGE) -> Scene:
    """A natal chart: design and personality, its words in ``lang``."""
    tr = catalog(lang)
    design, personality = term("side", "Design", lang), term("side", "Personality", lang)
    summary = natal_summary(data, lang)
    description = (f"{', '.join(summary)}. {_listing(data, lang)} "
                   f"{side_text(design, data.design, lang)} "
                   f"{side_text(personality, data.personality, lang)}")
    if data.variables is not None:
        description += " " + tr.pgettext("image", "Variables: {arrows}.").format(
            arrows=data.variables)
    return Scene("chart", (_design(data.design, heading=design),
                           _personality(data.personality, heading=personality)),
                 natal_header(data, lang), summary,
                 tr.pgettext("image", "Human Design bodygraph: {type}, profile {profile}").format(
                     type=term("type", data.type.value, lang), profile=data.profile),
                 description, data.variables, tr.pgettext("image", "Both"), body_names(lang))


def body_names(lang: str) -> tuple[str, ...]:
    """The 13 bodies' names in ``lang``, in ``BODIES`` order."""
    return tuple(term("body", name, lang) for name in PLANET_NAMES.values())


def transit_words(label: str, tr: gettext.NullTranslations) -> str:
    """A transit's label in the catalog ``tr``'s language: the library's own labels
    (``Transit``, ``Transit 2024-03-20``, ``Transit 2024-03-20 03:06 UTC``) translated,
    any other label as given."""
    word = tr.pgettext("image", "Transit")
    if label == "Transit":
        return word
    rest = label.removeprefix("Transit ")
    try:
        date.fromisoformat(rest[:10])
    except ValueError:
        return label
    return f"{word} {rest}" if label.startswith("Transit ") else label


def person_words(label: str, tr: gettext.NullTranslations) -> str:
    """A person's label: ``Person 1``/``Person 2`` translated, any other as given."""
    if label in ("Person 1", "Person 2"):
        return tr.pgettext("image", "Person {number}").format(number=label[-1])
    return label


def transit_scene(data: TransitInput, lang: str = SOURCE_LANGUAGE) -> Scene:
    """A natal chart with a transit over it (third colour, own column on the right)."""
    tr = catalog(lang)
    natal = natal_scene(data.natal, lang)
    label = transit_words(data.label, tr)
    transit = Source("transit", "transit", "transit", "diamond", False, label, None,
                     data.transit, False)
    scene = Scene("transit", (*natal.sources, transit), natal.header, natal.summary,
                  tr.pgettext("image", "{title}, with {transit}").format(
                      title=natal.title, transit=label if lang != SOURCE_LANGUAGE
                      else label.lower()),
                  f"{natal.description} {side_text(label, data.transit, lang)}",
                  natal.variables, natal.both_label, natal.body_names)
    added = [c.short for c in sorted(scene.channels, key=reading_order)
             if c not in data.natal.channels]
    listed = ", ".join(added)
    return Scene(scene.kind, scene.sources,
                 (*scene.header, (label, listed or tr.pgettext("image", "no new channel"))),
                 scene.summary, scene.title, f"{scene.description} " + tr.pgettext(
                     "image", "Channels the {transit} completes: {channels}.").format(
                     transit=label if lang != SOURCE_LANGUAGE else label.lower(),
                     channels=listed or tr.pgettext("image", "none")),
                 scene.variables, scene.both_label, scene.body_names)


def connection_scene(data: ConnectionInput, lang: str = SOURCE_LANGUAGE) -> Scene:
    """Two persons: each one's activations in their own colour."""
    tr = catalog(lang)
    a, b = person_words(data.first_label, tr), person_words(data.second_label, tr)
    design, personality = tr.pgettext("image", "design"), tr.pgettext("image", "personality")
    sources = (
        _design(data.first.design, colour="person-a", person="person-a", heading=a,
                sub=design),
        _personality(data.first.personality, colour="person-a", person="person-a",
                     heading=a, sub=personality, left=True),
        _personality(data.second.personality, colour="person-b", person="person-b",
                     heading=b, sub=personality),
        _design(data.second.design, colour="person-b", person="person-b", heading=b,
                sub=design, left=False),
    )
    probe = Scene("connection", sources, (), (), "", "")
    kind = term("type", chart_type(probe.graph).value, lang)
    together = term("definition", definition(probe.graph).value, lang)
    first = data.first.design_gates | data.first.personality_gates
    second = data.second.design_gates | data.second.personality_gates
    electro = [c.short for c in sorted(probe.channels, key=reading_order)
               if (link := classify(c, first, second))
               and link.kind is ConnectionKind.ELECTROMAGNETIC]
    none = tr.pgettext("image", "none")
    pair = tr.pgettext("image", "{first} and {second}").format(first=a, second=b)
    header = ((tr.pgettext("image", "Connection"), pair), (tr.pgettext("image", "Together"), kind),
              (tr.pgettext("image", "Definition"), together),
              (tr.pgettext("image", "Electromagnetic"), ", ".join(electro) or none))
    description = (tr.pgettext(
        "image", "Connection of {first} and {second}: together {type}, {definition}. "
        "Electromagnetic channels: {channels}.").format(
            first=a, second=b, type=kind, definition=together,
            channels=", ".join(electro) or none) + " "
        + f"{side_text(f'{a} {design}', data.first.design, lang)} "
        f"{side_text(f'{a} {personality}', data.first.personality, lang)} "
        f"{side_text(f'{b} {personality}', data.second.personality, lang)} "
        f"{side_text(f'{b} {design}', data.second.design, lang)}")
    return Scene("connection", sources, header, (pair, kind, together),
                 tr.pgettext("image", "Human Design connection: {first} and {second}").format(
                     first=a, second=b), description, None,
                 tr.pgettext("image", "Both persons"), body_names(lang))


def scene_of(data: RenderInput | TransitInput | ConnectionInput,
             lang: str = SOURCE_LANGUAGE) -> Scene:
    """The scene of any render input, its words in ``lang``."""
    if isinstance(data, TransitInput):
        return transit_scene(data, lang)
    if isinstance(data, ConnectionInput):
        return connection_scene(data, lang)
    return natal_scene(data, lang)
