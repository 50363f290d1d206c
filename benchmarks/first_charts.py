"""The time of each of the first charts of a new process that calls ``calculate`` in a
loop: the curve from the plain-Python kernels to the compiled engine.

    .venv/bin/python benchmarks/first_charts.py                 # 400 charts, 3 processes
    .venv/bin/python benchmarks/first_charts.py --charts 200 --runs 5

Each run is a fresh process (numba's cache warm: one unmeasured process first) that
times every ``bodygraph.calculate`` of distinct random births. Prints, per range of
chart indexes, the median and the largest time of one chart (each taken over the runs:
the median of the runs' medians, the largest of their largest), the range's total,
each run's slowest chart (its index and time), and after which chart the engine served
compiled code (``FastEngine.serves_compiled``, where the code has it).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys

#: Ranges of chart indexes (from 1) reported, the last one ends at ``--charts``.
EDGES = (1, 17, 33, 65, 129, 201, 257, 301, 401, 601, 801)

CHILD = """
import datetime, json, sys, time
import numpy as np
import bodygraph
from bodygraph.calculator import default_calculator

count = int(sys.argv[1])
rng = np.random.default_rng(20261129)
start = datetime.datetime(1900, 1, 1, tzinfo=datetime.UTC)
births = [start + datetime.timedelta(seconds=float(s))
          for s in rng.uniform(0, 200 * 365.25 * 86400, count)]
engine = default_calculator(None).engine
serves_compiled = getattr(engine, "serves_compiled", lambda: False)  # not before
times, switched = [], None
for index, birth in enumerate(births, 1):
    began = time.perf_counter()
    bodygraph.calculate(birth)
    times.append(time.perf_counter() - began)
    if switched is None and serves_compiled():
        switched = index
print(json.dumps({"times": times, "switched": switched}))
"""


def one_process(charts: int) -> tuple[list[float], int | None]:
    """The time of each chart, in seconds, in a new process, and the index of the first
    chart after which the engine served compiled code (None: not seen)."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(charts)], capture_output=True,
                          text=True, check=True, env=dict(os.environ))
    result = json.loads(done.stdout)
    return result["times"], result["switched"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--charts", type=int, default=400)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    one_process(args.charts)  # numba's cache and the bytecode, warm
    runs = [one_process(args.charts) for _ in range(args.runs)]
    print(f"{args.charts} charts per process, {args.runs} processes, load average "
          f"{os.getloadavg()[0]:.2f}")
    print("| charts | median per chart | largest | range total (median of runs) |")
    print("| --- | --- | --- | --- |")
    edges = [edge for edge in EDGES if edge <= args.charts] + [args.charts + 1]
    for first, end in itertools.pairwise(edges):
        medians = [statistics.median(times[first - 1:end - 1]) for times, _ in runs]
        largest = max(max(times[first - 1:end - 1]) for times, _ in runs)
        totals = [sum(times[first - 1:end - 1]) for times, _ in runs]
        print(f"| {first}-{end - 1} | {statistics.median(medians) * 1e3:.2f} ms | "
              f"{largest * 1e3:.1f} ms | {statistics.median(totals) * 1e3:.0f} ms |")
    totals = [sum(times) for times, _ in runs]
    slowest = [(times.index(max(times)) + 1, round(max(times) * 1e3, 1)) for times, _ in runs]
    print(f"all {args.charts}: {statistics.median(totals):.3f} s (median of runs); "
          f"slowest chart of each run (index, ms): {slowest}; compiled after chart "
          f"{[switched for _, switched in runs]}")


if __name__ == "__main__":
    main()
