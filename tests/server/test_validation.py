"""Parsing of request bodies: formats, calendar validity, the v1 century rule."""

from __future__ import annotations

import calendar
import json
from datetime import date, time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bodygraph_server.http.bodies import parse_json_object
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.validation import (
    parse_birthdate,
    parse_birthtime,
    parse_coordinates_input,
    parse_location_input,
    parse_v1_birthdate,
    parse_v1_input,
    v1_century,
)

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def code_of(call: Any, *args: Any) -> ErrorCode:
    with pytest.raises(ApiError) as caught:
        call(*args)
    return caught.value.code


@given(st.dates(min_value=date(1, 1, 1)))
def test_every_calendar_date_round_trips(day: date) -> None:
    assert parse_birthdate(day.strftime("%Y-%m-%d") if day.year >= 1000 else
                           f"{day.year:04d}-{day.month:02d}-{day.day:02d}") == day


@given(st.integers(0, 9999), st.integers(0, 99), st.integers(0, 99))
def test_dates_exist_or_are_refused(year: int, month: int, day: int) -> None:
    text = f"{year:04d}-{month:02d}-{day:02d}"
    exists = (
        year >= 1 and 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]
    )
    if exists:
        assert parse_birthdate(text) == date(year, month, day)
    else:
        assert code_of(parse_birthdate, text) is ErrorCode.INVALID_BIRTHDATE


@pytest.mark.parametrize(
    "text",
    ["", "2023-2-03", "23-02-03", "2023/02/03", "2023-02-03T00:00", " 2023-02-03",
     "٢٠٢٣-٠٢-٠٣", "2023-02-30", "2023-13-01", "0000-01-01", "2023-00-10"],
)
def test_bad_dates(text: str) -> None:
    assert code_of(parse_birthdate, text) is ErrorCode.INVALID_BIRTHDATE


@given(st.integers(0, 99), st.integers(0, 99))
def test_times(hour: int, minute: int) -> None:
    text = f"{hour:02d}:{minute:02d}"
    if hour < 24 and minute < 60:
        assert parse_birthtime(text) == time(hour, minute)
    else:
        assert code_of(parse_birthtime, text) is ErrorCode.INVALID_BIRTHTIME


@pytest.mark.parametrize("text", ["", "24:00", "9:30", "09:5", "09:30:00", "0930", "ab:cd"])
def test_bad_times(text: str) -> None:
    assert code_of(parse_birthtime, text) is ErrorCode.INVALID_BIRTHTIME


@given(st.integers(0, 99), st.integers(2000, 2099))
def test_century_rule(two: int, current: int) -> None:
    year = v1_century(two, date(current, 6, 1))
    assert year % 100 == two
    assert year <= current  # never a future year...
    assert current - year < 100  # ...and the most recent such year


def test_century_rule_examples() -> None:
    today = date(2026, 3, 10)
    assert v1_century(26, today) == 2026
    assert v1_century(27, today) == 1927
    assert v1_century(0, today) == 2000
    assert v1_century(99, today) == 1999


@given(st.dates(min_value=date(1927, 1, 1), max_value=date(2026, 12, 31)))
def test_v1_dates_in_the_window_round_trip(day: date) -> None:
    text = f"{day.day:02d}-{MONTHS[day.month - 1]}-{day.year % 100:02d}"
    assert parse_v1_birthdate(text, date(2026, 12, 31)) == day
    assert parse_v1_birthdate(text.upper(), date(2026, 12, 31)) == day


@pytest.mark.parametrize("text", ["", "1990-07-15", "15-July-90", "15-Jux-90", "31-Feb-90",
                                  "15-Jul-1990", "15 Jul 90", "123-Jul-90"])
def test_bad_v1_dates(text: str) -> None:
    assert code_of(parse_v1_birthdate, text, date(2026, 1, 1)) is ErrorCode.INVALID_BIRTHDATE


def test_v1_one_digit_day() -> None:
    assert parse_v1_birthdate("5-Mar-85", date(2026, 1, 1)) == date(1985, 3, 5)


@pytest.mark.parametrize(
    "raw",
    [b"", b"   ", b"{", b"[]", b"42", b'"text"', b"null", b'{"a": NaN}', b'{"a": Infinity}',
     b"\xff\xfe\x00", b"[" * 100_000],
)
def test_bodies_that_are_not_objects(raw: bytes) -> None:
    assert code_of(parse_json_object, raw) is ErrorCode.INVALID_REQUEST_BODY


