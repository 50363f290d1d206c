"""``calculate_many(..., workers=N)`` against one worker, on the same births, in one run.

    .venv/bin/python benchmarks/workers.py                       # 1,000,000 births
    .venv/bin/python benchmarks/workers.py --births 200000 --rounds 3

Alternates workers=1 and workers=N (N: every core this process may use) ``--rounds``
times, so that both see the same load on a shared machine, and prints each run's wall
and CPU time, the charts per second and the ratios of the medians and of the best runs
(other processes only ever slow a run down). The births are random
instants 1800-2200, in blocks of ``--block`` (as ``bodygraph batch`` would pass them);
the tables are checked to be identical. Ends with the peak resident memory.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time

import numpy as np

from bodygraph.calculator import default_calculator


def _births(count: int) -> np.ndarray:
    calc = default_calculator(None)
    low = np.datetime64(calc.first_birth.replace(tzinfo=None), "us").astype(np.int64)
    high = np.datetime64(calc.last_birth.replace(tzinfo=None), "us").astype(np.int64)
    return np.random.default_rng(7).integers(low, high, count).astype("datetime64[us]")


def _run(births: np.ndarray, block: int, workers: int) -> tuple[float, float, np.ndarray]:
    calc = default_calculator(None)
    gates = []
    wall, cpu = time.perf_counter(), time.process_time()
    for start in range(0, births.shape[0], block):
        table = calc.calculate_many(births[start:start + block], workers=workers)
        gates.append(table.longitude[:, :, -1].copy())  # a check that keeps little
    return time.perf_counter() - wall, time.process_time() - cpu, np.stack(gates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--births", type=int, default=1_000_000)
    parser.add_argument("--block", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    args = parser.parse_args()
    births = _births(args.births)
    default_calculator(None).warm_up()
    _run(births[:20_000], 10_000, args.workers)  # warm both paths
    rates: dict[int, list[float]] = {1: [], args.workers: []}
    reference = None
    print(f"{args.births:,} births in blocks of {args.block:,}; load average "
          f"{os.getloadavg()[0]:.2f}")
    for _ in range(args.rounds):
        for workers in (1, args.workers):
            wall, cpu, check = _run(births, args.block, workers)
            if reference is None:
                reference = check
            assert np.array_equal(check, reference), "tables differ"
            rates[workers].append(args.births / wall)
            print(f"workers={workers}: {wall:6.2f} s wall, {cpu:6.2f} s CPU, "
                  f"{args.births / wall:9,.0f} charts/s")
    one, many = statistics.median(rates[1]), statistics.median(rates[args.workers])
    print(f"median charts/s: 1 worker {one:,.0f}, {args.workers} workers {many:,.0f}: "
          f"{many / one:.2f}x; load average {os.getloadavg()[0]:.2f}")
    one, many = max(rates[1]), max(rates[args.workers])
    print(f"best charts/s: 1 worker {one:,.0f}, {args.workers} workers {many:,.0f}: "
          f"{many / one:.2f}x")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
