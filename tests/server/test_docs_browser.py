"""The service's pages as a person uses them, in a real browser (Debian's chromium through
Playwright, :mod:`chromium`) against a real uvicorn with a fresh SQLite database.

/: a front page linking the others. /playground: a key, a birth, coordinates or a place
(no geocoding key: the service uses the offline gazetteer) -> the chart's type, its
activations by planet name, gates and channels in numeric order, and the rendered
bodygraph; a wrong key shows the contract's message. /docs: Swagger UI from this service's
own files, Authorize with the key, one "Try it out". Every page fits a phone's width
(390 x 844). Every request the pages make goes to the service's own origin.
"""

from __future__ import annotations

import importlib.util
import re
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.http.errors import ERROR_TABLE, ErrorCode
from bodygraph_server.resources.pages.operations import content_security_policy

from .support import REPO, Server, shared_served, tls_context

pytestmark = [pytest.mark.slow,  # its module starts first under xdist (tests/conftest.py)
              pytest.mark.browser]

WAIT_MS = 40_000  # a loaded machine: the first place name loads the gazetteer
PHONE = {"width": 390, "height": 844}


def wait_for_the_picture(page: Any) -> None:
    """Until the bodygraph image has loaded, asked from Python: ``wait_for_function``
    polls with an ``eval`` in the page that its Content-Security-Policy refuses."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while not page.evaluate("document.getElementById('bodygraph').naturalWidth > 0"):
        assert time.monotonic() < deadline, "the bodygraph image did not load"
        page.wait_for_timeout(100)


def _steps() -> ModuleType:
    """``scripts/screenshots.py``: the steps a person takes on the pages, shared with the
    screenshots of the docs."""
    spec = importlib.util.spec_from_file_location("bodygraph_screenshots",
                                                  REPO / "scripts" / "screenshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


STEPS = _steps()
BIRTH = STEPS.BIRTH


class Site:
    """A running service, its bookkeeping, and every URL the browser asked for."""

    def __init__(self, server: Server, book: Bookkeeper) -> None:
        self.server = server
        self.book = book
        self.requested: list[str] = []

    @property
    def url(self) -> str:
        return self.server.base_url

    def foreign(self) -> list[str]:
        """The requests that left the service's origin."""
        return [u for u in self.requested
                if not (u.startswith(self.url + "/") or u.startswith("data:"))]


