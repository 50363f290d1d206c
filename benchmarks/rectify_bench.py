"""Rectification and stability on the compiled engine, against naive loops in the same run.

    .venv/bin/python benchmarks/rectify_bench.py [--searches 10000] [--runs 3]

* one day (Europe/London, 3 Jan 1980) with three constraints (profile 3/5, Generator,
  Emotional authority), warm, one thread: ``rectify``; beside it the naive loop, one
  ``calculate`` a minute (1,440 charts, one-minute resolution), and the same minutes as
  one ``calculate_many`` (vectorized, still one-minute resolution);
* ``--searches`` rectifications at once (``rectify_many``): random UTC days 1900-2100,
  each with the profile, type and authority of its own noon chart (so that windows
  exist); beside it a loop of ``rectify`` calls and the naive minute-by-minute search, one
  ``calculate_many`` of its 1,440 minutes a day (both measured on 100, scaled), and, as a
  yardstick, ``calculate_many`` of as many charts as searches;
* one birth's stability (12 hours either side), warm.

Every figure is the best of ``--runs`` runs after a warm-up (compilation excluded).
"""

from __future__ import annotations

import argparse
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np
from time_bench import best

from bodygraph.calculator import calculate, calculate_many, default_calculator
from bodygraph.relations import constraints, rectify, rectify_many, stability

DAY = date(1980, 1, 3)
LONDON = ZoneInfo("Europe/London")
KNOWN = {"profile": "3/5", "type": "Generator", "authority": "Emotional"}


def naive_day() -> int:
    """Minutes of the day whose chart fits, one ``calculate`` a minute."""
    start = datetime(1980, 1, 3, tzinfo=UTC)
    fitting = 0
    for minute in range(1440):
        chart = calculate(start + timedelta(minutes=minute))
        fitting += (chart.profile == "3/5" and chart.type.value == "Generator"
                    and chart.authority.value == "Emotional")
    return fitting


def naive_day_vectorized() -> int:
    """The same, as one ``calculate_many`` of the 1,440 minutes."""
    grid = np.datetime64("1980-01-03T00:00", "us") + np.arange(1440) * np.timedelta64(1, "m")
    columns = calculate_many(grid).columns()
    return int(np.sum((columns["profile"] == "3/5") & (columns["type"] == "Generator")
                      & (columns["authority"] == "Emotional")))


def naive_minutes(days: np.ndarray, noon: dict[str, np.ndarray]) -> int:
    """Minutes that fit, one ``calculate_many`` of the 1,440 minutes of each day, tested
    against the profile, type and authority of that day's noon chart."""
    fitting = 0
    minutes = np.arange(1440) * np.timedelta64(1, "m")
    for n, day in enumerate(days):
        columns = calculate_many(day.astype("datetime64[us]") + minutes).columns()
        fitting += int(np.sum((columns["profile"] == noon["profile"][n])
                              & (columns["type"] == noon["type"][n])
                              & (columns["authority"] == noon["authority"][n])))
    return fitting


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--searches", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    default_calculator(None).warm_up()
    given = constraints(**KNOWN)
    found = rectify(DAY, given, zone=LONDON)
    one = best(args.runs, lambda: rectify(DAY, given, zone=LONDON))
    print(f"one day, three constraints: {len(found.windows)} window(s)")
    print(f"  rectify                        {one * 1e3:9.1f} ms")
    print(f"  naive, calculate each minute   {best(1, naive_day) * 1e3:9.1f} ms")
    print(f"  naive, calculate_many minutes  {best(args.runs, naive_day_vectorized) * 1e3:9.1f} ms")

    rng = np.random.default_rng(26)
    first = np.datetime64("1900-01-01", "D").astype(np.int64)
    last = np.datetime64("2100-01-01", "D").astype(np.int64)
    days = rng.integers(first, last, args.searches).astype("datetime64[D]")
    starts = days.astype("datetime64[us]")
    ends = starts + np.timedelta64(1, "D")
    noon = calculate_many(starts + np.timedelta64(12, "h")).columns()
    sets = [constraints(profile=p, type=t, authority=a)
            for p, t, a in zip(noon["profile"], noon["type"], noon["authority"], strict=True)]
    windows = rectify_many(starts, ends, sets).window_owner.shape[0]
    seconds = best(args.runs, lambda: rectify_many(starts, ends, sets))
    sample = 100
    loop = best(1, lambda: [rectify(d.item(), s, zone=UTC)
                            for d, s in zip(days[:sample], sets[:sample], strict=True)])
    naive = best(1, lambda: naive_minutes(days[:sample], noon))
    charts = best(args.runs, lambda: calculate_many(starts))
    each = seconds / args.searches
    print(f"{args.searches:,} rectifications (a day each, three constraints): {windows:,} windows")
    print(f"  rectify_many                   {seconds:9.2f} s  ({each * 1e3:.2f} ms a search, "
          f"{seconds / charts:.0f} charts' time)")
    print(f"  loop of rectify (scaled)       {loop / sample * args.searches:9.2f} s")
    print(f"  naive, calculate_many minutes  {naive / sample * args.searches:9.2f} s (scaled)")
    print(f"  calculate_many, one a search   {charts:9.3f} s")
    birth = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)
    held = best(args.runs, lambda: stability(birth))
    print(f"stability, 12 h either side      {held * 1e3:9.1f} ms")

if __name__ == "__main__":
    main()
