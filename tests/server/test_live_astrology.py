"""The astrology extensions end to end: the service under a real uvicorn (the session's
shared one), real HTTP: the profile, the zodiac positions (equal to the library's) and the
wheel's link (its SVG and PNG served through /render), 1 credit each, Basic refused, bad
input answered with the contract's 400 codes and never a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import httpx
import pytest

import bodygraph
from bodygraph.relations.astro import astro
from bodygraph.rules.hologenetic import hologenetic_profile
from bodygraph_server.billing.accounts import Bookkeeper

from .support import shared_served, tls_context

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

BIRTH = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}


@pytest.fixture(scope="module")
def site(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[tuple[httpx.Client, Bookkeeper]]:
    server, book = shared_served(pytestconfig, tmp_path_factory)
    with httpx.Client(base_url=server.base_url, timeout=60, verify=tls_context()) as http:
        yield http, book


def _balance(book: Bookkeeper, account_id: int) -> int:
    return book.account(account_id).balance


def test_the_three_families_over_http(site: tuple[httpx.Client, Bookkeeper]) -> None:
    http, book = site
    issued = book.create_account("developer")
    headers = {"Authorization": f"Bearer {issued.api_key}"}
    before = _balance(book, issued.account.id)
    utc = datetime(1990, 7, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin"))

    profile = http.post("/v2/hologenetic-profiles/coordinates", json=BIRTH, headers=headers)
    assert profile.status_code == 200, profile.text
    assert profile.json()["data"] == hologenetic_profile(bodygraph.calculate(utc)).to_dict()

    for houses in ("placidus", "whole-sign"):
        answer = http.post("/v2/astro/coordinates", json={**BIRTH, "houses": houses},
                           headers=headers)
        assert answer.status_code == 200, answer.text
        assert answer.json()["data"] == astro(utc, 52.52, 13.405, houses=houses).to_dict()

    wheel = http.post("/v2/wheel-charts/coordinates",
                      json={**BIRTH, "transitAt": "2027-01-01T00:00:00Z"}, headers=headers)
    assert wheel.status_code == 200, wheel.text
    link = urlsplit(wheel.json()["svgRenderUrl"])
    assert link.path == "/render/default.svg"
    svg = http.get(f"{link.path}?{link.query}")
    assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
    assert 'class="wheel"' in svg.text and 'class="activations transit"' in svg.text
    png = http.get(f"/render/default.png?{link.query}")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    assert _balance(book, issued.account.id) == before - 4


@pytest.mark.parametrize(("path", "body", "status", "code"), [
    ("/v2/astro/coordinates", {"birthdate": "1990-07-15", "birthtime": "14:30"}, 400,
     "MISSING_REQUIRED_FIELD"),
    ("/v2/astro/coordinates", {**BIRTH, "lat": 90.01}, 400, "INVALID_LATITUDE"),
    ("/v2/astro/coordinates", {**BIRTH, "lat": -90}, 400, "INVALID_LATITUDE"),
    ("/v2/astro/coordinates", {**BIRTH, "houses": "equal"}, 400, "INVALID_OPTION"),
    ("/v2/hologenetic-profiles/coordinates", {**BIRTH, "lat": 123}, 400, "INVALID_LATITUDE"),
    ("/v2/wheel-charts/coordinates", {**BIRTH, "theme": "neon"}, 400, "INVALID_OPTION"),
    ("/v2/wheel-charts/coordinates", {**BIRTH, "transitAt": "tomorrow"}, 422,
     "INVALID_REQUEST_BODY"),
])
def test_bad_input_over_http(site: tuple[httpx.Client, Bookkeeper], path: str,
                             body: dict[str, object], status: int, code: str) -> None:
    http, book = site
    issued = book.create_account("developer")
    before = _balance(book, issued.account.id)
    response = http.post(path, json=body,
                         headers={"Authorization": f"Bearer {issued.api_key}"})
    assert response.status_code == status, response.text
    assert response.json()["errorCode"] == code
    assert _balance(book, issued.account.id) == before


@pytest.mark.parametrize("path", ["/v2/hologenetic-profiles/coordinates",
                                  "/v2/astro/coordinates", "/v2/wheel-charts/coordinates"])
def test_basic_is_refused_over_http(site: tuple[httpx.Client, Bookkeeper], path: str) -> None:
    http, book = site
    issued = book.create_account("hobbyist")
    response = http.post(path, json=BIRTH,
                         headers={"Authorization": f"Bearer {issued.api_key}"})
    assert (response.status_code, response.json()["errorCode"]) == (403, "ACCESS_DENIED")
    assert _balance(book, issued.account.id) == issued.account.balance
