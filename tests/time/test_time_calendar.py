"""The ingress calendar against the Swiss Ephemeris and against a fine scan."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from time_swiss import allowed_seconds, crossing_jd, longitude, nearest_boundary, tt_jd

from bodygraph import calculate, calculate_many
from bodygraph.catalog.tables import tables
from bodygraph.errors import InvalidOptionError, OutOfRangeError
from bodygraph.model.chart import BODIES, Body
from bodygraph.relations.calendar import calendar
from bodygraph.rules.wheel import GATE

ONE = timedelta(seconds=1)


@pytest.mark.parametrize("year", [1805, 1921, 2024, 2199])
def test_rave_new_year_matches_swisseph(year: int) -> None:
    start = datetime(year, 1, 10, tzinfo=UTC)
    found = [i for i in calendar(start, start + timedelta(days=20), ["sun"]) if i.gate == 41]
    assert len(found) == 1 and found[0].line == 1
    jd = tt_jd(found[0].at)
    swiss = crossing_jd(Body.SUN, nearest_boundary(tables().gate_41_start_deg, GATE), jd)
    assert abs(jd - swiss) * 86400 < allowed_seconds(Body.SUN, jd)
    # the chart itself changes there: gate 60 a second before, 41 a second after
    assert calculate(found[0].at - ONE).personality.sun.gate == 60
    assert calculate(found[0].at + ONE).personality.sun.gate == 41


def test_moon_and_planet_ingresses_match_swisseph() -> None:
    start = datetime(1987, 6, 1, tzinfo=UTC)
    found = calendar(start, start + timedelta(days=5), ["moon", "mercury", "venus"], "line")
    assert {i.body for i in found} == {Body.MOON, Body.MERCURY, Body.VENUS}
    for ingress in found:
        jd = tt_jd(ingress.at)
        swiss = crossing_jd(ingress.body, nearest_boundary(longitude(ingress.body, jd)), jd)
        assert abs(jd - swiss) * 86400 < allowed_seconds(ingress.body, jd), ingress


def test_retrograde_mercury_re_enters_gates_by_line_6() -> None:
    # Mercury was retrograde from 2024-04-01 to 2024-04-25
    found = calendar(datetime(2024, 4, 2, tzinfo=UTC), datetime(2024, 4, 24, tzinfo=UTC),
                     ["mercury"])
    assert found and all(i.line == 6 for i in found)
    for ingress in found:
        before = calculate(ingress.at - ONE).personality.mercury
        after = calculate(ingress.at + ONE).personality.mercury
        assert (after.gate, after.line) == (ingress.gate, 6) and before.line == 1


def test_every_change_of_a_fine_scan_is_listed_in_order() -> None:
    start = datetime(2031, 3, 1, tzinfo=UTC)
    end = start + timedelta(days=3)
    found = calendar(start, end, BODIES, "line")
    assert [i.at for i in found] == sorted(i.at for i in found)
    scan = [start + timedelta(minutes=5 * k) for k in range(3 * 288 + 1)]
    table = calculate_many_lines(scan)
    for b, body in enumerate(BODIES):
        changes = int(np.count_nonzero(np.diff(table[b]) != 0))
        assert changes == sum(1 for i in found if i.body is body), body
    earth = [i.at for i in found if i.body is Body.EARTH]
    assert earth == [i.at for i in found if i.body is Body.SUN]


def calculate_many_lines(instants: list[datetime]) -> np.ndarray:
    """Personality gate * 10 + line of each body (rows) at each instant (columns)."""
    table = calculate_many(instants)
    return np.asarray(table.gate[0] * 10 + table.line[0])


def test_bad_input_is_a_clear_error() -> None:
    day = datetime(2000, 1, 1, tzinfo=UTC)
    with pytest.raises(InvalidOptionError, match="unknown body"):
        calendar(day, day + timedelta(days=1), ["chiron"])
    with pytest.raises(InvalidOptionError, match="after its start"):
        calendar(day, day)
    with pytest.raises(InvalidOptionError, match="level"):
        calendar(day, day + timedelta(days=1), level="color")  # type: ignore[arg-type]
    with pytest.raises(OutOfRangeError, match="outside the ephemeris"):
        calendar(datetime(1700, 1, 1, tzinfo=UTC), day)


def test_the_mean_node_only_moves_back() -> None:
    start = datetime(2010, 1, 1, tzinfo=UTC)
    found = calendar(start, start + timedelta(days=400), ["northNode", "southNode"],
                     node="mean")
    # 19.3 degrees a year backwards: 3 or 4 gates in 400 days, for each node
    assert len(found) in (6, 8) and all(i.line == 6 for i in found)
    for ingress in found:
        after = calculate(ingress.at + ONE, node="mean").personality[ingress.body]
        assert (after.gate, after.line) == (ingress.gate, ingress.line)
