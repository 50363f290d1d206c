"""The playground's "Find my birth time" tab in a real browser (Debian's chromium through
Playwright) against the real uvicorn the session shares: the tab calls
/v2/rectifications with the pasted key and draws the windows the service answers on a
24-hour timeline (one row per local day), lists them, and shows the service's refusals."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from bodygraph_server.resources.pages.birth_time import COUNTED, WORDS

from .support import tls_context
from .test_docs_browser import Site, page, site  # noqa: F401 (the module's fixtures)

pytestmark = [pytest.mark.slow, pytest.mark.browser]

DAY = {"date": "1980-01-03", "lat": "51.5074", "lng": "-0.1278"}
X0, WIDTH = 82, 640  # the timeline's left edge and the width of 24 hours (birth_time.js)


def open_tab(page: Any, url: str, key: str) -> None:  # noqa: F811
    page.goto(url + "/playground")
    assert page.is_hidden("#birth-time-panel")
    page.fill("#api-key", key)  # typed in the chart's tab: offered in this one
    page.click("#tab-birth-time")
    assert page.is_visible("#birth-time-panel") and page.is_hidden("#chart-panel")
    assert page.get_attribute("#tab-birth-time", "aria-selected") == "true"
    assert page.input_value("#bt-api-key") == key


def search(page: Any, **fields: str) -> None:  # noqa: F811
    for name, value in fields.items():
        selector = "#bt-" + name.replace("_", "-")
        if page.locator(selector).evaluate("e => e.tagName") == "SELECT":
            page.select_option(selector, value)
        else:
            page.fill(selector, value)
    page.click("#bt-submit")
    page.wait_for_selector("#bt-result:not([hidden]), #bt-error:not([hidden])")


def hours(seconds: float) -> float:
    return seconds / 3600


def test_the_windows_on_a_24_hour_timeline(page: Any, site: Site) -> None:  # noqa: F811
    key = site.book.create_account("developer").api_key
    open_tab(page, site.url, key)
    search(page, **DAY, to_date="1980-01-04", profile="3/5", type="Generator",
           centers="Sacral")
    assert page.is_hidden("#bt-error"), page.inner_text("#bt-error")
    expected = httpx.post(
        site.url + "/v2/rectifications",
        json={"date": "1980-01-03", "toDate": "1980-01-04", "lat": 51.5074, "lng": -0.1278,
              "constraints": {"profile": "3/5", "type": "Generator", "centers": ["Sacral"]}},
        headers={"Authorization": f"Bearer {key}"}, verify=tls_context()).json()["data"]
    windows = expected["windows"]
    assert windows
    summary = page.inner_text("#bt-summary")
    found = COUNTED["found"]
    assert summary == found.english(len(windows)).format(count=len(windows))

    # one row per local day, the searched part of each, the bars where the windows are
    rows = page.locator("#bt-timeline rect.day")
    assert rows.count() == 2
    labels = page.locator("#bt-timeline text").evaluate_all(
        "nodes => nodes.map(node => node.textContent)")
    assert "1980-01-03" in labels and "1980-01-04" in labels and "24:00" in labels
    bars = page.locator("#bt-timeline rect.window")
    drawn: list[tuple[int, float, float]] = []
    for i in range(bars.count()):
        bar = bars.nth(i)
        x, width = (float(bar.get_attribute(a)) for a in ("x", "width"))
        drawn.append((int(bar.get_attribute("data-window")), hours((x - X0) / WIDTH * 86400),
                      hours((x + width - X0) / WIDTH * 86400)))
    assert {i for i, _, _ in drawn} == set(range(len(windows)))
    for i, window in enumerate(windows):  # London in January: local time is UTC
        start, end = (re.match(r".{11}(\d\d):(\d\d):(\d\d)", window[k]) for k in
                      ("fromLocal", "toLocal"))
        assert start is not None and end is not None
        begins = sum(int(g) * f for g, f in zip(start.groups(), (1, 1 / 60, 1 / 3600),
                                                 strict=True))
        ends = sum(int(g) * f for g, f in zip(end.groups(), (1, 1 / 60, 1 / 3600),
                                               strict=True))
        pieces = [(a, b) for j, a, b in drawn if j == i]
        if window["fromLocal"][:10] == window["toLocal"][:10] or ends == 0:
            assert len(pieces) == 1
            assert pieces[0][0] == pytest.approx(begins, abs=0.01)
            assert pieces[0][1] == pytest.approx(ends or 24, abs=0.01)
        else:  # across midnight: two bars
            assert sorted(pieces) == [pytest.approx((0, ends), abs=0.01),
                                      pytest.approx((begins, 24), abs=0.01)]

    # the table: one row per window, local times first, then UTC and the chart
    table = page.inner_text("#bt-windows").splitlines()
    assert table[0].split("\t") == [WORDS["from"], WORDS["to"], WORDS["utc"], WORDS["chart"]]
    assert len(table) == 1 + len(windows)
    first = table[1].split("\t")
    assert first[0].startswith(windows[0]["fromLocal"][:10] + " "
                               + windows[0]["fromLocal"][11:19])
    assert first[3].startswith("3/5 Generator, ")
    assert "requests left this minute" in page.inner_text("#bt-status")


def test_nothing_fits_and_refusals(page: Any, site: Site) -> None:  # noqa: F811
    key = site.book.create_account("developer").api_key
    open_tab(page, site.url, key)
    search(page, **DAY, type="Reflector", centers="Sacral")
    assert page.inner_text("#bt-summary") == WORDS["found_none"]
    assert page.locator("#bt-timeline rect.window").count() == 0
    assert page.locator("#bt-timeline rect.day").count() == 1

    search(page, type="", centers="", profile="3/5", to_date="1980-01-12")
    assert page.is_hidden("#bt-result")
    error = page.inner_text("#bt-error")
    assert "at most 7 days" in error and error.endswith("(INVALID_OPTION)")

    search(page, to_date="", profile="", gates="38, x")
    assert page.inner_text("#bt-error") == WORDS["bad_gates"]

    search(page, gates="", cross="Cross of Nothing")
    assert "unknown incarnation cross" in page.inner_text("#bt-error")


def test_a_wall_time_that_occurs_twice_is_marked(page: Any, site: Site) -> None:  # noqa: F811
    open_tab(page, site.url, site.book.create_account("developer").api_key)
    search(page, date="2024-10-27", lat="51.5074", lng="-0.1278", from_time="01:15",
           to_time="01:45", activations="personality.moon=59")  # London's fold
    cells = page.inner_text("#bt-windows").splitlines()[1].split("\t")
    assert cells[0] == f"2024-10-27 01:15:00 +01:00 ({WORDS['first_pass']})"
    assert cells[1] == f"2024-10-27 01:45:00 +00:00 ({WORDS['second_pass']})"
    assert cells[2] == "00:15:00 - 01:45:00"
    assert page.locator("#bt-timeline rect.window").count() == 1


def test_every_word_of_the_tab_is_in_one_place(site: Site) -> None:  # noqa: F811
    text = httpx.get(site.url + "/playground", verify=tls_context()).text
    panel = text.split("id='birth-time-panel'", 1)[1].split("</main>", 1)[0]
    for word in ("tab_birth_time", "known", "submit", "where"):
        assert WORDS[word].replace("'", "&#x27;") in text
    script = httpx.get(site.url + "/docs/static/birth_time.js", verify=tls_context()).text
    code = "\n".join(line.split("//")[0] for line in script.splitlines())
    quoted = set(re.findall(r'"([A-Za-z][a-z]+(?: [a-z]+)+)"', code)) - {"use strict"}
    assert quoted == set(), quoted  # no words in the script's code: it reads WORDS
    assert "data-words=" in panel


def test_the_tab_in_a_language(page: Any, site: Site) -> None:  # noqa: F811
    """In the menu's language: the tab's words, the lists' values, the answer's chart words
    (the search asks the API with ?lang=)."""
    from bodygraph.catalog.translations import term
    from bodygraph_server.resources.pages.birth_time import words_in

    said = words_in("ja")
    key = site.book.create_account("developer").api_key
    page.goto(site.url + "/playground?lang=ja")
    page.fill("#api-key", key)
    page.click("#tab-birth-time")
    assert page.inner_text("#tab-birth-time") == said["tab_birth_time"]
    assert page.inner_text("#bt-submit") == said["submit"]
    shown = page.eval_on_selector("#bt-type", "s => [...s.options].map(o => o.text)")
    assert term("type", "Generator", "ja") in shown and "Generator" not in shown
    search(page, **DAY, profile="3/5", type="Generator")
    assert page.is_hidden("#bt-error"), page.inner_text("#bt-error")
    summary = page.inner_text("#bt-summary")
    count = int(re.sub(r"\D", "", summary) or 0)
    assert summary == (said["found_none"] if count == 0 else
                       COUNTED["found"].said("ja", count).format(count=count))
    table = page.inner_text("#bt-windows")
    assert table.splitlines()[0].split("\t") == [said["from"], said["to"], said["utc"],
                                                 said["chart"]]
    assert term("type", "Generator", "ja") in table and "Generator" not in table
