"""Transits against the Swiss Ephemeris (Moshier), at the same TT: the comparison of
``test_transit.py`` and the figures of docs/accuracy.md ("Transits"):

    PYTHONPATH=src:tests .venv/bin/python -m relations.swiss_transits 400
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from core.swiss_reference import (
    BEHIND_SUN_DEG,
    BEHIND_SUN_TOLERANCE_ARCSEC,
    OPPOSITE,
    PLANETS,
    TOLERANCE_ARCSEC,
    near_line_boundary,
    random_instants,
    swiss_longitudes,
)

from bodygraph import transit_many
from bodygraph._time import utc64_to_tt
from bodygraph.calculator import default_calculator
from bodygraph.model.chart import BODIES, Body
from bodygraph.rules.wheel import positions, to_units

SEED = 20261123


@dataclass
class TransitComparison:
    """Largest differences (arcsec, ours minus swisseph) and gate.line agreement."""

    largest: dict[Body, float] = field(default_factory=dict)
    outside_tolerance: list[str] = field(default_factory=list)
    compared: int = 0
    skipped: int = 0
    mismatches: list[str] = field(default_factory=list)


def _arcsec(ours: float, theirs: float) -> float:
    return ((ours - theirs + 180.0) % 360.0 - 180.0) * 3600.0


def compare_transits(count: int, seed: int = SEED) -> TransitComparison:
    """``count`` random transits (the shipped kernel's range), every body compared."""
    calc = default_calculator(None)
    instants = random_instants(count, seed=seed, first=calc.first_birth, last=calc.last_birth)
    table = transit_many(instants)
    tt = utc64_to_tt(table.at)
    result = TransitComparison()
    for n in range(len(table)):
        theirs = swiss_longitudes(float(tt.whole[n]) + float(tt.fraction[n]))
        for b, body in enumerate(BODIES):
            source = OPPOSITE.get(body, body)
            tolerance = TOLERANCE_ARCSEC[source]
            ours = float(table.longitude[b, n])
            difference = abs(_arcsec(ours, theirs[body]))
            if source in PLANETS and abs(_arcsec(ours, float(table.longitude[0, n]))) < (
                    BEHIND_SUN_DEG * 3600):
                tolerance += BEHIND_SUN_TOLERANCE_ARCSEC  # behind the solar disk
            else:
                result.largest[source] = max(result.largest.get(source, 0.0), difference)
            if difference >= tolerance:
                result.outside_tolerance.append(f"{instants[n]} {body}: {difference:.2f}\"")
            if near_line_boundary(theirs[body], tolerance):
                result.skipped += 1
                continue
            result.compared += 1
            expected = positions(to_units([theirs[body]]))
            if (table.gate[b, n], table.line[b, n]) != (expected.gate[0], expected.line[0]):
                result.mismatches.append(f"{instants[n]} {body}")
    return result


if __name__ == "__main__":
    found = compare_transits(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
    print(f"compared {found.compared}, skipped near a line boundary {found.skipped}, "
          f"gate.line mismatches {len(found.mismatches)}, outside tolerance "
          f"{len(found.outside_tolerance)}")
    for body, largest in found.largest.items():
        print(f"  {body.value:<10} {largest:7.3f} arcsec (tolerance {TOLERANCE_ARCSEC[body]})")
