"""Debian's chromium (``/usr/bin/chromium``) driven by Playwright for Python: never a
downloaded browser. ``scripts/test.sh`` installs chromium when it is missing; without it
the browser tests fail (they do not skip)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless chromium browser (Playwright's ``Browser``), closed on exit."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: scripts/test.sh installs Debian's chromium "
                    "(apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the test extra brings it
        pytest.fail("playwright is missing: pip install 'bodygraph[test]'")
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield instance
        finally:
            instance.close()
