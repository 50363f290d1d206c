"""Time zones of places, and local wall-clock time at a place converted to UTC.

The zone of a point comes from ``timezonefinder`` (the timezone-boundary-builder polygons);
offsets come from the IANA tz database of the ``tzdata`` package, read through the stdlib
``zoneinfo`` (never the operating system's copy, so every machine gives the same answer).
That gives historical offsets, daylight saving time, and local mean time (LMT) before a
place adopted standard time, exactly as the tz database records them.

Policies (shared/domain/conventions.md, "Time and place"):

* a wall time that occurs twice (clocks turned back, a *fold*) is read as its first
  occurrence;
* a wall time that does not exist (clocks turned forward, a *gap*, up to a whole skipped
  day) is read with the UTC offset in force before the gap;
* both are reported in :attr:`LocalTime.wall_time`.
* At sea, outside every country's zone, the nautical zone ``Etc/GMT±N`` of the point's
  15-degree band applies by default (``at_sea="nautical"``, reported in
  :attr:`LocalTime.nautical`); with ``at_sea="error"`` such a point raises
  :class:`TimezoneLookupError` instead.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from functools import cache
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from importlib.resources import files
from types import ModuleType
from typing import TYPE_CHECKING, Final, Literal
from zoneinfo import ZoneInfo

import numpy as np
import numpy.typing as npt

from bodygraph.errors import BodygraphError, InvalidInstantError
from bodygraph.geo.coordinates import check_coordinates

if TYPE_CHECKING:
    from timezonefinder import TimezoneFinder

__all__ = [
    "AtSea",
    "LocalTime",
    "TimezoneLookupError",
    "WallTime",
    "is_nautical",
    "local_to_utc",
    "to_utc",
    "tz_version",
    "zone",
    "zone_at",
    "zones_at",
]

AtSea = Literal["nautical", "error"]

_ZONE_NAME: Final = re.compile(r"[A-Za-z0-9_+-]+(?:/[A-Za-z0-9_+-]+)*")
_NAUTICAL: Final = re.compile(r"Etc/GMT(?:[+-]\d{1,2})?")


class TimezoneLookupError(BodygraphError):
    """No time zone could be determined for a place (or a zone name is unknown)."""


class WallTime(StrEnum):
    """How a local wall-clock time relates to the zone's transitions."""

    UNIQUE = "unique"
    """The wall time occurs exactly once."""
    FOLD = "fold"
    """It occurs twice (clocks were turned back); the first occurrence was used."""
    GAP = "gap"
    """It never occurs (clocks jumped over it); the offset before the jump was used."""


@dataclass(frozen=True, slots=True)
class LocalTime:
    """A local wall time at a place, resolved to UTC.

    ``local`` is the wall time as given (naive); ``utc`` the instant (aware, UTC);
    ``utc_offset`` the offset used (``local - utc``, which may hold seconds for local mean
    time); ``zone`` the IANA zone name; ``nautical`` whether that zone is a nautical
    ``Etc/GMT±N`` zone of the open sea.
    """

    local: datetime
    zone: str
    utc: datetime
    utc_offset: timedelta
    wall_time: WallTime
    nautical: bool


@cache
def tz_version() -> str:
    """The IANA tz database release in use (that of the ``tzdata`` package), e.g. ``2024a``."""
    first_line = files("tzdata").joinpath("zoneinfo", "tzdata.zi").read_text("utf-8")
    first_line = first_line.split("\n", 1)[0]
    return first_line.removeprefix("# version").strip() or "unknown"


def is_nautical(name: str) -> bool:
    """Whether ``name`` is a nautical zone of the open sea (``Etc/GMT``, ``Etc/GMT+5``, ...)."""
    return _NAUTICAL.fullmatch(name) is not None


@cache
def zone(name: str) -> ZoneInfo:
    """The IANA zone ``name``, read from the ``tzdata`` package.

    Raises :class:`TimezoneLookupError` for a name that is not in the tz database.
    """
    if not isinstance(name, str) or not _ZONE_NAME.fullmatch(name):
        raise TimezoneLookupError(f"{name!r} is not a time zone name")
    resource = files("tzdata").joinpath("zoneinfo", *name.split("/"))
    if not resource.is_file():
        raise TimezoneLookupError(f"{name!r} is not in the tz database {tz_version()}")
    with resource.open("rb") as data:
        try:
            return ZoneInfo.from_file(data, key=name)
        except ValueError as exc:
            raise TimezoneLookupError(f"the tz database entry {name!r} is unreadable") from exc


_FINDER_LOCK: Final = threading.Lock()


