"""Connection charts: classes against an independent re-implementation, and properties."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given, settings

from bodygraph import calculate, calculate_many, connection, connection_many
from bodygraph.catalog.tables import tables
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import AUTHORITIES, DEFINITIONS, TYPES, Chart
from bodygraph.relations import ConnectionKind, composite, connection_of_gates
from bodygraph.relations.connection_table import KINDS
from bodygraph.testing import chart_pairs, charts, gate_sets

from .independent import centers_of, classes, defined


def _instant(year: int, month: int) -> datetime:
    return datetime(year, month, 3, 8, 30, tzinfo=UTC)


def _as_classes(a: frozenset[int], b: frozenset[int]) -> dict[str, tuple[str, int | None]]:
    result = connection_of_gates(a, b)
    return {link.channel.short: (link.kind.value, link.person) for link in result.links}


@settings(max_examples=60, deadline=None)
@given(chart_pairs())
def test_classes_of_random_pairs_match_the_definitions(pair: tuple[Chart, Chart]) -> None:
    a, b = pair
    found = {link.channel.short: (link.kind.value, link.person)
             for link in connection(a, b).links}
    assert found == classes(set(a.gates), set(b.gates))


@settings(max_examples=300, deadline=None)
@given(gate_sets(), gate_sets())
def test_classes_of_random_gate_sets_match_the_definitions(a: frozenset[int],
                                                           b: frozenset[int]) -> None:
    assert _as_classes(a, b) == classes(set(a), set(b))


def test_every_class_occurs_on_a_fixed_sample() -> None:
    """The comparison above is not hollow: random pairs reach every class."""
    seen: set[str] = set()
    for year in range(1950, 2000, 3):
        a = calculate(_instant(year, 1))
        b = calculate(_instant(year + 1, 7))
        seen |= {kind for kind, _ in classes(set(a.gates), set(b.gates)).values()}
        seen |= {link.kind.value for link in connection(a, b).links}
    assert seen == {k.value for k in ConnectionKind}


@settings(max_examples=40, deadline=None)
@given(chart_pairs())
def test_connection_is_symmetric_up_to_swapping_persons(pair: tuple[Chart, Chart]) -> None:
    a, b = pair
    forward, backward = connection(a, b), connection(b, a)
    assert backward == forward.swapped()
    assert backward.swapped() == forward
    assert backward.composite == forward.composite


@settings(max_examples=40, deadline=None)
@given(charts())
def test_composite_of_a_chart_with_itself_is_the_chart(chart: Chart) -> None:
    result = connection(chart, chart)
    assert result.composite.type is chart.type
    assert result.composite.definition is chart.definition
    assert result.composite.authority is chart.authority
    assert result.composite.centers == chart.centers
    assert result.composite.channels == chart.channels
    # a chart with itself: every defined channel is companionship, nothing else
    assert result.companionship == chart.channels
    assert len(result.links) == len(chart.channels)


@settings(max_examples=40, deadline=None)
@given(chart_pairs())
def test_composite_is_the_union_of_both_gate_sets(pair: tuple[Chart, Chart]) -> None:
    a, b = pair
    union = set(a.gates) | set(b.gates)
    found = connection(a, b).composite
    assert {c.short for c in found.channels} == defined(union)
    assert set(found.centers) == centers_of(union)
    assert found == composite(union)


def test_json_shape() -> None:
    a, b = calculate(_instant(1980, 1)), calculate(_instant(1985, 7))
    data = connection(a, b).to_dict()
    assert list(data) == ["electromagnetic", "companionship", "dominance", "compromise",
                          "composite"]
    assert list(data["composite"]) == ["type", "definition", "authority", "centers",
                                       "channelsShort"]
    expected = classes(set(a.gates), set(b.gates))
    for kind in ("electromagnetic", "companionship"):
        assert set(data[kind]) == {k for k, v in expected.items() if v[0] == kind}
    for kind in ("dominance", "compromise"):
        assert {(e["channel"], e["person"]) for e in data[kind]} == {
            (k, v[1]) for k, v in expected.items() if v[0] == kind}


def test_the_table_of_many_pairs_agrees_with_single_connections() -> None:
    rng = np.random.default_rng(12)
    start = np.datetime64("1850-01-01T00:00", "us")
    span = np.int64(300 * 365 * 86_400 * 10**6)
    births = [start + rng.integers(0, span, 200).astype("timedelta64[us]") for _ in "ab"]
    first, second = calculate_many(births[0]), calculate_many(births[1])
    table = connection_many(first, second)
    channels = tables().channels
    for i in range(len(table)):
        single = connection(first[i], second[i])
        assert table[i] == single
        expected = {link.channel: link for link in single.links}
        for k, channel in enumerate(channels):
            link = expected.get(channel)
            assert table.kind[k, i] == (0 if link is None else KINDS.index(link.kind) + 1)
            assert table.person[k, i] == (0 if link is None or link.person is None
                                          else link.person)
        assert TYPES[table.composite.type[i]] is single.composite.type
        assert AUTHORITIES[table.composite.authority[i]] is single.composite.authority
        assert DEFINITIONS[table.composite.definition[i]] is single.composite.definition
        assert {c for k, c in enumerate(channels) if table.composite_mask[i] >> k & 1} == set(
            single.composite.channels)
    one_against_many = connection_many(first[0], second)
    assert len(one_against_many) == len(second)
    assert one_against_many[5] == connection(first[0], second[5])
    assert int(one_against_many.count(ConnectionKind.COMPANIONSHIP)[5]) == len(
        connection(first[0], second[5]).companionship)


def test_the_table_needs_matching_lengths() -> None:
    two = calculate_many([_instant(1980, 1), _instant(1981, 1)])
    three = calculate_many([_instant(1980, 1), _instant(1981, 1), _instant(1982, 1)])
    with pytest.raises(InvalidOptionError, match="same length"):
        connection_many(two, three)


def test_a_table_larger_than_one_block_is_joined_in_order() -> None:
    from bodygraph.calculator import CHUNK

    hours = np.arange("2000-01-01T00:00", "2001-12-31T00:00", np.timedelta64(2, "h"),
                      dtype="datetime64[us]")
    others = calculate_many(hours)
    me = calculate(_instant(1980, 1))
    table = connection_many(me, others)
    assert len(table) == len(hours) > CHUNK
    assert table.composite.type.shape == hours.shape
    for i in (0, CHUNK - 1, CHUNK, len(hours) - 1):
        assert table[i] == connection(me, others[i])
