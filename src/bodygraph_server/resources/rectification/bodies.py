"""The request bodies of stability and rectification, declarative (:mod:`~bodygraph_server.
http.body`): the contract's chart inputs with a bound, and a local search with the
constraints as a JSON object (the command line's options); parsers and schemas from them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, time, timedelta
from typing import TYPE_CHECKING, Any

from bodygraph_server.http.body import Body, Field, number_field, optional, pattern_field
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.fields import (
    BIRTHDATE,
    BIRTHTIME,
    DATE_PATTERN,
    LAT_RANGE,
    LNG_RANGE,
    TIME_PATTERN,
)
from bodygraph_server.http.validation import (
    CHART_INPUT,
    COORDINATES_INPUT,
    CoordinatesInput,
    LocationInput,
)
from bodygraph_server.resources.chart_values import REF

if TYPE_CHECKING:
    from bodygraph.relations.constraints import Constraints

Birth = LocationInput | CoordinatesInput
BOUND_MINUTES = (1, 48 * 60)
"""``boundMinutes`` of a stability: minutes either side of the birth (at most 48 h)."""
DEFAULT_BOUND_MINUTES = 12 * 60
MAX_DAYS = 7
"""The most local days (both included) one rectification searches."""
NOON = time(12, 0)


def _invalid(message: str) -> ApiError:
    return ApiError(ErrorCode.INVALID_OPTION, message)


def _shape(message: str) -> ApiError:
    return ApiError(ErrorCode.INVALID_REQUEST_BODY, message)


# -- stability ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class StabilityAsk:
    """A birth and the bound either side of it."""

    birth: Birth
    bound: timedelta


def _bound(value: object, today: date) -> timedelta:
    low, high = BOUND_MINUTES
    if isinstance(value, bool) or not isinstance(value, int):
        raise _shape("boundMinutes must be a whole number of minutes")
    if not low <= value <= high:
        raise _invalid(f"boundMinutes must be from {low} to {high} (48 hours either side), "
                       f"not {value}; give one such as {DEFAULT_BOUND_MINUTES}")
    return timedelta(minutes=value)


BOUND_FIELD = optional(Field(
    name="boundMinutes", code=ErrorCode.INVALID_OPTION, read=_bound,
    schema={"type": "integer", "minimum": BOUND_MINUTES[0], "maximum": BOUND_MINUTES[1],
            "default": DEFAULT_BOUND_MINUTES,
            "description": "Minutes either side of the birth searched (default 12 hours, "
            "at most 48 hours: 400 INVALID_OPTION beyond); written as a whole number "
            "(else 422 INVALID_REQUEST_BODY)."}),
    timedelta(minutes=DEFAULT_BOUND_MINUTES))


def _at_place(birthdate: date, birthtime: time, location: str,
              bound: timedelta) -> StabilityAsk:
    return StabilityAsk(LocationInput(birthdate, birthtime, location), bound)


def _at_point(birthdate: date, birthtime: time, lat: float, lng: float,
              bound: timedelta) -> StabilityAsk:
    return StabilityAsk(CoordinatesInput(birthdate, birthtime, lat, lng), bound)


STABILITY_INPUT = Body("StabilityInput", (*CHART_INPUT.fields, BOUND_FIELD), _at_place)
"""Contract 2.2 and ``boundMinutes``."""
STABILITY_COORDINATES_INPUT = Body("StabilityCoordinatesInput",
                                   (*COORDINATES_INPUT.fields, BOUND_FIELD), _at_point)
"""Contract 2.3 and ``boundMinutes``."""


# -- rectification --------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RectificationAsk:
    """Where (a place name or a point), the local days and times, what is known."""

    where: Birth
    """The place as a birth at noon of the first day (charted for its place and zone)."""
    first_day: date
    last_day: date | None
    from_time: time | None
    to_time: time | None
    constraints: Constraints


def _day(match: re.Match[str], today: date) -> date:
    return date(*(int(part) for part in match.groups()))


def _time(match: re.Match[str], today: date) -> time:
    hour, minute = (int(part) for part in match.groups())
    return time(hour, minute)


def _date_field(name: str, description: str) -> Field:
    return pattern_field(
        name=name, code=ErrorCode.INVALID_BIRTHDATE, pattern=BIRTHDATE,
        documented=DATE_PATTERN, mismatch=f"{name} must be YYYY-MM-DD", convert=_day,
        schema={"format": "date", "examples": ["1980-01-03"], "description": description})


def _time_field(name: str, description: str) -> Field:
    return pattern_field(
        name=name, code=ErrorCode.INVALID_BIRTHTIME, pattern=BIRTHTIME,
        documented=TIME_PATTERN, mismatch=f"{name} must be HH:MM, 00:00 to 23:59",
        convert=_time, schema={"examples": ["06:00"], "description": description})


#: The constraint members: (JSON name, keyword of ``bodygraph.relations.constraints``,
#: whether a list), in the order of the command line's options.
CONSTRAINT_MEMBERS: tuple[tuple[str, str, bool], ...] = (
    ("type", "type", False), ("profile", "profile", False),
    ("authority", "authority", False), ("definition", "definition", False),
    ("cross", "cross", False), ("strategy", "strategy", False),
    ("centers", "centers", True), ("openCenters", "open_centers", True),
    ("channels", "channels", True), ("gates", "gates", True),
    ("activations", "activations", True),
)
_NAMES = ", ".join(name for name, _, _ in CONSTRAINT_MEMBERS)


def _member(name: str, value: object, many: bool) -> Any:
    """One constraint member's value: a string, or a list of strings (gates: of whole
    numbers)."""
    if not many:
        if not isinstance(value, str):
            raise _shape(f"constraints.{name} must be a string")
        return value
    whole = name == "gates"
    if not isinstance(value, list) or not all(
            (isinstance(item, int) and not isinstance(item, bool)) if whole
            else isinstance(item, str) for item in value):
        kind = "whole numbers" if whole else "strings"
        raise _shape(f"constraints.{name} must be a list of {kind}")
    return value


def _constraints(value: object, today: date) -> Constraints:
    """The constraints object, every value checked by the library (an unknown one: 400
    INVALID_OPTION through the errors table, naming the valid values)."""
    from bodygraph.relations.constraints import constraints

    if not isinstance(value, dict):
        raise _shape("constraints must be a JSON object")
    unknown = [name for name in value if name not in {n for n, _, _ in CONSTRAINT_MEMBERS}]
    if unknown:
        raise _invalid(f"unknown constraint {unknown[0]!r}; use: {_NAMES}")
    given = {keyword: _member(name, value[name], many)
             for name, keyword, many in CONSTRAINT_MEMBERS if value.get(name) is not None}
    found = constraints(**given)
    if not found:
        raise _invalid(f"give at least one constraint: {_NAMES}")
    return found


def constraints_schema() -> dict[str, Any]:
    """``Constraints``: a property per member of :data:`CONSTRAINT_MEMBERS` (the parser's
    table: an array for a list member), the valid values from the library's tables."""
    from bodygraph.catalog.tables import CENTER_NAMES, tables
    from bodygraph.catalog.wording import STRATEGY
    from bodygraph.model.chart import AUTHORITIES, BODIES, DEFINITIONS, TYPES

    centers = {"enum": list(CENTER_NAMES)}
    bodies = "|".join(body.value for body in BODIES)
    values: dict[str, tuple[dict[str, Any], str]] = {  # a value (a list's: an item), about
        "type": ({"enum": [t.value for t in TYPES]}, ""),
        "profile": ({"enum": sorted(tables().profile_angles)}, ""),
        "authority": ({"enum": [a.value for a in AUTHORITIES]}, ""),
        "definition": ({"enum": [d.value for d in DEFINITIONS]}, ""),
        "cross": ({"type": "string", "minLength": 1,
                   "examples": ["Right Angle Cross of the Sphinx", "13/7/1/2"]},
                  "The incarnation cross: its name as charts write it, or its four gates "
                  "(personality sun and earth, design sun and earth), or both: 'Right Angle "
                  "Cross of the Sphinx (13/7 | 1/2)'."),
        "strategy": ({"enum": list(dict.fromkeys(STRATEGY.values()))}, ""),
        "centers": (centers, "Defined centers."),
        "openCenters": (centers, "Open (undefined) centers."),
        "channels": ({"enum": [c.short for c in tables().channels]},
                     "Defined channels, e.g. 13-33."),
        "gates": ({"type": "integer", "minimum": 1, "maximum": 64},
                  "Activated gates (either side), written as whole numbers (38, not 38.0: "
                  "else 422 INVALID_REQUEST_BODY)."),
        "activations": ({"type": "string", "examples": ["personality.sun=38.3",
                                                        "design.moon=2"],
                         "pattern": f"^(personality|design)\\.({bodies})="
                         "([1-9]|[1-5][0-9]|6[0-4])(\\.[1-6])?$"},
                        "side.body=gate or side.body=gate.line."),
    }
    properties: dict[str, Any] = {}
    for name, _, many in CONSTRAINT_MEMBERS:
        value, about = values.pop(name)
        described = {"description": about} if about else {}
        properties[name] = ({"type": "array", "minItems": 1, "items": value, **described}
                            if many else {**value, **described})
    if values:
        raise ValueError(f"values of no constraint member: {', '.join(values)}")
    return {
        "type": "object", "additionalProperties": False, "minProperties": 1,
        "description": "What is known of the chart, as the command line's options; all "
        "must hold, at least one given. Names are also matched ignoring case (a definition "
        "without the word Definition); a value that names nothing valid, or no constraint "
        "at all, is 400 INVALID_OPTION naming the valid ones. Constraints that contradict "
        "each other are no error: no window.",
        "properties": properties,
    }


