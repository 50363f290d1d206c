"""The apparent place of the bodies at one instant, as kernels (plain Python, and compiled:
:mod:`bodygraph.ephemeris.fast.jit`): the physics of the fast engine (see
:mod:`bodygraph.ephemeris.fast.engine` for what each step does and the interface).

Every function takes the kernel's coefficients (``coefficients[row]``, see
:mod:`bodygraph.ephemeris.fast.chebyshev`), its segment table, the segment chains of
:data:`bodygraph.ephemeris.fast.engine.CHAINS` as indices into them, and the frames of the
instant (:func:`frames`), and writes into arrays that the caller allocates. Each instant's
numbers come from that instant alone, in a fixed order of operations, so a chart is the
same bit for bit whatever else is computed with it.
"""

from __future__ import annotations

import math

import numpy as np

from bodygraph._typing import FloatArray, IntArray
from bodygraph.ephemeris.engine import mean_node_of_mean_equinox
from bodygraph.ephemeris.fast.chebyshev import segment_state
from bodygraph.ephemeris.fast.frames import (
    DAYS_PER_CENTURY,
    J2000,
    mean_ecliptic_rows,
    nutation,
    tdb_minus_tt,
)
from bodygraph.ephemeris.fast.jit import kernel

C_KM_PER_S = 299792.458
C_KM_PER_DAY = C_KM_PER_S * 86400.0
#: Heliocentric gravitational constant (m^3/s^2).
GM_SUN = 1.32712440017987e20
#: 2 GM_sun / c^2 in km (the factor of the deflection formula, per unit of distance).
SCHWARZSCHILD_KM = 2.0 * GM_SUN / (C_KM_PER_S * 1000.0) ** 2 / 1000.0
#: Rows of the chains array: the ten bodies (in ``bodygraph.ephemeris.fast.engine.TARGETS``
#: order), then the Earth, then the Moon's state pair (Moon and Earth about their barycenter).
EARTH, MOON_STATE = 10, 11
#: The deflectors (Sun, Jupiter, Saturn): their rows among the bodies and reciprocal masses.
DEFLECTOR_ROWS = np.array([0, 5, 6], dtype=np.int64)
RECIPROCAL_MASSES = np.array([1.0, 1047.3486, 3497.898])
#: Cosine beyond which a deflector and the target are taken as one line (as in NOVAS).
COLLINEAR = 0.99999999999

_mean_node = kernel(mean_node_of_mean_equinox)

#: Node kinds as the kernels take them.
NO_NODE, TRUE_NODE, MEAN_NODE = 0, 1, 2
#: Values of ``status``.
OK, OUTSIDE, NO_DESIGN = 0, 1, 2
#: Entries of a frames vector: TDB - TT (days), nutation in longitude (radians), then the
#: two rows of the rotation to the mean ecliptic of date.
FRAME_SIZE = 8


@kernel
def _dot(a: FloatArray, b: FloatArray) -> float:
    out: float = (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]
    return out


@kernel
def _wrap360(degrees: float) -> float:
    """Degrees -> [0, 360) (a tiny negative angle would otherwise round to 360)."""
    out: float = degrees % 360.0
    return out - 360.0 if out >= 360.0 else out


@kernel
def _degrees360(radians: float) -> float:
    """Radians -> degrees in [0, 360)."""
    return _wrap360(math.degrees(radians))


@kernel
def frames(whole: float, fraction: float, table: FloatArray, out: FloatArray) -> None:
    """What every position at a TT instant shares, into ``out`` (FRAME_SIZE,)."""
    delta = tdb_minus_tt(whole, fraction)
    out[0] = delta
    out[1] = nutation(((whole - J2000) + fraction) / DAYS_PER_CENTURY, table)
    mean_ecliptic_rows(((whole - J2000) + (fraction + delta)) / DAYS_PER_CENTURY, out[2:])


@kernel
def covered(span: FloatArray, whole: float, tdb: float) -> bool:
    """Whether a TDB instant lies in the kernel with a day's margin for light time."""
    days = (whole - span[0]) + tdb
    inside: bool = days >= 1.0 and days <= span[1] - span[0]
    return inside


