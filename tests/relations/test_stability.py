"""Stability of a chart: every stretch against calculate (its edges to a second), the
Moon's edges against the Swiss Ephemeris, many at once, and the bound."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bodygraph import calculate
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import Body, Chart
from bodygraph.relations import Stability, Stretch, stability, stability_many
from bodygraph.testing import birth_instants

from .swiss_births import allowed_seconds, nearest_line_boundary, swiss_change

ONE = timedelta(seconds=1)
BIRTH = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)
PROPERTY_OF = {"type": lambda c: c.type.value, "profile": lambda c: c.profile,
               "authority": lambda c: c.authority.value,
               "definition": lambda c: c.definition.value,
               "incarnationCross": lambda c: c.incarnation_cross,
               "strategy": lambda c: c.strategy, "variables": lambda c: c.variables}


def _stretches(result: Stability) -> list[tuple[str, Stretch, object]]:
    """(name, stretch, how to read its value from a chart) of all 33."""
    out: list[tuple[str, Stretch, object]] = [
        (key, s, PROPERTY_OF[key]) for key, s in result.properties().items()]
    for side, bodies in result.activations.items():
        for body, s in bodies.items():
            out.append((f"{side}.{body.value}", s,
                        lambda c, side=side, body=body: str(getattr(c, side)[body])))
    return out


def _check(result: Stability) -> None:
    birth, bound = result.birth, result.bound
    chart = calculate(birth)
    for name, stretch, read in _stretches(result):
        value_of = read  # a chart -> the value
        assert stretch.value == value_of(chart), name
        first = birth - bound if stretch.earliest is None else stretch.earliest
        last = birth + bound if stretch.until is None else stretch.until
        assert first <= birth < last, name
        if stretch.earliest is not None:
            assert value_of(calculate(stretch.earliest - ONE)) != stretch.value, name
            if stretch.earliest + ONE < last:
                assert value_of(calculate(stretch.earliest + ONE)) == stretch.value, name
        if stretch.until is not None:
            assert value_of(calculate(stretch.until + ONE)) != stretch.value, name
            if stretch.until - ONE > first:
                assert value_of(calculate(stretch.until - ONE)) == stretch.value, name


def test_every_stretch_agrees_with_calculate() -> None:
    result = stability(BIRTH)
    assert result.profile.value == "3/5" and result.type.value == "Generator"
    assert result.profile.until is not None and result.authority.until is None
    _check(result)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(birth_instants(datetime(1850, 1, 1, tzinfo=UTC), datetime(2150, 1, 1, tzinfo=UTC)),
       st.integers(min_value=600, max_value=48 * 3600).map(lambda s: timedelta(seconds=s)))
def test_the_birth_lies_in_every_stretch_and_answers_repeat(birth: datetime,
                                                            bound: timedelta) -> None:
    result = stability(birth, bound)
    assert stability(birth, bound) == result
    _check(result)


def test_moon_edges_agree_with_the_swiss_ephemeris() -> None:
    birth = datetime(1994, 8, 20, 16, 0, tzinfo=UTC)
    result = stability(birth, timedelta(hours=6))
    checked = 0
    for side in ("personality", "design"):
        stretch = result.activations[side][Body.MOON]
        for edge, inside in ((stretch.earliest, ONE), (stretch.until, -ONE)):
            if edge is None:
                continue
            chart: Chart = calculate(edge + inside)
            boundary = nearest_line_boundary(getattr(chart, side).moon.longitude)
            theirs = swiss_change(side, Body.MOON, boundary, edge)
            assert abs((edge - theirs).total_seconds()) < allowed_seconds(side, Body.MOON, edge)
            checked += 1
    assert checked == 4


def test_many_births_at_once_equal_one_by_one() -> None:
    births = [BIRTH, datetime(1994, 8, 20, 16, 0, tzinfo=UTC),
              datetime(2031, 7, 1, 23, 59, 59, tzinfo=UTC)]
    table = stability_many(births, timedelta(hours=3))
    assert [table[i] for i in range(3)] == [stability(b, timedelta(hours=3)) for b in births]


def test_the_json_object_has_the_issue_s_shape() -> None:
    found = stability(BIRTH, timedelta(hours=2)).to_dict()
    assert set(found) == {"birth", "properties", "activations"}
    assert list(found["properties"]) == ["type", "profile", "authority", "definition",
                                         "incarnationCross", "strategy", "variables"]
    assert found["properties"]["type"] == {"value": "Generator", "from": None, "to": None}
    assert set(found["activations"]) == {"personality", "design"}
    assert found["activations"]["personality"]["sun"]["value"] == "38.3"
    assert len(found["activations"]["design"]) == 13


@pytest.mark.parametrize("hours", [0, -1, 48.01, 100])
def test_a_bound_out_of_range_is_refused(hours: float) -> None:
    with pytest.raises(InvalidOptionError, match="at most 48 hours"):
        stability(BIRTH, timedelta(hours=hours))


def test_a_bound_that_is_no_span_is_refused() -> None:
    with pytest.raises(InvalidOptionError, match="not '12h'; give one such as 12h"):
        stability(BIRTH, "12h")
