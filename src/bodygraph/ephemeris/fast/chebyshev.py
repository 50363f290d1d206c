"""JPL SPK type 2 (Chebyshev position) segments, mapped from the kernel file and evaluated by
the kernels of the fast engine.

:func:`load_segments` maps the segments of a kernel (through jplephem, without reading
them: the operating system reads the records that are used) and :func:`segment_table`
describes them in the array that the kernels take: ``segments`` (segment,
``FIRST``/``INTERVAL``/``RECORDS``/``OFFSET``/``COUNT``). The coefficients reach the kernels
as ``coefficients[row]``, the (component, coefficient) array of one record: either every
record stacked in one array (:func:`pack_coefficients`, for the compiled kernels), or
:class:`MappedRecords`, which reads a record from the file when it is asked for (for the
plain-Python kernels, which compute a few charts). Both hold the same numbers.
:func:`segment_state` evaluates one segment at one instant: the Chebyshev series and its
derivative by their three-term recurrences, for the position (km) and the velocity
(km/day).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
from jplephem.spk import SPK

from bodygraph._typing import FloatArray
from bodygraph.ephemeris.fast.jit import kernel
from bodygraph.errors import EphemerisError


@dataclass(frozen=True, slots=True)
class ChebyshevSegment:
    """One SPK type 2 segment: ``center -> target`` Chebyshev coefficients."""

    center: int
    target: int
    first_jd: float  # TDB Julian date where the first record starts
    interval: float  # days per record
    table: FloatArray  # (n_records, 3, n_coefficients), km: a view of the mapped file

    @property
    def records(self) -> int:
        """Number of records."""
        return int(self.table.shape[0])

    def is_zero(self) -> bool:
        """Whether every coefficient is zero (Mercury and Venus inside their
        barycenters); a non-zero first record settles it without reading the rest."""
        return not np.any(self.table[0]) and not np.any(self.table)


def load_segments(path: Path, pairs: tuple[tuple[int, int], ...]) -> dict[
    tuple[int, int], ChebyshevSegment
]:
    """Map the type 2 segments ``pairs`` of a kernel (one per pair)."""
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
            first, interval, coefficients = segment.load_array()  # (3, records, K) view
            table = np.asarray(coefficients).transpose(1, 0, 2)
            if table.dtype != np.float64:  # a kernel of the other byte order
                table = table.astype(np.float64)
            parts.setdefault(key, []).append(
                ChebyshevSegment(key[0], key[1], float(first), float(interval), table)
            )
    finally:
        spk.close()  # the views keep the file's memory map
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
        if (after.interval != head.interval or after.table.shape[1:] != head.table.shape[1:]
                or abs(after.first_jd - end) > 1e-9):
            raise EphemerisError(
                f"segments {head.center}->{head.target} of {path} do not join end to end; "
                "use engine='skyfield' for this kernel"
            )
    if len(pieces) == 1:
        return head
    table = np.concatenate([p.table for p in pieces], axis=0)
    return ChebyshevSegment(head.center, head.target, head.first_jd, head.interval, table)


#: Columns of the ``segments`` array of :func:`segment_table`.
FIRST, INTERVAL, RECORDS, OFFSET, COUNT = range(5)


def segment_table(segments: list[ChebyshevSegment]) -> FloatArray:
    """``segments`` (S, 5): first Julian date (TDB), days per record, number of records,
    the row of the segment's first record among all the segments' records one after the
    other, and its number of coefficients."""
    table = np.zeros((len(segments), 5))
    table[:, FIRST] = [s.first_jd for s in segments]
    table[:, INTERVAL] = [s.interval for s in segments]
    table[:, RECORDS] = [s.records for s in segments]
    table[1:, OFFSET] = np.cumsum([s.records for s in segments[:-1]])
    table[:, COUNT] = [s.table.shape[2] for s in segments]
    table.flags.writeable = False
    return table


def pack_coefficients(segments: list[ChebyshevSegment]) -> FloatArray:
    """Every record of the segments in one array (R, 3, K), in the rows of
    :func:`segment_table`, padded with zero coefficients to the largest K (the padding is
    never read). Reads the whole of the segments."""
    k = max(s.table.shape[2] for s in segments)
    out = np.zeros((sum(s.records for s in segments), 3, k))
    row = 0
    for s in segments:
        out[row:row + s.records, :, :s.table.shape[2]] = s.table
        row += s.records
    out.flags.writeable = False
    return out


class MappedRecords:
    """``coefficients[row]`` read from the mapped segments on demand, as lists of Python
    floats: the same numbers as :func:`pack_coefficients` without reading the file."""

    def __init__(self, segments: list[ChebyshevSegment]) -> None:
        self._tables = [s.table for s in segments]
        self._starts = [int(start) for start in segment_table(segments)[:, OFFSET]]

    def __getitem__(self, row: int) -> list[list[float]]:
        # Python floats: the plain kernels compute faster on them than on numpy scalars.
        index = bisect_right(self._starts, row) - 1
        out: list[list[float]] = self._tables[index][row - self._starts[index]].tolist()
        return out


@kernel
def segment_state(coefficients: FloatArray, segments: FloatArray, s: int, whole: float,
                  fraction: float, out: FloatArray, rates: bool) -> None:
    """Position (km) and, if ``rates``, velocity (km/day) of segment ``s`` at TDB
    ``whole + fraction`` into ``out`` ((3,) or (6,)). Instants outside the segment use its
    first or last record."""
    first, interval = segments[s, FIRST], segments[s, INTERVAL]
    days = (whole - first) + fraction
    record = min(max(np.floor(days / interval), 0.0), segments[s, RECORDS] - 1.0)
    # float(): a no-op compiled; in plain Python the series then runs on Python floats,
    # several times faster than on numpy scalars, with the same IEEE 754 operations.
    x = float((days - record * interval) * (2.0 / interval) - 1.0)
    c = coefficients[int(record) + int(segments[s, OFFSET])]
    cx, cy, cz = c[0], c[1], c[2]
    count = int(segments[s, COUNT])
    # T_0 = 1, T_1 = x, T_n = 2x T_(n-1) - T_(n-2); and their derivatives in x. Each
    # component is summed in its own variable, in the order of n.
    px, py, pz = cx[0] + cx[1] * x, cy[0] + cy[1] * x, cz[0] + cz[1] * x
    t0, t1 = 1.0, x
    if not rates:
        for n in range(2, count):
            t0, t1 = t1, 2.0 * x * t1 - t0
            px += cx[n] * t1
            py += cy[n] * t1
            pz += cz[n] * t1
        out[0], out[1], out[2] = px, py, pz
        return
    vx, vy, vz = cx[1], cy[1], cz[1]
    d0, d1 = 0.0, 1.0
    for n in range(2, count):
        t0, t1, d0, d1 = t1, 2.0 * x * t1 - t0, d1, 2.0 * t1 + 2.0 * x * d1 - d0
        px += cx[n] * t1
        py += cy[n] * t1
        pz += cz[n] * t1
        vx += cx[n] * d1
        vy += cy[n] * d1
        vz += cz[n] * d1
    scale = 2.0 / interval
    out[0], out[1], out[2] = px, py, pz
    out[3], out[4], out[5] = vx * scale, vy * scale, vz * scale
