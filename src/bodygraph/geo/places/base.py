"""The place model shared by every geocoder, the geocoder protocol and the typed errors.

The coordinate check and its errors are one level down, in :mod:`bodygraph.geo.coordinates`.
The public names are those of :mod:`bodygraph.geo.places`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable

from bodygraph.catalog.numbers import number_text
from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, pgettext
from bodygraph.geo.coordinates import PlaceError, check_coordinates

#: Seconds one request to a geocoding service may take (connect and each read).
DEFAULT_TIMEOUT: Final = 5.0
#: The longest location text looked up, in characters (the service contract's limit).
MAX_LOCATION_LENGTH: Final = 200
#: Control characters and lone surrogates (which no encoding can write).
_NOT_TEXT: Final = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


class InvalidLocationError(PlaceError, ValueError):
    """A location text that cannot be looked up at all: not text, empty or blank, longer
    than :data:`MAX_LOCATION_LENGTH` characters, or holding a control character or a lone
    surrogate."""


def check_location(query: object) -> str:
    """The location text ``query`` without surrounding blanks, or :class:`InvalidLocationError`.

    >>> check_location("  Berlin ")
    'Berlin'
    >>> try:
    ...     check_location(chr(0xD800) + "Berlin")
    ... except InvalidLocationError as error:
    ...     print(error)
    the location text holds a character that is not text (U+D800 at position 1)
    """
    if not isinstance(query, str):
        raise InvalidLocationError(f"a location must be text, not {type(query).__name__}")
    if len(query) > MAX_LOCATION_LENGTH:
        raise InvalidLocationError(
            f"the location text is {len(query)} characters long; "
            f"the most is {MAX_LOCATION_LENGTH}")
    text = query.strip()
    if not text:
        raise InvalidLocationError("the location text is empty")
    bad = _NOT_TEXT.search(text)
    if bad is not None:
        position = len(query) - len(query.lstrip()) + bad.start() + 1
        raise InvalidLocationError(
            "the location text holds a character that is not text "
            f"(U+{ord(bad.group()):04X} at position {position})")
    return text


class GeocodeError(PlaceError):
    """Base class of the geocoding failures."""


class GeocodeKeyMissingError(GeocodeError, ValueError):
    """A geocoder that needs a key was asked for without one."""


class GeocodeKeyInvalidError(GeocodeError):
    """The geocoding service refused the caller's key (invalid, restricted or not enabled)."""


class LocationNotFoundError(GeocodeError):
    """The location text matched no place.

    ``suggestions`` holds up to a handful of close matches ("City, Country"), best first;
    it is empty when the provider offers none.
    """


    def __init__(self, query: str, suggestions: tuple[str, ...] = (), reason: str = "") -> None:
        self.query = query
        self.suggestions = suggestions
        message = f"no place found for {query!r}"
        if reason:
            message += f" ({reason})"
        if suggestions:
            message += "; close matches: " + "; ".join(suggestions)
        super().__init__(message)


class GeocodeRateLimitedError(GeocodeError):
    """The geocoding service's quota or rate limit was hit; ``retry_after`` in seconds if told."""


    def __init__(self, message: str, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class GeocodeFailedError(GeocodeError):
    """Any other geocoding failure: service error, malformed reply, time-out, network."""


#: A latitude or longitude in readable text, by hemisphere (``{degrees}``: its absolute
#: value with the language's decimal mark): ``13.4105° E``, ``13,4105° O`` in German,
#: ``北緯52.5244°`` in Japanese (the catalogs' comments say each language's usual form).
HEMISPHERES: Final = {
    "N": pgettext("cli", "{degrees}° N"), "S": pgettext("cli", "{degrees}° S"),
    "E": pgettext("cli", "{degrees}° E"), "W": pgettext("cli", "{degrees}° W"),
}
#: A place's name with its coordinates (each as :data:`HEMISPHERES` writes it).
WITH_COORDINATES: Final = pgettext("cli", "{place} ({latitude}, {longitude})")


@dataclass(frozen=True, slots=True)
class Place:
    """A geocoded place.

    ``name`` is the place's own name (a city, or the provider's best label), ``region`` the
    first-level division when known, ``country`` the country's English name and
    ``country_code`` its ISO 3166-1 alpha-2 code. ``source`` names the geocoder
    (``"offline"`` or ``"google"``); ``population`` and ``identifier`` (a GeoNames id or a
    Google place id) are given when the provider knows them. ``others`` names the other
    places of that name the text may have meant (labels like :attr:`label`, best first),
    when some come close to this one (the offline geocoder; empty otherwise): see
    :meth:`ambiguity`.
    """

    name: str
    lat: float
    lng: float
    country: str | None = None
    country_code: str | None = None
    region: str | None = None
    population: int | None = None
    source: str = ""
    identifier: str | None = None
    others: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_coordinates(self.lat, self.lng)

    @property
    def label(self) -> str:
        """The place's name with its region and country: ``Springfield, Illinois, United
        States`` (a text the offline geocoder reads back as this place)."""
        parts = [self.name]
        for extra in (self.region, self.country):
            if extra and extra not in parts:
                parts.append(extra)
        return ", ".join(parts)

    def describe(self, lang: str = SOURCE_LANGUAGE) -> str:
        """One line naming the place and its coordinates, for telling a person what was used,
        in ``lang``: its compass words and decimal mark (:data:`HEMISPHERES`).

        >>> Place("Berlin", 52.52437, 13.41053, country="Germany").describe()
        'Berlin, Germany (52.5244° N, 13.4105° E)'
        >>> Place("Berlin", 52.52437, 13.41053, country="Germany").describe("de")
        'Berlin, Germany (52,5244° N, 13,4105° O)'
        """
        tr = catalog(lang)
        latitude = tr.pgettext("cli", HEMISPHERES["N" if self.lat >= 0 else "S"]).format(
            degrees=number_text(abs(self.lat), lang, 4))
        longitude = tr.pgettext("cli", HEMISPHERES["E" if self.lng >= 0 else "W"]).format(
            degrees=number_text(abs(self.lng), lang, 4))
        return tr.pgettext("cli", WITH_COORDINATES).format(
            place=self.label, latitude=latitude, longitude=longitude)

    def ambiguity(self) -> str | None:
        """For a place taken among several of its name (``others``): which one was taken,
        the others, and how to choose one; ``None`` when the text named one place clearly.

        >>> print(Place("Springfield", 37.2, -93.3, "United States", "US", "Missouri",
        ...             others=("Springfield, Illinois, United States",)).ambiguity())
        several places are called Springfield: took Springfield, Missouri, United States (the most populous); others: Springfield, Illinois, United States; add the region or country to choose one, e.g. "Springfield, Illinois, United States"
        """  # noqa: E501
        if not self.others:
            return None
        return (f"several places are called {self.name}: took {self.label} (the most "
                f"populous); others: {'; '.join(self.others)}; add the region or country to "
                f'choose one, e.g. "{self.others[0]}"')


@runtime_checkable
class Geocoder(Protocol):
    """Anything that turns a location text into a :class:`Place`.

    ``geocode`` returns the best place or raises a :class:`GeocodeError` subclass; it
    never returns ``None``. Implementations must be safe to call from several threads.
    """

    def geocode(self, query: str) -> Place:
        """Return the best place for ``query`` or raise a :class:`GeocodeError`."""
        ...
