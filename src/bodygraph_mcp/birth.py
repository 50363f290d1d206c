"""A birth as the tools take it: a local date and time with a place name (offline
gazetteer) or coordinates, or a UTC instant. One definition of that input (and so of its
JSON Schema) and of turning it into a chart, shared by every tool.

Every refusal is a :class:`~bodygraph_mcp.tool_errors.Refusal` (a ``ToolError``) whose
text says what to change, and can say it in the call's language; the library's own
messages are passed on as they are.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema
from typing_extensions import TypedDict

from bodygraph.calculator import calculate
from bodygraph.cli.options import CliError
from bodygraph.errors import BodygraphError
from bodygraph.geo.birthtime import parse_instant
from bodygraph.geo.local import LocalChart, calculate_at_place, calculate_local
from bodygraph.geo.places.base import Place
from bodygraph.model.chart import Chart
from bodygraph_mcp.tool_errors import (
    NO_DATE,
    NO_OFFSET,
    NO_OFFSET_OR_LOCAL,
    NO_PLACE,
    NOT_AN_INSTANT,
    PLACE_AND_COORDINATES,
    UTC_ALONE,
    how,
    invalid_birth,
    library_refusal,
    refused,
)

WallTimeName = Literal["unique", "fold", "gap"]


class BirthInput(BaseModel):
    """A birth: ``date`` and ``time`` (local wall time) with ``place`` or ``lat``/``lng``;
    or ``utc`` alone."""

    model_config = ConfigDict(extra="forbid", title="Birth")

    date: str | None = Field(None, description=(
        "Local birth date at the place, YYYY-MM-DD (e.g. 1990-07-15); with `time` and "
        "either `place` or `lat`/`lng`."), examples=["1990-07-15"])
    time: str | None = Field(None, description=(
        "Local birth time at the place, 24-hour HH:MM (or HH:MM:SS), e.g. 14:30."),
        examples=["14:30"])
    place: str | None = Field(None, description=(
        "Birth place name, e.g. 'Berlin, Germany', looked up offline among the GeoNames "
        "cities (add the country or region when the name is common)."),
        examples=["Berlin, Germany"])
    lat: float | None = Field(None, description=(
        "Latitude of the birth place in degrees, -90 to 90, north positive (with `lng`)."))
    lng: float | None = Field(None, description=(
        "Longitude of the birth place in degrees, -180 to 180, east positive (with `lat`)."))
    utc: str | None = Field(None, description=(
        "Instead of date, time and place: the birth instant in ISO 8601 with Z or an offset, "
        "e.g. 1990-07-15T12:30:00Z."), examples=["1990-07-15T12:30:00Z"])

    def resolve(self) -> Birth:
        """The chart of this birth; a refusal with what to change otherwise."""
        with library_errors():
            return self._resolve()

    def _resolve(self) -> Birth:
        if self.utc is not None:
            if any(v is not None for v in (self.date, self.time, self.place, self.lat,
                                           self.lng)):
                raise refused(UTC_ALONE, how=how())
            return _at_instant(self.utc)
        if self.date is None or self.time is None:
            raise refused(NO_DATE, how=how())
        if self.place is not None:
            if self.lat is not None or self.lng is not None:
                raise refused(PLACE_AND_COORDINATES, how=how())
            return _from_local(calculate_at_place(self.date, self.time, self.place))
        if self.lat is None or self.lng is None:
            raise refused(NO_PLACE, how=how())
        return _from_local(calculate_local(self.date, self.time, lat=self.lat, lng=self.lng))


@cache
def birth_schema() -> dict[str, Any]:
    """The JSON Schema of a birth object (the tools' input schemas embed it)."""
    return BirthInput.model_json_schema()


def parse_birth(value: Mapping[str, Any], name: str = "birth") -> BirthInput:
    """A birth object as the tool received it -> :class:`BirthInput`; a
    refusal naming each field that is wrong otherwise."""
    try:
        return BirthInput.model_validate(value)
    except ValidationError as exc:
        raise invalid_birth(exc, name) from None


BirthArg = Annotated[dict[str, Any], WithJsonSchema(birth_schema()), Field(description=(
    "The birth: date and time (local) with place or lat/lng, or utc alone."))]
"""A tool argument holding one birth (checked by :func:`parse_birth`)."""


class BirthInfo(TypedDict):
    """What the chart was computed from: the UTC instant (``utc``) and, for a local time,
    the wall time with its UTC offset (``local``, ISO 8601), the IANA time zone, the place
    found, the coordinates used, whether the wall time was unique, repeated (``fold``:
    the first occurrence was used) or skipped (``gap``: the offset before the jump), and,
    when several places have the place's name, which one was taken, the others and how to
    choose one (``placeNote``)."""

    utc: str
    local: str | None
    zone: str | None
    place: str | None
    lat: float | None
    lng: float | None
    wallTime: WallTimeName | None
    placeNote: str | None


@dataclass(frozen=True, slots=True)
class Birth:
    """A resolved birth: its chart and what it was computed from (the place found, for
    the summary's words in a language; ``info`` holds its English description)."""

    chart: Chart
    info: BirthInfo
    place: Place | None = None


def _utc(chart: Chart) -> str:
    """The birth instant as the contract writes it (the chart's ``birthDateUtc``)."""
    return str(chart.to_v2()["birthDateUtc"])


def _from_local(found: LocalChart) -> Birth:
    return Birth(found.chart, BirthInfo(
        utc=_utc(found.chart),
        local=found.local.replace(tzinfo=timezone(found.utc_offset)).isoformat(),
        zone=found.zone,
        place=found.place.describe() if found.place is not None else None,
        lat=found.lat,
        lng=found.lng,
        wallTime=found.wall_time.value,
        placeNote=found.place.ambiguity() if found.place is not None else None,
    ), found.place)


@contextmanager
def library_errors() -> Iterator[None]:
    """The library's refusals (an instant outside the ephemeris, a group of the wrong
    size, a malformed span) as tool errors carrying the library's own message."""
    try:
        yield
    except (BodygraphError, CliError) as exc:
        raise library_refusal(exc) from exc


def instant(text: str, name: str, local: bool = False) -> datetime:
    """An ISO 8601 instant with an offset (argument ``name``); ``local``: the message of a
    missing offset also offers a local time."""
    try:
        moment = parse_instant(text)
    except ValueError:
        raise refused(NOT_AN_INSTANT, name=name, text=text) from None
    if moment.tzinfo is None:
        raise refused(NO_OFFSET_OR_LOCAL if local else NO_OFFSET, name=name, text=text)
    return moment


def _at_instant(utc: str) -> Birth:
    moment = instant(utc, "utc", local=True)
    chart = calculate(moment)
    return Birth(chart, BirthInfo(utc=_utc(chart), local=None, zone=None,
                                  place=None, lat=None, lng=None, wallTime=None,
                                  placeNote=None))
