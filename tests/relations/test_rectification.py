"""Birth-time rectification: windows against the charts themselves (edges to a second,
fine sampling, midpoints), against the Swiss Ephemeris, over DST folds and gaps, many at
once, and bad input."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import given as for_all
from hypothesis import strategies as st

from bodygraph import calculate, calculate_many
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import Chart
from bodygraph.relations import Rectification, constraints, rectify, rectify_many
from bodygraph.testing import birth_instants

from .swiss_births import (
    allowed_seconds,
    changed_activations,
    fits,
    nearest_line_boundary,
    swiss_change,
)

ONE = timedelta(seconds=1)
LONDON = ZoneInfo("Europe/London")
DAY = date(1980, 1, 3)
#: Three constraints of the issue's example, and a harder set over two days.
KNOWN = {"profile": "3/5", "type": "Generator", "authority": "Emotional"}
HARDER = {"type": "Manifesting Generator", "centers": ("Sacral", "Solar Plexus"),
          "activations": {"personality.moon": "49"}}


def _given(known: dict[str, object]) -> dict[str, object]:
    """``fits`` keywords -> ``constraints`` keywords."""
    out = {k: v for k, v in known.items() if k != "activations"}
    out["activations"] = [f"{k}={v}" for k, v in dict(known.get("activations", {})).items()]
    return out


def _summary(chart: Chart) -> tuple[str, ...]:
    return (chart.type.value, chart.profile, chart.authority.value, chart.definition.value,
            chart.incarnation_cross)


def _check_windows(result: Rectification, known: dict[str, object]) -> None:
    """Midpoints fit and carry the window's chart; each inner edge is where the fit or
    the chart changes, to a second."""
    assert all(w.start < w.end for w in result.windows)
    assert all(a.end <= b.start for a, b in pairwise(result.windows))
    for w in result.windows:
        middle = calculate(w.start + (w.end - w.start) / 2)
        assert fits(middle, **known)
        assert _summary(middle) == (w.type.value, w.profile, w.authority.value,
                                    w.definition.value, w.incarnation_cross)
        inside_start, inside_end = calculate(w.start + ONE), calculate(w.end - ONE)
        assert fits(inside_start, **known) and fits(inside_end, **known)
        if w.start - ONE >= result.start:
            before = calculate(w.start - ONE)
            assert not fits(before, **known) or _summary(before) != _summary(middle)
        if w.end + ONE <= result.end:
            after = calculate(w.end + ONE)
            assert not fits(after, **known) or _summary(after) != _summary(middle)


@pytest.mark.parametrize(("first", "last", "known"), [
    (DAY, None, KNOWN), (date(1994, 8, 20), date(1994, 8, 21), HARDER)])
def test_windows_agree_with_the_charts_to_a_second(first: date, last: date | None,
                                                   known: dict[str, object]) -> None:
    result = rectify(first, constraints(**_given(known)), zone=LONDON,
                     last_day=last)
    assert result.windows
    _check_windows(result, known)


def _has(column: np.ndarray, name: str) -> np.ndarray:
    """Which ``;``-joined texts of a column hold ``name``."""
    return np.array([name in str(text).split(";") for text in column])


#: (day, constraints, the same from calculate_many's own text columns).
SAMPLED = [
    (DAY, _given(KNOWN), lambda c: (c["profile"] == "3/5") & (c["type"] == "Generator")
     & (c["authority"] == "Emotional")),
    (date(1994, 8, 20), {"open_centers": ["Solar Plexus"], "channels": ["23-43"],
                         "activations": ["design.moon=47"]},
     lambda c: ~_has(c["centers"], "Solar Plexus") & _has(c["channels"], "23-43")
     & np.array([str(v).split(".")[0] == "47" for v in c["design_moon"]])),
]


@pytest.mark.parametrize(("day", "given", "fitting_of"), SAMPLED)
def test_no_fitting_instant_lies_outside_the_windows(day: date, given: dict[str, object],
                                                     fitting_of: object) -> None:
    """Every 20 seconds of the (UTC) day, from calculate_many's own columns."""
    result = rectify(day, constraints(**given), zone=UTC)
    start = np.datetime64(day.isoformat(), "us")
    grid = start + np.arange(0, 86400, 20) * np.timedelta64(1, "s")
    fitting = fitting_of(calculate_many(grid).columns())
    instants = [t.replace(tzinfo=UTC) for t in grid.astype(datetime)]
    inside = np.array([any(w.start <= t < w.end for w in result.windows) for t in instants])
    near_edge = np.array([any(abs(t - e) < ONE for w in result.windows
                              for e in (w.start, w.end)) for t in instants])
    assert fitting.any() and (~fitting).any()
    assert np.array_equal(fitting[~near_edge], inside[~near_edge])


