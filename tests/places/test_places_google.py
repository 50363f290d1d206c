"""The real geopy GoogleV3 client against a local server that answers like Google."""

from __future__ import annotations

import logging
import time

import pytest

from bodygraph.geo.places import (
    GeocodeFailedError,
    GeocodeKeyInvalidError,
    GeocodeKeyMissingError,
    GeocodeRateLimitedError,
    GoogleGeocoder,
    InvalidLocationError,
    LocationNotFoundError,
    geocoder_for,
)
from bodygraph_server.http.errors import from_library_error

KEY = "AIzaSy-test-key-0123456789_abcdef"


@pytest.fixture
def geocoder(google_server):
    return GoogleGeocoder(KEY, domain=google_server.domain, scheme="http", timeout=0.5)


def berlin(google_result):
    return {
        "status": "OK",
        "results": [google_result("Berlin", 52.5200066, 13.404954, country="Germany",
                                  country_code="DE", region="Berlin")],
    }


def test_ok_gives_the_place_and_sends_the_key_only_as_the_key_parameter(
    google_server, geocoder, google_result, caplog
):
    caplog.set_level(logging.DEBUG)
    google_server.respond(berlin(google_result))
    place = geocoder.geocode("Berlin, Germany")
    assert (place.name, place.country, place.country_code, place.region) == (
        "Berlin", "Germany", "DE", "Berlin")
    assert (place.lat, place.lng) == (52.5200066, 13.404954)
    assert place.source == "google"
    assert place.describe() == "Berlin, Germany (52.5200° N, 13.4050° E)"

    [request] = google_server.received
    assert request.path == "/maps/api/geocode/json"
    assert request.query["key"] == [KEY]
    assert request.query["address"] == ["Berlin, Germany"]
    others = {name: values for name, values in request.query.items() if name != "key"}
    assert KEY not in repr(others)
    assert KEY not in request.path
    assert all(KEY not in value for value in request.headers.values())
    # geopy logs the request URL; the log must show the placeholder, never the key
    assert "geocode" in caplog.text
    assert KEY not in caplog.text
    assert KEY not in repr(geocoder)


def test_a_key_with_reserved_characters_arrives_intact(google_server, google_result):
    key = "k+y/with=odd&chars?"
    geocoder = GoogleGeocoder(key, domain=google_server.domain, scheme="http", timeout=0.5)
    google_server.respond(berlin(google_result))
    geocoder.geocode("Berlin")
    assert google_server.received[0].query["key"] == [key]


def test_zero_results_is_location_not_found(google_server, geocoder):
    google_server.respond({"status": "ZERO_RESULTS", "results": []})
    with pytest.raises(LocationNotFoundError) as caught:
        geocoder.geocode("Nowhere-at-all")
    assert from_library_error(caught.value).code == "GEOCODE_LOCATION_NOT_FOUND"
    assert caught.value.suggestions == ()
    assert len(google_server.received) == 1


@pytest.mark.parametrize("message", [
    "The provided API key is invalid.",
    "This API project is not authorized to use this API.",
    None,
])
def test_request_denied_is_key_invalid_and_not_retried(google_server, geocoder, message, caplog):
    caplog.set_level(logging.DEBUG)
    payload = {"status": "REQUEST_DENIED", "results": []}
    if message:
        payload["error_message"] = message
    google_server.respond(payload)
    with pytest.raises(GeocodeKeyInvalidError) as caught:
        geocoder.geocode("Berlin")
    assert from_library_error(caught.value).code == "GEOCODE_KEY_INVALID"
    assert KEY not in str(caught.value)
    assert KEY not in caplog.text
    assert len(google_server.received) == 1


