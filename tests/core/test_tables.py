"""The domain tables are internally consistent."""

from __future__ import annotations

import numpy as np

from bodygraph.catalog.tables import CENTER_NAMES, CIRCUITRY_ORDER, raw_tables, tables
from bodygraph.rules.wheel import UNITS_PER_DEGREE, positions


def test_counts() -> None:
    t = tables()
    assert len(t.gates) == 64 and sorted(t.gates) == list(range(1, 65))
    assert sorted(t.wheel_order) == list(range(1, 65))
    assert set(t.centers) == set(CENTER_NAMES)
    assert len(t.channels) == 36
    assert len(t.crosses) == 192
    assert len(t.profile_angles) == 12


def test_every_gate_in_exactly_one_center() -> None:
    t = tables()
    seen = [g for c in t.centers.values() for g in c.gates]
    assert sorted(seen) == list(range(1, 65))
    for center in t.centers.values():
        assert all(t.gates[g].center == center.name for g in center.gates)


def test_channels_join_two_centers_and_name_their_circuitry() -> None:
    for channel in tables().channels:
        low, high = channel.gates
        assert low < high
        assert channel.centers[0] != channel.centers[1]
        assert channel.circuitry in CIRCUITRY_ORDER


def test_gate_start_degrees_follow_the_wheel_order() -> None:
    t = tables()
    for index, gate in enumerate(t.wheel_order):
        expected = (t.gate_41_start_deg + 5.625 * index) % 360
        assert t.gates[gate].start_deg == expected
        assert positions(np.array([round(expected * UNITS_PER_DEGREE)])).gate[0] == gate


def test_each_angle_has_a_cross_for_every_personality_sun() -> None:
    t = tables()
    for angle in ("Right Angle", "Juxtaposition", "Left Angle"):
        assert {sun for (a, sun) in t.crosses if a == angle} == set(range(1, 65))


def test_crosses_use_opposite_gates() -> None:
    t = tables()
    opposite = {g["gate"]: g["opposite_gate"] for g in raw_tables()["gates"]}
    for cross in t.crosses.values():
        assert opposite[cross.personality_sun] == cross.personality_earth
        assert opposite[cross.design_sun] == cross.design_earth
