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


def tdb_minus_tt_days(whole: FloatArray, fraction: FloatArray) -> FloatArray:
    """TDB - TT in days (USNO Circular 179, eq. 2.6; TT may stand in for TDB)."""
    t = centuries(whole, fraction)
    seconds = (
        0.001657 * np.sin(628.3076 * t + 6.2401)
        + 0.000022 * np.sin(575.3385 * t + 4.2970)
        + 0.000014 * np.sin(1256.6152 * t + 6.1969)
        + 0.000005 * np.sin(606.9777 * t + 4.0212)
        + 0.000005 * np.sin(52.9691 * t + 0.4444)
        + 0.000002 * np.sin(21.3299 * t + 5.5431)
        + 0.000010 * t * np.sin(628.3076 * t + 4.2490)
    )
    return seconds / SECONDS_PER_DAY


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


def _polynomials(coefficients: FloatArray, t: FloatArray) -> FloatArray:
    """Rows of polynomial coefficients (ascending powers) evaluated at ``t``: (rows, N)."""
    out = np.multiply.outer(coefficients[:, -1], np.ones_like(t))
    for column in range(coefficients.shape[1] - 2, -1, -1):
        out *= t
        out += coefficients[:, column, None]
    return out


def mean_ecliptic_rows(t: FloatArray) -> FloatArray:
    """The first two rows of ``R1(eps_A) R3(chi_A) R1(-omega_A) R3(-psi_A) R1(eps_0) B``,
    ICRS -> mean ecliptic and equinox of date: shape (2, 3, N).

    ``t`` is TDB in Julian centuries since J2000, shape (N,). The product of the four
    rotations is written out (rows 0 and 1 only).
    """
    angles = _polynomials(_PRECESSION, t) * ARCSEC
    angles[:2] *= -1.0  # R3(-psi_A), R1(-omega_A)
    c, s = np.cos(angles), np.sin(angles)
    cp, co, cx, ce = c
    sp, so, sx, se = s
    # A = R1(-omega) R3(-psi); B = R3(chi) A; M = R1(eps) B.
    a1 = (-co * sp, co * cp, so)
    b0 = (cx * cp + sx * a1[0], cx * sp + sx * a1[1], sx * a1[2])
    b1 = (-sx * cp + cx * a1[0], -sx * sp + cx * a1[1], cx * a1[2])
    b2 = (so * sp, -so * cp, co)
    m1 = (ce * b1[0] + se * b2[0], ce * b1[1] + se * b2[1], ce * b1[2] + se * b2[2])
    m = np.array([b0, m1])  # (2, 3, N)
    rows: FloatArray = (m[:, :, None, :] * _TO_J2000_ECLIPTIC[None, :, :, None]).sum(axis=1)
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
    out: FloatArray = np.fmod(_polynomials(_FUNDAMENTAL, t), TURN_ARCSEC) * ARCSEC
    return out


def nutation_longitude(t: FloatArray) -> FloatArray:
    """IAU 2000B nutation in longitude, radians, ``t`` in TT centuries (shape (N,)).

    Each term's argument is an integer combination of the five fundamental arguments,
    so its sine and cosine come from products of their powers on the unit circle:
    five complex exponentials per instant instead of 77 sines and cosines.
    """
    multipliers, coefficients = _nutation_series()
    powers = _unit_powers(fundamental_arguments(t), multipliers)
    terms = np.ones((multipliers.shape[0], t.shape[0]), dtype=np.complex128)
    for j in range(5):
        low = int(multipliers[:, j].min())
        terms *= powers[j][multipliers[:, j].astype(np.intp) - low]
    sines, cosines = terms.imag, terms.real
    # Sums over the terms as plain elementwise reductions (not BLAS), so that each
    # instant's value never depends on how many instants are computed with it.
    amplitude = coefficients[:, 0, None] + coefficients[:, 1, None] * t
    dpsi = (amplitude * sines).sum(axis=0) + (coefficients[:, 2, None] * cosines).sum(axis=0)
    result: FloatArray = (dpsi + B_OFFSET_PSI_ARCSEC) * ARCSEC
    return result


def _unit_powers(arguments: FloatArray, multipliers: FloatArray) -> list[
    npt.NDArray[np.complex128]
]:
    """For each fundamental argument a_j: exp(i n a_j) for every n its multipliers span,
    indexed from the smallest n."""
    out = []
    for j in range(5):
        low, high = int(multipliers[:, j].min()), int(multipliers[:, j].max())
        unit = np.exp(1j * arguments[j])
        table = np.empty((high - low + 1, arguments.shape[1]), dtype=np.complex128)
        table[-low] = 1.0
        for n in range(1, high + 1):
            table[-low + n] = table[-low + n - 1] * unit
        conjugate = np.conj(unit)
        for n in range(1, -low + 1):
            table[-low - n] = table[-low - n + 1] * conjugate
        out.append(table)
    return out
