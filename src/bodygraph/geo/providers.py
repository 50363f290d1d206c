"""The names of the geocoding providers, and nothing else.

The command line offers them as ``--geocoder`` choices without importing the providers
themselves (:mod:`bodygraph.geo.places`, which maps each name to its geocoder).
"""

from __future__ import annotations

from typing import Final, Literal, get_args

__all__ = ["DEFAULT_GEOCODER", "GEOCODERS", "GeocoderName"]

GeocoderName = Literal["offline", "google"]

#: The provider names :func:`bodygraph.geo.places.geocoder_for` accepts.
GEOCODERS: Final[tuple[GeocoderName, ...]] = get_args(GeocoderName)

#: The provider used when none is named: the offline gazetteer (no key, no network).
DEFAULT_GEOCODER: Final[GeocoderName] = "offline"
