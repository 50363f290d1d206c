"""The close-spelling search against plain difflib over every name."""

from __future__ import annotations

import difflib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bodygraph.geo.places.fuzzy import (
    CUTOFF,
    LENGTH_SLACK,
    Speller,
    popcount,
    signature,
    spelling_tables,
)
from bodygraph.geo.places.gazetteer import index
from bodygraph.geo.places.names import fold
from bodygraph.geo.places.store import decode


@pytest.fixture(scope="module")
def speller() -> Speller:
    return index().speller()


#: Misspellings of real cities, each compared with every name of the index.
_MISSPELLINGS = ["amsterdma", "berlni", "sna francisco", "muenchn"]
#: The least difflib ratio the brute force asks of a name.
_CLEARLY_CLOSE = 0.8


@pytest.fixture(scope="module")
def brute_force(shipped_payload) -> dict[str, dict[str, float]]:
    """For each of :data:`_MISSPELLINGS`: every name of the shipped index (read from the
    file itself, not through the index) within the length slack whose
    :class:`difflib.SequenceMatcher` ratio with it reaches :data:`_CLEARLY_CLOSE`.

    Every name goes through the same chain (``real_quick_ratio``, ``quick_ratio``,
    ``ratio``), but ``quick_ratio`` (the characters both hold, as a multiset) is first
    worked out for all names at once in NumPy, by counting every name's characters that
    occur in some misspelling; only the names it lets through are handed to difflib,
    whose ``quick_ratio`` then gives the same number. One pass over the names serves every
    misspelling, instead of a million ``SequenceMatcher`` calls for each.
    """
    block = decode(shipped_payload).arrays["key_bytes"]
    keys = block.tobytes().decode("utf-8").split("\n")[:-1]
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    # Each name's count of each character of a misspelling. They are ASCII, and in UTF-8
    # an ASCII byte is always that character, so the name bytes are counted. (Counts fit
    # 16 bits: no name has 65,536 bytes.)
    assert all(map(str.isascii, _MISSPELLINGS))
    ends = np.flatnonzero(block == ord("\n"))
    owner = np.repeat(np.arange(len(ends), dtype=np.int32), np.diff(ends, prepend=-1))
    counts = {char: np.bincount(owner[block == ord(char)], minlength=len(keys)).astype(
        np.uint16) for char in set("".join(_MISSPELLINGS))}
    found: dict[str, dict[str, float]] = {}
    for key in _MISSPELLINGS:
        shared = sum(np.minimum(counts[char], key.count(char)) for char in set(key))
        quick = 2.0 * shared / (lengths + len(key))
        near = np.abs(lengths - len(key)) <= LENGTH_SLACK
        matcher = difflib.SequenceMatcher(autojunk=False)
        matcher.set_seq2(key)
        found[key] = {}
        # (less a rounding margin: a filter, difflib decides)
        for position in np.flatnonzero(near & (quick >= _CLEARLY_CLOSE - 1e-9)).tolist():
            name = keys[position]
            matcher.set_seq1(name)
            if (name != key and matcher.real_quick_ratio() >= _CLEARLY_CLOSE
                    and matcher.quick_ratio() >= _CLEARLY_CLOSE
                    and matcher.ratio() >= _CLEARLY_CLOSE):
                found[key][name] = matcher.ratio()
    return found


def spelling_tables_of_index() -> dict[str, np.ndarray]:
    return dict(index().speller().tables.arrays)


def test_query_signatures_match_the_vectorised_ones(speller):
    shared = index()
    tables = spelling_tables_of_index()
    step = max(1, shared.key_count // 997)
    for position in range(0, shared.key_count, step):
        name = shared.key(position)
        low, high = signature(name)
        assert (low, high) == (int(tables["low"][position]), int(tables["high"][position])), name
        assert len(name) == tables["length"][position], name
        assert low.bit_count() + high.bit_count() == tables["bits"][position]


def test_the_tables_of_a_few_names_in_every_script():
    names = ["a", "berlin", "münchen", "москва", "東京", "القاهرة", "x" * 300]
    block = np.frombuffer(b"".join(n.encode() + b"\n" for n in names), dtype=np.uint8)
    starts = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum([len(n.encode()) + 1 for n in names], out=starts[1:])
    tables = spelling_tables(block, starts).arrays
    for position, name in enumerate(names):
        assert signature(name) == (int(tables["low"][position]), int(tables["high"][position]))
        assert tables["length"][position] == len(name)


@pytest.mark.slow
@pytest.mark.parametrize("query", _MISSPELLINGS)
def test_every_clearly_close_name_is_found(speller, brute_force, query):
    expected = brute_force[query]
    assert expected, "the brute force should find something for a real misspelling"
    found = {index().key(m.position): m.ratio for m in speller.close(query)}
    assert set(expected) <= set(found)
    assert all(ratio >= CUTOFF for ratio in found.values())
    for name, ratio in found.items():
        assert ratio == difflib.SequenceMatcher(None, name, query, autojunk=False).ratio()


def test_matches_come_best_first_and_never_the_query_itself(speller):
    matches = speller.close("berlin")
    ratios = [m.ratio for m in matches]
    assert ratios == sorted(ratios, reverse=True)
    assert "berlin" not in {index().key(m.position) for m in matches}
    assert speller.close("qxzvkjwqpl") == []


_NAMES = sorted({fold(name) for name in [
    "Amsterdam", "Barcelona", "Johannesburg", "Philadelphia", "Stockholm", "Edinburgh",
    "Marseille", "Guadalajara", "Wellington", "Saint Petersburg", "Copenhagen", "Montevideo",
    "Ljubljana", "Vladivostok", "Rotterdam", "Manchester", "Frankfurt am Main", "Bratislava",
]})


@st.composite
def _one_typo(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(st.sampled_from(_NAMES))
    at = draw(st.integers(0, len(name) - 2))
    letter = draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz"))
    kind = draw(st.sampled_from(["drop", "add", "swap", "replace"]))
    typo = {
        "drop": name[:at] + name[at + 1:],
        "add": name[:at] + letter + name[at:],
        "swap": name[:at] + name[at + 1] + name[at] + name[at + 2:],
        "replace": name[:at] + letter + name[at + 1:],
    }[kind]
    return name, typo


@settings(max_examples=60, deadline=None)
@given(_one_typo())
def test_one_typo_in_a_city_name_still_finds_it(speller, case):
    name, typo = case
    if typo != name:
        assert name in {index().key(m.position) for m in speller.close(typo)}


def test_popcount_without_numpy_bitwise_count(monkeypatch):
    values = np.array([0, 1, 2**64 - 1, 0x8000_0000_0000_0001, 12345678901234567],
                      dtype=np.uint64)
    expected = [bin(int(v)).count("1") for v in values]
    assert popcount(values).tolist() == expected
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    assert popcount(values).tolist() == expected
