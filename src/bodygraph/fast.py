"""The fast engine: apparent geocentric longitudes straight from the kernel's Chebyshev
coefficients, for N instants at once.

The physics is the same as the Skyfield reference (:class:`bodygraph.astronomy.SkyfieldEngine`):

1. barycentric positions from the SPK type 2 segments at TDB (``fast_chebyshev``);
2. light time, solved exactly on the target's straight path through its state at the
   instant, then one evaluation of the kernel at the retarded instant (the path's
   curvature over the light time moves the result by under a centimetre for Mercury,
   far less for the others, so further iterations change nothing that shows);
3. gravitational light deflection by the Sun, Jupiter and Saturn (the deflector taken
   where it was when the light passed closest to it) of every body but the Sun;
4. annual aberration with the relativistic formula and the Earth's barycentric velocity;
5. frame bias, IAU 2006 precession and IAU 2000B nutation to the true ecliptic and
   equinox of date (``fast_frames``);
6. the true (osculating) lunar node from the Moon's geometric geocentric state vector,
   or the mean node (the Meeus polynomial of ``astronomy.mean_node_longitude``) plus
   the nutation in longitude.

Work is organised in *passes*: one pass takes any list of groups (instants, and the
bodies wanted at each of them) and computes everything with one evaluation of the
kernel at the instants, one at the retarded instants, and elementwise array
arithmetic (:class:`_Layout` holds the index arrays of a pass, built once per shape).
A chart needs two passes (:meth:`FastEngine.epochs`): the bodies at birth together
with the Sun at three instants around a low-precision guess of the design instant, whose
quadratic interpolation gives the design instant; then the bodies at design (with the
rotation and nutation of date interpolated the same way from the samples).

Every operation is elementwise (no BLAS products, no reductions whose order depends on
the array's shape, no iteration counts that depend on other instants), so a chart's
numbers are bit for bit the same whatever else is computed with it.

Vectors are (3, N) arrays in km (velocities km/day), time last. The engine holds only
immutable arrays, so one instance may serve many threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bodygraph.chart import NodeKind
from bodygraph.errors import EphemerisError, InvalidInstantError
from bodygraph.fast_chebyshev import Lookup, StackedSegments, load_segments
from bodygraph.fast_frames import (
    centuries,
    mean_ecliptic_rows,
    nutation_longitude,
    tdb_minus_tt_days,
)
from bodygraph.timescale import TT

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

C_KM_PER_S = 299792.458
C_KM_PER_DAY = C_KM_PER_S * 86400.0
#: Heliocentric gravitational constant (m^3/s^2) and the deflectors' reciprocal masses.
GM_SUN = 1.32712440017987e20
DEFLECTORS: tuple[tuple[str, float], ...] = (("sun", 1.0), ("jupiter", 1047.3486),
                                             ("saturn", 3497.898))
_RECIPROCAL_MASSES = np.array([mass for _, mass in DEFLECTORS])[:, None]
#: Cosine beyond which a deflector and the target are taken as one line (as in NOVAS).
_COLLINEAR = 0.99999999999

SOLAR_ARC_DEG = 88.0
#: General precession in longitude (IAU 2006, 5028.796"/century), degrees per day.
PRECESSION_RATE = 5028.796195 / 3600.0 / 36525.0
#: The design instant is interpolated from the Sun at these offsets (days) from the
#: low-precision guess, which is within 0.022 day of it over 1800-2200; the parabola
#: through them is then good to about 5e-11 day (5 microseconds; the Sun's third
#: derivative is mostly the Earth's monthly wobble about the Earth-Moon barycenter).
DESIGN_SAMPLES: tuple[float, ...] = (-0.025, 0.0, 0.025)
_SAMPLE_SPACING = 0.025
#: Newton steps on the interpolating parabola (nearly a straight line: its curvature
#: term is 1e-5 of the slope, so one step from the linear root reaches rounding level).
_PARABOLA_STEPS = 1

_Chain = tuple[tuple[int, int], ...]
EARTH: _Chain = ((0, 3), (3, 399))
#: Segment chains from the solar-system barycenter, in the order of ENGINE_BODIES.
CHAINS: dict[str, _Chain] = {
    "sun": ((0, 10),),
    "moon": ((0, 3), (3, 301)),
    "mercury": ((0, 1), (1, 199)),
    "venus": ((0, 2), (2, 299)),
    "mars": ((0, 4),),
    "jupiter": ((0, 5),),
    "saturn": ((0, 6),),
    "uranus": ((0, 7),),
    "neptune": ((0, 8),),
    "pluto": ((0, 9),),
}
ALL_CHAINS: dict[str, _Chain] = {"earth": EARTH, **CHAINS}
TARGETS: tuple[str, ...] = tuple(CHAINS)
_PAIRS: tuple[tuple[int, int], ...] = tuple(
    sorted({pair for chain in (EARTH, *CHAINS.values()) for pair in chain})
)
_MOON_STATE: tuple[tuple[int, int], tuple[int, int]] = ((3, 301), (3, 399))

#: A group of a pass: the bodies wanted, how many instants, and which node (if any).
Group = tuple[tuple[str, ...], int, NodeKind | None]


def _norm(v: FloatArray) -> FloatArray:
    out = _dot(v, v)
    np.sqrt(out, out=out)
    return out


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    """Dot products over the first axis: (a0 b0 + a1 b1) + a2 b2, elementwise."""
    products = a * b
    out: FloatArray = products[0] + products[1]
    out += products[2]
    return out


#: 2 GM_sun / c^2 in km (the factor of the deflection formula, per unit of distance).
_SCHWARZSCHILD_KM = 2.0 * GM_SUN / (C_KM_PER_S * 1000.0) ** 2 / 1000.0


def _bending(position: FloatArray, observer_from_deflector: FloatArray,
             reciprocal_mass: float | FloatArray,
             p_mag: FloatArray | None = None) -> FloatArray:
    """The change :func:`deflect` makes to ``position`` (``p_mag``: its length, if
    known)."""
    e = observer_from_deflector
    q = position + e
    qq, ee = _dot(q, q), _dot(e, e)
    pq, qe, ep = _dot(position, q), _dot(q, e), _dot(e, position)
    if p_mag is None:
        p_mag = _norm(position)
    q_mag = np.sqrt(qq)
    e_mag = np.sqrt(ee)
    p_dot_q = pq / (p_mag * q_mag)
    q_dot_e = qe / (q_mag * e_mag)
    e_dot_p = ep / (e_mag * p_mag)
    factor = np.where(np.abs(e_dot_p) <= _COLLINEAR,
                      _SCHWARZSCHILD_KM / (e_mag * reciprocal_mass), 0.0)
    factor *= p_mag
    factor /= 1.0 + q_dot_e
    out: FloatArray = (p_dot_q / e_mag) * e
    out -= (e_dot_p / q_mag) * q
    out *= factor
    return out


def deflect(position: FloatArray, observer_from_deflector: FloatArray,
            reciprocal_mass: float) -> FloatArray:
    """Gravitational deflection of light from ``position`` (observer -> target, km)
    by a mass at ``observer_from_deflector`` (deflector -> observer, km): the
    post-Newtonian formula of the IERS Conventions; returns the corrected vector."""
    out: FloatArray = position + _bending(position, observer_from_deflector, reciprocal_mass)
    return out


def aberrate(position: FloatArray, velocity: FloatArray, light_time: FloatArray) -> FloatArray:
    """Annual aberration (relativistic formula): ``position`` seen by an observer moving
    at ``velocity`` (km/day), the light having travelled ``light_time`` days."""
    distance = light_time * C_KM_PER_DAY
    speed = _norm(velocity)
    beta = speed / C_KM_PER_DAY
    cos_d = _dot(position, velocity) / (distance * speed)
    inverse_gamma = np.sqrt(1.0 - beta * beta)
    p = beta * cos_d
    q = (1.0 + p / (1.0 + inverse_gamma)) * light_time
    out: FloatArray = inverse_gamma * position
    out += q * velocity
    out /= 1.0 + p
    return out


@dataclass(frozen=True, slots=True)
class _Layout:
    """The index arrays of one pass (see the module docstring).

    Instants are the groups' instants one group after the other. ``now`` evaluations
    (with velocities) are (segment, instant) pairs; a *job* is one body at one instant
    (group by group, body-major); ``then`` evaluations are the segments of each job's
    chain at its retarded instant. Index ``-1`` picks a zero column appended to the
    evaluations (chains of one segment, deflectors of groups that need none).
    """

    instants: int
    now: Lookup
    now_instant: IntArray
    earth: IntArray  # (2, I) into now: the Earth at each instant
    job_instant: IntArray  # (J,)
    job_now: IntArray  # (2, J) into now
    bent: IntArray  # (B,) the jobs whose light is deflected (every body but the Sun)
    deflectors: IntArray  # (3, B) into now: Sun, Jupiter, Saturn at those jobs' instants
    then: Lookup
    then_instant: IntArray  # (T,)
    then_job: IntArray  # (T,)
    job_then: IntArray  # (2, J) into then
    node_instant: IntArray  # (G,)
    node_moon: IntArray  # (2, G) into now: Moon and Earth relative to their barycenter
    #: per group: first job, number of bodies, instants, first node row (-1: none), node
    groups: tuple[tuple[int, int, int, int, NodeKind | None], ...]


def _present(stack: StackedSegments, chain: _Chain) -> list[int]:
    return [stack.index_of(pair) for pair in chain if pair in stack.pairs]


def _pair(chain: list[int], table: dict[int, IntArray], zero: IntArray) -> IntArray:
    """(2, n) indices of a chain's one or two segments (``zero``: none)."""
    ends = [table[s] for s in chain] + [zero] * (2 - len(chain))
    return np.stack(ends)


