"""The angles and house cusps of a place and instant from the sidereal angle of the
meridian (RAMC), the true obliquity and the latitude: Ascendant, Midheaven, Placidus and
whole-sign cusps, arrays in and out (docs/conventions.md, "Angles and houses")."""

from __future__ import annotations

from typing import Final

import numpy as np

from bodygraph._typing import BoolArray, FloatArray

#: The house systems, by the name the command line and the JSON use.
HOUSE_SYSTEMS: Final[tuple[str, ...]] = ("placidus", "whole-sign")

#: The Placidus cusps between the angles: (house, offset of the RA from the RAMC in
#: degrees, fraction of the semi-arc, whether the semi-arc is the nocturnal one).
_PLACIDUS: Final = ((11, 0.0, 1.0 / 3.0, False), (12, 0.0, 2.0 / 3.0, False),
                    (2, 180.0, -2.0 / 3.0, True), (3, 180.0, -1.0 / 3.0, True))
_BISECTIONS: Final = 60


def midheaven(ramc: FloatArray, obliquity: FloatArray) -> FloatArray:
    """The ecliptic longitude culminating at the meridian, degrees in [0, 360)."""
    r, e = np.radians(ramc), np.radians(obliquity)
    out: FloatArray = np.mod(np.degrees(np.arctan2(np.sin(r), np.cos(r) * np.cos(e))), 360.0)
    return out


def ascendant(ramc: FloatArray, obliquity: FloatArray, latitude: FloatArray) -> FloatArray:
    """The ecliptic longitude rising in the east, degrees in [0, 360); within the polar
    circles, where the formula may give the setting point, the one of the two within 180
    degrees after the Midheaven (the Swiss Ephemeris' rule)."""
    r, e, phi = np.radians(ramc), np.radians(obliquity), np.radians(latitude)
    rising = np.degrees(np.arctan2(np.cos(r), -(np.sin(r) * np.cos(e)
                                                + np.tan(phi) * np.sin(e))))
    behind = np.mod(rising - midheaven(ramc, obliquity), 360.0) > 180.0
    out: FloatArray = np.mod(rising + np.where(behind, 180.0, 0.0), 360.0)
    return out


def placidus_defined(obliquity: FloatArray, latitude: FloatArray) -> BoolArray:
    """Where Placidus houses exist: inside the polar circles (|latitude| < 90 - obliquity)
    some ecliptic points never rise or set and the semi-arcs are undefined."""
    out: BoolArray = np.abs(latitude) < 90.0 - obliquity
    return out


def placidus_cusps(ramc: FloatArray, obliquity: FloatArray, latitude: FloatArray
                   ) -> FloatArray:
    """The 12 Placidus cusps, (12, N) degrees; only meaningful where
    :func:`placidus_defined`. Each intermediate cusp is the ecliptic point whose hour
    angle is the fraction of its own semi-arc, solved by bisection on the right
    ascension (the root is bracketed, since a semi-arc lies between 0 and 180 degrees)."""
    e, phi = np.radians(obliquity), np.radians(latitude)
    tan_e, cos_e = np.tan(e), np.cos(e)
    cusps = np.empty((12, *np.shape(ramc)))
    cusps[0] = ascendant(ramc, obliquity, latitude)
    cusps[9] = midheaven(ramc, obliquity)
    for house, offset, fraction, nocturnal in _PLACIDUS:
        low = np.full(np.shape(ramc), offset + min(0.0, 180.0 * fraction))
        high = np.full(np.shape(ramc), offset + max(0.0, 180.0 * fraction))
        for _ in range(_BISECTIONS):
            middle = 0.5 * (low + high)
            declination = np.arctan(tan_e * np.sin(np.radians(ramc + middle)))
            semi_arc = np.degrees(np.arccos(np.clip(-np.tan(phi) * np.tan(declination),
                                                    -1.0, 1.0)))
            if nocturnal:
                semi_arc = 180.0 - semi_arc
            # g(x) = x - offset - fraction * semi_arc(x) rises through its root
            above = middle - offset - fraction * semi_arc > 0.0
            high = np.where(above, middle, high)
            low = np.where(above, low, middle)
        ra = np.radians(ramc + 0.5 * (low + high))
        cusps[house - 1] = np.mod(np.degrees(np.arctan2(np.sin(ra), np.cos(ra) * cos_e)),
                                  360.0)
    for house in (4, 5, 6, 7, 8, 9):
        cusps[house - 1] = np.mod(cusps[(house + 5) % 12] + 180.0, 360.0)
    return cusps


def whole_sign_cusps(ascendant_longitude: FloatArray) -> FloatArray:
    """The 12 whole-sign cusps, (12, N): the first at 0 degrees of the Ascendant's sign."""
    first = np.floor(np.mod(ascendant_longitude, 360.0) / 30.0) * 30.0
    return np.mod(first[np.newaxis] + 30.0 * np.arange(12.0).reshape(
        (12,) + (1,) * np.ndim(first)), 360.0)
