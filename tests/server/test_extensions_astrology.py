"""The astrology extensions in process (/v2/hologenetic-profiles, /v2/astro/coordinates,
/v2/wheel-charts/coordinates): ``data`` equals the command line's ``--json``, the envelope,
schemas and error codes are the contract's, Basic is refused, 1 credit per success and
none else; the wheel's link serves the picture ``bodygraph wheel --svg`` draws, as SVG and
PNG, from a token of longitudes only."""

from __future__ import annotations

import struct
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

import bodygraph
from bodygraph.cli.main import main as cli
from bodygraph.render.wheel import WheelInput
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.images import tokens
from bodygraph_server.images.overlay_tokens import verify_picture

from .conftest import new_key
from .test_endpoints import balance, check_envelope
from .test_extensions import ONE, PLACE, THREE, check_schema, cli_args, cli_json, post
from .test_extensions_visual import (
    BODIES,
    KEYS,
    RENDER_URL,
    payload_by_hand,
    settings,  # noqa: F401 (the module fixture: render keys)
)

pytestmark = pytest.mark.anyio

TRANSIT_AT = "2027-01-01T00:00:00Z"
PATHS = ("/v2/hologenetic-profiles", "/v2/hologenetic-profiles/coordinates",
         "/v2/astro/coordinates", "/v2/wheel-charts/coordinates")


async def test_hologenetic_profiles_equal_the_cli(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, "/v2/hologenetic-profiles/coordinates", ONE)
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "HologeneticProfileResult", "Hologenetic profile computed")
    assert body["data"] == cli_json(capsys, "hologenetic", *cli_args(ONE))
    check_schema("HologeneticProfileResult", body["data"])

    by_place = await post(client, key, "/v2/hologenetic-profiles", PLACE, geocode="geo-key")
    assert by_place.status_code == 200, by_place.text
    place_args = ["--date", PLACE["birthdate"], "--time", PLACE["birthtime"],
                  "--place", PLACE["location"]]
    assert by_place.json()["data"] == cli_json(capsys, "hologenetic", *place_args)
    assert by_place.json()["place"]["name"].startswith("Berlin")
    assert balance(book, key) == before - 2


@pytest.mark.parametrize("houses", [None, "placidus", "whole-sign"])
async def test_astro_equals_the_cli(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str],
    houses: str | None,
) -> None:
    key = new_key(book)
    before = balance(book, key)
    body = ONE if houses is None else {**ONE, "houses": houses}
    response = await post(client, key, "/v2/astro/coordinates", body)
    assert response.status_code == 200, response.text
    answer = response.json()
    check_envelope(answer, "AstroResult", "Zodiac positions computed")
    option = [] if houses is None else ["--houses", houses]
    assert answer["data"] == cli_json(capsys, "astro", *cli_args(ONE), *option)
    assert answer["data"]["houses"]["system"] == (houses or "placidus")
    check_schema("AstroResult", answer["data"])
    assert balance(book, key) == before - 1


async def test_astro_beyond_the_polar_circle_and_south(
    client: httpx.AsyncClient, book: Bookkeeper, capsys: pytest.CaptureFixture[str]
) -> None:
    key = new_key(book)
    north = {**ONE, "lat": 78.22, "lng": 15.65}  # Longyearbyen
    response = await post(client, key, "/v2/astro/coordinates", north)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data == cli_json(capsys, "astro", *cli_args(north))
    assert data["houses"]["system"] == "whole-sign" and "78.22" in data["houses"]["note"]
    south = await post(client, key, "/v2/astro/coordinates", THREE)
    assert south.json()["data"] == cli_json(capsys, "astro", *cli_args(THREE))


