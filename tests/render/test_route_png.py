"""The ``.png`` image route refuses what the ``.svg`` route refuses (in process; the
token refusals of both paths: tests/render/test_route.py), a PNG weighs more in the
throttle, a server without cairo says so, and the gzip negotiation of the SVG answers.
Successful PNGs over real uvicorn: tests/server/test_render_png_live.py."""

from __future__ import annotations

import gzip
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from uuid import UUID

import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from bodygraph.render import Theme, render_svg
from bodygraph_server.images.formats import PNG_COST, accepts_gzip, split_image_name, svg_body
from bodygraph_server.images.route import (
    IMAGE_ROUTE,
    RenderContext,
    TemplateLookupError,
    cached,
    image_endpoint,
    render_app,
    render_link,
)
from bodygraph_server.images.throttle import Throttle

from .test_route import DATA, KNOWN, KNOWN_TOKEN, RING, TOKEN, UNKNOWN, Clock, Templates

if TYPE_CHECKING:  # starlette's test client: imported by the fixture and tests that use it
    from starlette.testclient import TestClient


@pytest.fixture
def client() -> Iterator[TestClient]:
    from starlette.testclient import TestClient

    with TestClient(render_app(RING, Templates({}))) as c:
        yield c


def refused(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["cache-control"] == "no-store"
    assert r.headers["content-type"] == "application/json"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.json()["errorCode"] == code and r.json()["success"] is False


def test_png_token_bound_to_its_template(client: TestClient) -> None:
    for path, token in ((f"/{KNOWN}.png", TOKEN), ("/default.png", KNOWN_TOKEN),
                        (f"/{UNKNOWN}.png", KNOWN_TOKEN)):
        refused(client.get(path, params={"t": token}), 403, "RENDER_TOKEN_INVALID")


@pytest.mark.parametrize("name", ["nonsense.png", f"{str(KNOWN).upper()}.png", "default.PNG",
                                  "default.gif", "default", "default.svg.png.jpg",
                                  f"{KNOWN}.jpeg", ".png"])
def test_other_names_are_404(client: TestClient, name: str) -> None:
    refused(client.get(f"/{name}", params={"t": TOKEN}), 404, "NOT_FOUND")


def test_only_get_and_head(client: TestClient) -> None:
    assert client.post(f"/default.png?t={TOKEN}").status_code == 405


def test_png_template_store_failure_is_503() -> None:
    from starlette.testclient import TestClient

    class Broken:
        def style_for(self, template_id: UUID) -> Theme | None:
            raise TemplateLookupError("database unavailable")

    with TestClient(render_app(RING, Broken())) as c:
        refused(c.get(f"/{KNOWN}.png?t={KNOWN_TOKEN}"), 503, "TEMPLATE_STORE_UNAVAILABLE")


def test_without_cairo_png_is_503_and_svg_still_works(client: TestClient,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # the import fails, as without cairo
    r = client.get(f"/default.png?t={TOKEN}")
    refused(r, 503, "PNG_UNAVAILABLE")
    assert "cairo" in r.json()["message"] and ".svg" in r.json()["message"]
    assert client.get(f"/default.svg?t={TOKEN}").status_code == 200


def test_a_png_takes_several_images_from_the_throttle() -> None:
    from starlette.testclient import TestClient

    clock = Clock()
    throttle = Throttle(rate=PNG_COST, burst=2 * PNG_COST, clock=clock)
    context = RenderContext(RING, cached(None))
    app = Starlette(routes=[Route(IMAGE_ROUTE, image_endpoint(lambda r: context, throttle))])
    with TestClient(app) as c:
        assert c.get(f"/default.png?t={TOKEN}").status_code == 200
        for _ in range(PNG_COST - 2):  # a refusal costs one image, as on the SVG path
            assert c.get("/default.png").status_code == 400
        r = c.get(f"/default.png?t={TOKEN}")  # two images left: not enough for a PNG
        refused(r, 429, "RATE_LIMIT_EXCEEDED")
        assert r.headers["retry-after"] == "1"
        assert c.get(f"/default.svg?t={TOKEN}").status_code == 200  # ... but for an SVG
        assert c.get("/default.png").status_code == 429
        clock.now += 1.0  # a PNG's weight back
        assert c.get(f"/default.png?t={TOKEN}").status_code == 200
    with pytest.raises(ValueError):
        throttle.take("a", throttle.burst + 1)
    assert Throttle(rate=2, burst=10, clock=clock).take("b", 10) == 0


@pytest.mark.parametrize(
    ("header", "gzipped"),
    [("gzip", True), ("gzip, deflate, br", True), ("br;q=1.0, gzip;q=0.8", True),
     ("GZIP", True), ("x-gzip", True), ("*", True), ("deflate, *;q=0.1", True),
     ("", False), ("identity", False), ("br", False), ("gzip;q=0", False),
     ("gzip;q=0.000, *", False), ("*;q=0", False), ("gzip;q=junk", False),
     ("deflate;q=0.5, gzip ; q=0.2", True)],
)
def test_accept_encoding(header: str, gzipped: bool) -> None:
    assert accepts_gzip(header) is gzipped


def test_svg_gzip_negotiated_and_byte_identical(client: TestClient) -> None:
    document = render_svg(DATA)
    plain = client.get(f"/default.svg?t={TOKEN}", headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert plain.content == document.encode("utf-8")
    assert plain.headers["vary"] == "Accept-Encoding"
    with client.stream("GET", f"/default.svg?t={TOKEN}",
                       headers={"Accept-Encoding": "gzip"}) as packed:
        raw = b"".join(packed.iter_raw())
        assert packed.headers["content-encoding"] == "gzip"
        assert packed.headers["vary"] == "Accept-Encoding"
        assert packed.headers["content-type"] == "image/svg+xml"
        assert int(packed.headers["content-length"]) == len(raw) < len(document) // 4
    assert gzip.decompress(raw) == plain.content
    body, headers = svg_body(document, "gzip")
    assert body == raw and svg_body(document, "gzip")[0] == body  # no time stamp: stable
    assert headers["Content-Encoding"] == "gzip"


def test_split_image_name_and_png_links() -> None:
    assert split_image_name("default.png") == ("default", "png")
    assert split_image_name(f"{KNOWN}.svg") == (str(KNOWN), "svg")
    for bad in ("default", "default.gif", "default.PNG"):
        with pytest.raises(ValueError):
            split_image_name(bad)
    assert render_link("https://x.example/render", KNOWN, KNOWN_TOKEN, "png") == (
        f"https://x.example/render/{KNOWN}.png?t={KNOWN_TOKEN}")
