"""The image route: verified tokens only, immutable caching, templates with a 24-hour
style cache, refusals that are never cached; in-process (TestClient) and over real uvicorn."""

from __future__ import annotations

import base64
import socket
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import urlsplit
from uuid import UUID

import httpx
import pytest
import uvicorn
from server.support import tls_context
from starlette.applications import Starlette
from starlette.routing import Mount

from bodygraph.render import RenderInput, Theme, render_svg
from bodygraph_server.images.route import (
    IMMUTABLE,
    StyleCache,
    TemplateLookupError,
    parse_template,
    render_app,
    render_link,
)
from bodygraph_server.images.tokens import (
    KeyRing,
    SigningKey,
    issue,
)

from .charts import named_chart

if TYPE_CHECKING:  # starlette's test client (httpx2) is imported where it is used
    from starlette.testclient import TestClient

RING = KeyRing([SigningKey("k1", b"\x11" * 32)])
DATA = RenderInput.from_chart(named_chart("generator"))
TOKEN = issue(DATA, RING)
KNOWN = UUID("6f1c1b0e-5d4a-4c47-9a55-2f8e3c7b9d10")
UNKNOWN = UUID("00000000-0000-4000-8000-000000000000")
KNOWN_TOKEN = issue(DATA, RING, str(KNOWN))
BLUE = Theme.from_dict({"name": "blue", "design_color": "#1565c0"})


class Templates:
    """A template source that counts its lookups."""

    def __init__(self, themes: dict[UUID, Theme]) -> None:
        self.themes = themes
        self.calls: list[UUID] = []

    def style_for(self, template_id: UUID) -> Theme | None:
        self.calls.append(template_id)
        return self.themes.get(template_id)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def templates() -> Templates:
    return Templates({KNOWN: BLUE})


@pytest.fixture
def client(templates: Templates) -> Iterator[TestClient]:
    from starlette.testclient import TestClient

    with TestClient(render_app(RING, templates)) as c:
        yield c


def test_default_image(client: TestClient) -> None:
    r = client.get(f"/default.svg?t={TOKEN}")
    assert r.status_code == 200
    assert r.headers["content-type"] == "image/svg+xml"
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable" == IMMUTABLE
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.text == render_svg(DATA)
    assert "set-cookie" not in r.headers


def test_template_style_and_unknown_template(client: TestClient,
                                             templates: Templates) -> None:
    themed = client.get(f"/{KNOWN}.svg", params={"t": KNOWN_TOKEN})
    assert themed.status_code == 200
    assert themed.text == render_svg(DATA, BLUE)
    assert "#1565c0" in themed.text
    unknown = client.get(f"/{UNKNOWN}.svg", params={"t": issue(DATA, RING, str(UNKNOWN))})
    assert unknown.status_code == 200
    assert unknown.text == render_svg(DATA)
    assert unknown.headers["cache-control"] == IMMUTABLE
    again = client.get(f"/{KNOWN}.svg", params={"t": KNOWN_TOKEN})
    assert again.text == themed.text
    assert templates.calls == [KNOWN, UNKNOWN]  # the second fetch hit the cache
    # Only the canonical lower-case UUID names the template.
    assert client.get(f"/{str(KNOWN).upper()}.svg", params={"t": KNOWN_TOKEN}).status_code == 404


def test_a_token_is_refused_under_another_template(client: TestClient,
                                                   templates: Templates) -> None:
    for path, token in ((f"/{KNOWN}.svg", TOKEN), ("/default.svg", KNOWN_TOKEN),
                        (f"/{UNKNOWN}.svg", KNOWN_TOKEN)):
        r = client.get(path, params={"t": token})
        assert r.status_code == 403 and r.json()["errorCode"] == "RENDER_TOKEN_INVALID"
    assert templates.calls == []


def test_t_given_twice_is_malformed(client: TestClient) -> None:
    for path in ("/default.svg", "/default.png"):
        r = client.get(path, params=[("t", TOKEN), ("t", TOKEN)])
        assert r.status_code == 400 and r.json()["errorCode"] == "RENDER_TOKEN_MALFORMED"


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("", 400, "RENDER_TOKEN_MALFORMED"),
        ("?t=", 400, "RENDER_TOKEN_MALFORMED"),
        ("?t=hello", 400, "RENDER_TOKEN_MALFORMED"),
        (f"?t={TOKEN[:-1]}", 400, "RENDER_TOKEN_MALFORMED"),
        (f"?t={TOKEN}A", 400, "RENDER_TOKEN_MALFORMED"),
        (f"?t=k2.{TOKEN[3:]}", 403, "RENDER_TOKEN_INVALID"),
        (f"?t={TOKEN[:20]}{'B' if TOKEN[20] == 'A' else 'A'}{TOKEN[21:]}", 403,
         "RENDER_TOKEN_INVALID"),
    ],
)
def test_refusals_are_clear_and_never_cached(client: TestClient, query: str, status: int,
                                             code: str) -> None:
    for name in ("default", str(KNOWN)):
        for suffix in ("svg", "png"):  # the PNG path refuses exactly what the SVG path does
            r = client.get(f"/{name}.{suffix}{query}")
            assert r.status_code == status
            assert r.headers["cache-control"] == "no-store"
            assert r.headers["content-type"] == "application/json"
            assert r.json()["errorCode"] == code and r.json()["success"] is False


