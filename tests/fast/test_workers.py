"""``calculate_many(..., workers=N)``: the same table, bit for bit and in input order,
whatever the number of threads."""

from __future__ import annotations

import numpy as np
import pytest

import bodygraph
from bodygraph.calculator import default_calculator
from bodygraph.errors import InvalidOptionError

from .helpers import assert_same_table, random_births


@pytest.mark.parametrize(("count", "workers"), [(1, 2), (7, 2), (3000, 2), (3001, 3)])
def test_workers_give_the_same_table_in_order(count: int, workers: int) -> None:
    births = random_births(count, seed=count)
    one = bodygraph.calculate_many(births)
    many = bodygraph.calculate_many(births, workers=workers)
    assert_same_table(one, many)
    assert np.array_equal(many.birth_utc, births)  # input order, not time order


def test_blocks_are_shared_out_and_joined_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small blocks (many per worker) still come back in input order."""
    import bodygraph.calculator as calculator

    monkeypatch.setattr(calculator, "TABLE_CHUNK", 64)
    births = random_births(1000, seed=5)[::-1].copy()
    assert_same_table(default_calculator(None).calculate_many(births, node="mean"),
                 default_calculator(None).calculate_many(births, node="mean", workers=2))


def test_an_empty_input_and_bad_worker_counts() -> None:
    assert len(bodygraph.calculate_many(np.array([], dtype="datetime64[us]"), workers=2)) == 0
    for bad in (0, -1, 1.5, True):
        with pytest.raises(InvalidOptionError, match="workers must be"):
            bodygraph.calculate_many(random_births(2, seed=1), workers=bad)  # type: ignore[arg-type]


def test_an_error_in_one_block_is_raised() -> None:
    births = random_births(100, seed=9)
    births[77] = np.datetime64("1700-01-01T00:00", "us")
    with pytest.raises(bodygraph.OutOfRangeError):
        bodygraph.calculate_many(births, workers=2)
