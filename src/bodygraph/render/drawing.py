"""Write a :class:`~bodygraph.render.model.RenderInput` as a self-contained SVG document.

Output is deterministic: the same input and theme give the same bytes (fixed ids,
fixed element order, coordinates rounded to two decimals, no time stamps). Every
center, channel and gate carries an ``id`` and ``class`` so that one injected
``<style>`` block can re-theme the image; colours are also written as presentation
attributes so that viewers without CSS support draw it correctly.
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from bodygraph.catalog.tables import CENTER_NAMES, Channel, tables
from bodygraph.model.chart import Body
from bodygraph.render.geometry import (
    Layout,
    Point,
    layout,
    num,
    polyline_path,
    rounded_polygon_path,
    split_half,
)
from bodygraph.render.model import Placement, RenderInput
from bodygraph.render.theme import DEFAULT_THEME, Theme, center_slug

PLANET_SYMBOLS: dict[Body, str] = {
    Body.SUN: "\u2609",
    Body.EARTH: "\u2295",
    Body.NORTH_NODE: "\u260a",
    Body.SOUTH_NODE: "\u260b",
    Body.MOON: "\u263d",
    Body.MERCURY: "\u263f",
    Body.VENUS: "\u2640",
    Body.MARS: "\u2642",
    Body.JUPITER: "\u2643",
    Body.SATURN: "\u2644",
    Body.URANUS: "\u2645",
    Body.NEPTUNE: "\u2646",
    Body.PLUTO: "\u2647",
}
PLANET_NAMES: dict[Body, str] = {
    Body.SUN: "Sun", Body.EARTH: "Earth", Body.NORTH_NODE: "North Node",
    Body.SOUTH_NODE: "South Node", Body.MOON: "Moon", Body.MERCURY: "Mercury",
    Body.VENUS: "Venus", Body.MARS: "Mars", Body.JUPITER: "Jupiter", Body.SATURN: "Saturn",
    Body.URANUS: "Uranus", Body.NEPTUNE: "Neptune", Body.PLUTO: "Pluto",
}


@dataclass(frozen=True, slots=True)
class Frame:
    """Where the parts sit on the canvas (canvas units = CSS pixels)."""

    width: float
    height: float
    graph_x: float
    graph_y: float
    design_x: float | None
    personality_x: float | None
    summary_y: float | None


MARGIN = 24.0
COLUMN = 118.0
GAP = 6.0
OUTLINE_WIDTH = 11.0
CHANNEL_WIDTH = 7.0
STRIPE = "4 4"
FIRST_ROW = 112.0
ROW_STEP = 50.0


def frame(theme: Theme, geo: Layout) -> Frame:
    """Canvas size and the origin of each part for the theme's choice of columns."""
    x = MARGIN
    design_x = None
    if theme.show_design:
        design_x, x = x, x + COLUMN + GAP
    graph_x = x
    x += geo.width
    personality_x = None
    if theme.show_personality:
        personality_x, x = x + GAP, x + GAP + COLUMN
    height = MARGIN / 2 + geo.height
    summary_y = None
    if theme.show_summary:
        summary_y = height + 22
        height += 40
    return Frame(x + MARGIN, height + MARGIN / 2, graph_x, MARGIN / 2, design_x,
                 personality_x, summary_y)


def render_svg(data: RenderInput, theme: Theme | None = None) -> str:
    """The SVG document of a bodygraph (UTF-8 text, ends with a newline)."""
    theme = theme if theme is not None else DEFAULT_THEME
    geo = layout()
    fr = frame(theme, geo)
    out: list[str] = []
    w = out.append
    w('<?xml version="1.0" encoding="UTF-8"?>')
    w(
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" class="bodygraph" '
        f'width="{num(fr.width)}" height="{num(fr.height)}" '
        f'viewBox="0 0 {num(fr.width)} {num(fr.height)}" role="img" '
        f'aria-labelledby="bodygraph-title bodygraph-desc" '
        f"font-family={quoteattr(theme.font_css)}>"
    )
    w(f'<title id="bodygraph-title">{escape(title(data))}</title>')
    w(f'<desc id="bodygraph-desc">{escape(description(data))}</desc>')
    w(f"<style>\n{theme.to_css()}</style>")
    if theme.background != "none":
        w(
            f'<rect class="background" x="0" y="0" width="{num(fr.width)}" '
            f'height="{num(fr.height)}" fill="{theme.background}"/>'
        )
    w(f'<g id="graph" transform="translate({num(fr.graph_x)} {num(fr.graph_y)})">')
    w('<g id="channels">')
    for channel in _channel_order(data):
        out.extend(_channel(channel, data, theme, geo))
    w("</g>")
    w('<g id="centers">')
    for name in CENTER_NAMES:
        out.extend(_center(name, data, theme, geo))
    w("</g>")
    w("</g>")
    if fr.design_x is not None:
        out.extend(_column("design", data, theme, fr.design_x, fr.graph_y))
    if fr.personality_x is not None:
        out.extend(_column("personality", data, theme, fr.personality_x, fr.graph_y))
    if fr.summary_y is not None:
        w(
            f'<text class="summary" x="{num(fr.width / 2)}" y="{num(fr.summary_y)}" '
            f'text-anchor="middle" font-size="15" fill="{theme.text_color}">'
            f"{escape(summary(data))}</text>"
        )
    w("</svg>")
    return "\n".join(out) + "\n"


