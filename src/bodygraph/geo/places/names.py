"""Folding place names for comparison, the country table, and reading a location query.

A query is ``"City"``, ``"City, Country"`` or ``"City, Region, Country"``. The country part
may be an English country name, an ISO 3166 code (``DE``, ``DEU``) or a common alias
(``USA``, ``UK``, ``Deutschland``, ...); in the United States a region part may be a state's
name or postal code. Parts that are recognised become constraints the place must meet;
parts that are not (a region outside the United States, say) cannot be checked and are
left out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from bodygraph.geo.places import countrydata
from bodygraph.geo.places.base import InvalidLocationError, check_location

__all__ = [
    "Constraint", "Countries", "Query", "countries", "decompose", "fold", "fold_lines", "is_mark",
    "is_separator", "parse_query", "plain_letters",
]

#: Letters that Unicode does not decompose into a base letter and an accent.
_SPECIAL: Final[Mapping[str, str]] = {
    "ø": "o", "ł": "l", "đ": "d", "ð": "d", "æ": "ae", "œ": "oe", "\u0131": "i", "þ": "th",
}
_SPECIAL_RE: Final = re.compile("[" + "".join(_SPECIAL) + "]")
#: Combining diacritical marks (the accents of Latin, Greek and Cyrillic letters) and
#: zero-width joiners, which are dropped.
_MARKS: Final = re.compile("[\u0300-\u036f\u200b-\u200d\u2060\ufeff]+")
#: Blanks (NFKD has made other spaces plain), dashes, apostrophes and dots read as a space:
#: a run of them becomes one space. (A lone space, the most common run by far, is left
#: alone rather than replaced by itself: far fewer replacements.)
_SEPARATORS: Final = re.compile("[ \t\r\f\v\u2010-\u2015'\u2019\u02bb`.-]{2,}"
                                "|[\t\r\f\v\u2010-\u2015'\u2019\u02bb`.-]")

#: Common names of countries that GeoNames' English names do not cover (already folded).
_COUNTRY_ALIASES: Final[Mapping[str, str]] = {
    "usa": "US", "u s a": "US", "u s": "US", "united states of america": "US",
    "america": "US",
    "uk": "GB", "u k": "GB", "great britain": "GB", "britain": "GB", "england": "GB",
    "scotland": "GB", "wales": "GB", "northern ireland": "GB",
    "holland": "NL", "nederland": "NL",
    "deutschland": "DE", "osterreich": "AT", "schweiz": "CH", "suisse": "CH",
    "svizzera": "CH", "espana": "ES", "italia": "IT", "brasil": "BR",
    "czech republic": "CZ", "cesko": "CZ", "polska": "PL", "sverige": "SE", "norge": "NO",
    "danmark": "DK", "suomi": "FI", "magyarorszag": "HU", "hellas": "GR", "ellada": "GR",
    "eire": "IE", "turkiye": "TR", "russian federation": "RU", "rossiya": "RU",
    "россия": "RU", "korea": "KR", "republic of korea": "KR", "nihon": "JP", "nippon": "JP",
    "日本": "JP", "中国": "CN", "prc": "CN", "zhongguo": "CN", "burma": "MM",
    "swaziland": "SZ", "macedonia": "MK", "uae": "AE", "persia": "IR", "east timor": "TL",
    "cape verde": "CV", "viet nam": "VN", "palestine": "PS", "cote d ivoire": "CI",
    "vatican city": "VA", "bharat": "IN", "aotearoa": "NZ",
}


def fold_lines(text: str) -> list[str]:
    """Fold every line of ``text`` (see :func:`fold`): the reference that the gazetteer
    build's :func:`~bodygraph.geo.places.foldblock.fold_block` matches."""
    # (An ASCII text has nothing to decompose, no marks and no special letters.)
    text = text.lower() if text.isascii() else plain_letters(_MARKS.sub("", decompose(text)))
    return list(map(str.strip, _SEPARATORS.sub(" ", text).split("\n")))


def decompose(text: str) -> str:
    """``text`` case folded, with its compatibility forms and accented letters decomposed:
    the first step of folding a text that is not ASCII."""
    # Compatibility forms first (a mathematical or circled capital has no lower case of
    # its own, but its plain letter does), then case, then decompose what case folding made.
    return unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text).casefold())


def plain_letters(text: str) -> str:
    """``text`` with the letters that do not decompose (see :data:`_SPECIAL`) made plain."""
    return _SPECIAL_RE.sub(lambda match: _SPECIAL[match.group()], text)


def is_mark(char: str) -> bool:
    """Whether ``char`` is a mark that folding drops (after :func:`decompose`)."""
    return _MARKS.fullmatch(char) is not None


def is_separator(char: str) -> bool:
    """Whether ``char`` is a separator: a run of them folds to one space (or none, at
    either end of the text)."""
    return _SEPARATORS.fullmatch(char * 2) is not None


