"""Debian's chromium (``/usr/bin/chromium``) driven by Playwright for Python: never a
downloaded browser. ``scripts/test.sh`` installs chromium when it is missing; without it
the browser tests fail (they do not skip).

One browser per test process, shared by the modules that follow one another: starting
Playwright's driver (a node process) and chromium costs about a CPU-second, and the two
browser modules (tests/render/test_browser.py, tests/server/test_docs_browser.py) are
dealt to the same xdist worker one after the other (tests/conftest.py). The browser stays
open after a module's ``with chromium()`` block and closes once the tests that follow are
in no module that uses one (:func:`after_test`). It cannot stay open for the rest of the
session: between its calls, Playwright's sync API leaves its event loop marked as the
thread's running loop, and ``asyncio.run`` in a later test would refuse to start.
Every module opens its own pages (each page in a browser context of its own: no cookies
or storage shared), and closes them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
FIXTURE = "browser"
"""The fixture (tests/conftest.py) by which a module's tests ask for the browser."""

_open: list[Any] = []  # [playwright, browser] while a browser runs
_blocks = [0]  # ``with chromium()`` blocks not yet left
_users: set[Path] = set()  # the modules with a test that uses FIXTURE


@contextmanager
def chromium() -> Iterator[Any]:
    """The process's headless chromium (Playwright's ``Browser``): launched when first
    asked for (again if it died), shared with the next module that asks."""
    browser = _browser()
    _blocks[0] += 1
    try:
        yield browser
    finally:
        _blocks[0] -= 1


def _browser() -> Any:
    if _open and _open[1].is_connected():
        return _open[1]
    close()
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: scripts/test.sh installs Debian's chromium "
                    "(apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the test extra brings it
        pytest.fail("playwright is missing: pip install 'bodygraph[test]'")
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    except BaseException:
        playwright.stop()
        raise
    _open[:] = [playwright, browser]
    return browser


def close() -> None:
    """Close the browser and stop Playwright's driver (nothing when none runs)."""
    if not _open:
        return
    playwright, browser = _open
    _open.clear()
    try:
        browser.close()
    finally:
        playwright.stop()


def note_users(items: Sequence[pytest.Item]) -> None:
    """Remember the modules whose collected tests use the browser fixture, each of which
    must carry the ``browser`` marker (``-m "not browser"`` leaves out every test that
    drives chromium)."""
    users = [item for item in items if FIXTURE in getattr(item, "fixturenames", ())]
    unmarked = sorted(item.nodeid for item in users if item.get_closest_marker("browser") is None)
    if unmarked:
        raise pytest.UsageError(f"these tests use chromium but are not marked browser: {unmarked}")
    _users.update(item.path for item in users)


def after_test(nextitem: pytest.Item | None) -> None:
    """After a test's teardown: close the browser unless the next test's module uses one
    (a module's block is left in its last test's teardown)."""
    if _blocks[0] == 0 and (nextitem is None or nextitem.path not in _users):
        close()
