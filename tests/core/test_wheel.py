"""The wheel: exact integer boundaries of gates, lines, colors, tones and bases."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from bodygraph.catalog.tables import tables
from bodygraph.rules.wheel import (
    BASE,
    CIRCLE,
    GATE,
    LINE,
    UNITS_PER_DEGREE,
    opposite,
    positions,
    to_units,
)


def test_unit_sizes_match_the_tables() -> None:
    raw = tables()
    assert round(5.625 * UNITS_PER_DEGREE) == GATE
    assert round(0.9375 * UNITS_PER_DEGREE) == LINE
    assert round(18.75 * UNITS_PER_DEGREE / 3600) == BASE
    assert CIRCLE == 64 * GATE
    assert raw.gate_41_start_deg == 302.0


def test_every_gate_starts_where_the_table_says() -> None:
    gates = tables().gates
    starts = np.array([round(g.start_deg * UNITS_PER_DEGREE) for g in gates.values()])
    at_start = positions(starts)
    assert list(at_start.gate) == list(gates)
    assert set(at_start.line) == {1} and set(at_start.color) == {1}
    assert set(at_start.tone) == {1} and set(at_start.base) == {1}
    before = positions(np.mod(starts - 1, CIRCLE))
    assert set(before.line) == {6} and set(before.color) == {6}
    assert set(before.tone) == {6} and set(before.base) == {5}
    for gate, previous in zip(gates.values(), before.gate, strict=True):
        order = tables().wheel_order
        assert order[(order.index(gate.number) - 1) % 64] == previous


def test_gate_41_begins_at_302_degrees_exactly() -> None:
    p = positions(to_units([302.0, 302.0 - 1e-9, 301.999999]))
    assert list(p.gate) == [41, 60, 60]
    assert (p.line[0], p.color[0], p.tone[0], p.base[0]) == (1, 1, 1, 1)
    assert (p.line[1], p.color[1], p.tone[1], p.base[1]) == (6, 6, 6, 5)


def test_line_boundaries_are_exact_in_floating_point() -> None:
    # 302 + k * 0.9375 is exact in binary floating point: each must open a new line.
    k = np.arange(384)
    boundaries = 302.0 + k * 0.9375
    lines = positions(to_units(np.mod(boundaries, 360.0))).line
    assert list(lines) == [int(i % 6) + 1 for i in k]


@given(st.floats(min_value=0.0, max_value=360.0, exclude_max=True, allow_nan=False))
def test_opposite_points_share_line_color_tone_base(longitude: float) -> None:
    units = to_units([longitude])
    here, there = positions(units), positions(opposite(units))
    for name in ("line", "color", "tone", "base"):
        assert getattr(here, name)[0] == getattr(there, name)[0]
    assert tables().gates[int(here.gate[0])].number != int(there.gate[0])


@given(st.floats(min_value=-720.0, max_value=720.0, allow_nan=False))
def test_values_are_in_their_ranges(longitude: float) -> None:
    p = positions(to_units([longitude]))
    assert 1 <= p.gate[0] <= 64 and 1 <= p.line[0] <= 6 and 1 <= p.color[0] <= 6
    assert 1 <= p.tone[0] <= 6 and 1 <= p.base[0] <= 5
