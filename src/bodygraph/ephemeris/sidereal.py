"""The Earth's orientation for the angles of a chart: Greenwich apparent sidereal time and
the true obliquity of the ecliptic, arrays in and out (docs/conventions.md, "Angles and
houses")."""

from __future__ import annotations

import numpy as np

from bodygraph._time import TT
from bodygraph._typing import FloatArray

#: Instants per block of the nutation series (77 terms x instants of temporary arrays).
_BLOCK = 65536


def apparent_sidereal_frame(tt: TT) -> tuple[FloatArray, FloatArray, FloatArray]:
    """For TT instants of shape (N,): Greenwich apparent sidereal time (degrees in
    [0, 360)), the true obliquity of the ecliptic (degrees) and UT1 as a Julian date.

    The Earth rotation angle is taken at UT1 (from TT by Skyfield's Delta T: the IERS
    daily values, the model before and after them); mean sidereal time by the IAU 2006
    expression, the equation of the equinoxes and the obliquity from IAU 2000B nutation
    with the IAU 2006 mean obliquity."""
    whole = np.asarray(tt.whole, dtype=np.float64).reshape(-1)
    fraction = np.asarray(tt.fraction, dtype=np.float64).reshape(-1)
    parts = [_frame(TT(whole[i:i + _BLOCK], fraction[i:i + _BLOCK]))
             for i in range(0, whole.shape[0], _BLOCK)] or [_frame(TT(whole, fraction))]
    gast, obliquity, ut1 = (np.concatenate([part[k] for part in parts]) for k in range(3))
    return gast, obliquity, ut1


def _frame(tt: TT) -> tuple[FloatArray, FloatArray, FloatArray]:
    from skyfield.earthlib import sidereal_time
    from skyfield.nutationlib import iau2000b_radians, mean_obliquity

    t = tt.time()
    gmst_hours = np.asarray(sidereal_time(t), dtype=np.float64)
    d_psi, d_eps = iau2000b_radians(t)
    true_obliquity = np.radians(mean_obliquity(t.tdb) / 3600.0) + d_eps
    gast = np.mod(gmst_hours * 15.0 + np.degrees(d_psi * np.cos(true_obliquity)), 360.0)
    ut1 = np.asarray(t.whole, dtype=np.float64) + np.asarray(t.ut1_fraction, dtype=np.float64)
    return gast, np.degrees(true_obliquity), ut1
