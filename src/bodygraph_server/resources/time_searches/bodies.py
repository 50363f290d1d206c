"""The request bodies of the time searches, declarative
(:class:`~bodygraph_server.http.body.Body`): their parsers, JSON Schemas and codes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, cast

from bodygraph.model.chart import BODIES
from bodygraph.relations.calendar import LEVELS, Level
from bodygraph.relations.sensitivity import DEFAULT_WINDOW, MAX_WINDOW
from bodygraph_server.http.births import BIRTH_BASE, Birth
from bodygraph_server.http.body import (
    Body,
    Field,
    Rule,
    choice_field,
    choices_field,
    pattern_field,
    whole_number_field,
)
from bodygraph_server.http.errors import ErrorCode
from bodygraph_server.http.fields import BIRTHDATE, INSTANT_DAY_DOCUMENTED, anchored

WINDOW_MINUTES = (1, int(MAX_WINDOW.total_seconds()) // 60)
"""``windowMinutes`` of a sensitivity: minutes either side of the birth (at most 48 h)."""
DEFAULT_WINDOW_MINUTES = int(DEFAULT_WINDOW.total_seconds()) // 60
YEARS = (1800, 2199)
"""The years a cycles ``year`` may name (the shipped ephemeris; the search decides the
rest)."""
CALENDAR_DAYS = 366
"""The most days (``from`` to ``to``, both included) of one calendar request."""
BODY_NAMES = tuple(body.value for body in BODIES)

_WHOLE = ("written as a whole number (2020, not 2020.0: not statable in the schema, whose "
          "integers include 2020.0; else 422 INVALID_REQUEST_BODY).")


@dataclass(frozen=True, slots=True)
class SensitivityRequest:
    """The birth and the minutes either side of it to search."""

    birth: Birth
    minutes: int


@dataclass(frozen=True, slots=True)
class CyclesRequest:
    """The birth and the year of its solar return."""

    birth: Birth
    year: int


@dataclass(frozen=True, slots=True)
class CalendarRequest:
    """The UTC days ``first`` to ``last`` (included), the bodies and the level."""

    first: date
    last: date
    bodies: tuple[str, ...]
    level: Level


def _day(match: re.Match[str], today: date) -> date:
    return date(*(int(part) for part in match.groups()))


def _day_field(name: str, description: str) -> Field:
    """A UTC day ``YYYY-MM-DD`` that exists in the calendar (else INVALID_REQUEST_BODY)."""
    wrong = f"{name} must be a calendar date YYYY-MM-DD"
    return pattern_field(
        name=name, code=ErrorCode.INVALID_REQUEST_BODY, pattern=BIRTHDATE,
        documented=anchored(INSTANT_DAY_DOCUMENTED), mismatch=wrong, not_text=wrong,
        invalid=wrong, convert=_day, schema={"format": "date", "description": description})


def _in_span(read: Mapping[str, Any]) -> bool:
    first: date = read["from"]
    last: date = read["to"]
    return 0 <= (last - first).days < CALENDAR_DAYS


def _calendar(first: date, last: date, bodies: tuple[str, ...], level: str) -> CalendarRequest:
    return CalendarRequest(first, last, bodies, cast("Level", level))


SENSITIVITY_INPUT = Body("SensitivityInput", (
    whole_number_field(name="windowMinutes", bounds=WINDOW_MINUTES, optional=True,
                       default=DEFAULT_WINDOW_MINUTES,
                       schema={"description": "Minutes either side of the birth; " + _WHOLE}),
), SensitivityRequest, base=BIRTH_BASE)
"""``{...birth, "windowMinutes"?}``."""
CYCLES_INPUT = Body("CyclesInput", (
    whole_number_field(name="year", bounds=YEARS, schema={
        "description": "The year of the solar return; after the year of birth (UTC); "
        + _WHOLE}),
), CyclesRequest, base=BIRTH_BASE)
"""``{...birth, "year"}``; that the year comes after the year of birth is checked on the
chart."""
CALENDAR_INPUT = Body("CalendarInput", (
    _day_field("from", "First UTC day (1800-04-04 to 2199-12-31 with the shipped "
               "ephemeris)."),
    _day_field("to", f"Last UTC day, included; at most {CALENDAR_DAYS} days from the first, "
               "not before it (not statable in the schema: 422 INVALID_REQUEST_BODY)."),
    choices_field(name="bodies", choices=BODY_NAMES, what="body names",
                  schema={"description": "Default: all 13."}),
    choice_field(name="level", code=ErrorCode.INVALID_REQUEST_BODY, choices=tuple(LEVELS),
                 default="gate", schema={}),
), _calendar, rules=(
    Rule(after="to", holds=_in_span,
         message=f"to must be from 0 to {CALENDAR_DAYS - 1} days after from"),
))
"""``{"from", "to", "bodies"?, "level"?}``."""
REQUEST_BODIES = (SENSITIVITY_INPUT, CYCLES_INPUT, CALENDAR_INPUT)


def request_schemas() -> dict[str, Any]:
    """``SensitivityInput``, ``CyclesInput`` and ``CalendarInput``."""
    return {body.name: body.schema() for body in REQUEST_BODIES}
