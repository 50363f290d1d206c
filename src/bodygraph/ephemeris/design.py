"""The design instant: when the apparent Sun stood 88 degrees (of solar arc) behind its
birth longitude. Solved for all charts at once by secant steps on the Sun's longitude."""

from __future__ import annotations

import numpy as np

from bodygraph._time import TT
from bodygraph._typing import FloatArray
from bodygraph.ephemeris.engine import PositionEngine

SOLAR_ARC_DEG = 88.0
MEAN_SOLAR_RATE = 360.0 / 365.242189  # degrees per day
TOLERANCE_DAYS = 1e-8  # about 0.9 ms; the requirement is 0.01 s
MAX_STEPS = 20


def _wrap(degrees: FloatArray) -> FloatArray:
    """Angles folded into [-180, 180)."""
    return np.mod(degrees + 180.0, 360.0) - 180.0


def solve_design(engine: PositionEngine, birth: TT, birth_sun: FloatArray) -> TT:
    """Design instants (TT) of births with the given apparent Sun longitudes."""
    target = np.mod(birth_sun - SOLAR_ARC_DEG, 360.0)
    previous_offset = np.full(birth_sun.shape, -SOLAR_ARC_DEG / MEAN_SOLAR_RATE)
    previous_error = _wrap(engine.sun_longitude(birth.shifted(previous_offset)) - target)
    offset = previous_offset - previous_error / MEAN_SOLAR_RATE
    # Each chart stops on its own criterion, so that a chart's design instant never
    # depends on the other charts computed with it (determinism across batches).
    active = np.ones(birth_sun.shape, dtype=bool)
    for _ in range(MAX_STEPS):
        error = _wrap(engine.sun_longitude(birth.shifted(offset)) - target)
        slope = (error - previous_error) / (offset - previous_offset)
        usable = np.isfinite(slope) & (slope > 0.5 * MEAN_SOLAR_RATE)
        step = -error / np.where(usable, slope, MEAN_SOLAR_RATE)
        step = np.where(active, step, 0.0)
        previous_offset = np.where(active, offset, previous_offset)
        previous_error = np.where(active, error, previous_error)
        offset = offset + step
        active &= np.abs(step) >= TOLERANCE_DAYS
        if not active.any():
            break
    return birth.shifted(offset)
