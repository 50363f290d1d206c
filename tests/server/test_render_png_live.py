"""The PNG and gzip sides of the image route over a real uvicorn server (subprocess) on
127.0.0.1: a template made from a preset with the admin CLI (in process, on the same
database), the PNG of its link equal to the library's PNG of the same chart and theme,
every refusal of the SVG route on the PNG path, and gzip negotiated or not."""

from __future__ import annotations

import gzip
import json
import re
import struct
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from bodygraph.render import Theme, png_bytes, render_svg
from bodygraph_server.cli.admin import main

from .support import tls_context
from .test_visual_live import COORDS, IMMUTABLE, Site, expected_input, shared_site

pytestmark = pytest.mark.timeout(300)


def admin(db_url: str, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, str]:
    """``bodygraph-server --database-url DB ARGS... --json`` in process; its JSON output."""
    capsys.readouterr()
    assert main(["--database-url", db_url, *args, "--json"]) == 0
    out: dict[str, str] = json.loads(capsys.readouterr().out)
    return out


@pytest.fixture(scope="module")
def site(pytestconfig: pytest.Config,
         tmp_path_factory: pytest.TempPathFactory) -> tuple[Site, str]:
    """The server shared with test_visual_live (one per test session) and its database."""
    shared = shared_site(pytestconfig, tmp_path_factory)
    return shared.site, shared.db_url


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def svg_size(document: str) -> tuple[int, int]:
    found = re.search(r'<svg [^>]*width="(\d+)" height="(\d+)"', document)
    assert found is not None
    return int(found[1]), int(found[2])


def test_png_of_a_preset_template(site: tuple[Site, str],
                                  capsys: pytest.CaptureFixture[str]) -> None:
    server, db_url = site
    account = admin(db_url, capsys, "accounts", "create", "--plan", "developer")
    template = admin(db_url, capsys, "templates", "create", str(account["account_id"]),
                     "--name", "Dark", "--preset", "dark", "--activate")
    r = server.http.post("/v2/visual-charts/coordinates", json=COORDS,
                         headers={"Authorization": f"Bearer {account['api_key']}"})
    assert r.status_code == 200, r.text
    link = urlsplit(r.json()["svgRenderUrl"])
    assert link.path == f"/render/{template['template_id']}.svg"
    png_path = link.path.removesuffix(".svg") + ".png"

    image = server.http.get(f"{png_path}?{link.query}")
    assert image.status_code == 200, image.text
    assert image.headers["content-type"] == "image/png"
    assert image.headers["cache-control"] == IMMUTABLE
    assert image.headers["x-content-type-options"] == "nosniff"
    assert "content-encoding" not in image.headers
    dark = Theme.preset("dark")
    assert image.content == png_bytes(expected_input(), dark)
    width, height = svg_size(render_svg(expected_input(), dark))
    assert png_size(image.content) == (2 * width, 2 * height)
    head = server.http.head(f"{png_path}?{link.query}")
    assert head.status_code == 200 and head.content == b""

    # every refusal of the SVG route, on the PNG path
    token = parse_qs(link.query)["t"][0]
    changed = token[:40] + ("B" if token[40] == "A" else "A") + token[41:]
    for path, status, code in [
        (png_path, 400, "RENDER_TOKEN_MALFORMED"),
        (f"{png_path}?t=", 400, "RENDER_TOKEN_MALFORMED"),
        (f"{png_path}?t={token}&t={token}", 400, "RENDER_TOKEN_MALFORMED"),
        (f"{png_path}?t={token[:-1]}", 400, "RENDER_TOKEN_MALFORMED"),
        (f"{png_path}?t={changed}", 403, "RENDER_TOKEN_INVALID"),
        (f"/render/default.png?{link.query}", 403, "RENDER_TOKEN_INVALID"),
        (f"/render/{template['template_id'].upper()}.png?{link.query}", 404, "NOT_FOUND"),
        (f"{link.path.removesuffix('.svg')}.gif?{link.query}", 404, "NOT_FOUND"),
    ]:
        refused = server.http.get(path)
        assert refused.status_code == status, (path, refused.text)
        assert refused.headers["cache-control"] == "no-store"
        assert refused.headers["content-type"] == "application/json"
        assert refused.json()["errorCode"] == code
    assert server.http.post(f"{png_path}?{link.query}").status_code == 405


def test_svg_gzip_negotiated(site: tuple[Site, str],
                             capsys: pytest.CaptureFixture[str]) -> None:
    server, db_url = site
    account = admin(db_url, capsys, "accounts", "create", "--plan", "developer")
    r = server.http.post("/v2/visual-charts/coordinates", json=COORDS,
                         headers={"Authorization": f"Bearer {account['api_key']}"})
    link = urlsplit(r.json()["svgRenderUrl"])
    url = f"{link.path}?{link.query}"
    expected = render_svg(expected_input()).encode("utf-8")

    plain = server.http.get(url, headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert plain.content == expected and plain.headers["vary"] == "Accept-Encoding"
    with server.http.stream("GET", url, headers={"Accept-Encoding": "gzip, br"}) as packed:
        raw = b"".join(packed.iter_raw())
        assert packed.status_code == 200
        assert packed.headers["content-encoding"] == "gzip"
        assert packed.headers["vary"] == "Accept-Encoding"
        assert packed.headers["cache-control"] == IMMUTABLE
    assert gzip.decompress(raw) == expected and len(raw) < len(expected) // 4
    again = server.http.get(url, headers={"Accept-Encoding": "gzip"})
    assert again.content == expected  # httpx decodes it: the same document
    assert httpx.get(server.server.base_url + url, headers={"Accept-Encoding": "gzip;q=0"},
                     verify=tls_context()).headers.get("content-encoding") is None


def test_png_link_of_a_default_chart(site: tuple[Site, str],
                                     capsys: pytest.CaptureFixture[str],
                                     tmp_path: Path) -> None:
    server, db_url = site
    account = admin(db_url, capsys, "accounts", "create", "--plan", "developer")
    r = server.http.post("/v2/visual-charts/coordinates", json=COORDS,
                         headers={"Authorization": f"Bearer {account['api_key']}"})
    link = urlsplit(r.json()["svgRenderUrl"])
    assert link.path == "/render/default.svg"
    image = server.http.get(f"/render/default.png?{link.query}")
    assert image.status_code == 200 and image.content == png_bytes(expected_input())
