"""The playground's language menu in a real browser (Debian's chromium through Playwright)
against a real uvicorn: for every language, the chart's table and the page's words are in
it, and no English word of the tables is left where the catalogs translate it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

import bodygraph
from bodygraph.catalog.translations import LANGUAGES, catalog, english_body_name, term
from bodygraph.model.chart import BODIES

from .support import shared_served, tls_context
from .test_docs_browser import BIRTH, WAIT_MS, Site, wait_for_the_picture

pytestmark = [pytest.mark.slow, pytest.mark.browser]

#: The page's words of the table (its row and column headings).
HEADINGS = ("Type", "Profile", "Strategy", "Authority", "Definition", "Incarnation cross",
            "Signature", "Not-self theme", "Defined centers", "Channels", "Gates", "Planet")


@pytest.fixture(scope="module")
def site(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Site:
    return Site(*shared_served(pytestconfig, tmp_path_factory))


@pytest.fixture
def page(browser: Any, site: Site) -> Iterator[Any]:
    one = browser.new_page(viewport={"width": 1280, "height": 900})
    one.set_default_timeout(WAIT_MS)
    violations: list[str] = []
    one.on("console", lambda m: violations.append(m.text)
           if "Content Security Policy" in m.text else None)
    yield one
    one.close()
    assert violations == [], violations


def the_chart() -> bodygraph.Chart:
    return bodygraph.calculate(datetime(1990, 7, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin")))


def translated_pairs(lang: str) -> list[tuple[str, str]]:
    """(English, translation) of every word the table shows where the two differ: the
    chart's words, the bodies, the sides and the page's headings."""
    english, there = the_chart().labels("en"), the_chart().labels(lang)
    pairs: list[tuple[str, str]] = []
    for key, value in english.items():
        if isinstance(value, list):
            pairs += zip(value, there[key], strict=True)
        else:
            pairs.append((value, there[key]))
    pairs += [(english_body_name(b.value), term("body", english_body_name(b.value), lang))
              for b in BODIES]
    pairs += [(side, term("side", side, lang)) for side in ("Design", "Personality")]
    pairs += [(h, catalog(lang).pgettext("page", h)) for h in HEADINGS]
    return [(e, t) for e, t in pairs if e != t]


def english_left(text: str, pairs: list[tuple[str, str]]) -> list[str]:
    """The English words of ``pairs`` found in ``text`` as whole words (a translation
    that holds the English word, as ``Projektor`` does not hold ``Projector``, is fine)."""
    left = []
    for english, translation in pairs:
        found = re.search(rf"(?<!\w){re.escape(english)}(?!\w)", text)
        if found and not re.search(rf"(?<!\w){re.escape(english)}(?!\w)", translation):
            left.append(english)
    return left


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_playground_in_every_language(page: Any, site: Site, lang: str) -> None:
    key = site.book.create_account("developer").api_key
    page.goto(site.url + "/playground")
    if lang != "en":  # the menu: the page again, in the language
        with page.expect_navigation():
            page.select_option("#lang", lang)
    assert page.url.endswith("/playground" + ("" if lang == "en" else f"?lang={lang}"))
    assert page.get_attribute("html", "lang") == lang
    assert page.eval_on_selector("#lang", "s => s.value") == lang
    page.fill("#api-key", key)
    page.fill("#birthdate", BIRTH["birthdate"])
    page.fill("#birthtime", BIRTH["birthtime"])
    page.fill("#lat", "52.52")
    page.fill("#lng", "13.405")
    page.click("#submit")
    page.wait_for_selector("#result:not([hidden])")
    table = page.inner_text("#result")
    labels = the_chart().labels(lang)
    shown = dict(row.split("\t", 1) for row in page.inner_text("#properties").splitlines())
    assert shown[catalog(lang).pgettext("page", "Type")] == labels["type"]
    assert shown[catalog(lang).pgettext("page", "Authority")] == labels["authority"]
    assert english_left(table, translated_pairs(lang)) == []
    if lang != "en":
        assert len(translated_pairs(lang)) > 20  # the check has words to look for
    wait_for_the_picture(page)
    assert page.get_attribute("#bodygraph", "src").endswith(
        "" if lang == "en" else f"&lang={lang}")
    status = page.inner_text("#status")
    from bodygraph.catalog.translations import plural_forms, plural_index
    from bodygraph_server.resources.pages.birth_time import REQUESTS_LEFT

    # the form the page chose is the one of its count
    forms = plural_forms(REQUESTS_LEFT, lang)
    chosen = [(i, found) for i, form in enumerate(forms) if (found := re.fullmatch(
        re.escape(form).replace(r"\{count\}", r"(\d+)"), status))]
    assert chosen and chosen[0][0] == plural_index(lang, int(chosen[0][1][1])), status


def test_the_page_refuses_an_unknown_language(site: Site) -> None:
    refused = httpx.get(site.url + "/playground?lang=xx", verify=tls_context())
    assert refused.status_code == 400 and "zh-Hans" in refused.text
    german = httpx.get(site.url + "/playground?lang=de", verify=tls_context())
    assert german.status_code == 200 and "<html lang='de'>" in german.text
    assert "Geburtsdatum" in german.text


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_the_birth_time_tab_speaks_the_menus_language(lang: str) -> None:
    """Every word of the "Find my birth time" tab (its script's too) is the catalog's."""
    import html
    import json

    from bodygraph_server.resources.pages.birth_time import (
        _GEOCODE_KEY_FIELD,
        _PANEL,
        COUNTED,
        TABS,
        WORDS,
        birth_time_panel,
        counted_words_in,
        words_in,
    )
    from bodygraph_server.resources.pages.playground import playground_page

    said = words_in(lang)
    page = playground_page("bodygraph", lang=lang)
    panel = birth_time_panel(True, lang)
    assert panel in page
    words = re.search(r"data-words='([^']*)'", panel)
    assert words is not None and json.loads(html.unescape(words[1])) == {
        **said, **counted_words_in(COUNTED, lang)}
    text = re.sub(r"data-words='[^']*'", "", panel)
    shown = set(re.findall(r"\{(\w+)\}", _PANEL + _GEOCODE_KEY_FIELD + TABS + "{type}"))
    for key, english in WORDS.items():
        if said[key] != english and key in shown:  # the others: the script's, in data-words
            assert html.escape(said[key], quote=True) in page, (key, said[key])
            assert html.escape(english, quote=True) not in text, (key, english)
