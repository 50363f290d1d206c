"""The compiled loops of the fast engine over N instants (see
:mod:`bodygraph.ephemeris.fast.engine` for the interface): positions at given instants,
and both epochs of N charts.

Each loop calls :mod:`bodygraph.ephemeris.fast.apparent` for one instant at a time, so a
chart is the same bit for bit whatever else is computed with it. A per-instant ``status``
reports instants outside the kernel (``OUTSIDE``) or a design instant that did not
converge (``NO_DESIGN``); the caller raises.
"""

from __future__ import annotations

import numpy as np

from bodygraph._typing import FloatArray, IntArray, StatusArray
from bodygraph.ephemeris.fast.apparent import FRAME_SIZE, OK, OUTSIDE, covered, epoch, frames
from bodygraph.ephemeris.fast.design_instant import design_offset
from bodygraph.ephemeris.fast.jit import kernel


@kernel
def positions(coefficients: FloatArray, segments: FloatArray, chains: IntArray,
              table: FloatArray, span: FloatArray, needed: IntArray, whole: FloatArray,
              fraction: FloatArray, bodies: int, node: int, longitudes: FloatArray,
              vectors: FloatArray, status: StatusArray) -> None:
    """Apparent longitudes (11, N) of the first ``bodies`` bodies and the node at N TT
    instants; the vectors (3, 10, N) if ``vectors`` has columns."""
    work = np.zeros((segments.shape[0] + 6, 6))
    frame = np.empty(FRAME_SIZE)
    for i in range(whole.shape[0]):
        frames(whole[i], fraction[i], table, frame)
        if not covered(span, whole[i], fraction[i] + frame[0]):
            status[i] = OUTSIDE
            continue
        status[i] = OK
        epoch(coefficients, segments, chains, needed, whole[i], fraction[i], frame, bodies,
               node, work, longitudes, vectors, i)


@kernel
def epochs(coefficients: FloatArray, segments: FloatArray, chains: IntArray,
           table: FloatArray, span: FloatArray, every: IntArray, sun: IntArray,
           whole: FloatArray, fraction: FloatArray, node: int, birth: FloatArray,
           design_fraction: FloatArray, design: FloatArray, status: StatusArray) -> None:
    """Both epochs of N charts: the longitudes (11, N) at birth, the design instants
    (TT fractions of day on the births' ``whole``) and the longitudes there. The frames
    at design are the parabola through their values at the samples (the nutation's
    fastest terms leave under 1e-7 arcsecond of error over 0.05 day). ``every`` and
    ``sun``: the segments needed for every body and for the Sun alone."""
    work = np.zeros((segments.shape[0] + 6, 6))
    frame = np.empty(FRAME_SIZE)
    samples = np.empty((3, FRAME_SIZE))
    weights = np.empty(3)
    none = np.empty((3, 10, 0))
    for i in range(whole.shape[0]):
        w, f = whole[i], fraction[i]
        frames(w, f, table, frame)
        if not covered(span, w, f + frame[0]):
            status[i] = OUTSIDE
            continue
        epoch(coefficients, segments, chains, every, w, f, frame, 10, node, work, birth,
              none, i)
        offset, status[i] = design_offset(coefficients, segments, chains, table, span, sun,
                                          w, f, birth[0, i], samples, work, weights)
        if status[i] != OK:
            continue
        at = f + offset
        for j in range(FRAME_SIZE):
            frame[j] = (weights[0] * samples[0, j] + weights[1] * samples[1, j]
                        + weights[2] * samples[2, j])
        epoch(coefficients, segments, chains, every, w, at, frame, 10, node, work, design,
              none, i)
        design_fraction[i] = at
