"""Peak memory and time of ``bodygraph batch`` on a large generated CSV.

    .venv/bin/python benchmarks/batch_memory.py              # 1,000,000 births
    .venv/bin/python benchmarks/batch_memory.py --rows 50000

Writes ``births.csv`` (random instants 1800-2200, ISO 8601, a few bad rows) in a
temporary folder, runs the batch command in a child process and prints its wall time,
throughput and peak resident memory (``ru_maxrss`` of the child).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
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


def main() -> None:
    """Generate, run, report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--chunk-size", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "births.csv", Path(folder) / "charts.csv"
        write_births(source, args.rows)
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        start = time.perf_counter()
        done = subprocess.run(
            [*command(), str(source), "-o", str(target), "--no-progress",
             "--chunk-size", str(args.chunk_size)],
            capture_output=True, text=True, env=env, check=False,
        )
        seconds = time.perf_counter() - start
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        with target.open("rb") as handle:
            written = sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 20), b""))
        print(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "(no stderr)")
        print(f"rows {args.rows:,}  exit {done.returncode}  output lines {written:,}  "
              f"wall {seconds:.1f} s  {args.rows / seconds:,.0f} rows/s  "
              f"peak RSS {peak_mib:,.0f} MiB  input {source.stat().st_size / 2**20:,.0f} MiB  "
              f"output {target.stat().st_size / 2**20:,.0f} MiB")


if __name__ == "__main__":
    main()
