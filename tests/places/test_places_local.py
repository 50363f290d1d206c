"""Charts from local birth data: calculate_local and calculate_at_place."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, time, timedelta

import pytest

from bodygraph.calculator import calculate
from bodygraph.errors import OutOfRangeError
from bodygraph.geo.local import (
    InvalidBirthDateError,
    InvalidBirthTimeError,
    LocalChart,
    calculate_at_place,
    calculate_local,
)
from bodygraph.geo.places import (
    GeocodeKeyInvalidError,
    GoogleGeocoder,
    InvalidLatitudeError,
    InvalidLocationError,
    InvalidLongitudeError,
    LocationNotFoundError,
    Place,
)
from bodygraph.geo.timezones import TimezoneLookupError, WallTime
from bodygraph_server.http.errors import from_library_error

BERLIN = (52.52, 13.405)


def test_calculate_local_converts_with_the_zone_of_the_coordinates():
    # Germany kept summer time (UTC+2) from 1990-03-25 to 1990-09-30
    result = calculate_local("1990-05-14", "08:30", lat=BERLIN[0], lng=BERLIN[1])
    assert isinstance(result, LocalChart)
    assert result.zone == "Europe/Berlin"
    assert result.utc_offset == timedelta(hours=2)
    assert result.birth_utc == datetime(1990, 5, 14, 6, 30, tzinfo=UTC)
    assert result.local == datetime(1990, 5, 14, 8, 30)
    assert result.wall_time is WallTime.UNIQUE and not result.ambiguous
    assert result.place is None
    assert (result.lat, result.lng) == BERLIN
    assert result.chart == calculate(result.birth_utc)
    assert result.chart.birth_utc == result.birth_utc


def test_date_and_time_objects_and_seconds_are_accepted():
    text = calculate_local("1990-05-14", "08:30:15", lat=BERLIN[0], lng=BERLIN[1])
    objects = calculate_local(date(1990, 5, 14), time(8, 30, 15), lat=BERLIN[0], lng=BERLIN[1])
    assert text == objects
    assert text.birth_utc == datetime(1990, 5, 14, 6, 30, 15, tzinfo=UTC)
    one_digit = calculate_local("1990-05-14", "8:30", lat=BERLIN[0], lng=BERLIN[1])
    assert one_digit == calculate_local("1990-05-14", "08:30", lat=BERLIN[0], lng=BERLIN[1])


def test_the_mean_node_is_passed_on():
    result = calculate_local("1990-05-14", "08:30", lat=BERLIN[0], lng=BERLIN[1], node="mean")
    assert result.chart == calculate(result.birth_utc, node="mean")


def test_calculate_at_place_uses_the_offline_gazetteer_by_default():
    result = calculate_at_place("1990-05-14", "08:30", "Berlin, Germany")
    assert result.place is not None
    assert result.place.describe().startswith("Berlin, Germany (52.5")
    assert result.zone == "Europe/Berlin"
    assert result.birth_utc == datetime(1990, 5, 14, 6, 30, tzinfo=UTC)
    assert (result.lat, result.lng) == (result.place.lat, result.place.lng)


def test_a_place_geocoded_before_is_reused_without_geocoding():
    place = Place("Sydney", -33.86785, 151.20732, country="Australia", country_code="AU")
    # New South Wales: summer time (UTC+11) in January
    result = calculate_at_place(date(2000, 1, 1), time(0, 0), place)
    assert result.place is place
    assert result.zone == "Australia/Sydney"
    assert result.birth_utc == datetime(1999, 12, 31, 13, 0, tzinfo=UTC)


def test_calculate_at_place_with_google(google_server, google_result):
    google_server.respond({"status": "OK", "results": [
        google_result("New York", 40.7127753, -74.0059728, country="United States",
                      country_code="US", region="New York")]})
    geocoder = GoogleGeocoder("caller-key", domain=google_server.domain, scheme="http",
                              timeout=1.0)
    result = calculate_at_place("1969-07-20", "22:56", "New York, NY", geocoder=geocoder)
    assert result.zone == "America/New_York"
    assert result.utc_offset == timedelta(hours=-4)  # EDT in July 1969
    assert result.birth_utc == datetime(1969, 7, 21, 2, 56, tzinfo=UTC)
    assert result.place is not None and result.place.source == "google"
    assert google_server.received[0].query["key"] == ["caller-key"]


def test_geocoding_errors_come_through(google_server):
    google_server.respond({"status": "REQUEST_DENIED", "results": []})
    geocoder = GoogleGeocoder("bad-key", domain=google_server.domain, scheme="http")
    with pytest.raises(GeocodeKeyInvalidError):
        calculate_at_place("1990-05-14", "08:30", "Berlin", geocoder=geocoder)
    with pytest.raises(LocationNotFoundError):
        calculate_at_place("1990-05-14", "08:30", "Qxzvkjwqpl")
    with pytest.raises(InvalidLocationError):
        calculate_at_place("1990-05-14", "08:30", 52.5)  # type: ignore[arg-type]


def test_the_gap_and_fold_flags_reach_the_caller():
    gap = calculate_local("2021-03-28", "02:30", lat=BERLIN[0], lng=BERLIN[1])
    assert gap.wall_time is WallTime.GAP and gap.ambiguous
    assert gap.birth_utc == datetime(2021, 3, 28, 1, 30, tzinfo=UTC)
    fold = calculate_local("2021-10-31", "02:30", lat=BERLIN[0], lng=BERLIN[1])
    assert fold.wall_time is WallTime.FOLD and fold.ambiguous
    assert fold.birth_utc == datetime(2021, 10, 31, 0, 30, tzinfo=UTC)


def test_a_nineteenth_century_birth_in_local_mean_time():
    result = calculate_at_place("1850-06-01", "12:00", "Berlin, Germany")
    assert result.utc_offset == timedelta(minutes=53, seconds=28)
    assert result.chart == calculate(datetime(1850, 6, 1, 11, 6, 32, tzinfo=UTC))


def test_a_birth_at_sea():
    result = calculate_local("2000-01-01", "12:00", lat=0.0, lng=-30.0)
    assert result.nautical and result.zone == "Etc/GMT+2"
    assert result.birth_utc == datetime(2000, 1, 1, 14, 0, tzinfo=UTC)
    with pytest.raises(TimezoneLookupError) as caught:
        calculate_local("2000-01-01", "12:00", lat=0.0, lng=-30.0, at_sea="error")
    assert from_library_error(caught.value).code == "TIMEZONE_LOOKUP_FAILED"


@pytest.mark.parametrize("value", ["1990-5-14", "14.05.1990", "1990-02-30", "", "19900514",
                                   datetime(1990, 5, 14), 19900514])
def test_bad_dates(value):
    with pytest.raises(InvalidBirthDateError) as caught:
        calculate_local(value, "08:30", lat=BERLIN[0], lng=BERLIN[1])
    assert from_library_error(caught.value).code == "INVALID_BIRTHDATE"


@pytest.mark.parametrize("value", ["8:3", "25:30", "24:00", "08:60", "08h30", "", 830,
                                   "108:30", time(8, 30, tzinfo=UTC)])
def test_bad_times(value):
    with pytest.raises(InvalidBirthTimeError) as caught:
        calculate_local("1990-05-14", value, lat=BERLIN[0], lng=BERLIN[1])
    assert from_library_error(caught.value).code == "INVALID_BIRTHTIME"


def test_bad_coordinates():
    with pytest.raises(InvalidLatitudeError):
        calculate_local("1990-05-14", "08:30", lat=91.0, lng=0.0)
    with pytest.raises(InvalidLongitudeError):
        calculate_local("1990-05-14", "08:30", lat=0.0, lng=-181.0)
    with pytest.raises(InvalidLatitudeError):
        calculate_local("1990-05-14", "08:30", lat="52", lng=0.0)  # type: ignore[arg-type]


def test_dates_outside_the_ephemeris_are_the_callers_error():
    with pytest.raises(OutOfRangeError):
        calculate_local("1750-01-01", "12:00", lat=BERLIN[0], lng=BERLIN[1])


def test_many_threads_at_once():
    points = [(BERLIN, "Europe/Berlin"), ((40.713, -74.006), "America/New_York"),
              ((-33.869, 151.209), "Australia/Sydney"), ((35.69, 139.69), "Asia/Tokyo")] * 4

    def one(item):
        (lat, lng), _ = item
        return calculate_local("2001-02-03", "04:05", lat=lat, lng=lng).zone

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(one, points)) == [name for _, name in points]
