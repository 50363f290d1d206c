"""Fresh processes of two source trees, alternated: wall and CPU time (user + system).

    .venv/bin/python benchmarks/alternate.py BEFORE/src src --runs 20 chart
    .venv/bin/python benchmarks/alternate.py BEFORE/src src --runs 5 loop 40 300 1000
    .venv/bin/python benchmarks/alternate.py BEFORE/src src --runs 5 cli cycles --utc ...

``chart`` runs ``bodygraph chart --utc 1980-01-03T08:30:00Z --json`` (the one-shot CLI),
``cli ARGS`` ``bodygraph ARGS``, both checking that the trees print the same;
``loop N ...`` a script that calls
``bodygraph.calculate`` on N random births in a loop, for each N. Each tree is imported
through ``PYTHONPATH``; one unmeasured run of each warms the caches. Prints the medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CHART = ["-m", "bodygraph.cli.main", "chart", "--utc", "1980-01-03T08:30:00Z", "--json"]
LOOP = """
import datetime, sys
import numpy as np
import bodygraph
rng = np.random.default_rng(5)
start = datetime.datetime(1900, 1, 1, tzinfo=datetime.UTC)
for s in rng.uniform(0, 6e9, int(sys.argv[1])):
    bodygraph.calculate(start + datetime.timedelta(seconds=float(s)))
"""


def once(tree: str, arguments: list[str]) -> tuple[float, float, bytes]:
    """(wall s, CPU s, stdout) of one fresh process importing ``tree``."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, *arguments], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=env)
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{tree}: the command failed")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, out


def compare(trees: list[str], arguments: list[str], runs: int, label: str) -> None:
    outputs = {once(tree, arguments)[2] for tree in trees}
    if arguments[0] == "-m" and len(outputs) != 1:
        raise SystemExit("the two trees print different things")
    walls: dict[str, list[float]] = {tree: [] for tree in trees}
    cpus: dict[str, list[float]] = {tree: [] for tree in trees}
    for _ in range(runs):
        for tree in trees:
            wall, cpu, _ = once(tree, arguments)
            walls[tree].append(wall)
            cpus[tree].append(cpu)
    print(f"{label}, {runs} runs each, load average {os.getloadavg()[0]:.1f}: " + "; ".join(
        f"{tree} wall {statistics.median(walls[tree]):.3f} s CPU "
        f"{statistics.median(cpus[tree]):.3f} s" for tree in trees), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("what", choices=["chart", "cli", "loop"])
    parser.add_argument("rest", nargs=argparse.REMAINDER,
                        help="loop: charts per process; cli: the command's arguments")
    args = parser.parse_args()
    trees = [args.before, args.after]
    if args.what == "chart":
        compare(trees, CHART, args.runs, "bodygraph chart")
    elif args.what == "cli":
        compare(trees, [*CHART[:2], *args.rest], args.runs, "bodygraph " + " ".join(args.rest))
    else:
        for count in args.rest:
            compare(trees, ["-c", LOOP, count], args.runs, f"{count} charts in a loop")


if __name__ == "__main__":
    main()
