"""timezonefinder (what bodygraph uses) against tzfpy: cost and agreement.

tzfpy is not a dependency; install it anywhere on the path to run this, e.g.
``pip install --target /tmp/tzfpy tzfpy`` and ``PYTHONPATH=src:/tmp/tzfpy``. It prints the
import and first-lookup times of both, their lookup rates, and where they disagree: on
``--points`` random land points (uniform on the sphere; land is where timezonefinder names
a zone that is not a nautical ``Etc/`` one), on as many sea points, and at every city of
the offline gazetteer (the places births are geocoded to), the disagreements counted by
pair of zones. Figures and the decision are in docs/performance.md ("Install size").

    PYTHONPATH=src:/tmp/tzfpy .venv/bin/python benchmarks/timezone_finders.py [--points N]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable, Sequence
from importlib.metadata import version

import numpy as np

from bodygraph.geo.places.gazetteer import index

Lookup = Callable[[float, float], "str | None"]  # (lat, lng) -> zone


def _timed(action: Callable[[], object]) -> tuple[object, float]:
    started = time.perf_counter()
    result = action()
    return result, time.perf_counter() - started


def _finders() -> tuple[Lookup, Lookup]:
    def load_reference() -> Lookup:
        from timezonefinder import TimezoneFinder

        finder = TimezoneFinder(in_memory=True)
        return lambda lat, lng: finder.timezone_at(lng=lng, lat=lat)

    def load_tzfpy() -> Lookup:
        import tzfpy

        return lambda lat, lng: tzfpy.get_tz(lng, lat)

    finders = []
    for name, load in (("timezonefinder", load_reference), ("tzfpy", load_tzfpy)):
        lookup, loading = _timed(load)
        assert callable(lookup)
        _, first = _timed(lambda lookup=lookup: lookup(52.52, 13.405))
        print(f"{name} {version(name)}: import and load {loading:.3f} s, "
              f"first lookup {first:.3f} s")
        finders.append(lookup)
    return finders[0], finders[1]


def _compare(label: str, points: Sequence[tuple[float, float]], reference: Lookup,
             other: Lookup) -> None:
    expected, slow = _timed(lambda: [reference(lat, lng) for lat, lng in points])
    found, fast = _timed(lambda: [other(lat, lng) for lat, lng in points])
    assert isinstance(expected, list) and isinstance(found, list)
    pairs = Counter((a, b) for a, b in zip(expected, found, strict=True) if a != b)
    print(f"{label}: {sum(pairs.values())} of {len(points)} differ "
          f"({slow / len(points) * 1e6:.1f} vs {fast / len(points) * 1e6:.1f} us a point)")
    for (a, b), count in pairs.most_common(12):
        print(f"  {count:6d}  timezonefinder {a}  tzfpy {b}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=20_000)
    args = parser.parse_args()
    reference, other = _finders()
    rng = np.random.default_rng(1)
    count = args.points * 10
    lats = np.degrees(np.arcsin(rng.uniform(-1, 1, count))).tolist()
    lngs = rng.uniform(-180, 180, count).tolist()
    zones = [reference(lat, lng) for lat, lng in zip(lats, lngs, strict=True)]
    land = [(lat, lng) for lat, lng, zone in zip(lats, lngs, zones, strict=True)
            if zone and not zone.startswith("Etc/")][:args.points]
    sea = [(lat, lng) for lat, lng, zone in zip(lats, lngs, zones, strict=True)
           if zone and zone.startswith("Etc/")][:args.points]
    _compare("random land points", land, reference, other)
    _compare("random sea points", sea, reference, other)
    cities = index()
    places = [(cities.city(n).latitude, cities.city(n).longitude) for n in range(len(cities))]
    _compare("gazetteer cities", places, reference, other)


if __name__ == "__main__":
    main()