@lru_cache(maxsize=32)
def _layout(stack: StackedSegments, groups: tuple[Group, ...]) -> _Layout:
    """The index arrays of a pass over ``groups`` (cached: a pass of a given shape is
    laid out once)."""
    now_seg: list[IntArray] = []
    now_inst: list[IntArray] = []
    earth: list[IntArray] = []
    job_inst: list[IntArray] = []
    job_now: list[IntArray] = []
    bent: list[IntArray] = []
    deflectors: list[IntArray] = []
    then_seg: list[IntArray] = []
    then_job: list[IntArray] = []
    job_then: list[IntArray] = []
    node_inst: list[IntArray] = []
    node_moon: list[IntArray] = []
    spans: list[tuple[int, int, int, int, NodeKind | None]] = []
    first_instant = first_now = first_job = first_then = first_node = 0
    for bodies, n, node in groups:
        instants = first_instant + np.arange(n, dtype=np.intp)
        chains = [_present(stack, CHAINS[b]) for b in bodies]
        bend = any(b != "sun" for b in bodies)
        needed = set(_present(stack, EARTH))
        for chain in chains:
            needed.update(chain)
        if bend:
            needed.update(s for name, _ in DEFLECTORS for s in _present(stack, CHAINS[name]))
        if node == "true":
            needed.update(_present(stack, _MOON_STATE))
        order = sorted(needed)
        where = {s: first_now + q * n + np.arange(n, dtype=np.intp) for q, s in enumerate(order)}
        now_seg.extend(np.full(n, s, dtype=np.intp) for s in order)
        now_inst.extend(instants for _ in order)
        first_now += len(order) * n
        zero = np.full(n, -1, dtype=np.intp)
        earth.append(_pair(_present(stack, EARTH), where, zero))
        for b, (body, chain) in enumerate(zip(bodies, chains, strict=True)):
            jobs = first_job + b * n + np.arange(n, dtype=np.intp)
            job_inst.append(instants)
            job_now.append(_pair(chain, where, zero))
            if body != "sun":
                bent.append(jobs)
                deflectors.append(np.stack([where[_present(stack, CHAINS[name])[0]]
                                            for name, _ in DEFLECTORS]))
            retarded = {}
            for s in chain:
                retarded[s] = first_then + np.arange(n, dtype=np.intp)
                then_seg.append(np.full(n, s, dtype=np.intp))
                then_job.append(jobs)
                first_then += n
            job_then.append(_pair(chain, retarded, zero))
        node_row = -1
        if node is not None:
            node_row = first_node
            node_inst.append(instants)
            moon_state = (_present(stack, _MOON_STATE) if node == "true"
                          else [-1, -1])
            node_moon.append(np.stack([where[s] if s >= 0 else zero for s in moon_state]))
            first_node += n
        spans.append((first_job, len(bodies), n, node_row, node))
        first_job += len(bodies) * n
        first_instant += n

    def flat(parts: list[IntArray]) -> IntArray:
        return np.concatenate(parts) if parts else np.empty(0, dtype=np.intp)

    def paired(parts: list[IntArray], rows: int) -> IntArray:
        return np.concatenate(parts, axis=1) if parts else np.empty((rows, 0), dtype=np.intp)

    now_segments = flat(now_seg)
    then_segments = flat(then_seg)
    jobs_then = flat(then_job)
    jobs_instant = flat(job_inst)
    layout = _Layout(
        instants=first_instant,
        now=stack.lookup(now_segments),
        now_instant=flat(now_inst),
        earth=paired(earth, 2),
        job_instant=jobs_instant,
        job_now=paired(job_now, 2),
        bent=flat(bent),
        deflectors=paired(deflectors, 3),
        then=stack.lookup(then_segments),
        then_instant=jobs_instant[jobs_then],
        then_job=jobs_then,
        job_then=paired(job_then, 2),
        node_instant=flat(node_inst),
        node_moon=paired(node_moon, 2),
        groups=tuple(spans),
    )
    lookups = [getattr(lookup, name) for lookup in (layout.now, layout.then)
               for name in Lookup.__slots__]
    for value in (*lookups, layout.now_instant, layout.earth,
                  layout.job_instant, layout.job_now, layout.bent, layout.deflectors,
                  layout.then_instant, layout.then_job, layout.job_then,
                  layout.node_instant, layout.node_moon):
        value.flags.writeable = False
    return layout