@pytest.mark.parametrize("status", ["OVER_QUERY_LIMIT", "OVER_DAILY_LIMIT"])
def test_over_query_limit_is_rate_limited(google_server, geocoder, status):
    google_server.respond({"status": status, "results": [],
                           "error_message": "You have exceeded your rate-limit for this API."})
    with pytest.raises(GeocodeRateLimitedError) as caught:
        geocoder.geocode("Berlin")
    assert from_library_error(caught.value).code == "GEOCODE_RATE_LIMITED"
    assert len(google_server.received) == 1


def test_http_429_is_rate_limited_with_retry_after(google_server, geocoder):
    google_server.respond({"status": "OVER_QUERY_LIMIT"}, status=429,
                          headers={"Retry-After": "7"})
    with pytest.raises(GeocodeRateLimitedError) as caught:
        geocoder.geocode("Berlin")
    assert caught.value.retry_after == 7
    assert len(google_server.received) == 1


@pytest.mark.parametrize("status", [401, 403])
def test_http_auth_refusals_are_key_invalid(google_server, geocoder, status):
    google_server.respond({"error": "denied"}, status=status)
    with pytest.raises(GeocodeKeyInvalidError):
        geocoder.geocode("Berlin")
    assert len(google_server.received) == 1


@pytest.mark.parametrize("payload", [
    {"status": "INVALID_REQUEST", "results": [], "error_message": "Invalid request."},
    {"status": "UNKNOWN_ERROR", "results": []},
    {"status": "SOMETHING_NEW", "results": []},
])
def test_other_statuses_are_geocode_failed(google_server, geocoder, payload):
    google_server.respond(payload)
    with pytest.raises(GeocodeFailedError) as caught:
        geocoder.geocode("Berlin")
    assert from_library_error(caught.value).code == "GEOCODE_FAILED"
    assert not isinstance(caught.value, (GeocodeKeyInvalidError, GeocodeRateLimitedError))
    assert len(google_server.received) == 1


@pytest.mark.parametrize("status", [400, 500, 502, 503])
def test_http_errors_are_geocode_failed_without_retry(google_server, geocoder, status):
    google_server.respond(body=b"<html>Server Error</html>", status=status)
    with pytest.raises(GeocodeFailedError) as caught:
        geocoder.geocode("Berlin")
    assert type(caught.value) is GeocodeFailedError
    assert len(google_server.received) == 1


@pytest.mark.parametrize("body", [
    b"this is not JSON {",
    b"",
    b"[1, 2, 3]",
    b'{"status": "OK", "results": [{"geometry": {}}]}',
    b'{"status": "OK", "results": [{"geometry": {"location": {"lat": "north", "lng": 1}}}]}',
    b'{"status": "OK", "results": [{"geometry": {"location": {"lat": 91.5, "lng": 1}}}]}',
    b'{"status": "OK", "results": "nope"}',
])
def test_malformed_bodies_are_geocode_failed(google_server, geocoder, body):
    google_server.respond(body=body)
    with pytest.raises(GeocodeFailedError) as caught:
        geocoder.geocode("Berlin")
    assert type(caught.value) is GeocodeFailedError


def test_a_reply_slower_than_the_time_out_is_geocode_failed(google_server, geocoder):
    google_server.respond({"status": "OK", "results": []}, delay=3.0)
    started = time.monotonic()
    with pytest.raises(GeocodeFailedError) as caught:
        geocoder.geocode("Berlin")
    elapsed = time.monotonic() - started
    assert 0.4 <= elapsed < 2.0
    assert "0.5 s" in str(caught.value)
    assert len(google_server.received) == 1


def test_no_server_listening_is_geocode_failed(google_server):
    closed_port = google_server.domain
    google_server.stop()
    geocoder = GoogleGeocoder(KEY, domain=closed_port, scheme="http", timeout=0.5)
    with pytest.raises(GeocodeFailedError) as caught:
        geocoder.geocode("Berlin")
    assert KEY not in str(caught.value)
    assert str(caught.value) == (
        f"could not reach the geocoding service at {closed_port} (connection refused)")


