"""Root finding on the engine: every instant at which a longitude crosses a lattice of
boundaries (the wheel's gate or line boundaries, a natal longitude), for many windows
and many tracks at once, exact to ``TOLERANCE_US``.

The independent variable is the UTC instant in integer microseconds, the very input
:func:`bodygraph.calculate` reads, so that a crossing found here is the instant at which
the chart itself changes. For each window:

1. the tracks (rows of a sampler's output) are sampled on a grid of ``step`` and, an
   instant ``SPEED_PROBE_US`` later, for the sign of their speed;
2. every grid interval over which a track's speed changes sign holds a station
   (retrograde or direct); it is located by the bracketing solver on the speed, and
   splits the interval in two, so that every piece is monotonic;
3. each boundary of the lattice between a monotonic piece's end values is crossed
   exactly once in it, and bracketed: :func:`solve` shrinks every bracket to
   ``TOLERANCE_US`` (regula falsi with the Illinois correction, falling back to
   bisection when a step gains too little).

A station pair closer together than one grid step is invisible to step 2: with the
steps used here (one hour for the true node, the only wobbling track) the smallest
excursion between such stations measured over 1970-2010 is below 0.01 arcsecond.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bodygraph._typing import BoolArray, FloatArray, IntArray, Micros
from bodygraph.catalog.tables import tables
from bodygraph.model.chart import BODIES, Body
from bodygraph.rules.wheel import CIRCLE, UNITS_PER_DEGREE

#: UTC instants (M,) -> longitudes in degrees, shape (K, M): K tracks, time last.
Sampler = Callable[[Micros], FloatArray]
#: Problem indices (M,) and their UTC instants (M,) -> signed values (M,).
Evaluate = Callable[[IntArray, IntArray], FloatArray]

US_PER_S = 1_000_000
#: Width of the final bracket of every root: 1 ms.
TOLERANCE_US = 1_000
#: Stations are located to this (their exact instant only splits a monotonic piece).
STATION_TOLERANCE_US = 1_000_000
#: The speed's sign is read from the longitude this much later (backward at a window's end).
SPEED_PROBE_US = 10 * US_PER_S
MAX_STEPS = 80


def wrap_units(units: FloatArray) -> FloatArray:
    """Differences of 1/16-arcsecond units folded into [-HALF_CIRCLE, HALF_CIRCLE] (a
    difference already in range is returned exactly: its sign is never lost)."""
    folded: FloatArray = units - CIRCLE * np.round(units / CIRCLE)
    return folded


def _cells(units: FloatArray, offset: FloatArray, width: int | IntArray) -> IntArray:
    """The lattice cell of each value: on integer lattices (the wheel) by the integer
    units a chart uses (``floor``, then integer division), else by the float values."""
    if np.all(offset == np.floor(offset)):
        cells = (np.floor(units) - offset) // width
    else:
        cells = np.floor((units - offset) / width)
    out: IntArray = cells.astype(np.int64)
    return out


def to_float_units(degrees: FloatArray) -> FloatArray:
    """Longitudes in degrees -> 1/16-arcsecond units, not rounded: ``floor`` of these is
    :func:`bodygraph.rules.wheel.to_units` (the same product)."""
    units: FloatArray = np.asarray(degrees, dtype=np.float64) * UNITS_PER_DEGREE
    return units


def solve(evaluate: Evaluate, base: IntArray, lo: IntArray, hi: IntArray, v_lo: FloatArray,
          v_hi: FloatArray, strict: BoolArray, tolerance: int = TOLERANCE_US) -> IntArray:
    """For each problem i, shrink the bracket ``(lo, hi]`` (microseconds after
    ``base[i]``, integers) in which its value turns "reached" (``v >= 0``, or ``v > 0``
    where ``strict``) until ``hi - lo <= tolerance``; ``lo`` must not be reached and
    ``hi`` must be. Returns ``hi``: the first evaluated instant that is reached."""
    lo, hi = lo.astype(np.int64).copy(), hi.astype(np.int64).copy()
    v_lo, v_hi = v_lo.astype(np.float64).copy(), v_hi.astype(np.float64).copy()
    last = np.zeros(lo.shape, dtype=np.int8)  # +1 hi moved last, -1 lo moved last
    poor = np.zeros(lo.shape, dtype=np.int8)  # steps in a row that gained under half
    for _ in range(MAX_STEPS):
        act = np.flatnonzero(hi - lo > tolerance)
        if act.size == 0:
            return hi
        a, b, fa, fb = lo[act], hi[act], v_lo[act], v_hi[act]
        width = b - a
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(fb > fa, -fa / (fb - fa), 0.5)
        secant = np.isfinite(share) & (poor[act] < 3)
        share = np.where(secant, share, 0.5)
        # Regula falsi closes in on the root from one side: nudge the point a quarter of
        # the tolerance toward the end kept last, so that once it is that close the
        # next point lands on the other side and the bracket collapses.
        nudge = np.where(secant, -last[act].astype(np.int64) * (tolerance // 4), 0)
        margin = np.maximum(1, np.minimum(tolerance // 4, width // 2))
        x = np.clip(a + np.round(width * share).astype(np.int64) + nudge, a + margin,
                    b - margin)
        fx = evaluate(act, base[act] + x)
        reached = np.where(strict[act], fx > 0, fx >= 0)
        up, down = act[reached], act[~reached]
        # Illinois: an end kept twice in a row has its value halved.
        v_lo[up[last[up] == 1]] *= 0.5
        v_hi[down[last[down] == -1]] *= 0.5
        hi[up], v_hi[up], last[up] = x[reached], fx[reached], 1
        lo[down], v_lo[down], last[down] = x[~reached], fx[~reached], -1
        gained = (hi[act] - lo[act]) * 2 <= width
        poor[act] = np.where(gained, 0, poor[act] + 1)
    raise RuntimeError("root finding did not converge")  # pragma: no cover - bisection bound


@dataclass(frozen=True, slots=True)
class Crossings:
    """Boundary crossings, one per element: the window, the track, the first microsecond
    instant (UTC) on the new side, the boundary (lattice units) and the direction."""

    window: IntArray
    track: IntArray
    at: Micros
    boundary: FloatArray
    forward: BoolArray


def _micros(instants: Micros) -> IntArray:
    out: IntArray = np.asarray(instants, dtype="datetime64[us]").astype(np.int64)
    return out


def _as_instants(micros: IntArray) -> Micros:
    out: Micros = np.asarray(micros, dtype=np.int64).astype("datetime64[us]")
    return out


def _speeds(sample: Sampler, grid: IntArray) -> tuple[FloatArray, FloatArray]:
    """Longitudes (degrees) and speeds (units per probe) of each track at each grid
    instant, shape (K, P, n + 1)."""
    probe = np.full(grid.shape, SPEED_PROBE_US, dtype=np.int64)
    probe[:, -1] = -SPEED_PROBE_US
    now = sample(_as_instants(grid.ravel()))
    later = sample(_as_instants((grid + probe).ravel()))
    speed = wrap_units(to_float_units(later - now)) * np.sign(probe.ravel())
    shape = (now.shape[0], *grid.shape)
    return now.reshape(shape), speed.reshape(shape)


def _stations(sample: Sampler, grid: IntArray, speeds: FloatArray,
              ) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Stations: (track, window, grid interval, instant in microseconds)."""
    ahead = speeds > 0
    track, window, interval = np.nonzero(ahead[:, :, :-1] != ahead[:, :, 1:])
    if track.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    sign = np.where(ahead[track, window, interval + 1], 1.0, -1.0)

    def speed(index: IntArray, at: IntArray) -> FloatArray:
        rows = track[index]
        now = sample(_as_instants(at))[rows, np.arange(at.size)]
        later = sample(_as_instants(at + SPEED_PROBE_US))[rows, np.arange(at.size)]
        values: FloatArray = wrap_units(to_float_units(later - now)) * sign[index]
        return values

    zero = np.zeros(track.size, dtype=np.int64)
    start, end = grid[window, interval], grid[window, interval + 1]
    instant = start + solve(speed, start, zero, end - start,
                            speeds[track, window, interval] * sign,
                            speeds[track, window, interval + 1] * sign,
                            np.zeros(track.size, dtype=bool), STATION_TOLERANCE_US)
    return track, window, interval, instant


