"""Time scales and rotations for the fast engine: TDB, precession, nutation.

The compiled functions here work on one instant at a time (the kernels of
``bodygraph.ephemeris.fast.loops`` loop over the instants); :func:`nutation_longitude` is their
array form, for tests and tools.

* TDB - TT: the series of USNO Circular 179, eq. 2.6 (1.7 ms amplitude).
* Frame bias, IAU 2006 precession (Capitaine et al. 2003, four-angle form with
  psi_A, omega_A, chi_A) and the IAU 2006 mean obliquity.
* Nutation in longitude: IAU 2000B (the 77 largest luni-solar terms of IAU 2000A
  with the fixed offset that stands in for the planetary terms), evaluated with
  the full IERS 2003 polynomial fundamental arguments.

The true ecliptic and equinox of date is ``R3(-dpsi) R1(eps_A) P B``: the nutation
matrix ``N = R1(-eps_true) R3(-dpsi) R1(eps_A)`` followed by ``R1(eps_true)``
collapses to a rotation by ``dpsi`` about the ecliptic pole. So an ecliptic
longitude of date is the longitude in the *mean* ecliptic of date plus the
nutation in longitude, and the nutation in obliquity is never needed.
"""

from __future__ import annotations

import math
from functools import cache
from importlib import resources

import numpy as np

from bodygraph._typing import FloatArray
from bodygraph.ephemeris.fast.jit import fastest, kernel

J2000 = 2451545.0
DAYS_PER_CENTURY = 36525.0
SECONDS_PER_DAY = 86400.0
ARCSEC = np.pi / (180.0 * 3600.0)
TURN_ARCSEC = 1296000.0

#: IERS 2003 frame bias, arcseconds: xi_0, eta_0, d alpha_0.
_XI0, _ETA0, _DA0 = -0.0166170, -0.0068192, -0.01460

#: Fundamental arguments l, l', F, D, Omega (Simon et al. 1994 / IERS 2003), arcseconds,
#: coefficients of t^0 .. t^4 (t in Julian centuries of TDB since J2000).
_FUNDAMENTAL = np.array([
    [485868.249036, 1717915923.2178, 31.8792, 0.051635, -0.00024470],
    [1287104.79305, 129596581.0481, -0.5532, 0.000136, -0.00001149],
    [335779.526232, 1739527262.8478, -12.7512, -0.001037, 0.00000417],
    [1072260.70369, 1602961601.2090, -6.3706, 0.006593, -0.00003169],
    [450160.398036, -6962890.5431, 7.4722, 0.007702, -0.00005939],
])

#: IAU 2000B: number of luni-solar terms and the planetary offset in longitude (arcsec).
B_TERMS = 77
B_OFFSET_PSI_ARCSEC = -0.000135


def centuries(whole: FloatArray, fraction: FloatArray) -> FloatArray:
    """Julian centuries since J2000 of a split Julian date."""
    return ((whole - J2000) + fraction) / DAYS_PER_CENTURY


#: TDB - TT (USNO Circular 179, eq. 2.6): per term the amplitude (s), its rate (s per
#: century), the frequency (radians per century) and the phase (radians).
_TDB_TERMS = np.array([
    [0.001657, 0.0, 628.3076, 6.2401],
    [0.000022, 0.0, 575.3385, 4.2970],
    [0.000014, 0.0, 1256.6152, 6.1969],
    [0.000005, 0.0, 606.9777, 4.0212],
    [0.000005, 0.0, 52.9691, 0.4444],
    [0.000002, 0.0, 21.3299, 5.5431],
    [0.0, 0.000010, 628.3076, 4.2490],
])


def _r1(angle: float) -> FloatArray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, s], [0.0, -s, c]])


def _r2(angle: float) -> FloatArray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])


def _r3(angle: float) -> FloatArray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])


FRAME_BIAS: FloatArray = _r1(-_ETA0 * ARCSEC) @ _r2(_XI0 * ARCSEC) @ _r3(_DA0 * ARCSEC)
"""ICRS -> mean equator and equinox of J2000 (IERS 2003, eq. 5.22)."""


