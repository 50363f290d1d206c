"""The refusals answered outside an operation speak the language a request names with
``?lang=`` (one supported code), as the operations' refusals do: the ``Host`` check, the
gate's last-resort 500 and 503, and the image route; ``Content-Language`` says which. The
error code stays; without ``lang``, with an unknown one and on v1 they stay English."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bodygraph.catalog.translations import LANGUAGES
from bodygraph_server import Settings, create_app
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.charting import ChartSource
from bodygraph_server.http.error_words import translated
from bodygraph_server.store import DatabaseUnavailableError

from .support import in_process

pytestmark = pytest.mark.anyio

TRANSLATED = [code for code in LANGUAGES if code != "en"]


async def _broken(request: Request) -> Response:
    raise RuntimeError("a bug")


async def _outage(request: Request) -> Response:
    raise DatabaseUnavailableError("the database is down")


@pytest.fixture
async def edge(settings: Settings, book: Bookkeeper,
               charts: ChartSource) -> AsyncIterator[httpx.AsyncClient]:
    """The app with two routes that fail as only a bug or an outage would."""
    app = create_app(settings, book=book, charts=charts,
                     extra_routes=[Route("/broken", _broken), Route("/outage", _outage)])
    async with in_process(app) as client:
        yield client


def said(english: httpx.Response, asked: httpx.Response, lang: str) -> None:
    """``asked`` is ``english`` with its message in ``lang`` (the catalogs' translation)."""
    assert asked.status_code == english.status_code
    assert asked.json()["errorCode"] == english.json()["errorCode"]
    message = english.json()["message"]
    assert translated(message, lang) != message, message  # the catalogs hold it
    assert asked.json()["message"] == translated(message, lang)
    assert asked.headers["content-language"] == lang
    assert "content-language" not in english.headers


@pytest.mark.parametrize("lang", TRANSLATED)
async def test_the_host_check_speaks_the_asked_language(edge: httpx.AsyncClient,
                                                        lang: str) -> None:
    foreign = {"Host": "evil.example"}
    english = await edge.get("/v2/account", headers=foreign)
    assert english.status_code == 400 and "BODYGRAPH_ALLOWED_HOSTS" in english.text
    said(english, await edge.get(f"/v2/account?lang={lang}", headers=foreign), lang)
    said(english, await edge.get(f"/docs?lang={lang}", headers=foreign), lang)
    for kept in ("/v2/account?lang=xx", "/v2/account?lang=de&lang=fr"):
        refused = await edge.get(kept, headers=foreign)
        assert refused.json()["message"] == english.json()["message"]
        assert "content-language" not in refused.headers
    v1 = await edge.post("/v1/bodygraphs?lang=de", headers=foreign, json={})
    assert v1.status_code == 400 and "content-language" not in v1.headers
    assert "BODYGRAPH_ALLOWED_HOSTS" in v1.text


@pytest.mark.parametrize("lang", ["de", "ja"])
async def test_the_gate_s_last_resort_speaks_the_asked_language(edge: httpx.AsyncClient,
                                                                lang: str) -> None:
    broken = await edge.get("/broken")
    assert broken.status_code == 500 and broken.json()["errorCode"] == "INTERNAL_ERROR"
    asked = await edge.get(f"/broken?lang={lang}")
    request_id = asked.headers["x-request-id"]
    assert request_id in asked.json()["message"]
    english = broken.json()["message"].replace(broken.headers["x-request-id"], request_id)
    assert asked.json()["message"] == translated(english, lang) != english
    assert asked.headers["content-language"] == lang
    outage = await edge.get("/outage")
    assert outage.status_code == 503 and outage.json()["errorCode"] == "SERVICE_UNAVAILABLE"
    said(outage, await edge.get(f"/outage?lang={lang}"), lang)


@pytest.mark.parametrize("lang", TRANSLATED)
async def test_the_image_route_s_refusals_speak_the_asked_language(
        client: httpx.AsyncClient, lang: str) -> None:
    for path, query in (("/render/nothing.txt", "?"), ("/render/default.svg", "?"),
                        ("/render/default.svg", "?t=a&t=b&"),
                        ("/render/default.svg", "?t=not-a-token&"),
                        ("/render/default.svg", "?t=k1.AAAA&")):
        english = await client.get(path + query.rstrip("?&"))
        assert english.status_code in (400, 404), english.text
        said(english, await client.get(f"{path}{query}lang={lang}"), lang)
    unknown = await client.get("/render/default.svg?t=x&lang=xx")
    assert unknown.status_code == 400 and unknown.json()["errorCode"] == "INVALID_LANGUAGE"
    assert "content-language" not in unknown.headers and "zh-Hans" in unknown.text
