"""Charts from a local birth time at a place: coordinates or a location text -> zone -> UTC.

>>> from bodygraph.geo.local import calculate_local
>>> result = calculate_local("1990-05-14", "08:30", lat=52.52, lng=13.405)
>>> result.zone, str(result.utc_offset), result.birth_utc.isoformat()
('Europe/Berlin', '2:00:00', '1990-05-14T06:30:00+00:00')
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date as Date
from datetime import datetime, timedelta
from datetime import time as Time

from bodygraph.calculator import calculate
from bodygraph.geo.birthtime import (
    InvalidBirthDateError,
    InvalidBirthTimeError,
    parse_date,
    parse_time,
    wall_time,
)
from bodygraph.geo.coordinates import check_coordinates
from bodygraph.geo.places import Geocoder, Place, default_geocoder
from bodygraph.geo.places.base import InvalidLocationError
from bodygraph.geo.timezones import AtSea, LocalTime, WallTime, local_to_utc
from bodygraph.model.chart import Chart, NodeKind

__all__ = [
    "InvalidBirthDateError",
    "InvalidBirthTimeError",
    "LocalChart",
    "calculate_at_place",
    "calculate_local",
    "parse_date",
    "parse_time",
]
# The birth date and time errors and parsers live in bodygraph.geo.birthtime (shared with the
# command line and the batch job); they are named here too because these functions raise them.


@dataclass(frozen=True, slots=True)
class LocalChart:
    """A chart calculated from a local birth time, with everything used to get its UTC.

    ``place`` is the geocoded place (``None`` when coordinates were given);
    ``lat``/``lng`` the point whose zone was used; ``local`` the wall time as
    given; ``zone`` the IANA zone; ``utc_offset`` the offset used (``local - birth_utc``);
    ``wall_time`` says whether the local time was unique, repeated (``fold``: the first
    occurrence was used) or skipped (``gap``: the offset before the gap was used);
    ``nautical`` whether the zone is a nautical zone of the open sea.
    """

    chart: Chart
    place: Place | None
    lat: float
    lng: float
    local: datetime
    zone: str
    utc_offset: timedelta
    birth_utc: datetime
    wall_time: WallTime
    nautical: bool

    @property
    def ambiguous(self) -> bool:
        """Whether the local time was repeated or skipped (see ``wall_time``)."""
        return self.wall_time is not WallTime.UNIQUE


def _chart(
    resolved: LocalTime,
    place: Place | None,
    lat: float,
    lng: float,
    node: NodeKind,
    ephemeris: str | os.PathLike[str] | None,
) -> LocalChart:
    return LocalChart(
        chart=calculate(resolved.utc, node=node, ephemeris=ephemeris),
        place=place,
        lat=lat,
        lng=lng,
        local=resolved.local,
        zone=resolved.zone,
        utc_offset=resolved.utc_offset,
        birth_utc=resolved.utc,
        wall_time=resolved.wall_time,
        nautical=resolved.nautical,
    )


def calculate_local(
    date: Date | str,
    time: Time | str,
    *,
    lat: float,
    lng: float,
    node: NodeKind = "true",
    ephemeris: str | os.PathLike[str] | None = None,
    at_sea: AtSea = "nautical",
) -> LocalChart:
    """Calculate the chart of a birth at local wall time ``date`` ``time`` at ``lat``/``lng``.

    ``date`` is a :class:`datetime.date` or ``"YYYY-MM-DD"``; ``time`` a naive
    :class:`datetime.time` or ``"HH:MM"`` (``"H:MM"`` and ``"HH:MM:SS"`` too). The zone
    comes from the coordinates, the offset from the tz database (see
    :mod:`bodygraph.geo.timezones` for the fold/gap and open-sea policies). ``node`` and
    ``ephemeris`` are passed on to :func:`bodygraph.calculate`.

    Raises :class:`InvalidBirthDateError`, :class:`InvalidBirthTimeError`,
    :class:`~bodygraph.geo.places.InvalidCoordinatesError`,
    :class:`~bodygraph.geo.timezones.TimezoneLookupError` and the errors of
    :func:`bodygraph.calculate` (``OutOfRangeError`` for a date outside the ephemeris).
    """
    local = wall_time(date, time)
    lat, lng = check_coordinates(lat, lng)
    resolved = local_to_utc(local, lat=lat, lng=lng, at_sea=at_sea)
    return _chart(resolved, None, lat, lng, node, ephemeris)


def calculate_at_place(
    date: Date | str,
    time: Time | str,
    place: str | Place,
    *,
    geocoder: Geocoder | None = None,
    node: NodeKind = "true",
    ephemeris: str | os.PathLike[str] | None = None,
    at_sea: AtSea = "nautical",
) -> LocalChart:
    """Calculate the chart of a birth at local wall time ``date`` ``time`` in ``place``.

    ``place`` is a location text, geocoded with ``geocoder`` (by default the offline
    gazetteer, :func:`bodygraph.geo.places.default_geocoder`), or a :class:`Place` geocoded
    before (callers with many rows geocode each distinct location once and pass the place).
    Otherwise as :func:`calculate_local`; geocoding raises the
    :class:`~bodygraph.geo.places.GeocodeError` subclasses.
    """
    local = wall_time(date, time)
    if isinstance(place, str):
        found = (geocoder or default_geocoder()).geocode(place)
    elif isinstance(place, Place):
        found = place
    else:
        raise InvalidLocationError(f"a place must be a location text or a Place, not {place!r}")
    resolved = local_to_utc(local, lat=found.lat, lng=found.lng, at_sea=at_sea)
    return _chart(resolved, found, found.lat, found.lng, node, ephemeris)