def summary(data: RenderInput) -> str:
    """One line: type, profile, authority and definition."""
    return (
        f"{data.type.value} \u00b7 Profile {data.profile} \u00b7 "
        f"{data.authority.value} Authority \u00b7 {data.definition.value}"
    )


def title(data: RenderInput) -> str:
    """The accessible name of the image."""
    return f"Human Design bodygraph: {data.type.value}, profile {data.profile}"


def description(data: RenderInput) -> str:
    """A text equivalent of the image for screen readers."""
    centers = ", ".join(n for n in CENTER_NAMES if n in data.centers) or "none"
    channels = ", ".join(c.short for c in data.channels) or "none"
    return (
        f"{summary(data)}. Defined centers: {centers}. Defined channels: {channels}. "
        f"{_side_text('Design', data.design)} {_side_text('Personality', data.personality)}"
    )


def _side_text(name: str, placements: tuple[Placement, ...]) -> str:
    items = ", ".join(f"{PLANET_NAMES[p.body]} {p}" for p in placements)
    return f"{name}: {items}."


def _channel_order(data: RenderInput) -> list[Channel]:
    """Inactive channels first, then hanging gates, then defined ones (drawn on top)."""
    def rank(channel: Channel) -> int:
        return sum(data.activation_of(g) is not None for g in channel.gates)

    return sorted(tables().channels, key=lambda c: (rank(c), c.gates))


def _channel(channel: Channel, data: RenderInput, theme: Theme, geo: Layout) -> list[str]:
    points = geo.channel_points(channel)
    halves = split_half(points)
    sides = [data.activation_of(g) for g in channel.gates]
    state = (
        "defined" if all(sides) else "partial" if any(sides) else "inactive"
    )
    cid = f"channel-{channel.gates[0]}-{channel.gates[1]}"
    lines = [
        f'<g id="{cid}" class="channel {state}" data-channel="{channel.short}">',
        f'<path class="channel-outline" d="{polyline_path(points)}" fill="none" '
        f'stroke="{theme.channel_outline}" stroke-width="{num(OUTLINE_WIDTH)}" '
        f'stroke-linecap="round" stroke-linejoin="round"/>',
    ]
    for gate, side, half in zip(channel.gates, sides, halves, strict=True):
        lines.extend(_half(gate, side, half, theme))
    lines.append("</g>")
    return lines


def _half(gate: int, side: str | None, half: tuple[Point, ...], theme: Theme) -> list[str]:
    d = polyline_path(half)
    common = f'd="{d}" fill="none" stroke-width="{num(CHANNEL_WIDTH)}" stroke-linejoin="round"'
    if side is None:
        return [
            f'<path class="channel-half inactive" data-gate="{gate}" {common} '
            f'stroke="{theme.channel_empty}"/>'
        ]
    if side != "both":
        return [
            f'<path class="channel-half {side}" data-gate="{gate}" {common} '
            f'stroke="{theme.color_of(side)}"/>'
        ]
    return [
        f'<g class="channel-half both" data-gate="{gate}">',
        f'<path class="stripe design" {common} stroke="{theme.design_color}"/>',
        f'<path class="stripe personality" {common} stroke="{theme.personality_color}" '
        f'stroke-dasharray="{STRIPE}"/>',
        "</g>",
    ]


