"""The batch job's own errors, and how the error of one row is written: a stable code in
its ``error_code`` cell and a plain-language message in its ``error`` cell."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from bodygraph.errors import (
    BodygraphError,
    InvalidInstantError,
    InvalidOptionError,
    OutOfRangeError,
)
from bodygraph.geo.birthtime import InvalidBirthDateError, InvalidBirthTimeError
from bodygraph.geo.coordinates import InvalidCoordinatesError, PlaceError
from bodygraph.geo.timezones import TimezoneLookupError

__all__ = [
    "OTHER", "PLACE_ERROR_CODES", "ROW_ERROR_CODES", "BatchError", "BatchOptionError",
    "EmptyCellError", "UndecodableRowError", "row_error",
]


class BatchError(BodygraphError):
    """The job cannot run at all (unreadable input, unknown columns, bad options)."""


class BatchOptionError(BatchError, InvalidOptionError):
    """The job's options cannot be used as given (the output is the input, an output
    format or a text encoding that does not exist, ...): a usage mistake, found before
    anything is read or written."""


class UndecodableRowError(BatchError):
    """A row of the input holding bytes that are not text in the input's encoding."""


class EmptyCellError(BatchError):
    """A cell the row's column set needs is empty."""

    def __init__(self, column: str) -> None:
        self.column = column
        super().__init__(f"{column} is empty")


#: The ``error_code`` of a bad row, by the kind of error, first match wins; the codes are
#: stable (scripts may test them), the messages are for people and may change.
ROW_ERROR_CODES: Final[tuple[tuple[type[BaseException], str], ...]] = (
    (UndecodableRowError, "INVALID_ENCODING"),
    (EmptyCellError, "EMPTY"),
    (InvalidBirthDateError, "INVALID_DATE"),
    (InvalidBirthTimeError, "INVALID_TIME"),
    (OutOfRangeError, "OUT_OF_RANGE"),
    (InvalidInstantError, "INVALID_INSTANT"),
    (InvalidCoordinatesError, "INVALID_COORDINATES"),
    (TimezoneLookupError, "UNKNOWN_ZONE"),
)
#: The ``error_code`` of a geocoding error, by the name of its class or of a base class (the
#: geocoders are only imported when a location column is read); any other is
#: ``GEOCODE_FAILED``.
PLACE_ERROR_CODES: Final[Mapping[str, str]] = {
    "InvalidLocationError": "INVALID_LOCATION",
    "LocationNotFoundError": "PLACE_NOT_FOUND",
}
#: The code of any other error of a row.
OTHER: Final = "INVALID_ROW"


def row_error(exc: BodygraphError) -> tuple[str, str]:
    """The ``error_code`` and ``error`` cells of a row that failed with ``exc``."""
    for kind, code in ROW_ERROR_CODES:
        if isinstance(exc, kind):
            return code, str(exc)
    if isinstance(exc, PlaceError):
        named = (PLACE_ERROR_CODES.get(kind.__name__) for kind in type(exc).__mro__)
        return next((code for code in named if code), "GEOCODE_FAILED"), str(exc)
    return OTHER, str(exc)
