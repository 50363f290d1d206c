"""What a person knows of their chart, as constraints a birth-time search can test: read
from text against the library's own tables (one definition of every valid value), and
tested on many charts at once (:meth:`Constraints.mask`)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bodygraph._typing import BoolArray
from bodygraph.catalog.tables import CENTER_NAMES, lower_leading_the, tables
from bodygraph.catalog.wording import STRATEGY
from bodygraph.columnar import ChartTable
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import (
    AUTHORITIES,
    BODIES,
    DEFINITIONS,
    TYPES,
    Authority,
    Body,
    ChartType,
    Definition,
)
from bodygraph.relations.segments import SIDE_NAMES

__all__ = ["ActivationConstraint", "Constraints", "constraints"]

_SUN = BODIES.index(Body.SUN)
_EARTH = BODIES.index(Body.EARTH)
_FOUR_GATES = re.compile(r"^\s*(\d{1,2})\D+(\d{1,2})\D+(\d{1,2})\D+(\d{1,2})\s*\)?\s*$")
_ACTIVATION = re.compile(r"^\s*([A-Za-z]+)\s*\.\s*([A-Za-z_]+)\s*=\s*(\d{1,2})(?:\.(\d))?\s*$")


@dataclass(frozen=True, slots=True)
class ActivationConstraint:
    """One activation at gate level (``line`` None) or line level: ``personality.sun=38.3``."""

    side: int  # 0 personality, 1 design
    body: Body
    gate: int
    line: int | None

    def __str__(self) -> str:
        value = f"{self.gate}" if self.line is None else f"{self.gate}.{self.line}"
        return f"{SIDE_NAMES[self.side]}.{self.body.value}={value}"


@dataclass(frozen=True, slots=True)
class Constraints:
    """Everything a chart must have; all of it at once. Build it with :func:`constraints`,
    which reads text and checks each value."""

    type: ChartType | None = None
    profile: str | None = None
    authority: Authority | None = None
    definition: Definition | None = None
    cross: str | None = None  # the name, e.g. "Right Angle Cross of the Sphinx"
    cross_gates: tuple[int, int, int, int] | None = None  # personality sun, earth; design
    strategy: str | None = None
    centers: frozenset[str] = frozenset()
    open_centers: frozenset[str] = frozenset()
    channels: frozenset[tuple[int, int]] = frozenset()
    gates: frozenset[int] = frozenset()
    activations: tuple[ActivationConstraint, ...] = ()

    def __bool__(self) -> bool:
        return any(getattr(self, name) for name in self.__slots__)

    def to_dict(self) -> dict[str, Any]:
        """The constraints given, as JSON (the names of :func:`constraints`)."""
        out: dict[str, Any] = {}
        for name in ("type", "profile", "authority", "definition", "strategy"):
            value = getattr(self, name)
            if value is not None:
                out[name] = str(value)
        if self.cross is not None or self.cross_gates is not None:
            gates = self.cross_gates
            out["cross"] = " ".join(part for part in (
                self.cross, None if gates is None else
                f"({gates[0]}/{gates[1]} | {gates[2]}/{gates[3]})") if part)
        for name in ("centers", "open_centers"):
            if getattr(self, name):
                out[name] = sorted(getattr(self, name), key=CENTER_NAMES.index)
        if self.channels:
            out["channels"] = [f"{a}-{b}" for a, b in sorted(self.channels)]
        if self.gates:
            out["gates"] = sorted(self.gates)
        if self.activations:
            out["activations"] = [str(a) for a in self.activations]
        return out

    def mask(self, table: ChartTable) -> BoolArray:
        """Which charts of ``table`` satisfy every constraint."""
        ok = np.ones(len(table), dtype=bool)
        if self.type is not None:
            ok &= table.type == TYPES.index(self.type)
        if self.strategy is not None:
            ok &= np.isin(table.type, [TYPES.index(t) for t in TYPES
                                       if STRATEGY[t.value] == self.strategy])
        if self.authority is not None:
            ok &= table.authority == AUTHORITIES.index(self.authority)
        if self.definition is not None:
            ok &= table.definition == DEFINITIONS.index(self.definition)
        if self.profile is not None:
            first, second = (int(p) for p in self.profile.split("/"))
            ok &= (table.line[0, _SUN] == first) & (table.line[1, _SUN] == second)
        if self.cross_gates is not None:
            for (side, body), gate in zip(((0, _SUN), (0, _EARTH), (1, _SUN), (1, _EARTH)),
                                          self.cross_gates, strict=True):
                ok &= table.gate[side, body] == gate
        for name in self.centers:
            ok &= (table.centers >> CENTER_NAMES.index(name) & 1) == 1
        for name in self.open_centers:
            ok &= (table.centers >> CENTER_NAMES.index(name) & 1) == 0
        bits = {c.gates: i for i, c in enumerate(tables().channels)}
        for pair in self.channels:
            ok &= (table.channel_mask >> bits[pair] & 1) == 1
        for gate in self.gates:
            ok &= (table.gate == gate).any(axis=(0, 1))
        for a in self.activations:
            body = BODIES.index(a.body)
            ok &= table.gate[a.side, body] == a.gate
            if a.line is not None:
                ok &= table.line[a.side, body] == a.line
        if self.cross is not None and ok.any():
            where = np.flatnonzero(ok)
            names = table[where].columns()["incarnation_cross"]
            ok[where] = [str(n).split(" (")[0].casefold() == self.cross.casefold()
                         for n in names]
        return ok


# -- reading text ---------------------------------------------------------------------------

def _choose(what: str, text: object, valid: Iterable[str], *, short: str = "") -> str:
    """The valid value ``text`` names (case and a trailing ``short`` word ignored)."""
    options = list(valid)
    wanted = str(text).strip().casefold()
    for option in options:
        if wanted in (option.casefold(), option.casefold().removesuffix(short).strip()):
            return option
    raise InvalidOptionError(f"unknown {what} {text!r}; use one of: {', '.join(options)}")


def _profile(text: str) -> str:
    valid = sorted(tables().profile_angles)
    value = re.sub(r"\s+", "", str(text))
    if value in valid:
        return value
    raise InvalidOptionError(f"profile {text!r} does not exist; use one of: {', '.join(valid)}")


def cross_names() -> list[str]:
    """Every incarnation cross's name, as charts write it before its gates."""
    return sorted({f"{c.angle} Cross of {lower_leading_the(c.name)}"
                   for c in tables().crosses.values()})