CONSTRAINTS_FIELD = Field(name="constraints", code=ErrorCode.INVALID_OPTION,
                          read=_constraints, schema={"$ref": REF + "Constraints"})
_SPAN_FIELDS = (
    optional(_date_field("toDate", "Last local date of a range (included; at most "
                         f"{MAX_DAYS - 1} days after date: else 400 INVALID_OPTION).")),
    optional(_time_field("fromTime", "Local time to start at on date (default 00:00).")),
    optional(_time_field("toTime", "Local time to end at on the last date (default: the "
                         "end of that day).")),
    CONSTRAINTS_FIELD,
)
_DATE = _date_field("date", "The local date searched (the first of a range).")


def _rectification(first: date, *values: Any) -> RectificationAsk:
    *place, last, from_time, to_time, found = values
    where: Birth = (LocationInput(first, NOON, place[0]) if len(place) == 1
                    else CoordinatesInput(first, NOON, *place))
    if last is not None and not 0 <= (last - first).days < MAX_DAYS:
        raise _invalid(f"toDate must be from date to {MAX_DAYS - 1} days after it (at most "
                       f"{MAX_DAYS} days in all)")
    if (from_time is not None and to_time is not None and last in (None, first)
            and to_time <= from_time):
        raise _invalid("toTime must come after fromTime when the search is one day")
    return RectificationAsk(where=where, first_day=first, last_day=last, from_time=from_time,
                            to_time=to_time, constraints=found)


