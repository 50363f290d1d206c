"""The rules of the extensions' request members, stated once: the parsers
(:mod:`bodygraph_server.http.relations`, :mod:`bodygraph_server.http.batch`) apply them
and the OpenAPI document states them (:func:`request_schemas`). A birth inside them is
the contract's input (:mod:`bodygraph_server.http.fields`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

from bodygraph.model.chart import BODIES
from bodygraph.relations.calendar import LEVELS
from bodygraph.relations.penta import MAX_MEMBERS, MIN_MEMBERS
from bodygraph.relations.sensitivity import DEFAULT_WINDOW, MAX_WINDOW
from bodygraph_server.http.births import shape_error
from bodygraph_server.http.fields import BIRTHDATE, BIRTHTIME, anchored
from bodygraph_server.http.validation import required

AT = f"{BIRTHDATE}T{BIRTHTIME}:([0-5][0-9])Z"
"""A transit instant ``YYYY-MM-DDTHH:MM:SSZ`` (UTC)."""
CONNECTION_PEOPLE = 2
PENTA_PEOPLE = (MIN_MEMBERS, MAX_MEMBERS)
BATCH_BIRTHS = (1, 1000)
"""The fewest and most births of one batch request."""
BATCH_BYTES_PER_BIRTH = 256
"""The body of a batch may hold this many bytes per birth it may hold (256,000 bytes for
1,000 births; a birth written compactly takes about 70), or the settings'
``max_body_bytes`` if that is more."""

WINDOW_MINUTES = (1, int(MAX_WINDOW.total_seconds()) // 60)
"""``windowMinutes`` of a sensitivity: minutes either side of the birth (at most 48 h)."""
DEFAULT_WINDOW_MINUTES = int(DEFAULT_WINDOW.total_seconds()) // 60
YEARS = (1800, 2199)
"""The years a cycles ``year`` may name (the shipped ephemeris; the search decides the
rest)."""
CALENDAR_DAYS = 366
"""The most days (``from`` to ``to``, both included) of one calendar request."""
BODY_NAMES = tuple(body.value for body in BODIES)

_AT = re.compile(AT)
_DAY = re.compile(BIRTHDATE)
_REF = "#/components/schemas/"


def parse_at(value: object) -> datetime:
    """The transit instant: a string ``YYYY-MM-DDTHH:MM:SSZ`` naming a real UTC instant
    (else INVALID_REQUEST_BODY)."""
    match = _AT.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise shape_error("at must be a UTC instant YYYY-MM-DDTHH:MM:SSZ")
    try:
        year, month, day, hour, minute, second = (int(part) for part in match.groups())
        return datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError:
        raise shape_error("at is not a calendar date") from None


def whole_number(value: object, name: str, bounds: tuple[int, int]) -> int:
    """An integer from ``bounds[0]`` to ``bounds[1]`` (else INVALID_REQUEST_BODY)."""
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise shape_error(f"{name} must be a whole number from {low} to {high}")
    return value


def parse_day(value: object, name: str) -> date:
    """A UTC day ``YYYY-MM-DD`` that exists in the calendar (else INVALID_REQUEST_BODY)."""
    match = _DAY.fullmatch(value) if isinstance(value, str) else None
    try:
        if match is not None:
            return date(*(int(part) for part in match.groups()))
    except ValueError:
        pass
    raise shape_error(f"{name} must be a calendar date YYYY-MM-DD")


def parse_span(body: Mapping[str, Any]) -> tuple[date, date]:
    """``from`` and ``to`` of a calendar: at most :data:`CALENDAR_DAYS` days, in order."""
    first = parse_day(required(body, "from"), "from")
    last = parse_day(required(body, "to"), "to")
    if not 0 <= (last - first).days < CALENDAR_DAYS:
        raise shape_error(f"to must be from 0 to {CALENDAR_DAYS - 1} days after from")
    return first, last


def parse_choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (else INVALID_REQUEST_BODY)."""
    if not isinstance(value, str) or value not in choices:
        raise shape_error(f"{name} must be one of {', '.join(choices)}")
    return value


