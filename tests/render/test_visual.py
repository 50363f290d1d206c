"""The visual-chart endpoints of the real app (``create_app``) on a real SQLite
bookkeeping and the real library; their links followed to the app's own image route."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.types import Receive, Scope, Send

from bodygraph.render import RenderInput, Theme, render_svg
from bodygraph_server import Settings, create_app
from bodygraph_server.billing.accounts import Bookkeeper, Principal
from bodygraph_server.charting import LibraryCharts
from bodygraph_server.images.templates import SqlTemplateStore
from bodygraph_server.images.tokens import KeyRing, SigningKey, verify
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store import open_store
from bodygraph_server.store.sql import SqlStore

pytestmark = pytest.mark.anyio

RENDER_URL = "https://img.example.com/render"
KEYS = KeyRing([SigningKey("old", b"\x05" * 32), SigningKey("new", b"\x06" * 32)])
KEY_SPEC = ",".join(f"{kid}:{base64.urlsafe_b64encode(secret).decode()}"
                    for kid, secret in (("old", b"\x05" * 32), ("new", b"\x06" * 32)))
COORDS = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
PLACE = {"birthdate": "1990-07-15", "birthtime": "14:30", "location": "Berlin, Germany"}
ENVELOPE = {"timestamp", "success", "message", "errorCode", "type", "data", "svgRenderUrl"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def book(tmp_path: Path) -> Iterator[Bookkeeper]:
    url = f"sqlite:///{tmp_path / 'visual.sqlite3'}"
    bookkeeper = Bookkeeper(open_store(url), clock=ManualClock(datetime(2026, 3, 10,
                                                                        tzinfo=UTC)))
    yield bookkeeper
    bookkeeper.close()


@pytest.fixture
def templates(book: Bookkeeper) -> SqlTemplateStore:
    assert isinstance(book.store, SqlStore)
    return SqlTemplateStore(book.store)


@asynccontextmanager
async def serve(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client; the lifespan runs once and its state reaches every request."""
    async with app.router.lifespan_context(app) as state:

        async def asgi(scope: Scope, receive: Receive, send: Send) -> None:
            scope["state"] = dict(state or {})
            await app(scope, receive, send)

        transport = httpx.ASGITransport(app=asgi, client=("127.0.0.1", 41000))
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            yield client


def app_for(book: Bookkeeper, tmp_path: Path, **settings: Any) -> Starlette:
    config = Settings(database_url=f"sqlite:///{tmp_path / 'unused.sqlite3'}",
                      geocoder="offline", warm_up=False, **settings)
    return create_app(config, book=book, charts=LibraryCharts("offline"))


