"""A place's description in readable text: the compass words and the decimal mark of the
language (catalog entries of context ``cli``); English as before; JSON keeps English."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import bodygraph
from bodygraph.catalog.numbers import number_text
from bodygraph.catalog.translations import LANGUAGES, catalog
from bodygraph.geo.places.base import HEMISPHERES, WITH_COORDINATES, Place

BERLIN = Place("Berlin", 52.52437, 13.41053, country="Germany")
RIO = Place("Rio de Janeiro", -22.90642, -43.18223, country="Brazil")


def _expected(place: Place, lang: str) -> str:
    tr = catalog(lang)
    lat = tr.pgettext("cli", HEMISPHERES["N" if place.lat >= 0 else "S"]).format(
        degrees=number_text(abs(place.lat), lang, 4))
    lng = tr.pgettext("cli", HEMISPHERES["E" if place.lng >= 0 else "W"]).format(
        degrees=number_text(abs(place.lng), lang, 4))
    return tr.pgettext("cli", WITH_COORDINATES).format(place=place.label, latitude=lat,
                                                       longitude=lng)


def test_english_is_as_before() -> None:
    assert BERLIN.describe() == "Berlin, Germany (52.5244° N, 13.4105° E)"
    assert RIO.describe("en") == "Rio de Janeiro, Brazil (22.9064° S, 43.1822° W)"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_writes_its_hemispheres_and_decimal_mark(lang: str) -> None:
    for place in (BERLIN, RIO):
        said = place.describe(lang)
        assert said == _expected(place, lang)
        mark = catalog(lang).pgettext("number", ".")
        assert f"52{mark}5244" in said or f"22{mark}9064" in said


def test_the_usual_abbreviations() -> None:
    assert BERLIN.describe("de") == "Berlin, Germany (52,5244° N, 13,4105° O)"
    assert RIO.describe("pt").endswith("(22,9064° S, 43,1822° O)")
    assert BERLIN.describe("pt").endswith("13,4105° L)")
    assert BERLIN.describe("nl").endswith("13,4105° O)")
    assert RIO.describe("fr").endswith("43,1822° O)")
    assert BERLIN.describe("ru").endswith("(52,5244° с. ш., 13,4105° в. д.)")  # noqa: RUF001
    assert RIO.describe("ru").endswith("(22,9064° ю. ш., 43,1822° з. д.)")
    assert BERLIN.describe("ja") == "Berlin, Germany（北緯52.5244°、東経13.4105°）"  # noqa: RUF001
    assert RIO.describe("zh-Hans") == "Rio de Janeiro, Brazil（南纬22.9064°，西经43.1822°）"  # noqa: RUF001


def test_the_mcp_summary_says_the_place_in_the_language_and_its_json_in_english() -> None:
    from bodygraph_mcp.birth import Birth, BirthInfo
    from bodygraph_mcp.results import summary

    chart = bodygraph.calculate(datetime(1980, 1, 3, 7, 30, tzinfo=UTC))
    info = BirthInfo(utc="1980-01-03T07:30:00Z", local="1980-01-03T08:30:00+01:00",
                     zone="Europe/Berlin", place=BERLIN.describe(), lat=BERLIN.lat,
                     lng=BERLIN.lng, wallTime="unique", placeNote=None)
    said = summary(Birth(chart, info, BERLIN), "ru")
    assert BERLIN.describe("ru") in said
    assert info["place"] == "Berlin, Germany (52.5244° N, 13.4105° E)"
