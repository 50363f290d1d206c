"""Injectable time: the service asks a :class:`Clock` for "now" (an aware UTC ``datetime``):
:class:`SystemClock` in production, :class:`ManualClock` in tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """A source of the current instant (aware, UTC)."""

    def now(self) -> datetime:
        """The current instant as an aware UTC datetime."""
        ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> datetime:
        """The current instant from the operating system."""
        return datetime.now(UTC)


class ManualClock:
    """A clock that only moves when told to (for tests and simulations)."""

    def __init__(self, start: datetime) -> None:
        self._now = as_utc(start)

    def now(self) -> datetime:
        """The instant this clock was last set to."""
        return self._now

    def set(self, instant: datetime) -> None:
        """Jump to ``instant`` (may go backwards; callers decide whether that makes sense)."""
        self._now = as_utc(instant)

    def advance(self, seconds: float = 0.0, **delta: float) -> datetime:
        """Move forward by ``seconds`` (and/or ``timedelta`` keywords); return the new now."""
        self._now = self._now + timedelta(seconds=seconds, **delta)
        return self._now


def as_utc(instant: datetime) -> datetime:
    """``instant`` converted to UTC; naive datetimes are refused."""
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise ValueError("an aware datetime is required (got a naive one)")
    return instant.astimezone(UTC)


def to_micros(instant: datetime) -> int:
    """Whole microseconds since the Unix epoch (how the store keeps instants)."""
    delta = as_utc(instant) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: int) -> datetime:
    """The inverse of :func:`to_micros`."""
    return _EPOCH + timedelta(microseconds=micros)


def from_micros_or_none(micros: int | None) -> datetime | None:
    """:func:`from_micros` of a column that may be NULL (None stays None)."""
    return None if micros is None else from_micros(int(micros))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def timestamp_text(instant: datetime) -> str:
    """``instant`` as ISO 8601 UTC with milliseconds: ``2024-05-01T12:00:00.123Z`` (the
    service's one timestamp format: envelopes, results, webhooks)."""
    m = instant.astimezone(UTC)
    return (
        f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}."
        f"{m.microsecond // 1000:03d}Z"
    )
