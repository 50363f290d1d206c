"""``"visual": true`` on /v2/transits and /v2/connections, in process: the answer carries
an ``svgRenderUrl`` whose image is the very picture ``bodygraph transit/connection --svg``
draws for the same births, whose token holds activations only, and which costs nothing
more; without the flag there is no link; a transit picture needs a natal birth."""

from __future__ import annotations

import base64
import re
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit
from xml.etree import ElementTree as ET

import httpx
import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESSIV
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from bodygraph.cli.main import main as cli
from bodygraph.render import ConnectionInput, RenderInput, TransitInput
from bodygraph_server import Settings
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.images import tokens
from bodygraph_server.images.overlay_tokens import verify_picture
from bodygraph_server.images.tokens import KeyRing, SigningKey

from .conftest import new_key
from .test_endpoints import balance, check_envelope
from .test_extensions import AT, ONE, TWO, cli_args, post

pytestmark = pytest.mark.anyio

RENDER_URL = "https://img.example.com/render"
SECRET = b"\x07" * 32
KEYS = KeyRing([SigningKey("k1", SECRET)])
BODIES = ("sun", "earth", "northNode", "southNode", "moon", "mercury", "venus", "mars",
          "jupiter", "saturn", "uranus", "neptune", "pluto")


@pytest.fixture
def settings(db_url: str) -> Settings:
    spec = "k1:" + base64.urlsafe_b64encode(SECRET).decode().rstrip("=")
    return Settings(database_url=db_url, geocoder="offline", warm_up=False,
                    render_url=RENDER_URL, render_keys=spec)


def check_picture_envelope(body: dict[str, Any], type_name: str, message: str) -> None:
    """The extension's envelope plus ``svgRenderUrl``, valid against its OpenAPI schema."""
    import jsonschema

    from bodygraph_server.resources import service_document

    check_envelope({k: v for k, v in body.items() if k != "svgRenderUrl"}, type_name, message)
    components = service_document()["components"]
    envelope = components["schemas"][f"{type_name}Envelope"]
    assert envelope["properties"]["svgRenderUrl"]["format"] == "uri"
    jsonschema.validate(body, {**envelope, "components": components})


def token_of(url: str) -> str:
    assert url.startswith(f"{RENDER_URL}/default.svg?t=k1.")
    return parse_qs(urlsplit(url).query)["t"][0]


def payload_by_hand(token: str, template: str = "default") -> bytes:
    """Open a sealed token of ``template`` without the module under test (the documented
    construction: AES-SIV, its key from HKDF-SHA256, the key id, template and version
    authenticated)."""
    body = token.split(".", 1)[1]
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    key = HKDF(algorithm=SHA256(), length=64, salt=b"bodygraph render token",
               info=b"v5: aes-siv").derive(SECRET)
    return raw[0:1] + AESSIV(key).decrypt(raw[1:], [f"k1.{template}".encode(), raw[0:1]])


async def image_of(client: httpx.AsyncClient, url: str) -> str:
    parts = urlsplit(url)
    response = await client.get(f"{parts.path}?{parts.query}")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/svg+xml"
    return response.text


def cli_svg(tmp_path: Path, *argv: str) -> str:
    path = tmp_path / "cli.svg"
    assert cli([*argv, "--svg", str(path)]) == 0
    return path.read_text(encoding="utf-8")


def gate_lines(side: dict[str, str]) -> bytes:
    pairs = [side[body].split(".") for body in BODIES]
    return bytes(int(g) for g, _ in pairs) + bytes(int(ln) for _, ln in pairs)


def classes_in(document: str) -> set[str]:
    root = ET.fromstring(document)
    return {c for e in root.iter() for c in e.attrib.get("class", "").split()}


async def test_transit_picture(client: httpx.AsyncClient, book: Bookkeeper,
                               tmp_path: Path) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, "/v2/transits", {"at": AT, "natal": ONE,
                                                         "visual": True})
    assert response.status_code == 200, response.text
    body = response.json()
    check_picture_envelope(body, "TransitResult", "Transit computed")
    plain = await post(client, key, "/v2/transits", {"at": AT, "natal": ONE})
    assert body["data"] == plain.json()["data"]
    assert balance(book, key) == before - 2  # 1 credit each: the link costs nothing more

    url = body["svgRenderUrl"]
    token = token_of(url)
    assert re.fullmatch(tokens.TOKEN_PATTERN, token)
    picture = verify_picture(token, KEYS)
    assert isinstance(picture, TransitInput)
    document = await image_of(client, url)
    assert document == cli_svg(tmp_path, "transit", "--at", AT, *cli_args(ONE))
    assert "transit" in classes_in(document)
    assert picture.label == "Transit 2024-03-20"

    # The token holds the natal activations and centers, the transit's, its date: no more.
    payload = payload_by_hand(token)
    assert payload[0] == tokens.TRANSIT_VERSION
    transit_side = {b: f"{p.gate}.{p.line}" for b, p in
                    zip(BODIES, picture.transit, strict=True)}
    assert [f"{p.gate}.{p.line}" for p in picture.transit] == [
        body["data"]["activations"][b] for b in BODIES]
    assert payload[1:] == (tokens.encode_payload(picture.natal) + gate_lines(transit_side)
                           + date(2024, 3, 20).toordinal().to_bytes(3, "big"))
    for text in (ONE["birthdate"], ONE["birthtime"], "1990", "52.52", "13.405"):
        assert text not in url and text.encode() not in payload
    assert balance(book, key) == before - 2  # the image is free


