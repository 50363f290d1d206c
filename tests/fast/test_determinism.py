"""A chart does not depend on what else is computed with it: ``calculate(x)`` equals,
bit for bit, the chart of ``x`` in any ``calculate_many`` batch (dataclass equality,
longitudes included), whatever the batch's size and the other births in it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bodygraph
from bodygraph._time import TT
from bodygraph.calculator import default_calculator
from bodygraph.model.chart import NodeKind

from .helpers import random_births, random_tt


def _range_us() -> tuple[int, int]:
    calc = default_calculator(None)
    low = np.datetime64(calc.first_birth.replace(tzinfo=None), "us").astype(np.int64)
    high = np.datetime64(calc.last_birth.replace(tzinfo=None), "us").astype(np.int64)
    return int(low), int(high)


_LOW, _HIGH = _range_us()
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
births = st.integers(_LOW, _HIGH).map(lambda us: _EPOCH + timedelta(microseconds=us))


@settings(max_examples=30, deadline=None)
@given(batch=st.lists(births, min_size=1, max_size=60), data=st.data(),
       node=st.sampled_from(["true", "mean"]))
def test_calculate_equals_its_chart_in_any_batch(
    batch: list[datetime], data: st.DataObject, node: NodeKind,
) -> None:
    index = data.draw(st.integers(0, len(batch) - 1))
    alone = bodygraph.calculate(batch[index], node=node)
    table = bodygraph.calculate_many(batch, node=node)
    assert alone == table[index]
    # The raw longitudes too (dataclass equality compares them, but say it plainly).
    for side in ("personality", "design"):
        ours = [a.longitude for a in getattr(alone, side)]
        theirs = [a.longitude for a in getattr(table[index], side)]
        assert ours == theirs


@pytest.mark.parametrize("node", ["true", "mean"])
def test_engine_epochs_are_bitwise_independent_of_the_batch(node: NodeKind) -> None:
    """The engine's arrays (both epochs, every body, the design instants) for a batch
    equal those of each instant computed alone, and of the batch reversed."""
    engine = default_calculator(None).engine
    tt = random_tt(64, seed=31)
    birth_rows, design, design_rows = engine.epochs(tt, node)  # type: ignore[attr-defined]
    for i in range(0, 64, 7):
        one = TT(tt.whole[i:i + 1], tt.fraction[i:i + 1])
        b, d, r = engine.epochs(one, node)  # type: ignore[attr-defined]
        assert np.array_equal(b[:, 0], birth_rows[:, i])
        assert d.fraction[0] == design.fraction[i]
        assert np.array_equal(r[:, 0], design_rows[:, i])
    flipped = TT(tt.whole[::-1].copy(), tt.fraction[::-1].copy())
    b, d, r = engine.epochs(flipped, node)  # type: ignore[attr-defined]
    assert np.array_equal(b[:, ::-1], birth_rows)
    assert np.array_equal(d.fraction[::-1], design.fraction)
    assert np.array_equal(r[:, ::-1], design_rows)


def test_longitudes_near_the_aries_point_match_too() -> None:
    """Longitudes near 0 degrees have the finest float spacing, so a last-bit difference
    anywhere upstream shows there first: births whose Sun sits there, alone and in a
    batch of others."""
    calc = default_calculator(None)
    others = random_births(40, seed=33)
    # Around the March equinox of several years the Sun crosses 0 degrees.
    moments = [datetime(year, 3, 20, hour, tzinfo=UTC)
               for year in (1850, 1921, 1999, 2024, 2150) for hour in (0, 9, 18)]
    table = calc.calculate_many(np.concatenate([
        others, np.array([m.replace(tzinfo=None) for m in moments], dtype="datetime64[us]")]))
    for k, moment in enumerate(moments):
        alone = calc.calculate(moment)
        assert alone == table[len(others) + k]
    near = [abs(((table[len(others) + k].personality.sun.longitude + 180.0) % 360.0) - 180.0)
            for k in range(len(moments))]
    assert min(near) < 1.0  # the test really exercised longitudes near 0 degrees
