"""How much of ``bodygraph batch``'s CPU time runs without the GIL (the compiled engine),
measured in CPU time, which the machine's other load hardly changes.

    .venv/bin/python benchmarks/batch_gil_share.py [--rows 200000]

Runs the job with ``jobs=1`` on births written by ``batch_memory.py`` and times the
compiled engine's calls (CPU time of the calling thread) against the CPU time of the
whole process. With ``--jobs 2`` the engine runs on two threads while a third writes the
previous chunk, but everything else (reading, resolving, building and writing the
columns) holds the GIL and runs one thread at a time: on two idle cores the job can go at
most ``1 / max(share with the GIL, 1/2)`` times as fast as with one.
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from pathlib import Path
from typing import Any

from batch_memory import write_births

from bodygraph.batch import run_batch
from bodygraph.ephemeris.fast.engine import FastEngine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
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
        total = time.process_time() - started
    share = engine[0] / total
    print(f"{args.rows:,} rows, jobs 1: CPU {total:.2f} s, of which the compiled engine "
          f"{engine[0]:.2f} s ({share:.0%}, without the GIL); with the GIL {1 - share:.0%}: "
          f"at most {1 / max(1 - share, 0.5):.2f}x on two idle cores")


if __name__ == "__main__":
    main()
