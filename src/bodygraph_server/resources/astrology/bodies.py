"""The request bodies of the astrology operations, declarative
(:class:`~bodygraph_server.http.body.Body`): the contract's coordinates input (2.3) with
the options of ``bodygraph astro`` and ``bodygraph wheel``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any

from bodygraph.render import PRESET_NAMES
from bodygraph.rules.houses import HOUSE_SYSTEMS
from bodygraph_server.http.body import (
    Body,
    Field,
    choice_field,
    number_field,
    optional,
    pattern_field,
)
from bodygraph_server.http.errors import ApiError, ErrorCode
from bodygraph_server.http.fields import (
    BIRTHDATE,
    BIRTHTIME,
    INSTANT_DAY_DOCUMENTED,
    LAT_RANGE,
    anchored,
)
from bodygraph_server.http.validation import (
    BIRTHDATE_FIELD,
    BIRTHTIME_FIELD,
    COORDINATES_INPUT,
    CoordinatesInput,
)

_LNG = next(field for field in COORDINATES_INPUT.fields if field.name == "lng")
_INSTANT = f"{BIRTHDATE}T{BIRTHTIME}:([0-5][0-9])Z"
_INSTANT_DOCUMENTED = f"{INSTANT_DAY_DOCUMENTED}T{BIRTHTIME}:([0-5][0-9])Z"
POLE = "lat must be inside -90 to 90: at the poles no Ascendant exists"


def _latitude_off_the_poles() -> Field:
    """``lat`` as in 2.3, the poles excluded (the horizon there is the equator)."""
    inclusive = number_field(name="lat", code=ErrorCode.INVALID_LATITUDE, bounds=LAT_RANGE,
                             schema={})

    def read(value: object, today: date) -> float:
        lat: float = inclusive.read(value, today)
        if abs(lat) == LAT_RANGE[1]:
            raise ApiError(ErrorCode.INVALID_LATITUDE, POLE)
        return lat

    return Field(name="lat", code=ErrorCode.INVALID_LATITUDE, read=read,
                 schema={"type": "number", "exclusiveMinimum": LAT_RANGE[0],
                         "exclusiveMaximum": LAT_RANGE[1], "examples": [52.52],
                         "description": "Degrees north; the poles have no Ascendant."})


_TRANSIT_AT_SHAPE = "transitAt must be a UTC instant YYYY-MM-DDTHH:MM:SSZ"


def _instant(match: re.Match[str], today: date) -> datetime:
    return datetime.fromisoformat(match.group(0))  # ...Z: in UTC


TRANSIT_AT = optional(pattern_field(
    name="transitAt", code=ErrorCode.INVALID_REQUEST_BODY, pattern=_INSTANT,
    documented=anchored(_INSTANT_DOCUMENTED), mismatch=_TRANSIT_AT_SHAPE,
    not_text=_TRANSIT_AT_SHAPE, convert=_instant,
    schema={"format": "date-time", "examples": ["2027-01-01T00:00:00Z"],
            "description": "Also draw the sky at this UTC instant as an outer ring "
            "(1800-04-04 to 2199-12-31 with the shipped ephemeris)."}))


@dataclass(frozen=True, slots=True)
class AstroInput:
    """A birth at a point and the house system asked for."""

    birthdate: date
    birthtime: time
    lat: float
    lng: float
    houses: str

    @property
    def birth(self) -> CoordinatesInput:
        """The birth alone."""
        return CoordinatesInput(self.birthdate, self.birthtime, self.lat, self.lng)


@dataclass(frozen=True, slots=True)
class WheelRequest:
    """A birth at a point, the transit instant of the outer ring and the theme asked for."""

    birthdate: date
    birthtime: time
    lat: float
    lng: float
    transit_at: datetime | None
    theme: str | None

    @property
    def birth(self) -> CoordinatesInput:
        """The birth alone."""
        return CoordinatesInput(self.birthdate, self.birthtime, self.lat, self.lng)


ASTRO_INPUT = Body("AstroInput", (
    BIRTHDATE_FIELD, BIRTHTIME_FIELD, _latitude_off_the_poles(), _LNG,
    choice_field(name="houses", code=ErrorCode.INVALID_OPTION, choices=HOUSE_SYSTEMS,
                 default="placidus",
                 schema={"description": "The house system (else 400 INVALID_OPTION naming "
                         "the known ones); beyond the polar circles Placidus is undefined: "
                         "whole-sign cusps and a note are given."})), AstroInput)
"""Contract 2.3 plus ``houses``."""
WHEEL_INPUT = Body("WheelChartInput", (
    *COORDINATES_INPUT.fields, TRANSIT_AT,
    choice_field(name="theme", code=ErrorCode.INVALID_OPTION, choices=PRESET_NAMES,
                 default=None,
                 schema={"description": "A shipped theme for the picture (else 400 "
                         "INVALID_OPTION naming them); absent: the caller's active "
                         "template, or the default theme."})), WheelRequest)
"""Contract 2.3 plus ``transitAt`` and ``theme``."""


def request_schemas() -> dict[str, Any]:
    """``AstroInput`` and ``WheelChartInput``."""
    return {body.name: body.schema() for body in (ASTRO_INPUT, WHEEL_INPUT)}
