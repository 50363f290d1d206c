"""The offline geocoder: GeoNames cities from the shipped index; no key, no network.

Ranking: among the cities whose name or an alternate name matches the query (accents,
case and punctuation folded, see :func:`bodygraph.geo.places.names.fold`) and that lie in the
country or US state the query names, the best is the one with the better match, then the
larger population. A match on a city's own name counts as much as ten times the population
of a match on an alternate name only, so "Venice" is Venice, Italy (not a larger city that
was once called Venice) while "Cologne" is still Köln rather than a village named Cologne.

Two datasets are used: cities over 15,000 people first, and, when that gives no certain
answer, the fuller dataset chosen with ``min_population`` (default: cities over 1,000
people). Both are parts of one prebuilt index, read once, on first use, and shared by
every instance. A name that matches no place gets suggestions: names spelt like it
(:mod:`bodygraph.geo.places.fuzzy`) in the country asked. A name several places share gets
the best of them, with the others that score within a factor of 10 of it and that a
region or country tells apart in :attr:`~bodygraph.geo.places.Place.others` ("Springfield":
Missouri, then Massachusetts, Illinois, ...).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Final, Literal

from bodygraph.geo.places.base import LocationNotFoundError, Place, check_location
from bodygraph.geo.places.gazetteer import City, Gazetteer, gazetteer
from bodygraph.geo.places.names import Query, countries, fold, parse_query

__all__ = ["OfflineGeocoder"]

MinPopulation = Literal[500, 1000, 5000, 15000]

_LARGE: Final = 15000
_MAX_SUGGESTIONS: Final = 5
#: Alternate names this short (in Latin letters or digits) are abbreviations or stray
#: transliterations ("ab" is one of Ibb's, in Yemen): they count only as a city's initials.
_ABBREVIATION: Final = 2
#: How close another place of the same name must score to the best one to be named as
#: what the text may also mean: a factor of 10 in population.
_CLOSE: Final = 1.0
#: How many readings of a query get close-spelling suggestions (the most literal first).
_FUZZY_READINGS: Final = 2
#: The most a place missing from the 15,000 dataset can score (an own-name match).
_SMALL_PLACE_CEILING: Final = 1.0 + math.log10(_LARGE + 1)


def _score(population: int, own_name: bool) -> float:
    return math.log10(max(population, 0) + 1) + (1.0 if own_name else 0.0)


def _initials(name: str) -> str:
    return "".join(word[0] for word in fold(name).split())


def _weak(data: Gazetteer, key: str, number: int, own_name: bool) -> bool:
    """Whether city ``number`` matches ``key`` only by a short alternate name that is not
    its initials ("la" is Los Angeles, "ab" is not Ibb)."""
    return (not own_name and len(key) <= _ABBREVIATION and key.isascii()
            and (len(key) < 2 or not _initials(data.city(number).name).startswith(key)))


def _ranked(data: Gazetteer, query: Query, *, constrained: bool = True) -> list[tuple[float, int]]:
    """``(score, city number)`` of the cities matching ``query``, best first."""
    matches = [(number, own_name) for number, own_name in data.lookup(query.city)
               if not _weak(data, query.city, number, own_name)]
    return _rank(data, matches, query if constrained else None)


def _rank(
    data: Gazetteer, matches: Iterable[tuple[int, bool]], query: Query | None
) -> list[tuple[float, int]]:
    """``(score, city number)`` of the ``matches`` that meet ``query``'s constraints."""
    found = [
        (_score(data.population(number), own_name), number)
        for number, own_name in matches
        if query is None or query.holds(data.country_code(number), data.admin1(number))
    ]
    found.sort(key=lambda item: (-item[0], data.index.geoname_id(item[1])))
    return found


def _label(city: City) -> str:
    table = countries()
    parts = [city.name]
    if city.country_code == "US" and city.admin1 in table.state_names:
        parts.append(table.state_names[city.admin1])
    parts.append(table.names.get(city.country_code, city.country_code))
    return ", ".join(parts)


def _others(data: Gazetteer, query: Query, found: list[tuple[float, int]]) -> tuple[str, ...]:
    """The labels of the places called like the query (own names only) that rank close to
    the best (within :data:`_CLOSE`) and that a region or country tells apart from it."""
    best_score, best = found[0]
    taken = _label(data.city(best))
    own = {number for number, own_name in data.lookup(query.city) if own_name}
    close = (data.city(number) for score, number in found[1:]
             if number in own and best_score - score < _CLOSE)
    return tuple(label for label in _labels(close) if label != taken)[:_MAX_SUGGESTIONS]


