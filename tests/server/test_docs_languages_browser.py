"""``/docs?lang=`` in a real browser (Debian's chromium through Playwright) against a real
uvicorn: Swagger UI loads the document in the language, so an operation's summary is the
catalog's translation, and its own buttons and headings say the catalog's words; the front
page's menu loads it in a language, and its links keep it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from bodygraph.catalog.translations import catalog
from bodygraph_server.http.openapi import CONTEXT
from bodygraph_server.resources.pages.docs_page import SWAGGER_WORDS

from .support import shared_served, tls_context
from .test_docs_browser import STEPS, WAIT_MS, Site

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.fixture(scope="module")
def site(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Site:
    return Site(*shared_served(pytestconfig, tmp_path_factory))


@pytest.fixture
def page(browser: Any, site: Site) -> Iterator[Any]:
    one = browser.new_page(viewport={"width": 1280, "height": 900})
    one.set_default_timeout(WAIT_MS)
    one.on("request", lambda request: site.requested.append(request.url))
    errors: list[str] = []
    one.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    one.on("pageerror", lambda error: errors.append(str(error)))
    yield one
    one.close()
    assert errors == [], errors
    assert site.foreign() == [], f"requests left the service: {site.foreign()}"


def test_the_docs_in_japanese(page: Any, site: Site) -> None:
    say = catalog("ja").pgettext
    english = httpx.get(site.url + "/openapi.json", verify=tls_context()).json()
    summary = english["paths"]["/v2/charts/coordinates"]["post"]["summary"]
    translated = say(CONTEXT, summary)
    assert translated != summary
    page.goto(site.url + "/docs?lang=ja")
    operation = page.locator(STEPS.TRY_OPERATION)
    shown = operation.locator(".opblock-summary-description").inner_text()
    assert shown == translated
    assert page.inner_text("button.authorize").strip() == say("page", "Authorize")
    operation.locator(".opblock-summary").click()
    assert operation.locator("button.try-out__btn").inner_text().strip() == say(
        "page", "Try it out")
    assert say("page", "Parameters") in operation.locator(".opblock-section-header").first \
        .inner_text()
    operation.locator("button.try-out__btn").click()
    assert operation.locator("button.execute").inner_text().strip() == say("page", "Execute")
    assert operation.locator("button.try-out__btn.cancel").inner_text().strip() == say(
        "page", "Cancel")
    words = page.inner_text("#swagger-ui")
    for english_word in ("Try it out", "Execute", "Parameters", "Responses"):
        assert english_word not in words, english_word
    assert [word for words_of in SWAGGER_WORDS.values() for word in words_of
            if say("page", word) == word] == []  # Japanese says every one of them


def test_the_front_page_menu_keeps_the_language(page: Any, site: Site) -> None:
    page.goto(site.url + "/")
    with page.expect_navigation():
        page.select_option("#lang", "fr")
    assert page.url == site.url + "/?lang=fr"
    assert page.get_attribute("html", "lang") == "fr"
    assert page.inner_text("main a[href='playground?lang=fr']") == catalog("fr").pgettext(
        "page", "Playground")
    page.click("main a[href='docs?lang=fr']")
    page.wait_for_selector("#swagger-ui .opblock")
    assert page.url == site.url + "/docs?lang=fr"
    assert page.inner_text("button.authorize").strip() == catalog("fr").pgettext(
        "page", "Authorize")

