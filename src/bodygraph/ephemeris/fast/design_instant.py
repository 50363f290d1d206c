"""The design instant, compiled: when the apparent Sun stood ``SOLAR_ARC_DEG`` behind its
birth longitude, from the Sun at three instants around a low-precision guess (no
iteration). A per-instant status reports an instant outside the kernel (``OUTSIDE``) or a
design instant that did not converge (``NO_DESIGN``); the caller raises.
"""

from __future__ import annotations

import math

import numpy as np

from bodygraph._typing import FloatArray, IntArray, StatusArray
from bodygraph.ephemeris.design import SOLAR_ARC_DEG
from bodygraph.ephemeris.fast.apparent import (
    FRAME_SIZE,
    NO_DESIGN,
    NO_NODE,
    OK,
    OUTSIDE,
    covered,
    epoch,
    frames,
)
from bodygraph.ephemeris.fast.frames import J2000
from bodygraph.ephemeris.fast.jit import kernel

#: The design instant is interpolated from the Sun at these offsets (days) from the
#: low-precision guess, which is within 0.022 day of it over 1800-2200; the parabola
#: through them is then good to about 5e-11 day (5 microseconds; the Sun's third
#: derivative is mostly the Earth's monthly wobble about the Earth-Moon barycenter).
DESIGN_SAMPLES = np.array([-0.025, 0.0, 0.025])
SAMPLE_SPACING = 0.025
#: ``c = PARABOLA @ e``: the coefficients of the parabola through values ``e`` at the
#: samples, in units of the spacing (u = -1, 0, 1).
PARABOLA = np.ascontiguousarray(np.linalg.inv(
    np.vander(DESIGN_SAMPLES / SAMPLE_SPACING, 3, increasing=True)))
SAMPLE_NODES = DESIGN_SAMPLES / SAMPLE_SPACING
#: Denominators of the Lagrange weights at SAMPLE_NODES.
LAGRANGE = 1.0 / np.array([
    np.prod([a - b for b in SAMPLE_NODES if b != a]) for a in SAMPLE_NODES])


@kernel
def _low_precision_sun(days: float) -> tuple[float, float]:
    """The Sun's apparent longitude by the Astronomical Almanac's low-precision formula
    (about 0.01 degree) and its rate, degrees and degrees per day, ``days`` from J2000."""
    anomaly = math.radians(357.528 + 0.9856003 * days)
    sine, cosine = math.sin(anomaly), math.cos(anomaly)
    longitude = 280.460 + 0.9856474 * days + (1.915 + 0.040 * cosine) * sine
    rate = 0.9856474 + math.radians(0.9856003) * (
        1.915 * cosine + 0.040 * (2.0 * cosine * cosine - 1.0))
    return longitude, rate


@kernel
def design_guess(whole: float, fraction: float) -> float:
    """Offset (days, negative) to the design instant by the low-precision solar theory:
    where its longitude is ``SOLAR_ARC_DEG`` behind its own birth value (one Newton step
    from the mean motion; within 0.022 day of the true design instant over 1800-2200,
    inside the span of ``DESIGN_SAMPLES``)."""
    birth_days = (whole - J2000) + fraction
    birth_longitude, _ = _low_precision_sun(birth_days)
    offset = -SOLAR_ARC_DEG / 0.9856474
    longitude, rate = _low_precision_sun(birth_days + offset)
    return offset - (longitude - birth_longitude + SOLAR_ARC_DEG) / rate


@kernel
def design_offset(coefficients: FloatArray, segments: FloatArray, chains: IntArray,
                  table: FloatArray, span: FloatArray, needed: IntArray, whole: float,
                  fraction: float, birth_sun: float, samples: FloatArray, work: FloatArray,
                  weights: FloatArray) -> tuple[float, int]:
    """The offset (days) from birth to the design instant, when the apparent Sun stood
    ``SOLAR_ARC_DEG`` behind ``birth_sun``: the Sun at the three ``DESIGN_SAMPLES``
    around the low-precision guess, and the root of the parabola through them (one
    Newton step from the linear root: the curvature term is 1e-5 of the slope). Leaves
    the frames of the samples in ``samples`` (3, FRAME_SIZE) and the Lagrange weights of
    the design instant in ``weights``; returns the offset and a status."""
    guess = design_guess(whole, fraction)
    target = (birth_sun - SOLAR_ARC_DEG) % 360.0
    sun = np.empty((11, 1))
    none = np.empty((3, 10, 0))
    e0 = e1 = e2 = 0.0
    for k in range(3):
        at = fraction + (guess + DESIGN_SAMPLES[k])
        frames(whole, at, table, samples[k])
        if not covered(span, whole, at + samples[k, 0]):
            return 0.0, OUTSIDE
        epoch(coefficients, segments, chains, needed, whole, at, samples[k], 1, NO_NODE,
              work, sun, none, 0)
        error = (sun[0, 0] - target + 180.0) % 360.0 - 180.0
        if k == 0:
            e0 = error
        elif k == 1:
            e1 = error
        else:
            e2 = error
    c0 = (PARABOLA[0, 0] * e0 + PARABOLA[0, 1] * e1) + PARABOLA[0, 2] * e2
    c1 = (PARABOLA[1, 0] * e0 + PARABOLA[1, 1] * e1) + PARABOLA[1, 2] * e2
    c2 = (PARABOLA[2, 0] * e0 + PARABOLA[2, 1] * e1) + PARABOLA[2, 2] * e2
    u = -c0 / c1
    u = u - ((c2 * u + c1) * u + c0) / (2.0 * c2 * u + c1)
    if not abs(u) < 3.0:
        return 0.0, NO_DESIGN
    d0, d1, d2 = u - SAMPLE_NODES[0], u - SAMPLE_NODES[1], u - SAMPLE_NODES[2]
    weights[0] = d1 * d2 * LAGRANGE[0]
    weights[1] = d0 * d2 * LAGRANGE[1]
    weights[2] = d0 * d1 * LAGRANGE[2]
    return (guess + DESIGN_SAMPLES[1]) + u * SAMPLE_SPACING, OK


@kernel
def design_offsets(coefficients: FloatArray, segments: FloatArray, chains: IntArray,
                   table: FloatArray, span: FloatArray, needed: IntArray,
                   whole: FloatArray, fraction: FloatArray, birth_sun: FloatArray,
                   offsets: FloatArray, status: StatusArray) -> None:
    """:func:`design_offset` for N births: offsets (days) from birth to design into
    ``offsets``."""
    work = np.zeros((segments.shape[0] + 6, 6))
    samples = np.empty((3, FRAME_SIZE))
    weights = np.empty(3)
    for i in range(whole.shape[0]):
        offsets[i], status[i] = design_offset(
            coefficients, segments, chains, table, span, needed, whole[i], fraction[i],
            birth_sun[i], samples, work, weights)


