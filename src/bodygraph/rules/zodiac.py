"""The tropical zodiac: a longitude's sign and its degree, minute and second in the sign,
for arrays of longitudes; the sign names, written once (docs/conventions.md, "Zodiac")."""

from __future__ import annotations

from typing import Final

import numpy as np

from bodygraph._typing import FloatArray, IntArray

#: The twelve signs from 0 degrees of longitude on, 30 degrees each.
SIGNS: Final[tuple[str, ...]] = (
    "Aries", "Taurus", "Gemini", "Cancer", "Leo", "Virgo", "Libra", "Scorpio",
    "Sagittarius", "Capricorn", "Aquarius", "Pisces",
)
_ARCSEC_PER_SIGN: Final = 30 * 3600


def zodiac_parts(longitude: FloatArray) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Sign index (into :data:`SIGNS`), degree, minute and second within the sign of
    longitudes in degrees (any shape), each truncated as a clock is: 282.1137 is
    Capricorn 12 6' 49".

    >>> [int(part[0]) for part in zodiac_parts(np.array([282.1137]))]
    [9, 12, 6, 49]
    """
    arcsec = np.floor(np.mod(np.asarray(longitude, dtype=np.float64), 360.0) * 3600.0)
    arcsec = np.minimum(arcsec, 360 * 3600 - 1).astype(np.int64)
    sign, within = np.divmod(arcsec, _ARCSEC_PER_SIGN)
    degree, rest = np.divmod(within, 3600)
    minute, second = np.divmod(rest, 60)
    return sign, degree, minute, second