def test_refused_token_never_reaches_the_template_source(client: TestClient,
                                                         templates: Templates) -> None:
    client.get(f"/{KNOWN}.svg?t=k2.{TOKEN[3:]}")
    assert templates.calls == []


@pytest.mark.parametrize("name", ["nonsense", "6f1c1b0e5d4a4c479a552f8e3c7b9d10",
                                  "{6f1c1b0e-5d4a-4c47-9a55-2f8e3c7b9d10}"])
def test_unknown_path_shapes_are_404(client: TestClient, name: str) -> None:
    r = client.get(f"/{name}.svg?t={TOKEN}")
    assert r.status_code == 404
    assert r.headers["cache-control"] == "no-store"


def test_only_get_and_head(client: TestClient) -> None:
    assert client.post(f"/default.svg?t={TOKEN}").status_code == 405
    head = client.head(f"/default.svg?t={TOKEN}")
    assert head.status_code == 200 and head.content == b""


def test_template_source_failure_is_503_and_not_cached() -> None:
    from starlette.testclient import TestClient

    class Broken:
        def style_for(self, template_id: UUID) -> Theme | None:
            raise TemplateLookupError("database unavailable")

    with TestClient(render_app(RING, Broken())) as c:
        r = c.get(f"/{KNOWN}.svg?t={KNOWN_TOKEN}")
        assert r.status_code == 503 and r.headers["cache-control"] == "no-store"
        assert c.get(f"/default.svg?t={TOKEN}").status_code == 200  # no lookup needed


def test_style_cache_keeps_answers_24_hours_and_is_bounded(templates: Templates) -> None:
    clock = Clock()
    cache = StyleCache(templates, clock=clock, max_entries=2)
    assert cache.style_for(KNOWN) == BLUE
    clock.now += 24 * 3600 - 1
    assert cache.style_for(KNOWN) == BLUE
    assert templates.calls == [KNOWN]
    templates.themes[KNOWN] = Theme()  # the owner changed the template
    clock.now += 2
    assert cache.style_for(KNOWN) == Theme()
    assert templates.calls == [KNOWN, KNOWN]
    for i in range(5):
        cache.style_for(UUID(int=i))
    assert len(cache) == 2
    with pytest.raises(ValueError):
        StyleCache(templates, ttl=0)


def test_mounted_under_render_and_links_resolve(templates: Templates) -> None:
    from starlette.testclient import TestClient

    parent = Starlette(routes=[Mount("/render", app=render_app(RING, templates))])
    link = render_link("https://api.example.com/render/", KNOWN, KNOWN_TOKEN)
    assert link == f"https://api.example.com/render/{KNOWN}.svg?t={KNOWN_TOKEN}"
    assert render_link("https://img.example.com", None, TOKEN).startswith(
        "https://img.example.com/default.svg?t=k1.")
    parts = urlsplit(link)
    with TestClient(parent) as c:
        r = c.get(f"{parts.path}?{parts.query}")
        assert r.status_code == 200 and r.text == render_svg(DATA, BLUE)


def test_parse_template() -> None:
    assert parse_template("default") is None
    assert parse_template(str(KNOWN)) == KNOWN
    for bad in ("Default", "", "urn:uuid:" + str(KNOWN), str(KNOWN).replace("-", ""),
                str(KNOWN).upper()):
        with pytest.raises(ValueError):
            parse_template(bad)


def test_served_by_real_uvicorn_without_any_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    from bodygraph_server.images import route as render

    spec = "k1:" + base64.urlsafe_b64encode(RING.current.secret).decode()
    monkeypatch.setenv("BODYGRAPH_RENDER_KEYS", spec)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(render.standalone_app, factory=True, host="127.0.0.1", port=port,
                            log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        url = render_link(f"http://127.0.0.1:{port}", None, TOKEN)
        with httpx.Client(verify=tls_context()) as client:
            r = client.get(url)
            assert r.status_code == 200 and r.text == render_svg(DATA)
            assert r.headers["cache-control"] == IMMUTABLE
            assert client.get(url[:-1]).status_code == 400
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.mark.parametrize("query", ["", "?t=hello", f"?t={TOKEN[:-1]}", f"?t=k2.{TOKEN[3:]}"])
def test_the_render_app_says_its_refusals_in_lang(client: TestClient, query: str) -> None:
    """As the service's image route does (its error words): ``?lang=de`` says the message
    in German with ``Content-Language``, the code unchanged."""
    from bodygraph_server.http.error_words import translated

    for path in ("/default.svg", "/nonsense.svg"):
        english = client.get(f"{path}{query}")
        joiner = "&" if query else "?"
        german = client.get(f"{path}{query}{joiner}lang=de")
        assert german.status_code == english.status_code
        assert german.json()["errorCode"] == english.json()["errorCode"]
        assert german.headers["content-language"] == "de"
        assert "content-language" not in english.headers
        message = english.json()["message"]
        assert german.json()["message"] == translated(message, "de") != message


def test_the_render_app_says_messages_with_values() -> None:
    from bodygraph_server.http.error_words import translated
    from bodygraph_server.images.route import MESSAGES, said_in

    for message in MESSAGES:
        english = message.format(version=9, reason="byte 3 is 0xff",
                                 codes="en, de", message="x")
        assert said_in(english, "de") == translated(english, "de") != english
        assert said_in(english, "en") == english