@kernel
def _chain(state: FloatArray, chain: IntArray, out: FloatArray) -> None:
    """The state (6,) of a chain of one or two segments (``-1``: none)."""
    for j in range(6):
        out[j] = state[chain[0], j]
    if chain[1] >= 0:
        for j in range(6):
            out[j] += state[chain[1], j]


@kernel
def _bend(p: FloatArray, p_mag: float, e0: float, e1: float, e2: float,
          reciprocal_mass: float, out: FloatArray) -> None:
    """Add to ``out`` the change that gravitational deflection makes to ``p`` (observer ->
    target, km; ``p_mag`` its length) by a mass at ``e`` (deflector -> observer, km): the
    post-Newtonian formula of the IERS Conventions."""
    q0, q1, q2 = p[0] + e0, p[1] + e1, p[2] + e2
    q_mag = math.sqrt((q0 * q0 + q1 * q1) + q2 * q2)
    e_mag = math.sqrt((e0 * e0 + e1 * e1) + e2 * e2)
    p_dot_q = ((p[0] * q0 + p[1] * q1) + p[2] * q2) / (p_mag * q_mag)
    q_dot_e = ((q0 * e0 + q1 * e1) + q2 * e2) / (q_mag * e_mag)
    e_dot_p = ((e0 * p[0] + e1 * p[1]) + e2 * p[2]) / (e_mag * p_mag)
    if abs(e_dot_p) > COLLINEAR:
        return
    factor = SCHWARZSCHILD_KM / (e_mag * reciprocal_mass) * p_mag / (1.0 + q_dot_e)
    a, b = p_dot_q / e_mag, e_dot_p / q_mag
    out[0] += factor * (a * e0 - b * q0)
    out[1] += factor * (a * e1 - b * q1)
    out[2] += factor * (a * e2 - b * q2)


@kernel
def _aberrate(p: FloatArray, velocity: FloatArray, light_time: float,
              out: FloatArray) -> None:
    """Annual aberration (relativistic formula): ``p`` seen by an observer moving at
    ``velocity`` (km/day), the light having travelled ``light_time`` days."""
    distance = light_time * C_KM_PER_DAY
    speed = math.sqrt(_dot(velocity, velocity))
    beta = speed / C_KM_PER_DAY
    cos_d = _dot(p, velocity) / (distance * speed)
    inverse_gamma = math.sqrt(1.0 - beta * beta)
    b = beta * cos_d
    q = (1.0 + b / (1.0 + inverse_gamma)) * light_time
    for j in range(3):
        out[j] = (inverse_gamma * p[j] + q * velocity[j]) / (1.0 + b)


@kernel
def apparent(coefficients: FloatArray, segments: FloatArray, chains: IntArray, body: int,
             whole: float, tdb: float, state: FloatArray, earth: FloatArray,
             scratch: FloatArray, out: FloatArray) -> None:
    """The apparent geocentric vector (GCRS, km) of ``body`` (a row of ``chains``) at TDB
    ``whole + tdb`` into ``out`` (3,), from the segments' states there (``state``, (S, 6))
    and the Earth's (``earth``, (6,)); ``scratch`` is (4, 6) of work space."""
    target, retarded, geometric = scratch[0], scratch[1], scratch[2]
    _chain(state, chains[body], target)
    # Light time on the straight path X + V s: |X - V lt - E| = c lt, exactly; then the
    # kernel at the retarded instant.
    o0, o1, o2 = target[0] - earth[0], target[1] - earth[1], target[2] - earth[2]
    v0, v1, v2 = target[3], target[4], target[5]
    d_dot_v = (o0 * v0 + o1 * v1) + o2 * v2
    speed = C_KM_PER_DAY * C_KM_PER_DAY - ((v0 * v0 + v1 * v1) + v2 * v2)
    d_dot_d = (o0 * o0 + o1 * o1) + o2 * o2
    light_time = (math.sqrt(d_dot_v * d_dot_v + speed * d_dot_d) - d_dot_v) / speed
    segment_state(coefficients, segments, chains[body, 0], whole, tdb - light_time,
                  retarded, False)
    if chains[body, 1] >= 0:
        segment_state(coefficients, segments, chains[body, 1], whole, tdb - light_time,
                      scratch[3], False)
        for j in range(3):
            retarded[j] += scratch[3, j]
    for j in range(3):
        geometric[j] = retarded[j] - earth[j]
    distance = math.sqrt(_dot(geometric, geometric))
    light_time = distance / C_KM_PER_DAY
    bent = retarded  # reused: the deflected vector
    for j in range(3):
        bent[j] = geometric[j]
    if body != 0:  # the Sun's own light is not deflected (collinear with the Sun)
        # By the Sun, Jupiter and Saturn, each where it was when the light passed
        # closest to it (its path is straight over hours), on the undeflected direction.
        u0, u1, u2 = geometric[0] / distance, geometric[1] / distance, geometric[2] / distance
        for k in range(3):
            d = state[chains[DEFLECTOR_ROWS[k], 0]]
            closest = ((u0 * (d[0] - earth[0]) + u1 * (d[1] - earth[1]))
                       + u2 * (d[2] - earth[2])) / C_KM_PER_DAY
            closest = min(max(closest, 0.0), light_time)
            _bend(geometric, distance, earth[0] - (d[0] - closest * d[3]),
                  earth[1] - (d[1] - closest * d[4]), earth[2] - (d[2] - closest * d[5]),
                  RECIPROCAL_MASSES[k], bent)
    _aberrate(bent, earth[3:], light_time, out)


