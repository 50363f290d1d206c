"""Overlays: a transit over a natal chart and a connection of two persons, drawn by the
same renderer from plain placements; and the compact variant's sizes."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from bodygraph.render import (
    ConnectionInput,
    RenderInput,
    RenderInputError,
    Theme,
    TransitInput,
    render_svg,
    svg,
)

from .charts import connection_input, named_chart, transit_input
from .test_svg import NS, SVG, by_id, classes


def test_transit_marks_its_gates_and_completed_channels_in_its_colour() -> None:
    data = transit_input()
    theme = Theme()
    root = ET.fromstring(render_svg(data, theme))
    ids = by_id(root)
    natal_gates = data.natal.design_gates | data.natal.personality_gates
    transit_gates = {p.gate for p in data.transit}
    for gate in range(1, 65):
        element = ids[f"gate-{gate}"]
        sources = element.attrib.get("data-sources", "").split()
        assert ("transit" in sources) == (gate in transit_gates)
        dots = [e for e in element if "gate-dot" in classes(e)]
        transit_dots = [d for d in dots if "transit" in classes(d)]
        assert len(transit_dots) == (gate in transit_gates)
        for d in transit_dots:
            assert d.attrib["fill"] == theme.transit_color
        if gate in transit_gates and gate not in natal_gates:
            assert classes(element) == {"gate", "active", "transit"}
            assert dots[0].tag == f"{SVG}path"  # a diamond
    # 34-57 and 20-57: completed by the transit's 57 (natal has 34 and 20? no: see below)
    completed = {c.short for c in (
        RenderInput.from_gate_lines(
            tuple((p.gate, p.line) for p in data.natal.design),
            tuple((p.gate, p.line) for p in data.transit)).channels)}
    assert "34-57" in completed
    group = ids["channel-34-57"]
    assert classes(group) == {"channel", "defined"}
    half_57 = next(h for h in group if h.attrib.get("data-gate") == "57")
    assert {s.attrib["stroke"] for s in half_57 if "stripe" in classes(s)} == {
        theme.transit_color}
    column = ids["transit-activations"]
    values = [t.text for t in column.iterfind(".//svg:text[@class='gate-line']", NS)]
    assert values == [str(p) for p in data.transit]
    header = "".join(ids["header"].itertext())
    assert "Transit" in header and "34-57" in header
    assert ids["center-Spleen"].attrib["fill"] == theme.centers.spleen  # defined by 57


def test_connection_colours_each_person_and_splits_electromagnetic_channels() -> None:
    data = connection_input()
    theme = Theme.preset("dark")
    root = ET.fromstring(render_svg(data, theme))
    ids = by_id(root)
    group = ids["channel-21-45"]
    assert classes(group) == {"channel", "defined"}
    halves = {h.attrib["data-gate"]: {s.attrib["stroke"] for s in h if "stripe" in classes(s)}
              for h in group if "channel-half" in classes(h)}
    assert halves == {"21": {theme.person_a_color}, "45": {theme.person_b_color}}
    assert theme.person_a_color != theme.person_b_color
    header = "".join(ids["header"].itertext())
    assert "Anna and Ben" in header and "Electromagnetic21-45" in header
    for key in ("person-a-design", "person-a-personality", "person-b-personality",
                "person-b-design"):
        assert f"{key}-activations" in ids
    # Design keeps its cue in a connection: square dots.
    dot21 = next(e for e in ids["gate-21"] if "gate-dot" in classes(e))
    assert dot21.tag == f"{SVG}rect" and classes(dot21) >= {"person-a", "design"}


def test_overlay_inputs_are_checked() -> None:
    natal = RenderInput.from_chart(named_chart("generator"))
    with pytest.raises(RenderInputError, match="13"):
        TransitInput.from_gate_lines(natal, [(1, 1)] * 12)
    with pytest.raises(RenderInputError, match="transit label"):
        TransitInput.from_gate_lines(natal, [(1, 1)] * 13, label="Tr\u00e4nsit")
    with pytest.raises(RenderInputError, match="first person"):
        ConnectionInput(natal, natal, "<script>", "B")


def test_compact_gate_numbers_read_at_300_px() -> None:
    c = named_chart("generator")
    shown = {}
    for name, theme in (("compact", Theme(variant="compact")), ("full", Theme())):
        root = ET.fromstring(svg(c, theme))
        width = float(root.attrib["width"])
        size = min(float(t.attrib["font-size"]) for t in root.iter(f"{SVG}text")
                   if "gate-number" in classes(t))
        shown[name] = size * 300 / width  # px high when the image is shown 300 px wide
    assert shown["compact"] >= 8.0 > 2 * shown["full"]
    compact = ET.fromstring(svg(c, Theme(variant="compact")))
    assert "header" not in by_id(compact) and "legend" not in by_id(compact)
    assert compact.find(".//svg:g[@class='activations design']", NS) is None


def _in_reading_order(shorts: list[str]) -> bool:
    return shorts == sorted(shorts, key=lambda s: tuple(int(g) for g in s.split("-")))


def test_the_images_lists_order_channels_as_numbers() -> None:
    from datetime import UTC, datetime

    from bodygraph import calculate, transit
    from bodygraph.render.from_relations import connection_input as connected
    from bodygraph.render.from_relations import transit_input as over

    natal = calculate(datetime(1980, 1, 3, 8, 30, tzinfo=UTC))
    listed = svg(natal).split("Defined channels: ", 1)[1].split(".", 1)[0].split(", ")
    assert listed == ["6-59", "10-57", "13-33", "37-40", "39-55", "47-64"]
    at = datetime(2024, 4, 1, tzinfo=UTC)  # completes 23-43 and 3-60
    drawn = render_svg(over(natal, transit(at, natal=natal)), Theme())
    assert "completes: 3-60, 23-43." in drawn
    header = "".join(by_id(ET.fromstring(drawn))["header"].itertext())
    assert "3-60, 23-43" in header
    other = calculate(datetime(1993, 5, 9, 14, tzinfo=UTC))
    pair = render_svg(connected(natal, other), Theme())
    assert "Electromagnetic channels: 2-14, 17-62, 21-45, 32-54." in pair
