"""What the renderer draws: 26 gate.line placements and the defined centers.

A :class:`RenderInput` holds nothing but what a bodygraph image shows, so it can
be built from a :class:`~bodygraph.model.chart.Chart` or from a render token alike.
Channels, type, authority and definition follow from the gates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from bodygraph.catalog.tables import CENTER_NAMES, Channel
from bodygraph.model.chart import BODIES, Authority, Body, ChartType, Definition, gate_line
from bodygraph.render.errors import RenderInputError
from bodygraph.rules.graph import CenterGraph, center_graph, defined_channels
from bodygraph.rules.properties import authority, chart_type, definition

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart, Side

SIDE_NAMES: tuple[str, str] = ("design", "personality")
#: The form of a chart's ``variables``: ``P`` + the arrows of the personality sun and
#: north node, space, ``D`` + those of the design sun and north node (L or R).
VARIABLES = re.compile(r"P[LR]{2} D[LR]{2}")


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one body stands, as far as the image shows it: gate and line."""

    body: Body
    gate: int
    line: int

    def __post_init__(self) -> None:
        if not 1 <= self.gate <= 64:
            raise RenderInputError(f"gate must be 1..64, not {self.gate}")
        if not 1 <= self.line <= 6:
            raise RenderInputError(f"line must be 1..6, not {self.line}")

    def __str__(self) -> str:
        return gate_line(self.gate, self.line)


def _side(placements: tuple[Placement, ...], name: str) -> tuple[Placement, ...]:
    bodies = tuple(p.body for p in placements)
    if bodies != BODIES:
        raise RenderInputError(
            f"{name} must hold the 13 bodies in contract order (sun, earth, northNode, ...)"
        )
    return placements


@dataclass(frozen=True)
class RenderInput:
    """The design and personality placements (13 each, contract order) and defined centers.

    ``centers`` must be exactly the centers the gates define (the ends of defined
    channels); a mismatch raises :class:`RenderInputError`, so an image can never
    contradict itself. ``variables`` (the chart's ``variables``, ``"PLR DRL"``) draws
    the four arrows beside the head; ``None`` draws none.
    """

    design: tuple[Placement, ...]
    personality: tuple[Placement, ...]
    centers: frozenset[str]
    variables: str | None = None

    def __post_init__(self) -> None:
        _side(self.design, "design")
        _side(self.personality, "personality")
        unknown = self.centers - set(CENTER_NAMES)
        if unknown:
            raise RenderInputError(f"unknown centers: {sorted(unknown)}")
        if self.variables is not None and (not isinstance(self.variables, str)
                                           or not VARIABLES.fullmatch(self.variables)):
            raise RenderInputError(
                f"variables must look like 'PLR DRL', not {self.variables!r}")
        if self.centers != self.graph.defined:
            raise RenderInputError(
                f"centers {sorted(self.centers)} are not the centers the gates define "
                f"{sorted(self.graph.defined)}"
            )

    @classmethod
    def from_chart(cls, chart: Chart) -> RenderInput:
        """The placements and defined centers of a calculated chart."""
        return cls(
            design=placements(chart.design),
            personality=placements(chart.personality),
            centers=frozenset(chart.centers),
            variables=chart.variables,
        )

    @classmethod
    def from_gate_lines(
        cls,
        design: tuple[tuple[int, int], ...],
        personality: tuple[tuple[int, int], ...],
        centers: frozenset[str] | None = None,
        variables: str | None = None,
    ) -> RenderInput:
        """Build from ``(gate, line)`` pairs in contract body order.

        ``centers`` defaults to the centers the gates define; ``variables`` (the arrows)
        to none.
        """
        if len(design) != len(BODIES) or len(personality) != len(BODIES):
            raise RenderInputError("each side needs 13 (gate, line) pairs")
        d = tuple(Placement(b, g, ln) for b, (g, ln) in zip(BODIES, design, strict=True))
        p = tuple(Placement(b, g, ln) for b, (g, ln) in zip(BODIES, personality, strict=True))
        if centers is None:
            gates = {x.gate for x in d + p}
            centers = center_graph(defined_channels(gates)).defined
        return cls(design=d, personality=p, centers=frozenset(centers), variables=variables)

    @cached_property
    def design_gates(self) -> frozenset[int]:
        """Gates activated by the design side."""
        return frozenset(p.gate for p in self.design)

    @cached_property
    def personality_gates(self) -> frozenset[int]:
        """Gates activated by the personality side."""
        return frozenset(p.gate for p in self.personality)

    @cached_property
    def channels(self) -> tuple[Channel, ...]:
        """Defined channels (both gates activated), sorted by short name."""
        return defined_channels(self.design_gates | self.personality_gates)

    @cached_property
    def graph(self) -> CenterGraph:
        """Defined centers and their connected groups."""
        return center_graph(self.channels)

    @property
    def type(self) -> ChartType:
        """The type the gates give."""
        return chart_type(self.graph)

    @property
    def authority(self) -> Authority:
        """The inner authority the gates give."""
        return authority(self.graph, self.type)

    @property
    def definition(self) -> Definition:
        """The definition the gates give."""
        return definition(self.graph)

    @property
    def profile(self) -> str:
        """Personality sun line / design sun line."""
        return f"{self.personality[0].line}/{self.design[0].line}"

    def activation_of(self, gate: int) -> str | None:
        """``"design"``, ``"personality"``, ``"both"`` or ``None`` for an inactive gate."""
        d = gate in self.design_gates
        p = gate in self.personality_gates
        if d and p:
            return "both"
        if d:
            return "design"
        if p:
            return "personality"
        return None


def placements(side: Side) -> tuple[Placement, ...]:
    """The 13 placements of a chart side in contract order."""
    return tuple(Placement(a.body, a.gate, a.line) for a in side)