def crossings(sample: Sampler, starts: Micros, ends: Micros, offset: FloatArray,
              width: int | IntArray, step_us: int) -> Crossings:
    """Every crossing, in ``(start, end]`` of each of P windows, of every track of
    ``sample`` (K rows) over the boundaries ``offset + k * width`` (1/16-arcsecond units;
    ``offset`` broadcasts to (K, P), ``width`` to (K,): a lattice for each track), in
    either direction; sorted by window, instant and track."""
    first, last = _micros(starts), _micros(ends)
    if first.size == 0:
        none = np.zeros(0, dtype=np.int64)
        return Crossings(none, none, _as_instants(none), np.zeros(0), np.zeros(0, dtype=bool))
    count = int(max(1, np.ceil(np.max(last - first) / step_us)))
    fractions = np.arange(count + 1) / count
    grid = first[:, None] + np.round((last - first)[:, None] * fractions).astype(np.int64)
    values, speeds = _speeds(sample, grid)
    tracks = values.shape[0]
    # Monotonic pieces: every grid interval, split at its station if it has one.
    k, p, i = (a.ravel() for a in np.indices((tracks, grid.shape[0], count)))
    t_a, t_b = grid[p, i], grid[p, i + 1]
    u_a, u_b = values[k, p, i], values[k, p, i + 1]
    s_track, s_window, s_interval, s_at = _stations(sample, grid, speeds)
    if s_track.size:
        s_value = sample(_as_instants(s_at))[s_track, np.arange(s_at.size)]
        split = (s_track * grid.shape[0] + s_window) * count + s_interval
        u_b_split = u_b[split].copy()
        t_b_split = t_b[split].copy()
        t_b[split], u_b[split] = s_at, s_value
        k = np.concatenate([k, s_track])
        p = np.concatenate([p, s_window])
        t_a, t_b = np.concatenate([t_a, s_at]), np.concatenate([t_b, t_b_split])
        u_a, u_b = np.concatenate([u_a, s_value]), np.concatenate([u_b, u_b_split])
    widths = np.broadcast_to(np.asarray(width, dtype=np.int64), (tracks,))
    return _cross_pieces(sample, k, p, t_a, t_b, to_float_units(u_a), to_float_units(u_b),
                         np.broadcast_to(offset, (tracks, grid.shape[0])), widths)


