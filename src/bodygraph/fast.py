"""The fast engine: apparent geocentric longitudes straight from the kernel's Chebyshev
coefficients, for N instants at once.

The physics is the same as the Skyfield reference (:class:`bodygraph.astronomy.SkyfieldEngine`):

1. barycentric positions from the SPK type 2 segments at TDB (``fast_chebyshev``);
2. light time, solved on the target's straight path and then iterated on the kernel
   until it changes by less than 1e-9 day;
3. gravitational light deflection by the Sun, Jupiter and Saturn (the deflector taken
   where it was when the light passed closest to it) of every body but the Sun;
4. annual aberration with the relativistic formula and the Earth's barycentric velocity;
5. frame bias, IAU 2006 precession and IAU 2000B nutation to the true ecliptic and
   equinox of date (``fast_frames``);
6. the true (osculating) lunar node from the Moon's geometric geocentric state vector,
   or the mean node (the Meeus polynomial of ``astronomy.mean_node_longitude``) plus
   the nutation in longitude.

It also solves for design instants itself (:meth:`FastEngine.solve_design`: a
low-precision solar theory for the start, then Newton steps with the Sun's rate), in
about two evaluations of the Sun instead of the generic solver's five.

Vectors are (3, N) arrays in km (velocities km/day), time last. The engine holds only
immutable arrays, so one instance may serve many threads.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from bodygraph.chart import NodeKind
from bodygraph.errors import EphemerisError, InvalidInstantError
from bodygraph.fast_chebyshev import StackedSegments, load_segments
from bodygraph.fast_frames import (
    centuries,
    mean_ecliptic_rows,
    nutation_longitude,
    tdb_minus_tt_days,
)
from bodygraph.timescale import TT

FloatArray = npt.NDArray[np.float64]

C_KM_PER_S = 299792.458
C_KM_PER_DAY = C_KM_PER_S * 86400.0
#: Heliocentric gravitational constant (m^3/s^2) and the deflectors' reciprocal masses.
GM_SUN = 1.32712440017987e20
DEFLECTORS: tuple[tuple[str, float], ...] = (("sun", 1.0), ("jupiter", 1047.3486),
                                             ("saturn", 3497.898))
LIGHT_TIME_TOLERANCE_DAYS = 1e-9  # the position then moves by under a millimetre
LIGHT_TIME_MAX_STEPS = 10
#: Cosine beyond which a deflector and the target are taken as one line (as in NOVAS).
_COLLINEAR = 0.99999999999

SOLAR_ARC_DEG = 88.0
#: General precession in longitude (IAU 2006, 5028.796"/century), degrees per day.
PRECESSION_RATE = 5028.796195 / 3600.0 / 36525.0
#: Newton steps stop below this; with the rate good to 1e-4, the instant is then good
#: to about 1e-10 day (10 microseconds; the requirement is 0.01 s).
DESIGN_STEP_DAYS = 2e-6
DESIGN_MAX_STEPS = 12

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
_PAIRS: tuple[tuple[int, int], ...] = tuple(
    sorted({pair for chain in (EARTH, *CHAINS.values()) for pair in chain})
)


def _norm(v: FloatArray) -> FloatArray:
    out: FloatArray = np.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    return out


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    out: FloatArray = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    return out


def deflect(position: FloatArray, observer_from_deflector: FloatArray,
            reciprocal_mass: float) -> FloatArray:
    """Gravitational deflection of light from ``position`` (observer -> target, km)
    by a mass at ``observer_from_deflector`` (deflector -> observer, km): the
    post-Newtonian formula of the IERS Conventions; returns the corrected vector."""
    to_target = position + observer_from_deflector
    p_mag = _norm(position)
    q_mag = _norm(to_target)
    e_mag = _norm(observer_from_deflector)
    p_hat = position / p_mag
    q_hat = to_target / q_mag
    e_hat = observer_from_deflector / e_mag
    p_dot_q = _dot(p_hat, q_hat)
    q_dot_e = _dot(q_hat, e_hat)
    e_dot_p = _dot(e_hat, p_hat)
    factor = 2.0 * GM_SUN / ((C_KM_PER_S * 1000.0) ** 2 * e_mag * 1000.0 * reciprocal_mass)
    factor = np.where(np.abs(e_dot_p) <= _COLLINEAR, factor, 0.0) * p_mag / (1.0 + q_dot_e)
    out: FloatArray = position + factor * (p_dot_q * e_hat - e_dot_p * q_hat)
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
    out: FloatArray = (inverse_gamma * position + q * velocity) / (1.0 + p)
    return out


class _Instants:
    """What every position at a set of instants shares: TDB, the rotation to the mean
    ecliptic of date and the nutation in longitude."""

    __slots__ = ("dpsi", "rows", "tdb_fraction", "tt_fraction", "whole")

    def __init__(self, engine: FastEngine, tt: TT) -> None:
        whole = np.atleast_1d(np.asarray(tt.whole, dtype=np.float64))
        fraction = np.atleast_1d(np.asarray(tt.fraction, dtype=np.float64))
        self.whole = whole
        self.tt_fraction = fraction
        self.tdb_fraction = fraction + tdb_minus_tt_days(whole, fraction)
        engine.check_coverage(whole, self.tdb_fraction)
        self.rows = mean_ecliptic_rows(centuries(whole, self.tdb_fraction))
        self.dpsi = nutation_longitude(centuries(whole, fraction))

    @property
    def size(self) -> int:
        """N."""
        return int(self.whole.shape[0])

    def longitude(self, vectors: FloatArray) -> FloatArray:
        """Longitudes in the true ecliptic of date, degrees in [0, 360), of ICRS vectors
        (3, ..., N) -> (..., N)."""
        x = _dot(self.rows[0], vectors)
        y = _dot(self.rows[1], vectors)
        out: FloatArray = np.mod(np.degrees(np.arctan2(y, x) + self.dpsi), 360.0)
        return out


class _Plan:
    """Chains of segments to evaluate together: the distinct segments (each evaluated
    once per instant) and which of them sum to which chain."""

    def __init__(self, stack: StackedSegments, names: tuple[str, ...], *, shared: bool) -> None:
        self.names = names
        self.index = {name: i for i, name in enumerate(names)}
        chains = [ALL_CHAINS[name] for name in names]
        present = [[pair for pair in chain if pair in stack.pairs] for chain in chains]
        entries: list[tuple[tuple[int, int], int | None]]
        if shared:
            pairs = sorted({pair for chain in present for pair in chain})
            entries = [(pair, None) for pair in pairs]
        else:
            entries = [(pair, c) for c, chain in enumerate(present) for pair in chain]
        self.which = np.array([stack.index_of(pair) for pair, _ in entries], dtype=np.intp)
        self.owner = np.array([-1 if c is None else c for _, c in entries], dtype=np.intp)
        self.summing = np.zeros((len(chains), len(entries)))
        for column, (pair, owner) in enumerate(entries):
            for c, chain in enumerate(present):
                if pair in chain and owner in (None, c):
                    self.summing[c, column] = 1.0
        self.columns = {pair: column for column, (pair, _) in enumerate(entries)}


class FastEngine:
    """Vectorized :class:`~bodygraph.astronomy.PositionEngine` over a JPL type 2 kernel."""

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
        targets = tuple(CHAINS)
        self._all_now = _Plan(self.stack, ("earth", *targets), shared=True)
        self._targets_then = _Plan(self.stack, targets, shared=False)
        self._sun_now = _Plan(self.stack, ("earth", "sun"), shared=True)
        self._sun_then = _Plan(self.stack, ("sun",), shared=False)

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

    def _evaluate(
        self, plan: _Plan, at: _Instants, shift: FloatArray | None = None,
        *, velocity: bool = False,
    ) -> tuple[FloatArray, FloatArray | None, FloatArray, FloatArray | None]:
        """Chain sums (3, C, N) and the distinct segments (3, S, N): positions (km) and,
        if asked, velocities (km/day); ``shift`` (C, N) days are taken off each chain's
        instants."""
        n, s = at.size, plan.which.shape[0]
        fraction = np.broadcast_to(at.tdb_fraction, (s, n))
        if shift is not None:
            fraction = fraction - shift[plan.owner]
        p, v = self.stack.evaluate(
            np.repeat(plan.which, n), np.tile(at.whole, s), fraction.ravel(), velocity=velocity
        )
        raw_p = p.reshape(3, s, n)
        raw_v = None if v is None else v.reshape(3, s, n)
        chains_p: FloatArray = np.einsum("cs,ksn->kcn", plan.summing, raw_p)
        chains_v = None if raw_v is None else np.einsum("cs,ksn->kcn", plan.summing, raw_v)
        return chains_p, chains_v, raw_p, raw_v

    def _apparent(self, at: _Instants, now: _Plan, then: _Plan) -> tuple[
        FloatArray, FloatArray, FloatArray, FloatArray
    ]:
        """Apparent GCRS vectors (3, T, N) of the targets of ``then``; ``now`` evaluates
        the Earth (chain 0) and every deflector at the instants. Returns also the chain
        velocities of ``now`` and its raw segment states (positions, velocities)."""
        p, v, raw_p, raw_v = self._evaluate(now, at, velocity=True)
        assert v is not None and raw_v is not None
        earth, earth_velocity = p[:, 0], v[:, 0]
        index = now.index
        targets = then.names
        position = p[:, [index[t] for t in targets]]
        target_velocity = v[:, [index[t] for t in targets]]
        vector, light_time = self._light_time(at, then, earth, position, target_velocity)
        direction = vector / _norm(vector)
        light_time_now = _norm(vector) / C_KM_PER_DAY
        # The Sun's own light is not deflected: by the Sun it is collinear (NOVAS and
        # Skyfield set that term to zero too) and by Jupiter or Saturn, which lie beyond
        # it, the bending is under a microarcsecond.
        bent = np.array([name != "sun" for name in targets])[:, None]
        for name, reciprocal_mass in DEFLECTORS if np.any(bent) else ():
            d_position = p[:, index[name]][:, None, :]
            d_velocity = v[:, index[name]][:, None, :]
            # When the light passed closest to the deflector (days before now) ...
            closest = np.clip(_dot(direction, d_position - earth[:, None, :]) / C_KM_PER_DAY,
                              0.0, light_time_now)
            # ... and where the deflector was then (its path is straight over hours).
            observer_from_deflector = earth[:, None, :] - (d_position - closest * d_velocity)
            vector = np.where(bent, deflect(vector, observer_from_deflector, reciprocal_mass),
                              vector)
        return aberrate(vector, earth_velocity[:, None, :], light_time), v, raw_p, raw_v

    def _light_time(
        self, at: _Instants, then: _Plan, earth: FloatArray, position: FloatArray,
        velocity: FloatArray,
    ) -> tuple[FloatArray, FloatArray]:
        """Light-time corrected geometric vectors Earth -> targets (km, (3, T, N)) and the
        light times (days, (T, N)).

        The light time first solves ``|X - V lt - E| = c lt`` exactly on each target's
        straight path through its state (X, V) at the instant; the target's curvature over
        the light time (at most metres) makes that microseconds off, so one evaluation
        ``X(t - lt)`` gives the position, and fixed-point steps follow until the light
        time moves by less than ``LIGHT_TIME_TOLERANCE_DAYS``.
        """
        offset = position - earth[:, None, :]
        d_dot_v = _dot(offset, velocity)
        a = C_KM_PER_DAY**2 - _dot(velocity, velocity)
        light_time = (np.sqrt(d_dot_v**2 + a * _dot(offset, offset)) - d_dot_v) / a
        vector = np.zeros_like(offset)
        moving = np.ones(light_time.shape, dtype=bool)
        for _ in range(LIGHT_TIME_MAX_STEPS):
            then_p, _, _, _ = self._evaluate(then, at, light_time)
            # Only targets still moving take the new values, so each result depends on
            # its own instant alone, never on what else is computed with it.
            vector = np.where(moving, then_p - earth[:, None, :], vector)
            fresh = _norm(vector) / C_KM_PER_DAY
            step = np.abs(fresh - light_time)
            light_time = np.where(moving, fresh, light_time)
            moving &= step >= LIGHT_TIME_TOLERANCE_DAYS
            if not moving.any():
                return vector, light_time
        raise EphemerisError("light time failed to converge")

    def apparent(self, tt: TT) -> FloatArray:
        """Apparent geocentric positions (GCRS, km) of the ten bodies of CHAINS, in that
        order: shape (3, 10, N)."""
        at = _Instants(self, tt)
        return self._apparent(at, self._all_now, self._targets_then)[0]

    def sun_longitude(self, tt: TT) -> FloatArray:
        """Apparent longitude of the Sun, degrees in [0, 360), shape (N,)."""
        return self.sun_longitude_and_rate(tt)[0]

    def sun_longitude_and_rate(self, tt: TT) -> tuple[FloatArray, FloatArray]:
        """Apparent longitude of the Sun (degrees in [0, 360)) and its rate (degrees per
        day): the geometric geocentric rate plus the general precession in longitude,
        good to about 1e-4 of itself (nutation and aberration change slowly)."""
        at = _Instants(self, tt)
        vectors, velocities, _, _ = self._apparent(at, self._sun_now, self._sun_then)
        longitude: FloatArray = at.longitude(vectors)[0]
        position = vectors[:, 0]
        motion = velocities[:, self._sun_now.index["sun"]] - velocities[:, 0]
        x, y = _dot(at.rows[0], position), _dot(at.rows[1], position)
        vx, vy = _dot(at.rows[0], motion), _dot(at.rows[1], motion)
        rate: FloatArray = np.degrees((x * vy - y * vx) / (x * x + y * y)) + PRECESSION_RATE
        return longitude, rate

    def solve_design(self, birth: TT, birth_sun: FloatArray) -> TT:
        """Design instants: when the apparent Sun stood ``SOLAR_ARC_DEG`` behind
        ``birth_sun``. Starts from a low-precision solar theory (within about 0.02 day)
        and takes Newton steps with the Sun's rate, each chart until its own step is
        below ``DESIGN_STEP_DAYS``: usually two evaluations. Each chart's answer depends
        on its own birth only (charts that are done drop out)."""
        target = np.mod(np.asarray(birth_sun, dtype=np.float64) - SOLAR_ARC_DEG, 360.0)
        whole = np.atleast_1d(np.asarray(birth.whole, dtype=np.float64))
        fraction = np.atleast_1d(np.asarray(birth.fraction, dtype=np.float64))
        offset = design_guess(whole, fraction)
        todo = np.arange(whole.shape[0])
        for _ in range(DESIGN_MAX_STEPS):
            longitude, rate = self.sun_longitude_and_rate(
                TT(whole[todo], fraction[todo] + offset[todo]))
            step = -(np.mod(longitude - target[todo] + 180.0, 360.0) - 180.0) / rate
            offset[todo] += step
            todo = todo[np.abs(step) >= DESIGN_STEP_DAYS]
            if todo.size == 0:
                return TT(whole, fraction + offset)
        raise EphemerisError("the design instant did not converge")

    def _true_node(self, at: _Instants, raw_p: FloatArray, raw_v: FloatArray) -> FloatArray:
        moon, earth = self._all_now.columns[(3, 301)], self._all_now.columns[(3, 399)]
        # The orbit's pole in ICRS; rotations keep cross products, so rotate it last.
        pole = np.cross(raw_p[:, moon] - raw_p[:, earth], raw_v[:, moon] - raw_v[:, earth],
                        axis=0)
        x = _dot(at.rows[0], pole)
        y = _dot(at.rows[1], pole)
        out: FloatArray = np.mod(np.degrees(np.arctan2(x, -y) + at.dpsi), 360.0)
        return out

    def true_node_longitude(self, tt: TT) -> FloatArray:
        """Osculating ascending node of the geocentric lunar orbit, true ecliptic of date."""
        at = _Instants(self, tt)
        _, _, raw_p, raw_v = self._evaluate(self._all_now, at, velocity=True)
        assert raw_v is not None
        return self._true_node(at, raw_p, raw_v)

    def mean_node_longitude(self, tt: TT) -> FloatArray:
        """Mean ascending node (Meeus 47.7) on the true equinox of date (IAU 2000B)."""
        return _mean_node(_Instants(self, tt))

    def longitudes(self, tt: TT, node: NodeKind) -> FloatArray:
        """Apparent longitudes of ENGINE_BODIES, degrees in [0, 360), shape (11, N)."""
        if node not in ("true", "mean"):
            raise InvalidInstantError(f"node must be 'true' or 'mean', not {node!r}")
        at = _Instants(self, tt)
        vectors, _, raw_p, raw_v = self._apparent(at, self._all_now, self._targets_then)
        out = np.empty((len(CHAINS) + 1, at.size))
        out[:-1] = at.longitude(vectors)
        out[-1] = self._true_node(at, raw_p, raw_v) if node == "true" else _mean_node(at)
        return out


def _mean_node(at: _Instants) -> FloatArray:
    t = centuries(at.whole, at.tt_fraction)
    omega = (125.0445479 - 1934.1362891 * t + 0.0020754 * t**2 + t**3 / 467441.0
             - t**4 / 60616000.0)
    out: FloatArray = np.mod(omega + np.degrees(at.dpsi), 360.0)
    return out


def _low_precision_sun(days: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The Sun's apparent longitude by the Astronomical Almanac's low-precision formula
    (about 0.01 degree) and its rate, degrees and degrees per day, ``days`` from J2000."""
    mean_longitude = 280.460 + 0.9856474 * days
    anomaly = np.radians(357.528 + 0.9856003 * days)
    longitude = mean_longitude + 1.915 * np.sin(anomaly) + 0.020 * np.sin(2.0 * anomaly)
    rate = 0.9856474 + np.radians(0.9856003) * (
        1.915 * np.cos(anomaly) + 0.040 * np.cos(2.0 * anomaly))
    return longitude, rate


def design_guess(whole: FloatArray, fraction: FloatArray) -> FloatArray:
    """Offsets (days, negative) to the design instants by the low-precision solar theory:
    where its longitude is ``SOLAR_ARC_DEG`` behind its own birth value."""
    birth_days = (whole - 2451545.0) + fraction
    birth_longitude, _ = _low_precision_sun(birth_days)
    offset = np.full(birth_days.shape, -SOLAR_ARC_DEG / 0.9856474)
    for _ in range(4):
        longitude, rate = _low_precision_sun(birth_days + offset)
        offset -= (longitude - birth_longitude + SOLAR_ARC_DEG) / rate
    return offset
