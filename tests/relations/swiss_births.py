"""The Swiss Ephemeris (Moshier, no JPL files) as the independent reference of birth-time
searches: the birth instant at which one activation, the design side at swisseph's own
design instant, reaches a wheel boundary; and a chart's constraints checked from its
plain values (without the relations code)."""

from __future__ import annotations

from datetime import datetime, timedelta

import swisseph as swe
from core.swiss_reference import FLAGS, SWISS_IDS, TOLERANCE_ARCSEC, swiss_design_jd

from bodygraph._time import utc_to_tt
from bodygraph.model.chart import Body, Chart
from bodygraph.relations.search import WHEEL_OFFSET
from bodygraph.rules.wheel import LINE, UNITS_PER_DEGREE

DESIGN_TOLERANCE_S = 4.0
OPPOSITE = {Body.EARTH: Body.SUN, Body.SOUTH_NODE: Body.NORTH_NODE}


def tt_jd(instant: datetime) -> float:
    tt = utc_to_tt([instant])
    return float(tt.whole[0] + tt.fraction[0])


def swiss_longitude(side: str, body: Body, birth: datetime) -> float:
    """swisseph's longitude of an activation of the birth (degrees)."""
    jd = tt_jd(birth)
    if side == "design":
        jd = swiss_design_jd(jd)
    source = OPPOSITE.get(body, body)
    value = float(swe.calc(jd, SWISS_IDS[source], FLAGS)[0][0])
    return (value + 180.0) % 360.0 if body in OPPOSITE else value


def nearest_line_boundary(longitude: float) -> float:
    k = round((longitude * UNITS_PER_DEGREE - WHEEL_OFFSET) / LINE)
    return float((WHEEL_OFFSET + k * LINE) / UNITS_PER_DEGREE % 360.0)


def swiss_change(side: str, body: Body, boundary: float, near: datetime,
                 span_s: float = 120.0) -> datetime:
    """The birth instant, within ``span_s`` of ``near``, at which swisseph's activation
    reaches ``boundary`` (bisection to a millisecond)."""

    def error(instant: datetime) -> float:
        return (swiss_longitude(side, body, instant) - boundary + 180.0) % 360.0 - 180.0

    low, high = near - timedelta(seconds=span_s), near + timedelta(seconds=span_s)
    rising = error(low) < 0
    assert rising == (error(high) > 0), "no single crossing near the instant"
    while high - low > timedelta(milliseconds=1):
        middle = low + (high - low) / 2
        if (error(middle) < 0) == rising:
            low = middle
        else:
            high = middle
    return low + (high - low) / 2


def allowed_seconds(side: str, body: Body, birth: datetime) -> float:
    """How far the two theories' instants may differ: the longitude tolerance over the
    body's speed, and the design instants' difference on the design side."""
    jd = tt_jd(birth)
    source = OPPOSITE.get(body, body)
    speed = abs(float(swe.calc(jd, SWISS_IDS[source], FLAGS | swe.FLG_SPEED)[0][3]))
    seconds = TOLERANCE_ARCSEC[source] / (speed * 3600 / 86400) + 0.01
    return seconds + (DESIGN_TOLERANCE_S if side == "design" else 0.0)


def changed_activations(before: Chart, after: Chart) -> list[tuple[str, Body]]:
    """The (side, body) whose gate or line differ between two charts."""
    out = []
    for side in ("personality", "design"):
        a, b = getattr(before, side), getattr(after, side)
        out += [(side, x.body) for x, y in zip(a, b, strict=True) if str(x) != str(y)]
    return out


def fits(chart: Chart, *, type: str | None = None, profile: str | None = None,
         authority: str | None = None, centers: tuple[str, ...] = (),
         channels: tuple[str, ...] = (), activations: dict[str, str] | None = None) -> bool:
    """Whether a chart has all these values (read from the chart itself)."""
    ok = (type is None or chart.type.value == type) and (
        profile is None or chart.profile == profile) and (
        authority is None or chart.authority.value == authority)
    ok = ok and set(centers) <= set(chart.centers)
    ok = ok and set(channels) <= {c.short for c in chart.channels}
    for key, value in (activations or {}).items():
        side, body = key.split(".")
        activation = getattr(chart, side)[body]
        ok = ok and (str(activation) == value if "." in value else
                     str(activation.gate) == value)
    return ok


def measure(days: int, seed: int = 26) -> dict[str, list[float]]:
    """Seconds (ours minus swisseph's) of every inner window edge of ``days`` random
    rectifications (1900-2100, UTC days): the profile and the personality Moon's line
    of the day's noon chart, so that the edges are Sun and Moon line changes on both
    sides; by ``side.body``."""
    import random
    from datetime import UTC, date, time

    from bodygraph import calculate
    from bodygraph.relations import constraints, rectify

    rng = random.Random(seed)
    found: dict[str, list[float]] = {}
    one = timedelta(seconds=1)
    for _ in range(days):
        day = date(1900, 1, 1) + timedelta(days=rng.randrange(200 * 365))
        noon = calculate(datetime.combine(day, time(12), tzinfo=UTC))
        moon = noon.personality.moon
        result = rectify(day, constraints(profile=noon.profile, activations=[
            f"personality.moon={moon.gate}.{moon.line}"]), zone=UTC)
        for window in result.windows:
            for edge in (window.start, window.end):
                if not result.start + one < edge < result.end - one:
                    continue
                after = calculate(edge + one)
                for side, body in changed_activations(calculate(edge - one), after):
                    if body in OPPOSITE:
                        continue
                    boundary = nearest_line_boundary(getattr(after, side)[body].longitude)
                    theirs = swiss_change(side, body, boundary, edge)
                    found.setdefault(f"{side}.{body.value}", []).append(
                        (edge - theirs).total_seconds())
    return found


if __name__ == "__main__":  # PYTHONPATH=src:tests python -m relations.swiss_births 40
    import statistics
    import sys

    for key, values in sorted(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 40).items()):
        sizes = [abs(v) for v in values]
        print(f"{key:20} {len(values):4} edges  max {max(sizes):6.2f} s  "
              f"median {statistics.median(sizes):5.2f} s")
