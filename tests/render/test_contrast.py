"""Contrast, computed from the SVG itself: every gate number and activation dot reaches
4.5:1 (WCAG 2) against what lies under it, and every other text against the background,
in every shipped theme; design and personality stay apart in black and white."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from bodygraph.render import PRESET_NAMES, Theme, png_bytes, render_svg
from bodygraph.render.color import MIN_CONTRAST, contrast
from bodygraph.render.geometry import layout
from bodygraph.render.model import RenderInput

from .cascade import SVG
from .charts import NAMED, connection_input, named_chart, transit_input

INPUTS: dict[str, Callable[[], Any]] = {
    **{name: (lambda n=name: RenderInput.from_chart(named_chart(n))) for name in NAMED},
    "transit": transit_input,
    "connection": connection_input,
}


def classes(e: ET.Element) -> set[str]:
    return set(e.attrib.get("class", "").split())


def check(document: str, theme: Theme) -> int:
    """Assert every ratio; returns how many were checked."""
    root = ET.fromstring(document)
    background = theme.background
    checked = 0

    def ok(fg: str, bg: str, what: str) -> None:
        nonlocal checked
        ratio = contrast(fg, bg)
        assert ratio >= MIN_CONTRAST, f"{what}: {fg} on {bg} is {ratio:.2f}:1"
        checked += 1

    inside_graph: set[ET.Element] = set()
    for group in root.iter(f"{SVG}g"):
        if "center-group" not in classes(group):
            continue
        shape = next(e for e in group if "center" in classes(e))
        under = shape.attrib["fill"]
        for gate in group:
            if "gate" not in classes(gate):
                continue
            inside_graph.update(gate.iter())
            dots = [e for e in gate if "gate-dot" in classes(e)]
            for d in dots:
                assert float(d.attrib["stroke-width"]) >= 2
                ok(d.attrib["stroke"], under, f"ring of {gate.attrib['id']}")
            texts = list(gate.iter(f"{SVG}text"))
            halos = [t for t in texts if "halo" in classes(t)]
            for number in texts:
                if number in halos:
                    continue
                backs = [h.attrib["stroke"] for h in halos] or [
                    d.attrib["fill"] for d in dots] or [under]
                for back in backs:
                    ok(number.attrib["fill"], back, f"number of {gate.attrib['id']}")
    for e in root.iter():
        if e in inside_graph:
            continue
        if "gate-dot" in classes(e):  # legend samples sit on the background
            ok(e.attrib["stroke"], background, "legend dot")
        elif e.tag in (f"{SVG}text", f"{SVG}tspan") and "fill" in e.attrib:
            ok(e.attrib["fill"], background, f"text {''.join(e.itertext())!r}")
        elif "planet" in classes(e):
            ok(e.attrib["stroke"], background, f"glyph {e.attrib['data-glyph']}")
    return checked


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_every_number_dot_and_text_reads(preset: str, name: str) -> None:
    theme = Theme.preset(preset)
    assert check(render_svg(INPUTS[name](), theme), theme) > 60
    compact = Theme.from_dict({"variant": "compact", "show_summary": True}, base=theme)
    assert check(render_svg(INPUTS[name](), compact), compact) > 60


def test_rings_and_inks_appear_where_the_colours_alone_do_not_read() -> None:
    """The light theme's red design dot on the red Sacral gets a ring; its gate numbers on
    the red Sacral are not the preferred grey."""
    document = render_svg(RenderInput.from_chart(named_chart("generator")))
    gate5 = re.search(r'<g id="bg-\w+-gate-5".*?</g>', document, re.S)
    assert gate5 is not None and "ring-text" in gate5.group(0)
    theme = Theme()
    assert contrast(theme.design_color, theme.centers.sacral) < MIN_CONTRAST  # why it's needed
    assert contrast(theme.gate_text, theme.centers.sacral) < MIN_CONTRAST
    gate14 = re.search(r'<g id="bg-\w+-gate-29".*?</g>', document, re.S)  # inactive, on Sacral
    assert gate14 is not None and 'class="gate-number ink-' in gate14.group(0)


def test_a_bad_custom_theme_still_gets_readable_numbers_and_rings() -> None:
    """Numbers and rings fall back to the theme's text, background, black or white."""
    theme = Theme.from_dict({"gate_text": "#777777", "gate_active_text": "#cc8888",
                             "text_color": "#999999", "background": "#8a8a8a",
                             "open_center": "#ffffff", "design_color": "#e07a6a",
                             "personality_color": "#101010", "show_header": False,
                             "show_legend": False, "show_design": False,
                             "show_personality": False})
    for name in ("generator", "half-and-half-1", "reflector"):
        document = render_svg(RenderInput.from_chart(named_chart(name)), theme)
        assert check(document, theme) > 60
        assert "ink-black" in document and "ring-black" in document
        if name == "generator":  # gate 14: both sides, light red and near black
            assert "gate-number halo" in document


def dot_mask(image: np.ndarray, x: float, y: float, scale: float) -> np.ndarray:
    r = int(10 * scale)
    cx, cy = round(x * scale), round(y * scale)
    return image[cy - r:cy + r, cx - r:cx + r] < 128


def test_design_and_personality_differ_in_black_and_white() -> None:
    """In the print theme both sides are black: the dots differ by shape alone."""
    from PIL import Image

    theme = Theme.from_dict({"show_gate_numbers": False}, base=Theme.preset("print"))
    data = RenderInput.from_chart(named_chart("generator"))  # 5: design only, 15: personality
    assert data.activation_of(5) == "design" and data.activation_of(15) == "personality"
    document = render_svg(data, theme)
    origin = re.search(r'class="graph" transform="translate\(([\d.]+) ([\d.]+)\)"', document)
    assert origin is not None
    ox, oy = float(origin.group(1)), float(origin.group(2))
    image = np.asarray(Image.open(io.BytesIO(png_bytes(data, theme, scale=2))).convert("L"))
    geo = layout()
    design = dot_mask(image, ox + geo.gates[5][0], oy + geo.gates[5][1], 2)
    personality = dot_mask(image, ox + geo.gates[15][0], oy + geo.gates[15][1], 2)
    assert design.sum() > 200 and personality.sum() > 200
    overlap = (design & personality).sum() / (design | personality).sum()
    assert overlap < 0.85, f"the two dots look alike ({overlap:.2f})"
