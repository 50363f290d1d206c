"""UTC <-> TT conversions, vectorized, from Skyfield's leap-second and Delta T tables.

From 1972 on, UTC is civil UTC with leap seconds. Before 1972 UTC did not
exist in its modern form; as the Swiss Ephemeris does, we read an earlier
instant as UT1 and convert it with Skyfield's Delta T model. The two rules
meet within 0.02 s at 1972-01-01.

Instants travel as TT Julian dates split in two float64 arrays (whole days
and a fraction) so that no precision is lost over four centuries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache

import numpy as np
import numpy.typing as npt
from skyfield.api import load
from skyfield.timelib import Time, Timescale

from bodygraph.errors import InvalidInstantError

FloatArray = npt.NDArray[np.float64]

UTC_START = datetime(1972, 1, 1, tzinfo=UTC)
_J2000 = datetime(2000, 1, 1, 12, tzinfo=UTC)


@cache
def timescale() -> Timescale:
    """Skyfield's timescale from its built-in tables (no download, ever)."""
    return load.timescale(builtin=True)


@dataclass(frozen=True, slots=True)
class TT:
    """TT Julian dates of N instants, as ``whole + fraction`` arrays of shape (N,)."""

    whole: FloatArray
    fraction: FloatArray

    @property
    def jd(self) -> FloatArray:
        """The Julian date as one float64 array (about 40 microseconds resolution)."""
        return self.whole + self.fraction

    def shifted(self, days: FloatArray) -> TT:
        """These instants moved by ``days`` (an array of the same shape)."""
        return TT(self.whole, self.fraction + days)

    def time(self) -> Time:
        """A Skyfield Time of these instants."""
        return timescale().tt_jd(self.whole, self.fraction)


def require_aware(instant: datetime) -> datetime:
    """The instant in UTC; a naive datetime is an error."""
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise InvalidInstantError(
            f"{instant.isoformat()} has no time zone: pass an aware datetime "
            "(for example datetime(..., tzinfo=timezone.utc))"
        )
    return instant.astimezone(UTC)


def _civil_fields(instants: Sequence[datetime]) -> tuple[npt.NDArray[np.int64], ...]:
    arr = np.array(
        [(i.year, i.month, i.day, i.hour, i.minute, i.second, i.microsecond) for i in instants],
        dtype=np.int64,
    ).reshape(-1, 7)
    return tuple(arr.T)


def utc_to_tt(instants: Sequence[datetime]) -> TT:
    """TT of aware UTC datetimes (UT1 before 1972, see the module docstring)."""
    moments = [require_aware(i) for i in instants]
    year, month, day, hour, minute, second, micro = _civil_fields(moments)
    seconds = second + micro / 1e6
    ts = timescale()
    civil = ts.utc(year, month, day, hour, minute, seconds)
    universal = ts.ut1(year, month, day, hour, minute, seconds)
    early = np.array([m < UTC_START for m in moments], dtype=bool)
    whole = np.where(early, universal.whole, civil.whole).astype(np.float64)
    fraction = np.where(early, universal.tt_fraction, civil.tt_fraction).astype(np.float64)
    return TT(np.atleast_1d(whole), np.atleast_1d(fraction))


def _from_jd(whole: float, fraction: float) -> datetime:
    days = (whole - 2451545.0) + fraction
    return _J2000 + timedelta(days=float(days))


def tt_to_utc(tt: TT) -> list[datetime]:
    """Aware UTC datetimes of TT instants (UT1 before 1972), to the microsecond."""
    t = tt.time()
    civil = t.utc_datetime()
    ut1_whole = np.atleast_1d(t.whole)
    ut1_fraction = np.atleast_1d(t.ut1_fraction)
    civil_list = list(np.atleast_1d(civil))
    out: list[datetime] = []
    for c, w, f in zip(civil_list, ut1_whole, ut1_fraction, strict=True):
        out.append(c if c >= UTC_START else _from_jd(float(w), float(f)))
    return out
