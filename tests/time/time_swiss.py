"""The Swiss Ephemeris (Moshier, no JPL files) as the independent reference of the time
searches: when a body reaches a longitude, by bisection on swisseph's own positions."""

from __future__ import annotations

from datetime import datetime

import swisseph as swe  # type: ignore[import-not-found]
from core.swiss_reference import FLAGS, SWISS_IDS, TOLERANCE_ARCSEC

from bodygraph._time import utc_to_tt
from bodygraph.model.chart import Body
from bodygraph.relations.search import WHEEL_OFFSET
from bodygraph.rules.wheel import LINE, UNITS_PER_DEGREE


def tt_jd(instant: datetime) -> float:
    """TT Julian date of an aware instant, as the charts convert it."""
    tt = utc_to_tt([instant])
    return float(tt.whole[0] + tt.fraction[0])


def longitude(body: Body, jd: float) -> float:
    return float(swe.calc(jd, SWISS_IDS[body], FLAGS)[0][0])


def speed_arcsec_per_s(body: Body, jd: float) -> float:
    return abs(float(swe.calc(jd, SWISS_IDS[body], FLAGS | swe.FLG_SPEED)[0][3])) * 3600 / 86400


def crossing_jd(body: Body, target: float, near: float, span_s: float = 120.0) -> float:
    """TT Julian date at which swisseph's ``body`` is at ``target`` degrees, within
    ``span_s`` seconds of ``near`` (one crossing there)."""

    def error(jd: float) -> float:
        return (longitude(body, jd) - target + 180.0) % 360.0 - 180.0

    low, high = near - span_s / 86400, near + span_s / 86400
    rising = error(low) < 0
    assert rising == (error(high) > 0), "no single crossing near the instant"
    while high - low > 1e-9:
        middle = (low + high) / 2
        if (error(middle) < 0) == rising:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def nearest_boundary(lon: float, width: int = LINE) -> float:
    """The wheel boundary (gate or line) nearest a longitude, in degrees."""
    k = round((lon * UNITS_PER_DEGREE - WHEEL_OFFSET) / width)
    return float((WHEEL_OFFSET + k * width) / UNITS_PER_DEGREE % 360.0)


def allowed_seconds(body: Body, jd: float) -> float:
    """How far the two theories' instants may differ: their longitude tolerance over
    the body's speed."""
    return TOLERANCE_ARCSEC[body] / speed_arcsec_per_s(body, jd) + 0.01
