"""Vectorized evaluation of JPL SPK type 2 (Chebyshev position) segments.

A :class:`ChebyshevSegment` holds one segment's coefficients, laid out once as
(coefficient, component, record) so that gathering the records of N instants
is a single ``numpy.take`` along the last axis; positions (km) and velocities
(km/day) come back as (3, N) arrays, time last.
"""

from __future__ import annotations

from dataclasses import dataclass
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

    def _locate(self, whole: FloatArray, fraction: FloatArray) -> tuple[IntArray, FloatArray]:
        days = (whole - self.first_jd) + fraction
        index = np.clip(np.floor(days / self.interval), 0, self.records - 1).astype(np.intp)
        x = 2.0 * (days - index * self.interval) / self.interval - 1.0
        return index, x

    def _basis(self, x: FloatArray) -> FloatArray:
        k = self.table.shape[0]
        t = np.empty((k, x.shape[0]))
        t[0] = 1.0
        if k > 1:
            t[1] = x
        two_x = 2.0 * x
        for n in range(2, k):
            np.multiply(two_x, t[n - 1], out=t[n])
            t[n] -= t[n - 2]
        return t

    def position(self, whole: FloatArray, fraction: FloatArray) -> FloatArray:
        """Position (km), shape (3, N), at TDB ``whole + fraction``."""
        index, x = self._locate(whole, fraction)
        coefficients = np.take(self.table, index, axis=2)  # (K, 3, N)
        coefficients *= self._basis(x)[:, None, :]
        out: FloatArray = coefficients.sum(axis=0)
        return out

    def position_velocity(
        self, whole: FloatArray, fraction: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """Position (km) and velocity (km/day), each (3, N)."""
        index, x = self._locate(whole, fraction)
        coefficients = np.take(self.table, index, axis=2)
        basis = self._basis(x)
        k = basis.shape[0]
        derivative = np.zeros_like(basis)  # d T_n / dx
        if k > 1:
            derivative[1] = 1.0
        two_x = 2.0 * x
        for n in range(2, k):
            derivative[n] = 2.0 * basis[n - 1] + two_x * derivative[n - 1] - derivative[n - 2]
        position: FloatArray = np.einsum("kcn,kn->cn", coefficients, basis)
        velocity: FloatArray = np.einsum("kcn,kn->cn", coefficients, derivative)
        velocity *= 2.0 / self.interval
        return position, velocity


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
    for before, after in zip(pieces, pieces[1:], strict=False):
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
    """Several segments padded to one coefficient count and stacked along the record
    axis, so that any mix of (segment, instant) pairs is evaluated in one pass."""

    def __init__(self, segments: list[ChebyshevSegment]) -> None:
        k = max(s.table.shape[0] for s in segments)
        padded = [np.pad(s.table, ((0, k - s.table.shape[0]), (0, 0), (0, 0))) for s in segments]
        self.table = np.ascontiguousarray(np.concatenate(padded, axis=2))
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
        coefficients = np.take(self.table, record + self.offset[which], axis=2)
        k = self.table.shape[0]
        basis = np.empty((k, x.shape[0]))
        basis[0] = 1.0
        basis[1] = x
        two_x = 2.0 * x
        for n in range(2, k):
            np.multiply(two_x, basis[n - 1], out=basis[n])
            basis[n] -= basis[n - 2]
        position: FloatArray = np.einsum("kcm,km->cm", coefficients, basis)
        if not velocity:
            return position, None
        derivative = np.zeros_like(basis)
        derivative[1] = 1.0
        for n in range(2, k):
            derivative[n] = 2.0 * basis[n - 1] + two_x * derivative[n - 1] - derivative[n - 2]
        speed: FloatArray = np.einsum("kcm,km->cm", coefficients, derivative)
        speed *= 2.0 / interval
        return position, speed
