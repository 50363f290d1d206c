"""An independent reference: the Swiss Ephemeris (Moshier theory, no JPL files).

Used by the accuracy tests and by ``scripts/accuracy_report.py``. The design
instant is solved here with swisseph's own Sun (Newton's method on its longitude
and speed), independently of the engine's solver.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import swisseph as swe  # type: ignore[import-not-found]

from bodygraph.calculator import Calculator
from bodygraph.model.chart import BODIES, Body
from bodygraph.rules.wheel import LINE, UNITS_PER_DEGREE, positions, to_units

FLAGS = swe.FLG_MOSEPH
SWISS_IDS: dict[Body, int] = {
    Body.SUN: swe.SUN, Body.MOON: swe.MOON, Body.MERCURY: swe.MERCURY, Body.VENUS: swe.VENUS,
    Body.MARS: swe.MARS, Body.JUPITER: swe.JUPITER, Body.SATURN: swe.SATURN,
    Body.URANUS: swe.URANUS, Body.NEPTUNE: swe.NEPTUNE, Body.PLUTO: swe.PLUTO,
}
OPPOSITE = {Body.EARTH: Body.SUN, Body.SOUTH_NODE: Body.NORTH_NODE}
PLANETS = frozenset(SWISS_IDS) - {Body.SUN, Body.MOON}

#: How far the two theories may differ, arcseconds: measured maxima (docs/accuracy.md)
#: with a margin. Outer planets: Moshier's series drift away from J2000.
TOLERANCE_ARCSEC: dict[Body, float] = {
    Body.SUN: 0.2, Body.MOON: 4.0, Body.MERCURY: 0.5, Body.VENUS: 0.6, Body.MARS: 1.2,
    Body.JUPITER: 1.2, Body.SATURN: 1.0, Body.URANUS: 2.0, Body.NEPTUNE: 3.5,
    Body.PLUTO: 8.0, Body.NORTH_NODE: 70.0,
}
MEAN_NODE_TOLERANCE_ARCSEC = 5.0
#: A planet this close to the Sun in longitude may stand behind the solar disk, where the
#: two libraries treat light deflection differently (the Swiss Ephemeris damps it inside
#: the disk; Skyfield and our engines apply the formula as is): tens of arcseconds at most.
BEHIND_SUN_DEG = 0.3
BEHIND_SUN_TOLERANCE_ARCSEC = 30.0
DESIGN_TOLERANCE_S = 4.0
MOON_ARCSEC_PER_S = 0.56


def swiss_longitudes(tt_jd: float, node: str = "true") -> dict[Body, float]:
    """Apparent longitudes (degrees) of the 13 bodies at a TT Julian date."""
    out = {body: swe.calc(tt_jd, ident, FLAGS)[0][0] for body, ident in SWISS_IDS.items()}
    node_id = swe.TRUE_NODE if node == "true" else swe.MEAN_NODE
    out[Body.NORTH_NODE] = swe.calc(tt_jd, node_id, FLAGS)[0][0]
    for body, source in OPPOSITE.items():
        out[body] = (out[source] + 180.0) % 360.0
    return out


def swiss_design_jd(birth_tt: float) -> float:
    """TT of the design instant by Newton's method on swisseph's apparent Sun (its
    longitude and daily speed), until a step is under 1e-8 day: 3 or 4 steps, the error
    then far below that step (it converges quadratically). Bisection to an interval of
    1e-8 day took 30 evaluations, half of the accuracy tests' time, for the same
    instants to 0.5 ms."""
    target = (swe.calc(birth_tt, swe.SUN, FLAGS)[0][0] - 88.0) % 360.0
    jd = birth_tt - 89.0  # the Sun takes 86.3 to 92.6 days to move 88 degrees
    for _ in range(20):
        sun = swe.calc(jd, swe.SUN, FLAGS | swe.FLG_SPEED)[0]
        step = ((sun[0] - target + 180.0) % 360.0 - 180.0) / sun[3]
        jd -= step
        if abs(step) < 1e-8:
            return jd
    raise AssertionError(f"no design instant found for TT {birth_tt}")


def near_line_boundary(longitude: float, tolerance_arcsec: float) -> bool:
    """Whether a longitude lies within ``tolerance`` of a line boundary."""
    return bool(near_line_boundaries(np.array([longitude]), np.array([tolerance_arcsec]))[0])


def near_line_boundaries(
    longitudes: np.ndarray[Any, Any], tolerances_arcsec: np.ndarray[Any, Any]
) -> np.ndarray[Any, Any]:
    """:func:`near_line_boundary` of many longitudes at once."""
    offset = (to_units(longitudes) - round(302 * UNITS_PER_DEGREE)) % LINE
    distance = np.minimum(offset, LINE - offset) / 16.0
    return distance <= tolerances_arcsec


@dataclass
class Comparison:
    """Differences (ours minus swisseph, arcsec) and gate.line agreement."""

    differences: dict[Body, list[float]] = field(default_factory=lambda: {b: [] for b in BODIES})
    #: the same, at the design epochs only (the two solvers' instants differ by seconds)
    design_differences: dict[Body, list[float]] = field(
        default_factory=lambda: {b: [] for b in BODIES}
    )
    #: differences of planets within BEHIND_SUN_DEG of the Sun, kept apart from the above
    behind_sun: list[float] = field(default_factory=list)
    design_seconds: list[float] = field(default_factory=list)
    #: design-instant difference less what the two theories' Sun difference explains
    design_residual_seconds: list[float] = field(default_factory=list)
    compared: int = 0
    skipped: int = 0
    mismatches: list[str] = field(default_factory=list)

    def max_abs(self, body: Body, *, design: bool = False) -> float:
        values = (self.design_differences if design else self.differences)[body]
        return float(np.max(np.abs(values)))


def _wrap_arcsec(ours: float, theirs: float) -> float:
    return ((ours - theirs + 180.0) % 360.0 - 180.0) * 3600.0


def compare(calculator: Calculator, instants: Sequence[datetime], node: str = "true") -> Comparison:
    """Compare both epochs of every instant with the Swiss Ephemeris at the same TT."""
    epochs = calculator.epochs(list(instants), node)  # type: ignore[arg-type]
    result = Comparison()
    node_tol = TOLERANCE_ARCSEC[Body.NORTH_NODE] if node == "true" else MEAN_NODE_TOLERANCE_ARCSEC
    # What to check, one row per instant, epoch and body: gate.line of ours and theirs,
    # unless theirs is within the tolerance of a line boundary (all at once, below).
    labels: list[tuple[datetime, str, Body]] = []
    ours_all: list[float] = []
    theirs_all: list[float] = []
    tolerances: list[float] = []
    for n, instant in enumerate(instants):
        birth_tt = float(epochs.birth.whole[n] + epochs.birth.fraction[n])
        design_tt = float(epochs.design.whole[n] + epochs.design.fraction[n])
        swiss_design = swiss_design_jd(birth_tt)
        dt = (design_tt - swiss_design) * 86400.0
        result.design_seconds.append(dt)
        at_birth = swiss_longitudes(birth_tt, node)  # the Sun does not depend on the node
        sun_birth = _wrap_arcsec(float(epochs.personality[0, n]), at_birth[Body.SUN])
        sun_design = _wrap_arcsec(float(epochs.design_longitudes[0, n]),
                                  swe.calc(design_tt, swe.SUN, FLAGS)[0][0])
        rate = swe.calc(design_tt, swe.SUN, FLAGS | swe.FLG_SPEED)[0][3] * 3600 / 86400
        result.design_residual_seconds.append(dt - (sun_birth - sun_design) / rate)
        for label, theirs, ours in (
            ("personality", at_birth, epochs.personality[:, n]),
            ("design", swiss_longitudes(swiss_design, node), epochs.design_longitudes[:, n]),
        ):
            for i, body in enumerate(BODIES):
                source = OPPOSITE.get(body, body)
                tol = node_tol if source is Body.NORTH_NODE else TOLERANCE_ARCSEC[source]
                if label == "design":
                    tol += abs(dt) * (MOON_ARCSEC_PER_S if source is Body.MOON else 0.05)
                difference = _wrap_arcsec(float(ours[i]), theirs[body])
                elongation = abs(_wrap_arcsec(float(ours[i]), float(ours[0]))) / 3600
                if source in PLANETS and elongation < BEHIND_SUN_DEG:
                    tol += BEHIND_SUN_TOLERANCE_ARCSEC
                    result.behind_sun.append(difference)
                elif label == "design":
                    result.design_differences[body].append(difference)
                else:
                    result.differences[body].append(difference)
                labels.append((instant, label, body))
                ours_all.append(float(ours[i]))
                theirs_all.append(theirs[body])
                tolerances.append(tol)
    skip = near_line_boundaries(np.array(theirs_all), np.array(tolerances))
    result.skipped = int(skip.sum())
    result.compared = len(skip) - result.skipped
    a = positions(to_units(ours_all))
    b = positions(to_units(theirs_all))
    for k in np.flatnonzero(~skip & ((a.gate != b.gate) | (a.line != b.line))).tolist():
        instant, label, body = labels[k]
        result.mismatches.append(f"{instant.isoformat()} {label} {body.value}: "
                                 f"{a.gate[k]}.{a.line[k]} vs {b.gate[k]}.{b.line[k]}")
    return result


def random_instants(count: int, seed: int, first: datetime, last: datetime) -> list[datetime]:
    """``count`` instants spread uniformly over [first, last], to the microsecond."""
    rng = np.random.default_rng(seed)
    span = (last - first).total_seconds()
    return [
        (first + timedelta(seconds=float(s))).astimezone(UTC)
        for s in rng.uniform(0.0, span, count)
    ]