def parse_body_names(value: object) -> tuple[str, ...]:
    """A non-empty list of body names (v2 keys), each at most once."""
    if not isinstance(value, list) or not value or len(set(map(str, value))) != len(value):
        raise shape_error("bodies must be a non-empty list of distinct body names")
    return tuple(parse_choice(name, "each of bodies", BODY_NAMES) for name in value)


def _births(fewest: int, most: int, ref: str, description: str) -> dict[str, Any]:
    return {"type": "array", "minItems": fewest, "maxItems": most,
            "items": {"$ref": _REF + ref}, "description": description}


def request_schemas() -> dict[str, Any]:
    """The JSON Schemas of the extensions' request bodies (``components.schemas``)."""
    birth = {"anyOf": [{"$ref": _REF + "CoordinatesInput"}, {"$ref": _REF + "ChartInput"}],
             "description": "A birth: coordinates (lat, lng) or a place name (location; "
             "needs the HD-Geocode-Key header). Local date and time at the place."}
    at = {"type": "string", "pattern": anchored(AT), "examples": ["2024-03-20T03:06:00Z"],
          "description": "The transit instant in UTC, YYYY-MM-DDTHH:MM:SSZ (1800-04-04 to "
          "2199-12-31 with the shipped ephemeris)."}
    visual = {"type": "boolean", "default": False,
              "description": "Also return svgRenderUrl, a link to the picture (the "
              "transit needs natal)."}
    return {
        "BirthInput": birth,
        "TransitInput": {
            "type": "object", "required": ["at"],
            "properties": {"at": at, "natal": {"$ref": _REF + "BirthInput"},
                           "visual": visual},
        },
        "ConnectionInput": {
            "type": "object", "required": ["people"],
            "properties": {"people": _births(
                CONNECTION_PEOPLE, CONNECTION_PEOPLE, "BirthInput",
                "Person 1, then person 2."), "visual": visual},
        },
        "PentaInput": {
            "type": "object", "required": ["people"],
            "properties": {"people": _births(*PENTA_PEOPLE, "BirthInput",
                                             "The members of the group, 3 to 5.")},
        },
        "SensitivityInput": {"allOf": [{"$ref": _REF + "BirthInput"}, {
            "type": "object",
            "properties": {"windowMinutes": {
                "type": "integer", "minimum": WINDOW_MINUTES[0], "maximum": WINDOW_MINUTES[1],
                "default": DEFAULT_WINDOW_MINUTES,
                "description": "Minutes either side of the birth."}},
        }]},
        "CyclesInput": {"allOf": [{"$ref": _REF + "BirthInput"}, {
            "type": "object", "required": ["year"],
            "properties": {"year": {
                "type": "integer", "minimum": YEARS[0], "maximum": YEARS[1],
                "description": "The year of the solar return; after the year of birth."}},
        }]},
        "CalendarInput": {
            "type": "object", "required": ["from", "to"],
            "properties": {
                "from": {"type": "string", "format": "date", "pattern": anchored(BIRTHDATE),
                         "description": "First UTC day."},
                "to": {"type": "string", "format": "date", "pattern": anchored(BIRTHDATE),
                       "description": f"Last UTC day, included; at most {CALENDAR_DAYS} "
                       "days from the first."},
                "bodies": {"type": "array", "minItems": 1, "uniqueItems": True,
                           "items": {"enum": list(BODY_NAMES)},
                           "description": "Default: all 13."},
                "level": {"enum": list(LEVELS), "default": "gate"},
            },
        },
        "ChartBatchInput": {
            "type": "object", "required": ["births"],
            "properties": {"births": {
                "type": "array", "minItems": BATCH_BIRTHS[0], "maxItems": BATCH_BIRTHS[1],
                "items": {"anyOf": [{"$ref": _REF + "CoordinatesInput"}, {
                    "description": "Any other item is refused in its own result slot "
                    "(its errorCode and message); the rest of the batch goes on."}]},
                "description": "1 to 1000 births given by coordinates.",
            }},
        },
    }