@pytest.mark.parametrize("first", [date(1994, 8, 20), date(2003, 5, 11)])
def test_edges_agree_with_the_swiss_ephemeris(first: date) -> None:
    noon = calculate(datetime.combine(first, time(12), tzinfo=UTC))
    moon = noon.personality.moon
    given = constraints(profile=noon.profile,
                        activations=[f"personality.moon={moon.gate}.{moon.line}"])
    result = rectify(first, given, zone=LONDON)
    checked = 0
    for window in result.windows:
        for edge in (window.start, window.end):
            if not result.start + ONE < edge < result.end - ONE:
                continue
            after = calculate(edge + ONE)
            for side, body in changed_activations(calculate(edge - ONE), after):
                boundary = nearest_line_boundary(getattr(after, side)[body].longitude)
                theirs = swiss_change(side, body, boundary, edge)
                assert abs((edge - theirs).total_seconds()) < allowed_seconds(side, body, edge)
                checked += 1
    assert checked >= 2


def test_a_fold_day_gives_both_passes_marked() -> None:
    """Europe/London, 27 Oct 2024: 01:00-02:00 local happens twice."""
    fold = date(2024, 10, 27)
    moon = calculate(datetime(2024, 10, 27, 1, 0, tzinfo=UTC)).personality.moon
    result = rectify(fold, constraints(activations=[f"personality.moon={moon.gate}"]),
                     zone=LONDON, from_time=time(1, 15), to_time=time(1, 45))
    assert (result.start, result.end) == (datetime(2024, 10, 27, 0, 15, tzinfo=UTC),
                                          datetime(2024, 10, 27, 1, 45, tzinfo=UTC))
    whole = result.to_dict()
    assert whole["searched"]["fromLocal"] == "2024-10-27T01:15:00+01:00"
    assert whole["searched"]["toLocal"] == "2024-10-27T01:45:00+00:00"
    (window,) = whole["windows"]
    assert (window["fromLocal"], window["fromPass"]) == ("2024-10-27T01:15:00+01:00", "first")
    assert (window["toLocal"], window["toPass"]) == ("2024-10-27T01:45:00+00:00", "second")
    day = rectify(fold, constraints(type=calculate(result.start).type.value), zone=LONDON)
    assert day.end - day.start == timedelta(hours=25)


def test_a_gap_day_has_no_local_time_in_the_gap() -> None:
    """Europe/London, 31 Mar 2024: 01:00-02:00 local never happens."""
    gap = date(2024, 3, 31)
    kind = calculate(datetime(2024, 3, 31, 2, 0, tzinfo=UTC)).type.value
    result = rectify(gap, constraints(type=kind), zone=LONDON, from_time=time(1, 30),
                     to_time=time(4))
    assert result.start == datetime(2024, 3, 31, 1, 0, tzinfo=UTC)
    assert result.to_dict()["searched"]["fromLocal"] == "2024-03-31T02:00:00+01:00"
    day = rectify(gap, constraints(type=kind), zone=LONDON)
    assert day.end - day.start == timedelta(hours=23)
    for window in day.windows:
        for local in (window.start_local, window.end_local):
            assert not time(1) <= local.time() < time(2)
            assert window.start_pass is None and window.end_pass is None


def test_contradictory_constraints_give_no_windows() -> None:
    result = rectify(DAY, constraints(type="Reflector", centers=["Sacral"]), zone=LONDON)
    assert result.windows == () and result.to_dict()["windows"] == []


