"""Latitude and longitude: the one check every part of ``geo`` applies, and its errors.

Below both the geocoders (:mod:`bodygraph.geo.places`) and the time zones
(:mod:`bodygraph.geo.timezones`), which both check the points they are given or find.
"""

from __future__ import annotations

import math

from bodygraph.errors import BodygraphError

__all__ = [
    "InvalidCoordinatesError",
    "InvalidLatitudeError",
    "InvalidLongitudeError",
    "PlaceError",
    "check_coordinates",
]


class PlaceError(BodygraphError):
    """Base class of the errors about places (coordinates, location texts, geocoding)."""


class InvalidCoordinatesError(PlaceError, ValueError):
    """A latitude or longitude that is not a finite number in range."""


class InvalidLatitudeError(InvalidCoordinatesError):
    """Latitude missing, not a number, or outside -90 to 90."""


class InvalidLongitudeError(InvalidCoordinatesError):
    """Longitude missing, not a number, or outside -180 to 180."""


def check_coordinates(lat: float, lng: float) -> tuple[float, float]:
    """Return ``(lat, lng)`` as floats, or raise the contract's coordinate error.

    >>> check_coordinates(52.52, 13.405)
    (52.52, 13.405)
    """
    if isinstance(lat, bool) or not isinstance(lat, (int, float)) or not math.isfinite(lat):
        raise InvalidLatitudeError(f"latitude must be a finite number, not {lat!r}")
    if isinstance(lng, bool) or not isinstance(lng, (int, float)) or not math.isfinite(lng):
        raise InvalidLongitudeError(f"longitude must be a finite number, not {lng!r}")
    if not -90.0 <= lat <= 90.0:
        raise InvalidLatitudeError(f"latitude {lat} is outside -90 to 90")
    if not -180.0 <= lng <= 180.0:
        raise InvalidLongitudeError(f"longitude {lng} is outside -180 to 180")
    return float(lat), float(lng)
