"""Timings of transits, connections and pentas, one at a time and in bulk; prints a table.

    .venv/bin/python benchmarks/relations_bench.py            # the full run (1,000,000)
    .venv/bin/python benchmarks/relations_bench.py --quick    # 20,000, a smoke test

Rows (random instants 1800-2199; wall-clock and CPU seconds of one process):

* ``calculate_many`` - the charts of N births (the yardstick: "as cheap as a chart");
* ``transit_many`` - N transits alone, then over one natal chart (overlay columns);
* ``transit loop`` - ``bodygraph.transit`` called once per instant (the naive way);
* ``connection_many`` - one chart against a table of N charts (the table made before);
* ``connection loop`` - ``bodygraph.connection`` once per pair;
* ``penta`` - one group of five, once per call.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

import bodygraph


def _clock(work: Callable[[], Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def _row(name: str, count: int, wall: float, cpu: float) -> None:
    print(f"| {name} | {count:,} | {wall:.2f} s | {cpu:.2f} s | {wall / count * 1e6:.1f} us "
          f"| {cpu / count * 1e6:.1f} us |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    size = 20_000 if parser.parse_args().quick else 1_000_000
    loop = 2_000
    rng = np.random.default_rng(1)
    start = np.datetime64("1800-06-01T00:00", "us")
    span = (np.datetime64("2199-11-01T00:00", "us") - start).astype(np.int64)
    utc = start + rng.integers(0, span, size).astype("timedelta64[us]")
    natal = bodygraph.calculate(datetime(1980, 1, 3, 8, 30, tzinfo=UTC))
    bodygraph.transit_many(utc[:100], natal=natal)  # compile and warm up
    instants = [datetime.fromisoformat(str(u)).replace(tzinfo=UTC) for u in utc[:loop]]

    print("| what | N | wall | CPU | wall per item | CPU per item |")
    print("|---|---:|---:|---:|---:|---:|")
    table: list[bodygraph.ChartTable] = []
    _row("calculate_many", size, *_clock(lambda: table.append(bodygraph.calculate_many(utc))))
    _row("transit_many, alone", size, *_clock(lambda: bodygraph.transit_many(utc)))
    _row("transit_many, over a natal chart", size,
         *_clock(lambda: bodygraph.transit_many(utc, natal=natal)))
    _row("transit loop, over a natal chart", loop,
         *_clock(lambda: [bodygraph.transit(at, natal=natal) for at in instants]))
    _row("connection_many, one against N", size,
         *_clock(lambda: bodygraph.connection_many(natal, table[0])))
    charts = list(table[0].slice(0, loop))
    _row("connection loop", loop,
         *_clock(lambda: [bodygraph.connection(natal, other) for other in charts]))
    groups = [charts[i:i + 5] for i in range(loop - 4)]
    _row("penta of five", len(groups), *_clock(lambda: [bodygraph.penta(g) for g in groups]))


if __name__ == "__main__":
    main()