@dataclass(frozen=True, slots=True)
class _Pass:
    """What a pass computes: per job the apparent vector, its longitude, the body's and
    the Earth's barycentric velocities and the rotation rows of its instant; per node row
    the node's longitude; and the frames of the instants."""

    apparent: FloatArray  # (3, J)
    longitude: FloatArray  # (J,)
    velocity: FloatArray  # (3, J) km/day, the body's barycentric velocity
    earth_velocity: FloatArray  # (3, J) km/day
    rows: FloatArray  # (2, 3, J)
    node: FloatArray  # (G,)
    frames: FloatArray  # (8, I), see _frames


def _with_zero(values: FloatArray) -> FloatArray:
    """(3, M) -> (3, M + 1) with a zero last column (what index -1 picks)."""
    out = np.zeros((3, values.shape[1] + 1))
    out[:, :-1] = values
    return out


class FastEngine:
    """Vectorized :class:`~bodygraph.engine.PositionEngine` over a JPL type 2 kernel."""

    def __init__(self, kernel_path: Path) -> None:
        self.kernel_path = Path(kernel_path)
        segments = load_segments(self.kernel_path, _PAIRS)
        starts = [s.first_jd for s in segments.values()]
        ends = [s.first_jd + s.records * s.interval for s in segments.values()]
        self.first_jd = max(starts)
        self.last_jd = min(ends)
        # Segments that are identically zero (Mercury and Venus inside their barycenters)
        # cost time and add nothing.
        self.stack = StackedSegments([s for s in segments.values() if np.any(s.table)])

    def close(self) -> None:
        """Nothing to release: the coefficients were copied into memory."""

    def check_coverage(self, whole: FloatArray, fraction: FloatArray) -> None:
        """Raise :class:`EphemerisError` unless every instant (with a day's margin for
        light time) lies within the kernel."""
        days = (whole - self.first_jd) + fraction
        if days.size and (days.min() < 1.0 or days.max() > self.last_jd - self.first_jd):
            raise EphemerisError(
                f"an instant lies outside the kernel {self.kernel_path} "
                f"(TDB JD {self.first_jd + 1.0} to {self.last_jd})"
            )

    def _pass(self, whole: FloatArray, fraction: FloatArray, groups: tuple[Group, ...],
              frames: FloatArray | None = None) -> _Pass:
        """Run one pass: ``whole`` and ``fraction`` (TT) hold the groups' instants;
        ``frames`` (see :func:`_frames`) are computed, and the instants checked against
        the kernel, unless given (the design pass of :meth:`epochs`: its instants lie
        within a tenth of a day of samples already checked, with a day's margin)."""
        layout = _layout(self.stack, groups)
        if frames is None:
            frames = _frames(whole, fraction)
            self.check_coverage(whole, fraction + frames[0])
        tdb = fraction + frames[0]
        # Positions and velocities (6, E + 1) at the instants; the last column is zero.
        at = layout.now_instant
        state = np.empty((6, at.shape[0] + 1))
        state[:, -1] = 0.0
        self.stack.evaluate_lookup(layout.now, whole[at], tdb[at], velocity=True,
                                   out=state[:, :-1].reshape(2, 3, -1))
        a, b = layout.earth
        earth = (state[:, a] + state[:, b])[:, layout.job_instant]  # (6, J)
        a, b = layout.job_now
        body = state[:, a] + state[:, b]
        # Light time on the straight path X + V s: |X - V lt - E| = c lt, exactly.
        offset = body[:3] - earth[:3]
        velocity = body[3:]
        d_dot_v = _dot(offset, velocity)
        speed = C_KM_PER_DAY**2 - _dot(velocity, velocity)
        light_time = np.sqrt(d_dot_v * d_dot_v + speed * _dot(offset, offset))
        light_time -= d_dot_v
        light_time /= speed
        at = layout.then_instant
        retarded = np.empty((3, at.shape[0] + 1))
        retarded[:, -1] = 0.0
        self.stack.evaluate_lookup(layout.then, whole[at],
                                   tdb[at] - light_time[layout.then_job],
                                   out=retarded[:, :-1])
        a, b = layout.job_then
        vector = retarded[:, a] + retarded[:, b]
        vector -= earth[:3]
        distance = _norm(vector)
        light_time = distance / C_KM_PER_DAY
        vector = self._deflected(vector, distance, light_time, earth[:3], state, layout)
        apparent = aberrate(vector, earth[3:], light_time)
        job_frames = frames[:, layout.job_instant]
        rows = job_frames[2:].reshape(2, 3, -1)
        x, y = _dot(rows.transpose(1, 0, 2), apparent[:, None])
        longitude = np.arctan2(y, x)
        longitude += job_frames[1]
        np.degrees(longitude, out=longitude)
        np.mod(longitude, 360.0, out=longitude)
        return _Pass(apparent, longitude, velocity, earth[3:], rows,
                     self._nodes(whole, fraction, frames, state, layout), frames)

    @staticmethod
    def _deflected(vector: FloatArray, distance: FloatArray, light_time: FloatArray,
                   earth: FloatArray, state: FloatArray, layout: _Layout) -> FloatArray:
        """Light deflection by the Sun, Jupiter and Saturn, each computed on the
        undeflected direction (their cross terms are below a nanoarcsecond)."""
        bent = layout.bent
        if not bent.shape[0]:
            return vector
        position = vector[:, bent]
        light_time = light_time[bent]
        earth = earth[:, bent]
        direction = position / distance[bent]
        deflectors = state[:, layout.deflectors]  # (6, 3 deflectors, B)
        d_position, d_velocity = deflectors[:3], deflectors[3:]
        # When the light passed closest to the deflector (days before now) ...
        closest = _dot(direction[:, None], d_position - earth[:, None])
        closest /= C_KM_PER_DAY
        np.maximum(closest, 0.0, out=closest)
        np.minimum(closest, light_time, out=closest)
        # ... and where the deflector was then (its path is straight over hours).
        observer_from_deflector = earth[:, None] - (d_position - closest * d_velocity)
        bend = _bending(position[:, None], observer_from_deflector, _RECIPROCAL_MASSES,
                        distance[bent])
        # The Sun's own light is not deflected: by the Sun it is collinear (NOVAS and
        # Skyfield set that term to zero too) and by Jupiter or Saturn, which lie beyond
        # it, the bending is under a microarcsecond.
        total = bend[:, 0] + bend[:, 1]
        total += bend[:, 2]
        total += position
        vector[:, bent] = total
        return vector

    @staticmethod
    def _nodes(whole: FloatArray, fraction: FloatArray, frames: FloatArray,
               state: FloatArray, layout: _Layout) -> FloatArray:
        """The node rows of the pass: true nodes from the Moon's geometric state, mean
        nodes from the polynomial."""
        out = np.empty(layout.node_instant.shape[0])
        for _, _, n, first, node in layout.groups:
            if node is None:
                continue
            part = slice(first, first + n)
            at = layout.node_instant[part]
            node_frames = frames[:, at]
            if node == "mean":
                t = centuries(whole[at], fraction[at])
                omega = (125.0445479 - 1934.1362891 * t + 0.0020754 * t**2 + t**3 / 467441.0
                         - t**4 / 60616000.0)
                out[part] = np.mod(omega + np.degrees(node_frames[1]), 360.0)
                continue
            moon, earth = layout.node_moon[:, part]
            s = state[:, moon] - state[:, earth]  # the Moon's geocentric state
            # The orbit's pole in ICRS; rotations keep cross products, so rotate it last.
            pole = np.empty((3, n))
            np.subtract(s[1] * s[5], s[2] * s[4], out=pole[0])
            np.subtract(s[2] * s[3], s[0] * s[5], out=pole[1])
            np.subtract(s[0] * s[4], s[1] * s[3], out=pole[2])
            x, y = _dot(node_frames[2:].reshape(2, 3, -1).transpose(1, 0, 2), pole[:, None])
            np.negative(y, out=y)
            angle = np.arctan2(x, y)
            angle += node_frames[1]
            np.degrees(angle, out=angle)
            out[part] = np.mod(angle, 360.0)
        return out

    def _bodies(self, tt: TT, bodies: tuple[str, ...], node: NodeKind | None) -> _Pass:
        whole = np.atleast_1d(np.asarray(tt.whole, dtype=np.float64))
        fraction = np.atleast_1d(np.asarray(tt.fraction, dtype=np.float64))
        whole, fraction = np.broadcast_arrays(whole, fraction)
        return self._pass(whole, fraction, ((bodies, whole.shape[0], node),))

    def apparent(self, tt: TT) -> FloatArray:
        """Apparent geocentric positions (GCRS, km) of the ten bodies of CHAINS, in that
        order: shape (3, 10, N)."""
        done = self._bodies(tt, TARGETS, None)
        return done.apparent.reshape(3, len(TARGETS), -1)

    def sun_longitude(self, tt: TT) -> FloatArray:
        """Apparent longitude of the Sun, degrees in [0, 360), shape (N,)."""
        return self._bodies(tt, ("sun",), None).longitude

    def sun_longitude_and_rate(self, tt: TT) -> tuple[FloatArray, FloatArray]:
        """Apparent longitude of the Sun (degrees in [0, 360)) and its rate (degrees per
        day): the geometric geocentric rate plus the general precession in longitude,
        good to about 1e-4 of itself (nutation and aberration change slowly)."""
        done = self._bodies(tt, ("sun",), None)
        position, rows = done.apparent, done.rows
        motion = done.velocity - done.earth_velocity
        x, y = _dot(rows[0], position), _dot(rows[1], position)
        vx, vy = _dot(rows[0], motion), _dot(rows[1], motion)
        rate: FloatArray = np.degrees((x * vy - y * vx) / (x * x + y * y)) + PRECESSION_RATE
        return done.longitude, rate

    def solve_design(self, birth: TT, birth_sun: FloatArray) -> TT:
        """Design instants: when the apparent Sun stood ``SOLAR_ARC_DEG`` behind
        ``birth_sun``. The Sun is evaluated at the three instants ``DESIGN_SAMPLES``
        around the low-precision guess (:func:`design_guess`) and the parabola through them
        solved: each chart's answer depends on its own birth only."""
        whole = np.atleast_1d(np.asarray(birth.whole, dtype=np.float64))
        fraction = np.atleast_1d(np.asarray(birth.fraction, dtype=np.float64))
        offsets = _sample_offsets(whole, fraction)
        n = whole.shape[0]
        done = self._pass(np.tile(whole, len(DESIGN_SAMPLES)), (fraction + offsets).ravel(),
                          ((("sun",), len(DESIGN_SAMPLES) * n, None),))
        sun = np.atleast_1d(np.asarray(birth_sun, dtype=np.float64))
        return TT(whole, fraction + _design_offset(sun, offsets, done.longitude)[0])

    def epochs(self, birth: TT, node: NodeKind) -> tuple[FloatArray, TT, FloatArray]:
        """Both epochs of N charts in two passes: longitudes of ENGINE_BODIES at birth
        (11, N), the design instants, and the longitudes at design (11, N). The first
        pass computes the bodies at birth and the Sun at the design samples together."""
        if node not in ("true", "mean"):
            raise InvalidInstantError(f"node must be 'true' or 'mean', not {node!r}")
        whole = np.atleast_1d(np.asarray(birth.whole, dtype=np.float64))
        fraction = np.atleast_1d(np.asarray(birth.fraction, dtype=np.float64))
        n, k = whole.shape[0], len(DESIGN_SAMPLES)
        offsets = _sample_offsets(whole, fraction)
        # Instants: the births, then the samples (sample-major).
        wholes = np.empty((k + 1, n))
        wholes[...] = whole
        fractions = np.empty((k + 1, n))
        fractions[0] = fraction
        np.add(fraction, offsets, out=fractions[1:])
        first = self._pass(wholes.reshape(-1), fractions.reshape(-1),
                           ((TARGETS, n, node), (("sun",), k * n, None)))
        bodies = len(TARGETS) * n
        birth_rows = _rows(first, n)
        design_offset, weights = _design_offset(birth_rows[0], offsets,
                                                first.longitude[bodies:])
        design = TT(whole, fraction + design_offset)
        # The frames at design: the parabola through their values at the samples (the
        # nutation's fastest terms leave under 1e-7 arcsecond of error over 0.05 day).
        sampled = first.frames[:, n:].reshape(-1, k, n)
        frames = weights[0] * sampled[:, 0]
        frames += weights[1] * sampled[:, 1]
        frames += weights[2] * sampled[:, 2]
        second = self._pass(whole, design.fraction, ((TARGETS, n, node),), frames)
        return birth_rows, design, _rows(second, n)

    def true_node_longitude(self, tt: TT) -> FloatArray:
        """Osculating ascending node of the geocentric lunar orbit, true ecliptic of date."""
        return self._bodies(tt, (), "true").node

    def mean_node_longitude(self, tt: TT) -> FloatArray:
        """Mean ascending node (Meeus 47.7) on the true equinox of date (IAU 2000B)."""
        return self._bodies(tt, (), "mean").node

    def longitudes(self, tt: TT, node: NodeKind) -> FloatArray:
        """Apparent longitudes of ENGINE_BODIES, degrees in [0, 360), shape (11, N)."""
        if node not in ("true", "mean"):
            raise InvalidInstantError(f"node must be 'true' or 'mean', not {node!r}")
        done = self._bodies(tt, TARGETS, node)
        return _rows(done, done.node.shape[0])