async def test_a_transit_picture_reuses_the_computed_transit(
        client: httpx.AsyncClient, book: Bookkeeper, monkeypatch: pytest.MonkeyPatch) -> None:
    """The data and the picture of one request come from one transit computation."""
    import bodygraph.relations

    calls: list[object] = []
    computed = bodygraph.relations.transit

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return computed(*args, **kwargs)

    monkeypatch.setattr(bodygraph.relations, "transit", counted)
    response = await post(client, new_key(book), "/v2/transits",
                          {"at": AT, "natal": ONE, "visual": True})
    assert response.status_code == 200, response.text
    assert "svgRenderUrl" in response.json() and len(calls) == 1


async def test_connection_picture(client: httpx.AsyncClient, book: Bookkeeper,
                                  tmp_path: Path) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, "/v2/connections", {"people": [ONE, TWO],
                                                           "visual": True})
    assert response.status_code == 200, response.text
    body = response.json()
    check_picture_envelope(body, "ConnectionResult", "Connection computed")
    assert balance(book, key) == before - 1
    url = body["svgRenderUrl"]
    token = token_of(url)
    assert re.fullmatch(tokens.TOKEN_PATTERN, token)
    picture = verify_picture(token, KEYS)
    assert isinstance(picture, ConnectionInput)
    assert (picture.first_label, picture.second_label) == ("Person 1", "Person 2")
    document = await image_of(client, url)
    assert document == cli_svg(tmp_path, "connection", *cli_args(ONE), *cli_args(TWO))
    assert {"person-a", "person-b"} <= classes_in(document)

    payload = payload_by_hand(token)
    assert payload[0] == tokens.CONNECTION_VERSION
    assert payload[1:] == (tokens.encode_payload(picture.first)
                           + tokens.encode_payload(picture.second))
    for text in (*ONE.values(), *TWO.values()):
        assert str(text) not in url


async def test_a_picture_token_is_bound_to_its_kind_and_template(
    client: httpx.AsyncClient, book: Bookkeeper
) -> None:
    key = new_key(book)
    response = await post(client, key, "/v2/connections", {"people": [ONE, TWO],
                                                           "visual": True})
    token = token_of(response.json()["svgRenderUrl"])
    other = await client.get(f"/render/00000000-0000-4000-8000-000000000000.svg?t={token}")
    assert other.status_code == 403
    assert other.json()["errorCode"] == "RENDER_TOKEN_INVALID"
    with pytest.raises(tokens.MalformedTokenError):
        tokens.verify(token, KEYS)  # a chart-only reader refuses another kind
    chart = tokens.issue(RenderInput.from_gate_lines(((1, 1),) * 13, ((2, 2),) * 13), KEYS)
    assert isinstance(verify_picture(chart, KEYS), RenderInput)  # chart tokens still verify


@pytest.mark.parametrize("body", [
    {"at": AT, "natal": ONE},
    {"at": AT, "natal": ONE, "visual": False},
    {"people": [ONE, TWO]},
    {"people": [ONE, TWO], "visual": False},
])
async def test_no_link_unless_asked(client: httpx.AsyncClient, book: Bookkeeper,
                                    body: dict[str, Any]) -> None:
    path = "/v2/transits" if "at" in body else "/v2/connections"
    response = await post(client, new_key(book), path, body)
    assert response.status_code == 200, response.text
    assert "svgRenderUrl" not in response.json()


@pytest.mark.parametrize(("path", "body", "message"), [
    ("/v2/transits", {"at": AT, "visual": True}, "visual needs natal"),
    ("/v2/transits", {"at": AT, "natal": ONE, "visual": "yes"}, "visual must be true or false"),
    ("/v2/connections", {"people": [ONE, TWO], "visual": 1}, "visual must be true or false"),
])
async def test_refused_visual_flags_cost_nothing(
    client: httpx.AsyncClient, book: Bookkeeper, path: str, body: dict[str, Any], message: str
) -> None:
    key = new_key(book)
    before = balance(book, key)
    response = await post(client, key, path, body)
    assert response.status_code == 422, response.text
    answer = response.json()
    assert answer["errorCode"] == "INVALID_REQUEST_BODY"
    assert message in answer["message"]
    assert balance(book, key) == before