def test_a_name_that_does_not_resolve_is_said_in_words() -> None:
    geocoder = GoogleGeocoder(KEY, domain="geocoding.invalid", scheme="http", timeout=5)
    with pytest.raises(GeocodeFailedError) as caught:
        geocoder.geocode("Berlin")
    assert str(caught.value) == (
        "could not reach the geocoding service at geocoding.invalid (name lookup failed)")


def test_the_place_takes_its_parts_from_the_address_components(google_server, google_result):
    result = google_result("Springfield", 39.7817213, -89.6501481, country="United States",
                           country_code="US", region="Illinois")
    google_server.respond({"status": "OK", "results": [result]})
    geocoder = GoogleGeocoder(KEY, domain=google_server.domain, scheme="http")
    place = geocoder.geocode("Springfield, IL")
    assert place.describe() == "Springfield, Illinois, United States (39.7817° N, 89.6501° W)"
    assert place.identifier == result["place_id"]


def test_a_result_without_components_is_named_by_its_address(google_server):
    google_server.respond({"status": "OK", "results": [{
        "formatted_address": "Atlantic Ocean",
        "geometry": {"location": {"lat": 0.0, "lng": -30.0}},
    }]})
    geocoder = GoogleGeocoder(KEY, domain=google_server.domain, scheme="http")
    place = geocoder.geocode("Atlantic Ocean")
    assert (place.name, place.country, place.lat, place.lng) == (
        "Atlantic Ocean", None, 0.0, -30.0)


def test_keys_are_required_and_queries_must_not_be_blank(google_server):
    with pytest.raises(GeocodeKeyMissingError) as caught:
        GoogleGeocoder("  ")
    assert from_library_error(caught.value).code == "GEOCODE_KEY_MISSING"
    with pytest.raises(GeocodeKeyMissingError):
        geocoder_for("google", None)
    geocoder = GoogleGeocoder(KEY, domain=google_server.domain, scheme="http")
    with pytest.raises(InvalidLocationError):
        geocoder.geocode("   ")
    assert google_server.received == []


def test_geocoder_for_google_uses_the_real_endpoint_by_default():
    geocoder = geocoder_for("google", KEY, timeout=2.0)
    assert isinstance(geocoder, GoogleGeocoder)
    assert geocoder.endpoint == "https://maps.googleapis.com/maps/api/geocode/json"
    assert KEY not in repr(geocoder)


def test_one_key_per_geocoder_even_when_used_side_by_side(google_server, google_result):
    google_server.respond(berlin(google_result))
    first = GoogleGeocoder("first-key", domain=google_server.domain, scheme="http")
    second = GoogleGeocoder("second-key", domain=google_server.domain, scheme="http")
    first.geocode("Berlin")
    second.geocode("Berlin")
    first.geocode("Berlin")
    assert [r.query["key"] for r in google_server.received] == [
        ["first-key"], ["second-key"], ["first-key"]]


def test_request_denied_in_an_http_200_reply_is_key_invalid(google_server, geocoder):
    """Google refuses a key with HTTP 200 and ``status: REQUEST_DENIED`` in the body.

    geopy on its own reads that reply as a query error (which would be GEOCODE_FAILED);
    the adapter must turn it into GEOCODE_KEY_INVALID.
    """
    from geopy.exc import GeocoderQueryError
    from geopy.geocoders import GoogleV3

    reply = {"error_message": "The provided API key is invalid. ", "results": [],
             "status": "REQUEST_DENIED"}
    google_server.respond(reply, status=200)
    plain = GoogleV3(api_key="k", domain=google_server.domain, scheme="http", timeout=0.5)
    with pytest.raises(GeocoderQueryError):
        plain.geocode("Berlin")
    with pytest.raises(GeocodeKeyInvalidError) as caught:
        geocoder.geocode("Berlin")
    assert from_library_error(caught.value).code == "GEOCODE_KEY_INVALID"
    assert google_server.reply.status == 200
    assert len(google_server.received) == 2
