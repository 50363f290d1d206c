"""Birth-time sensitivity: properties against calculate, and the Moon against swisseph."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from time_swiss import allowed_seconds, crossing_jd, longitude, nearest_boundary, tt_jd

from bodygraph import calculate
from bodygraph.errors import BodygraphError, InvalidOptionError, OutOfRangeError
from bodygraph.model.chart import Body, Chart
from bodygraph.relations.sensitivity import sensitivity, sensitivity_many
from bodygraph.testing import birth_instants, sensitivity_windows

ONE = timedelta(seconds=1)
BIRTH = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)
PROPERTIES = ("type", "profile", "authority", "definition", "incarnation_cross")


def _line(chart: Chart, side: str, body: Body) -> str:
    return str((chart.personality if side == "personality" else chart.design)[body])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(birth_instants(datetime(1850, 1, 1, tzinfo=UTC), datetime(2150, 1, 1, tzinfo=UTC)),
       sensitivity_windows(max_hours=3))
def test_segments_and_changes_agree_with_calculate(birth: datetime, window: timedelta) -> None:
    result = sensitivity(birth, window)
    assert (result.start, result.end) == (birth - window, birth + window)
    instants = [c.at for c in result.changes]
    assert instants == sorted(instants)
    assert all(result.start < t <= result.end for t in instants)
    # segments tile the window, cut at every change
    assert result.segments[0].start == result.start and result.segments[-1].end == result.end
    cuts = [s.end for s in result.segments[:-1]]
    assert cuts == sorted(set(instants))
    for segment in result.segments:
        middle = calculate(segment.start + (segment.end - segment.start) / 2)
        assert all(getattr(segment, name) == getattr(middle, name) for name in PROPERTIES)
    for change in result.changes:
        if change.at - ONE <= result.start or change.at + ONE > result.end:
            continue
        assert _line(calculate(change.at - ONE), change.side, change.body) == str(change.before)
        assert _line(calculate(change.at + ONE), change.side, change.body) == str(change.after)


def test_moon_changes_match_swisseph() -> None:
    result = sensitivity(datetime(1994, 8, 20, 16, 0, tzinfo=UTC), timedelta(hours=12))
    moon = [c for c in result.changes if c.body is Body.MOON and c.side == "personality"]
    assert len(moon) >= 5
    for change in moon:
        jd = tt_jd(change.at)
        swiss = crossing_jd(Body.MOON, nearest_boundary(longitude(Body.MOON, jd)), jd)
        assert abs(jd - swiss) * 86400 < allowed_seconds(Body.MOON, jd)
    # the design Moon changes too, as the design instant moves with the birth
    assert any(c.body is Body.MOON and c.side == "design" for c in result.changes)


def test_many_births_equal_one_by_one() -> None:
    births = [BIRTH, datetime(1901, 5, 6, 7, 8, tzinfo=UTC), datetime(2077, 11, 2, tzinfo=UTC)]
    table = sensitivity_many(np.array([b.replace(tzinfo=None) for b in births],
                                      dtype="datetime64[us]"), timedelta(minutes=90))
    assert len(table) == 3
    for birth, many in zip(births, table, strict=True):
        assert many == sensitivity(birth, timedelta(minutes=90))


def test_the_issue_example_reads_as_segments() -> None:
    result = sensitivity(BIRTH)
    assert result.to_dict()["from"] == "1980-01-03T06:30:00.000Z"
    assert {s.profile for s in result.segments} == {"3/5", "3/6"}
    change = result.to_dict()["changes"][0]
    assert set(change) == {"at", "side", "body", "from", "to"}
    assert change["at"].endswith(".000Z")


@pytest.mark.parametrize("window", [timedelta(0), timedelta(hours=-1), timedelta(hours=49)])
def test_window_out_of_bounds_is_a_value_error(window: timedelta) -> None:
    with pytest.raises(InvalidOptionError, match="48 hours") as caught:
        sensitivity(BIRTH, window)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, BodygraphError)


def test_window_outside_the_kernel_is_a_clear_error() -> None:
    with pytest.raises(OutOfRangeError, match="the window reaches"):
        sensitivity(datetime(2199, 12, 30, 12, tzinfo=UTC), timedelta(hours=48))


def test_no_births_no_rows() -> None:
    from bodygraph.relations.cycles import saturn_returns_many, solar_returns

    none = np.array([], dtype="datetime64[us]")
    assert len(sensitivity_many(none)) == 0
    assert solar_returns(none, 2000).size == 0 and saturn_returns_many(none) == []
