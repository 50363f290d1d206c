"""The SVG document: valid XML, self-contained, accessible, deterministic, and every
center, channel and gate coloured as the chart says (expectations derived here from
the activations, not from the renderer)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bodygraph.catalog.tables import CENTER_NAMES, tables
from bodygraph.model.chart import Chart
from bodygraph.render import (
    DEFAULT_THEME,
    RenderInput,
    RenderInputError,
    Theme,
    render_svg,
    svg,
)
from bodygraph.render.theme import center_slug

from .charts import NAMED, chart, named_chart

NS = {"svg": "http://www.w3.org/2000/svg"}
RINGS = {"ring-text", "ring-background", "ring-black", "ring-white"}
SVG = "{http://www.w3.org/2000/svg}"


def parse(document: str) -> ET.Element:
    return ET.fromstring(document.encode("utf-8"))


def by_id(root: ET.Element) -> dict[str, ET.Element]:
    """Elements by id without the render's own prefix (the root's id and a hyphen)."""
    prefix = root.attrib["id"] + "-"
    assert re.fullmatch(r"bg-[0-9a-f]{12}-", prefix)
    out = {}
    for e in root.iter():
        if "id" in e.attrib and e is not root:
            assert e.attrib["id"].startswith(prefix)
            out[e.attrib["id"].removeprefix(prefix)] = e
    return out


def classes(element: ET.Element) -> set[str]:
    return set(element.attrib.get("class", "").split())


def expected_side(c: Chart, gate: int) -> str | None:
    d = gate in {a.gate for a in c.design}
    p = gate in {a.gate for a in c.personality}
    return {(True, True): "both", (True, False): "design", (False, True): "personality"}.get(
        (d, p)
    )


@pytest.mark.parametrize("name", sorted(NAMED))
def test_every_center_channel_and_gate_is_drawn_as_the_chart_says(name: str) -> None:
    c = named_chart(name)
    theme = DEFAULT_THEME
    root = parse(svg(c))
    ids = by_id(root)
    active = {a.gate for a in c.design} | {a.gate for a in c.personality}

    # Channels: defined when both gates are active; each half coloured by its gate.
    defined_here = {ch.short for ch in tables().channels if set(ch.gates) <= active}
    assert defined_here == {ch.short for ch in c.channels}
    for ch in tables().channels:
        group = ids[f"channel-{ch.gates[0]}-{ch.gates[1]}"]
        state = {2: "defined", 1: "partial", 0: "inactive"}[len(set(ch.gates) & active)]
        assert classes(group) == {"channel", state}
        halves = [e for e in group if "channel-half" in classes(e)]
        assert [int(h.attrib["data-gate"]) for h in halves] == list(ch.gates)
        for half, gate in zip(halves, ch.gates, strict=True):
            side = expected_side(c, gate)
            if side is None:
                assert classes(half) == {"channel-half", "inactive"}
                assert half.attrib["stroke"] == theme.channel_empty
                continue
            assert classes(half) == {"channel-half", side}
            stripes = {frozenset(classes(s)): s.attrib["stroke"] for s in half
                       if "stripe" in classes(s)}
            sides = ["design", "personality"] if side == "both" else [side]
            assert stripes == {frozenset({"stripe", x}): theme.color_of(x) for x in sides}
            # The second cue: design stripes carry a line of the empty colour inside.
            cues = [s for s in half if "cue" in classes(s)]
            assert [classes(s) for s in cues] == ([{"cue", "design"}] if "design" in sides
                                                  else [])

    # Centers: defined when at the end of a defined channel, filled in their colour.
    ends = {center for ch in tables().channels if set(ch.gates) <= active
            for center in ch.centers}
    assert ends == set(c.centers)
    for center in CENTER_NAMES:
        shape = ids[f"center-{center_slug(center)}"]
        if center in ends:
            assert classes(shape) == {"center", "defined"}
            assert shape.attrib["fill"] == theme.centers.of(center)
        else:
            assert classes(shape) == {"center", "open"}
            assert shape.attrib["fill"] == theme.open_center

    # Gates: active ones marked with the side that activates them.
    for gate in range(1, 65):
        element = ids[f"gate-{gate}"]
        side = expected_side(c, gate)
        assert classes(element) == ({"gate"} if side is None else {"gate", "active", side})
        assert element.findtext("svg:text", namespaces=NS) == str(gate)
        dots = [e for e in element if "gate-dot" in classes(e)]
        sides = [] if side is None else (["design", "personality"] if side == "both"
                                         else [side])
        assert [classes(d) - {"gate-dot"} - RINGS for d in dots] == [{x} for x in sides]
        # The second cue: design dots are square, personality dots round.
        shapes = {"design": "M", "personality": "A"}
        for d, x in zip(dots, sides, strict=True):
            if len(sides) == 1:
                assert d.tag == f"{SVG}{'rect' if x == 'design' else 'circle'}"
            else:
                assert (shapes[x] in d.attrib["d"][1:]) == (x == "personality")


@pytest.mark.parametrize("name", sorted(NAMED))
def test_activation_columns_list_gate_dot_line(name: str) -> None:
    c = named_chart(name)
    ids = by_id(parse(svg(c)))
    for side_name, side in (("design", c.design), ("personality", c.personality)):
        column = ids[f"{side_name}-activations"]
        rows = column.findall("svg:g", NS)
        assert [r.attrib["data-body"] for r in rows] == [a.body.value for a in side]
        values = [r.find("svg:text[@class='gate-line']", NS) for r in rows]
        assert [v.text if v is not None else None for v in values] == [
            f"{a.gate}.{a.line}" for a in side
        ]


def test_ids_are_unique_and_complete() -> None:
    root = parse(svg(named_chart("generator")))
    all_ids = [e.attrib["id"] for e in root.iter() if "id" in e.attrib]
    assert len(all_ids) == len(set(all_ids))
    short = list(by_id(root))
    assert sum(i.startswith("channel-") for i in short) == 36
    assert sum(re.fullmatch(r"gate-\d+", i) is not None for i in short) == 64
    assert sum(re.fullmatch(r"center-[A-Za-z]+", i) is not None for i in short) == 9


def test_document_is_self_contained_and_accessible() -> None:
    document = svg(named_chart("projector"))
    root = parse(document)
    assert root.tag == f"{SVG}svg"
    assert root.attrib["role"] == "img"
    title = root.find("svg:title", NS)
    desc = root.find("svg:desc", NS)
    assert title is not None and title.text == "Human Design bodygraph: Projector, profile 5/1"
    assert desc is not None and desc.text is not None
    assert "Defined channels: 1-8, 7-31, 23-43, 47-64." in desc.text
    pid = root.attrib["id"]
    assert root.attrib["aria-labelledby"] == f"{pid}-title {pid}-desc"
    tags = {e.tag.removeprefix(SVG) for e in root.iter()}
    assert tags <= {"svg", "title", "desc", "style", "rect", "g", "path", "circle", "text",
                    "tspan"}
    for element in root.iter():
        for key in element.attrib:
            assert "href" not in key
    assert "url(" not in document and "@import" not in document and "@font-face" not in document
    font = root.attrib["font-family"].split(",")[-1]
    assert font == "sans-serif"


def test_same_chart_same_bytes_and_a_different_chart_differs() -> None:
    a = named_chart("manifestor")
    assert svg(a) == svg(named_chart("manifestor"))
    assert svg(a) != svg(named_chart("generator"))


def test_svg_draws_exactly_what_render_svg_draws_from_placements() -> None:
    c = named_chart("manifesting-generator")
    data = RenderInput.from_chart(c)
    assert svg(c) == render_svg(data)
    pairs_d = tuple((a.gate, a.line) for a in c.design)
    pairs_p = tuple((a.gate, a.line) for a in c.personality)
    assert render_svg(RenderInput.from_gate_lines(pairs_d, pairs_p,
                                                  variables=c.variables)) == svg(c)
    assert 'class="variables"' not in render_svg(RenderInput.from_gate_lines(pairs_d, pairs_p))


def test_summary_and_header_match_the_chart() -> None:
    c = named_chart("manifesting-generator")
    root = parse(svg(c, Theme(show_summary=True)))
    text = root.find("svg:text[@class='summary']", NS)
    assert text is not None
    assert text.text == (f"{c.type.value}, Profile {c.profile}, "
                         f"{c.authority.value} Authority, {c.definition.value}")
    header = by_id(root)["header"]
    items = {e.attrib["data-item"]: "".join(e.itertext()) for e in header
             if "data-item" in e.attrib}
    assert items == {
        "Type": c.type.value, "Strategy": f"Strategy{c.strategy}",
        "Authority": f"Authority{c.authority.value}", "Profile": f"Profile{c.profile}",
        "Definition": f"Definition{c.definition.value}",
        "Cross": f"Cross{c.incarnation_cross}",
    }
    assert parse(svg(c)).find("svg:text[@class='summary']", NS) is None  # off by default


def test_render_input_refuses_inconsistent_centers_and_bad_values() -> None:
    c = named_chart("generator")
    data = RenderInput.from_chart(c)
    with pytest.raises(RenderInputError):
        RenderInput(data.design, data.personality, data.centers | {"Head"})
    with pytest.raises(RenderInputError):
        RenderInput(data.design, data.personality, frozenset({"Nowhere"}))
    with pytest.raises(RenderInputError):
        RenderInput(data.personality[:12], data.personality, data.centers)
    good = tuple((p.gate, p.line) for p in data.design)
    with pytest.raises(RenderInputError):
        RenderInput.from_gate_lines(((65, 1), *good[1:]), good)
    with pytest.raises(RenderInputError):
        RenderInput.from_gate_lines(((1, 7), *good[1:]), good)


gate_line = st.tuples(st.integers(1, 64), st.integers(1, 6))


@settings(max_examples=40, deadline=None)
@given(design=st.lists(st.integers(1, 64), min_size=1, max_size=13),
       personality=st.lists(st.integers(1, 64), min_size=1, max_size=13))
def test_any_chart_renders_well_formed_and_matches_its_channels(
    design: list[int], personality: list[int]
) -> None:
    c = chart(design, personality)
    root = parse(svg(c))
    ids = by_id(root)
    for ch in tables().channels:
        group = ids[f"channel-{ch.gates[0]}-{ch.gates[1]}"]
        assert ("defined" in classes(group)) == (ch in c.channels)
    for center in CENTER_NAMES:
        shape = ids[f"center-{center_slug(center)}"]
        assert ("defined" in classes(shape)) == (center in c.centers)


def test_theme_changes_colours_and_embeds_its_css() -> None:
    theme = Theme.from_dict({"design_color": "#0055aa", "centers": {"Sacral": "#123456"}})
    c = named_chart("generator")
    document = svg(c, theme)
    pid = parse(document).attrib["id"]
    assert theme.to_css(f":where(#{pid})") in document
    ids = by_id(parse(document))
    assert ids["center-Sacral"].attrib["fill"] == "#123456"
    assert ids["gate-5"].find("svg:rect", NS).attrib["fill"] == "#0055aa"  # type: ignore[union-attr]


def test_columns_and_summary_can_be_hidden() -> None:
    c = named_chart("generator")
    full = parse(svg(c))
    bare = parse(svg(c, Theme(show_design=False, show_personality=False, show_summary=False,
                              show_gate_numbers=False, show_header=False,
                              show_legend=False)))
    ids = by_id(bare)
    assert "design-activations" not in ids and "personality-activations" not in ids
    assert bare.find("svg:text[@class='summary']", NS) is None
    assert "header" not in ids and "legend" not in ids
    assert all(f"gate-{g}" in ids for g in range(1, 65))
    assert bare.find(".//svg:text[@class='gate-number']", NS) is None
    assert ids["gate-5"].find("svg:rect", NS) is not None  # still marked, just unnumbered
    assert float(bare.attrib["width"]) < float(full.attrib["width"])
    assert float(bare.attrib["height"]) < float(full.attrib["height"])
    names = parse(svg(c, Theme(planet_labels="name")))
    planet = names.find(".//svg:g[@data-body='northNode']/svg:text[@class='planet-name']", NS)
    assert planet is not None and planet.text == "North Node"
