"""The request bodies of the time searches: their parsing rules and JSON Schemas."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from bodygraph.model.chart import BODIES
from bodygraph.relations.calendar import LEVELS
from bodygraph.relations.sensitivity import DEFAULT_WINDOW, MAX_WINDOW
from bodygraph_server.http.births import shape_error
from bodygraph_server.http.fields import BIRTHDATE, INSTANT_DAY_DOCUMENTED, anchored
from bodygraph_server.http.validation import required

WINDOW_MINUTES = (1, int(MAX_WINDOW.total_seconds()) // 60)
"""``windowMinutes`` of a sensitivity: minutes either side of the birth (at most 48 h)."""
DEFAULT_WINDOW_MINUTES = int(DEFAULT_WINDOW.total_seconds()) // 60
YEARS = (1800, 2199)
"""The years a cycles ``year`` may name (the shipped ephemeris; the search decides the
rest)."""
CALENDAR_DAYS = 366
"""The most days (``from`` to ``to``, both included) of one calendar request."""
BODY_NAMES = tuple(body.value for body in BODIES)

_DAY = re.compile(BIRTHDATE)
_WHOLE = ("written as a whole number (2020, not 2020.0: not statable in the schema, whose "
          "integers include 2020.0; else 422 INVALID_REQUEST_BODY).")
_REF = "#/components/schemas/"


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


def request_schemas() -> dict[str, Any]:
    """``SensitivityInput``, ``CyclesInput`` and ``CalendarInput``."""
    return {
        "SensitivityInput": {"allOf": [{"$ref": _REF + "BirthInput"}, {
            "type": "object",
            "properties": {"windowMinutes": {
                "type": "integer", "minimum": WINDOW_MINUTES[0], "maximum": WINDOW_MINUTES[1],
                "default": DEFAULT_WINDOW_MINUTES,
                "description": "Minutes either side of the birth; " + _WHOLE}},
        }]},
        "CyclesInput": {"allOf": [{"$ref": _REF + "BirthInput"}, {
            "type": "object", "required": ["year"],
            "properties": {"year": {
                "type": "integer", "minimum": YEARS[0], "maximum": YEARS[1],
                "description": "The year of the solar return; after the year of birth "
                "(UTC); " + _WHOLE}},
        }]},
        "CalendarInput": {
            "type": "object", "required": ["from", "to"],
            "properties": {
                "from": {"type": "string", "format": "date",
                         "pattern": anchored(INSTANT_DAY_DOCUMENTED),
                         "description": "First UTC day (1800-04-04 to 2199-12-31 with the "
                         "shipped ephemeris)."},
                "to": {"type": "string", "format": "date",
                       "pattern": anchored(INSTANT_DAY_DOCUMENTED),
                       "description": f"Last UTC day, included; at most {CALENDAR_DAYS} "
                       "days from the first, not before it (not statable in the schema: "
                       "422 INVALID_REQUEST_BODY)."},
                "bodies": {"type": "array", "minItems": 1, "uniqueItems": True,
                           "items": {"enum": list(BODY_NAMES)},
                           "description": "Default: all 13."},
                "level": {"enum": list(LEVELS), "default": "gate"},
            },
        },
    }
