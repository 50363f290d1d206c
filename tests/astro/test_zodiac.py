"""Zodiac positions, retrograde flags, angles and house cusps against the Swiss Ephemeris
(at the same instants: TT for the bodies, UT1 for the houses), on random births and places
including high latitudes and the southern hemisphere."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
import swisseph as swe  # type: ignore[import-not-found]
from core.swiss_reference import (
    FLAGS,
    MEAN_NODE_TOLERANCE_ARCSEC,
    OPPOSITE,
    SWISS_IDS,
    TOLERANCE_ARCSEC,
    random_instants,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from bodygraph._time import utc_to_tt
from bodygraph.calculator import default_calculator
from bodygraph.ephemeris.sidereal import apparent_sidereal_frame
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import BODIES, Body
from bodygraph.relations.astro import astro, astro_table
from bodygraph.rules.houses import placidus_defined
from bodygraph.rules.zodiac import SIGNS, zodiac_parts
from bodygraph.testing import birth_instants

#: Angles and cusps within this of the Swiss Ephemeris, arcseconds (1850-2050: outside,
#: it changes to its own long-term sidereal time; docs/accuracy.md).
ANGLE_TOLERANCE_ARCSEC = 1.0
#: Bodies slower than this (degrees per day) are at a station: the sign of the speed is
#: left unchecked there.
STATION_SPEED = 0.01
#: Speeds (degrees per day) within this of the Swiss Ephemeris' (Saturn's differs most).
SPEED_TOLERANCE = 0.002


def _wrap_arcsec(ours: float, theirs: float) -> float:
    return abs((ours - theirs + 180.0) % 360.0 - 180.0) * 3600.0


def _swiss(tt_jd: float, body: Body, node: str) -> tuple[float, float]:
    source = OPPOSITE.get(body, body)
    ident = SWISS_IDS.get(source, swe.TRUE_NODE if node == "true" else swe.MEAN_NODE)
    position = swe.calc(tt_jd, ident, FLAGS | swe.FLG_SPEED)[0]
    return (position[0] + (180.0 if body in OPPOSITE else 0.0)) % 360.0, position[3]


@pytest.mark.parametrize("node", ["true", "mean"])
def test_signs_degrees_and_retrograde_flags_match_the_swiss_ephemeris(node: str) -> None:
    births = random_instants(60, 27, datetime(1801, 1, 1, tzinfo=UTC),
                             datetime(2199, 1, 1, tzinfo=UTC))
    table = astro_table(births, node=node)  # type: ignore[arg-type]
    epochs = default_calculator(None).epochs(births, node)  # type: ignore[arg-type]
    checked_flags = 0
    for n in range(len(births)):
        for s, tt in enumerate((epochs.birth, epochs.design)):
            tt_jd = float(tt.whole[n] + tt.fraction[n])
            for b, body in enumerate(BODIES):
                longitude, speed = _swiss(tt_jd, body, node)
                source = OPPOSITE.get(body, body)
                tolerance = (MEAN_NODE_TOLERANCE_ARCSEC if node == "mean"
                             and source is Body.NORTH_NODE else TOLERANCE_ARCSEC[source]) + 30
                ours = float(table.longitude[s, b, n])
                assert _wrap_arcsec(ours, longitude) <= tolerance, (births[n], body)
                parts = [int(p[s, b, n]) for p in (table.sign, table.degree, table.minute,
                                                  table.second)]
                assert parts == [int(p[0]) for p in zodiac_parts(np.array([ours]))]
                assert abs((parts[0] * 30 + parts[1] + parts[2] / 60 + parts[3] / 3600)
                           - ours % 360) < 1 / 3600
                if abs(speed) > STATION_SPEED:
                    assert bool(table.retrograde[s, b, n]) == (speed < 0), (births[n], body)
                    checked_flags += 1
                if source is not Body.NORTH_NODE:
                    assert abs(float(table.speed[s, b, n]) - speed) < SPEED_TOLERANCE
    assert checked_flags > 0.9 * len(births) * 26
    assert not table.retrograde[:, :2].any()  # the sun and the earth never
    if node == "mean":
        assert table.retrograde[:, 2:4].all()  # the mean node always


def test_the_issue_example() -> None:
    data = astro(datetime(1980, 1, 3, 8, 30, tzinfo=UTC)).to_dict()
    sun = data["activations"]["personality"]["sun"]
    assert sun == {"gateLine": "38.3", "longitude": pytest.approx(282.1137, abs=1e-4),
                   "sign": "Capricorn", "degree": 12, "minute": 6, "second": 49,
                   "retrograde": False}
    assert data["angles"] is None and data["houses"] is None
    assert data["activations"]["personality"]["northNode"]["retrograde"] is True


def _swiss_houses(ut1: float, lat: float, lng: float, system: bytes
                  ) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    try:
        cusps, ascmc = swe.houses_ex(ut1, lat, lng, system)
    except swe.Error:  # Placidus beyond the polar circles
        return None
    return tuple(cusps), tuple(ascmc)


@pytest.mark.parametrize("houses", ["placidus", "whole-sign"])
def test_angles_and_cusps_match_the_swiss_ephemeris(houses: str) -> None:
    rng = np.random.default_rng(28)
    births = random_instants(400, 28, datetime(1850, 1, 2, tzinfo=UTC),
                             datetime(2049, 12, 30, tzinfo=UTC))
    lat = np.concatenate([rng.uniform(-89.5, 89.5, 200), rng.uniform(-66.4, 66.4, 150),
                          rng.choice([-1, 1], 50) * rng.uniform(60, 66.3, 50)])
    lng = rng.uniform(-180, 180, len(births))
    table = astro_table(births, lat, lng, houses=houses)
    assert table.ascendant is not None and table.midheaven is not None
    assert table.cusps is not None and table.placidus is not None
    _, _, ut1 = apparent_sidereal_frame(utc_to_tt(births))
    polar = 0
    for n in range(len(births)):
        placidus = _swiss_houses(float(ut1[n]), float(lat[n]), float(lng[n]), b"P")
        whole = _swiss_houses(float(ut1[n]), float(lat[n]), float(lng[n]), b"W")
        assert whole is not None
        angles = whole[1]
        assert _wrap_arcsec(float(table.ascendant[n]), angles[0]) < ANGLE_TOLERANCE_ARCSEC
        assert _wrap_arcsec(float(table.midheaven[n]), angles[1]) < ANGLE_TOLERANCE_ARCSEC
        if houses == "placidus":
            assert bool(table.placidus[n]) == (placidus is not None), lat[n]
        expected = placidus if houses == "placidus" and placidus is not None else whole
        if houses == "placidus" and placidus is None:
            polar += 1
            assert table.note(n) is not None and "whole-sign" in str(table.note(n))
            assert table.to_dict(n)["houses"]["system"] == "whole-sign"
        else:
            assert table.note(n) is None
        for ours, theirs in zip(table.cusps[:, n].tolist(), expected[0], strict=True):
            assert _wrap_arcsec(ours, theirs) < ANGLE_TOLERANCE_ARCSEC, (births[n], lat[n])
    assert houses == "whole-sign" or polar > 20


def test_sidereal_time_matches_skyfield_over_the_whole_range() -> None:
    births = random_instants(500, 29, datetime(1800, 4, 4, tzinfo=UTC),
                             datetime(2199, 12, 30, tzinfo=UTC))
    tt = utc_to_tt(births)
    gast, obliquity, _ = apparent_sidereal_frame(tt)
    t = tt.time()
    difference = (gast - np.asarray(t.gast) * 15.0 + 180.0) % 360.0 - 180.0
    assert np.max(np.abs(difference)) * 3600 < 0.01
    from skyfield.nutationlib import iau2000a_radians, mean_obliquity

    true_obliquity = mean_obliquity(t.tdb) / 3600.0 + np.degrees(iau2000a_radians(t)[1])
    assert np.max(np.abs(obliquity - true_obliquity)) * 3600 < 0.01


def test_placidus_is_refused_exactly_beyond_the_polar_circles() -> None:
    obliquity = np.array([23.44, 23.44, 23.44, 23.44])
    assert placidus_defined(obliquity, np.array([66.5, -66.5, 66.6, -70.0])).tolist() == \
        [True, True, False, False]


@settings(max_examples=25, deadline=None)
@given(birth_instants(), st.floats(-89.9, 89.9), st.floats(-180, 180),
       st.sampled_from(["placidus", "whole-sign"]))
def test_one_chart_is_a_table_of_one_and_deterministic(
        instant: datetime, lat: float, lng: float, houses: str) -> None:
    one = astro(instant, lat, lng, houses=houses).to_dict()
    assert one == astro(instant, lat, lng, houses=houses).to_dict()
    many = astro_table([instant, instant], [lat, 0.0], [lng, 0.0], houses=houses)
    assert many.to_dict(0) == one
    assert all(body["sign"] in SIGNS for side in one["activations"].values()
               for body in side.values())
    cusps = one["houses"]["cusps"]
    assert len(cusps) == 12 and cusps[0] == pytest.approx(
        one["angles"]["ascendant"] if one["houses"]["system"] == "placidus"
        else one["angles"]["ascendant"] // 30 * 30)


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"lat": 91.0, "lng": 0.0}, "outside -90 to 90"),
    ({"lat": 90.0, "lng": 0.0}, "poles"),
    ({"lat": 10.0, "lng": 181.0}, "outside -180 to 180"),
    ({"lat": 10.0}, "together"),
    ({"lat": 10.0, "lng": 0.0, "houses": "koch"}, "unknown house system"),
])
def test_bad_places_and_systems_are_refused(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(InvalidOptionError, match=words):
        astro(datetime(1980, 1, 3, 8, 30, tzinfo=UTC), **kwargs)  # type: ignore[arg-type]
