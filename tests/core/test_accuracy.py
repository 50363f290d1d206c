"""Agreement with an independent ephemeris: the Swiss Ephemeris (Moshier theory).

Both sides are evaluated at the same TT, so that only the theories differ;
the time scales are compared on their own below. ``scripts/accuracy_report.py``
runs the same comparison on a larger sample and writes docs/accuracy.md.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import swisseph as swe  # type: ignore[import-not-found]

from bodygraph._time import utc_to_tt
from bodygraph.calculator import default_calculator
from bodygraph.model.chart import BODIES, Body

from .swiss_reference import (
    BEHIND_SUN_TOLERANCE_ARCSEC,
    DESIGN_TOLERANCE_S,
    MEAN_NODE_TOLERANCE_ARCSEC,
    OPPOSITE,
    TOLERANCE_ARCSEC,
    compare,
    random_instants,
)

SAMPLE = 2000


@pytest.fixture(scope="module")
def comparison():  # type: ignore[no-untyped-def]
    calc = default_calculator(None)
    instants = random_instants(SAMPLE, seed=20261122, first=calc.first_birth, last=calc.last_birth)
    return compare(calc, instants)


@pytest.mark.slow
def test_every_gate_line_agrees_away_from_boundaries(comparison) -> None:  # type: ignore[no-untyped-def]
    assert comparison.compared + comparison.skipped == SAMPLE * 2 * len(BODIES)
    assert comparison.mismatches == []
    # Boundary cases are rare: the comparison is not hollow.
    assert comparison.skipped < 0.05 * comparison.compared


@pytest.mark.parametrize("body", BODIES)
def test_longitudes_within_tolerance(comparison, body: Body) -> None:  # type: ignore[no-untyped-def]
    source = OPPOSITE.get(body, body)
    limit = TOLERANCE_ARCSEC[source]
    assert comparison.max_abs(body) < limit  # birth epochs: the same TT
    if source is Body.MOON:
        limit += 0.56 * DESIGN_TOLERANCE_S  # design epochs: the instants differ slightly
    assert comparison.max_abs(body, design=True) < limit


def test_planets_behind_the_sun_stay_within_the_deflection_bound(comparison) -> None:  # type: ignore[no-untyped-def]
    """Inside the solar disk the libraries treat deflection differently; still bounded."""
    assert all(abs(d) < BEHIND_SUN_TOLERANCE_ARCSEC for d in comparison.behind_sun)


def test_design_instants_agree(comparison) -> None:  # type: ignore[no-untyped-def]
    assert max(abs(s) for s in comparison.design_seconds) < DESIGN_TOLERANCE_S


def test_design_instant_difference_is_only_the_suns_difference(comparison) -> None:  # type: ignore[no-untyped-def]
    """Both solvers are exact: what separates the two design instants is the two theories'
    Sun longitudes (at birth and at design), to within 10 ms."""
    assert max(abs(s) for s in comparison.design_residual_seconds) < 0.01


def test_mean_node_agrees() -> None:
    calc = default_calculator(None)
    instants = random_instants(100, seed=7, first=calc.first_birth, last=calc.last_birth)
    result = compare(calc, instants, node="mean")
    assert result.mismatches == []
    assert result.max_abs(Body.NORTH_NODE) < MEAN_NODE_TOLERANCE_ARCSEC


@pytest.mark.parametrize(
    ("year", "limit_s"),
    [(1801, 1.0), (1850, 1.0), (1900, 1.0), (1950, 1.0), (1965, 1.0), (1971, 1.0),
     (1972, 0.001), (2000, 0.001), (2024, 0.001), (2030, 0.001)],
)
def test_time_scales_agree_until_leap_seconds_end(year: int, limit_s: float) -> None:
    """UTC -> TT: before 1972 (read as UT1) the two Delta T models differ by up to 0.63 s
    (1960s); from 1972 to 2030 both apply the same leap seconds."""
    moment = datetime(year, 6, 1, 12, tzinfo=UTC)
    tt = utc_to_tt([moment])
    swiss_tt, _ = swe.utc_to_jd(year, 6, 1, 12, 0, 0.0, swe.GREG_CAL)
    assert abs(((tt.whole[0] - swiss_tt) + tt.fraction[0]) * 86400) < limit_s