def test_many_at_once_equal_one_by_one() -> None:
    days = [date(1980, 1, 3), date(1994, 8, 20), date(2003, 5, 11)]
    sets = [constraints(**_given(KNOWN)), constraints(type="Generator"),
            constraints(centers=["Sacral"], gates=[38])]
    starts = [datetime.combine(d, time(0), tzinfo=UTC) for d in days]
    ends = [s + timedelta(days=1) for s in starts]
    table = rectify_many(starts, ends, sets)
    assert len(table) == 3
    for i, (day, given) in enumerate(zip(days, sets, strict=True)):
        assert table[i] == rectify(day, given, zone=UTC)


@pytest.mark.parametrize(("keywords", "message"), [
    ({"profile": "1/5"}, "profile '1/5' does not exist; use one of: 1/3, 1/4"),
    ({"type": "Generatorr"}, "unknown type 'Generatorr'; use one of: Generator"),
    ({"authority": "Gut"}, "unknown authority 'Gut'; use one of: Emotional"),
    ({"definition": "Double"}, "unknown definition 'Double'; use one of: No Definition"),
    ({"strategy": "Wait"}, "unknown strategy 'Wait'; use one of: To Respond"),
    ({"centers": ["Heart"]}, "unknown center 'Heart'; use one of: Head, Ajna"),
    ({"open_centers": ["Solar"]}, "unknown center 'Solar'"),
    ({"channels": ["1-2"]}, "unknown channel '1-2'; use one of: 1-8, 2-14"),
    ({"gates": [0]}, "gate 0 does not exist; use a gate from 1 to 64"),
    ({"activations": ["personality.pluto=38.7"]}, "line 7"),
    ({"activations": ["personality.chiron=38"]}, "unknown body 'chiron'"),
    ({"activations": ["natal.sun=38"]}, "unknown side 'natal'"),
    ({"activations": ["sun 38"]}, "write it like personality.sun=38.3"),
    ({"cross": "Right Angle Cross of the Sfinx"}, "did you mean 'Right Angle Cross of the Sphinx'"),
    ({"cross": "13/7/1/99"}, "cross gate '99' does not exist"),
])
def test_unknown_values_name_the_valid_ones(keywords: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidOptionError, match=re.escape(message)):
        constraints(**keywords)


def test_the_cross_is_read_by_name_or_gates() -> None:
    chart = calculate(datetime(1980, 1, 3, 8, 30, tzinfo=UTC))
    name = chart.incarnation_cross.split(" (")[0]
    by_name = rectify(DAY, constraints(cross=name.upper()), zone=UTC)
    by_gates = rectify(DAY, constraints(cross="38/39 | 48/21"), zone=UTC)
    both = rectify(DAY, constraints(cross=chart.incarnation_cross), zone=UTC)
    assert by_name.windows and by_gates.windows and both.windows
    assert all(w.incarnation_cross.startswith(name) for w in by_name.windows)
    assert all("(38/39 | 48/21)" in w.incarnation_cross for w in by_gates.windows + both.windows)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: rectify(DAY, constraints(), zone=LONDON), "give at least one constraint"),
    (lambda: rectify(DAY, constraints(type="Generator"), zone=LONDON,
                     last_day=DAY + timedelta(days=7)), "is 8 days; give at most 7 days"),
    (lambda: rectify(DAY, constraints(type="Generator"), zone=LONDON,
                     last_day=DAY - timedelta(days=1)), "before the first"),
    (lambda: rectify(DAY, constraints(type="Generator"), zone=LONDON, from_time=time(9),
                     to_time=time(8)), "give a to-time after the from-time"),
])
def test_bad_searches_are_refused(call: object, message: str) -> None:
    with pytest.raises(InvalidOptionError, match=message):
        call()


def test_a_week_is_searched_whole() -> None:
    result = rectify(DAY, constraints(**_given(KNOWN)), zone=LONDON,
                     last_day=DAY + timedelta(days=6))
    assert result.end - result.start == timedelta(days=7)
    _check_windows(result, KNOWN)


def test_many_searches_in_several_blocks_equal_one_block(monkeypatch: pytest.MonkeyPatch) -> None:
    from bodygraph.relations import pieces

    starts = [datetime(1980, 1, 3, tzinfo=UTC) + timedelta(hours=7 * i) for i in range(5)]
    ends = [s + timedelta(hours=9) for s in starts]
    given = constraints(**_given(KNOWN))
    whole = rectify_many(starts, ends, given, zones=LONDON)
    monkeypatch.setattr(pieces, "CHUNK", 2)
    blocks = rectify_many(starts, ends, given, zones=[LONDON] * 5)
    assert [blocks[i] for i in range(5)] == [whole[i] for i in range(5)]
    assert any(r.windows for r in whole)


