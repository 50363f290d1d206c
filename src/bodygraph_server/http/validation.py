"""The contract's three request bodies (2.2, 2.3 and the v1 body), each one declarative
:class:`~bodygraph_server.http.body.Body` from which its parser and JSON Schema are made
(the rules: docs/api.md, "Inputs (validation)")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, time
from typing import Any

from bodygraph.geo.places.base import check_location
from bodygraph_server.http.body import (
    Body,
    number_field,
    pattern_field,
    required,
    text_field,
)
from bodygraph_server.http.errors import ErrorCode
from bodygraph_server.http.fields import (
    BIRTHDATE,
    BIRTHTIME,
    DATE_PATTERN,
    LAT_RANGE,
    LNG_RANGE,
    LOCATION_DOCUMENTED,
    LOCATION_MAX,
    LOCATION_MIN,
    MONTH_NAMES,
    SUPPORTED_RANGE,
    TIME_PATTERN,
    V1_BIRTHDATE,
    V1_DATE_PATTERN,
)

__all__ = [
    "BIRTHDATE_FIELD", "BIRTHTIME_FIELD", "CHART_INPUT", "COORDINATES_INPUT", "V1_INPUT",
    "CoordinatesInput", "LocationInput", "birth_list_schema", "input_schemas",
    "parse_birthdate", "parse_birthtime", "parse_coordinates_input", "parse_location_input",
    "parse_v1_birthdate", "parse_v1_input", "required", "v1_century",
]

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


def v1_century(two_digits: int, today: date) -> int:
    """The four-digit year of a v1 two-digit year: ``20YY`` unless after ``today``'s
    year, else ``19YY``."""
    year = 2000 + two_digits
    return year if year <= today.year else year - 100


def _day(match: re.Match[str], today: date) -> date:
    return date(*(int(part) for part in match.groups()))


def _v1_day(match: re.Match[str], today: date) -> date:
    month = MONTH_NAMES.index(match.group(2).lower()) + 1
    return date(v1_century(int(match.group(3)), today), month, int(match.group(1)))


def _time(match: re.Match[str], today: date) -> time:
    hour, minute = (int(part) for part in match.groups())
    return time(hour, minute)


def _checked_location(text: str) -> str:
    return check_location(text)  # InvalidLocationError is a ValueError


BIRTHDATE_FIELD = pattern_field(
    name="birthdate", code=ErrorCode.INVALID_BIRTHDATE, pattern=BIRTHDATE,
    documented=DATE_PATTERN, mismatch="birthdate must be YYYY-MM-DD", convert=_day,
    schema={"format": "date", "examples": ["1990-07-15"],
            "description": "Local birth date YYYY-MM-DD; must exist in the calendar and lie "
            f"in the ephemeris range ({SUPPORTED_RANGE} with the shipped one; the UTC "
            "instant decides the edge days)."})
BIRTHTIME_FIELD = pattern_field(
    name="birthtime", code=ErrorCode.INVALID_BIRTHTIME, pattern=BIRTHTIME,
    documented=TIME_PATTERN, mismatch="birthtime must be HH:MM, 00:00 to 23:59",
    convert=_time,
    schema={"examples": ["14:30"],
            "description": "Local birth time HH:MM, 24-hour, 00:00 to 23:59."})
_V1_BIRTHDATE_FIELD = pattern_field(
    name="birthdate", code=ErrorCode.INVALID_BIRTHDATE, pattern=V1_BIRTHDATE,
    documented=V1_DATE_PATTERN, mismatch="birthdate must be DD-MMM-YY", convert=_v1_day,
    schema={"examples": ["15-Jul-90"],
            "description": "DD-MMM-YY; YY is 20YY unless that is after the current year, "
            "else 19YY; the day must exist in the calendar (not statable as a pattern: "
            "31-Feb-90 is refused with 400 INVALID_BIRTHDATE)."})


def _location(description: str) -> Any:
    return text_field(
        name="location", code=ErrorCode.INVALID_LOCATION, lengths=(LOCATION_MIN, LOCATION_MAX),
        documented=LOCATION_DOCUMENTED, check=_checked_location,
        schema={"examples": ["Berlin, Germany"], "description": description})


CHART_INPUT = Body("ChartInput", (
    BIRTHDATE_FIELD, BIRTHTIME_FIELD,
    _location("City and country; 4 to 200 characters, at least 4 once surrounding white "
              "space is trimmed, no control character.")), LocationInput)
"""Contract 2.2."""
COORDINATES_INPUT = Body("CoordinatesInput", (
    BIRTHDATE_FIELD, BIRTHTIME_FIELD,
    number_field(name="lat", code=ErrorCode.INVALID_LATITUDE, bounds=LAT_RANGE,
                 schema={"examples": [52.52]}),
    number_field(name="lng", code=ErrorCode.INVALID_LONGITUDE, bounds=LNG_RANGE,
                 schema={"examples": [13.405]})), CoordinatesInput)
"""Contract 2.3."""
V1_INPUT = Body("V1Input", (
    _V1_BIRTHDATE_FIELD, BIRTHTIME_FIELD,
    _location("4 to 200 characters, at least 4 once trimmed, no control character (the "
              "contract's minimum, and v2's maximum).")), LocationInput)
"""The legacy body: birthdate ``DD-MMM-YY``, birthtime ``HH:MM``, location as v2."""


def parse_birthdate(text: str) -> date:
    """``YYYY-MM-DD`` that exists in the calendar."""
    day: date = BIRTHDATE_FIELD.read(text, date.min)
    return day


def parse_birthtime(text: str) -> time:
    """``HH:MM``, 00:00 to 23:59."""
    moment: time = BIRTHTIME_FIELD.read(text, date.min)
    return moment


def parse_v1_birthdate(text: str, today: date) -> date:
    """``DD-MMM-YY`` (e.g. ``07-Mar-85``) with the century rule of :func:`v1_century`."""
    day: date = _V1_BIRTHDATE_FIELD.read(text, today)
    return day


def parse_location_input(body: Mapping[str, Any]) -> LocationInput:
    """Contract 2.2."""
    return CHART_INPUT.parse(body)


def parse_coordinates_input(body: Mapping[str, Any]) -> CoordinatesInput:
    """Contract 2.3."""
    return COORDINATES_INPUT.parse(body)


def parse_v1_input(body: Mapping[str, Any], today: date) -> LocationInput:
    """The legacy body (the century rule reads ``today``)."""
    return V1_INPUT.parse(body, today)


_REF = "#/components/schemas/"


def birth_list_schema(fewest: int, most: int, description: str) -> dict[str, Any]:
    """A list of ``fewest`` to ``most`` births (``BirthInput``)."""
    return {"type": "array", "minItems": fewest, "maxItems": most,
            "items": {"$ref": _REF + "BirthInput"}, "description": description}


def input_schemas() -> dict[str, Any]:
    """The JSON Schemas of the contract's three request bodies and of ``BirthInput``, a
    birth inside an extension's body (``components.schemas``)."""
    return {
        "BirthInput": {
            "anyOf": [{"allOf": [{"$ref": _REF + "CoordinatesInput"},
                                 {"properties": {"location": {"type": "null"}}}]},
                      {"$ref": _REF + "ChartInput"}],
            "description": "A birth: coordinates (lat, lng) or a place name (location; "
            "needs the HD-Geocode-Key header). Local date and time at the place."},
        **{body.name: body.schema() for body in (CHART_INPUT, COORDINATES_INPUT, V1_INPUT)},
    }
