"""Start-up of ``bodygraph chart --utc ... --json`` in fresh processes: wall time, CPU time
and peak resident memory.

    .venv/bin/python benchmarks/cli_startup.py              # 15 runs
    .venv/bin/python benchmarks/cli_startup.py --runs 30
    .venv/bin/python benchmarks/cli_startup.py --place    # chart --date --time --place

Runs the command (``python -m bodygraph.cli.main``, as the console script does) ``--runs``
times and prints the median and the spread of the wall time, the median CPU time (user +
system: what the process itself needed, whatever else the machine is doing) and the
largest peak RSS (``ru_maxrss`` of each child, from ``os.wait4``). Then once as the
first run after an install: Python's bytecode cache and numba's cache both empty
(``PYTHONPYCACHEPREFIX`` and ``NUMBA_CACHE_DIR`` pointed at an empty folder). Checks that
every run prints the same JSON.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

COMMAND = [sys.executable, "-m", "bodygraph.cli.main", "chart", "--utc",
           "1980-01-03T08:30:00Z", "--json"]
#: ``--place``: a local time at a place name (the offline gazetteer and the time zone lookup).
PLACE = [*COMMAND[:4], "--date", "1990-05-14", "--time", "08:30", "--place", "Berlin, Germany",
         "--json"]


def run_once(env: dict[str, str], command: list[str] = COMMAND) -> tuple[float, float, float,
                                                                         bytes]:
    """(wall s, CPU s, peak RSS MiB, stdout) of one fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"the command failed with status {child.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--place", action="store_true",
                        help="time a chart from a date, a time and a place name instead")
    args = parser.parse_args()
    runs, command = args.runs, PLACE if args.place else COMMAND
    env = dict(os.environ)
    expected = run_once(env, command)[3]  # and warms the caches
    walls, cpus, peaks = [], [], []
    for _ in range(runs):
        wall, cpu, peak, out = run_once(env, command)
        assert out == expected, "a run printed something else"
        walls.append(wall)
        cpus.append(cpu)
        peaks.append(peak)
    quartiles = statistics.quantiles(walls, n=4)
    print(f"{' '.join(command[1:])}: {runs} fresh processes, load average "
          f"{os.getloadavg()[0]:.2f}")
    print(f"  warm: wall median {statistics.median(walls):.3f} s (quartiles "
          f"{quartiles[0]:.3f}-{quartiles[2]:.3f}), CPU median {statistics.median(cpus):.3f} s, "
          f"peak RSS {max(peaks):.0f} MiB")
    with tempfile.TemporaryDirectory() as empty:
        first_env = dict(env, PYTHONPYCACHEPREFIX=os.path.join(empty, "pyc"),
                         NUMBA_CACHE_DIR=os.path.join(empty, "numba"))
        wall, cpu, peak, out = run_once(first_env, command)
    assert out == expected, "the first run printed something else"
    print(f"  first run (no bytecode, no numba cache): wall {wall:.3f} s, CPU {cpu:.3f} s, "
          f"peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
