"""Peak memory and time of ``bodygraph batch`` on a large generated CSV.

    .venv/bin/python benchmarks/batch_memory.py              # 1,000,000 births
    .venv/bin/python benchmarks/batch_memory.py --rows 50000
    .venv/bin/python benchmarks/batch_memory.py --jobs 1 2 --rounds 3   # --jobs 1 vs 2

Writes ``births.csv`` (random instants 1800-2200, ISO 8601, a few bad rows) in a
temporary folder, runs the batch command in a child process and prints its wall time,
CPU time (user + system of the child and of its worker processes), throughput and peak
memory: the peak resident memory of the largest process (``ru_maxrss``) and the peak of
the memory of all the job's processes: the resident memory of the job's process plus
the private memory of its workers (what they do not share with it or anyone; sampled
every 50 ms from ``/proc``, Linux only). With several ``--jobs`` values the runs alternate for
``--rounds`` rounds, the outputs are checked identical, and the median wall time of each
is compared with the first's.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

_FALLBACK = (
    "import argparse, sys\n"
    "from bodygraph.cli.batch import add_parser\n"
    "parser = argparse.ArgumentParser(prog='bodygraph')\n"
    "add_parser(parser.add_subparsers())\n"
    "args = parser.parse_args(sys.argv[1:])\n"
    "sys.exit(args.handler(args))\n"
)


def write_births(path: Path, rows: int, seed: int = 1) -> None:
    """``rows`` births as ``id,birth_utc``; every 100,000th row is unreadable."""
    low = np.datetime64("1800-05-01T00:00:00", "us").astype(np.int64)
    high = np.datetime64("2199-12-01T00:00:00", "us").astype(np.int64)
    rng = np.random.default_rng(seed)
    with path.open("w", encoding="utf-8") as handle:
        handle.write("id,birth_utc\n")
        for start in range(0, rows, 100_000):
            count = min(100_000, rows - start)
            values = rng.integers(low, high, count).astype("datetime64[us]")
            text = np.datetime_as_string(values, unit="s")
            lines = [f"{start + i},{t}Z\n" for i, t in enumerate(text.tolist())]
            lines[0] = f"{start},not-a-date\n"
            handle.writelines(lines)


def command() -> list[str]:
    """The console script if it has ``batch``, else the same handler in a fresh python."""
    script = Path(sys.executable).parent / "bodygraph"
    probe = subprocess.run([str(script), "batch", "--help"], capture_output=True, check=False)
    if probe.returncode == 0:
        return [str(script), "batch"]
    return [sys.executable, "-c", _FALLBACK, "batch"]


def _rollup(pid: int, fields: tuple[str, ...]) -> int:
    """The sum of ``fields`` of ``/proc/PID/smaps_rollup``, in KiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
            return sum(int(line.split()[1]) for line in rollup if line.startswith(fields))
    except (OSError, ValueError, IndexError):
        return 0


def _descendants(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as children:
            kids = [int(k) for k in children.read().split()]
    except (OSError, ValueError):
        return []
    return kids + [d for kid in kids for d in _descendants(kid)]


def job_memory(pid: int) -> int:
    """The resident memory of ``pid`` plus the private memory of its descendants, KiB."""
    private = ("Private_Clean:", "Private_Dirty:")
    return _rollup(pid, ("Rss:",)) + sum(_rollup(kid, private) for kid in _descendants(pid))


class PeakMemory:
    """The peak of :func:`job_memory` of a process, sampled on a thread until stopped."""

    def __init__(self, pid: int) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(pid,), daemon=True)
        self._thread.start()

    def _sample(self, pid: int) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, job_memory(pid))

    def stop(self) -> int:
        """Stop sampling; the peak in KiB."""
        self._stop.set()
        self._thread.join()
        return self.peak


def run(source: Path, target: Path, chunk_size: int, jobs: int | None) -> tuple[float, float]:
    """One ``bodygraph batch`` child: prints what it did, returns (wall s, CPU s)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    extra = [] if jobs is None else ["--jobs", str(jobs)]
    start = time.perf_counter()
    child = subprocess.Popen(
        [*command(), str(source), "-o", str(target), "--no-progress",
         "--chunk-size", str(chunk_size), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
    )
    assert child.stderr is not None
    memory = PeakMemory(child.pid)
    stderr = child.stderr.read().decode().strip()
    peak = memory.stop()  # before the child is reaped (its /proc entry goes with it)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    rows = sum(1 for _ in source.open("rb")) - 1
    with target.open("rb") as handle:
        written = sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 20), b""))
    print(stderr.splitlines()[-1] if stderr else "(no stderr)")
    print(f"  jobs {jobs or 'default'}  rows {rows:,}  exit {os.waitstatus_to_exitcode(status)}  "
          f"output lines {written:,}  wall {seconds:.1f} s  CPU {cpu:.1f} s  "
          f"{rows / seconds:,.0f} rows/s  peak RSS {usage.ru_maxrss / 1024:,.0f} MiB  "
          f"all processes {peak / 1024:,.0f} MiB  "
          f"load {os.getloadavg()[0]:.1f}  input {source.stat().st_size / 2**20:,.0f} MiB  "
          f"output {target.stat().st_size / 2**20:,.0f} MiB", flush=True)
    return seconds, cpu


def main() -> None:
    """Generate, run, report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--chunk-size", type=int, default=20_000)
    parser.add_argument("--jobs", type=int, nargs="*", default=[],
                        help="--jobs of each run (default: the command's default)")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    variants: list[int | None] = list(args.jobs) or [None]
    walls: dict[int | None, list[float]] = {v: [] for v in variants}
    cpus: dict[int | None, list[float]] = {v: [] for v in variants}
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "births.csv"
        write_births(source, args.rows)
        for _ in range(args.rounds):
            for jobs in variants:
                target = Path(folder) / f"charts-{jobs}.csv"
                wall, cpu = run(source, target, args.chunk_size, jobs)
                walls[jobs].append(wall)
                cpus[jobs].append(cpu)
        targets = [Path(folder) / f"charts-{jobs}.csv" for jobs in variants]
        assert all(filecmp.cmp(targets[0], t, shallow=False) for t in targets[1:]), \
            "the outputs differ"
    first = statistics.median(walls[variants[0]])
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.rounds} round(s):")
    for jobs in variants:
        wall = statistics.median(walls[jobs])
        print(f"  jobs {jobs or 'default'}: wall {wall:.1f} s, CPU "
              f"{statistics.median(cpus[jobs]):.1f} s, speed-up {first / wall:.2f}x")


if __name__ == "__main__":
    main()
