"""JPL SPK type 2 (Chebyshev position) segments, read once and evaluated by compiled code.

:func:`load_segments` reads the segments of a kernel into memory (through jplephem) and
:func:`pack_segments` stacks them into two arrays that the compiled kernels take:
``coefficients`` (record, component, coefficient), zero-padded to one coefficient count,
and ``segments`` (segment, ``FIRST``/``INTERVAL``/``RECORDS``/``OFFSET``/``COUNT``).
:func:`segment_state` evaluates one segment at one instant: the Chebyshev series and its
derivative by their three-term recurrences, for the position (km) and the velocity
(km/day).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
from jplephem.spk import SPK

from bodygraph._typing import FloatArray
from bodygraph.ephemeris.fast.jit import jit
from bodygraph.errors import EphemerisError


@dataclass(frozen=True, slots=True)
class ChebyshevSegment:
    """One SPK type 2 segment: ``center -> target`` Chebyshev coefficients."""

    center: int
    target: int
    first_jd: float  # TDB Julian date where the first record starts
    interval: float  # days per record
    table: FloatArray  # (n_coefficients, 3, n_records), km

    @property
    def records(self) -> int:
        """Number of records."""
        return int(self.table.shape[2])


def load_segments(path: Path, pairs: tuple[tuple[int, int], ...]) -> dict[
    tuple[int, int], ChebyshevSegment
]:
    """Read the type 2 segments ``pairs`` of a kernel into memory (one per pair)."""
    try:
        spk = SPK.open(str(path))
    except (OSError, ValueError) as exc:
        raise EphemerisError(f"cannot open ephemeris kernel {path}: {exc}") from exc
    try:
        parts: dict[tuple[int, int], list[ChebyshevSegment]] = {}
        for segment in spk.segments:
            key = (segment.center, segment.target)
            if key not in pairs:
                continue
            if segment.data_type != 2:
                raise EphemerisError(
                    f"segment {key[0]}->{key[1]} of {path} is SPK type {segment.data_type}; "
                    "the fast engine reads type 2 (use engine='skyfield' for this kernel)"
                )
            first, interval, coefficients = segment.load_array()
            table = np.ascontiguousarray(
                np.asarray(coefficients, dtype=np.float64).transpose(2, 0, 1)
            )
            parts.setdefault(key, []).append(
                ChebyshevSegment(key[0], key[1], float(first), float(interval), table)
            )
    finally:
        spk.close()
    found = {key: _join(path, sorted(p, key=lambda s: s.first_jd)) for key, p in parts.items()}
    missing = [pair for pair in pairs if pair not in found]
    if missing:
        names = ", ".join(f"{c}->{t}" for c, t in missing)
        raise EphemerisError(f"ephemeris kernel {path} lacks segments: {names}")
    return found


def _join(path: Path, pieces: list[ChebyshevSegment]) -> ChebyshevSegment:
    """One segment from consecutive segments of the same pair (as in full DE kernels)."""
    head = pieces[0]
    for before, after in pairwise(pieces):
        end = before.first_jd + before.records * before.interval
        if (after.interval != head.interval or after.table.shape[:2] != head.table.shape[:2]
                or abs(after.first_jd - end) > 1e-9):
            raise EphemerisError(
                f"segments {head.center}->{head.target} of {path} do not join end to end; "
                "use engine='skyfield' for this kernel"
            )
    if len(pieces) == 1:
        return head
    table = np.concatenate([p.table for p in pieces], axis=2)
    return ChebyshevSegment(head.center, head.target, head.first_jd, head.interval, table)


#: Columns of the ``segments`` array of :func:`pack_segments`.
FIRST, INTERVAL, RECORDS, OFFSET, COUNT = range(5)


def pack_segments(segments: list[ChebyshevSegment]) -> tuple[FloatArray, FloatArray]:
    """Stack segments for the compiled kernels: ``coefficients`` (R, 3, K), every
    segment's records one after the other, padded with zero coefficients to the largest
    K; and ``segments`` (S, 5): first Julian date (TDB), days per record, number of
    records, the index of the segment's first record in ``coefficients`` and its own
    number of coefficients (the padding is never read)."""
    k = max(s.table.shape[0] for s in segments)
    padded = [np.pad(s.table, ((0, k - s.table.shape[0]), (0, 0), (0, 0))) for s in segments]
    coefficients = np.ascontiguousarray(np.concatenate(padded, axis=2).transpose(2, 1, 0))
    table = np.zeros((len(segments), 5))
    table[:, FIRST] = [s.first_jd for s in segments]
    table[:, INTERVAL] = [s.interval for s in segments]
    table[:, RECORDS] = [s.records for s in segments]
    table[1:, OFFSET] = np.cumsum([s.records for s in segments[:-1]])
    table[:, COUNT] = [s.table.shape[0] for s in segments]
    for array in (coefficients, table):
        array.flags.writeable = False
    return coefficients, table


@jit
def segment_state(coefficients: FloatArray, segments: FloatArray, s: int, whole: float,
                  fraction: float, out: FloatArray, rates: bool) -> None:
    """Position (km) and, if ``rates``, velocity (km/day) of segment ``s`` at TDB
    ``whole + fraction`` into ``out`` ((3,) or (6,)). Instants outside the segment use its
    first or last record."""
    first, interval = segments[s, FIRST], segments[s, INTERVAL]
    days = (whole - first) + fraction
    record = min(max(np.floor(days / interval), 0.0), segments[s, RECORDS] - 1.0)
    x = (days - record * interval) * (2.0 / interval) - 1.0
    c = coefficients[int(record) + int(segments[s, OFFSET])]
    count = int(segments[s, COUNT])
    # T_0 = 1, T_1 = x, T_n = 2x T_(n-1) - T_(n-2); and their derivatives in x.
    for j in range(3):
        out[j] = c[j, 0] + c[j, 1] * x
    t0, t1 = 1.0, x
    if not rates:
        for n in range(2, count):
            t0, t1 = t1, 2.0 * x * t1 - t0
            for j in range(3):
                out[j] += c[j, n] * t1
        return
    for j in range(3):
        out[3 + j] = c[j, 1]
    d0, d1 = 0.0, 1.0
    for n in range(2, count):
        t0, t1, d0, d1 = t1, 2.0 * x * t1 - t0, d1, 2.0 * t1 + 2.0 * x * d1 - d0
        for j in range(3):
            out[j] += c[j, n] * t1
            out[3 + j] += c[j, n] * d1
    scale = 2.0 / interval
    for j in range(3):
        out[3 + j] *= scale
