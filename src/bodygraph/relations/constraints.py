"""What a person knows of their chart, as constraints a birth-time search can test: read
from text against the library's own tables (one definition of every valid value), and
tested on many charts at once (:meth:`Constraints.mask`)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bodygraph._typing import BoolArray, IntArray
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

__all__ = ["ActivationConstraint", "Constraints", "constraints", "fits"]

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
        return fits(table, np.zeros(len(table), dtype=np.int64), [self])


# -- testing many charts, each against its own set of constraints ---------------------------

def _gate_bits(gates: Iterable[int]) -> np.uint64:
    bits = np.uint64(0)
    for gate in gates:
        bits |= np.uint64(1) << np.uint64(gate - 1)
    return bits


def _center_bits(names: Iterable[str]) -> int:
    return sum(1 << CENTER_NAMES.index(name) for name in set(names))


def fits(table: ChartTable, owner: IntArray, wanted: Sequence[Constraints]) -> BoolArray:
    """Which charts of ``table`` satisfy the constraints ``wanted[owner[i]]`` of each,
    every set tested as columns (one pass over the charts, however many sets)."""
    count = len(wanted)
    kinds = np.full(count, -1)
    allowed = np.ones((count, len(TYPES)), dtype=bool)
    authority, definition = np.full(count, -1), np.full(count, -1)
    profile, four = np.zeros((2, count), dtype=np.int64), np.zeros((4, count), dtype=np.int64)
    on, off, channels = (np.zeros(count, dtype=np.int64) for _ in range(3))
    gates = np.zeros(count, dtype=np.uint64)
    at_gate, at_line = (np.zeros((2, len(BODIES), count), dtype=np.int16) for _ in range(2))
    bits = {c.gates: i for i, c in enumerate(tables().channels)}
    for i, given in enumerate(wanted):
        if given.type is not None:
            kinds[i] = TYPES.index(given.type)
        if given.strategy is not None:
            allowed[i] = [STRATEGY[t.value] == given.strategy for t in TYPES]
        if given.authority is not None:
            authority[i] = AUTHORITIES.index(given.authority)
        if given.definition is not None:
            definition[i] = DEFINITIONS.index(given.definition)
        if given.profile is not None:
            profile[:, i] = [int(p) for p in given.profile.split("/")]
        if given.cross_gates is not None:
            four[:, i] = given.cross_gates
        on[i], off[i] = _center_bits(given.centers), _center_bits(given.open_centers)
        channels[i] = sum(1 << bits[pair] for pair in given.channels)
        gates[i] = _gate_bits(given.gates)
        for a in given.activations:
            at_gate[a.side, BODIES.index(a.body), i] = a.gate
            at_line[a.side, BODIES.index(a.body), i] = a.line or 0
    kind = table.type.astype(np.int64)
    ok = ((kinds[owner] < 0) | (kind == kinds[owner])) & allowed[owner, kind]
    ok &= (authority[owner] < 0) | (table.authority == authority[owner])
    ok &= (definition[owner] < 0) | (table.definition == definition[owner])
    for k, (side, body) in enumerate(((0, _SUN), (1, _SUN))):
        ok &= (profile[k, owner] == 0) | (table.line[side, body] == profile[k, owner])
    for k, (side, body) in enumerate(((0, _SUN), (0, _EARTH), (1, _SUN), (1, _EARTH))):
        ok &= (four[k, owner] == 0) | (table.gate[side, body] == four[k, owner])
    centers = table.centers.astype(np.int64)
    ok &= ((centers & on[owner]) == on[owner]) & ((centers & off[owner]) == 0)
    ok &= (table.channel_mask & channels[owner]) == channels[owner]
    held = np.bitwise_or.reduce(np.left_shift(np.uint64(1), (table.gate - 1).astype(np.uint64)),
                                axis=(0, 1))
    ok &= (held & gates[owner]) == gates[owner]
    need_gate, need_line = at_gate[:, :, owner], at_line[:, :, owner]
    ok &= np.all((need_gate == 0) | (table.gate == need_gate), axis=(0, 1))
    ok &= np.all((need_line == 0) | (table.line == need_line), axis=(0, 1))
    names = np.array([None if given.cross is None else given.cross.casefold()
                      for given in wanted], dtype=object)
    where = np.flatnonzero(ok & (names[owner] != None))  # noqa: E711 - elementwise
    if where.size:
        found = table[where].columns()["incarnation_cross"]
        ok[where] = [str(text).split(" (")[0].casefold() == name
                     for text, name in zip(found, names[owner[where]], strict=True)]
    out: BoolArray = ok
    return out


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