#: Polynomials (t^0 .. t^5, arcseconds) of the IAU 2006 precession angles psi_A, omega_A,
#: chi_A (Capitaine et al. 2003, four-angle form) and of the mean obliquity eps_A.
_PRECESSION = np.array([
    [0.0, 5038.481507, -1.0790069, -0.00114045, 0.000132851, -0.0000000951],
    [84381.406, -0.025754, 0.0512623, -0.00772503, -0.000000467, 0.0000003337],
    [0.0, 10.556403, -2.3814292, -0.00121197, 0.000170663, -0.0000000560],
    [84381.406, -46.836769, -0.0001831, 0.00200340, -0.000000576, -0.0000000434],
])
#: ``R1(eps_0) B``: ICRS -> mean ecliptic of J2000, the right end of the chain.
_TO_J2000_ECLIPTIC: FloatArray = _r1(84381.406 * ARCSEC) @ FRAME_BIAS


def _horner_table(coefficients: FloatArray) -> FloatArray:
    """Coefficient rows (ascending powers) reversed to highest power first, contiguous."""
    return np.ascontiguousarray(coefficients[:, ::-1])


_PRECESSION_HORNER = _horner_table(_PRECESSION)
_FUNDAMENTAL_HORNER = _horner_table(_FUNDAMENTAL)


@kernel
def _polynomial(row: FloatArray, t: float) -> float:
    """A polynomial with coefficients ``row`` (highest power first) at ``t``, Horner."""
    out: float = row[0]
    for c in row[1:]:
        out = out * t + c
    return out


@kernel
def tdb_minus_tt(whole: float, fraction: float) -> float:
    """TDB - TT in days (USNO Circular 179, eq. 2.6; TT may stand in for TDB)."""
    t = ((whole - J2000) + fraction) / DAYS_PER_CENTURY
    out = 0.0
    for amplitude, rate, frequency, phase in _TDB_TERMS:
        out += (amplitude + rate * t) * math.sin(frequency * t + phase)
    return out / SECONDS_PER_DAY


@kernel
def mean_ecliptic_rows(t: float, out: FloatArray) -> None:
    """The first two rows of ``R1(eps_A) R3(chi_A) R1(-omega_A) R3(-psi_A) R1(eps_0) B``,
    ICRS -> mean ecliptic and equinox of date, into ``out`` (6,), row-major. ``t`` is TDB
    in Julian centuries since J2000; the product of the rotations is written out."""
    psi = _polynomial(_PRECESSION_HORNER[0], t) * ARCSEC
    omega = _polynomial(_PRECESSION_HORNER[1], t) * ARCSEC
    chi = _polynomial(_PRECESSION_HORNER[2], t) * ARCSEC
    eps = _polynomial(_PRECESSION_HORNER[3], t) * ARCSEC
    cp, sp = math.cos(psi), -math.sin(psi)  # psi and omega enter with a minus sign
    co, so = math.cos(omega), -math.sin(omega)
    cx, sx = math.cos(chi), math.sin(chi)
    ce, se = math.cos(eps), math.sin(eps)
    # A = R1(-omega) R3(-psi); B = R3(chi) A; M = R1(eps) B (rows 0 and 1).
    a10, a11 = -co * sp, co * cp
    m00, m01, m02 = cx * cp + sx * a10, cx * sp + sx * a11, sx * so
    m10 = ce * (cx * a10 - sx * cp) + se * (so * sp)
    m11 = ce * (cx * a11 - sx * sp) - se * (so * cp)
    m12 = ce * (cx * so) + se * co
    j = _TO_J2000_ECLIPTIC
    for c in range(3):
        out[c] = m00 * j[0, c] + m01 * j[1, c] + m02 * j[2, c]
        out[3 + c] = m10 * j[0, c] + m11 * j[1, c] + m12 * j[2, c]


#: Powers -2 .. 4 of the unit complex numbers of the fundamental arguments cover every
#: multiplier of the 77 terms.
_LOWEST_POWER, _HIGHEST_POWER = -2, 4
_POWERS = _HIGHEST_POWER - _LOWEST_POWER + 1
#: Columns of :func:`nutation_table`: the longitude coefficients in arcseconds (sin,
#: t*sin, cos), the number of the term's non-zero multipliers, then for each of them
#: (in the order l, l', F, D, Omega) its power's place in the table of powers.
SIN, T_SIN, COS, FACTORS, FIRST_FACTOR = range(5)


