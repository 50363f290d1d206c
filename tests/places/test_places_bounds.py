"""What a location text costs and what it may hold: bounded length, bounded fuzzy work,
no guess on weak matches, and only the library's own errors for any text."""

from __future__ import annotations

import contextlib
import difflib
import random
import string
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bodygraph.errors import BodygraphError
from bodygraph.geo.places import (
    InvalidLocationError,
    LocationNotFoundError,
    OfflineGeocoder,
    Place,
    default_geocoder,
    fuzzy,
    offline,
)
from bodygraph.geo.places.base import MAX_LOCATION_LENGTH, check_location
from bodygraph.geo.places.gazetteer import index
from bodygraph.geo.places.names import parse_query
from bodygraph_server.http.errors import from_library_error

#: The most exact comparisons one lookup may make.
_MOST_COMPARED = offline._FUZZY_READINGS * fuzzy.MAX_COMPARISONS


@contextlib.contextmanager
def _counting_comparisons() -> Iterator[list[int]]:
    """Count the names compared exactly (``set_seq1``) while the block runs."""
    counted = [0]
    original = difflib.SequenceMatcher.set_seq1

    def counting(self: difflib.SequenceMatcher[str], name: str) -> None:
        counted[0] += 1
        original(self, name)

    difflib.SequenceMatcher.set_seq1 = counting  # type: ignore[method-assign]
    try:
        yield counted
    finally:
        difflib.SequenceMatcher.set_seq1 = original  # type: ignore[method-assign]


def _junk() -> list[str]:
    rng = random.Random(11)
    return [
        "x" * 200,
        "ab " * 66,
        ", ".join(["ab"] * 50),
        "-" * 199 + "a",
        "saint " * 33,
        "".join(rng.choice(string.ascii_lowercase) for _ in range(200)),
        "".join(rng.choice("an") for _ in range(12)),
        "".join(rng.choice("aeinorst") for _ in range(6)),
        "".join(rng.choice("aeinorst ") for _ in range(30)),
        "москва" * 30,
        "東京" * 100,
    ]


@pytest.mark.parametrize("length", [MAX_LOCATION_LENGTH + 1, 5000])
def test_a_location_text_over_200_characters_is_invalid(length):
    with pytest.raises(InvalidLocationError, match="the most is 200"):
        default_geocoder().geocode("Berlin " + "x" * (length - 7))
    with pytest.raises(InvalidLocationError):
        parse_query("a" * length)


def test_200_characters_are_looked_up():
    text = "Berlin, Germany".ljust(MAX_LOCATION_LENGTH)
    assert len(text) == MAX_LOCATION_LENGTH
    assert default_geocoder().geocode(text).country_code == "DE"


@pytest.mark.parametrize("text", [
    "\ud800Berlin", "Berlin\udfff", "Ber\x00lin", "Berlin\x07, Germany", "Ber\nlin", "\x9bBerlin",
])
def test_lone_surrogates_and_control_characters_are_invalid(text):
    with pytest.raises(InvalidLocationError, match="not text") as raised:
        default_geocoder().geocode(text)
    str(raised.value).encode("utf-8")  # the message itself can be written anywhere
    assert from_library_error(raised.value).code == "INVALID_LOCATION"


def test_surrounding_blanks_are_not_control_characters():
    assert check_location("\tBerlin\n") == "Berlin"
    assert default_geocoder().geocode("  Berlin\r\n").country_code == "DE"


def test_a_short_alternate_name_is_no_match_unless_initials():
    with pytest.raises(LocationNotFoundError):
        default_geocoder().geocode("ab, ab")  # was Ibb, Yemen ("ab" is one of its names)
    with pytest.raises(LocationNotFoundError):
        default_geocoder().geocode("ab")
    for text, name in [("LA", "Los Angeles"), ("NY", "New York City"), ("SF", "San Francisco"),
                       ("KL", "Kuala Lumpur"), ("北京", "Beijing")]:
        assert default_geocoder().geocode(text).name == name, text


@pytest.mark.parametrize("text", _junk())
def test_junk_costs_a_bounded_number_of_comparisons(text):
    geocoder = OfflineGeocoder(min_population=500)
    with _counting_comparisons() as counted, contextlib.suppress(LocationNotFoundError):
        geocoder.geocode(text)
    assert counted[0] <= _MOST_COMPARED


def test_the_comparison_counter_sees_a_close_match():
    """The bounds above are not hollow: a misspelling is found by counted comparisons."""
    with _counting_comparisons() as counted, pytest.raises(LocationNotFoundError,
                                                          match="Berlin, Germany"):
        OfflineGeocoder(min_population=500).geocode("Berlni")
    assert 0 < counted[0] <= _MOST_COMPARED


def test_the_bound_of_each_candidate_is_at_least_its_ratio():
    speller = index().speller()
    for key in ["berlni", "amsterdma", "москва", "東京都", "saint etienne", "anannan"]:
        positions = np.sort(speller.candidates(key))
        bounds = speller._bounds(key, positions)
        for position, bound in zip(positions.tolist(), bounds.tolist(), strict=True):
            name = index().key(position)
            ratio = difflib.SequenceMatcher(None, name, key, autojunk=False).ratio()
            assert bound >= ratio - 1e-12, (key, name)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=MAX_LOCATION_LENGTH))
def test_any_text_is_a_place_or_a_clear_error_within_bounded_work(text):
    with _counting_comparisons() as counted:
        try:
            found = default_geocoder().geocode(text)
        except BodygraphError as error:
            assert isinstance(error, (InvalidLocationError, LocationNotFoundError))
            str(error).encode("utf-8")
        else:
            assert isinstance(found, Place)
    assert counted[0] <= _MOST_COMPARED


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_the_place_parser_raises_only_its_own_error(text):
    try:
        readings = parse_query(text)
    except InvalidLocationError:
        return
    assert readings and all(reading.city for reading in readings)
