"""The mandala wheel: every gate once at its place on the wheel, every activation at its
exact longitude (design and personality in their own shapes), readable in every theme,
the transit ring, the bodygraph in the centre, and ``bodygraph wheel``."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bodygraph
from bodygraph.catalog.tables import tables
from bodygraph.cli.main import main
from bodygraph.model.chart import BODIES
from bodygraph.render import PRESET_NAMES, RenderInput, Theme
from bodygraph.render.color import MIN_CONTRAST, contrast
from bodygraph.render.errors import RenderInputError
from bodygraph.render.wheel import WheelInput, spread, wheel_svg
from bodygraph.rules.zodiac import SIGNS
from bodygraph.testing import birth_instants

SVG = "{http://www.w3.org/2000/svg}"
BIRTH = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)
TRANSIT = datetime(2027, 1, 1, tzinfo=UTC)


def classes(e: ET.Element) -> set[str]:
    return set(e.attrib.get("class", "").split())


def groups(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{SVG}g") if name in classes(e)]


def longitude_of(x: float, y: float, centre: float) -> float:
    """Inverse of the wheel's placement: 0 Aries on the left, counter-clockwise."""
    return math.degrees(math.atan2(y - centre, centre - x)) % 360.0


def _difference(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


@settings(max_examples=15, deadline=None)
@given(birth_instants())
def test_every_gate_once_and_every_activation_at_its_longitude(instant: datetime) -> None:
    chart = bodygraph.calculate(instant)
    root = ET.fromstring(wheel_svg(WheelInput.from_chart(chart)))
    centre = float(root.attrib["width"]) / 2
    gates = groups(root, "wheel-gate")
    assert sorted(int(g.attrib["data-gate"]) for g in gates) == list(range(1, 65))
    assert [int(g.attrib["data-gate"]) for g in gates] == list(tables().wheel_order)
    for g in gates:  # the number sits in the middle of the gate's 5.625 degrees
        text = next(g.iter(f"{SVG}text"))
        assert text.text == g.attrib["data-gate"]
        start = float(g.attrib["data-start"])
        assert start == tables().gates[int(g.attrib["data-gate"])].start_deg
        middle = longitude_of(float(text.attrib["x"]), float(text.attrib["y"]) - 11 * 0.36,
                              centre)
        assert _difference(middle, start + 360 / 128) < 0.05
    assert next(g for g in gates if g.attrib["data-gate"] == "41").attrib["data-start"] == "302"
    for side, shape in (("personality", "circle"), ("design", "rect")):
        marks = [g for g in groups(root, "wheel-activation") if side in classes(g)]
        assert [g.attrib["data-body"] for g in marks] == [b.value for b in BODIES]
        for g, activation in zip(marks, getattr(chart, side), strict=True):
            tick = next(g.iter(f"{SVG}line"))
            for end in ("1", "2"):  # both ends of the tick lie on the exact longitude
                x, y = float(tick.attrib[f"x{end}"]), float(tick.attrib[f"y{end}"])
                assert _difference(longitude_of(x, y, centre), activation.longitude) < 0.02
            assert float(g.attrib["data-longitude"]) == pytest.approx(
                activation.longitude % 360, abs=1e-6)
            assert any(e.tag == f"{SVG}{shape}" for e in g)  # its side's shape
    signs = groups(root, "zodiac-sign")
    assert [s.attrib["data-sign"] for s in signs] == list(SIGNS)
    assert all(next(s.iter(f"{SVG}path")).attrib.get("d") for s in signs)


def test_every_glyph_is_a_path_and_only_numbers_and_the_label_are_text() -> None:
    """No font is needed for a sign or a planet: each is one ``<path>``; the only text
    is the gate numbers (digits) and the transit ring's label."""
    chart, transit = bodygraph.calculate(BIRTH), bodygraph.calculate(TRANSIT)
    root = ET.fromstring(wheel_svg(WheelInput.from_chart(chart, transit, bodygraph=False)))
    texts = list(root.iter(f"{SVG}text"))
    numbers = [e for e in texts if classes(e) == {"gate-number"}]
    assert len(numbers) == 64 and all(str(e.text).isdigit() for e in numbers)
    assert [classes(e) for e in texts if e not in numbers] == [{"transit-label"}]
    signs, marks = groups(root, "zodiac-sign"), groups(root, "wheel-activation")
    assert (len(signs), len(marks)) == (12, 3 * 13)
    for g in signs + marks:
        glyphs = [e for e in g if classes(e) & {"sign", "planet"}]
        assert len(glyphs) == 1 and glyphs[0].tag == f"{SVG}path" and glyphs[0].attrib["d"]
        assert not list(g.iter(f"{SVG}text"))
    assert [next(e for e in g if "planet" in classes(e)).attrib["data-glyph"]
            for g in marks[:13]] == [b.value for b in BODIES]


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_text_glyph_and_marker_reads_on_the_background(preset: str) -> None:
    theme = Theme.preset(preset)
    chart, transit = bodygraph.calculate(BIRTH), bodygraph.calculate(TRANSIT)
    document = wheel_svg(WheelInput.from_chart(chart, transit, bodygraph=False), theme)
    root = ET.fromstring(document)
    background = theme.background if theme.background != "none" else "#ffffff"
    checked = 0
    for e in root.iter():
        colour = None
        if e.tag == f"{SVG}text" or "marker" in classes(e):
            colour = e.attrib["fill"]
        elif classes(e) & {"planet", "sign"}:
            colour = e.attrib["stroke"]
        if colour is not None:
            assert contrast(colour, background) >= MIN_CONTRAST, (e.attrib, colour)
            checked += 1
    assert checked == 64 + 12 + 3 * 26 + 1  # gate numbers, signs, 3 x 13 markers and glyphs


def test_a_colour_that_does_not_read_falls_back() -> None:
    theme = Theme.from_dict({"design_color": "#f4c7c3"})
    root = ET.fromstring(wheel_svg(WheelInput.from_chart(bodygraph.calculate(BIRTH)), theme))
    design = [g for g in groups(root, "wheel-activation") if "design" in classes(g)]
    assert {next(g.iter(f"{SVG}rect")).attrib["fill"] for g in design} == {theme.text_color}


def test_the_transit_ring_and_the_centre() -> None:
    chart, transit = bodygraph.calculate(BIRTH), bodygraph.calculate(TRANSIT)
    document = wheel_svg(WheelInput.from_chart(chart, transit, transit_label="Transit X"))
    root = ET.fromstring(document)
    centre = float(root.attrib["width"]) / 2
    ring = [g for g in groups(root, "wheel-activation") if "transit" in classes(g)]
    assert len(ring) == 13
    for g, activation in zip(ring, transit.personality, strict=True):
        tick = next(g.iter(f"{SVG}line"))
        radius = math.hypot(float(tick.attrib["x2"]) - centre, float(tick.attrib["y2"]) - centre)
        assert radius > 372  # outside the zodiac ring
        assert _difference(longitude_of(float(tick.attrib["x2"]), float(tick.attrib["y2"]),
                                        centre), activation.longitude) < 0.02
        assert any(e.tag == f"{SVG}path" and "marker" in classes(e) for e in g)  # diamond
    assert "Transit X" in document
    nested = [e for e in root if e.tag == f"{SVG}svg"]
    assert len(nested) == 1 and "bodygraph" in classes(nested[0])
    assert 'data-variables="' + chart.variables + '"' in document
    ids = re.findall(r'\bid="([^"]+)"', document)
    assert len(ids) == len(set(ids))
    plain = wheel_svg(WheelInput.from_chart(chart, bodygraph=False))
    assert "<svg x=" not in plain and 'class="wheel-activation transit"' not in plain
    assert WheelInput.from_chart(chart).render_input() == RenderInput.from_chart(chart)
    assert wheel_svg(WheelInput.from_chart(chart)) == wheel_svg(WheelInput.from_chart(chart))


def test_glyphs_are_spread_and_bad_input_refused() -> None:
    angles = spread([10.0, 10.5, 11.0, 200.0, 359.0, 1.0])
    ordered = sorted(angles)
    gaps = [(b - a) % 360 for a, b in zip(ordered, ordered[1:] + ordered[:1], strict=True)]
    assert min(gaps) >= 5.2 - 1e-6 and _difference(angles[3], 200.0) < 1e-9
    with pytest.raises(RenderInputError, match="13 finite longitudes"):
        WheelInput((1.0,) * 12, (2.0,) * 13)
    with pytest.raises(RenderInputError, match="13 finite longitudes"):
        WheelInput((1.0,) * 13, (math.nan,) * 13)


def test_the_command_writes_svg_and_png(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    svg, png = tmp_path / "wheel.svg", tmp_path / "wheel.png"
    assert main(["wheel", "--utc", "1980-01-03T08:30:00Z", "--svg", str(svg), "--png",
                 str(png), "--theme", "dark", "--transit-at", "2027-01-01T00:00:00Z"]) == 0
    chart, transit = bodygraph.calculate(BIRTH), bodygraph.calculate(TRANSIT)
    assert svg.read_text(encoding="utf-8") == wheel_svg(WheelInput.from_chart(
        chart, transit, transit_label="Transit 2027-01-01 00:00 UTC"), Theme.preset("dark"))
    assert png.read_bytes().startswith(b"\x89PNG")
    for args, words in [([], "give --svg PATH"),
                        (["--svg", str(svg), "--transit-at", "soon"], "--transit-at"),
                        (["--svg", str(svg), "--utc", "x"], "not an ISO 8601")]:
        assert main(["wheel", "--utc", "1980-01-03T08:30:00Z", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("bodygraph: error: ") and words in err
        assert len(err.strip().splitlines()) == 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 720, allow_nan=False), min_size=2, max_size=13))
def test_spread_glyphs_keep_their_distance(longitudes: list[float]) -> None:
    angles = spread(longitudes)
    ordered = sorted(angles)
    gaps = [(b - a) % 360 for a, b in zip(ordered, ordered[1:] + ordered[:1], strict=True)]
    assert min(gaps) >= 5.2 - 1e-6