def _place(city: City, others: tuple[str, ...] = ()) -> Place:
    table = countries()
    return Place(
        name=city.name,
        lat=city.latitude,
        lng=city.longitude,
        country=table.names.get(city.country_code),
        country_code=city.country_code,
        region=table.state_names.get(city.admin1) if city.country_code == "US" else None,
        population=city.population,
        source="offline",
        identifier=str(city.geoname_id),
        others=others,
    )


def _labels(cities: Iterable[City]) -> tuple[str, ...]:
    labels: list[str] = []
    for city in cities:
        label = _label(city)
        if label not in labels:
            labels.append(label)
        if len(labels) == _MAX_SUGGESTIONS:
            break
    return tuple(labels)


def _close_matches(data: Gazetteer, query: Query) -> tuple[str, ...]:
    """Places in the query's country whose names are spelt like the query's city.

    The names come from the index's close-spelling search (:mod:`bodygraph.geo.places.fuzzy`),
    best first; places are then ordered by how alike the names are (to two decimals),
    then by score.
    """
    scored: list[tuple[float, float, int]] = []
    for match in data.index.speller().close(query.city):
        similarity = round(match.ratio, 2)
        ranked = _rank(data, data.at(match.position), query)
        scored.extend((similarity, score, number) for score, number in ranked)
    scored.sort(key=lambda item: (-item[0], -item[1]))
    return _labels(data.city(number) for _, _, number in scored)


class OfflineGeocoder:
    """Geocode from the GeoNames cities of the shipped index; no key, no network.

    ``min_population`` picks the fullest dataset consulted (cities over 500, 1,000, 5,000
    or 15,000 people). All datasets share one prebuilt index
    (:mod:`bodygraph.geo.places.gazetteer`): a new process maps it from the per-user cache in
    milliseconds (the first process on a machine unpacks it, a few tenths of a second).
    Lookups then take tens of microseconds and a miss with close-match suggestions tens
    of milliseconds; the gazetteer adds about 70 MB of resident memory, shared between
    processes. Instances are cheap, read-only and thread-safe.
    """

    def __init__(self, *, min_population: MinPopulation = 1000) -> None:
        if min_population not in (500, 1000, 5000, 15000):
            raise ValueError(
                f"min_population must be 500, 1000, 5000 or 15000, not {min_population!r}"
            )
        self.min_population: int = min_population

    def __repr__(self) -> str:
        return f"OfflineGeocoder(min_population={self.min_population})"

    def prepare(self) -> None:
        """Load the index and the close-spelling tables now, instead of on first use.

        Optional: a server may call it at start-up so that no request pays for it (and
        so that the per-user cache is filled).
        """
        gazetteer(self.min_population).index.speller()

    def geocode(self, query: str) -> Place:
        """Return the best place for ``query`` or raise :class:`LocationNotFoundError`.

        A text that cannot be a location (see
        :func:`~bodygraph.geo.places.base.check_location`) raises
        :class:`InvalidLocationError`.

        >>> OfflineGeocoder().geocode("zurich, CH").describe()
        'Zürich, Switzerland (47.3667° N, 8.5500° E)'
        """
        text = check_location(query)
        readings = parse_query(text)
        sizes = [_LARGE] if self.min_population == _LARGE else [_LARGE, self.min_population]
        for size in sizes:
            data = gazetteer(size)
            for reading in readings:
                found = _ranked(data, reading)
                if found and (size == sizes[-1] or found[0][0] > _SMALL_PLACE_CEILING):
                    return _place(data.city(found[0][1]), _others(data, reading, found))
        raise self._not_found(text, readings, gazetteer(sizes[-1]))

    @staticmethod
    def _not_found(text: str, readings: Sequence[Query], data: Gazetteer) -> LocationNotFoundError:
        first = readings[0]
        elsewhere = _ranked(data, first, constrained=False)
        if elsewhere:
            wanted = " / ".join(c.text for c in first.constraints)
            return LocationNotFoundError(
                text,
                _labels(data.city(number) for _, number in elsewhere),
                reason=f"no place of that name in {wanted}",
            )
        for reading in readings[:_FUZZY_READINGS]:
            suggestions = _close_matches(data, reading)
            if suggestions:
                return LocationNotFoundError(text, suggestions, reason="no place of that name")
        return LocationNotFoundError(text, reason="no place of that name, nor one spelt like it")
