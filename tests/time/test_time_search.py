"""The root finder on synthetic tracks with known crossings and stations."""

from __future__ import annotations

import numpy as np
import pytest

from bodygraph.relations.search import TOLERANCE_US, US_PER_S, crossings, solve
from bodygraph.rules.wheel import CIRCLE, LINE, UNITS_PER_DEGREE

DAY = 86_400 * US_PER_S
T0 = np.datetime64("2000-01-01T00:00:00", "us").astype(np.int64)


def _days(instants: np.ndarray) -> np.ndarray:
    return (np.asarray(instants, dtype="datetime64[us]").astype(np.int64) - T0) / DAY


def wobble(instants: np.ndarray) -> np.ndarray:
    """Two tracks: steady motion (3 degrees a day) and a retrograde loop (1 degree a
    day plus a 4-degree swing of period 10 days: stations every few days)."""
    t = _days(instants)
    return np.stack([np.mod(100.0 + 3.0 * t, 360.0),
                     np.mod(359.0 + t + 4.0 * np.sin(2 * np.pi * t / 10.0), 360.0)])


def test_solve_finds_the_first_reached_instant() -> None:
    roots = np.array([1_234_567_890, 5, 86_399_000_000])

    def value(index: np.ndarray, at: np.ndarray) -> np.ndarray:
        x = at.astype(np.float64)
        return (x - roots[index]) * (1 + 1e-12 * x)  # slightly curved

    lo, hi = np.zeros(3, dtype=np.int64), np.full(3, DAY)
    found = solve(value, np.zeros(3, dtype=np.int64), lo, hi, value(np.arange(3), lo),
                  value(np.arange(3), hi), np.zeros(3, dtype=bool))
    assert np.all(found >= roots) and np.all(found - roots <= TOLERANCE_US)


def test_crossings_match_a_fine_scan_both_ways() -> None:
    start = np.array([np.datetime64("2000-01-01", "us")])
    end = np.array([np.datetime64("2000-01-31", "us")])
    found = crossings(wobble, start, end, np.array(0.0), LINE, 3600 * US_PER_S)
    # The same crossings from a scan every 10 seconds.
    scan = np.arange(T0, T0 + 30 * DAY + 1, 10 * US_PER_S).astype("datetime64[us]")
    cells = np.floor(wobble(scan) * UNITS_PER_DEGREE / LINE).astype(np.int64) % (CIRCLE // LINE)
    for track in (0, 1):
        changed = np.flatnonzero(cells[track, 1:] != cells[track, :-1])
        mine = found.at[found.track == track].astype(np.int64)
        assert mine.size == changed.size > 0
        # each crossing lies in the scan interval where the cell changed
        assert np.all(mine > scan[changed].astype(np.int64))
        assert np.all(mine <= scan[changed + 1].astype(np.int64))
    assert not found.forward[found.track == 1].all()  # the loop goes back over boundaries
    assert found.forward[found.track == 0].all()


@pytest.mark.parametrize("offset", [0.0, 12_345.5])
def test_crossings_of_a_single_target_per_circle(offset: float) -> None:
    start = np.array([np.datetime64("2000-01-01", "us")] * 2)
    end = start + np.timedelta64(200 * DAY, "us")
    targets = np.array([[offset, offset + CIRCLE / 2]])
    found = crossings(lambda t: wobble(t)[:1], start, end, targets, CIRCLE, DAY)
    # 3 degrees a day: 600 degrees in 200 days, so one or two passes per target
    for window, target in enumerate(targets[0]):
        at = found.at[found.window == window]
        assert at.size in (1, 2)
        lon = wobble(at)[0] * UNITS_PER_DEGREE
        # within 1 ms of the crossing: 3 degrees a day moves 0.002 units in 1 ms
        assert np.all(np.abs((lon - target + CIRCLE / 2) % CIRCLE - CIRCLE / 2) < 0.01)


@pytest.mark.parametrize("module", ["calendar", "sensitivity"])
def test_docstring_examples(module: str) -> None:
    import doctest
    import importlib

    found = doctest.testmod(importlib.import_module(f"bodygraph.relations.{module}"))
    assert found.attempted > 0 and found.failed == 0
