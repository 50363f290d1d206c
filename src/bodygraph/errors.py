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
    """A birth or design instant that falls outside the ephemeris kernel.

    ``reaching`` names what reaches outside when it is not the instant itself (a search:
    "the calendar"); :meth:`explain` words the error for another audience (the command
    line names its own option instead of the library's keyword).
    """

    def __init__(self, instant: datetime, first: datetime, last: datetime, *,
                 reaching: str | None = None,
                 remedy: str = "pass a larger kernel (ephemeris= or BODYGRAPH_EPHEMERIS)") -> None:
        self.instant = instant
        self.first = first
        self.last = last
        self.reaching = reaching
        super().__init__(self.explain(remedy=remedy))

    def explain(self, *, served: str = "births", remedy: str) -> str:
        """The message, ``served`` naming what the range is of (births, instants) and
        ``remedy`` saying how to use a larger kernel."""
        if self.reaching is not None:
            problem = (f"{self.reaching} reaches {self.instant.date().isoformat()} "
                       f"{self.instant:%H:%M:%S} UTC, outside the ephemeris "
                       f"({self.first.date().isoformat()} to {self.last.date().isoformat()} UTC)")
        else:
            problem = (f"{self.instant.isoformat()} is outside the supported range: {served} "
                       f"from {self.first.isoformat()} to {self.last.isoformat()} (UTC) with "
                       "this ephemeris")
        return f"{problem}; {remedy} for other dates"


class EphemerisError(BodygraphError):
    """The ephemeris kernel could not be found, opened or used."""


class UnsupportedLanguageError(InvalidOptionError):
    """A language code that has no catalog; ``supported`` lists the codes that have one."""

    def __init__(self, lang: object, supported: tuple[str, ...]) -> None:
        self.lang = lang
        self.supported = supported
        super().__init__(f"unknown language {lang!r}: use one of {', '.join(supported)}")
