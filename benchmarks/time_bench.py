"""Time searches on the compiled engine against a naive sampling loop, in the same run.

    .venv/bin/python benchmarks/time_bench.py [--births 10000] [--naive-births 10]

* calendar: every gate (and every line) ingress of the 13 bodies over one year
  (2026), by root finding; the naive loop samples the engine once a second (the same
  one-second resolution), measured over ``--naive-days`` days and scaled to the year;
* sensitivity: the line changes and segments of ``--births`` random births (1900-2100),
  plus or minus 2 hours; the naive loop computes a chart's two epochs once a second over
  each window (14,401 instants a birth, vectorized on the engine), measured on
  ``--naive-births`` births and scaled;
* a yardstick: ``calculate_many`` of the same births, to state the others in charts;
* cycles: solar return, Saturn return and Uranus opposition of one birth, and the
  solar returns of ``--births`` births at once.

Every figure is the best of ``--runs`` runs after a warm-up (compilation excluded).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import numpy as np

from bodygraph._time import utc64_to_tt
from bodygraph.calculator import calculate_many, default_calculator
from bodygraph.relations import (
    calendar,
    saturn_returns,
    sensitivity_many,
    solar_return,
    solar_returns,
    uranus_oppositions,
)

YEAR = (datetime(2026, 1, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC))
WINDOW = timedelta(hours=2)


def best(runs: int, work: Callable[[], object]) -> float:
    """The fastest of ``runs`` timings of ``work``, seconds."""
    work()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def naive_calendar_day() -> None:
    """Sample the 11 engine rows once a second for a day (the naive loop's unit)."""
    engine = default_calculator(None).engine
    start = np.datetime64("2026-01-01T00:00:00", "us")
    seconds = (np.arange(86_401) * 1_000_000).astype("timedelta64[us]")
    for part in np.array_split(start + seconds, 8):
        rows = engine.longitudes(utc64_to_tt(part), "true")
        np.floor(rows * 57_600)  # the units whose changes a naive loop would look for


def naive_sensitivity(births: np.ndarray) -> None:
    """Both epochs once a second over each birth's window."""
    calculator = default_calculator(None)
    offsets = (np.arange(-7_200, 7_201) * 1_000_000).astype("timedelta64[us]")
    for birth in births:
        epochs = calculator.epochs_micros(birth + offsets)
        np.floor(epochs.personality * 57_600)
        np.floor(epochs.design_longitudes * 57_600)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--births", type=int, default=10_000)
    parser.add_argument("--naive-births", type=int, default=10)
    parser.add_argument("--naive-days", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(12)
    first = np.datetime64("1900-01-01T00:00:00", "us")
    span = 200 * 365.25 * 86_400e6
    births = first + rng.uniform(0, span, args.births).astype("timedelta64[us]")

    chart = best(args.runs, lambda: calculate_many(births)) / args.births
    print(f"yardstick: calculate_many of the {args.births:,} births: {chart * 1e6:.1f} us a "
          "chart")
    gates = best(args.runs, lambda: calendar(*YEAR))
    lines = best(args.runs, lambda: calendar(*YEAR, level="line"))
    count_gates, count_lines = len(calendar(*YEAR)), len(calendar(*YEAR, level="line"))
    naive_day = best(1, lambda: [naive_calendar_day() for _ in range(args.naive_days)])
    naive_year = naive_day / args.naive_days * 365
    print(f"calendar 2026, 13 bodies, gates: {gates * 1e3:7.1f} ms ({count_gates} ingresses)")
    print(f"calendar 2026, 13 bodies, lines: {lines * 1e3:7.1f} ms ({count_lines} ingresses; "
          f"the time of {lines / chart:,.0f} charts)")
    print(f"  naive: every second, scaled from {args.naive_days} days: {naive_year:7.1f} s "
          f"(x{naive_year / lines:,.0f} the line calendar)")

    found = sensitivity_many(births)
    many = best(args.runs, lambda: sensitivity_many(births))
    naive = best(1, lambda: naive_sensitivity(births[:args.naive_births]))
    naive_all = naive / args.naive_births * args.births
    print(f"sensitivity of {args.births:,} births (+-2 h): {many:7.2f} s "
          f"({many / args.births * 1e6:,.0f} us a birth, the time of "
          f"{many / args.births / chart:.0f} charts; {found.change_at.size:,} changes, "
          f"{found.segment_start.size:,} segments)")
    print(f"  naive: both epochs every second, scaled from {args.naive_births} births: "
          f"{naive_all:9.1f} s (x{naive_all / many:,.0f})")

    birth = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)
    one = best(args.runs, lambda: (solar_return(birth, 2026), saturn_returns(birth),
                                   uranus_oppositions(birth)))
    returns = best(args.runs, lambda: solar_returns(births, 2150))
    print(f"cycles of one birth (solar return, Saturn return, Uranus opposition): "
          f"{one * 1e3:.1f} ms")
    print(f"solar returns of {args.births:,} births in 2150: {returns:.2f} s")


if __name__ == "__main__":
    main()
