"""The offline gazetteer against facts known independently of it (atlas coordinates)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bodygraph.geo.places import (
    InvalidLocationError,
    LocationNotFoundError,
    OfflineGeocoder,
    Place,
    default_geocoder,
    geocoder_for,
)
from bodygraph.geo.places.names import fold, parse_query
from bodygraph_server.http.errors import from_library_error

# (query, ISO country, latitude, longitude): coordinates of each city centre from
# an atlas, to a hundredth of a degree; a gazetteer point within 0.25 degrees is the city.
CITIES = [
    # Europe
    ("Berlin", "DE", 52.52, 13.40),
    ("Berlin, Germany", "DE", 52.52, 13.40),
    ("München", "DE", 48.14, 11.58),
    ("muenchen, deutschland", "DE", 48.14, 11.58),
    ("Paris, France", "FR", 48.86, 2.35),
    ("London, UK", "GB", 51.51, -0.13),
    ("Madrid", "ES", 40.42, -3.70),
    ("Roma, Italia", "IT", 41.89, 12.48),
    ("Wien", "AT", 48.21, 16.37),
    ("Warszawa", "PL", 52.23, 21.01),
    ("Łódź", "PL", 51.76, 19.46),
    ("Lodz, Poland", "PL", 51.76, 19.46),
    ("Kraków", "PL", 50.06, 19.94),
    ("Zurich, Switzerland", "CH", 47.38, 8.54),
    ("København", "DK", 55.68, 12.57),
    ("Reykjavik", "IS", 64.15, -21.94),
    ("Αθήνα", "GR", 37.98, 23.73),
    ("Москва", "RU", 55.76, 37.62),
    ("Київ", "UA", 50.45, 30.52),
    ("Istanbul, Turkey", "TR", 41.01, 28.98),
    ("Lisboa", "PT", 38.72, -9.14),
    ("Dublin, Ireland", "IE", 53.35, -6.26),
    # Americas
    ("New York, NY, USA", "US", 40.71, -74.01),
    ("Los Angeles", "US", 34.05, -118.24),
    ("Chicago, Illinois", "US", 41.88, -87.63),
    ("Toronto, Canada", "CA", 43.65, -79.38),
    ("Montréal", "CA", 45.50, -73.57),
    ("Ciudad de México", "MX", 19.43, -99.13),
    ("São Paulo, Brazil", "BR", -23.55, -46.63),
    ("Sao Paulo", "BR", -23.55, -46.63),
    ("Buenos Aires, Argentina", "AR", -34.60, -58.38),
    ("Bogotá", "CO", 4.71, -74.07),
    ("Lima, Peru", "PE", -12.05, -77.04),
    ("Honolulu", "US", 21.31, -157.86),
    ("Anchorage, AK", "US", 61.22, -149.90),
    # Asia
    ("東京", "JP", 35.69, 139.69),
    ("Tokyo, Japan", "JP", 35.69, 139.69),
    ("서울", "KR", 37.57, 126.98),
    ("北京", "CN", 39.90, 116.41),
    ("Mumbai", "IN", 19.08, 72.88),
    ("Bangkok", "TH", 13.76, 100.50),
    ("Tehran, Iran", "IR", 35.69, 51.39),
    ("Tel Aviv", "IL", 32.09, 34.78),
    ("Jakarta", "ID", -6.21, 106.85),
    # Africa
    ("القاهرة", "EG", 30.04, 31.24),
    ("Lagos, Nigeria", "NG", 6.52, 3.38),
    ("Nairobi", "KE", -1.29, 36.82),
    ("Cape Town, South Africa", "ZA", -33.92, 18.42),
    ("Addis Ababa", "ET", 9.03, 38.75),
    ("Casablanca", "MA", 33.57, -7.59),
    # Oceania
    ("Sydney, NSW, Australia", "AU", -33.87, 151.21),
    ("Melbourne, Australia", "AU", -37.81, 144.96),
    ("Auckland", "NZ", -36.85, 174.76),
    ("Apia, Samoa", "WS", -13.83, -171.77),
    # small places, only in the fuller dataset (under 15,000 people)
    ("Oberammergau, Germany", "DE", 47.60, 11.07),
    ("Rothenburg ob der Tauber", "DE", 49.38, 10.18),
    ("Saint-Emilion, France", "FR", 44.89, -0.16),
    ("Zermatt", "CH", 46.02, 7.75),
]

# ambiguous names: (query, ISO country, latitude, longitude) of the place a reader means
AMBIGUOUS = [
    ("Paris", "FR", 48.86, 2.35),  # not Paris, Texas
    ("Paris, Texas", "US", 33.66, -95.56),
    ("Paris, TX", "US", 33.66, -95.56),
    ("London", "GB", 51.51, -0.13),  # not London, Ontario
    ("London, Ontario, Canada", "CA", 42.98, -81.25),
    ("Portland", "US", 45.52, -122.68),  # Oregon, the larger
    ("Portland, Maine", "US", 43.66, -70.26),
    ("Birmingham", "GB", 52.48, -1.90),
    ("Birmingham, AL", "US", 33.52, -86.80),
    ("Córdoba", "AR", -31.42, -64.18),
    ("Cordoba, Spain", "ES", 37.88, -4.78),
    ("Perth", "AU", -31.95, 115.86),
    ("Perth, Scotland", "GB", 56.40, -3.43),
    ("Perth, WA, Australia", "AU", -31.95, 115.86),
    ("Tbilisi, Georgia", "GE", 41.69, 44.83),
    ("Atlanta, Georgia", "US", 33.75, -84.39),
    ("Springfield, Illinois, USA", "US", 39.80, -89.64),
    ("Springfield, MA", "US", 42.10, -72.59),
    ("Alexandria", "EG", 31.20, 29.92),
    ("Alexandria, Virginia", "US", 38.80, -77.05),
    ("Venice", "IT", 45.44, 12.33),
    ("Cologne", "DE", 50.94, 6.96),
    ("Mexico", "MX", 19.43, -99.13),
    ("Berlin Germany", "DE", 52.52, 13.40),
]


@pytest.fixture(scope="module")
def gazetteer() -> OfflineGeocoder:
    return OfflineGeocoder()


def _near(place: Place, lat: float, lng: float, tolerance: float = 0.25) -> bool:
    return math.hypot(place.lat - lat, place.lng - lng) <= tolerance


@pytest.mark.parametrize(("query", "country", "lat", "lng"), CITIES)
def test_real_cities_land_at_their_atlas_coordinates(gazetteer, query, country, lat, lng):
    place = gazetteer.geocode(query)
    assert place.country_code == country, place.describe()
    assert _near(place, lat, lng), place.describe()
    assert place.source == "offline"


def test_the_city_list_spans_continents_and_scripts():
    scripts = {"latin" if q.isascii() or fold(q).isascii() else q for q, *_ in CITIES}
    assert len(CITIES) >= 30
    assert len(scripts) >= 8  # Latin, Greek, Cyrillic (2), CJK (2), Hangul, Arabic


@pytest.mark.parametrize(("query", "country", "lat", "lng"), AMBIGUOUS)
def test_ambiguous_names_pick_the_place_meant(gazetteer, query, country, lat, lng):
    place = gazetteer.geocode(query)
    assert place.country_code == country, place.describe()
    assert _near(place, lat, lng), place.describe()


def test_the_region_is_named_in_the_description_for_us_places(gazetteer):
    text = gazetteer.geocode("Springfield, Illinois").describe()
    assert text.startswith("Springfield, Illinois, United States (39.")
    assert text.endswith("° W)")


def test_a_name_several_places_share_names_the_others(gazetteer):
    place = gazetteer.geocode("Springfield")
    assert place.label == "Springfield, Missouri, United States"
    assert place.others[:2] == ("Springfield, Massachusetts, United States",
                                "Springfield, Illinois, United States")
    assert len(place.others) == 5 and place.label not in place.others
    note = place.ambiguity()
    assert note is not None
    assert note.startswith("several places are called Springfield: took Springfield, "
                           "Missouri, United States (the most populous); others: Springfield, "
                           "Massachusetts, United States; Springfield, Illinois")
    assert note.endswith('add the region or country to choose one, e.g. "Springfield, '
                         'Massachusetts, United States"')
    for other in place.others:  # each is a text that picks that place
        chosen = gazetteer.geocode(other)
        assert (chosen.label, chosen.others) == (other, ())
    assert gazetteer.geocode("Portland").others == ("Portland, Maine, United States",)


@pytest.mark.parametrize("query", ["Berlin", "Paris", "London", "Springfield, Illinois",
                                   "Cologne", "Springfield, Massachusetts, United States"])
def test_a_name_one_place_clearly_has_names_no_others(gazetteer, query):
    place = gazetteer.geocode(query)
    assert place.others == () and place.ambiguity() is None


def test_a_misspelling_finds_nothing_and_lists_close_matches(gazetteer):
    with pytest.raises(LocationNotFoundError) as caught:
        gazetteer.geocode("Amsterdma, Netherlands")
    error = caught.value
    assert from_library_error(error).code == "GEOCODE_LOCATION_NOT_FOUND"
    assert error.query == "Amsterdma, Netherlands"
    assert error.suggestions[0] == "Amsterdam, The Netherlands"
    assert all("Netherlands" in s for s in error.suggestions)
    assert "Amsterdam, The Netherlands" in str(error)


def test_a_misspelling_without_country_suggests_the_big_city_first(gazetteer):
    with pytest.raises(LocationNotFoundError) as caught:
        gazetteer.geocode("Berlni")
    assert caught.value.suggestions[0] == "Berlin, Germany"
    assert 1 < len(caught.value.suggestions) <= 5


def test_a_name_outside_the_country_asked_lists_where_it_is(gazetteer):
    with pytest.raises(LocationNotFoundError) as caught:
        gazetteer.geocode("Berlin, Spain")
    assert "Spain" in str(caught.value)
    assert caught.value.suggestions[0] == "Berlin, Germany"


def test_gibberish_finds_nothing_and_suggests_nothing(gazetteer):
    with pytest.raises(LocationNotFoundError) as caught:
        gazetteer.geocode("Qxzvkjwqpl")
    assert caught.value.suggestions == ()


def test_small_places_need_the_fuller_dataset():
    with pytest.raises(LocationNotFoundError):
        OfflineGeocoder(min_population=15000).geocode("Oberammergau, Germany")


@pytest.mark.parametrize("query", ["", "   ", ", ,"])
def test_blank_queries_are_invalid_locations(gazetteer, query):
    with pytest.raises(InvalidLocationError) as caught:
        gazetteer.geocode(query)
    assert from_library_error(caught.value).code == "INVALID_LOCATION"


def test_geocoder_for_offline_is_shared_and_ignores_a_key():
    assert geocoder_for("offline") is default_geocoder()
    assert geocoder_for("offline", "some-key") is default_geocoder()
    with pytest.raises(ValueError, match="unknown geocoder"):
        geocoder_for("bing")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        OfflineGeocoder(min_population=2000)  # type: ignore[arg-type]


def test_repeated_lookups_are_fast_and_equal(gazetteer):

    first = gazetteer.geocode("Kraków, Poland")
    for _ in range(200):
        assert gazetteer.geocode("Kraków, Poland") == first


_CASES = st.sampled_from([q for q, *_ in CITIES if "," in q or q.isascii()])


@settings(max_examples=60, deadline=None)
@given(query=_CASES, upper=st.booleans(), pad=st.sampled_from(["", " ", "  "]))
def test_case_and_spacing_do_not_matter(gazetteer, query, upper, pad):
    variant = pad + (query.upper() if upper else query.lower()) + pad
    assert gazetteer.geocode(variant) == gazetteer.geocode(query)


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=30))
def test_fold_is_idempotent_and_ignores_case(text):
    folded = fold(text)
    assert fold(folded) == folded
    assert fold(text.upper()) == fold(text.lower()) or not text.isascii()
    assert folded == folded.strip()


@pytest.mark.parametrize(("a", "b"), [
    ("Saint-Étienne", "saint etienne"),
    ("KØBENHAVN", "kobenhavn"),
    ("Łódź", "lodz"),
    ("Straße", "strasse"),
    ("İstanbul", "istanbul"),
    ("St. Louis", "st louis"),
    ("Ho Chi Minh  City", "ho-chi-minh city"),
    ("Αθήνα", "αθηνα"),
])
def test_fold_equates_spellings(a, b):
    assert fold(a) == fold(b)


def test_parse_query_reads_the_parts():
    [reading] = parse_query("Springfield, Illinois, USA")
    assert reading.city == "springfield"
    assert [c.text for c in reading.constraints] == ["USA", "Illinois"]
    [reading] = parse_query("Munich, Bavaria, Germany")
    assert [c.text for c in reading.constraints] == ["Germany"]  # Bavaria: not checkable
