"""Longitude -> gate, line, color, tone, base, on exact integer sub-units.

A longitude is turned once into an integer count of 1/16 arcsecond (a base is
exactly 300 units, a tone 1,500, a color 9,000, a line 54,000, a gate
324,000), and every boundary is then an integer comparison: no float drift
can move a value across a boundary. Arrays in, arrays out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bodygraph._typing import IntArray
from bodygraph.catalog.tables import tables

UNITS_PER_ARCSEC = 16
UNITS_PER_DEGREE = 3600 * UNITS_PER_ARCSEC
CIRCLE = 360 * UNITS_PER_DEGREE
HALF_CIRCLE = CIRCLE // 2
BASE = 300  # 18.75 arcsec
TONE = 5 * BASE  # 93.75 arcsec
COLOR = 6 * TONE  # 562.5 arcsec
LINE = 6 * COLOR  # 0.9375 deg
GATE = 6 * LINE  # 5.625 deg


def to_units(longitude_deg: npt.ArrayLike) -> IntArray:
    """Longitudes in degrees -> integer 1/16-arcsecond units in ``[0, CIRCLE)``."""
    scaled = np.floor(np.asarray(longitude_deg, dtype=np.float64) * UNITS_PER_DEGREE)
    return np.mod(scaled.astype(np.int64), CIRCLE)


@dataclass(frozen=True, slots=True)
class WheelPositions:
    """Gate, line, color, tone and base of each longitude (same shape as the input)."""

    gate: IntArray
    line: IntArray
    color: IntArray
    tone: IntArray
    base: IntArray


def _gate_lookup() -> IntArray:
    return np.array(tables().wheel_order, dtype=np.int64)


_GATE_41_START = round(tables().gate_41_start_deg * UNITS_PER_DEGREE)
_GATES_BY_INDEX = _gate_lookup()


def positions(units: IntArray) -> WheelPositions:
    """Map integer units (see :func:`to_units`) onto the wheel."""
    offset = np.mod(units - _GATE_41_START, CIRCLE)
    within_gate = offset % GATE
    within_line = within_gate % LINE
    within_color = within_line % COLOR
    within_tone = within_color % TONE
    return WheelPositions(
        gate=_GATES_BY_INDEX[offset // GATE],
        line=within_gate // LINE + 1,
        color=within_line // COLOR + 1,
        tone=within_color // TONE + 1,
        base=within_tone // BASE + 1,
    )


def opposite(units: IntArray) -> IntArray:
    """The exactly opposite point (earth from sun, south node from north node)."""
    return np.mod(units + HALF_CIRCLE, CIRCLE)
