"""Angles and house cusps against the Swiss Ephemeris (``swe.houses_ex`` at our UT1),
and Greenwich apparent sidereal time against Skyfield's, on random births and places:
the numbers of docs/accuracy.md ("Angles and houses").

    PYTHONPATH=src .venv/bin/python scripts/astro_accuracy.py 2000
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta

import numpy as np
import swisseph as swe  # type: ignore[import-not-found]

from bodygraph._time import utc_to_tt
from bodygraph.ephemeris.sidereal import apparent_sidereal_frame
from bodygraph.relations.astro import astro_table


def _arcsec(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs((a - b + 180.0) % 360.0 - 180.0) * 3600.0


def measure(count: int, first: datetime, last: datetime, seed: int) -> str:
    rng = np.random.default_rng(seed)
    span = (last - first).total_seconds()
    births = [first + timedelta(seconds=float(s)) for s in rng.uniform(0, span, count)]
    lat, lng = rng.uniform(-89.5, 89.5, count), rng.uniform(-180, 180, count)
    tt = utc_to_tt(births)
    gast, _, ut1 = apparent_sidereal_frame(tt)
    sidereal = float(np.max(_arcsec(gast, np.asarray(tt.time().gast) * 15.0)))
    table = astro_table(births, lat, lng)
    assert table.ascendant is not None and table.midheaven is not None
    assert table.cusps is not None and table.placidus is not None
    angles, cusps, polar = 0.0, 0.0, 0
    for n in range(count):
        whole = swe.houses_ex(float(ut1[n]), float(lat[n]), float(lng[n]), b"W")
        angles = max(angles, float(_arcsec(table.ascendant[n:n + 1], np.array(whole[1][:1]))[0]),
                     float(_arcsec(table.midheaven[n:n + 1], np.array(whole[1][1:2]))[0]))
        try:
            theirs = swe.houses_ex(float(ut1[n]), float(lat[n]), float(lng[n]), b"P")[0]
        except swe.Error:
            polar += 1
            assert not table.placidus[n]
            theirs = whole[0]
        cusps = max(cusps, float(np.max(_arcsec(table.cusps[:, n], np.array(theirs)))))
    return (f"{first:%Y}-{last:%Y}: {count} births, sidereal time vs Skyfield "
            f"{sidereal:.4f}\", angles {angles:.4f}\", cusps {cusps:.4f}\" "
            f"({polar} beyond the polar circles, whole-sign)")


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for first, last in ((1850, 2050), (1800, 1850), (2050, 2200)):
        print(measure(count, datetime(first, 4, 5, tzinfo=UTC),
                      datetime(last, 1, 1, tzinfo=UTC), first))


if __name__ == "__main__":
    main()