VALID = {"birthdate": "1990-07-15", "birthtime": "14:30", "location": "Berlin, Germany"}
VALID_COORDS = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"birthdate": None}, ErrorCode.MISSING_REQUIRED_FIELD),
        ({"birthtime": None}, ErrorCode.MISSING_REQUIRED_FIELD),
        ({"location": None}, ErrorCode.MISSING_REQUIRED_FIELD),
        ({"birthdate": 19900715}, ErrorCode.INVALID_REQUEST_BODY),
        ({"birthtime": ["14:30"]}, ErrorCode.INVALID_REQUEST_BODY),
        ({"location": {"city": "Berlin"}}, ErrorCode.INVALID_REQUEST_BODY),
        ({"birthdate": ""}, ErrorCode.INVALID_BIRTHDATE),
        ({"birthtime": ""}, ErrorCode.INVALID_BIRTHTIME),
        ({"location": ""}, ErrorCode.INVALID_LOCATION),
        ({"location": "Rom"}, ErrorCode.INVALID_LOCATION),
        ({"location": "   Rom   "}, ErrorCode.INVALID_LOCATION),
        ({"location": "x" * 201}, ErrorCode.INVALID_LOCATION),
        ({"location": "Berlin" + " " * 195}, ErrorCode.INVALID_LOCATION),
    ],
)
def test_location_input_errors(change: dict[str, Any], code: ErrorCode) -> None:
    body = {k: v for k, v in {**VALID, **change}.items() if v is not None}
    assert code_of(parse_location_input, body) is code


def test_location_bounds_inclusive() -> None:
    assert parse_location_input({**VALID, "location": "Rome"}).location == "Rome"
    assert len(parse_location_input({**VALID, "location": "x" * 200}).location) == 200


def test_first_failing_field_decides() -> None:
    body = {"birthdate": "bad", "birthtime": "bad"}
    assert code_of(parse_location_input, body) is ErrorCode.INVALID_BIRTHDATE
    assert code_of(parse_location_input, {"birthtime": "bad"}) is (
        ErrorCode.MISSING_REQUIRED_FIELD
    )


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"lat": None}, ErrorCode.MISSING_REQUIRED_FIELD),
        ({"lng": None}, ErrorCode.MISSING_REQUIRED_FIELD),
        ({"lat": "52.5"}, ErrorCode.INVALID_LATITUDE),
        ({"lat": True}, ErrorCode.INVALID_LATITUDE),
        ({"lat": 90.0001}, ErrorCode.INVALID_LATITUDE),
        ({"lat": -91}, ErrorCode.INVALID_LATITUDE),
        ({"lat": 10**400}, ErrorCode.INVALID_LATITUDE),
        ({"lng": 180.5}, ErrorCode.INVALID_LONGITUDE),
        ({"lng": [1]}, ErrorCode.INVALID_LONGITUDE),
        ({"lng": False}, ErrorCode.INVALID_LONGITUDE),
    ],
)
def test_coordinate_errors(change: dict[str, Any], code: ErrorCode) -> None:
    body = {k: v for k, v in {**VALID_COORDS, **change}.items() if v is not None}
    assert code_of(parse_coordinates_input, body) is code


@given(st.floats(-90, 90), st.floats(-180, 180))
def test_coordinates_in_range_are_kept(lat: float, lng: float) -> None:
    parsed = parse_coordinates_input({**VALID_COORDS, "lat": lat, "lng": lng})
    assert (parsed.lat, parsed.lng) == (lat, lng)


def test_overflowing_float_text_is_refused() -> None:
    body = parse_json_object(b'{"lat": 1e999, "lng": 0, "birthdate": "1990-01-01", '
                             b'"birthtime": "00:00"}')
    assert code_of(parse_coordinates_input, body) is ErrorCode.INVALID_LATITUDE


def test_unknown_members_are_ignored() -> None:
    body = parse_json_object(json.dumps({**VALID, "name": "x"}).encode())
    assert parse_location_input(body).location == "Berlin, Germany"


def test_v1_input() -> None:
    parsed = parse_v1_input({"birthdate": "15-Jul-90", "birthtime": "14:30",
                             "location": "Berlin" * 33}, date(2026, 1, 1))
    assert parsed.birthdate == date(1990, 7, 15)
    assert len(parsed.location) == 198
    assert code_of(parse_v1_input, {"birthdate": "15-Jul-90", "birthtime": "14:30",
                                    "location": "Berlin" * 34}, date(2026, 1, 1)
                   ) is ErrorCode.INVALID_LOCATION  # v1 takes v2's maximum
    assert code_of(parse_v1_input, {"birthdate": "15-Jul-90", "birthtime": "14:30",
                                    "location": "Rom"}, date(2026, 1, 1)) is (
        ErrorCode.INVALID_LOCATION
    )
