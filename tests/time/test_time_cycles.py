"""Solar return, Saturn return and Uranus opposition against the Swiss Ephemeris."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from time_swiss import allowed_seconds, crossing_jd, longitude, tt_jd

from bodygraph.errors import InvalidOptionError, OutOfRangeError
from bodygraph.model.chart import Body
from bodygraph.relations.cycles import (
    saturn_returns,
    solar_return,
    solar_returns,
    uranus_oppositions,
)

BIRTHS = [datetime(1980, 1, 3, 8, 30, tzinfo=UTC), datetime(1850, 7, 14, 23, 5, tzinfo=UTC),
          datetime(2101, 12, 31, 23, 59, tzinfo=UTC)]


def _assert_at_longitude(body: Body, instant: datetime, target: float) -> None:
    jd = tt_jd(instant)
    swiss = crossing_jd(body, target % 360.0, jd, span_s=3600.0)
    assert abs(jd - swiss) * 86400 < allowed_seconds(body, jd), (body, instant)


@pytest.mark.parametrize("birth", BIRTHS)
def test_solar_return_matches_swisseph(birth: datetime) -> None:
    natal = longitude(Body.SUN, tt_jd(birth))
    for year in (birth.year + 1, birth.year + 40):
        found = solar_return(birth, year)
        assert abs(found - birth.replace(year=year)) < timedelta(days=2)
        _assert_at_longitude(Body.SUN, found, natal)


def test_solar_returns_vectorized_equal_one_by_one() -> None:
    years = np.array([b.year + 10 for b in BIRTHS])
    many = solar_returns(BIRTHS, years)
    ones = [solar_return(b, int(y)) for b, y in zip(BIRTHS, years, strict=True)]
    assert [np.datetime64(o.replace(tzinfo=None), "us") for o in ones] == many.tolist()


@pytest.mark.parametrize("birth", BIRTHS[:2])
def test_saturn_returns_and_uranus_oppositions_match_swisseph(birth: datetime) -> None:
    jd = tt_jd(birth)
    for body, angle, passes, ages in (
        (Body.SATURN, 0.0, saturn_returns(birth), (26, 33)),
        (Body.URANUS, 180.0, uranus_oppositions(birth), (35, 48)),
    ):
        assert len(passes) in (1, 3), passes
        assert passes == sorted(passes)
        natal = longitude(body, jd)
        for instant in passes:
            age = (instant - birth) / timedelta(days=365.25)
            assert ages[0] < age < ages[1]
            _assert_at_longitude(body, instant, natal + angle)
        # no pass missed: swisseph's daily positions cross the target as often
        days = np.arange(ages[0] * 365.25, ages[1] * 365.25, 1.0)
        relative = np.array([(longitude(body, jd + d) - natal - angle + 180) % 360
                             for d in days]) - 180
        turned = (np.diff(np.sign(relative)) != 0) & (np.abs(relative[1:]) < 90)
        assert np.count_nonzero(turned) == len(passes)


def test_out_of_range_and_bad_years_are_clear_errors() -> None:
    with pytest.raises(OutOfRangeError, match="solar return of 2300"):
        solar_return(BIRTHS[0], 2300)
    with pytest.raises(InvalidOptionError, match="after the birth year"):
        solar_return(BIRTHS[0], 1980)
    with pytest.raises(OutOfRangeError, match="Uranus opposition"):
        uranus_oppositions(datetime(2160, 1, 1, tzinfo=UTC))
