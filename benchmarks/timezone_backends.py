"""timezonefinder with numba against timezonefinder with its C extension (what
``bodygraph.geo.timezones`` uses): start-up, memory, lookup rate and agreement.

    .venv/bin/python benchmarks/timezone_backends.py [--points N]

Each backend runs in a fresh process (timezonefinder picks one when it is imported: numba
when it can import it, else its C extension). Each looks up ``--points`` random points
(uniform on the sphere, land and sea) and every city of the offline gazetteer; the parent
prints the import-and-first-lookup time, the peak resident memory, the time a point, and
how many zones differ (the answer must be none).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

_CHILD = """
import json, resource, sys, time
started = time.perf_counter()
if sys.argv[1] == "c":
    from bodygraph.geo.timezones import _finder
    finder = _finder()
else:
    from timezonefinder import TimezoneFinder
    finder = TimezoneFinder(in_memory=True)
finder.timezone_at(lng=13.405, lat=52.52)
first = time.perf_counter() - started
from timezonefinder import utils
import numpy as np
from bodygraph.geo.places.gazetteer import index
rng = np.random.default_rng(1)
count = int(sys.argv[2])
points = list(zip(np.degrees(np.arcsin(rng.uniform(-1, 1, count))).tolist(),
                  rng.uniform(-180, 180, count).tolist()))
cities = index()
points += [(cities.city(n).latitude, cities.city(n).longitude) for n in range(len(cities))]
started = time.perf_counter()
zones = [finder.timezone_at(lng=lng, lat=lat) for lat, lng in points]
each = (time.perf_counter() - started) / len(points)
json.dump({"numba": utils.using_numba, "first": first, "each": each, "zones": zones,
           "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}, sys.stdout)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=20_000)
    args = parser.parse_args()
    found = {}
    for backend in ("numba", "c"):
        out = subprocess.run([sys.executable, "-c", _CHILD, backend, str(args.points)],
                             capture_output=True, text=True, check=True).stdout
        found[backend] = result = json.loads(out)
        print(f"{backend}: uses numba {result['numba']}, import and first lookup "
              f"{result['first']:.3f} s, {result['each'] * 1e6:.1f} us a point, peak RSS "
              f"{result['peak']:.0f} MiB (after the gazetteer index too)")
    pairs = list(zip(found["numba"]["zones"], found["c"]["zones"], strict=True))
    differ = sum(a != b for a, b in pairs)
    print(f"{len(pairs):,} points ({args.points:,} random, the rest gazetteer cities): "
          f"{differ} differ")
    if differ:
        raise SystemExit("the backends disagree")


if __name__ == "__main__":
    main()
