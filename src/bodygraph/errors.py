"""Typed exceptions of the library. Every one derives from :class:`BodygraphError`."""

from __future__ import annotations

from datetime import datetime


class BodygraphError(Exception):
    """Base class of every error raised on purpose by bodygraph."""


class InvalidInstantError(BodygraphError, ValueError):
    """A birth instant that cannot be used (for example a naive datetime)."""


class InvalidOptionError(BodygraphError, ValueError):
    """An option that is not one of its allowed values (for example ``node="apparent"``)."""


class OutOfRangeError(BodygraphError, ValueError):
    """A birth or design instant that falls outside the ephemeris kernel."""

    def __init__(self, instant: datetime, first: datetime, last: datetime) -> None:
        self.instant = instant
        self.first = first
        self.last = last
        super().__init__(
            f"{instant.isoformat()} is outside the supported range: births from "
            f"{first.isoformat()} to {last.isoformat()} (UTC) with this ephemeris; "
            "pass a larger kernel (ephemeris= or BODYGRAPH_EPHEMERIS) for other dates"
        )


class EphemerisError(BodygraphError):
    """The ephemeris kernel could not be found, opened or used."""


class UnsupportedLanguageError(InvalidOptionError):
    """A language code that has no catalog; ``supported`` lists the codes that have one."""

    def __init__(self, lang: object, supported: tuple[str, ...]) -> None:
        self.lang = lang
        self.supported = supported
        super().__init__(f"unknown language {lang!r}: use one of {', '.join(supported)}")