@pytest.mark.parametrize(("body", "status", "code"), [
    ({**ONE, "houses": "koch"}, 400, "INVALID_OPTION"),
    ({**ONE, "houses": 3}, 400, "INVALID_OPTION"),
    ({**ONE, "lat": 90}, 400, "INVALID_LATITUDE"),
    ({**ONE, "lat": -90.0}, 400, "INVALID_LATITUDE"),
    ({**ONE, "lat": 90.5}, 400, "INVALID_LATITUDE"),
    ({**ONE, "lng": 181}, 400, "INVALID_LONGITUDE"),
    ({k: v for k, v in ONE.items() if k != "lat"}, 400, "MISSING_REQUIRED_FIELD"),
    ({"birthdate": ONE["birthdate"], "birthtime": ONE["birthtime"]}, 400,
     "MISSING_REQUIRED_FIELD"),
    ({**ONE, "birthdate": "1990-02-30"}, 400, "INVALID_BIRTHDATE"),
    ({**ONE, "birthdate": "1700-01-01"}, 400, "INVALID_BIRTHDATE"),
    ({**ONE, "birthtime": "24:00"}, 400, "INVALID_BIRTHTIME"),
    ([ONE], 422, "INVALID_REQUEST_BODY"),
])
async def test_astro_bad_input(client: httpx.AsyncClient, book: Bookkeeper,
                               body: Any, status: int, code: str) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, "/v2/astro/coordinates", body)
    assert response.status_code == status, response.text
    answer = response.json()
    assert (answer["success"], answer["errorCode"], answer["data"]) == (False, code, None)
    if code == "INVALID_OPTION":
        assert "placidus, whole-sign" in answer["message"]
    assert balance(book, key) == before


@pytest.mark.parametrize(("path", "body", "status", "code"), [
    ("/v2/hologenetic-profiles/coordinates", {**ONE, "lat": 91}, 400, "INVALID_LATITUDE"),
    ("/v2/hologenetic-profiles/coordinates", {"birthdate": "1990-05-14",
                                              "birthtime": "08:30"}, 400,
     "MISSING_REQUIRED_FIELD"),
    ("/v2/hologenetic-profiles", {**PLACE, "location": "ab"}, 400, "INVALID_LOCATION"),
    ("/v2/wheel-charts/coordinates", {**ONE, "theme": "neon"}, 400, "INVALID_OPTION"),
    ("/v2/wheel-charts/coordinates", {**ONE, "transitAt": "2027-01-01"}, 422,
     "INVALID_REQUEST_BODY"),
    ("/v2/wheel-charts/coordinates", {**ONE, "transitAt": "2027-02-30T00:00:00Z"}, 422,
     "INVALID_REQUEST_BODY"),
    ("/v2/wheel-charts/coordinates", {**ONE, "transitAt": "2500-01-01T00:00:00Z"}, 422,
     "INVALID_REQUEST_BODY"),
    ("/v2/wheel-charts/coordinates", {**ONE, "lat": -95}, 400, "INVALID_LATITUDE"),
])
async def test_other_bad_input(client: httpx.AsyncClient, book: Bookkeeper, path: str,
                               body: Any, status: int, code: str) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, path, body, geocode="geo-key")
    assert response.status_code == status, response.text
    assert response.json()["errorCode"] == code
    assert balance(book, key) == before


@pytest.mark.parametrize("path", PATHS)
async def test_basic_is_refused(client: httpx.AsyncClient, book: Bookkeeper,
                                path: str) -> None:
    key = new_key(book, "hobbyist")
    before = balance(book, key)
    body = PLACE if path == "/v2/hologenetic-profiles" else ONE
    response = await post(client, key, path, body, geocode="geo-key")
    assert response.status_code == 403
    assert response.json()["errorCode"] == "ACCESS_DENIED"
    assert balance(book, key) == before


async def fetch(client: httpx.AsyncClient, url: str, suffix: str = "svg") -> httpx.Response:
    parts = urlsplit(url)
    path = parts.path.removesuffix(".svg") + "." + suffix
    return await client.get(f"{path}?{parts.query}")


def cli_wheel(tmp_path: Path, *argv: str) -> str:
    path = tmp_path / "cli-wheel.svg"
    assert cli(["wheel", *argv, "--svg", str(path)]) == 0
    return path.read_text(encoding="utf-8")


