"""The domain tables, loaded once from ``data/hd-tables.json`` and typed.

Nothing here is retyped by hand: every gate, center, channel, cross and
variable name comes from the data file (see ``data/README.md`` for its
provenance).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

CENTER_NAMES: tuple[str, ...] = (
    "Head", "Ajna", "Throat", "G", "Ego", "Sacral", "Solar Plexus", "Spleen", "Root",
)
"""The nine centers, top of the body to bottom."""

CIRCUITRY_ORDER: tuple[str, ...] = (
    "Individual", "Collective Logic", "Collective Abstract", "Tribal",
)


@dataclass(frozen=True, slots=True)
class Gate:
    """One of the 64 gates of the wheel."""

    number: int
    name: str
    center: str
    start_deg: float


@dataclass(frozen=True, slots=True)
class Center:
    """One of the nine centers, with the gates it holds."""

    name: str
    gates: tuple[int, ...]
    motor: bool
    awareness: bool
    pressure: bool


@dataclass(frozen=True, slots=True)
class Channel:
    """A channel: two gates in two centers. ``gates`` is (lower, higher)."""

    gates: tuple[int, int]
    centers: tuple[str, str]
    name: str
    keynote: str
    circuit: str
    circuitry: str

    @property
    def short(self) -> str:
        """``"<lower>-<higher>"``, e.g. ``"13-33"``."""
        return f"{self.gates[0]}-{self.gates[1]}"


def reading_order(channel: Channel) -> tuple[int, int]:
    """The sort key of channels as people read them: by their gates as numbers (1-8,
    2-14, 13-33, 47-64), unlike the text order of the JSON's ``channelsShort``.

    >>> [c.short for c in sorted(tables().channels, key=reading_order)][:3]
    ['1-8', '2-14', '3-60']
    """
    return channel.gates


@dataclass(frozen=True, slots=True)
class Cross:
    """An incarnation cross of the table (one per angle and personality sun gate)."""

    angle: str
    name: str
    personality_sun: int
    personality_earth: int
    design_sun: int
    design_earth: int
    display: str


@dataclass(frozen=True, slots=True)
class ColorWords:
    """A variable color: its name and the words for the left and right arrow."""

    name: str
    left: str
    right: str


@dataclass(frozen=True, slots=True)
class Variables:
    """Names of the variable colors and tones, keyed by color or tone 1-6."""

    determination: dict[int, ColorWords]
    environment: dict[int, ColorWords]
    cognition: dict[int, str]
    motivation: dict[int, str]
    transference: dict[int, str]
    perspective: dict[int, str]
    distraction: dict[int, str]


@dataclass(frozen=True, slots=True)
class Tables:
    """All domain tables."""

    wheel_order: tuple[int, ...]
    gate_41_start_deg: float
    gates: dict[int, Gate]
    centers: dict[str, Center]
    channels: tuple[Channel, ...]
    crosses: dict[tuple[str, int], Cross]
    profile_angles: dict[str, str]
    profile_names: dict[str, tuple[str, str]]
    variables: Variables


def lower_leading_the(name: str) -> str:
    """A name's leading ``The`` in lower case, for use inside a phrase:
    ``"The Prodigal"`` -> ``"the Prodigal"``."""
    return "the " + name[4:] if name.startswith("The ") else name


def _by_number(raw: dict[str, Any]) -> dict[int, Any]:
    return {int(key): value for key, value in raw.items()}


def _color_words(raw: dict[str, Any]) -> dict[int, ColorWords]:
    return {int(k): ColorWords(v["name"], v["left"], v["right"]) for k, v in raw.items()}


def _parse(raw: dict[str, Any]) -> Tables:
    wheel = raw["wheel"]
    gates = {
        g["gate"]: Gate(g["gate"], g["name"], g["center"], float(g["start_deg"]))
        for g in raw["gates"]
    }
    centers = {
        name: Center(name, tuple(c["gates"]), c["motor"], c["awareness"], c["pressure"])
        for name, c in raw["centers"].items()
    }
    channels = []
    for c in raw["channels"]:
        low, high = sorted(c["gates"])
        center_of = {g: gates[g].center for g in (low, high)}
        channels.append(Channel(
            (low, high), (center_of[low], center_of[high]),
            c["name"], c["keynote"], c["circuit"], c["circuitry"],
        ))
    crosses = {
        (x["angle"], x["personality_sun"]): Cross(
            x["angle"], x["name"], x["personality_sun"], x["personality_earth"],
            x["design_sun"], x["design_earth"], x["display"],
        )
        for x in raw["incarnation_crosses"]
    }
    profile_angles = {
        profile: angle for angle, profiles in raw["angle_rule"].items() for profile in profiles
    }
    profile_names: dict[str, tuple[str, str]] = {}
    for p in raw["profiles"]:
        first, second = p["name"].split("/", 1)
        profile_names[p["profile"]] = (first.strip(), second.strip())
    v = raw["variables"]
    variables = Variables(
        determination=_color_words(v["determination"]),
        environment=_color_words(v["environment"]),
        cognition=_by_number(v["cognition"]),
        motivation=_by_number(v["motivation"]),
        transference=_by_number(v["motivation_transference"]),
        perspective=_by_number(v["view"]),
        distraction=_by_number(v["view_distraction"]),
    )
    return Tables(
        wheel_order=tuple(wheel["order_from_gate_41"]),
        gate_41_start_deg=float(wheel["gate_41_start_deg"]),
        gates=gates,
        centers=centers,
        channels=tuple(channels),
        crosses=crosses,
        profile_angles=profile_angles,
        profile_names=profile_names,
        variables=variables,
    )


def raw_tables() -> dict[str, Any]:
    """The JSON document as loaded, for consistency checks."""
    text = resources.files("bodygraph").joinpath("data/hd-tables.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def tables() -> Tables:
    """The typed tables, parsed once per process."""
    return _parse(raw_tables())