def _rows(done: _Pass, n: int) -> FloatArray:
    """The first group's ten bodies and node as (11, N)."""
    out = np.empty((len(TARGETS) + 1, n))
    out[:-1] = done.longitude[:len(TARGETS) * n].reshape(len(TARGETS), n)
    out[-1] = done.node[:n]
    return out


def _sample_offsets(whole: FloatArray, fraction: FloatArray) -> FloatArray:
    """(3, N) offsets (days) from birth of the Sun samples for the design instant."""
    guess = design_guess(whole, fraction)
    out: FloatArray = guess + np.array(DESIGN_SAMPLES)[:, None]
    return out


#: Coefficients of the parabola through the samples: ``c = _PARABOLA @ e`` for values
#: ``e`` at u = -1.5, -0.5, 0.5, 1.5 (u in units of the spacing, 0 at the guess).
_PARABOLA: FloatArray = np.asarray(np.linalg.inv(
    np.vander(np.array(DESIGN_SAMPLES) / _SAMPLE_SPACING, 3, increasing=True)), dtype=np.float64)


_NODES = (np.array(DESIGN_SAMPLES) / _SAMPLE_SPACING)[:, None]
#: Denominators of the Lagrange weights at _NODES.
_LAGRANGE = 1.0 / np.array([
    np.prod([a - b for b in _NODES[:, 0] if b != a]) for a in _NODES[:, 0]])[:, None]


