"""Time scales and rotations for the fast engine: TDB, precession, nutation.

Everything is arrays in, arrays out, with time on the last axis.

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

from functools import cache
from importlib import resources

import numpy as np
import numpy.typing as npt

from bodygraph.fast_chebyshev import fold_sum

FloatArray = npt.NDArray[np.float64]

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


_TDB_COLUMNS = tuple(np.ascontiguousarray(column[:, None]) for column in _TDB_TERMS.T)


def tdb_minus_tt_days(whole: FloatArray, fraction: FloatArray) -> FloatArray:
    """TDB - TT in days (USNO Circular 179, eq. 2.6; TT may stand in for TDB)."""
    t = centuries(whole, fraction)
    amplitude, rate, frequency, phase = _TDB_COLUMNS
    argument = frequency * t
    argument += phase
    terms = rate * t
    terms += amplitude
    terms *= np.sin(argument)
    out: FloatArray = fold_sum(terms)
    out /= SECONDS_PER_DAY
    return out


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


def _columns(coefficients: FloatArray) -> tuple[FloatArray, ...]:
    """The columns of a coefficient table as contiguous (rows, 1) arrays, highest power
    first (what :func:`_polynomials` walks)."""
    return tuple(np.ascontiguousarray(coefficients[:, c, None])
                 for c in range(coefficients.shape[1] - 1, -1, -1))


def _polynomials(coefficients: FloatArray | tuple[FloatArray, ...],
                 t: FloatArray) -> FloatArray:
    """Rows of polynomial coefficients (ascending powers, or :func:`_columns`) evaluated
    at ``t`` by Horner's rule: (rows, N)."""
    columns = _columns(coefficients) if isinstance(coefficients, np.ndarray) else coefficients
    out = columns[0] * t
    for column in columns[1:-1]:
        out += column
        out *= t
    out += columns[-1]
    return out


_PRECESSION_COLUMNS = _columns(_PRECESSION)
_FUNDAMENTAL_COLUMNS = _columns(_FUNDAMENTAL)
#: Rows of ``_TO_J2000_ECLIPTIC`` shaped (3, 1) for broadcasting over (2, 3, N).
_J2000_ROWS = tuple(np.ascontiguousarray(row[:, None]) for row in _TO_J2000_ECLIPTIC)


def mean_ecliptic_rows(t: FloatArray) -> FloatArray:
    """The first two rows of ``R1(eps_A) R3(chi_A) R1(-omega_A) R3(-psi_A) R1(eps_0) B``,
    ICRS -> mean ecliptic and equinox of date: shape (2, 3, N).

    ``t`` is TDB in Julian centuries since J2000, shape (N,). The product of the four
    rotations is written out (rows 0 and 1 only), elementwise.
    """
    angles = _polynomials(_PRECESSION_COLUMNS, t)
    angles *= ARCSEC
    c, s = np.cos(angles), np.sin(angles)
    # psi and omega enter with a minus sign: cos is even, sin odd.
    cp, co, cx, ce = c
    sp, so, sx, se = s
    sp, so = -sp, -so
    # A = R1(-omega) R3(-psi); B = R3(chi) A; M = R1(eps) B (rows 0 and 1).
    a10, a11 = -co * sp, co * cp
    m = np.empty((2, 3, t.shape[0]))
    m[0, 0] = cx * cp + sx * a10
    m[0, 1] = cx * sp + sx * a11
    m[0, 2] = sx * so
    m[1, 0] = ce * (cx * a10 - sx * cp) + se * (so * sp)
    m[1, 1] = ce * (cx * a11 - sx * sp) - se * (so * cp)
    m[1, 2] = ce * (cx * so) + se * co
    j0, j1, j2 = _J2000_ROWS
    rows: FloatArray = m[:, 0, None] * j0 + m[:, 1, None] * j1 + m[:, 2, None] * j2
    return rows


@cache
def _nutation_series() -> tuple[FloatArray, FloatArray]:
    """The IAU 2000B luni-solar terms: multipliers (77, 5) and longitude coefficients
    (77, 3) in arcseconds (sin, t*sin, cos), read from the IAU 2000A table that
    Skyfield bundles (its first 77 rows are the 2000B series)."""
    path = resources.files("skyfield").joinpath("data", "nutation.npz")
    with resources.as_file(path) as real, np.load(real) as data:
        multipliers = np.asarray(data["nals_t"][:B_TERMS], dtype=np.float64)
        longitude = np.asarray(
            data["lunisolar_longitude_coefficients"][:B_TERMS], dtype=np.float64
        ) * 1e-7  # tenths of a microarcsecond -> arcseconds
    return multipliers, longitude


