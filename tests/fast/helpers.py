"""Shared helpers of the fast-engine tests: random instants within the kernel."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from bodygraph._time import TT
from bodygraph.calculator import default_calculator
from bodygraph.columnar import ChartTable


def random_births(count: int, seed: int) -> npt.NDArray[np.datetime64]:
    """``count`` datetime64[us] UTC births spread over the whole supported range."""
    calc = default_calculator(None)
    low = np.datetime64(calc.first_birth.replace(tzinfo=None), "us").astype(np.int64)
    high = np.datetime64(calc.last_birth.replace(tzinfo=None), "us").astype(np.int64)
    rng = np.random.default_rng(seed)
    return rng.integers(low, high, count).astype("datetime64[us]")


def random_tt(count: int, seed: int) -> TT:
    """TT instants over 1800-2200 (kept a few days inside the kernel for light time)."""
    rng = np.random.default_rng(seed)
    jd = rng.uniform(2378496.5 + 5.0, 2524593.5 - 5.0, count)
    whole = np.floor(jd)
    return TT(whole, jd - whole)


def assert_same_table(a: ChartTable, b: ChartTable) -> None:
    """Two chart tables hold the same numbers, bit for bit, in the same order."""
    assert len(a) == len(b)
    assert a.node == b.node
    for name in ("birth_utc", "design_utc", "longitude", "gate", "line", "color", "tone",
                 "base", "channel_mask", "type", "authority", "definition", "centers",
                 "circuitries"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    ours, theirs = a.columns(), b.columns()
    assert list(ours) == list(theirs)
    for name in ours:
        assert np.array_equal(np.asarray(ours[name]), np.asarray(theirs[name])), name