async def test_wheel_link_serves_the_cli_picture(client: httpx.AsyncClient, book: Bookkeeper,
                                                 tmp_path: Path) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, "/v2/wheel-charts/coordinates", ONE)
    assert response.status_code == 200, response.text
    body = response.json()
    check_envelope(body, "WheelChartResult", "Wheel chart drawn",
                   frozenset({"svgRenderUrl"}))
    check_schema("WheelChartResultEnvelope", body)
    url = body["svgRenderUrl"]
    assert url.startswith(f"{RENDER_URL}/default.svg?t=k1.")
    token = parse_qs(urlsplit(url).query)["t"][0]

    # the payload is the 26 longitudes of data, nothing else
    payload = payload_by_hand(token)
    assert payload[0] == tokens.WHEEL_VERSION
    data = body["data"]
    longitudes = [data[side][b] for side in ("personality", "design") for b in BODIES]
    assert payload[1:] == struct.pack(">26d", *longitudes)
    assert data["transit"] is None
    for text in (ONE["birthdate"], ONE["birthtime"], "1990", "52.52", "13.405"):
        assert text not in url and text.encode() not in payload

    svg = await fetch(client, url)
    assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
    assert svg.text == cli_wheel(tmp_path, *cli_args(ONE))
    png = await fetch(client, url, "png")
    assert png.status_code == 200, png.text
    assert png.headers["content-type"] == "image/png" and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert balance(book, key) == before - 1  # the images are free


async def test_wheel_with_transit_and_theme(client: httpx.AsyncClient,
                                            book: Bookkeeper) -> None:
    key = new_key(book)
    response = await post(client, key, "/v2/wheel-charts/coordinates",
                          {**ONE, "transitAt": TRANSIT_AT, "theme": "dark"})
    assert response.status_code == 200, response.text
    body = response.json()
    url = body["svgRenderUrl"]
    assert url.startswith(f"{RENDER_URL}/dark.svg?t=k1.")
    token = parse_qs(urlsplit(url).query)["t"][0]
    payload = payload_by_hand(token, "dark")
    assert payload[0] == tokens.WHEEL_TRANSIT_VERSION
    data = body["data"]
    sky = bodygraph.calculate(datetime(2027, 1, 1, tzinfo=UTC))
    assert list(data["transit"].values()) == [a.longitude for a in sky.personality]
    longitudes = [data[side][b] for side in ("personality", "design", "transit")
                  for b in BODIES]
    assert payload[1:] == struct.pack(">39d", *longitudes)
    picture = verify_picture(token, KEYS, "dark")
    assert isinstance(picture, WheelInput) and picture.transit is not None
    svg = await fetch(client, url)
    assert svg.status_code == 200
    assert 'class="activations transit"' in svg.text
    assert '<rect class="background"' in svg.text
    # bound to its theme: under another path the token is refused
    other = await client.get(f"/render/light.svg?t={token}")
    assert (other.status_code, other.json()["errorCode"]) == (403, "RENDER_TOKEN_INVALID")


async def test_a_tampered_wheel_token_is_refused(client: httpx.AsyncClient,
                                                 book: Bookkeeper) -> None:
    response = await post(client, new_key(book), "/v2/wheel-charts/coordinates", ONE)
    token = parse_qs(urlsplit(response.json()["svgRenderUrl"]).query)["t"][0]
    kid, body = token.split(".")
    flipped = body[:40] + ("A" if body[40] != "A" else "B") + body[41:]
    refused = await client.get(f"/render/default.svg?t={kid}.{flipped}")
    assert (refused.status_code, refused.json()["errorCode"]) == (403, "RENDER_TOKEN_INVALID")
    cut = await client.get(f"/render/default.png?t={kid}.{body[:-4]}")
    assert (cut.status_code, cut.json()["errorCode"]) == (400, "RENDER_TOKEN_MALFORMED")
    # a wheel token does not read as another kind, nor a chart token as a wheel
    with pytest.raises(tokens.MalformedTokenError):
        tokens.verify(token, KEYS)
