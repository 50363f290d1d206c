"""Zones from coordinates and local -> UTC, checked against published clock changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bodygraph.errors import InvalidInstantError
from bodygraph.geo.places import InvalidLatitudeError, InvalidLongitudeError
from bodygraph.geo.timezones import (
    TimezoneLookupError,
    WallTime,
    is_nautical,
    local_to_utc,
    to_utc,
    tz_version,
    zone,
    zone_at,
    zones_at,
)
from bodygraph_server.http.errors import from_library_error

BERLIN = (52.52, 13.405)
NEW_YORK = (40.713, -74.006)
SYDNEY = (-33.869, 151.209)
LORD_HOWE = (-31.55, 159.08)
APIA = (-13.833, -171.767)
PAGO_PAGO = (-14.279, -170.701)
KIRITIMATI = (1.87, -157.40)
HONOLULU = (21.307, -157.858)
MOSCOW = (55.756, 37.617)
PARIS = (48.857, 2.352)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def at(point: tuple[float, float], *args: int):
    return local_to_utc(datetime(*args), lat=point[0], lng=point[1])


@pytest.mark.parametrize(("point", "name"), [
    (BERLIN, "Europe/Berlin"), (NEW_YORK, "America/New_York"), (SYDNEY, "Australia/Sydney"),
    (APIA, "Pacific/Apia"), (PAGO_PAGO, "Pacific/Pago_Pago"), (MOSCOW, "Europe/Moscow"),
    (KIRITIMATI, "Pacific/Kiritimati"), (LORD_HOWE, "Australia/Lord_Howe"),
])
def test_zone_from_coordinates(point, name):
    assert zone_at(*point) == name


# Each: place, local wall time, the UTC instant it means, the kind. The instants follow
# from the published rules: EU clocks change at 01:00 UTC on the last Sundays of March and
# October; the US (since 2007) at 02:00 local on the second Sunday of March and the first
# of November; New South Wales at 02:00 standard time on the first Sundays of October
# (forward) and April (back, at 03:00 daylight time); Lord Howe Island moves by 30 minutes.
CLOCK_CHANGES = [
    # Europe: 02:00-03:00 skipped on 2021-03-28, 02:00-03:00 twice on 2021-10-31
    (BERLIN, (2021, 3, 28, 2, 30), utc(2021, 3, 28, 1, 30), WallTime.GAP, 1),
    (BERLIN, (2021, 10, 31, 2, 30), utc(2021, 10, 31, 0, 30), WallTime.FOLD, 2),
    (BERLIN, (2021, 10, 31, 3, 30), utc(2021, 10, 31, 2, 30), WallTime.UNIQUE, 1),
    (BERLIN, (2021, 3, 28, 1, 59), utc(2021, 3, 28, 0, 59), WallTime.UNIQUE, 1),
    # United States
    (NEW_YORK, (2021, 3, 14, 2, 30), utc(2021, 3, 14, 7, 30), WallTime.GAP, -5),
    (NEW_YORK, (2021, 11, 7, 1, 30), utc(2021, 11, 7, 5, 30), WallTime.FOLD, -4),
    (NEW_YORK, (2006, 4, 2, 2, 30), utc(2006, 4, 2, 7, 30), WallTime.GAP, -5),  # pre-2007
    (NEW_YORK, (2006, 3, 12, 2, 30), utc(2006, 3, 12, 7, 30), WallTime.UNIQUE, -5),
    # southern hemisphere
    (SYDNEY, (2021, 10, 3, 2, 30), utc(2021, 10, 2, 16, 30), WallTime.GAP, 10),
    (SYDNEY, (2021, 4, 4, 2, 30), utc(2021, 4, 3, 15, 30), WallTime.FOLD, 11),
    (SYDNEY, (2021, 7, 1, 12, 0), utc(2021, 7, 1, 2, 0), WallTime.UNIQUE, 10),
    (SYDNEY, (2021, 1, 1, 12, 0), utc(2021, 1, 1, 1, 0), WallTime.UNIQUE, 11),
]


@pytest.mark.parametrize(("point", "wall", "instant", "kind", "hours"), CLOCK_CHANGES)
def test_dst_gaps_and_folds(point, wall, instant, kind, hours):
    result = at(point, *wall)
    assert result.utc == instant
    assert result.wall_time is kind
    assert result.utc_offset == timedelta(hours=hours)
    assert result.local == datetime(*wall)
    assert not result.nautical


def test_half_hour_daylight_saving_on_lord_howe_island():
    # +10:30 standard, +11:00 summer; 02:00 -> 02:30 on the first Sunday of October
    gap = at(LORD_HOWE, 2021, 10, 3, 2, 15)
    assert gap.wall_time is WallTime.GAP
    assert gap.utc == utc(2021, 10, 2, 15, 45)
    fold = at(LORD_HOWE, 2021, 4, 4, 1, 45)
    assert fold.wall_time is WallTime.FOLD
    assert fold.utc == utc(2021, 4, 3, 14, 45)  # first occurrence, at +11:00


def test_nineteenth_century_births_use_local_mean_time():
    # Before 1893 Berlin kept local mean time: the tz database's 0:53:28 is the longitude
    # of its reference point (13°22' E) at 4 minutes a degree.
    result = at(BERLIN, 1850, 6, 1, 12, 0)
    assert result.utc_offset == timedelta(minutes=53, seconds=28)
    assert abs(result.utc_offset - timedelta(minutes=4 * (13 + 22 / 60))) < timedelta(seconds=1)
    assert result.utc == utc(1850, 6, 1, 11, 6, 32)
    assert result.wall_time is WallTime.UNIQUE
    # Paris kept its mean time (9 min 21 s, the Paris meridian 2°20'14" E) until 1911
    paris = at(PARIS, 1880, 1, 1, 0, 0)
    assert paris.utc_offset == timedelta(minutes=9, seconds=21)
    assert abs(paris.utc_offset - timedelta(minutes=4 * (2 + 20 / 60 + 14 / 3600))) < timedelta(
        seconds=1)


def test_moscow_offsets_changed_historically():
    # Russia kept UTC+4 all year from March 2011 and moved to UTC+3 on 2014-10-26.
    assert at(MOSCOW, 2010, 1, 15, 12, 0).utc_offset == timedelta(hours=3)
    assert at(MOSCOW, 2012, 1, 15, 12, 0).utc_offset == timedelta(hours=4)
    assert at(MOSCOW, 2013, 7, 15, 12, 0).utc_offset == timedelta(hours=4)
    assert at(MOSCOW, 2015, 1, 15, 12, 0).utc_offset == timedelta(hours=3)


def test_samoa_crossed_the_date_line_and_skipped_a_day():
    # Samoa moved west of the date line: 2011-12-29 was followed by 2011-12-31.
    before = at(APIA, 2011, 12, 29, 12, 0)
    assert before.utc_offset == timedelta(hours=-10)  # UTC-11 plus daylight saving
    after = at(APIA, 2011, 12, 31, 12, 0)
    assert after.utc_offset == timedelta(hours=14)  # UTC+13 plus daylight saving
    assert after.utc - before.utc == timedelta(hours=24)  # two calendar days, one real day
    skipped = at(APIA, 2011, 12, 30, 12, 0)
    assert skipped.wall_time is WallTime.GAP
    assert skipped.utc_offset == timedelta(hours=-10)  # the offset before the gap
    assert skipped.utc == utc(2011, 12, 30, 22, 0)


def test_the_same_wall_time_on_both_sides_of_the_date_line_is_a_day_apart():
    # Apia (UTC+13 in June) and Pago Pago (UTC-11), 200 km apart
    apia = at(APIA, 2015, 6, 1, 12, 0)
    pago = at(PAGO_PAGO, 2015, 6, 1, 12, 0)
    assert pago.utc - apia.utc == timedelta(hours=24)
    # Kiritimati (UTC+14) and Honolulu (UTC-10) share clock hours but not dates
    line = at(KIRITIMATI, 2020, 1, 1, 0, 0)
    assert line.utc == utc(2019, 12, 31, 10, 0)
    hawaii = at(HONOLULU, 2019, 12, 31, 0, 0)
    assert hawaii.utc == line.utc
    # Kiribati's Line Islands skipped 1994-12-31 moving from UTC-10 to UTC+14
    assert at(KIRITIMATI, 1994, 12, 31, 12, 0).wall_time is WallTime.GAP


@pytest.mark.parametrize("lng", [179.99, -179.99])
def test_fiji_on_both_sides_of_the_180th_meridian(lng):
    # Fiji's islands straddle 180°; the whole country keeps one zone
    assert zone_at(-16.8 if lng > 0 else -18.2, lng if lng > 0 else -178.8) == "Pacific/Fiji"


@pytest.mark.parametrize(("lat", "lng"), [(0.0, -30.0), (40.0, -40.0), (-40.0, -120.0),
                                          (-30.0, 80.0), (35.0, 170.0), (-50.0, 0.0),
                                          (30.0, -160.0), (-20.0, -100.0)])
def test_open_sea_uses_the_nautical_zone_of_the_longitude(lat, lng):
    name = zone_at(lat, lng)
    assert is_nautical(name)
    # nautical time: UTC offset = longitude / 15 degrees, rounded to whole hours
    result = local_to_utc(datetime(2000, 1, 1, 12, 0), lat=lat, lng=lng)
    assert result.nautical
    assert result.utc_offset == timedelta(hours=round(lng / 15))


def test_open_sea_can_be_refused():
    with pytest.raises(TimezoneLookupError) as caught:
        zone_at(0.0, -30.0, at_sea="error")
    assert from_library_error(caught.value).code == "TIMEZONE_LOOKUP_FAILED"
    with pytest.raises(TimezoneLookupError):
        local_to_utc(datetime(2000, 1, 1), lat=0.0, lng=-30.0, at_sea="error")
    assert zone_at(*BERLIN, at_sea="error") == "Europe/Berlin"
    with pytest.raises(ValueError):
        zone_at(*BERLIN, at_sea="sometimes")  # type: ignore[arg-type]


def test_zones_for_many_points_at_once():
    names = zones_at([BERLIN[0], 0.0, SYDNEY[0]], [BERLIN[1], -30.0, SYDNEY[1]])
    assert names == ["Europe/Berlin", "Etc/GMT+2", "Australia/Sydney"]
    with pytest.raises(TimezoneLookupError):
        zones_at([BERLIN[0], 0.0], [BERLIN[1], -30.0], at_sea="error")
    with pytest.raises(ValueError):
        zones_at([1.0, 2.0], [3.0])
    with pytest.raises(InvalidLatitudeError):
        zones_at([95.0], [3.0])


@pytest.mark.parametrize(("lat", "lng", "error"), [
    (90.5, 0.0, InvalidLatitudeError), (-91.0, 0.0, InvalidLatitudeError),
    (0.0, 180.5, InvalidLongitudeError), (float("nan"), 0.0, InvalidLatitudeError),
    (0.0, float("inf"), InvalidLongitudeError),
])
def test_coordinates_out_of_range(lat, lng, error):
    with pytest.raises(error) as caught:
        zone_at(lat, lng)
    assert from_library_error(caught.value).code in ("INVALID_LATITUDE", "INVALID_LONGITUDE")


def test_the_poles_and_the_edges_have_zones():
    assert zone_at(90.0, 0.0) == "Etc/GMT"
    assert zone_at(-90.0, 0.0).startswith("Antarctica/")
    assert is_nautical(zone_at(50.0, 180.0)) and is_nautical(zone_at(50.0, -180.0))


def test_zone_names_come_from_the_tzdata_package():
    assert tz_version()[:2] == "20" and tz_version()[-1].isalpha()
    assert zone("Europe/Berlin").key == "Europe/Berlin"
    for bad in ("Mars/Olympus_Mons", "../etc/passwd", "Europe/../Europe/Berlin", "", "UTC "):
        with pytest.raises(TimezoneLookupError):
            zone(bad)


def test_local_times_must_be_naive():
    with pytest.raises(InvalidInstantError):
        to_utc(datetime(2000, 1, 1, tzinfo=UTC), "Europe/Berlin")
    with pytest.raises(InvalidInstantError):
        to_utc("2000-01-01 12:00", "Europe/Berlin")  # type: ignore[arg-type]


def test_the_ends_of_the_calendar_are_refused_cleanly():
    with pytest.raises(InvalidInstantError):
        to_utc(datetime(1, 1, 1, 0, 0), "Asia/Tokyo")  # would be before year 1 in UTC
    with pytest.raises(InvalidInstantError):
        to_utc(datetime(9999, 12, 31, 23, 59), "America/New_York")  # after 9999 in UTC


ZONES = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe",
         "Pacific/Apia", "Europe/Moscow", "America/Santiago", "Asia/Tehran", "Europe/London",
         "America/Sao_Paulo", "Pacific/Chatham", "Asia/Kolkata"]


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(ZONES),
    local=st.datetimes(min_value=datetime(1850, 1, 1), max_value=datetime(2100, 1, 1)),
)
def test_conversion_properties(name, local):
    result = to_utc(local, name)
    tz = ZoneInfo(name)
    assert result.utc.tzinfo is UTC
    assert result.utc + result.utc_offset == local.replace(tzinfo=UTC)
    back = result.utc.astimezone(tz).replace(tzinfo=None)
    if result.wall_time is WallTime.GAP:
        # the wall time never shows; read with the earlier (smaller) offset it lands after
        assert back > local
        assert back - local <= timedelta(hours=25)
    else:
        assert back == local
    if result.wall_time is WallTime.FOLD:
        # the same wall time shows again later; ours is the first occurrence
        later = local.replace(tzinfo=tz, fold=1).astimezone(UTC)
        assert later > result.utc
        assert later.astimezone(tz).replace(tzinfo=None) == local
