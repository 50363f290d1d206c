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
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from bodygraph._typing import FloatArray, Micros
from bodygraph.errors import InvalidInstantError

if TYPE_CHECKING:  # Skyfield is imported on first use only: it is slow to import.
    from skyfield.timelib import Time, Timescale


UTC_START = datetime(1972, 1, 1, tzinfo=UTC)
_UTC_START_US = np.datetime64("1972-01-01T00:00:00", "us")
_UNIX_EPOCH_JD = 2440587.5
_US_PER_DAY = 86_400_000_000
_TT_MINUS_TAI_S = 32.184


@cache
def timescale() -> Timescale:
    """Skyfield's timescale from its built-in tables (no download, ever): what
    ``skyfield.api.load.timescale(builtin=True)`` builds, without importing
    ``skyfield.api`` (its downloader, satellites and planets: a sixth of a one-chart
    command's time)."""
    from skyfield.functions import load_bundled_npy
    from skyfield.timelib import Timescale

    arrays = load_bundled_npy("iers.npz")
    daily_tt = arrays["tt_jd_minus_arange"] + np.arange(len(arrays["tt_jd_minus_arange"]))
    daily_delta_t = (arrays["delta_t_1e7"] / 1e7).round(7)
    return Timescale((daily_tt, daily_delta_t), arrays["leap_dates"], arrays["leap_offsets"])


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


def utc_text(instant: datetime) -> str:
    """An aware instant as the contract writes it: ``YYYY-MM-DDTHH:MM:SS.mmmZ`` (UTC,
    milliseconds, truncated).

    >>> utc_text(datetime(1980, 1, 3, 8, 30, 0, 999999, tzinfo=UTC))
    '1980-01-03T08:30:00.999Z'
    """
    moment = instant.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def require_aware(instant: datetime) -> datetime:
    """The instant in UTC; a naive datetime is an error."""
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise InvalidInstantError(
            f"{instant.isoformat()} has no time zone: pass an aware datetime "
            "(for example datetime(..., tzinfo=timezone.utc))"
        )
    return instant.astimezone(UTC)


def to_micros(instants: Sequence[datetime]) -> Micros:
    """Aware datetimes -> a datetime64[us] array of their UTC instants."""
    return np.array(
        [require_aware(i).replace(tzinfo=None) for i in instants], dtype="datetime64[us]"
    ).reshape(-1)


def as_micros(instants: Sequence[datetime] | npt.NDArray[Any]) -> Micros:
    """Aware datetimes, or a datetime64 array read as UTC, -> a datetime64[us] array."""
    if isinstance(instants, np.ndarray) and np.issubdtype(instants.dtype, np.datetime64):
        return instants.astype("datetime64[us]").reshape(-1)
    return to_micros(list(instants))


def to_aware(instant: np.datetime64) -> datetime:
    """A datetime64 (UTC) -> an aware datetime, to the microsecond."""
    value = np.asarray(instant).astype("datetime64[us]").item()
    if not isinstance(value, datetime):
        raise InvalidInstantError(f"cannot represent {instant} as a datetime")
    return value.replace(tzinfo=UTC)


def aware_list(instants: Micros) -> list[datetime]:
    """datetime64 (UTC) instants -> aware datetimes, to the microsecond (as
    :func:`to_aware`, for a whole array at once)."""
    values = np.asarray(instants).astype("datetime64[us]").reshape(-1).tolist()
    for value, instant in zip(values, instants, strict=True):
        if not isinstance(value, datetime):
            raise InvalidInstantError(f"cannot represent {instant} as a datetime")
    return [value.replace(tzinfo=UTC) for value in values]


@cache
def _leap_table() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """UTC instants (microseconds since 1970) where TAI - UTC changes, and its value from
    each of them on; the first row is 1972-01-01 (10 s)."""
    ts = timescale()
    starts = np.concatenate(([2441317.5], np.asarray(ts.leap_dates, dtype=np.float64)))
    offsets = np.concatenate(([10.0], np.asarray(ts.leap_offsets, dtype=np.float64)))
    micros = np.round((starts - _UNIX_EPOCH_JD) * _US_PER_DAY).astype(np.int64)
    return micros, offsets