@cache
def nutation_table() -> FloatArray:
    """The IAU 2000B luni-solar terms as rows of (77, 10) (see ``FIRST_FACTOR``), read
    from the IAU 2000A table that Skyfield bundles (its first 77 rows are 2000B)."""
    path = resources.files("skyfield").joinpath("data", "nutation.npz")
    with resources.as_file(path) as real, np.load(real) as data:
        multipliers = np.asarray(data["nals_t"][:B_TERMS], dtype=np.int64)
        longitude = np.asarray(
            data["lunisolar_longitude_coefficients"][:B_TERMS], dtype=np.float64
        ) * 1e-7  # tenths of a microarcsecond -> arcseconds
    if multipliers.min() < _LOWEST_POWER or multipliers.max() > _HIGHEST_POWER:
        raise ValueError("a nutation multiplier lies outside the table of powers")
    table = np.zeros((B_TERMS, FIRST_FACTOR + 5))
    table[:, SIN:COS + 1] = longitude
    for row, term in zip(table, multipliers, strict=True):
        places = [k * _POWERS + (m - _LOWEST_POWER) for k, m in enumerate(term) if m != 0]
        row[FACTORS] = len(places)
        row[FIRST_FACTOR:FIRST_FACTOR + len(places)] = places
    table.flags.writeable = False
    return table


@kernel
def nutation(t: float, table: FloatArray) -> float:
    """IAU 2000B nutation in longitude, radians, ``t`` in TT centuries since J2000
    (``table``: :func:`nutation_table`, or its rows as lists for plain Python).

    Each term's argument is an integer combination of the five fundamental arguments,
    so its sine and cosine are products of their powers on the unit circle: five
    sines and cosines per instant instead of 77 of each, and per term one complex
    product per non-zero multiplier after the first (a factor of power zero is exactly
    1, so leaving it out changes no bit). The terms are summed in the table's order."""
    # Lists and float(): in plain Python the sums then run on Python floats, several
    # times faster than on numpy scalars, with the same IEEE 754 operations.
    t = float(t)
    re, im = [0.0] * (5 * _POWERS), [0.0] * (5 * _POWERS)
    zero = -_LOWEST_POWER
    for k in range(5):
        angle = np.fmod(_polynomial(_FUNDAMENTAL_HORNER[k], t), TURN_ARCSEC) * ARCSEC
        at = k * _POWERS + zero
        re[at], im[at] = 1.0, 0.0
        c, s = math.cos(angle), math.sin(angle)
        x, y = 1.0, 0.0
        for m in range(1, _HIGHEST_POWER + 1):
            x, y = x * c - y * s, x * s + y * c
            re[at + m], im[at + m] = x, y
        for m in range(1, -_LOWEST_POWER + 1):
            re[at - m], im[at - m] = re[at + m], -im[at + m]
    dpsi = 0.0
    for term in table:
        first = int(term[FIRST_FACTOR])
        x, y = re[first], im[first]
        for j in range(FIRST_FACTOR + 1, FIRST_FACTOR + int(term[FACTORS])):
            p = int(term[j])
            x, y = x * re[p] - y * im[p], x * im[p] + y * re[p]
        dpsi += (term[SIN] + term[T_SIN] * t) * y + term[COS] * x
    return (dpsi + B_OFFSET_PSI_ARCSEC) * ARCSEC


@kernel
def _nutations(t: FloatArray, table: FloatArray, out: FloatArray) -> None:
    for i in range(t.shape[0]):
        out[i] = nutation(t[i], table)


def nutation_longitude(t: FloatArray) -> FloatArray:
    """IAU 2000B nutation in longitude, radians, for TT centuries ``t`` (shape (N,))."""
    times = np.ascontiguousarray(t, dtype=np.float64)
    out = np.empty(times.shape[0])
    fastest(_nutations)(times, nutation_table(), out)
    return out
