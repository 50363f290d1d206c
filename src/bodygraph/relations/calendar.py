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

import numpy as np

from bodygraph._time import aware_list, require_aware
from bodygraph.calculator import Calculator
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import BODIES, Body, NodeKind, gate_line
from bodygraph.relations.calendar_blocks import (
    LEVELS,
    BlockSource,
    IngressColumns,
    Level,
    compute_blocks,
    months_between,
)
from bodygraph.relations.common import calculator_or_default, check_span, instant_text
from bodygraph.relations.labels import ingress_labels

__all__ = ["LEVELS", "Ingress", "Level", "calendar", "calendar_columns", "ingress_list",
           "parse_bodies"]

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

    def labels(self, lang: str) -> dict[str, str]:
        """``{"body": name}``: the body's name in ``lang``."""
        return ingress_labels(self.body, lang)

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
    ``calculator`` another kernel (default: the one of :func:`bodygraph.calculate`).
    The search runs month by month (:mod:`bodygraph.relations.calendar_blocks`)."""
    return ingress_list(calendar_columns(start, end, bodies, level, node=node,
                                         calculator=calculator))


def ingress_list(found: IngressColumns) -> list[Ingress]:
    """The ingresses of :func:`calendar_columns`' columns, as :func:`calendar` gives them."""
    instants = aware_list(found.at.astype("datetime64[us]"))
    return [Ingress(at, BODIES[body], gate, line) for at, body, gate, line in zip(
        instants, found.body.tolist(), found.gate.tolist(), found.line.tolist(),
        strict=True)]


def calendar_columns(start: datetime, end: datetime, bodies: Iterable[Body | str] = BODIES,
                     level: Level = "gate", *, node: NodeKind = "true",
                     calculator: Calculator | None = None,
                     blocks: BlockSource | None = None) -> IngressColumns:
    """:func:`calendar` as columns. ``blocks`` gives the months' ingresses of every body
    (as :func:`~bodygraph.relations.calendar_blocks.compute_blocks` computes them for
    ``level``, ``node`` and ``calculator``), say from a cache; by default they are
    computed, for ``bodies`` only. Either way the answer is the same."""
    if level not in LEVELS:
        raise InvalidOptionError(f"level must be 'gate' or 'line', not {level!r}")
    chosen = parse_bodies(bodies)
    calculator = calculator_or_default(calculator)
    first = np.datetime64(require_aware(start).replace(tzinfo=None), "us")
    last = np.datetime64(require_aware(end).replace(tzinfo=None), "us")
    if last <= first:
        raise InvalidOptionError("the calendar's end must come after its start")
    check_span(calculator, first, last, "the calendar")
    wanted = [BODIES.index(b) for b in chosen]
    months = months_between(int(first.astype(np.int64)), int(last.astype(np.int64)))
    found = (blocks(months) if blocks is not None
             else compute_blocks(months, wanted, level, node, calculator))
    return IngressColumns.join(found).select(int(first.astype(np.int64)),
                                             int(last.astype(np.int64)), wanted)
