"""Stability and rectification (/v2/stability, /v2/stability/coordinates,
/v2/rectifications) end to end on a real uvicorn (the session's shared server, offline
gazetteer): ``data`` equals the command line's ``--json``, 1 credit a success and none on
a refusal, Basic refused, bad input answered with the contract's envelope and codes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from bodygraph_server.billing.accounts import Bookkeeper

from .conftest import v2_headers
from .support import Server, shared_served, tls_context
from .test_endpoints import balance, check_envelope
from .test_extensions import check_schema, cli_args, cli_json

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

BIRTH = {"birthdate": "1980-01-03", "birthtime": "08:30", "lat": 51.5074, "lng": -0.1278}
LONDON = {"date": "1980-01-03", "lat": 51.5074, "lng": -0.1278}
KNOWN = {"profile": "3/5", "type": "Generator", "authority": "Emotional"}
KNOWN_ARGS = ["--profile", "3/5", "--type", "Generator", "--authority", "Emotional"]
POINT_ARGS = ["--date", "1980-01-03", "--lat", "51.5074", "--lng", "-0.1278"]


class Site:
    """The shared server, an HTTP client to it and its bookkeeping."""

    def __init__(self, server: Server, book: Bookkeeper) -> None:
        self.server, self.book = server, book
        self.http = httpx.Client(base_url=server.base_url, timeout=60, verify=tls_context())

    def key(self, plan: str = "developer") -> str:
        return self.book.create_account(plan).api_key

    def post(self, key: str, path: str, body: Any) -> httpx.Response:
        return self.http.post(path, json=body, headers=v2_headers(key, geocode=None))


@pytest.fixture(scope="module")
def site(pytestconfig: pytest.Config,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    made = Site(*shared_served(pytestconfig, tmp_path_factory))
    yield made
    made.http.close()


def test_stability_from_coordinates_equals_the_cli(
        site: Site, capsys: pytest.CaptureFixture[str]) -> None:
    key = site.key()
    before = balance(site.book, key)
    response = site.post(key, "/v2/stability/coordinates", {**BIRTH, "boundMinutes": 90})
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "StabilityResult", "Stability computed")
    assert body["data"] == cli_json(capsys, "stability", *cli_args(BIRTH), "--bound", "90m")
    assert body["data"]["properties"]["profile"]["value"] == "3/5"
    check_schema("StabilityResult", body["data"])
    assert balance(site.book, key) == before - 1


def test_stability_at_a_place_defaults_to_twelve_hours(
        site: Site, capsys: pytest.CaptureFixture[str]) -> None:
    place = {"birthdate": "1990-05-14", "birthtime": "08:30", "location": "Berlin, Germany"}
    response = site.post(site.key(), "/v2/stability", place)
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "StabilityResult", "Stability computed", frozenset({"place"}))
    assert body["place"]["name"].startswith("Berlin")
    expected = cli_json(capsys, "stability", "--date", "1990-05-14", "--time", "08:30",
                        "--place", "Berlin, Germany", "--geocoder", "offline")
    assert body["data"] == expected


def test_rectification_at_a_point_equals_the_cli(
        site: Site, capsys: pytest.CaptureFixture[str]) -> None:
    key = site.key()
    before = balance(site.book, key)
    response = site.post(key, "/v2/rectifications", {**LONDON, "constraints": KNOWN})
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "RectificationResult", "Birth-time windows computed")
    assert body["data"] == cli_json(capsys, "rectify", *POINT_ARGS, *KNOWN_ARGS)
    windows = body["data"]["windows"]
    assert windows and all(w["chart"]["profile"] == "3/5" for w in windows)
    check_schema("RectificationResult", body["data"])
    assert balance(site.book, key) == before - 1


def test_rectification_at_a_place_over_a_range_with_every_kind_of_constraint(
        site: Site, capsys: pytest.CaptureFixture[str]) -> None:
    constraints = {"type": "generator", "centers": ["Sacral"], "openCenters": ["Head"],
                   "gates": [38], "activations": ["personality.sun=10"]}
    body = {"date": "1980-01-01", "toDate": "1980-01-05", "fromTime": "06:00",
            "toTime": "18:00", "location": "London, United Kingdom",
            "constraints": constraints}
    response = site.post(site.key(), "/v2/rectifications", body)
    assert response.status_code == 200, response.text
    answer = response.json()
    check_envelope(answer, "RectificationResult", "Birth-time windows computed",
                   frozenset({"place"}))
    expected = cli_json(
        capsys, "rectify", "--date", "1980-01-01", "--to-date", "1980-01-05",
        "--from-time", "06:00", "--to-time", "18:00", "--place", "London, United Kingdom",
        "--geocoder", "offline", "--type", "generator", "--center", "Sacral",
        "--open-center", "Head", "--gate", "38", "--activation", "personality.sun=10")
    assert answer["data"] == expected
    assert answer["data"]["searched"]["fromLocal"] == "1980-01-01T06:00:00+00:00"
    check_schema("RectificationResult", answer["data"])


def test_contradictory_constraints_give_no_window_and_cost_a_credit(site: Site) -> None:
    key = site.key()
    before = balance(site.book, key)
    response = site.post(key, "/v2/rectifications",
                         {**LONDON, "constraints": {"type": "Reflector",
                                                    "centers": ["Sacral"]}})
    assert response.status_code == 200, response.text
    assert response.json()["data"]["windows"] == []
    assert balance(site.book, key) == before - 1


@pytest.mark.parametrize("path, body", [
    ("/v2/stability/coordinates", BIRTH),
    ("/v2/rectifications", {**LONDON, "constraints": KNOWN}),
])
def test_basic_tier_is_refused(site: Site, path: str, body: dict[str, Any]) -> None:
    key = site.key("hobbyist")
    before = balance(site.book, key)
    response = site.post(key, path, body)
    assert response.status_code == 403
    assert response.json()["errorCode"] == "ACCESS_DENIED"
    assert balance(site.book, key) == before


def _with(**changes: Any) -> dict[str, Any]:
    return {**LONDON, "constraints": KNOWN, **changes}


BAD = [
    ("/v2/rectifications", _with(constraints={"type": "Generatr"}), 400, "INVALID_OPTION",
     "use one of: Generator, Manifesting Generator, Projector, Manifestor, Reflector"),
    ("/v2/rectifications", _with(constraints={"authority": "Gut"}), 400, "INVALID_OPTION",
     "Emotional"),
    ("/v2/rectifications", _with(constraints={"profile": "1/5"}), 400, "INVALID_OPTION",
     "1/3, 1/4, 2/4"),
    ("/v2/rectifications", _with(constraints={"channels": ["1-2"]}), 400, "INVALID_OPTION",
     "13-33"),
    ("/v2/rectifications", _with(constraints={"centre": ["Sacral"]}), 400, "INVALID_OPTION",
     "use: type, profile"),
    ("/v2/rectifications", _with(constraints={}), 400, "INVALID_OPTION",
     "at least one constraint"),
    ("/v2/rectifications", _with(constraints={"centers": []}), 400, "INVALID_OPTION",
     "at least one constraint"),
    ("/v2/rectifications", {**LONDON}, 400, "MISSING_REQUIRED_FIELD", "constraints"),
    ("/v2/rectifications", _with(toDate="1980-01-10"), 400, "INVALID_OPTION",
     "at most 7 days"),
    ("/v2/rectifications", _with(toDate="1980-01-02"), 400, "INVALID_OPTION",
     "at most 7 days"),
    ("/v2/rectifications", _with(fromTime="12:00", toTime="11:00"), 400, "INVALID_OPTION",
     "toTime must come after fromTime"),
    ("/v2/rectifications", _with(date="1980-02-30"), 400, "INVALID_BIRTHDATE",
     "date is not a calendar date"),
    ("/v2/rectifications", _with(fromTime="25:00"), 400, "INVALID_BIRTHTIME", "fromTime"),
    ("/v2/rectifications", _with(lat=91), 400, "INVALID_LATITUDE", "lat"),
    ("/v2/rectifications", _with(constraints=["Generator"]), 422, "INVALID_REQUEST_BODY",
     "constraints must be a JSON object"),
    ("/v2/rectifications", _with(constraints={"gates": ["38"]}), 422,
     "INVALID_REQUEST_BODY", "whole numbers"),
    ("/v2/rectifications", _with(date="2199-12-31"), 400, "INVALID_BIRTHDATE",
     "supported range"),
    # a search reaching outside the ephemeris (the noon chart of the day is in it): the
    # errors table's rule for every search
    ("/v2/rectifications", _with(date="1800-04-04", lat=0, lng=170), 422,
     "INVALID_REQUEST_BODY", "the search reaches outside the supported range"),
    ("/v2/stability/coordinates", {"birthdate": "2199-12-30", "birthtime": "20:00", "lat": 0,
                                   "lng": 0, "boundMinutes": 2880}, 422,
     "INVALID_REQUEST_BODY", "the bound reaches outside the supported range"),
    ("/v2/stability/coordinates", {**BIRTH, "boundMinutes": 2881}, 400, "INVALID_OPTION",
     "48 hours"),
    ("/v2/stability/coordinates", {**BIRTH, "boundMinutes": 0}, 400, "INVALID_OPTION",
     "from 1 to 2880"),
    ("/v2/stability/coordinates", {**BIRTH, "boundMinutes": "12h"}, 422,
     "INVALID_REQUEST_BODY", "whole number"),
    ("/v2/stability/coordinates", {**BIRTH, "lng": 181}, 400, "INVALID_LONGITUDE", "lng"),
    ("/v2/stability", {**BIRTH}, 400, "MISSING_REQUIRED_FIELD", "location"),
]


@pytest.mark.parametrize("path, body, status, code, words", BAD)
def test_bad_input_is_refused_with_a_clear_message_and_costs_nothing(
        site: Site, path: str, body: Any, status: int, code: str, words: str) -> None:
    key = site.key()
    before = balance(site.book, key)
    response = site.post(key, path, body)
    assert response.status_code == status, response.text
    answer = response.json()
    assert (answer["success"], answer["errorCode"], answer["data"]) == (False, code, None)
    assert words in answer["message"]
    assert balance(site.book, key) == before


def test_the_openapi_document_describes_the_family(site: Site) -> None:
    document = site.http.get("/openapi.json").json()
    for path in ("/v2/stability", "/v2/stability/coordinates", "/v2/rectifications"):
        operation = document["paths"][path]["post"]
        assert "Access tiers: Advanced." in operation["description"]
        assert "INVALID_OPTION" in operation["responses"]["400"]["description"]
    schemas = document["components"]["schemas"]
    assert schemas["Constraints"]["properties"]["profile"]["enum"][0] == "1/3"
    assert "boundMinutes" in schemas["StabilityCoordinatesInput"]["properties"]
