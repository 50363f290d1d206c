"""Vectorized evaluation of JPL SPK type 2 (Chebyshev position) segments.

A :class:`ChebyshevSegment` holds one segment's coefficients, laid out once as
(coefficient, component, record) so that gathering the records of N instants
is a single ``numpy.take`` along the last axis; positions (km) and velocities
(km/day) come back as (3, N) arrays, time last.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
import numpy.typing as npt
from jplephem.spk import SPK

from bodygraph.errors import EphemerisError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


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


class StackedSegments:
    """Several segments padded to one coefficient count and stacked record after record,
    so that any mix of (segment, instant) pairs is evaluated in one pass.

    Each record is one contiguous row of ``K * 3`` coefficients (coefficient-major), so
    gathering the records of M instants reads M short rows; the sums over the
    coefficients are then one batched matrix product.
    """

    def __init__(self, segments: list[ChebyshevSegment]) -> None:
        k = max(s.table.shape[0] for s in segments)
        padded = [np.pad(s.table, ((0, k - s.table.shape[0]), (0, 0), (0, 0))) for s in segments]
        table = np.concatenate(padded, axis=2)  # (K, 3, R)
        self.coefficients = k
        self.rows = np.ascontiguousarray(table.transpose(2, 0, 1).reshape(table.shape[2], k * 3))
        self.pairs = tuple((s.center, s.target) for s in segments)
        self.offset = np.cumsum([0] + [s.records for s in segments[:-1]]).astype(np.intp)
        self.records = np.array([s.records for s in segments], dtype=np.intp)
        self.first_jd = np.array([s.first_jd for s in segments])
        self.interval = np.array([s.interval for s in segments])

    def index_of(self, pair: tuple[int, int]) -> int:
        """The position of a segment in the stack."""
        return self.pairs.index(pair)

    def evaluate(
        self, which: npt.NDArray[np.intp], whole: FloatArray, fraction: FloatArray,
        *, velocity: bool = False,
    ) -> tuple[FloatArray, FloatArray | None]:
        """Positions (km, (3, M)) and, if asked, velocities (km/day) of segment
        ``which[m]`` at TDB ``whole[m] + fraction[m]``, for M pairs at once."""
        interval = self.interval[which]
        days = (whole - self.first_jd[which]) + fraction
        record = np.clip(np.floor(days / interval), 0, self.records[which] - 1).astype(np.intp)
        x = 2.0 * (days - record * interval) / interval - 1.0
        m, k = x.shape[0], self.coefficients
        coefficients = np.take(self.rows, record + self.offset[which], axis=0).reshape(m, k, 3)
        weights = np.empty((2 if velocity else 1, k, m))
        basis = weights[0]  # Chebyshev polynomials T_n(x)
        basis[0] = 1.0
        basis[1] = x
        two_x = 2.0 * x
        for n in range(2, k):
            np.multiply(two_x, basis[n - 1], out=basis[n])
            basis[n] -= basis[n - 2]
        if velocity:  # their derivatives T'_n = n U_(n-1), U of the second kind
            slope = weights[1]
            slope[0] = 0.0
            slope[1] = 1.0
            if k > 2:
                slope[2] = two_x
            for n in range(3, k):
                np.multiply(two_x, slope[n - 1], out=slope[n])
                slope[n] -= slope[n - 2]
            slope *= np.arange(k, dtype=np.float64)[:, None]
        sums = np.matmul(np.ascontiguousarray(weights.transpose(2, 0, 1)), coefficients)
        position: FloatArray = np.ascontiguousarray(sums[:, 0, :].T)
        if not velocity:
            return position, None
        speed: FloatArray = sums[:, 1, :].T * (2.0 / interval)
        return position, speed
