"""Charts per second without numba (the default install) against the compiled engine (the
``fast`` extra), each in a fresh process: ``calculate_many`` over random births
(1800-2200, true node), ``bodygraph batch`` over a CSV of UTC births and ``bodygraph
calendar`` of 2026 (every body's gate ingresses). Without numba a
finder on ``sys.meta_path`` makes ``import numba`` fail, as where it is not installed;
with it, ``warm_up()`` loads the compiled engine before the clock starts.

    .venv/bin/python benchmarks/without_numba.py [--births 2000] [--rows 2000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

_CHILD = """
import json, os, shutil, sys, tempfile, time
blocked = sys.argv[1] == "plain"
class NoNumba:
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] == "numba":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
if blocked:
    sys.meta_path.insert(0, NoNumba())
import numpy as np
import bodygraph
from bodygraph.cli.main import main
births, rows = int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(1)
low = np.datetime64("1800-06-01T00:00", "us").astype(np.int64)
high = np.datetime64("2199-06-01T00:00", "us").astype(np.int64)
instants = rng.integers(low, high, births).astype("datetime64[us]")
from bodygraph.calculator import warm_up
warm_up()
start, cpu = time.perf_counter(), time.process_time()
bodygraph.calculate_many(instants)
many = (time.perf_counter() - start, time.process_time() - cpu)
folder = tempfile.mkdtemp()
source = os.path.join(folder, "in.csv")
with open(source, "w") as out:
    out.write("birth_utc\\n")
    for instant in rng.integers(low, high, rows).astype("datetime64[us]").astype("datetime64[s]"):
        out.write(f"{instant}Z\\n")
start, cpu = time.perf_counter(), time.process_time()
with open(os.devnull, "w") as sink:
    sys.stderr, kept = sink, sys.stderr
    status = main(["batch", source, "-o", os.path.join(folder, "out.csv"), "--no-progress"])
    sys.stderr = kept
batch = (time.perf_counter() - start, time.process_time() - cpu)
start, cpu = time.perf_counter(), time.process_time()
with open(os.devnull, "w") as sink:
    sys.stdout, kept = sink, sys.stdout
    main(["calendar", "--from", "2026-01-01", "--to", "2026-12-31"])
    sys.stdout = kept
calendar = (time.perf_counter() - start, time.process_time() - cpu)
assert status == 0, status
assert ("numba" in sys.modules) != blocked
shutil.rmtree(folder)
print(json.dumps({"many": many, "batch": batch, "calendar": calendar}))
"""


def run(kind: str, births: int, rows: int) -> dict[str, list[float]]:
    done = subprocess.run([sys.executable, "-c", _CHILD, kind, str(births), str(rows)],
                          capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"the {kind} run failed:\n{done.stderr}")
    figures: dict[str, list[float]] = json.loads(done.stdout)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--births", type=int, default=2000)
    parser.add_argument("--rows", type=int, default=2000)
    args = parser.parse_args()
    found = {kind: run(kind, args.births, args.rows) for kind in ("plain", "compiled")}
    for what, count, label in (("many", args.births, "calculate_many"),
                               ("batch", args.rows, "bodygraph batch")):
        for kind, figures in found.items():
            wall, cpu = figures[what]
            print(f"{label:16} {kind:8} {count:>8,} charts: wall {wall:7.3f} s, CPU {cpu:7.3f} s, "
                  f"{count / cpu:9,.0f} charts per CPU-second")
        ratio = found["plain"][what][1] / found["compiled"][what][1]
        print(f"{label:16} plain / compiled CPU: x{ratio:.0f}")
    for kind, figures in found.items():
        wall, cpu = figures["calendar"]
        print(f"{'calendar 2026':16} {kind:8} gate ingresses: wall {wall:7.3f} s, CPU {cpu:7.3f} s")


if __name__ == "__main__":
    main()
