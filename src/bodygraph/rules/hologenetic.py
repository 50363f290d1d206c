"""The hologenetic profile (the Gene Keys profile): thirteen spheres, each the key (gate)
and line of one named activation, for one chart or as columns for many; and label packs,
the user's own words for keys and spheres (docs/conventions.md, "The hologenetic profile")."""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from bodygraph._typing import ObjectArray, SmallIntArray
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import BODIES, Body, Chart, gate_line

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bodygraph.columnar import ChartTable


@dataclass(frozen=True, slots=True)
class SphereSource:
    """Which activation a sphere is: its sequence, its JSON key, its title, the side
    (``"personality"`` or ``"design"``) and the body."""

    sequence: str
    key: str
    title: str
    side: str
    body: Body


#: The spheres in the order of the profile: the activation, venus and pearl sequences.
SPHERES: Final[tuple[SphereSource, ...]] = (
    SphereSource("activation", "lifesWork", "Life's Work", "personality", Body.SUN),
    SphereSource("activation", "evolution", "Evolution", "personality", Body.EARTH),
    SphereSource("activation", "radiance", "Radiance", "design", Body.SUN),
    SphereSource("activation", "purpose", "Purpose", "design", Body.EARTH),
    SphereSource("venus", "attraction", "Attraction", "design", Body.MOON),
    SphereSource("venus", "iq", "IQ", "personality", Body.VENUS),
    SphereSource("venus", "eq", "EQ", "personality", Body.MARS),
    SphereSource("venus", "sq", "SQ", "design", Body.VENUS),
    SphereSource("venus", "core", "Core", "design", Body.MARS),
    SphereSource("pearl", "vocation", "Vocation", "design", Body.MARS),
    SphereSource("pearl", "culture", "Culture", "design", Body.JUPITER),
    SphereSource("pearl", "brand", "Brand", "personality", Body.SUN),
    SphereSource("pearl", "pearl", "Pearl", "personality", Body.JUPITER),
)
#: The three sequences, in order, with their titles.
SEQUENCES: Final = MappingProxyType(
    {"activation": "Activation sequence", "venus": "Venus sequence", "pearl": "Pearl sequence"})
SPHERE_KEYS: Final[tuple[str, ...]] = tuple(sphere.key for sphere in SPHERES)
_SIDE_ROW: Final = MappingProxyType({"personality": 0, "design": 1})


@dataclass(frozen=True, slots=True)
class Sphere:
    """One sphere of a profile: where it comes from, and its key (gate) and line."""

    source: SphereSource
    key: int
    line: int

    def __str__(self) -> str:
        return gate_line(self.key, self.line)


@dataclass(frozen=True, slots=True)
class HologeneticProfile:
    """The thirteen spheres of one chart, in the order of :data:`SPHERES`."""

    spheres: tuple[Sphere, ...]

    def __getitem__(self, key: str) -> Sphere:
        """The sphere of a JSON key (``"lifesWork"``, ``"iq"``, ...)."""
        for sphere in self.spheres:
            if sphere.source.key == key:
                return sphere
        raise KeyError(key)

    def to_dict(self) -> dict[str, dict[str, str]]:
        """``{"activation": {"lifesWork": "38.3", ...}, "venus": {...}, "pearl": {...}}``."""
        out: dict[str, dict[str, str]] = {sequence: {} for sequence in SEQUENCES}
        for sphere in self.spheres:
            out[sphere.source.sequence][sphere.source.key] = str(sphere)
        return out


def hologenetic_profile(chart: Chart) -> HologeneticProfile:
    """The hologenetic profile of a chart (each sphere is the named activation)."""
    spheres = []
    for source in SPHERES:
        activation = getattr(chart, source.side)[source.body]
        spheres.append(Sphere(source, activation.gate, activation.line))
    return HologeneticProfile(tuple(spheres))


def hologenetic_columns(gate: SmallIntArray, line: SmallIntArray) -> dict[str, ObjectArray]:
    """The profiles of N charts from their (2, 13, N) ``gate`` and ``line`` arrays (a
    :class:`~bodygraph.columnar.ChartTable`'s): one array of ``"key.line"`` texts per
    sphere key, each of shape (N,)."""
    out: dict[str, ObjectArray] = {}
    for source in SPHERES:
        row = (_SIDE_ROW[source.side], BODIES.index(source.body))
        keys, lines = np.asarray(gate[row]).tolist(), np.asarray(line[row]).tolist()
        texts = np.empty(len(keys), dtype=object)
        texts[:] = [gate_line(k, n) for k, n in zip(keys, lines, strict=True)]
        out[source.key] = texts
    return out


def hologenetic_table(table: ChartTable) -> dict[str, ObjectArray]:
    """The profiles of the charts of a table, as :func:`hologenetic_columns`."""
    return hologenetic_columns(table.gate, table.line)


@dataclass(frozen=True, slots=True)
class LabelPack:
    """A user's own words: per key number, named texts (for example shadow, gift, siddhi);
    per sphere key, a text. The library ships none."""

    keys: Mapping[int, Mapping[str, str]]
    spheres: Mapping[str, str]

    def key_labels(self, key: int) -> Mapping[str, str]:
        """The texts of a key number (empty when the pack has none)."""
        return self.keys.get(key, {})


def label_pack_from_json(text: str) -> LabelPack:
    """A label pack from its JSON text (the format of docs/conventions.md): ``{"keys":
    {"38": {"shadow": "...", ...}, ...}, "spheres": {"lifesWork": "...", ...}}``; both
    members optional, nothing else allowed."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidOptionError(f"the label pack is not JSON: {exc.msg} at line {exc.lineno}") \
            from None
    if not isinstance(document, dict):
        raise InvalidOptionError("the label pack must be a JSON object with 'keys' and/or "
                                 "'spheres'")
    unknown = sorted(set(document) - {"keys", "spheres"})
    if unknown:
        raise InvalidOptionError(f"the label pack has unknown members {unknown}: use 'keys' "
                                 "and 'spheres'")
    return LabelPack(_keys(document.get("keys", {})), _spheres(document.get("spheres", {})))


def _keys(value: Any) -> dict[int, Mapping[str, str]]:
    if not isinstance(value, dict):
        raise InvalidOptionError("the label pack's 'keys' must be an object keyed by key number")
    out: dict[int, Mapping[str, str]] = {}
    for name, texts in value.items():
        if not (name.isdigit() and 1 <= int(name) <= 64):
            raise InvalidOptionError(f"the label pack names key {name!r}: keys are 1 to 64")
        if not isinstance(texts, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in texts.items()):
            raise InvalidOptionError(f"the label pack's key {name} must map names to texts")
        out[int(name)] = MappingProxyType(dict(texts))
    return out


def _spheres(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise InvalidOptionError("the label pack's 'spheres' must be an object keyed by sphere")
    for name, text in value.items():
        if name not in SPHERE_KEYS:
            raise InvalidOptionError(f"the label pack names sphere {name!r}: spheres are "
                                     + ", ".join(SPHERE_KEYS))
        if not isinstance(text, str):
            raise InvalidOptionError(f"the label pack's sphere {name} must be a text")
    return dict(value)