@kernel
def longitude(vector: FloatArray, frame: FloatArray) -> float:
    """Ecliptic longitude of date (degrees in [0, 360)) of a GCRS vector."""
    x = (frame[2] * vector[0] + frame[3] * vector[1]) + frame[4] * vector[2]
    y = (frame[5] * vector[0] + frame[6] * vector[1]) + frame[7] * vector[2]
    return _degrees360(math.atan2(y, x) + frame[1])


@kernel
def node_longitude(kind: int, chains: IntArray, state: FloatArray, whole: float,
                   fraction: float, frame: FloatArray) -> float:
    """The lunar node at TT ``whole + fraction``: the true (osculating) node from the
    Moon's geometric geocentric state, or the mean node (Meeus 47.7) plus the nutation."""
    if kind == MEAN_NODE:
        omega = _mean_node(((whole - J2000) + fraction) / DAYS_PER_CENTURY)
        return _wrap360(omega + math.degrees(frame[1]))
    m, e = state[chains[MOON_STATE, 0]], state[chains[MOON_STATE, 1]]
    s0, s1, s2 = m[0] - e[0], m[1] - e[1], m[2] - e[2]
    s3, s4, s5 = m[3] - e[3], m[4] - e[4], m[5] - e[5]
    # The orbit's pole in ICRS; rotations keep cross products, so rotate it last.
    p0, p1, p2 = s1 * s5 - s2 * s4, s2 * s3 - s0 * s5, s0 * s4 - s1 * s3
    x = (frame[2] * p0 + frame[3] * p1) + frame[4] * p2
    y = (frame[5] * p0 + frame[6] * p1) + frame[7] * p2
    return _degrees360(math.atan2(x, -y) + frame[1])


@kernel
def epoch(coefficients: FloatArray, segments: FloatArray, chains: IntArray,
           needed: IntArray, whole: float, fraction: float, frame: FloatArray, bodies: int,
           node: int, work: FloatArray, longitudes: FloatArray, vectors: FloatArray,
           column: int) -> None:
    """The first ``bodies`` bodies (and the node) at TT ``whole + fraction`` with the
    frames ``frame``: longitudes into ``longitudes[:, column]`` and, when ``vectors`` has
    columns, the apparent vectors into ``vectors[:, :, column]``. ``needed``: the segments
    to evaluate; ``work``: (S + 6, 6) of work space."""
    segments_count = segments.shape[0]
    state, earth = work[:segments_count], work[segments_count]
    scratch, vector = work[segments_count + 1:segments_count + 5], work[segments_count + 5]
    tdb = fraction + frame[0]
    for s in needed:
        segment_state(coefficients, segments, s, whole, tdb, state[s], True)
    _chain(state, chains[EARTH], earth)
    for b in range(bodies):
        apparent(coefficients, segments, chains, b, whole, tdb, state, earth, scratch,
                 vector)
        longitudes[b, column] = longitude(vector, frame)
        if vectors.shape[2]:
            for j in range(3):
                vectors[j, b, column] = vector[j]
    if node != NO_NODE:
        longitudes[10, column] = node_longitude(node, chains, state, whole, fraction, frame)