def fundamental_arguments(t: FloatArray) -> FloatArray:
    """l, l', F, D, Omega in radians, shape (5, N)."""
    out: FloatArray = np.fmod(_polynomials(_FUNDAMENTAL_COLUMNS, t), TURN_ARCSEC)
    out *= ARCSEC
    return out


#: Powers -2 .. 4 of the unit complex numbers of the fundamental arguments cover every
#: multiplier of the 77 terms.
_LOWEST_POWER = -2
_HIGHEST_POWER = 4


#: The terms' products are built in two halves that many terms share: the distinct
#: combinations of the powers of (l, l') and of (F, D, Omega).
_HALVES: tuple[tuple[int, ...], tuple[int, ...]] = ((0, 1), (2, 3, 4))


@cache
def _nutation_tables() -> tuple[tuple[tuple[npt.NDArray[np.intp], ...], ...],
                                tuple[npt.NDArray[np.intp], ...],
                                FloatArray, FloatArray, FloatArray]:
    """How to build the 77 terms from the table of powers (see
    :func:`nutation_longitude`): per half, for each of its arguments the rows of the
    flattened table to take (one per distinct combination); then for each half the
    combination of every term. Also the coefficients as contiguous (77, 1) columns."""
    multipliers, coefficients = _nutation_series()
    if multipliers.min() < _LOWEST_POWER or multipliers.max() > _HIGHEST_POWER:
        raise ValueError("a nutation multiplier lies outside the table of powers")
    powers = multipliers.astype(np.intp) - _LOWEST_POWER  # (77, 5)
    halves = []
    combination = []
    for half in _HALVES:
        distinct, which = np.unique(powers[:, list(half)], axis=0, return_inverse=True)
        halves.append(tuple(np.ascontiguousarray(distinct[:, i] * 5 + j)
                            for i, j in enumerate(half)))
        combination.append(np.ascontiguousarray(which.reshape(-1)))
    sine, sine_rate, cosine = (np.ascontiguousarray(coefficients[:, c, None])
                               for c in range(3))
    return tuple(halves), tuple(combination), sine, sine_rate, cosine


def nutation_longitude(t: FloatArray) -> FloatArray:
    """IAU 2000B nutation in longitude, radians, ``t`` in TT centuries (shape (N,)).

    Each term's argument is an integer combination of the five fundamental arguments,
    so its sine and cosine come from products of their powers on the unit circle:
    five complex exponentials per instant instead of 77 sines and cosines. The sum over
    the terms is :func:`~bodygraph.fast_chebyshev.fold_sum`, so that each instant's value
    never depends on how many instants are computed with it.
    """
    halves, combination, sine, sine_rate, cosine = _nutation_tables()
    n = t.shape[0]
    powers = np.empty((_HIGHEST_POWER - _LOWEST_POWER + 1, 5, n), dtype=np.complex128)
    one = -_LOWEST_POWER  # the row of exponent 0
    np.exp(1j * fundamental_arguments(t), out=powers[one + 1])
    powers[one] = 1.0
    np.multiply(powers[one + 1], powers[one + 1], out=powers[one + 2])
    np.multiply(powers[one + 2], powers[one + 1], out=powers[one + 3])
    np.multiply(powers[one + 2], powers[one + 2], out=powers[one + 4])
    np.conjugate(powers[one + 1:one + 3], out=powers[one - 1::-1])
    table = powers.reshape(-1, n)
    parts = []
    for rows in halves:
        product = table.take(rows[0], axis=0)
        for more in rows[1:]:
            product *= table.take(more, axis=0)
        parts.append(product)
    terms = parts[0].take(combination[0], axis=0)
    terms *= parts[1].take(combination[1], axis=0)
    amplitude = sine_rate * t
    amplitude += sine
    amplitude *= terms.imag
    amplitude += cosine * terms.real
    dpsi = fold_sum(amplitude)
    dpsi += B_OFFSET_PSI_ARCSEC
    dpsi *= ARCSEC
    return dpsi
