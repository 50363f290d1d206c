"""Every preset as a browser draws it: headless Chromium (Debian's ``chromium``, driven by
Playwright, never a downloaded browser) against the cairo PNG, texts inside the canvas,
and two charts inlined in one page keeping their own colours.

``scripts/test.sh`` installs chromium when it is missing; without it this test fails.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from bodygraph.render import (
    PRESET_NAMES,
    ConnectionInput,
    RenderInput,
    Theme,
    render_svg,
    svg,
)
from bodygraph.render.raster import svg_to_png

from .charts import connection_input, named_chart, transit_input

pytestmark = pytest.mark.browser

MAX_MEAN_DIFFERENCE = 4.0  # of 255, per channel, averaged over the image


def size(document: str) -> tuple[int, int]:
    width = float(document.split('width="', 2)[2].split('"', 1)[0])
    height = float(document.split('height="', 2)[2].split('"', 1)[0])
    return math.ceil(width), math.ceil(height)


@pytest.fixture(scope="module")
def page(browser: Any) -> Iterator[Any]:
    one = browser.new_page()
    yield one
    one.close()


def show(page: Any, body: str, width: int, height: int) -> Any:
    page.set_viewport_size({"width": width, "height": height})
    page.set_content("<!doctype html><html><head><style>body{margin:0;background:#fff}"
                     "svg{display:block}</style></head><body>" + body + "</body></html>")
    return page


def inline(document: str) -> str:
    return document.split("\n", 1)[1]  # without the XML declaration


def pixels(png: bytes) -> np.ndarray:
    """RGB values as 16-bit integers: differences fit, and their mean is the same float64
    mean of exact integers as with float64 pixels, in a quarter of the time."""
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).mean())


@pytest.mark.slow
def test_every_preset_looks_the_same_in_chromium_and_cairo(page: Any) -> None:
    # Every preset once, the overlays among them (four renders keep the test near 5 s).
    chart = RenderInput.from_chart(named_chart("manifesting-generator"))
    drawn = {"light": chart, "dark": connection_input(), "print": transit_input(),
             "high-contrast": chart}
    assert set(drawn) == set(PRESET_NAMES)
    cases = [(name, render_svg(data, Theme.preset(name))) for name, data in drawn.items()]
    shots = {}
    for name, document in cases:
        width, height = size(document)
        show(page, inline(document), width, height)
        shot = pixels(page.screenshot())
        outside = page.evaluate(
            """([w, h]) => [...document.querySelectorAll('svg text')].map(t => {
                 const b = t.getBBox();
                 return (b.x < 0 || b.y < 0 || b.x + b.width > w || b.y + b.height > h)
                   ? t.textContent : null; }).filter(x => x !== null)""", [width, height])
        assert outside == [], f"{name}: texts cut off at the edge: {outside}"
        cairo = pixels(svg_to_png(document, scale=1.0))
        assert shot.shape == cairo.shape
        diff = difference(shot, cairo)
        assert diff < MAX_MEAN_DIFFERENCE, f"{name}: chromium and cairo differ by {diff:.2f}"
        shots[name] = (shot, cairo)
    # The comparison tells themes apart: light in the browser is far from high-contrast
    # (the same chart) in cairo.
    assert difference(shots["light"][0], shots["high-contrast"][1]) > 10 * MAX_MEAN_DIFFERENCE


def test_texts_fit_a_narrow_canvas(page: Any) -> None:
    """Columns hidden: header, legend and summary wrap (or shrink) inside the canvas;
    long names shrink to their column."""
    narrow = Theme.from_dict({"show_design": False, "show_personality": False,
                              "show_summary": True})
    data = connection_input()
    long_names = ConnectionInput(data.first, data.second, "Maximilian Alexander W.",
                                 "Wilhelmina Montgomery-W.")
    for document in (svg(named_chart("manifesting-generator"), narrow),
                     render_svg(long_names, narrow), render_svg(long_names)):
        width, height = size(document)
        show(page, inline(document), width, height)
        boxes = page.evaluate("""() => [...document.querySelectorAll('svg text')].map(t => {
            const b = t.getBBox(); const g = t.closest('.activations');
            const c = g ? g.querySelector('.rule').getBBox() : null;
            return [t.textContent, b.x, b.x + b.width, c ? c.x - 6 : 0,
                    c ? c.x + c.width + 6 : 1e9]; })""")
        assert any(t.startswith("Manifesting Generator,") or t.startswith("Maximilian")
                   for t, *_ in boxes)
        for text, left, right, column_left, column_right in boxes:
            assert left >= 0 and right <= width, f"{text!r} cut off ({left:.0f}..{right:.0f})"
            assert column_left <= left and right <= column_right, f"{text!r} leaves its column"


def test_two_inlined_charts_keep_their_own_colours(page: Any) -> None:
    light = svg(named_chart("generator"))
    dark = svg(named_chart("manifestor"), Theme.preset("dark"))
    show(page, inline(light) + inline(dark), 1200, 2400)
    found = page.evaluate("""() => [...document.querySelectorAll('svg.bodygraph')].map(s => [
        getComputedStyle(s.querySelector('.background')).fill,
        getComputedStyle(s.querySelector('.gate-dot.design')).fill,
        getComputedStyle(s.querySelector('.center.open')).fill])""")
    ids = page.evaluate("() => [...document.querySelectorAll('[id]')].map(e => e.id)")
    # A page restyles one chart through a custom property on its root.
    page.evaluate("() => document.querySelectorAll('svg.bodygraph')[1]"
                  ".style.setProperty('--bodygraph-design-color', '#0000ff')")
    restyled = page.evaluate("""() => [...document.querySelectorAll('svg.bodygraph')].map(
        s => getComputedStyle(s.querySelector('.gate-dot.design')).fill)""")
    dark_theme = Theme.preset("dark")
    assert found == [["rgb(255, 255, 255)", "rgb(198, 40, 40)", "rgb(255, 255, 255)"],
                     ["rgb(21, 23, 28)", "rgb(255, 122, 122)", "rgb(42, 46, 54)"]]
    assert dark_theme.design_color == "#ff7a7a"
    assert len(ids) == len(set(ids)) > 200
    assert restyled == ["rgb(198, 40, 40)", "rgb(0, 0, 255)"]
