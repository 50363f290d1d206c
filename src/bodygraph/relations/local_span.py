"""Local days at a time zone as spans of UTC instants, and UTC instants as wall-clock
times, with the tz database's gaps (clocks turned forward) and folds (turned back)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Literal

from bodygraph.errors import InvalidOptionError

#: The longest local range a search covers, in days (both dates included).
MAX_DAYS = 7

WallPass = Literal["first", "second"]


def _candidates(local: datetime, zone: tzinfo) -> list[datetime]:
    """The UTC instants whose wall time in ``zone`` is ``local`` (none in a gap, two in
    a fold)."""
    found = []
    for fold in (0, 1):
        utc = local.replace(tzinfo=zone, fold=fold).astimezone(UTC)
        if utc.astimezone(zone).replace(tzinfo=None, fold=0) == local:
            found.append(utc)
    return sorted(set(found))


def _transition(local: datetime, zone: tzinfo) -> datetime:
    """The first instant after a gap holding the wall time ``local``: the transition."""
    ends = sorted(local.replace(tzinfo=zone, fold=f).astimezone(UTC) for f in (0, 1))
    low, high = ends
    after = high.astimezone(zone).utcoffset()
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        if middle.astimezone(zone).utcoffset() == after:
            high = middle
        else:
            low = middle
    return high.replace(microsecond=0) + (timedelta(seconds=1) if high.microsecond else
                                          timedelta(0))


def first_instant(local: datetime, zone: tzinfo) -> datetime:
    """The earliest UTC instant whose wall time is ``local`` (naive), or, when ``local``
    falls in a gap, the instant the clocks jumped over it."""
    found = _candidates(local, zone)
    return found[0] if found else _transition(local, zone)


def last_instant(local: datetime, zone: tzinfo) -> datetime:
    """As :func:`first_instant`, the latest: in a fold, the second pass."""
    found = _candidates(local, zone)
    return found[-1] if found else _transition(local, zone)


def wall_pass(instant: datetime, zone: tzinfo) -> WallPass | None:
    """``"first"`` or ``"second"`` when the wall time of ``instant`` occurs twice in
    ``zone`` (a fold), else ``None``."""
    local = instant.astimezone(zone)
    twin = local.replace(fold=1 - local.fold)
    if twin.utcoffset() == local.utcoffset():
        return None
    return "second" if local.fold else "first"


def local_span(first_day: date, zone: tzinfo, last_day: date | None = None,
               from_time: time | None = None, to_time: time | None = None,
               ) -> tuple[datetime, datetime]:
    """The UTC instants from ``from_time`` (default midnight) on ``first_day`` to
    ``to_time`` on ``last_day`` (default: to the end of that day; ``last_day`` defaults
    to ``first_day``), local times of ``zone``: at most ``MAX_DAYS`` days. A bound in a
    fold takes its widest reading (from the first pass, to the second); a bound in a gap
    is the instant the clocks jumped."""
    last_day = first_day if last_day is None else last_day
    days = (last_day - first_day).days + 1
    if days < 1:
        raise InvalidOptionError(f"the last date {last_day} is before the first {first_day}; "
                                 "give a last date on or after the first")
    if days > MAX_DAYS:
        raise InvalidOptionError(
            f"the range {first_day} to {last_day} is {days} days; give at most {MAX_DAYS} "
            f"days (a last date up to {first_day + timedelta(days=MAX_DAYS - 1)})")
    start = first_instant(datetime.combine(first_day, from_time or time(0)), zone)
    if to_time is None:
        end = first_instant(datetime.combine(last_day + timedelta(days=1), time(0)), zone)
    else:
        end = last_instant(datetime.combine(last_day, to_time), zone)
    if end <= start:
        raise InvalidOptionError(
            f"the search would end ({end:%Y-%m-%d %H:%M:%S} UTC) before it begins "
            f"({start:%Y-%m-%d %H:%M:%S} UTC); give a to-time after the from-time")
    return start, end
