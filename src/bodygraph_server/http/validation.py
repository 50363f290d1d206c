"""Parsing of request bodies into typed inputs (contract 2.2, 2.3 and the v1 body).

Rules (also in ``docs/api.md``):

* The body must be a JSON object (strict JSON: no ``NaN``/``Infinity``); otherwise
  INVALID_REQUEST_BODY (422). Unknown members are ignored.
* Fields are checked in contract order (birthdate, birthtime, then location or lat, lng);
  the first failing field decides the error.
* A field that is absent or ``null`` -> MISSING_REQUIRED_FIELD (400).
* A text field (birthdate, birthtime, location) that is not a JSON string ->
  INVALID_REQUEST_BODY (422). lat/lng that are not JSON numbers (booleans and numeric
  strings included) -> INVALID_LATITUDE / INVALID_LONGITUDE (400), as the table says.
* birthdate: ``YYYY-MM-DD`` with ASCII digits and a day that exists in the Gregorian
  calendar; otherwise (the empty string included) INVALID_BIRTHDATE.
* birthtime: ``HH:MM``, hours 00-23, minutes 00-59 (``24:00`` is refused);
  otherwise INVALID_BIRTHTIME.
* location (v1 and v2): 4 to 200 characters, and still at least 4 once surrounding
  white space is trimmed (the trimmed text is geocoded), with no control character and
  no lone surrogate (a ``\\ud800`` escape is valid JSON but not text; the library's
  :func:`bodygraph.geo.places.base.check_location` decides); otherwise INVALID_LOCATION.
* The body is UTF-8 (no byte-order mark); UTF-16 or UTF-32 bodies, which Python's JSON
  parser would guess, are INVALID_REQUEST_BODY (422).
* lat -90..90, lng -180..180, inclusive, finite.
* v1 birthdate ``DD-MMM-YY``: day of one or two digits, English month abbreviation in
  any letter case, two-digit year. Century rule: the year is ``20YY`` unless that lies
  after the current year, in which case it is ``19YY`` (a birth date is never read as a
  future year; in 2026, ``26`` is 2026 and ``27`` is 1927).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, time
from typing import Any

from bodygraph.geo.places.base import InvalidLocationError, check_location
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.fields import (
    BIRTHDATE,
    BIRTHTIME,
    LAT_RANGE,
    LNG_RANGE,
    LOCATION_MAX,
    LOCATION_MIN,
    MONTH_NAMES,
    V1_BIRTHDATE,
)

_DATE = re.compile(BIRTHDATE)
_TIME = re.compile(BIRTHTIME)
_V1_DATE = re.compile(V1_BIRTHDATE)


@dataclass(frozen=True, slots=True)
class LocationInput:
    """A birth given with a place name (contract 2.2, and the v1 body)."""

    birthdate: date
    birthtime: time
    location: str


@dataclass(frozen=True, slots=True)
class CoordinatesInput:
    """A birth given with coordinates (contract 2.3)."""

    birthdate: date
    birthtime: time
    lat: float
    lng: float


def required(body: Mapping[str, Any], name: str) -> object:
    """Member ``name`` of the body; MISSING_REQUIRED_FIELD when absent or null."""
    value = body.get(name)
    if value is None:
        raise ApiError(ErrorCode.MISSING_REQUIRED_FIELD, f"Missing required field: {name}")
    return value


def _text(body: Mapping[str, Any], name: str) -> str:
    value = required(body, name)
    if not isinstance(value, str):
        raise ApiError(ErrorCode.INVALID_REQUEST_BODY, f"{name} must be a string")
    return value


def parse_birthdate(text: str) -> date:
    """``YYYY-MM-DD`` that exists in the calendar."""
    match = _DATE.fullmatch(text)
    if match is None:
        raise ApiError(ErrorCode.INVALID_BIRTHDATE, "birthdate must be YYYY-MM-DD")
    try:
        return date(*(int(part) for part in match.groups()))
    except ValueError:
        raise ApiError(ErrorCode.INVALID_BIRTHDATE, "birthdate is not a calendar date") from None


def parse_birthtime(text: str) -> time:
    """``HH:MM``, 00:00 to 23:59."""
    match = _TIME.fullmatch(text)
    if match is None:
        raise ApiError(ErrorCode.INVALID_BIRTHTIME, "birthtime must be HH:MM, 00:00 to 23:59")
    hour, minute = (int(part) for part in match.groups())
    return time(hour, minute)


def v1_century(two_digits: int, today: date) -> int:
    """The four-digit year of a v1 two-digit year: ``20YY`` unless after ``today``'s
    year, else ``19YY``."""
    year = 2000 + two_digits
    return year if year <= today.year else year - 100


def parse_v1_birthdate(text: str, today: date) -> date:
    """``DD-MMM-YY`` (e.g. ``07-Mar-85``) with the century rule of :func:`v1_century`."""
    match = _V1_DATE.fullmatch(text)
    if match is None:
        raise ApiError(ErrorCode.INVALID_BIRTHDATE, "birthdate must be DD-MMM-YY")
    month = MONTH_NAMES.index(match.group(2).lower()) + 1
    year = v1_century(int(match.group(3)), today)
    try:
        return date(year, month, int(match.group(1)))
    except ValueError:
        raise ApiError(ErrorCode.INVALID_BIRTHDATE, "birthdate is not a calendar date") from None


def _location(body: Mapping[str, Any]) -> str:
    raw = _text(body, "location")
    text = raw.strip()
    if not LOCATION_MIN <= len(raw) <= LOCATION_MAX or len(text) < LOCATION_MIN:
        raise ApiError(ErrorCode.INVALID_LOCATION,
                       f"location must be {LOCATION_MIN} to {LOCATION_MAX} characters")
    try:
        return check_location(text)
    except InvalidLocationError as exc:
        raise ApiError(ErrorCode.INVALID_LOCATION, str(exc)) from None


def _coordinate(
    body: Mapping[str, Any], name: str, bounds: tuple[float, float], code: ErrorCode
) -> float:
    value = required(body, name)
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ApiError(code, f"{name} must be a number from {low:g} to {high:g}")
    number = float(value) if not isinstance(value, int) or abs(value) < 10**6 else math.inf
    if not (math.isfinite(number) and low <= number <= high):
        raise ApiError(code, f"{name} must be a number from {low:g} to {high:g}")
    return number


def parse_location_input(body: Mapping[str, Any]) -> LocationInput:
    """Contract 2.2."""
    birthdate = parse_birthdate(_text(body, "birthdate"))
    birthtime = parse_birthtime(_text(body, "birthtime"))
    return LocationInput(birthdate, birthtime, _location(body))


def parse_coordinates_input(body: Mapping[str, Any]) -> CoordinatesInput:
    """Contract 2.3."""
    birthdate = parse_birthdate(_text(body, "birthdate"))
    birthtime = parse_birthtime(_text(body, "birthtime"))
    lat = _coordinate(body, "lat", LAT_RANGE, ErrorCode.INVALID_LATITUDE)
    lng = _coordinate(body, "lng", LNG_RANGE, ErrorCode.INVALID_LONGITUDE)
    return CoordinatesInput(birthdate, birthtime, lat, lng)


def parse_v1_input(body: Mapping[str, Any], today: date) -> LocationInput:
    """The legacy body: birthdate ``DD-MMM-YY``, birthtime ``HH:MM``, location as v2."""
    birthdate = parse_v1_birthdate(_text(body, "birthdate"), today)
    birthtime = parse_birthtime(_text(body, "birthtime"))
    return LocationInput(birthdate, birthtime, _location(body))
