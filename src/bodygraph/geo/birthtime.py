"""The text forms of a birth's date, time and instant: one definition for the library
(:mod:`bodygraph.geo.local`), the command line and the batch job.

* a date is ``YYYY-MM-DD`` (:func:`parse_date`);
* a local wall time is ``HH:MM`` or ``HH:MM:SS``, 24-hour, without a zone, the hour maybe
  of one digit (``8:30``) (:func:`parse_time`; both together: :func:`wall_time`);
* an instant is ISO 8601 with ``T`` between date and time, and ``Z`` or an offset
  (:func:`parse_instant`); what a text without an offset means is the caller's rule.

>>> parse_date("1990-05-14"), parse_time("08:30")
(datetime.date(1990, 5, 14), datetime.time(8, 30))
"""

from __future__ import annotations

import calendar
import re
from datetime import date as Date
from datetime import datetime
from datetime import time as Time
from typing import Final

from bodygraph.errors import InvalidInstantError

__all__ = [
    "InvalidBirthDateError",
    "InvalidBirthTimeError",
    "parse_date",
    "parse_instant",
    "parse_time",
    "wall_time",
]

_DATE: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_TIME: Final = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")


class InvalidBirthDateError(InvalidInstantError):
    """A birth date that is not a date or not ``YYYY-MM-DD`` (or no such day)."""


class InvalidBirthTimeError(InvalidInstantError):
    """A birth time that is not a naive time or not ``[H]H:MM`` / ``[H]H:MM:SS`` (24-hour)."""


def parse_date(value: Date | str) -> Date:
    """A birth date from a date or ``YYYY-MM-DD``; :class:`InvalidBirthDateError` otherwise."""
    if isinstance(value, datetime):
        raise InvalidBirthDateError(f"pass the birth date as a date, not a datetime: {value!r}")
    if isinstance(value, Date):
        return value
    if isinstance(value, str) and (match := _DATE.fullmatch(value.strip())):
        year, month, day = (int(part) for part in match.groups())
        try:
            return Date(year, month, day)
        except ValueError:
            raise InvalidBirthDateError(
                f"there is no day {value.strip()} in the calendar ({_why_no_day(year, month)})"
            ) from None
    raise InvalidBirthDateError(
        f"a birth date must be written YYYY-MM-DD (like 1990-05-14), not {value!r}")


def _why_no_day(year: int, month: int) -> str:
    if year < 1:
        return "years start at 0001"
    if not 1 <= month <= 12:
        return "months go from 01 to 12"
    return f"{calendar.month_name[month]} has {calendar.monthrange(year, month)[1]} days in {year}"


def parse_time(value: Time | str) -> Time:
    """A naive birth time from a time or ``[H]H:MM[:SS]``; else :class:`InvalidBirthTimeError`.

    >>> parse_time("8:30"), parse_time("20:15:30")
    (datetime.time(8, 30), datetime.time(20, 15, 30))
    """
    if isinstance(value, Time):
        if value.tzinfo is not None:
            raise InvalidBirthTimeError(
                "the birth time must be local wall time without a zone: the zone comes "
                "from the place"
            )
        return value.replace(fold=0)
    if isinstance(value, str) and (match := _TIME.fullmatch(value.strip())):
        hour, minute, second = (int(part) if part else 0 for part in match.groups())
        try:
            return Time(hour, minute, second)
        except ValueError:
            raise InvalidBirthTimeError(
                f"there is no time {value.strip()!r}: hours go from 0 to 23, minutes and "
                "seconds from 00 to 59") from None
    raise InvalidBirthTimeError(
        f"a birth time must be written H:MM or HH:MM, optionally :SS (24-hour, like 08:30), "
        f"not {value!r}")


def wall_time(date: Date | str, time: Time | str) -> datetime:
    """The naive local wall time of a birth date and time (each as :func:`parse_date` and
    :func:`parse_time` read it).

    >>> wall_time("1990-05-14", "08:30")
    datetime.datetime(1990, 5, 14, 8, 30)
    """
    return datetime.combine(parse_date(date), parse_time(time))


def parse_instant(text: str) -> datetime:
    """An ISO 8601 date-time (surrounding blanks ignored), aware when the text has ``Z`` or
    an offset and naive when it has none; :class:`~bodygraph.errors.InvalidInstantError`
    (a ``ValueError``) when it is not ISO 8601.

    The command line refuses a naive instant (a local time needs a place); the batch job
    reads it as UTC.

    >>> parse_instant(" 1980-01-03T08:30:00Z ").isoformat()
    '1980-01-03T08:30:00+00:00'
    >>> parse_instant("1980-01-03T08:30").tzinfo is None
    True
    """
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInstantError(
            f"{text!r} is not an ISO 8601 date-time; write it like 1980-01-03T08:30:00Z"
        ) from None
