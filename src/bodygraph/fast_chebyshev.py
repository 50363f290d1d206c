"""Vectorized evaluation of JPL SPK type 2 (Chebyshev position) segments.

A :class:`ChebyshevSegment` holds one segment's coefficients as read from the kernel,
laid out as (coefficient, component, record). :class:`StackedSegments` stacks several
segments for evaluation: each record's Chebyshev series is rewritten once, at load
time, as the same polynomial in the monomial basis ``1, x, x**2, ...`` (an exact change
of basis; in float64 it moves a position by under a micrometre), so that evaluating
M (segment, instant) pairs takes a handful of array operations whatever the degree:
one gather of the records, one running product for the powers of x, one elementwise
product and a fixed-order pairwise sum over the coefficients (:func:`fold_sum`).
Positions (km) and velocities (km/day) come back as (3, M) arrays, time last.

Every operation is elementwise, so each pair's result depends on that pair alone, never
on how many pairs are evaluated with it or where it sits in the arrays (no BLAS
products, whose summation order may depend on the shapes).
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


def fold_sum(values: FloatArray, out: FloatArray | None = None) -> FloatArray:
    """The sum over the first axis, in an order fixed by that axis's length alone: the
    upper half is added elementwise onto the lower half until one row is left. Unlike
    ``numpy.sum`` (pairwise or sequential depending on the memory layout) or a BLAS
    product, the result of each element never depends on the other axes' sizes or
    strides. ``values`` is overwritten (it serves as scratch); ``out``, if given,
    receives the result."""
    n = values.shape[0]
    while n > 3:
        half = n // 2
        values[:half] += values[half:2 * half]
        if n % 2:
            values[0] += values[2 * half]
        n = half
    if n == 1:
        if out is None:
            first: FloatArray = values[0]
            return first
        out[...] = values[0]
        return out
    result: FloatArray = np.add(values[0], values[1], out=out)
    if n == 3:
        result += values[2]
    return result


def _monomial_matrix(k: int) -> FloatArray:
    """(k, k) matrix turning Chebyshev coefficients into monomial ones (column n holds
    the monomial coefficients of T_n)."""
    matrix = np.zeros((k, k))
    matrix[0, 0] = 1.0
    if k > 1:
        matrix[1, 1] = 1.0
    for n in range(2, k):  # T_n = 2 x T_(n-1) - T_(n-2)
        matrix[1:, n] = 2.0 * matrix[:-1, n - 1]
        matrix[:, n] -= matrix[:, n - 2]
    return matrix


#: Pairs evaluated per block (the gathered records and their products, about 500 kB,
#: then stay in a core's cache).
_BLOCK = 512


@dataclass(frozen=True, slots=True)
class Lookup:
    """Per-pair constants of a fixed list of segments (see :meth:`StackedSegments.lookup`),
    gathered once so that repeated evaluations skip the gathers."""

    first_jd: FloatArray
    interval: FloatArray
    last_record: FloatArray
    offset: IntArray
    scale: FloatArray  # d x / d day = 2 / interval


class StackedSegments:
    """Several segments padded to one coefficient count and stacked record after record,
    so that any mix of (segment, instant) pairs is evaluated in one pass.

    Each record is one contiguous row of ``K * 3`` monomial coefficients
    (coefficient-major), so gathering the records of M pairs reads M short rows.
    """

    def __init__(self, segments: list[ChebyshevSegment]) -> None:
        k = max(s.table.shape[0] for s in segments)
        padded = [np.pad(s.table, ((0, k - s.table.shape[0]), (0, 0), (0, 0))) for s in segments]
        table = np.concatenate(padded, axis=2)  # (K, 3, R) Chebyshev
        # sum_n c_n T_n(x) = sum_m (M c)_m x^m, per record and component
        monomial = np.tensordot(_monomial_matrix(k), table, axes=(1, 0))  # (K, 3, R)
        self.coefficients = k
        self.rows = np.ascontiguousarray(
            monomial.transpose(2, 0, 1).reshape(table.shape[2], k * 3))
        self.pairs = tuple((s.center, s.target) for s in segments)
        self.offset = np.cumsum([0] + [s.records for s in segments[:-1]]).astype(np.intp)
        self.records = np.array([s.records for s in segments], dtype=np.intp)
        self.first_jd = np.array([s.first_jd for s in segments])
        self.interval = np.array([s.interval for s in segments])
        self._degree = np.arange(k, dtype=np.float64)[:, None]

    def index_of(self, pair: tuple[int, int]) -> int:
        """The position of a segment in the stack."""
        return self.pairs.index(pair)

    def lookup(self, which: npt.NDArray[np.intp]) -> Lookup:
        """The constants of segments ``which`` (one entry per pair to evaluate)."""
        interval = self.interval[which]
        return Lookup(self.first_jd[which], interval,
                      (self.records[which] - 1).astype(np.float64), self.offset[which],
                      2.0 / interval)

    def evaluate(
        self, which: npt.NDArray[np.intp], whole: FloatArray, fraction: FloatArray,
        *, velocity: bool = False,
    ) -> tuple[FloatArray, FloatArray | None]:
        """Positions (km, (3, M)) and, if asked, velocities (km/day) of segment
        ``which[m]`` at TDB ``whole[m] + fraction[m]``, for M pairs at once."""
        return self.evaluate_lookup(self.lookup(which), whole, fraction, velocity=velocity)

    def evaluate_lookup(
        self, lookup: Lookup, whole: FloatArray, fraction: FloatArray,
        *, velocity: bool = False, out: FloatArray | None = None,
    ) -> tuple[FloatArray, FloatArray | None]:
        """:meth:`evaluate` with the segments' constants already gathered; ``out``, if
        given, receives the positions (3, M) or, with velocities, both (2, 3, M)."""
        days = whole - lookup.first_jd
        days += fraction
        record = days / lookup.interval
        np.floor(record, out=record)
        np.minimum(record, lookup.last_record, out=record)
        np.maximum(record, 0.0, out=record)
        x = record * lookup.interval
        np.subtract(days, x, out=x)
        x *= lookup.scale
        x -= 1.0
        m, k = x.shape[0], self.coefficients
        index = record.astype(np.intp)
        index += lookup.offset
        # Powers of x by doubling: x**(n+j) = x**n x**j for a block of j at a time.
        d = 2 if velocity else 1
        basis = np.empty((k, d, 1, m))
        powers = basis[:, 0, 0]
        powers[0] = 1.0
        powers[1] = x
        done = 2
        while done < k:
            block = min(done - 1, k - done)
            np.multiply(powers[done - 1], powers[1:1 + block], out=powers[done:done + block])
            done += block
        if velocity:
            basis[0, 1] = 0.0  # d x**n / dx = n x**(n-1)
            np.multiply(powers[:-1], self._degree[1:], out=basis[1:, 1, 0])
        result = np.empty((d, 3, m)) if out is None else out.reshape(d, 3, m)
        # Block by block, so that the gathered records and the products stay in cache
        # (every step is elementwise: the blocks cannot change any result).
        size = min(m, _BLOCK)
        products = np.empty((k, d, 3, size))
        for start in range(0, m, _BLOCK):
            stop = min(start + _BLOCK, m)
            rows = self.rows.take(index[start:stop], axis=0)
            # (K, 3, B) view of the records, time last
            coefficients = rows.reshape(stop - start, k, 3).transpose(1, 2, 0)
            part = products[..., :stop - start]
            np.multiply(coefficients[:, None], basis[..., start:stop], out=part)
            fold_sum(part, result[..., start:stop])
        if not velocity:
            return result[0], None
        result[1] *= lookup.scale
        return result[0], result[1]