@pytest.fixture
async def client(book: Bookkeeper, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = app_for(book, tmp_path, render_url=RENDER_URL, render_keys=KEY_SPEC)
    async with serve(app) as c:
        yield c


def headers(key: str, geocode: bool = True) -> dict[str, str]:
    out = {"Authorization": f"Bearer {key}"}
    if geocode:
        out["HD-Geocode-Key"] = "any-key"
    return out


def account_of(book: Bookkeeper, key: str) -> int:
    principal = book.authenticate(key)
    assert isinstance(principal, Principal)
    return principal.account_id


def placements_of(data: dict[str, Any]) -> list[str]:
    order = ("sun", "earth", "northNode", "southNode", "moon", "mercury", "venus", "mars",
             "jupiter", "saturn", "uranus", "neptune", "pluto")
    return [data["activations"][s][b] for s in ("design", "personality") for b in order]


async def fetch_image(client: httpx.AsyncClient, url: str) -> httpx.Response:
    """Follow a link to the app's own image route (mounted at the link's path)."""
    parts = urlsplit(url)
    return await client.get(f"{parts.path}?{parts.query}")


async def test_coordinates_visual_chart(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = book.create_account("developer").api_key
    before = book.account(account_of(book, key)).balance
    r = await client.post("/v2/visual-charts/coordinates", json=COORDS,
                          headers=headers(key, geocode=False))
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == ENVELOPE
    assert (body["success"], body["errorCode"], body["type"], body["message"]) == (
        True, "", "ChartResult", "Chart generated from coordinates")
    plain = await client.post("/v2/charts/coordinates", json=COORDS,
                              headers=headers(key, geocode=False))
    assert body["data"] == plain.json()["data"]  # same data as the full chart
    assert book.account(account_of(book, key)).balance == before - 2

    url = body["svgRenderUrl"]
    assert url.startswith(f"{RENDER_URL}/default.svg?t=new.")
    token = parse_qs(urlsplit(url).query)["t"][0]
    payload = verify(token, KEYS)
    assert [str(p) for p in payload.design + payload.personality] == placements_of(body["data"])
    assert sorted(payload.centers) == sorted(body["data"]["centers"])

    image = await fetch_image(client, url)
    assert image.status_code == 200
    assert image.headers["content-type"] == "image/svg+xml"
    assert image.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert image.text == render_svg(payload)
    assert book.account(account_of(book, key)).balance == before - 2  # the image is free


async def test_location_visual_chart_and_active_template(
    client: httpx.AsyncClient, book: Bookkeeper, templates: SqlTemplateStore,
) -> None:
    key = book.create_account("scale").api_key
    theme = Theme.from_dict({"design_color": "#1565c0"})
    template = templates.create(account_of(book, key), "Blue", theme, activate=True,
                                now=book.clock.now())
    r = await client.post("/v2/visual-charts", json=PLACE, headers=headers(key))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["message"] == "Chart generated" and body["type"] == "ChartResult"
    url = body["svgRenderUrl"]
    assert url.startswith(f"{RENDER_URL}/{template.id}.svg?t=")
    image = await fetch_image(client, url)
    payload = verify(parse_qs(urlsplit(url).query)["t"][0], KEYS, str(template.id))
    assert image.text == render_svg(payload, theme)
    assert payload == RenderInput.from_gate_lines(
        *[tuple((int(g), int(ln)) for g, ln in (x.split(".") for x in half))
          for half in (placements_of(body["data"])[:13], placements_of(body["data"])[13:])],
        variables=body["data"]["variables"])


async def test_missing_geocode_key_is_400_here(book: Bookkeeper, tmp_path: Path) -> None:
    """With Google geocoding (the caller's key required; refused before any lookup)."""
    config = Settings(database_url=f"sqlite:///{tmp_path / 'unused.sqlite3'}",
                      geocoder="google", geocoder_url="http://127.0.0.1:9", warm_up=False,
                      render_url=RENDER_URL, render_keys=KEY_SPEC)
    app = create_app(config, book=book, charts=LibraryCharts("google", config.geocoder_url))
    key = book.create_account("developer").api_key
    async with serve(app) as client:
        r = await client.post("/v2/visual-charts", json=PLACE,
                              headers=headers(key, geocode=False))
        elsewhere = await client.post("/v2/charts", json=PLACE,
                                      headers=headers(key, geocode=False))
    assert r.status_code == 400
    assert r.json()["errorCode"] == "GEOCODE_KEY_MISSING"
    assert elsewhere.status_code == 401  # the general rule, for contrast


@pytest.mark.parametrize("path", ["/v2/visual-charts", "/v2/visual-charts/coordinates"])
async def test_basic_tier_is_denied(client: httpx.AsyncClient, book: Bookkeeper,
                                    path: str) -> None:
    key = book.create_account("hobbyist").api_key
    before = book.account(account_of(book, key)).balance
    body = COORDS if path.endswith("coordinates") else PLACE
    r = await client.post(path, json=body, headers=headers(key))
    assert r.status_code == 403
    assert r.json()["errorCode"] == "ACCESS_DENIED"
    assert "svgRenderUrl" not in r.json()
    assert book.account(account_of(book, key)).balance == before


async def test_failures_cost_nothing_and_carry_no_link(client: httpx.AsyncClient,
                                                       book: Bookkeeper) -> None:
    key = book.create_account("developer").api_key
    before = book.account(account_of(book, key)).balance
    r = await client.post("/v2/visual-charts/coordinates", json={**COORDS, "lat": 91},
                          headers=headers(key, geocode=False))
    assert r.status_code == 400 and r.json()["errorCode"] == "INVALID_LATITUDE"
    assert "svgRenderUrl" not in r.json()
    assert book.account(account_of(book, key)).balance == before


async def test_links_use_the_request_host_and_keys_from_the_database(
    book: Bookkeeper, tmp_path: Path
) -> None:
    """No render URL, no public URL, no BODYGRAPH_RENDER_KEYS: the link points at this
    server's /render under the address the request came to, signed with a key the app
    generated and stored in the database; a second app on the same database verifies it."""
    key = book.create_account("developer").api_key
    assert isinstance(book.store, SqlStore)
    assert book.store.render_keys() == []
    async with serve(app_for(book, tmp_path)) as client:
        r = await client.post("/v2/visual-charts/coordinates", json=COORDS,
                              headers=headers(key, geocode=False))
    assert r.status_code == 200, r.text
    url = r.json()["svgRenderUrl"]
    assert url.startswith("http://localhost/render/default.svg?t=db")
    stored = book.store.render_keys()
    assert len(stored) == 1
    ring = KeyRing(SigningKey(kid, secret) for kid, secret in stored)
    payload = verify(parse_qs(urlsplit(url).query)["t"][0], ring)
    async with serve(app_for(book, tmp_path, public_url="https://api.example.com")) as again:
        image = await fetch_image(again, url)
        assert image.status_code == 200 and image.text == render_svg(payload)
        r = await again.post("/v2/visual-charts/coordinates", json=COORDS,
                             headers=headers(key, geocode=False))
    assert r.json()["svgRenderUrl"] == "https://api.example.com" + url.removeprefix("http://localhost")
    assert len(book.store.render_keys()) == 1  # reused, not regenerated


async def test_refused_links(client: httpx.AsyncClient, book: Bookkeeper) -> None:
    key = book.create_account("developer").api_key
    r = await client.post("/v2/visual-charts/coordinates", json=COORDS,
                          headers=headers(key, geocode=False))
    url = r.json()["svgRenderUrl"]
    token = parse_qs(urlsplit(url).query)["t"][0]
    flipped = token[:-3] + ("A" if token[-3] != "A" else "B") + token[-2:]
    for path, status in ((f"/render/default.svg?t={flipped}", 403),
                         ("/render/default.svg?t=junk", 400),
                         ("/render/default.svg", 400),
                         (f"/render/not-a-uuid.svg?t={token}", 404)):
        refused = await client.get(path)
        assert refused.status_code == status, path
        assert refused.headers["cache-control"] == "no-store"
        assert refused.json()["success"] is False
