"""Transits: activations against the Swiss Ephemeris, the overlay against the
definitions, and the table of many transits against the single ones."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from core.swiss_reference import random_instants
from hypothesis import given, settings

from bodygraph import OutOfRangeError, TransitTable, calculate, transit, transit_many
from bodygraph.calculator import default_calculator
from bodygraph.catalog.tables import CENTER_NAMES, tables
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import AUTHORITIES, BODIES, DEFINITIONS, TYPES, Chart
from bodygraph.testing import birth_instants, charts

from .independent import centers_of, defined
from .swiss_transits import compare_transits

SAMPLE = 400
NATAL = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)


def test_activations_agree_with_the_swiss_ephemeris() -> None:
    found = compare_transits(SAMPLE)
    assert found.outside_tolerance == []
    assert found.mismatches == []
    assert found.compared + found.skipped == SAMPLE * len(BODIES)
    assert found.compared > 0.95 * SAMPLE * len(BODIES)  # the comparison is not hollow


@settings(max_examples=40, deadline=None)
@given(birth_instants(any_offset=True))
def test_a_transit_alone_is_the_personality_side_of_a_chart(at: datetime) -> None:
    result = transit(at)
    chart = calculate(at)
    assert result.activations == chart.personality
    assert result.at == chart.birth_utc
    assert result.natal is None
    assert set(result.gates) == {a.gate for a in chart.personality}
    assert {c.short for c in result.channels} == defined(set(result.gates))


@settings(max_examples=40, deadline=None)
@given(birth_instants(), charts())
def test_the_overlay_matches_the_definitions(at: datetime, natal: Chart) -> None:
    result = transit(at, natal=natal)
    assert result.natal is not None
    own, mine = set(result.gates), set(natal.gates)
    union = own | mine
    assert {c.short for c in result.natal.completed_channels} == defined(union) - defined(mine)
    assert set(result.natal.new_centers) == centers_of(union) - centers_of(mine)
    overlay = result.natal.overlay
    assert {c.short for c in overlay.channels} == defined(union)
    assert set(overlay.centers) == centers_of(union)
    assert overlay.gates == frozenset(union)


def test_a_transit_over_the_chart_of_the_same_instant_completes_nothing() -> None:
    chart = calculate(NATAL)
    result = transit(NATAL, natal=chart)
    assert result.natal is not None
    assert result.natal.completed_channels == () and result.natal.new_centers == ()
    assert result.natal.overlay.type is chart.type


def test_the_table_agrees_with_single_transits() -> None:
    natal = calculate(NATAL)
    calc = default_calculator(None)
    instants = random_instants(300, seed=7, first=calc.first_birth, last=calc.last_birth)
    table = transit_many(instants, natal=natal)
    assert len(table) == len(instants)
    assert table.overlay is not None and table.new_centers is not None
    completed = table.completed_mask
    assert completed is not None
    channels = tables().channels
    for i, at in enumerate(instants):
        single = transit(at, natal=natal)
        assert table[i] == single
        assert single.natal is not None
        overlay = single.natal.overlay
        assert TYPES[table.overlay.type[i]] is overlay.type
        assert AUTHORITIES[table.overlay.authority[i]] is overlay.authority
        assert DEFINITIONS[table.overlay.definition[i]] is overlay.definition
        assert {name for k, name in enumerate(CENTER_NAMES)
                if table.overlay.centers[i] >> k & 1} == set(overlay.centers)
        assert {name for k, name in enumerate(CENTER_NAMES)
                if table.new_centers[i] >> k & 1} == set(single.natal.new_centers)
        assert {c for k, c in enumerate(channels) if completed[i] >> k & 1} == set(
            single.natal.completed_channels)
        assert {c for k, c in enumerate(channels) if table.channel_mask[i] >> k & 1} == set(
            single.channels)


def test_a_table_larger_than_one_block_is_joined_in_order() -> None:
    from bodygraph.calculator import CHUNK

    natal = calculate(NATAL)
    hours = np.arange("2000-01-01T00:00", "2001-12-31T00:00", np.timedelta64(2, "h"),
                      dtype="datetime64[us]")
    assert len(hours) > CHUNK
    table = transit_many(hours, natal=natal)
    assert np.array_equal(table.at, hours)
    assert table.overlay is not None and table.overlay.type.shape == hours.shape
    for i in (0, CHUNK - 1, CHUNK, len(hours) - 1):
        assert table[i] == transit(table[i].at, natal=natal)
    with pytest.raises(InvalidOptionError, match="cannot join"):
        TransitTable.concat([table, transit_many(hours[:3])])


def test_completes_a_named_channel() -> None:
    natal = calculate(NATAL)
    days = np.arange("2025-01-01T12:00", "2025-03-01T12:00", np.timedelta64(1, "D"),
                     dtype="datetime64[us]")
    table = transit_many(days, natal=natal)
    for short in ("34-57", "25-51", "1-8"):
        expected = [short in {c.short for c in t.natal.completed_channels}  # type: ignore[union-attr]
                    for t in table]
        assert table.completes(short).tolist() == expected
    assert table.completes("34-57").any()
    with pytest.raises(InvalidOptionError, match="not a channel"):
        table.completes("1-2")
    with pytest.raises(InvalidOptionError, match="over a natal chart"):
        transit_many(days).completes("34-57")


def test_datetime64_input_and_an_empty_table() -> None:
    utc = np.array(["1980-01-03T08:30", "2024-03-20T03:06"], dtype="datetime64[us]")
    table = transit_many(utc)
    assert [t.at for t in table] == [NATAL, datetime(2024, 3, 20, 3, 6, tzinfo=UTC)]
    assert len(transit_many([])) == 0


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(OutOfRangeError, match="outside the supported range"):
        transit(datetime(1700, 1, 1, tzinfo=UTC))
    with pytest.raises(InvalidOptionError, match="node must be"):
        transit(NATAL, node="osculating")  # type: ignore[arg-type]


def test_mean_node() -> None:
    assert transit(NATAL, node="mean").activations == calculate(NATAL, node="mean").personality


def test_json_shape() -> None:
    data = transit(NATAL, natal=calculate(datetime(1990, 5, 14, 6, 30, tzinfo=UTC))).to_dict()
    assert list(data) == ["at", "activations", "gates", "channelsShort", "natal"]
    assert data["at"] == "1980-01-03T08:30:00.000Z"
    assert data["activations"] == calculate(NATAL).to_v2()["activations"]["personality"]
    assert all(isinstance(g, str) and g.isdigit() for g in data["gates"])
    assert list(data["natal"]) == ["completedChannels", "newCenters", "overlay"]