def _split(micros: npt.NDArray[np.int64], seconds: FloatArray) -> TT:
    """``micros`` since 1970 plus ``seconds`` -> a split Julian date."""
    days, within = np.divmod(micros, _US_PER_DAY)
    whole = days.astype(np.float64) + _UNIX_EPOCH_JD
    fraction = (within.astype(np.float64) / 1e6 + seconds) / 86400.0
    return TT(whole, fraction)


def utc64_to_tt(utc: Micros) -> TT:
    """TT of datetime64 UTC instants (UT1 before 1972, see the module docstring)."""
    micros = np.asarray(utc, dtype="datetime64[us]").astype(np.int64).reshape(-1)
    early = micros < _UTC_START_US.astype(np.int64)
    leap_micros, offsets = _leap_table()
    row = np.searchsorted(leap_micros, micros, "right")
    row -= 1
    tai_minus_utc = offsets[np.maximum(row, 0)]
    tt = _split(micros, tai_minus_utc + _TT_MINUS_TAI_S)
    if early.any():
        days, within = np.divmod(micros[early], _US_PER_DAY)
        universal = timescale().ut1(1970, 1, 1 + days, 0, 0, within / 1e6)
        whole = np.array(tt.whole)
        fraction = np.array(tt.fraction)
        whole[early] = np.asarray(universal.whole, dtype=np.float64)
        fraction[early] = np.asarray(universal.tt_fraction, dtype=np.float64)
        tt = TT(whole, fraction)
    return tt


def utc_to_tt(instants: Sequence[datetime]) -> TT:
    """TT of aware UTC datetimes (UT1 before 1972, see the module docstring)."""
    return utc64_to_tt(to_micros(instants))


def _to_micros(whole: FloatArray, fraction: FloatArray) -> npt.NDArray[np.int64]:
    """A split Julian date -> microseconds since 1970, rounded to the nearest."""
    days = np.floor(whole - _UNIX_EPOCH_JD)
    rest = (whole - _UNIX_EPOCH_JD - days) + fraction
    out: npt.NDArray[np.int64] = days.astype(np.int64) * _US_PER_DAY + np.round(
        rest * _US_PER_DAY
    ).astype(np.int64)
    return out


@cache
def _leap_tt_table() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The TT instants (microseconds since 1970) where TAI - UTC changes, and TT - UTC
    in microseconds from each of them on: UTC = TT - 32.184 s - (TAI - UTC)."""
    leap_micros, offsets = _leap_table()
    shift = np.round((offsets + _TT_MINUS_TAI_S) * 1e6).astype(np.int64)
    return leap_micros + shift, shift


def tt_to_utc64(tt: TT) -> Micros:
    """UTC (UT1 before 1972) of TT instants, as datetime64[us] rounded to the microsecond."""
    whole = np.asarray(tt.whole, dtype=np.float64).reshape(-1)
    fraction = np.asarray(tt.fraction, dtype=np.float64).reshape(-1)
    leap_tt, shift = _leap_tt_table()
    as_tt = _to_micros(whole, fraction)
    row = np.searchsorted(leap_tt, as_tt, "right")
    row -= 1
    early = row < 0
    micros = as_tt - shift[np.maximum(row, 0)]
    if early.any():
        t = timescale().tt_jd(whole[early], fraction[early])
        micros[early] = _to_micros(
            np.asarray(t.whole, dtype=np.float64), np.asarray(t.ut1_fraction, dtype=np.float64)
        )
    out: Micros = micros.astype("datetime64[us]")
    return out


def tt_to_utc(tt: TT) -> list[datetime]:
    """Aware UTC datetimes of TT instants (UT1 before 1972), to the microsecond."""
    return [d.replace(tzinfo=UTC) for d in tt_to_utc64(tt).astype(datetime).tolist()]
