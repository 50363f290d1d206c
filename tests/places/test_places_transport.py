"""The keyed transport with another geopy provider, as docs/places.md describes it."""

from __future__ import annotations

import logging

import pytest
from geopy.geocoders import MapBox

from bodygraph.geo.places import GeocodeFailedError
from bodygraph.geo.places.transport import PLACEHOLDER, keyed_adapter, with_key


def test_another_provider_gets_the_key_in_its_own_parameter(google_server, caplog):
    caplog.set_level(logging.DEBUG)
    google_server.respond({"type": "FeatureCollection", "features": [
        {"place_name": "Berlin, Germany",
         "geometry": {"type": "Point", "coordinates": [13.3888, 52.5170]}}]})
    geocoder = MapBox(api_key=PLACEHOLDER, scheme="http", domain=google_server.domain,
                      timeout=1.0, adapter_factory=keyed_adapter("mapbox-token", "access_token"))
    location = geocoder.geocode("Berlin")
    assert (location.latitude, location.longitude) == (52.5170, 13.3888)
    [request] = google_server.received
    assert request.query["access_token"] == ["mapbox-token"]
    assert PLACEHOLDER in caplog.text  # geopy logged the URL it built ...
    assert "mapbox-token" not in caplog.text  # ... which never held the key


def test_with_key_replaces_only_the_placeholder():
    url = f"https://example.test/geocode?address=Berlin&key={PLACEHOLDER}&x={PLACEHOLDER}"
    assert with_key(url, "key", "s3cret&=") == (
        f"https://example.test/geocode?address=Berlin&key=s3cret%26%3D&x={PLACEHOLDER}")
    with pytest.raises(GeocodeFailedError):
        with_key("https://example.test/geocode?address=Berlin&key=real", "key", "s3cret")
