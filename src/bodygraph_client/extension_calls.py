"""The calls of the service's extension endpoints (Advanced tier, beyond the contract):
transits, connections, pentas, sensitivity, cycles, calendar, batches of charts,
stability and rectification, and :class:`Birth`, the birth they take (by coordinates or
by place name)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bodygraph_client.calls import (
    Call,
    DateLike,
    Endpoint,
    TimeLike,
    at_coordinates,
    at_place,
    data,
    date_text,
    time_text,
)
from bodygraph_client.extension_types import (
    Body,
    CalendarResult,
    ChartBatchResult,
    ConnectionResult,
    Constraints,
    CyclesResult,
    Level,
    PentaResult,
    RectificationResult,
    SensitivityResult,
    StabilityResult,
    TransitResult,
)

# A birth given by place name needs the geocoding key: those endpoints send it when the
# client has one (the service reads it only when a birth has a location).
TRANSITS = Endpoint("/v2/transits", geocoded=True)
CONNECTIONS = Endpoint("/v2/connections", geocoded=True)
PENTAS = Endpoint("/v2/pentas", geocoded=True)
SENSITIVITY = Endpoint("/v2/sensitivity", geocoded=True)
CYCLES = Endpoint("/v2/cycles", geocoded=True)
CALENDAR = Endpoint("/v2/calendar")
CHARTS_BATCH = Endpoint("/v2/charts/batch")
STABILITY = Endpoint("/v2/stability", geocoded=True)
STABILITY_COORDINATES = Endpoint("/v2/stability/coordinates")
RECTIFICATIONS = Endpoint("/v2/rectifications", geocoded=True)


@dataclass(frozen=True, slots=True)
class Birth:
    """A birth: local date and time at coordinates (``lat``, ``lng``) or at a place
    (``location``, geocoded by the service with the client's ``geocode_key``). Make one
    with :meth:`at` or :meth:`place`; a birth has either coordinates or a location."""

    birthdate: DateLike
    birthtime: TimeLike
    lat: float | None = None
    lng: float | None = None
    location: str | None = None

    def __post_init__(self) -> None:
        by_place = self.location is not None
        if (self.lat is None, self.lng is None) != (by_place, by_place):
            raise ValueError("a birth needs either lat and lng, or a location")

    @classmethod
    def at(cls, lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike) -> Birth:
        """A birth at coordinates (the order of :meth:`~bodygraph_client.Client.chart_at`)."""
        return cls(birthdate, birthtime, lat=lat, lng=lng)

    @classmethod
    def place(cls, birthdate: DateLike, birthtime: TimeLike, location: str) -> Birth:
        """A birth at a place name (the order of :meth:`~bodygraph_client.Client.chart`)."""
        return cls(birthdate, birthtime, location=location)

    def body(self) -> dict[str, Any]:
        """The birth as the service reads it (the contract's chart input)."""
        if self.location is not None:
            return at_place(self.birthdate, self.birthtime, self.location)
        assert self.lat is not None and self.lng is not None  # checked on creation
        return at_coordinates(self.lat, self.lng, self.birthdate, self.birthtime)


def instant_text(value: datetime | str) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ`` of an aware datetime (in UTC, seconds kept); a text is sent
    as given."""
    if isinstance(value, str):
        return value
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("pass the instant as an aware datetime (with its time zone)")
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def transit(at: datetime | str, natal: Birth | None = None) -> Call[TransitResult]:
    """POST /v2/transits: the sky at ``at``, over the natal chart of ``natal`` if given."""
    body: dict[str, Any] = {"at": instant_text(at)}
    if natal is not None:
        body["natal"] = natal.body()
    return Call(TRANSITS, body, data(TransitResult))


def connection(first: Birth, second: Birth) -> Call[ConnectionResult]:
    """POST /v2/connections: the connection chart of person 1 and person 2."""
    return Call(CONNECTIONS, {"people": [first.body(), second.body()]},
                data(ConnectionResult))


def penta(people: Sequence[Birth]) -> Call[PentaResult]:
    """POST /v2/pentas: the penta of 3 to 5 people."""
    return Call(PENTAS, {"people": [birth.body() for birth in people]}, data(PentaResult))


def sensitivity(birth: Birth, window_minutes: int | None = None) -> Call[SensitivityResult]:
    """POST /v2/sensitivity: the line changes within ``window_minutes`` (1 to 2880; the
    service's default, 120, when ``None``) either side of the birth."""
    body = birth.body()
    if window_minutes is not None:
        body["windowMinutes"] = window_minutes
    return Call(SENSITIVITY, body, data(SensitivityResult))


def cycles(birth: Birth, year: int) -> Call[CyclesResult]:
    """POST /v2/cycles: the solar return of ``year`` (after the year of birth), the
    Saturn returns and the Uranus oppositions."""
    return Call(CYCLES, {**birth.body(), "year": year}, data(CyclesResult))


def calendar(
    start: DateLike, end: DateLike, bodies: Sequence[Body] | None = None,
    level: Level | None = None,
) -> Call[CalendarResult]:
    """POST /v2/calendar: the ingresses from the start of ``start`` to the end of ``end``
    (UTC days, at most 366); ``bodies`` default all 13, ``level`` default ``"gate"``."""
    body: dict[str, Any] = {"from": date_text(start), "to": date_text(end)}
    if bodies is not None:
        body["bodies"] = list(bodies)
    if level is not None:
        body["level"] = level
    return Call(CALENDAR, body, data(CalendarResult))


def charts_batch(births: Sequence[Birth]) -> Call[ChartBatchResult]:
    """POST /v2/charts/batch: the full charts of 1 to 1000 births given by coordinates
    (a birth given by place name is refused here: the batch does not geocode)."""
    if any(birth.location is not None for birth in births):
        raise ValueError("a batch takes births by coordinates (Birth.at), not by place name")
    return Call(CHARTS_BATCH, {"births": [birth.body() for birth in births]},
                data(ChartBatchResult))


def stability(birth: Birth, bound_minutes: int | None = None) -> Call[StabilityResult]:
    """POST /v2/stability (a birth by place name) or /v2/stability/coordinates: how far
    each property and activation holds within ``bound_minutes`` (1 to 2880; the
    service's default, 720, when ``None``) either side of the birth."""
    body = birth.body()
    if bound_minutes is not None:
        body["boundMinutes"] = bound_minutes
    return Call(STABILITY if birth.location is not None else STABILITY_COORDINATES, body,
                data(StabilityResult))


@dataclass(frozen=True, slots=True)
class Place:
    """Where a rectification searches: coordinates (``lat``, ``lng``) or a place name
    (``location``, geocoded by the service with the client's ``geocode_key``)."""

    lat: float | None = None
    lng: float | None = None
    location: str | None = None

    def __post_init__(self) -> None:
        by_name = self.location is not None
        if (self.lat is None, self.lng is None) != (by_name, by_name):
            raise ValueError("a place needs either lat and lng, or a location")

    def body(self) -> dict[str, Any]:
        """The place as the service reads it."""
        if self.location is not None:
            return {"location": self.location}
        return {"lat": self.lat, "lng": self.lng}


def rectify(where: Place, day: DateLike, constraints: Constraints, *,
            to_day: DateLike | None = None, from_time: TimeLike | None = None,
            to_time: TimeLike | None = None) -> Call[RectificationResult]:
    """POST /v2/rectifications: every window of birth times from ``from_time`` on ``day``
    to ``to_time`` on ``to_day`` (at most 7 days; local times at ``where``) whose chart
    has all of ``constraints`` (what is known: ``{"profile": "3/5", "type":
    "Generator"}``)."""
    body: dict[str, Any] = {"date": date_text(day), **where.body(),
                            "constraints": dict(constraints)}
    if to_day is not None:
        body["toDate"] = date_text(to_day)
    if from_time is not None:
        body["fromTime"] = time_text(from_time)
    if to_time is not None:
        body["toTime"] = time_text(to_time)
    return Call(RECTIFICATIONS, body, data(RectificationResult))