def fold(text: str) -> str:
    """Fold a place name for comparison: case, accents, dashes, apostrophes and dots go.

    Scripts without such accents (Cyrillic names keep their letters, CJK is untouched)
    compare as written.

    >>> fold("  Saint-Étienne ")
    'saint etienne'
    >>> fold("KØBENHAVN") == fold("københavn") == "kobenhavn"
    True
    """
    return fold_lines(text.replace("\n", " ").replace("\r", " "))[0]


@dataclass(frozen=True, slots=True)
class Countries:
    """Country and US-state names, as the gazetteer needs them."""

    names: Mapping[str, str]  # ISO alpha-2 -> English name
    by_key: Mapping[str, frozenset[str]]  # folded name, code or alias -> ISO alpha-2 codes
    states: Mapping[str, str]  # folded US state name or postal code -> postal code
    state_names: Mapping[str, str]  # postal code -> state name


@cache
def countries() -> Countries:
    """The country table (GeoNames' countries and US states plus common aliases).

    The names come from the shipped ``countries.json`` (:mod:`.countrydata`).
    """
    data = countrydata.load()
    by_key: dict[str, set[str]] = {}

    def add(text: str, code: str) -> None:
        key = fold(text)
        if key:
            by_key.setdefault(key, set()).add(code)
            if key.startswith("the "):
                by_key.setdefault(key[4:], set()).add(code)

    names: dict[str, str] = {}
    for code, (name, iso3) in data.countries.items():
        names[code] = name
        add(name, code)
        add(code, code)
        add(iso3, code)
    for alias, code in _COUNTRY_ALIASES.items():
        add(alias, code)
    states: dict[str, str] = {}
    state_names: dict[str, str] = {}
    for code, name in data.us_states.items():
        state_names[code] = name
        states[fold(name)] = code
        states[fold(code)] = code
    states[fold("Washington, D.C.")] = states[fold("D.C.")] = "DC"
    return Countries(
        names=names,
        by_key={key: frozenset(codes) for key, codes in by_key.items()},
        states=states,
        state_names=state_names,
    )


@cache
def _longest_name() -> int:
    """The most words of a country or US state name (or alias) in the table."""
    table = countries()
    return max(len(key.split()) for key in [*table.by_key, *table.states])


@dataclass(frozen=True, slots=True)
class Constraint:
    """A recognised part of a query: the place lies in one of these countries or states."""

    text: str
    countries: frozenset[str]
    states: frozenset[str]

    def holds(self, country_code: str, admin1: str) -> bool:
        """Whether a place in ``country_code`` / first-level division ``admin1`` meets it."""
        return country_code in self.countries or (country_code == "US" and admin1 in self.states)


@dataclass(frozen=True, slots=True)
class Query:
    """One reading of a location text: the folded city name and the constraints."""

    text: str
    city: str
    constraints: tuple[Constraint, ...]

    def holds(self, country_code: str, admin1: str) -> bool:
        """Whether a place meets every constraint."""
        return all(c.holds(country_code, admin1) for c in self.constraints)


def _constraint(part: str, *, as_country: bool, as_state: bool) -> Constraint | None:
    table = countries()
    key = fold(part)
    codes = table.by_key.get(key, frozenset()) if as_country else frozenset()
    state = table.states.get(key) if as_state else None
    if not codes and state is None:
        return None
    return Constraint(part, codes, frozenset({state}) if state else frozenset())


def parse_query(text: str) -> Sequence[Query]:
    """The readings of a location text, the most literal first.

    A text that cannot be a location (see :func:`~bodygraph.geo.places.base.check_location`)
    raises :class:`InvalidLocationError`.

    >>> [q.city for q in parse_query("Berlin Germany")]
    ['berlin germany', 'berlin']
    """
    text = check_location(text)
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts or not fold(parts[0]):
        raise InvalidLocationError(f"no place name in {text!r}")
    city, *qualifiers = parts
    if not qualifiers:
        readings = [Query(text, fold(city), ())]
        words = city.split()
        # "Berlin Germany": a trailing country or US state written without a comma (of no
        # more words than the longest such name).
        for cut in range(len(words) - 1, max(0, len(words) - 1 - _longest_name()), -1):
            last = _constraint(" ".join(words[cut:]), as_country=True, as_state=True)
            if last is not None:
                readings.append(Query(text, fold(" ".join(words[:cut])), (last,)))
        return readings
    constraints: list[Constraint] = []
    last = _constraint(qualifiers[-1], as_country=True, as_state=True)
    if last is not None:
        constraints.append(last)
        if "US" in last.countries or last.states:
            for middle in qualifiers[:-1]:
                state = _constraint(middle, as_country=False, as_state=True)
                if state is not None:
                    constraints.append(state)
    return [Query(text, fold(city), tuple(constraints))]