@pytest.mark.parametrize(("ends", "given", "message"), [
    ([datetime(1980, 1, 4, tzinfo=UTC)] * 2, constraints(type="Generator"), "one end"),
    ([datetime(1980, 1, 4, tzinfo=UTC)], [constraints(type="Generator")] * 2, "one end"),
    ([datetime(1980, 1, 4, tzinfo=UTC)], constraints(), "give at least one constraint"),
    ([datetime(1980, 1, 2, tzinfo=UTC)], constraints(type="Generator"), "end after it begins"),
])
def test_bad_many_searches_are_refused(ends: list[datetime], given: object,
                                       message: str) -> None:
    with pytest.raises(InvalidOptionError, match=message):
        rectify_many([datetime(1980, 1, 3, tzinfo=UTC)], ends, given)


def test_constraints_read_back_as_json() -> None:
    given = constraints(type="generator", profile="3/5", definition="split", cross="13/7/1/2",
                        centers=["sacral", "Head"], channels=["33-13"], gates=["38"],
                        activations=["Personality.Sun=38.3", "design.north_node=2"])
    assert given.to_dict() == {
        "type": "Generator", "profile": "3/5", "definition": "Split Definition",
        "cross": "(13/7 | 1/2)", "centers": ["Head", "Sacral"], "channels": ["13-33"],
        "gates": [38], "activations": ["personality.sun=38.3", "design.northNode=2"]}
    assert not constraints() and given


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@for_all(birth_instants(datetime(1850, 1, 1, tzinfo=UTC), datetime(2150, 1, 1, tzinfo=UTC)),
       st.sampled_from(["Europe/London", "America/New_York", "Asia/Kolkata", "UTC"]))
def test_a_known_birth_lies_in_a_window_of_its_own_chart(birth: datetime, name: str) -> None:
    """Constraints read from the chart of a birth find a window around that birth, the
    same on every call."""
    zone = ZoneInfo(name)
    chart = calculate(birth)
    moon = chart.personality.moon
    given = constraints(type=chart.type.value, profile=chart.profile,
                        authority=chart.authority.value, definition=chart.definition.value,
                        cross=chart.incarnation_cross, centers=chart.centers,
                        activations=[f"personality.moon={moon.gate}.{moon.line}"])
    day = birth.astimezone(zone).date()
    result = rectify(day, given, zone=zone)
    assert rectify(day, given, zone=zone) == result
    assert result.start <= birth < result.end
    holding = [w for w in result.windows if w.start <= birth < w.end]
    near_edge = any(abs(birth - e) < ONE for w in result.windows for e in (w.start, w.end))
    assert len(holding) == 1 or near_edge


def test_the_mean_node_is_followed_too() -> None:
    node = calculate(datetime(1980, 1, 3, 12, tzinfo=UTC), node="mean").personality.north_node
    given = constraints(type="Generator", activations=[f"personality.northNode={node}"])
    result = rectify(DAY, given, zone=UTC, node="mean")
    assert result.windows
    for window in result.windows:
        middle = calculate(window.start + (window.end - window.start) / 2, node="mean")
        assert str(middle.personality.north_node) == str(node)
        if window.start > result.start:
            before = calculate(window.start - ONE, node="mean")
            assert (str(before.personality.north_node) != str(node)
                    or before.type.value != "Generator" or before.profile != window.profile
                    or before.incarnation_cross != window.incarnation_cross
                    or before.definition != window.definition)


def test_a_day_whose_midnight_falls_in_a_gap_starts_when_the_clocks_jumped() -> None:
    """America/Sao_Paulo, 4 Nov 2018: clocks went from 00:00 straight to 01:00."""
    zone = ZoneInfo("America/Sao_Paulo")
    result = rectify(date(2018, 11, 4), constraints(gates=[1]), zone=zone)
    assert (result.start, result.end - result.start) == (
        datetime(2018, 11, 4, 3, tzinfo=UTC), timedelta(hours=23))
    assert result.to_dict()["searched"]["fromLocal"] == "2018-11-04T01:00:00-02:00"
