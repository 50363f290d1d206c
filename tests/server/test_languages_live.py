"""``lang`` end to end on a real uvicorn server (the one test_visual_live shares): the chart
endpoint in every language, its render link drawn in the language, a tampered ``lang``
changing only the words and an unknown one refused by the image route."""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest

import bodygraph
from bodygraph.catalog.translations import LANGUAGES
from bodygraph.render import RenderInput, render_svg
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store import open_store

from .test_visual_live import COORDS, IMMUTABLE, Shared, Site, shared_site

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

WORDS = re.compile(r">[^<]*<")
PREFIX = re.compile(r"bg-[0-9a-f]{12}")


def graph(svg: str) -> str:
    """The drawn bodygraph of an image (its centers, channels and gates, up to the
    variables), without its texts and with the ids' prefix (a hash of the words) blanked."""
    drawn = svg[svg.index('class="graph"'):svg.index('class="variables"')]
    return WORDS.sub("><", PREFIX.sub("bg-", drawn))


@pytest.fixture(scope="module")
def shared(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Shared:
    return shared_site(pytestconfig, tmp_path_factory)


@pytest.fixture(scope="module")
def auth(shared: Shared) -> dict[str, str]:
    with Bookkeeper(open_store(shared.db_url)) as book:
        return {"Authorization": f"Bearer {book.create_account('scale').api_key}"}


def the_chart() -> bodygraph.Chart:
    return bodygraph.calculate(datetime(1990, 7, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin")))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_chart_in_every_language(shared: Shared, auth: dict[str, str], lang: str) -> None:
    site: Site = shared.site
    plain = site.http.post("/v2/charts/coordinates", json=COORDS, headers=auth)
    asked = site.http.post(f"/v2/charts/coordinates?lang={lang}", json=COORDS, headers=auth)
    assert asked.status_code == 200, asked.text
    assert asked.headers["content-language"] == lang
    body = asked.json()
    assert body["data"] == plain.json()["data"]
    assert body["labels"] == the_chart().labels(lang)  # the library's words (complete:
    # tests/i18n), under data's keys


@pytest.mark.parametrize("lang", ["de", "ja"])
def test_render_link_in_the_language(shared: Shared, auth: dict[str, str], lang: str) -> None:
    site = shared.site
    answer = site.http.post("/v2/visual-charts/coordinates", json={**COORDS, "lang": lang},
                            headers=auth).json()
    link = urlsplit(answer["svgRenderUrl"])
    assert link.query.endswith(f"&lang={lang}")
    image = site.http.get(f"{link.path}?{link.query}")
    assert image.status_code == 200 and image.headers["cache-control"] == IMMUTABLE
    drawn = RenderInput.from_chart(the_chart())
    assert image.text == render_svg(drawn, lang=lang)
    assert image.text != render_svg(drawn)


def test_a_tampered_language_changes_only_words(shared: Shared, auth: dict[str, str]) -> None:
    site = shared.site
    answer = site.http.post("/v2/visual-charts/coordinates?lang=de", json=COORDS,
                            headers=auth).json()
    link = urlsplit(answer["svgRenderUrl"])
    german = site.http.get(f"{link.path}?{link.query}").text
    french = site.http.get(f"{link.path}?{link.query.replace('lang=de', 'lang=fr')}")
    assert french.status_code == 200
    english = site.http.get(f"{link.path}?{link.query.replace('&lang=de', '')}").text
    drawn = RenderInput.from_chart(the_chart())
    assert french.text == render_svg(drawn, lang="fr")
    assert english == render_svg(drawn)
    assert len({german, french.text, english}) == 3
    # the same bodygraph (centers, channels, gates): only its words differ
    assert graph(german) == graph(french.text) == graph(english)
    assert len(re.findall(r'<g id="bg--gate-\d+"', graph(english))) == 64


@pytest.mark.parametrize("query", ["&lang=xx", "&lang=", "&lang=de&lang=fr", "&lang=DE"])
def test_an_unknown_language_is_refused_by_the_image_route(
        shared: Shared, auth: dict[str, str], query: str) -> None:
    site = shared.site
    answer = site.http.post("/v2/visual-charts/coordinates", json=COORDS,
                            headers=auth).json()
    link = urlsplit(answer["svgRenderUrl"])
    for suffix in ("svg", "png"):
        path = link.path.replace(".svg", f".{suffix}")
        refused = site.http.get(f"{path}?{link.query}{query}")
        assert refused.status_code == 400
        assert refused.headers["cache-control"] == "no-store"
        body = refused.json()
        assert body["errorCode"] == "INVALID_LANGUAGE"
        assert body["message"].endswith("use one of " + ", ".join(LANGUAGES))
