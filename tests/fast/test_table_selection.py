"""ChartTable selection as numpy does it: an int gives a Chart; a slice, an array of ints or
a boolean mask gives a ChartTable of exactly those charts, in that order."""

from __future__ import annotations

from dataclasses import fields
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bodygraph import Chart, ChartTable, calculate_many
from bodygraph.model.chart import Chart as ModelChart

from .helpers import random_births

SIZE = 12


@cache
def table() -> ChartTable:
    return calculate_many(random_births(SIZE, seed=31))


@cache
def charts() -> tuple[Chart, ...]:
    return tuple(table())


def _same_arrays(a: ChartTable, b: ChartTable) -> None:
    assert a.node == b.node
    for field in fields(ChartTable):
        if field.name != "node":
            assert np.array_equal(getattr(a, field.name), getattr(b, field.name)), field.name


indices = st.one_of(st.none(), st.integers(min_value=-SIZE - 3, max_value=SIZE + 3))


@settings(max_examples=60, deadline=None)
@given(indices, indices, st.one_of(st.none(), st.integers(-4, 4).filter(bool)))
def test_slicing_equals_list_slicing(start: int | None, stop: int | None,
                                     step: int | None) -> None:
    part = table()[start:stop:step]
    assert isinstance(part, ChartTable)
    assert list(part) == list(charts()[start:stop:step])
    assert part.columns()["profile"].tolist() == [c.profile for c in part]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=-SIZE, max_value=SIZE - 1), max_size=2 * SIZE))
def test_integer_arrays_equal_list_indexing(positions: list[int]) -> None:
    expected = [charts()[i] for i in positions]
    assert list(table()[positions]) == expected
    assert list(table()[np.array(positions, dtype=np.int64)]) == expected


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), min_size=SIZE, max_size=SIZE))
def test_boolean_masks_keep_the_charts_marked(mask: list[bool]) -> None:
    expected = [c for c, keep in zip(charts(), mask, strict=True) if keep]
    chosen = table()[np.array(mask)]
    assert list(chosen) == expected
    _same_arrays(chosen, table()[[i for i, keep in enumerate(mask) if keep]])


def test_an_int_still_gives_one_chart() -> None:
    assert isinstance(table()[3], ModelChart)
    assert table()[np.int64(3)] == table()[3] == charts()[3]
    assert table()[-1] == charts()[-1]


def test_a_mask_on_a_column_selects_like_numpy() -> None:
    generators = table()[table().columns()["type"] == "Generator"]
    assert [c.type.value for c in generators] == ["Generator"] * len(generators)
    assert len(generators) == sum(c.type.value == "Generator" for c in charts())


def test_a_slice_is_a_view() -> None:
    part = table()[2:7]
    assert np.shares_memory(part.longitude, table().longitude)
    _same_arrays(part, table().slice(2, 7))


def test_bad_selections_say_what_works() -> None:
    with pytest.raises(IndexError, match="boolean mask of 3 values for 12 charts"):
        table()[np.array([True, False, True])]
    with pytest.raises(IndexError, match="out of range"):
        table()[SIZE]
    with pytest.raises(IndexError):
        table()[[SIZE]]
    with pytest.raises(IndexError, match="1-d array"):
        table()[np.array([0.5, 1.0])]
    with pytest.raises(IndexError, match="1-d array"):
        table()[np.zeros((2, 2), dtype=np.int64)]


def test_an_empty_selection_is_an_empty_table() -> None:
    for empty in (table()[[]], table()[5:5], table()[np.zeros(SIZE, dtype=bool)]):
        assert len(empty) == 0 and list(empty) == [] and empty.to_records() == []


def test_to_pandas_text_columns_are_categorical() -> None:
    frame = table().to_pandas()
    for name in frame.columns:
        if name in ("birth_utc", "design_utc"):
            assert str(frame[name].dtype) == "datetime64[us, UTC]"
        else:
            assert str(frame[name].dtype) == "category", name
    columns = table().columns()
    for name in frame.columns:
        if name not in ("birth_utc", "design_utc"):
            assert frame[name].astype(object).tolist() == columns[name].tolist(), name


def test_short_repr() -> None:
    text = repr(table())
    assert text.startswith(f"ChartTable({SIZE} charts, node='true', births ")
    assert len(text) < 120
