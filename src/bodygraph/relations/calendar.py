"""The ingress calendar: every instant a body enters a new gate (or line) of the wheel,
retrograde re-entries included, in time order, exact to the millisecond on the engine.
The Sun's entry into gate 41 is the Rave New Year.

>>> from datetime import datetime, timezone
>>> start = datetime(2024, 1, 20, tzinfo=timezone.utc)
>>> end = datetime(2024, 1, 25, tzinfo=timezone.utc)
>>> [str(i) for i in calendar(start, end, bodies=["sun", "earth"])]
['2024-01-22T13:17:56.000Z sun 41.1', '2024-01-22T13:17:56.000Z earth 31.1']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import numpy as np

from bodygraph._time import aware_list, require_aware, utc64_to_tt
from bodygraph._typing import Micros
from bodygraph.calculator import Calculator, activation_longitudes
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import BODIES, Body, NodeKind, gate_line
from bodygraph.relations.common import calculator_or_default, check_span, instant_text
from bodygraph.relations.search import (
    OPPOSITES,
    SOURCES,
    US_PER_S,
    WHEEL_OFFSET,
    crossings,
    wheel_sides,
)
from bodygraph.rules.wheel import GATE, LINE, opposite, positions

Level = Literal["gate", "line"]
LEVELS: dict[str, int] = {"gate": GATE, "line": LINE}
#: Grid of the bracketing search: the true node's stations are hours apart at their closest.
STEP_US = 3600 * US_PER_S
#: Longest window searched in one pass (bounds the memory of long ranges).
CHUNK_US = 92 * 86_400 * US_PER_S
_NAMES: dict[str, Body] = {
    **{b.value.lower(): b for b in BODIES}, **{b.v1_key: b for b in BODIES},
}


@dataclass(frozen=True, slots=True)
class Ingress:
    """A body entering a gate (and the line it enters by): forward motion enters by
    line 1 of a gate, retrograde motion by line 6."""

    at: datetime
    body: Body
    gate: int
    line: int

    def to_dict(self) -> dict[str, str]:
        """The calendar's JSON object: ``at`` to the second, gate and line as numeric text."""
        return {"at": instant_text(self.at), "body": self.body.value, "gate": str(self.gate),
                "line": str(self.line)}

    def __str__(self) -> str:
        return f"{instant_text(self.at)} {self.body.value} {gate_line(self.gate, self.line)}"


def parse_bodies(names: Iterable[Body | str]) -> tuple[Body, ...]:
    """Bodies by name (v2 keys, v1 keys, any case), each once, in contract order."""
    chosen = set()
    for name in names:
        key = name.value if isinstance(name, Body) else str(name).strip()
        body = _NAMES.get(key.lower()) or _NAMES.get(key)
        if body is None:
            raise InvalidOptionError(
                f"unknown body {name!r}: use any of {', '.join(b.value for b in BODIES)}")
        chosen.add(body)
    if not chosen:
        raise InvalidOptionError("give at least one body")
    return tuple(b for b in BODIES if b in chosen)


def calendar(start: datetime, end: datetime, bodies: Iterable[Body | str] = BODIES,
             level: Level = "gate", *, node: NodeKind = "true",
             calculator: Calculator | None = None) -> list[Ingress]:
    """Every instant in ``(start, end]`` at which one of ``bodies`` enters a new gate
    (``level="gate"``) or line (``level="line"``), in time order (bodies in contract
    order at equal instants). Earth and the south node enter exactly when the sun and
    the north node do, at the opposite point. ``node`` picks the true or mean node;
    ``calculator`` another kernel (default: the one of :func:`bodygraph.calculate`)."""
    if level not in LEVELS:
        raise InvalidOptionError(f"level must be 'gate' or 'line', not {level!r}")
    chosen = parse_bodies(bodies)
    calculator = calculator_or_default(calculator)
    first = np.datetime64(require_aware(start).replace(tzinfo=None), "us")
    last = np.datetime64(require_aware(end).replace(tzinfo=None), "us")
    if last <= first:
        raise InvalidOptionError("the calendar's end must come after its start")
    check_span(calculator, first, last, "the calendar")
    wanted = {BODIES.index(b) for b in chosen}
    sources = [s for s in SOURCES if s in wanted or OPPOSITES.get(s) in wanted]
    rows = np.array(sources, dtype=np.intp)

    def sample(instants: Micros) -> np.ndarray:
        engine_rows = calculator.engine.longitudes(utc64_to_tt(instants), node)
        out: np.ndarray = activation_longitudes(engine_rows)[rows]
        return out

    edges = np.arange(first.astype(np.int64), last.astype(np.int64), CHUNK_US)
    starts = edges.astype("datetime64[us]")
    ends = np.append(edges[1:], last.astype(np.int64)).astype("datetime64[us]")
    found = crossings(sample, starts, ends, np.array(float(WHEEL_OFFSET)), LEVELS[level],
                      STEP_US)
    _, after = wheel_sides(found)
    source = rows[found.track]
    moments = found.at.astype(np.int64).tolist()
    events: list[tuple[int, int, int, int]] = []  # (instant, body index, crossing, units)
    for i, (row, units) in enumerate(zip(source.tolist(), after.tolist(), strict=True)):
        if row in wanted:
            events.append((moments[i], row, i, units))
        if OPPOSITES.get(row) in wanted:
            events.append((moments[i], OPPOSITES[row], i, int(opposite(np.array(units)))))
    events.sort()
    wheel = positions(np.array([e[3] for e in events], dtype=np.int64))
    instants = aware_list(found.at[[e[2] for e in events]])
    return [Ingress(at, BODIES[e[1]], gate, line) for at, e, gate, line in zip(
        instants, events, wheel.gate.tolist(), wheel.line.tolist(), strict=True)]