def _cross_pieces(sample: Sampler, k: IntArray, p: IntArray, t_a: IntArray, t_b: IntArray,
                  u_a: FloatArray, u_b: FloatArray, offset: FloatArray, widths: IntArray,
                  ) -> Crossings:
    """Bracket and solve every boundary crossed inside monotonic pieces."""
    off, width = offset[k, p], widths[k]
    # Cells of the raw values, then whole turns added back to the end's cell.
    turns = np.round((u_a + wrap_units(u_b - u_a) - u_b) / CIRCLE).astype(np.int64)
    cell_a = _cells(u_a, off, width)
    cell_b = _cells(u_b, off, width) + turns * (CIRCLE // width)
    u_b = u_b + turns * CIRCLE
    count = np.abs(cell_b - cell_a)
    piece = np.repeat(np.arange(k.size), count)
    forward = np.repeat(cell_b > cell_a, count)
    rank = np.arange(piece.size) - np.repeat(np.cumsum(count) - count, count)
    cell = np.where(forward, cell_a[piece] + 1 + rank, cell_a[piece] - rank)
    boundary = off[piece] + cell * width[piece]
    track, window = k[piece], p[piece]
    direction = np.where(forward, 1.0, -1.0)

    def distance(index: IntArray, at: IntArray) -> FloatArray:
        longitudes = sample(_as_instants(at))[track[index], np.arange(at.size)]
        signed: FloatArray = wrap_units(to_float_units(longitudes) - boundary[index])
        return signed * direction[index]

    base = t_a[piece]
    v_lo = wrap_units(u_a[piece] - boundary) * direction
    v_hi = wrap_units(u_b[piece] - boundary) * direction
    at = base + solve(distance, base, np.zeros(piece.size, dtype=np.int64),
                      t_b[piece] - base, v_lo, v_hi, ~forward)
    order = np.lexsort((track, at, window))
    return Crossings(window[order], track[order], _as_instants(at[order]),
                     np.mod(boundary[order], CIRCLE), forward[order])


#: The wheel's lattice: gate 41 starts at this many units (every gate and line boundary
#: is this plus a multiple of ``wheel.LINE``).
WHEEL_OFFSET = round(tables().gate_41_start_deg * UNITS_PER_DEGREE)
#: The activations whose longitudes are computed (BODIES indices); earth and the south
#: node are the exact opposites of the sun and the north node (``OPPOSITES``).
SOURCES: tuple[int, ...] = tuple(i for i, b in enumerate(BODIES)
                                 if b not in (Body.EARTH, Body.SOUTH_NODE))
OPPOSITES: dict[int, int] = {BODIES.index(Body.SUN): BODIES.index(Body.EARTH),
                             BODIES.index(Body.NORTH_NODE): BODIES.index(Body.SOUTH_NODE)}


def wheel_sides(found: Crossings) -> tuple[IntArray, IntArray]:
    """Integer units just before and just after each wheel crossing (``wheel.positions``
    of them gives the gate and line left and entered)."""
    boundary = np.round(found.boundary).astype(np.int64)
    before = np.where(found.forward, boundary - 1, boundary) % CIRCLE
    after = np.where(found.forward, boundary, boundary - 1) % CIRCLE
    return before, after
