"""The variable arrows beside the head: read back from the SVG (the attribute and the
drawn shape), they are the chart's ``variables``; both variants and every theme keep
them readable; overlays keep the natal chart's, a connection draws none."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import datetime

import pytest
from hypothesis import given, settings

import bodygraph
from bodygraph.render import PRESET_NAMES, RenderInput, Theme, render_svg
from bodygraph.render.color import MIN_CONTRAST, contrast
from bodygraph.render.errors import RenderInputError
from bodygraph.render.geometry import layout
from bodygraph.testing import birth_instants

from .charts import connection_input, named_chart, transit_input

SVG = "{http://www.w3.org/2000/svg}"
ORDER = ("motivation", "perspective", "determination", "environment")  # "PLR DRL" letters


def arrows(document: str) -> dict[str, ET.Element]:
    root = ET.fromstring(document)
    return {e.attrib["data-variable"]: e for e in root.iter(f"{SVG}path")
            if "variable-arrow" in e.attrib.get("class", "").split()}


def drawn_direction(arrow: ET.Element) -> str:
    """L or R from the path itself: the tip is the point farthest from the tail."""
    points = [(float(x), float(y)) for x, y in re.findall(r"[ML]([-\d.]+) ([-\d.]+)",
                                                           arrow.attrib["d"])]
    tail_x = points[0][0]
    tip = max(points, key=lambda p: abs(p[0] - tail_x))
    return "L" if tip[0] < tail_x else "R"


def read_variables(document: str) -> str:
    found = arrows(document)
    letters = [drawn_direction(found[name]) for name in ORDER]
    assert letters == [found[name].attrib["data-arrow"] for name in ORDER]
    return f"P{letters[0]}{letters[1]} D{letters[2]}{letters[3]}"


@settings(max_examples=30, deadline=None)
@given(birth_instants())
def test_the_arrows_are_the_charts_variables(instant: datetime) -> None:
    chart = bodygraph.calculate(instant)
    document = render_svg(RenderInput.from_chart(chart))
    assert read_variables(document) == chart.variables
    head = [x for x, _ in layout().centers["Head"]]
    found = arrows(document)
    for name in ("determination", "environment"):  # the design's, left of the head
        assert "design" in found[name].attrib["class"]
        assert all(float(x) < min(head) for x in re.findall(r"[ML]([-\d.]+)",
                                                             found[name].attrib["d"]))
    for name in ("motivation", "perspective"):  # the personality's, right of it
        assert "personality" in found[name].attrib["class"]
        assert all(float(x) > max(head) for x in re.findall(r"[ML]([-\d.]+)",
                                                             found[name].attrib["d"]))


@pytest.mark.parametrize("variables", ["PLL DLL", "PRR DRR", "PLR DRL", "PRL DLR"])
def test_every_arrow_turns_with_its_letter(variables: str) -> None:
    chart = named_chart("generator")
    data = RenderInput.from_gate_lines(tuple((a.gate, a.line) for a in chart.design),
                                       tuple((a.gate, a.line) for a in chart.personality),
                                       variables=variables)
    assert read_variables(render_svg(data)) == variables
    compact = Theme.from_dict({"variant": "compact"})
    assert read_variables(render_svg(data, compact)) == variables


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("variant", ["full", "compact"])
def test_the_arrows_read_on_the_background_and_stay_in_the_picture(
        preset: str, variant: str) -> None:
    theme = Theme.from_dict({"variant": variant}, base=Theme.preset(preset))
    document = render_svg(RenderInput.from_chart(named_chart("projector")), theme)
    background = theme.background if theme.background != "none" else "#ffffff"
    root = ET.fromstring(document)
    width = float(root.attrib["width"])
    origin = re.search(r'class="graph" transform="translate\(([-\d.]+) ([-\d.]+)\)"',
                       document)
    assert origin is not None
    for arrow in arrows(document).values():
        assert contrast(arrow.attrib["fill"], background) >= MIN_CONTRAST
        xs = [float(x) + float(origin.group(1))
              for x in re.findall(r"[ML]([-\d.]+)", arrow.attrib["d"])]
        assert min(xs) >= 0 and max(xs) <= width


def test_a_side_colour_that_does_not_read_falls_back_to_an_ink() -> None:
    theme = Theme.from_dict({"design_color": "#f4c7c3", "background": "#ffffff"})
    document = render_svg(RenderInput.from_chart(named_chart("generator")), theme)
    design = arrows(document)["determination"]
    assert "ink-text" in design.attrib["class"] and design.attrib["fill"] == theme.text_color
    assert arrows(document)["motivation"].attrib["fill"] == theme.personality_color


def test_overlays_keep_the_natal_arrows_and_a_connection_has_none() -> None:
    data = transit_input()
    assert data.natal.variables is not None
    assert read_variables(render_svg(data)) == data.natal.variables
    assert not arrows(render_svg(connection_input()))
    without = RenderInput.from_gate_lines(((1, 3),) * 13, ((2, 1),) * 13)
    assert not arrows(render_svg(without))


@pytest.mark.parametrize("bad", ["PLR", "PLR DRX", "pLR DRL", "PLR  DRL"])
def test_malformed_variables_are_refused(bad: str) -> None:
    with pytest.raises(RenderInputError, match="variables"):
        RenderInput.from_gate_lines(((1, 1),) * 13, ((2, 2),) * 13, variables=bad)
