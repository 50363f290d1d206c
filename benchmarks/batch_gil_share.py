"""Where ``bodygraph batch``'s CPU time goes, measured in CPU time, which the machine's
other load hardly changes, and what two idle cores can therefore give.

    .venv/bin/python benchmarks/batch_gil_share.py [--rows 200000] [--jobs 2]

Runs the job on births written by ``batch_memory.py`` (after loading the compiled engine,
as every run does once): with ``jobs=1`` in this process, timing the compiled engine's
calls (CPU time of the calling thread: the part that runs without the GIL) against the
whole; then with ``jobs=N`` worker processes, the CPU time of this process (cutting the
input, writing the output in order) and of the workers (parsing, resolving, computing,
encoding; ``RUSAGE_CHILDREN``). On N idle cores the workers and this process share the
cores, so the job takes at least ``max(parent, (parent + workers) / N)`` seconds against
``jobs 1``'s CPU time: the ratio printed is that bound (start-up not included).
"""

from __future__ import annotations

import argparse
import io
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from batch_memory import write_births

from bodygraph.batch import run_batch
from bodygraph.ephemeris.fast.engine import FastEngine


def children_cpu() -> float:
    """CPU seconds of the reaped child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    engine = [0.0]
    loop = FastEngine._loop

    def timed_loop(self: FastEngine, *given: Any) -> tuple[Any, Any]:
        run, coefficients = loop(self, *given)

        def timed(*arguments: Any) -> Any:
            started = time.thread_time()
            try:
                return run(*arguments)
            finally:
                engine[0] += time.thread_time() - started

        return timed, coefficients

    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "births.csv", Path(folder) / "charts.csv"
        write_births(source, args.rows)
        run_batch(source, target, jobs=1, stderr=io.StringIO())  # loads the compiled engine
        FastEngine._loop = timed_loop  # type: ignore[method-assign,assignment]
        started = time.process_time()
        run_batch(source, target, jobs=1, stderr=io.StringIO())
        alone = time.process_time() - started
        FastEngine._loop = loop  # type: ignore[method-assign]
        started, before = time.process_time(), children_cpu()
        run_batch(source, target, jobs=args.jobs, stderr=io.StringIO())
        parent, workers = time.process_time() - started, children_cpu() - before
    share = engine[0] / alone
    print(f"{args.rows:,} rows, jobs 1: CPU {alone:.2f} s, of which the compiled engine "
          f"{engine[0]:.2f} s ({share:.0%}, without the GIL), with the GIL {1 - share:.0%}")
    total = parent + workers
    bound = max(parent, total / args.jobs)
    print(f"jobs {args.jobs}: CPU {total:.2f} s ({total / alone - 1:+.0%} against jobs 1): "
          f"this process {parent:.2f} s, the workers {workers:.2f} s; on {args.jobs} idle "
          f"cores at most {alone / bound:.2f}x jobs 1")


if __name__ == "__main__":
    main()