class _NumbaHidden(MetaPathFinder):
    """Makes ``import numba`` fail in one thread, for as long as it is on ``sys.meta_path``."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname.partition(".")[0] == "numba" and threading.get_ident() == self.thread:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


@cache
def _finder() -> TimezoneFinder:
    # timezonefinder uses numba's JIT when it can import numba (the engine's `fast` extra),
    # else its own C extension, with the same answers (benchmarks/timezone_backends.py). The
    # import is made without numba, in this thread only: numba and its compiled helpers
    # would cost about 1.5 s and 150 MB of resident memory per process (docs/performance.md,
    # "Time zone look-up"). Where another part of the process imported numba before, it is
    # in sys.modules and timezonefinder takes it. In memory: no files stay open.
    # TimezoneFinder instances must not be used by two threads at once, so every lookup
    # holds _FINDER_LOCK.
    hidden = _NumbaHidden()
    sys.meta_path.insert(0, hidden)
    try:
        from timezonefinder import TimezoneFinder  # 0.2 s to import: on first use
    finally:
        sys.meta_path.remove(hidden)
    return TimezoneFinder(in_memory=True)


def _checked(name: str | None, lat: float, lng: float, at_sea: AtSea) -> str:
    if name is None:
        raise TimezoneLookupError(f"no time zone covers {lat}, {lng}")
    if at_sea == "error" and is_nautical(name):
        raise TimezoneLookupError(
            f"{lat}, {lng} is at sea, outside every country's time zone "
            f"(the nautical zone would be {name})"
        )
    return name


def _check_at_sea(at_sea: str) -> None:
    if at_sea not in ("nautical", "error"):
        raise ValueError(f"at_sea must be 'nautical' or 'error', not {at_sea!r}")


def zone_at(lat: float, lng: float, *, at_sea: AtSea = "nautical") -> str:
    """The IANA zone name at a point.

    >>> zone_at(52.52, 13.405)
    'Europe/Berlin'
    >>> zone_at(0.0, -30.0)
    'Etc/GMT+2'
    """
    _check_at_sea(at_sea)
    lat, lng = check_coordinates(lat, lng)
    with _FINDER_LOCK:
        name = _finder().timezone_at(lng=lng, lat=lat)
    return _checked(name, lat, lng, at_sea)


def zones_at(
    lats: npt.ArrayLike, lngs: npt.ArrayLike, *, at_sea: AtSea = "nautical"
) -> list[str]:
    """The IANA zone names at many points at once (arrays in, one name per point out)."""
    _check_at_sea(at_sea)
    lat_array = np.asarray(lats, dtype=np.float64).ravel()
    lng_array = np.asarray(lngs, dtype=np.float64).ravel()
    if lat_array.shape != lng_array.shape:
        raise ValueError(f"{lat_array.size} latitudes but {lng_array.size} longitudes")
    for lat, lng in zip(lat_array.tolist(), lng_array.tolist(), strict=True):
        check_coordinates(lat, lng)
    with _FINDER_LOCK:
        names: Sequence[str | None] = _finder().timezone_names_at(lngs=lng_array, lats=lat_array)
    return [
        _checked(name, lat, lng, at_sea)
        for name, lat, lng in zip(names, lat_array.tolist(), lng_array.tolist(), strict=True)
    ]


def to_utc(local: datetime, zone_name: str) -> LocalTime:
    """Convert a naive local wall time in zone ``zone_name`` to UTC, by the fold/gap policy.

    >>> from datetime import datetime
    >>> t = to_utc(datetime(2021, 3, 28, 2, 30), "Europe/Berlin")
    >>> t.utc.isoformat(), t.wall_time.value
    ('2021-03-28T01:30:00+00:00', 'gap')
    """
    if not isinstance(local, datetime):
        raise InvalidInstantError(f"a local wall time must be a datetime, not {local!r}")
    if local.tzinfo is not None:
        raise InvalidInstantError(
            "the local wall time must be naive: the zone comes from the place"
        )
    tz = zone(zone_name)
    naive = local.replace(fold=0)
    first = naive.replace(tzinfo=tz)
    try:
        utc = first.astimezone(UTC)
        offset = first.utcoffset()
        if offset is None:  # pragma: no cover - ZoneInfo always answers
            raise TimezoneLookupError(f"the zone {zone_name!r} gives no offset for {naive}")
        if offset == naive.replace(tzinfo=tz, fold=1).utcoffset():
            kind = WallTime.UNIQUE
        elif utc.astimezone(tz).replace(tzinfo=None) == naive:
            kind = WallTime.FOLD
        else:
            kind = WallTime.GAP
    except OverflowError as exc:
        raise InvalidInstantError(
            f"{naive.isoformat()} is too close to the end of the calendar"
        ) from exc
    return LocalTime(
        local=naive,
        zone=zone_name,
        utc=utc,
        utc_offset=offset,
        wall_time=kind,
        nautical=is_nautical(zone_name),
    )


def local_to_utc(
    local: datetime, *, lat: float, lng: float, at_sea: AtSea = "nautical"
) -> LocalTime:
    """Convert a naive local wall time at a point to UTC (zone from the coordinates)."""
    return to_utc(local, zone_at(lat, lng, at_sea=at_sea))
