"""What the renderer draws over or beside a natal chart: a transit, or a second person.

Both take plain placements (a :class:`~bodygraph.render.model.RenderInput` per person, 13
transit :class:`~bodygraph.render.model.Placement` s), never the result types of
:mod:`bodygraph.relations`, so any source of activations can be drawn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bodygraph.model.chart import BODIES, Body
from bodygraph.render.errors import RenderInputError
from bodygraph.render.model import Placement, RenderInput

_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9 .,'-]{0,23}")


def check_label(label: str, what: str) -> str:
    """A name drawn in the image: 1-24 ASCII letters, digits, spaces and ``.,'-``
    (characters every font has)."""
    if not isinstance(label, str) or not _LABEL.fullmatch(label):
        raise RenderInputError(
            f"{what} must be 1 to 24 ASCII letters, digits, spaces or .,'- "
            f"starting with a letter or digit, not {label!r}")
    return label


def transit_placements(pairs: Iterable[tuple[int, int]]) -> tuple[Placement, ...]:
    """13 transit placements from ``(gate, line)`` pairs in contract body order."""
    items = tuple(pairs)
    if len(items) != len(BODIES):
        raise RenderInputError("a transit needs 13 (gate, line) pairs, sun to pluto")
    return tuple(Placement(b, g, ln) for b, (g, ln) in zip(BODIES, items, strict=True))


@dataclass(frozen=True)
class TransitInput:
    """A natal chart with the planets of a moment over it (their own colour and column)."""

    natal: RenderInput
    transit: tuple[Placement, ...]
    label: str = "Transit"

    def __post_init__(self) -> None:
        if tuple(p.body for p in self.transit) != BODIES:
            raise RenderInputError("transit must hold the 13 bodies in contract order")
        check_label(self.label, "the transit label")

    @classmethod
    def from_gate_lines(cls, natal: RenderInput, transit: Iterable[tuple[int, int]],
                        label: str = "Transit") -> TransitInput:
        """Build from the natal input and ``(gate, line)`` pairs of the 13 transit bodies."""
        return cls(natal, transit_placements(transit), label)

    def placement(self, body: Body) -> Placement:
        """The transit placement of one body."""
        return self.transit[BODIES.index(body)]


@dataclass(frozen=True)
class ConnectionInput:
    """Two persons' charts drawn in one bodygraph, each person in their own colour."""

    first: RenderInput
    second: RenderInput
    first_label: str = "Person A"
    second_label: str = "Person B"

    def __post_init__(self) -> None:
        check_label(self.first_label, "the first person's label")
        check_label(self.second_label, "the second person's label")
