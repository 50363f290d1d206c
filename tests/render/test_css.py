"""The embedded stylesheet covers every painted element and agrees with the presentation
attributes (so viewers with and without CSS draw the same image), custom properties
restyle, and two images inlined in one page neither share ids nor restyle each other."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from bodygraph.render import PRESET_NAMES, Theme, render_svg, svg
from bodygraph.render.css import var_name

from .cascade import SVG, cascade
from .charts import connection_input, named_chart, transit_input

INPUTS = {
    "chart": lambda: named_chart("half-and-half-1"),
    "transit": transit_input,
    "connection": connection_input,
}


def document(kind: str, theme: Theme) -> str:
    data = INPUTS[kind]()
    return render_svg(data, theme) if kind != "chart" else svg(data, theme)  # type: ignore[arg-type]


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_css_paints_every_element_as_its_attributes_do(kind: str, preset: str) -> None:
    theme = Theme.preset(preset)
    for variant in (theme, Theme.from_dict({"variant": "compact", "show_summary": True},
                                           base=theme)):
        root = ET.fromstring(document(kind, variant))
        painted = 0
        for styled in cascade(root):
            for prop in ("fill", "stroke"):
                value = styled.element.attrib.get(prop)
                if value is None or value == "none" or styled.element.tag == f"{SVG}svg":
                    continue
                painted += 1
                tag = styled.element.tag.removeprefix(SVG)
                where = f"<{tag} class={styled.element.attrib.get('class')!r}> {prop}"
                assert prop in styled.css, f"no rule paints {where}"
                assert styled.css[prop] == value, f"{where}: css {styled.css[prop]}, attr {value}"
        assert painted > 200


def test_every_colour_is_a_custom_property_a_page_can_set() -> None:
    theme = Theme.preset("dark")
    css = theme.to_css()
    for field in ("background", "design_color", "personality_color", "transit_color",
                  "person_a_color", "person_b_color", "channel_outline", "channel_empty",
                  "open_center", "center_outline", "gate_text", "gate_active_text",
                  "text_color", "muted_text"):
        assert f"var({var_name(field)},{getattr(theme, field)})" in css
    for name, colour in theme.centers.to_dict().items():
        assert f"var({var_name(name)},{colour})" in css
    # A page sets one property on the image: only that colour changes.
    root = ET.fromstring(svg(named_chart("generator"), theme))
    page_css = root.find(f"{SVG}style").text + ".bodygraph{--bodygraph-design-color:#0000ff}"  # type: ignore[union-attr]
    styled = cascade(root, page_css.replace(
        "var(--bodygraph-design-color,#ff7a7a)", "#0000ff"))  # custom properties, as a browser
    dots = [s for s in styled if "gate-dot" in s.element.attrib.get("class", "")]
    assert {s.css["fill"] for s in dots if "design" in s.element.attrib["class"].split()} == {
        "#0000ff"}
    assert {s.css["fill"] for s in dots if "personality" in s.element.attrib["class"].split()
            } == {theme.personality_color}


def test_same_chart_same_bytes_and_ids_differ_between_charts_and_themes() -> None:
    a = svg(named_chart("projector"))
    assert a == svg(named_chart("projector"))
    others = [svg(named_chart("manifestor")), svg(named_chart("projector"), Theme.preset("dark")),
              render_svg(transit_input()), render_svg(connection_input())]
    ids_a = set(re.findall(r'\bid="([^"]+)"', a))
    assert len(ids_a) > 100
    for other in others:
        assert not ids_a & set(re.findall(r'\bid="([^"]+)"', other))


def test_two_inlined_charts_do_not_restyle_each_other() -> None:
    """One HTML page with a light and a dark chart: each element keeps its own colours
    under both stylesheets together (what a browser applies to an inlined page)."""
    light = svg(named_chart("generator")).split("\n", 1)[1]  # without the XML declaration
    dark = svg(named_chart("manifestor"), Theme.preset("dark")).split("\n", 1)[1]
    page = ET.fromstring(f'<html xmlns="http://www.w3.org/1999/xhtml"><body>{light}{dark}'
                         "</body></html>")
    sheets = "".join(s.text or "" for s in page.iter(f"{SVG}style"))
    checked = 0
    for styled in cascade(page, sheets):
        for prop in ("fill", "stroke"):
            value = styled.element.attrib.get(prop)
            if value and value != "none" and styled.element.tag != f"{SVG}svg":
                assert styled.css.get(prop) == value
                checked += 1
    assert checked > 500
    ids = re.findall(r'\bid="([^"]+)"', light + dark)
    assert len(ids) == len(set(ids))