def _frames(whole: FloatArray, fraction: FloatArray) -> FloatArray:
    """What every position at a set of TT instants shares, as rows of one (8, N) array:
    TDB - TT (days), the nutation in longitude (radians), and the six entries of the
    rotation to the mean ecliptic of date (``mean_ecliptic_rows``, row-major)."""
    delta = tdb_minus_tt_days(whole, fraction)
    out = np.empty((8, whole.shape[0]))
    out[0] = delta
    out[1] = nutation_longitude(centuries(whole, fraction))
    out[2:] = mean_ecliptic_rows(centuries(whole, fraction + delta)).reshape(6, -1)
    return out


_PARABOLA_COLUMNS = tuple(np.ascontiguousarray(_PARABOLA[:, k, None]) for k in range(3))


def _design_offset(birth_sun: FloatArray, offsets: FloatArray,
                   samples: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Offsets (days) from birth to the design instants, from the birth Sun (N,), the
    sample offsets (3, N) and the Sun's longitudes there (3 * N,); and the weights
    (3, N) of the samples in the parabola through them at the design instants."""
    target = np.mod(birth_sun - SOLAR_ARC_DEG, 360.0)
    error = np.mod(samples.reshape(offsets.shape) - target + 180.0, 360.0) - 180.0
    w0, w1, w2 = _PARABOLA_COLUMNS
    c = w0 * error[0]
    c += w1 * error[1]
    c += w2 * error[2]
    u = -c[0] / c[1]
    for _ in range(_PARABOLA_STEPS):
        u = u - ((c[2] * u + c[1]) * u + c[0]) / (2.0 * c[2] * u + c[1])
    if not np.all(np.abs(u) < 3.0):
        raise EphemerisError("the design instant did not converge")
    d = u - _NODES
    weights = np.empty((3, u.shape[0]))
    np.multiply(d[1], d[2], out=weights[0])
    np.multiply(d[0], d[2], out=weights[1])
    np.multiply(d[0], d[1], out=weights[2])
    weights *= _LAGRANGE
    out: FloatArray = offsets[1] + u * _SAMPLE_SPACING
    return out, weights


def _low_precision_sun(days: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The Sun's apparent longitude by the Astronomical Almanac's low-precision formula
    (about 0.01 degree) and its rate, degrees and degrees per day, ``days`` from J2000."""
    anomaly = np.radians(357.528 + 0.9856003 * days)
    sine, cosine = np.sin(anomaly), np.cos(anomaly)
    longitude = 280.460 + 0.9856474 * days + (1.915 + 0.040 * cosine) * sine
    rate = 0.9856474 + np.radians(0.9856003) * (
        1.915 * cosine + 0.040 * (2.0 * cosine * cosine - 1.0))
    return longitude, rate


def design_guess(whole: FloatArray, fraction: FloatArray) -> FloatArray:
    """Offsets (days, negative) to the design instants by the low-precision solar theory:
    where its longitude is ``SOLAR_ARC_DEG`` behind its own birth value (one Newton
    step from the mean motion; within 0.022 day of the true design instant over
    1800-2200, inside the span of ``DESIGN_SAMPLES``)."""
    birth_days = (whole - 2451545.0) + fraction
    birth_longitude, _ = _low_precision_sun(birth_days)
    offset = np.full(birth_days.shape, -SOLAR_ARC_DEG / 0.9856474)
    longitude, rate = _low_precision_sun(birth_days + offset)
    offset -= (longitude - birth_longitude + SOLAR_ARC_DEG) / rate
    return offset