_LOCATION = next(field for field in CHART_INPUT.fields if field.name == "location")
RECTIFICATION_PLACE = Body("RectificationPlaceInput", (_DATE, _LOCATION, *_SPAN_FIELDS),
                           _rectification)
"""A search at a place name (geocoded with the caller's key)."""
RECTIFICATION_POINT = Body("RectificationCoordinatesInput", (
    _DATE,
    number_field(name="lat", code=ErrorCode.INVALID_LATITUDE, bounds=LAT_RANGE,
                 schema={"examples": [51.5074]}),
    number_field(name="lng", code=ErrorCode.INVALID_LONGITUDE, bounds=LNG_RANGE,
                 schema={"examples": [-0.1278]}),
    *_SPAN_FIELDS), _rectification)
"""A search at a point."""


def parse_rectification(body: Mapping[str, Any]) -> RectificationAsk:
    """A body with a non-null ``location`` is a search at a place name, any other at a
    point."""
    chosen = RECTIFICATION_PLACE if body.get("location") is not None else RECTIFICATION_POINT
    ask: RectificationAsk = chosen.parse(body)
    return ask


def request_schemas() -> dict[str, Any]:
    """The stability inputs, ``Constraints`` and ``RectificationInput`` (a place name or a
    point)."""
    bodies = (STABILITY_INPUT, STABILITY_COORDINATES_INPUT, RECTIFICATION_PLACE,
              RECTIFICATION_POINT)
    return {
        **{body.name: body.schema() for body in bodies},
        "Constraints": constraints_schema(),
        "RectificationInput": {
            "anyOf": [{"allOf": [{"$ref": REF + RECTIFICATION_POINT.name},
                                 {"properties": {"location": {"type": "null"}}}]},
                      {"$ref": REF + RECTIFICATION_PLACE.name}],
            "description": "The local date (or a range of up to 7 days) at a point (lat, "
            "lng) or a place name (location; needs the HD-Geocode-Key header), and what is "
            "known of the chart."},
    }
