"""Rows -> UTC instants: each input mode's columns read by the rules of
:mod:`bodygraph.geo.birthtime`, local times resolved by :mod:`bodygraph.geo.timezones`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from bodygraph.batch.errors import BatchError, EmptyCellError, row_error
from bodygraph.batch.readers import Chunk
from bodygraph.errors import BodygraphError
from bodygraph.geo.birthtime import parse_instant, wall_time
from bodygraph.geo.coordinates import InvalidLatitudeError, InvalidLongitudeError
from bodygraph.geo.timezones import to_utc, zone_at

if TYPE_CHECKING:
    from bodygraph.geo.places import Place

NOT_A_TIME = np.datetime64("NaT", "us")
#: Distinct places remembered at most (memory stays bounded on endless distinct names).
MAX_PLACES = 100_000

Instants = npt.NDArray[np.datetime64]
Cells = list[str | None]
#: The error of each row: its ``error_code`` and ``error`` cells (None: no error).
Failures = list[tuple[str, str] | None]


@dataclass
class Resolver:
    """Turns the rows of a chunk into UTC instants, remembering geocoded places."""

    mode: str
    geocode: Callable[[str], Place] | None = None
    places: dict[str, Place | BodygraphError] = field(default_factory=dict)

    def resolve(self, chunk: Chunk, n: int) -> tuple[Instants, Failures, dict[str, Cells]]:
        """UTC instants (NaT where the row is bad), an error per row, and extra columns."""
        errors: Failures = [None] * n
        if self.mode == "utc":
            return self._instants(chunk["birth_utc"], errors), errors, {}
        utc = np.full(n, NOT_A_TIME)
        zones: Cells = [None] * n
        walls: Cells = [None] * n
        places = self._zones(chunk, n, errors)
        for i in range(n):
            if errors[i] is not None:
                continue
            try:
                local = wall_time(_given(chunk, "date", i), _given(chunk, "time", i))
                zone = places[i]
                if zone is None:
                    raise EmptyCellError("tz")
                resolved = to_utc(local, zone)
                utc[i] = np.datetime64(resolved.utc.replace(tzinfo=None), "us")
                zones[i], walls[i] = resolved.zone, resolved.wall_time.value
            except (ValueError, BodygraphError) as exc:
                errors[i] = _failure(exc)
        return utc, errors, {"zone": zones, "wall_time": walls}

    @staticmethod
    def _instants(texts: Cells, errors: Failures) -> Instants:
        fast = utc_column(texts)
        if fast is not None:
            return fast
        utc = np.full(len(texts), NOT_A_TIME)
        for i, text in enumerate(texts):
            try:
                utc[i] = utc_micros(text)
            except (ValueError, BodygraphError) as exc:
                errors[i] = _failure(exc)
        return utc

    def _zones(self, chunk: Chunk, n: int, errors: Failures) -> Cells:
        if self.mode == "tz":
            return [(z or "").strip() or None for z in chunk["tz"]]
        zones: Cells = [None] * n
        for i in range(n):
            try:
                if self.mode == "coordinates":
                    lat, lng = _degrees(chunk, "lat", i), _degrees(chunk, "lng", i)
                else:
                    place = self._place((chunk["location"][i] or "").strip())
                    lat, lng = place.lat, place.lng
                zones[i] = zone_at(lat, lng)
            except (ValueError, BodygraphError) as exc:
                errors[i] = _failure(exc)
        return zones

    def _place(self, text: str) -> Place:
        if not text:
            raise EmptyCellError("location")
        if text not in self.places:
            if self.geocode is None:  # pragma: no cover - set for the location mode
                raise BatchError("no geocoder")
            if len(self.places) > MAX_PLACES:
                self.places.clear()
            try:
                self.places[text] = self.geocode(text)
            except BodygraphError as exc:
                self.places[text] = exc
        found = self.places[text]
        if isinstance(found, BodygraphError):
            raise found
        return found


def utc_column(texts: Cells) -> Instants | None:
    """The whole column at once when every value is plain UTC (``...Z`` or no offset);
    None when any value needs a closer look (offsets, blanks, errors)."""
    plain = []
    for text in texts:
        if text is None or "T" not in text or "+" in text or text.count("-") > 2:
            return None
        plain.append(text.strip().removesuffix("Z"))
    try:
        return np.array(plain, dtype="datetime64[us]")
    except ValueError:
        return None


def utc_micros(text: str | None) -> np.datetime64:
    """One ``birth_utc`` cell as a UTC instant; a text without an offset is UTC."""
    if text is None or not text.strip():
        raise EmptyCellError("birth_utc")
    moment = parse_instant(text)
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return np.datetime64(moment, "us")


def _given(chunk: Chunk, column: str, i: int) -> str:
    """The text of row ``i`` in ``column``; an :class:`EmptyCellError` when it is empty."""
    text = chunk[column][i]
    if text is None or not text.strip():
        raise EmptyCellError(column)
    return text


def _degrees(chunk: Chunk, column: str, i: int) -> float:
    """Row ``i``'s latitude or longitude (``column`` ``lat`` or ``lng``) as a number."""
    text = _given(chunk, column, i)
    try:
        return float(text)
    except ValueError:
        error = InvalidLatitudeError if column == "lat" else InvalidLongitudeError
        raise error(f"{column} {text!r} is not a number of degrees") from None


def _failure(exc: ValueError | BodygraphError) -> tuple[str, str]:
    """A row's error cells; a ``ValueError`` the library did not type is a bad row too."""
    if isinstance(exc, BodygraphError):
        return row_error(exc)
    return row_error(BatchError(f"the row cannot be read: {exc}"))