def _gate(value: object, what: str = "gate") -> int:
    try:
        gate = int(str(value).strip())
    except ValueError:
        gate = 0
    if not 1 <= gate <= 64:
        raise InvalidOptionError(f"{what} {value!r} does not exist; use a gate from 1 to 64")
    return gate


def _cross(text: str) -> tuple[str | None, tuple[int, int, int, int] | None]:
    name, _, rest = str(text).partition("(")
    gates = _FOUR_GATES.match(rest if rest else name)
    four = None
    if gates is not None:
        a, b, c, d = (_gate(g, "cross gate") for g in gates.groups())
        four = (a, b, c, d)
    if rest and gates is None:
        raise InvalidOptionError(f"the gates of cross {text!r} are not four gates; write them "
                                 "like (13/7 | 1/2)")
    name = "" if not rest and gates is not None else name.strip()
    if not name:
        return None, four
    names = cross_names()
    for known in names:
        if known.casefold() == name.casefold():
            return known, four
    near = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""
    raise InvalidOptionError(
        f"unknown incarnation cross {text!r}{hint}; write its name like "
        "'Right Angle Cross of the Sphinx' or its four gates like 13/7/1/2")


def _channel(text: str) -> tuple[int, int]:
    valid = {c.gates: c.short for c in tables().channels}
    found = re.fullmatch(r"\s*(\d{1,2})\s*[-/]\s*(\d{1,2})\s*", str(text))
    if found is not None:
        pair = tuple(sorted(int(g) for g in found.groups()))
        if pair in valid:
            return pair
    names = sorted(valid.values(), key=lambda s: tuple(int(g) for g in s.split("-")))
    raise InvalidOptionError(f"unknown channel {text!r}; use one of: {', '.join(names)}")