def _center(name: str, data: RenderInput, theme: Theme, geo: Layout) -> list[str]:
    defined = name in data.centers
    state = "defined" if defined else "open"
    fill = theme.centers.of(name) if defined else theme.open_center
    d = rounded_polygon_path(geo.centers[name], geo.corner_radius)
    lines = [
        f'<g id="center-group-{center_slug(name)}" class="center-group {state}" '
        f'data-center="{name}">',
        f'<path id="center-{center_slug(name)}" class="center {state}" data-center="{name}" '
        f'd="{d}" fill="{fill}" stroke="{theme.center_outline}" stroke-width="1.6" '
        f'stroke-linejoin="round"/>',
    ]
    for gate in tables().centers[name].gates:
        lines.extend(_gate(gate, data, theme, geo))
    lines.append("</g>")
    return lines


def _gate(gate: int, data: RenderInput, theme: Theme, geo: Layout) -> list[str]:
    x, y = geo.gates[gate]
    side = data.activation_of(gate)
    r = geo.gate_radius
    text_y = y + 3.6
    if side is None:
        if not theme.show_gate_numbers:
            return [f'<g id="gate-{gate}" class="gate"/>']
        return [
            f'<g id="gate-{gate}" class="gate">',
            f'<text class="gate-number" x="{num(x)}" y="{num(text_y)}" text-anchor="middle" '
            f'font-size="10" fill="{theme.gate_text}">{gate}</text>',
            "</g>",
        ]
    lines = [f'<g id="gate-{gate}" class="gate active {side}">']
    if side == "both":
        top, bottom = f"{num(x)} {num(y - r)}", f"{num(x)} {num(y + r)}"
        arc = f"{num(r)} {num(r)} 0 0"
        lines.append(
            f'<path class="gate-dot design" d="M{top}A{arc} 0 {bottom}Z" '
            f'fill="{theme.design_color}"/>'
        )
        lines.append(
            f'<path class="gate-dot personality" d="M{top}A{arc} 1 {bottom}Z" '
            f'fill="{theme.personality_color}"/>'
        )
    else:
        lines.append(
            f'<circle class="gate-dot {side}" cx="{num(x)}" cy="{num(y)}" r="{num(r)}" '
            f'fill="{theme.color_of(side)}"/>'
        )
    if theme.show_gate_numbers:
        lines.append(
            f'<text class="gate-number" x="{num(x)}" y="{num(text_y)}" text-anchor="middle" '
            f'font-size="10" font-weight="bold" fill="{theme.gate_active_text}">{gate}</text>'
        )
    lines.append("</g>")
    return lines


def _column(side: str, data: RenderInput, theme: Theme, x0: float, y0: float) -> list[str]:
    placements = data.design if side == "design" else data.personality
    colour = theme.color_of(side)
    left = side == "design"
    heading_x = x0 + (0 if left else COLUMN)
    anchor = "start" if left else "end"
    lines = [
        f'<g id="{side}-activations" class="activations {side}" fill="{colour}">',
        f'<text class="heading" x="{num(heading_x)}" y="{num(y0 + 58)}" text-anchor="{anchor}" '
        f'font-size="17" font-weight="bold" fill="{colour}">{side.capitalize()}</text>',
        f'<path class="rule" d="M{num(x0)} {num(y0 + 70)}H{num(x0 + COLUMN)}" '
        f'stroke="{colour}" stroke-width="1.2"/>',
    ]
    symbols = theme.planet_labels == "symbol"
    inner, outer = (x0 + COLUMN, x0) if left else (x0, x0 + COLUMN)
    if symbols:  # a centred glyph 12 units in from the outer edge
        label_x, label_anchor, label_size = outer + (12 if left else -12), "middle", "20"
    else:
        label_x, label_anchor, label_size = outer, anchor, "12"
    value_anchor = "end" if left else "start"
    for i, p in enumerate(placements):
        y = y0 + FIRST_ROW + i * ROW_STEP
        label = PLANET_SYMBOLS[p.body] if symbols else PLANET_NAMES[p.body]
        lines.append(
            f'<g class="activation" data-body="{p.body.value}">'
            f'<text class="planet" x="{num(label_x)}" y="{num(y)}" text-anchor="{label_anchor}" '
            f'font-size="{label_size}" fill="{colour}">{escape(label)}</text>'
            f'<text class="gate-line" x="{num(inner)}" y="{num(y)}" '
            f'text-anchor="{value_anchor}" font-size="17" font-weight="bold" '
            f'fill="{colour}">{p}</text></g>'
        )
    lines.append("</g>")
    return lines
