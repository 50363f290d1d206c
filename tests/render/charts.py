"""Hand-built charts for the render tests: every activation chosen gate by gate.

Charts go through :func:`bodygraph.rules.properties.build_chart`, so type, channels and
centers are the library's own derivation of the chosen activations.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from bodygraph.catalog.tables import tables
from bodygraph.model.chart import BODIES, Activation, Chart, Side
from bodygraph.render import ConnectionInput, RenderInput, TransitInput
from bodygraph.rules.properties import build_chart
from bodygraph.rules.wheel import LINE, UNITS_PER_DEGREE, positions, to_units

BIRTH = datetime(2001, 2, 3, 4, 5, tzinfo=UTC)
DESIGN = datetime(2000, 11, 4, 5, 6, tzinfo=UTC)


def activation(index: int, gate: int, line: int) -> Activation:
    """A self-consistent activation of body ``BODIES[index]`` in ``gate.line``."""
    start = tables().gates[gate].start_deg
    longitude = (start + (line - 1) * LINE / UNITS_PER_DEGREE + 0.3) % 360.0
    pos = positions(to_units(np.array([longitude])))
    assert (int(pos.gate[0]), int(pos.line[0])) == (gate, line)
    return Activation(BODIES[index], longitude, gate, line, int(pos.color[0]),
                      int(pos.tone[0]), int(pos.base[0]))


def side(gates: Sequence[int], sun_line: int) -> Side:
    """13 activations on ``gates`` (repeated cyclically); lines vary, the sun's is given."""
    chosen = [gates[i % len(gates)] for i in range(len(BODIES))]
    lines = [sun_line] + [1 + (i * 5) % 6 for i in range(1, len(BODIES))]
    return Side(*(activation(i, g, ln) for i, (g, ln) in enumerate(zip(chosen, lines,
                                                                        strict=True))))


def chart(design: Sequence[int], personality: Sequence[int]) -> Chart:
    """A chart whose design and personality activate exactly the gates given (profile 5/1)."""
    return build_chart(BIRTH, DESIGN, "true", side(personality, 5), side(design, 1))


def half_and_half_sets() -> list[tuple[list[int], list[int]]]:
    """Design/personality gate sets in which every one of the 36 channels appears defined
    by design on its lower gate and personality on its higher gate (spread over charts)."""
    remaining = list(tables().channels)
    sets: list[tuple[list[int], list[int]]] = []
    while remaining:
        design: list[int] = []
        personality: list[int] = []
        for channel in list(remaining):
            low, high = channel.gates
            if low in personality or high in design:
                continue
            need_d = low not in design
            need_p = high not in personality
            if len(design) + need_d > 13 or len(personality) + need_p > 13:
                continue
            if need_d:
                design.append(low)
            if need_p:
                personality.append(high)
            remaining.remove(channel)
        sets.append((design, personality))
    return sets


# Charts named by what they show. Each side lists the gates its 13 bodies activate.
NAMED: dict[str, tuple[list[int], list[int]]] = {
    # Sacral defined, no motor reaches the Throat. Channel 5-15 half-and-half, 2-14 both.
    "generator": ([5, 2, 14, 61, 40], [15, 14, 62, 30, 46]),
    # 34-20 (Sacral to Throat) and 59-6 with the Solar Plexus.
    "manifesting-generator": ([34, 6, 11, 52, 28], [20, 59, 17, 53, 22]),
    # Throat to G and Head to Ajna, no motor.
    "projector": ([7, 64, 43, 1, 18], [31, 47, 23, 8, 38, 44]),
    # Ego to Throat.
    "manifestor": ([21, 36, 41, 27], [45, 35, 58, 26, 4]),
    # Nothing defined: every gate hangs alone.
    "reflector": ([1, 3, 24, 41, 50, 57, 62, 15, 46], [2, 19, 22, 42, 48, 51, 13, 11]),
}
for _i, _pair in enumerate(half_and_half_sets(), start=1):
    NAMED[f"half-and-half-{_i}"] = _pair


def named_chart(name: str) -> Chart:
    """The chart of :data:`NAMED` called ``name``."""
    design, personality = NAMED[name]
    return chart(design, personality)


def transit_input() -> TransitInput:
    """The generator chart with a transit that completes 34-57 and 20-57 (gate 57) and
    sits on natal gates (5, 14) too."""
    natal = RenderInput.from_chart(named_chart("generator"))
    gates = [57, 34, 5, 14, 20, 10, 57, 34, 5, 14, 20, 10, 57]
    return TransitInput.from_gate_lines(natal, [(g, 1 + i % 6) for i, g in enumerate(gates)])


def connection_input() -> ConnectionInput:
    """Two persons: 21-45 electromagnetic (21 only one's, 45 only the other's), and shared
    gates."""
    first = RenderInput.from_chart(chart([21, 36, 41, 27, 5], [35, 58, 26, 4, 15]))
    second = RenderInput.from_chart(chart([45, 6, 5, 2], [14, 59, 26, 4]))
    return ConnectionInput(first, second, "Anna", "Ben")