def _body(text: str) -> Body:
    wanted = text.replace("_", "").casefold()
    for body in BODIES:
        if body.value.casefold() == wanted:
            return body
    raise InvalidOptionError(f"unknown body {text!r}; use one of: "
                             f"{', '.join(b.value for b in BODIES)}")


def _activation(text: str) -> ActivationConstraint:
    found = _ACTIVATION.match(str(text))
    if found is None:
        raise InvalidOptionError(f"activation {text!r} is not side.body=gate or "
                                 "side.body=gate.line; write it like personality.sun=38.3")
    side, body, gate, line = found.groups()
    sides = [s.casefold() for s in SIDE_NAMES]
    if side.casefold() not in sides:
        raise InvalidOptionError(f"unknown side {side!r} in {text!r}; use one of: "
                                 f"{', '.join(SIDE_NAMES)}")
    if line is not None and not 1 <= int(line) <= 6:
        raise InvalidOptionError(f"line {line} in {text!r} does not exist; use a line "
                                 "from 1 to 6")
    return ActivationConstraint(sides.index(side.casefold()), _body(body), _gate(gate),
                                None if line is None else int(line))


def constraints(*, type: str | None = None, profile: str | None = None,
                authority: str | None = None, definition: str | None = None,
                cross: str | None = None, strategy: str | None = None,
                centers: Iterable[str] = (), open_centers: Iterable[str] = (),
                channels: Iterable[str] = (), gates: Iterable[int | str] = (),
                activations: Iterable[str] = ()) -> Constraints:
    """Constraints from text, each checked against the library's tables: ``type``
    ("Generator"), ``profile`` ("3/5"), ``authority`` ("Emotional"), ``definition``
    ("Split Definition" or "Split"), ``cross`` (a name, "Right Angle Cross of the Sphinx",
    optionally with its gates, or the four gates "13/7/1/2": personality sun and earth,
    design sun and earth), ``strategy`` ("To Respond"), defined ``centers`` and
    ``open_centers`` ("Sacral"), ``channels`` ("13-33"), ``gates`` (1-64) and
    ``activations`` ("personality.sun=38.3", or "design.moon=2" at gate level).

    Raises :class:`~bodygraph.errors.InvalidOptionError` naming the valid values.
    Constraints that contradict each other are allowed: no chart satisfies them.
    """
    name, four = _cross(cross) if cross is not None else (None, None)
    center_names = [_choose("center", c, CENTER_NAMES) for c in centers]
    open_names = [_choose("center", c, CENTER_NAMES) for c in open_centers]
    return Constraints(
        type=None if type is None else ChartType(_choose("type", type, [t.value for t in TYPES])),
        profile=None if profile is None else _profile(profile),
        authority=None if authority is None else Authority(
            _choose("authority", authority, [a.value for a in AUTHORITIES])),
        definition=None if definition is None else Definition(
            _choose("definition", definition, [d.value for d in DEFINITIONS],
                    short="definition")),
        cross=name, cross_gates=four,
        strategy=None if strategy is None else _choose("strategy", strategy,
                                                       dict.fromkeys(STRATEGY.values())),
        centers=frozenset(center_names), open_centers=frozenset(open_names),
        channels=frozenset(_channel(c) for c in channels),
        gates=frozenset(_gate(g) for g in gates),
        activations=tuple(_activation(a) for a in activations),
    )
