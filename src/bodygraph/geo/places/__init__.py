"""Places: geocoding a location text to coordinates, behind one small interface.

Two providers implement :class:`Geocoder`:

* :class:`OfflineGeocoder` - GeoNames cities, from an index shipped with the package; no
  key, no network (the default);
* :class:`GoogleGeocoder` - the Google Geocoding API through geopy, with the caller's own key.

:func:`geocoder_for` picks one by name (what the CLI's ``--geocoder`` and
``--geocode-key`` map onto). Every failure is a :class:`GeocodeError` subclass whose
``code`` is the service contract's errorCode.

>>> geocoder_for("offline").geocode("Berlin, Germany").describe()
'Berlin, Germany (52.5244° N, 13.4105° E)'
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from bodygraph.geo.coordinates import (
    InvalidCoordinatesError,
    InvalidLatitudeError,
    InvalidLongitudeError,
    PlaceError,
    check_coordinates,
)
from bodygraph.geo.places.base import (
    DEFAULT_TIMEOUT,
    GeocodeError,
    GeocodeFailedError,
    GeocodeKeyInvalidError,
    GeocodeKeyMissingError,
    Geocoder,
    GeocodeRateLimitedError,
    InvalidLocationError,
    LocationNotFoundError,
    Place,
)
from bodygraph.geo.places.offline import OfflineGeocoder
from bodygraph.geo.providers import DEFAULT_GEOCODER, GEOCODERS, GeocoderName

if TYPE_CHECKING:
    from bodygraph.geo.places.google import GoogleGeocoder

__all__ = [
    "DEFAULT_TIMEOUT",
    "GEOCODERS",
    "GeocodeError",
    "GeocodeFailedError",
    "GeocodeKeyInvalidError",
    "GeocodeKeyMissingError",
    "GeocodeRateLimitedError",
    "Geocoder",
    "GeocoderName",
    "GoogleGeocoder",
    "InvalidCoordinatesError",
    "InvalidLatitudeError",
    "InvalidLocationError",
    "InvalidLongitudeError",
    "LocationNotFoundError",
    "OfflineGeocoder",
    "Place",
    "PlaceError",
    "check_coordinates",
    "default_geocoder",
    "geocoder_for",
]


def __getattr__(name: str) -> Any:
    # geopy (with requests) takes a quarter of a second to import: only when Google is used
    if name == "GoogleGeocoder":
        from bodygraph.geo.places.google import GoogleGeocoder

        return GoogleGeocoder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def default_geocoder() -> OfflineGeocoder:
    """The shared offline geocoder (its datasets load on first lookup, then stay)."""
    return OfflineGeocoder()


def geocoder_for(
    name: GeocoderName = DEFAULT_GEOCODER,
    key: str | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
) -> Geocoder:
    """The geocoder called ``name``: ``"offline"`` (no key) or ``"google"`` (needs ``key``).

    ``key`` is the caller's geocoding key; it is ignored by the offline geocoder and
    required by Google (:class:`GeocodeKeyMissingError`, code ``GEOCODE_KEY_MISSING``,
    when absent). ``timeout`` bounds each Google request in seconds.
    """
    if name == "offline":
        return default_geocoder()
    if name == "google":
        if key is None or not key.strip():
            raise GeocodeKeyMissingError(
                "the google geocoder needs the caller's geocoding key (--geocode-key)"
            )
        from bodygraph.geo.places.google import GoogleGeocoder

        return GoogleGeocoder(key, timeout=timeout)
    raise ValueError(f"unknown geocoder {name!r}; choose one of {', '.join(GEOCODERS)}")