@pytest.fixture(scope="module")
def site(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The service shared with the client tests (one per test session)."""
    return Site(*shared_served(pytestconfig, tmp_path_factory))


@pytest.fixture(params=[{"width": 1280, "height": 900}], ids=["desktop"])
def page(browser: Any, site: Site, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A page of ``request.param``'s viewport size (a desktop's unless a test asks for
    another with ``indirect``)."""
    one = browser.new_page(viewport=request.param)
    one.set_default_timeout(WAIT_MS)
    one.on("request", lambda request: site.requested.append(request.url))
    violations: list[str] = []
    one.on("console", lambda m: violations.append(m.text)
           if "Content Security Policy" in m.text else None)
    yield one
    one.close()
    assert violations == [], violations
    assert site.foreign() == [], f"requests left the service: {site.foreign()}"


def test_pages_carry_a_self_only_policy(site: Site) -> None:
    for path in ("/", "/docs", "/playground"):
        response = httpx.get(site.url + path, verify=tls_context())
        assert response.status_code == 200
        policy = response.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "http" not in policy
        assert "<script>" not in response.text  # no inline script (and no inline secret)
    style = httpx.get(site.url + "/docs/swagger-ui/swagger-ui-bundle.js", verify=tls_context())
    assert style.status_code == 200 and "javascript" in style.headers["content-type"]


def test_playground_shows_the_chart_and_its_image(page: Any, site: Site) -> None:
    key = site.book.create_account("developer").api_key
    STEPS.compute_chart(page, site.url, key)
    assert page.is_hidden("#error")
    expected = httpx.post(site.url + "/v2/charts/coordinates",
                          json={**BIRTH, "lat": 52.52, "lng": 13.405},
                          headers={"Authorization": f"Bearer {key}"},
                          verify=tls_context()).json()["data"]
    properties = page.inner_text("#properties")
    assert f"Type\t{expected['type']}" in properties
    assert f"Profile\t{expected['profile']}" in properties
    assert f"Authority\t{expected['authority']}" in properties
    activations = page.inner_text("#activations")
    sun = expected["activations"]
    assert f"Sun\t{sun['design']['sun']}\t{sun['personality']['sun']}" in activations
    assert re.search(r"/render/default\.svg\?t=", page.get_attribute("#bodygraph", "src"))
    wait_for_the_picture(page)
    assert "requests left this minute" in page.inner_text("#status")

    # A place name: the offline gazetteer needs no geocoding key, and the page asks for none.
    assert page.locator("#geocode-key").count() == 0
    STEPS.compute_chart(page, site.url, key, location="Berlin, Germany")
    assert page.is_hidden("#error"), page.inner_text("#error")
    assert f"Type\t{expected['type']}" in page.inner_text("#properties")


def test_playground_shows_the_services_message(page: Any, site: Site) -> None:
    STEPS.compute_chart(page, site.url, "not-a-key")
    message = ERROR_TABLE[ErrorCode.API_KEY_INVALID].message
    assert page.inner_text("#error") == f"{message} (API_KEY_INVALID)"
    assert page.is_hidden("#result")
    assert page.inner_text("#status") == ""
    key = site.book.create_account("developer").api_key
    STEPS.compute_chart(page, site.url, key, location="Qqqxzv Wwwjjk")
    assert "(GEOCODE_LOCATION_NOT_FOUND)" in page.inner_text("#error")


def numerically(texts: list[str]) -> list[str]:
    """Texts ordered by the numbers in them ("7-31" before "30-41")."""
    return sorted(texts, key=lambda text: [int(n) for n in re.findall(r"\d+", text)])


def test_playground_reads_like_a_person(page: Any, site: Site) -> None:
    """Planets by name; gates and channels in numeric order (the JSON keeps the contract's
    order: a text order for channels, the activations' for gates)."""
    key = site.book.create_account("developer").api_key
    STEPS.compute_chart(page, site.url, key)
    expected = httpx.post(site.url + "/v2/charts/coordinates",
                          json={**BIRTH, "lat": 52.52, "lng": 13.405},
                          headers={"Authorization": f"Bearer {key}"},
                          verify=tls_context()).json()["data"]
    planets = [row.split("\t")[0] for row in page.inner_text("#activations").splitlines()]
    assert planets[:5] == ["Planet", "Sun", "Earth", "North Node", "South Node"]
    assert "northNode" not in page.inner_text("#result")
    shown = dict(row.split("\t", 1) for row in page.inner_text("#properties").splitlines())
    for field, label in (("channelsLong", "Channels"), ("gates", "Gates")):
        assert expected[field] != numerically(expected[field])  # the test can tell
        assert shown[label] == ", ".join(numerically(expected[field]))
    assert shown["Channels"].index("(7-31)") < shown["Channels"].index("(30-41)")


def within(page: Any, selector: str) -> bool:
    """Whether the element's box lies inside the viewport's width."""
    return bool(page.eval_on_selector(selector, """e => { const b = e.getBoundingClientRect();
        return b.width > 0 && b.left >= 0 && b.right <= innerWidth; }"""))


def fits_width(page: Any) -> bool:
    """No horizontal scrolling: the document is no wider than the viewport."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= innerWidth"))


@pytest.mark.parametrize("page", [PHONE], ids=["phone"], indirect=True)
def test_pages_fit_a_phone(page: Any, site: Site) -> None:
    key = site.book.create_account("developer").api_key
    STEPS.compute_chart(page, site.url, key)
    wait_for_the_picture(page)
    assert fits_width(page)
    for selector in ("nav.bar", "nav.bar a[href='openapi.json']",
                     "h1", "#properties", "#activations", "#bodygraph", "#submit"):
        assert within(page, selector), selector
    page.goto(site.url + "/docs")
    page.wait_for_selector("#swagger-ui .opblock")
    assert fits_width(page)
    for selector in ("nav.bar", "nav.bar a[href='openapi.json']", "button.authorize",
                     "#swagger-ui .opblock"):
        assert within(page, selector), selector
    page.goto(site.url + "/")
    assert fits_width(page) and within(page, "nav.bar") and within(page, "main ul")


def test_front_page_links_the_pages(page: Any, site: Site) -> None:
    response = httpx.get(site.url + "/", verify=tls_context())
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    page.goto(site.url + "/")
    assert _icon(page) == site.url + ICON
    links = page.eval_on_selector_all("main a", "links => links.map(a => a.href)")
    assert links == [site.url + "/docs", site.url + "/playground", site.url + "/openapi.json"]
    page.click("main a[href=playground]")
    page.wait_for_selector("#chart-form")
    assert _icon(page) == site.url + ICON
    page.click("nav.bar a.home")
    page.wait_for_url(site.url + "/")
    page.click("main a[href=docs]")
    page.wait_for_selector("#swagger-ui .opblock")
    assert _icon(page) == site.url + ICON
    document = httpx.get(links[2], verify=tls_context()).json()
    assert document["openapi"].startswith("3.1")


def test_docs_try_it_out_with_a_key(page: Any, site: Site) -> None:
    key = site.book.create_account("developer").api_key
    operation = STEPS.try_it_out(page, site.url, key)
    status = operation.locator(".live-responses-table .response .response-col_status").first
    assert status.inner_text().strip() == "200"
    body = operation.locator(".live-responses-table .response-col_description pre").first
    assert '"type": "ChartResult"' in body.inner_text()
    assert "Error codes" in page.inner_text("main.rules")
    # In English the docs keep Swagger UI's own words and the document's summaries.
    english = httpx.get(site.url + "/openapi.json", verify=tls_context()).json()
    assert operation.locator(".opblock-summary-description").inner_text() == \
        english["paths"]["/v2/charts/coordinates"]["post"]["summary"]
    assert operation.locator("button.execute").inner_text().strip() == "Execute"
    operation.locator("button.try-out__btn.cancel").click()
    assert operation.locator("button.try-out__btn:not(.reset)").inner_text().strip() == \
        "Try it out"


def test_a_separate_render_host_is_allowed_for_images_only() -> None:
    policy = content_security_policy("https://img.example.com/render")
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["img-src"] == "'self' data: https://img.example.com"
    assert directives["default-src"] == "'self'"
    assert "img.example.com" not in policy.replace(directives["img-src"], "")


#: The icon every page links (test_front_page_links_the_pages looks in each page).
ICON = "/docs/static/favicon.svg"


def _icon(page: Any) -> str:
    """The address of the icon the page links."""
    return str(page.eval_on_selector("link[rel=icon]", "link => link.href"))


def test_favicon_ico_answers_the_icon_the_pages_link(site: Site) -> None:
    icon = httpx.get(site.url + "/favicon.ico", verify=tls_context())
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
    assert icon.text.startswith("<svg")
    linked = httpx.get(site.url + ICON, verify=tls_context())
    assert linked.status_code == 200 and linked.content == icon.content
