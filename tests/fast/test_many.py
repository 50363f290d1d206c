"""calculate_many and ChartTable: the same charts as calculate, columnar."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bodygraph
from bodygraph.calculator import Calculator, calculate_many, default_calculator
from bodygraph.catalog.tables import CENTER_NAMES, CIRCUITRY_ORDER, tables
from bodygraph.columnar import COLUMNS, ChartTable
from bodygraph.errors import (
    InvalidInstantError,
    InvalidOptionError,
    OutOfRangeError,
)
from bodygraph.model.chart import AUTHORITIES, BODIES, DEFINITIONS, TYPES
from bodygraph.rules.graph import center_graph
from bodygraph.rules.properties import authority, chart_type, circuitries, definition
from bodygraph.rules.vectorized import channel_set_properties, vectorized_channel_set_properties

from .helpers import random_births


def _aware(value: np.datetime64) -> datetime:
    moment: datetime = value.astype("datetime64[us]").item()
    return moment.replace(tzinfo=UTC)


@pytest.mark.parametrize("node", ["true", "mean"])
def test_many_equals_one_by_one(node: str) -> None:
    births = random_births(120, seed=21 if node == "true" else 22)
    table = calculate_many(births, node=node)  # type: ignore[arg-type]
    assert len(table) == len(births)
    for chart, birth in zip(table, births, strict=True):
        single = bodygraph.calculate(_aware(birth), node=node)  # type: ignore[arg-type]
        assert chart.to_v2() == single.to_v2()
        assert chart.to_v1() == single.to_v1()
        assert chart.design_utc == single.design_utc
        for mine, theirs in zip((*chart.personality, *chart.design),
                                (*single.personality, *single.design), strict=True):
            assert (mine.gate, mine.line, mine.color, mine.tone, mine.base) == (
                theirs.gate, theirs.line, theirs.color, theirs.tone, theirs.base)
            assert mine.longitude == pytest.approx(theirs.longitude, abs=1e-9)


def test_columns_match_the_charts() -> None:
    births = random_births(150, seed=23)
    table = calculate_many(births)
    columns = table.columns()
    assert tuple(columns) == COLUMNS
    for i, chart in enumerate(table):
        assert columns["birth_utc"][i] == np.datetime64(chart.birth_utc.replace(tzinfo=None))
        assert columns["design_utc"][i] == np.datetime64(chart.design_utc.replace(tzinfo=None))
        expected = {
            "node": chart.node, "type": chart.type.value, "profile": chart.profile,
            "authority": chart.authority.value, "definition": chart.definition.value,
            "incarnation_cross": chart.incarnation_cross, "variables": chart.variables,
            "centers": ";".join(chart.centers),
            "channels": ";".join(c.short for c in chart.channels),
            "strategy": chart.strategy, "signature": chart.signature,
            "not_self_theme": chart.not_self_theme, "cognition": chart.cognition,
            "determination": chart.determination, "motivation": chart.motivation,
            "transference": chart.transference, "perspective": chart.perspective,
            "distraction": chart.distraction, "environment": chart.environment,
            "circuitries": chart.circuitries,
        }
        for side_name in ("personality", "design"):
            side = getattr(chart, side_name)
            for body in BODIES:
                expected[f"{side_name}_{body.v1_key}"] = str(side[body])
        assert {name: columns[name][i] for name in expected} == expected


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=(1 << len(tables().channels)) - 1))
def test_vectorized_rules_match_the_scalar_rules(mask: int) -> None:
    masks = np.array([mask], dtype=np.int64)
    found = vectorized_channel_set_properties(masks)
    cached = channel_set_properties(masks)
    for name in ("type", "authority", "definition", "centers", "circuitries"):
        assert getattr(cached, name)[0] == getattr(found, name)[0]
    chosen = tuple(c for i, c in enumerate(tables().channels) if mask >> i & 1)
    graph = center_graph(chosen)
    kind = chart_type(graph)
    assert TYPES[found.type[0]] is kind
    assert AUTHORITIES[found.authority[0]] is authority(graph, kind)
    assert DEFINITIONS[found.definition[0]] is definition(graph)
    assert {n for i, n in enumerate(CENTER_NAMES) if found.centers[0] >> i & 1} == graph.defined
    present = [n for i, n in enumerate(CIRCUITRY_ORDER) if found.circuitries[0] >> i & 1]
    assert ", ".join(present) == circuitries(chosen)


def test_table_api() -> None:
    births = random_births(10, seed=24)
    table = calculate_many(births)
    assert table.longitude.shape == table.gate.shape == (2, 13, 10)
    assert table[3] == table.chart(3) == list(table)[3]
    assert table[-1] == table.chart(9)
    with pytest.raises(IndexError):
        table.chart(10)
    part = table.slice(2, 5)
    assert len(part) == 3 and list(part) == list(table)[2:5]
    joined = ChartTable.concat([table.slice(0, 4), table.slice(4, 10)])
    assert list(joined) == list(table)
    records = table.to_records()
    assert len(records) == 10 and tuple(records[0]) == COLUMNS
    assert records[0]["birth_utc"].endswith("Z")
    assert datetime.fromisoformat(records[0]["birth_utc"]) == table[0].birth_utc
    frame = table.to_pandas()
    assert list(frame.columns) == list(COLUMNS) and len(frame) == 10
    assert str(frame["birth_utc"].dtype) == "datetime64[us, UTC]"
    assert frame["profile"].tolist() == [c.profile for c in table]
    with pytest.raises(ValueError):
        ChartTable.concat([])


def test_inputs_and_edge_cases() -> None:
    moments = [datetime(1980, 1, 3, 8, 30, tzinfo=UTC),
               datetime(1990, 5, 14, 8, 30, tzinfo=timezone(timedelta(hours=2)))]
    from_datetimes = calculate_many(moments)
    from_numpy = calculate_many(np.array(["1980-01-03T08:30", "1990-05-14T06:30"],
                                         dtype="datetime64[s]"))
    assert list(from_datetimes) == list(from_numpy)
    assert [c.birth_utc for c in from_datetimes] == [m.astimezone(UTC) for m in moments]
    empty = calculate_many([])
    assert len(empty) == 0 and list(empty) == [] and empty.to_records() == []
    with pytest.raises(InvalidInstantError):
        calculate_many([datetime(1980, 1, 3)])
    with pytest.raises(OutOfRangeError):
        calculate_many(np.array(["1700-01-01"], dtype="datetime64[us]"))
    with pytest.raises(InvalidOptionError, match="node must be 'true' or 'mean'"):
        calculate_many(moments, node="osculating")  # type: ignore[arg-type]


def test_engines_are_selectable() -> None:
    from bodygraph.ephemeris.fast.engine import FastEngine
    from bodygraph.ephemeris.reference import SkyfieldEngine

    assert isinstance(default_calculator(None).engine, FastEngine)
    reference = Calculator(engine="skyfield")
    assert isinstance(reference.engine, SkyfieldEngine)
    try:
        moment = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)
        assert reference.calculate(moment).to_v2() == bodygraph.calculate(moment).to_v2()
    finally:
        reference.engine.close()
    with pytest.raises(InvalidOptionError, match="unknown engine"):
        Calculator(engine="swiss")  # type: ignore[arg-type]


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=1, max_value=40))
def test_deterministic_and_order_free(seed: int, count: int) -> None:
    """The same births give the same table, bit for bit, in any order."""
    births = random_births(count, seed=seed)
    first = calculate_many(births)
    again = calculate_many(births.copy())
    order = np.random.default_rng(seed).permutation(count)
    shuffled = calculate_many(births[order])
    for name in ("longitude", "gate", "line", "color", "tone", "base"):
        assert np.array_equal(getattr(first, name), getattr(again, name))
        assert np.array_equal(getattr(first, name)[..., order], getattr(shuffled, name))
    assert np.array_equal(first.design_utc, again.design_utc)
    assert np.array_equal(first.design_utc[order], shuffled.design_utc)


def test_chunks_do_not_leak_into_each_other() -> None:
    """Births past an internal chunk boundary come out bit for bit as when alone."""
    from bodygraph.calculator import CHUNK

    births = random_births(CHUNK + 3, seed=25)
    together = calculate_many(births)
    alone = calculate_many(births[-5:])
    tail = together.slice(CHUNK - 2, CHUNK + 3)
    for name in ("longitude", "gate", "line", "color", "tone", "base", "channel_mask"):
        assert np.array_equal(getattr(tail, name), getattr(alone, name))
    assert np.array_equal(tail.design_utc, alone.design_utc)
