"""The mandala wheel as SVG: the 64 gates in wheel order around the 12 zodiac signs, the
26 activations at their exact longitudes (design and personality told apart by colour and
shape, as in the bodygraph), optionally the bodygraph in the centre and a transit as an
outer ring. A :class:`WheelInput` holds longitudes only; docs/render.md, "The wheel"."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from bodygraph.catalog.numbers import number_text
from bodygraph.catalog.tables import tables
from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, listed, sign_names, term
from bodygraph.model.chart import BODIES, Body
from bodygraph.render.color import readable
from bodygraph.render.drawing import render_svg
from bodygraph.render.errors import RenderInputError
from bodygraph.render.geometry import num
from bodygraph.render.glyphs import PLANET_NAMES, glyph
from bodygraph.render.model import RenderInput
from bodygraph.render.scene import transit_words
from bodygraph.render.signs import sign_glyph
from bodygraph.render.theme import DEFAULT_THEME, Theme, theme_for_language
from bodygraph.rules.activations import side_pairs
from bodygraph.rules.properties import variables
from bodygraph.rules.zodiac import SIGNS

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart

#: Radii of the rings, canvas units: zodiac, gates, the personality and design tracks
#: (marker, glyph), the transit ring (marker, glyph), the centre.
ZODIAC_OUT, ZODIAC_IN = 372.0, 334.0
GATE_IN = 288.0
PERSONALITY_MARK, PERSONALITY_GLYPH = 272.0, 250.0
DESIGN_MARK, DESIGN_GLYPH = 226.0, 204.0
TRANSIT_MARK, TRANSIT_GLYPH = 382.0, 406.0
CENTRE = 184.0
MARGIN: Final = 16.0
GATE_WIDTH: Final = 360.0 / 64
MARK = 5.5  # half the size of a marker
GLYPH = 17.0
GATE_NUMBER = 11.0
#: The least angle between two glyphs of one track, degrees (glyphs move apart; the
#: marker and its tick stay at the exact longitude).
GLYPH_GAP = 5.2
#: The shapes of the sources, as in the bodygraph.
SHAPES: Final = {"personality": "circle", "design": "square", "transit": "diamond"}
TITLE: Final = "Human Design mandala wheel"
SIDE_TITLES: Final = {"personality": "Personality", "design": "Design"}


@dataclass(frozen=True, slots=True)
class WheelInput:
    """What the wheel shows: 13 personality and 13 design longitudes (degrees, ``BODIES``
    order), optionally 13 transit longitudes with their label, and whether the bodygraph
    sits in the centre. Gates, lines and the centre's bodygraph follow from them."""

    personality: tuple[float, ...]
    design: tuple[float, ...]
    transit: tuple[float, ...] | None = None
    transit_label: str = "Transit"
    bodygraph: bool = True

    def __post_init__(self) -> None:
        for name in ("personality", "design", "transit"):
            values = getattr(self, name)
            if values is None:
                continue
            if len(values) != len(BODIES) or not all(
                    isinstance(v, int | float) and math.isfinite(v) for v in values):
                raise RenderInputError(f"{name} must hold 13 finite longitudes in degrees")

    @classmethod
    def from_chart(cls, chart: Chart, transit: Chart | None = None, *,
                   transit_label: str = "Transit", bodygraph: bool = True) -> WheelInput:
        """The wheel of a chart; a transit is another chart's personality longitudes
        (the sky at that instant)."""
        return cls(tuple(a.longitude for a in chart.personality),
                   tuple(a.longitude for a in chart.design),
                   None if transit is None else tuple(a.longitude for a in transit.personality),
                   transit_label, bodygraph)

    def render_input(self) -> RenderInput:
        """The bodygraph of these longitudes (for the centre)."""
        personality, design = side_pairs(
            np.array([self.personality, self.design], dtype=np.float64)[:, :, np.newaxis])[0]
        return RenderInput.from_gate_lines(
            tuple((a.gate, a.line) for a in design),
            tuple((a.gate, a.line) for a in personality),
            variables=variables(personality, design))


def point(longitude: float, radius: float, centre: float) -> tuple[float, float]:
    """Canvas point of a longitude: 0 degrees Aries on the left, increasing
    counter-clockwise (the usual chart wheel)."""
    angle = math.radians(longitude)
    return centre - radius * math.cos(angle), centre + radius * math.sin(angle)


def spread(longitudes: list[float], gap: float = GLYPH_GAP) -> list[float]:
    """Angles for glyphs near ``longitudes``, at least ``gap`` degrees apart, moved as
    little as possible (least squares): the circle is cut at its widest empty arc, and
    the crowded runs are spread around their mean (isotonic regression, pool adjacent
    violators, on ``angle - k * gap``)."""
    n = len(longitudes)
    if n < 2:
        return [value % 360.0 for value in longitudes]
    order = sorted(range(n), key=lambda i: longitudes[i] % 360.0)
    angles = [longitudes[i] % 360.0 for i in order]
    gaps = [angles[k + 1] - angles[k] for k in range(n - 1)] + [360.0 + angles[0] - angles[-1]]
    first = (max(range(n), key=gaps.__getitem__) + 1) % n
    unwrapped = [angles[(first + k) % n] + (360.0 if first + k >= n else 0.0)
                 for k in range(n)]
    blocks: list[list[float]] = []  # [sum, count] of runs that move together
    for k, value in enumerate(unwrapped):
        blocks.append([value - k * gap, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    placed = [mean for total, count in blocks for mean in [total / count] * int(count)]
    out = [0.0] * n
    for k in range(n):
        out[order[(first + k) % n]] = (placed[k] + k * gap) % 360.0
    return out


@dataclass(frozen=True, slots=True)
class WheelWords:
    """The words of a wheel in one language: the title, the sides' and bodies' names,
    the signs' names and the transit's label; ``lang`` writes the degrees' decimal mark."""

    title: str
    sides: dict[str, str]
    bodies: dict[Body, str]
    signs: tuple[str, ...]
    transit_label: str
    lang: str = SOURCE_LANGUAGE

    @classmethod
    def of(cls, data: WheelInput, lang: str) -> WheelWords:
        """The words of ``data``'s wheel in ``lang``."""
        tr = catalog(lang)
        return cls(tr.pgettext("image", "Human Design mandala wheel"),
                   {"personality": term("side", "Personality", lang),
                    "design": term("side", "Design", lang),
                    "transit": tr.pgettext("image", "Transit")},
                   {body: term("body", name, lang) for body, name in PLANET_NAMES.items()},
                   sign_names(lang), transit_words(data.transit_label, tr), lang)


def wheel_svg(data: WheelInput, theme: Theme | None = None, *,
              lang: str = SOURCE_LANGUAGE) -> str:
    """The SVG document of the mandala wheel (UTF-8 text, ends with a newline), its words
    in ``lang``."""
    theme = theme_for_language(theme if theme is not None else DEFAULT_THEME, lang)
    words = WheelWords.of(data, lang)
    outer = TRANSIT_GLYPH + GLYPH if data.transit is not None else ZODIAC_OUT
    size = 2 * (outer + MARGIN)
    c = size / 2
    pid = wheel_id(data, theme)
    background = theme.background if theme.background != "none" else "#ffffff"
    ink = readable([("text", theme.text_color)], [background])[1]
    lines_colour = theme.center_outline
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" id="{pid}" '
           f'class="wheel" width="{num(size)}" height="{num(size)}" '
           f'viewBox="0 0 {num(size)} {num(size)}" role="img" '
           f'aria-labelledby="{pid}-title {pid}-desc" font-family={quoteattr(theme.font_css)}>',
           f'<title id="{pid}-title">{escape(words.title)}</title>',
           f'<desc id="{pid}-desc">{escape(description(data, words))}</desc>']
    if theme.background != "none":
        out.append(f'<rect class="background" x="0" y="0" width="{num(size)}" '
                   f'height="{num(size)}" fill="{theme.background}"/>')
    out += _zodiac(c, ink, lines_colour, pid, words)
    out += _gates(data, c, theme, background, lines_colour, pid)
    for side, values, mark, glyph_radius in (
            ("personality", data.personality, PERSONALITY_MARK, PERSONALITY_GLYPH),
            ("design", data.design, DESIGN_MARK, DESIGN_GLYPH)):
        out += _track(side, values, mark, glyph_radius, GATE_IN, c, theme, background, pid,
                      words)
    if data.transit is not None:
        out += _track("transit", data.transit, TRANSIT_MARK, TRANSIT_GLYPH, ZODIAC_OUT, c,
                      theme, background, pid, words)
        out.append(f'<text class="transit-label" x="{num(MARGIN)}" y="{num(MARGIN + 12)}" '
                   f'font-size="13" fill="{ink}">{escape(words.transit_label)}</text>')
    if data.bodygraph:
        out += _centre(data, c, theme, lang)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def wheel_id(data: WheelInput, theme: Theme) -> str:
    """``bg-`` and 12 hex digits of a hash of what is drawn and of the theme."""
    seed = json.dumps([data.personality, data.design, data.transit, data.transit_label,
                       data.bodygraph, theme.to_dict()], sort_keys=True)
    return "bg-" + hashlib.sha256(("wheel\n" + seed).encode("utf-8")).hexdigest()[:12]


def description(data: WheelInput, words: WheelWords | None = None) -> str:
    """The activations as text, for the ``<desc>``."""
    words = words if words is not None else WheelWords.of(data, SOURCE_LANGUAGE)
    parts = []
    for side, values in ((words.sides["personality"], data.personality),
                         (words.sides["design"], data.design),
                         (words.transit_label, data.transit)):
        if values is None:
            continue
        items = listed((f"{words.bodies[body]} {_zodiac_text(value, words)}"
                        for body, value in zip(BODIES, values, strict=True)), words.lang)
        parts.append(f"{side}: {items}.")
    return " ".join(parts)


def _zodiac_text(longitude: float, words: WheelWords) -> str:
    value = longitude % 360.0
    sign = int(value // 30.0)
    return f"{words.signs[sign]} {number_text(value - 30.0 * sign, words.lang, 2)}"


def _arc_sector(start: float, end: float, inner: float, outer: float, c: float) -> str:
    """Path data of the ring sector from ``start`` to ``end`` degrees of longitude."""
    a, b = point(start, outer, c), point(end, outer, c)
    d, e = point(end, inner, c), point(start, inner, c)
    large = 1 if (end - start) % 360.0 > 180.0 else 0
    # longitude grows counter-clockwise on the canvas: sweep flag 0 outward, 1 inward
    return (f"M{num(a[0])} {num(a[1])}A{num(outer)} {num(outer)} 0 {large} 0 "
            f"{num(b[0])} {num(b[1])}L{num(d[0])} {num(d[1])}"
            f"A{num(inner)} {num(inner)} 0 {large} 1 {num(e[0])} {num(e[1])}Z")


def _zodiac(c: float, ink: str, lines_colour: str, pid: str, words: WheelWords) -> list[str]:
    out = [f'<g id="{pid}-zodiac" class="zodiac">']
    for index, name in enumerate(SIGNS):
        start = 30.0 * index
        x, y = point(start + 15.0, (ZODIAC_OUT + ZODIAC_IN) / 2, c)
        sector = _arc_sector(start, start + 30.0, ZODIAC_IN, ZODIAC_OUT, c)
        out += [f'<g class="zodiac-sign" data-sign="{name}" data-start="{num(start)}">',
                f'<path class="sign-sector" d="{sector}" fill="none" '
                f'stroke="{lines_colour}" stroke-width="1"/>',
                sign_glyph(index, x, y, ink, GLYPH), f"<title>{escape(words.signs[index])}</title>",
                "</g>"]
    out.append("</g>")
    return out


def _gates(data: WheelInput, c: float, theme: Theme, background: str, lines_colour: str,
           pid: str) -> list[str]:
    t = tables()
    drawn = data.render_input()
    active = drawn.design_gates | drawn.personality_gates
    _, number_colour = readable([("gate", theme.gate_text), ("text", theme.text_color)],
                                [background])
    width = GATE_WIDTH
    out = [f'<g id="{pid}-gates" class="gates">']
    for gate in t.wheel_order:
        start = t.gates[gate].start_deg
        x, y = point(start + width / 2, (ZODIAC_IN + GATE_IN) / 2, c)
        state = " active" if gate in active else ""
        weight = ' font-weight="bold"' if gate in active else ""
        sector = _arc_sector(start, start + width, GATE_IN, ZODIAC_IN, c)
        out += [f'<g class="wheel-gate{state}" data-gate="{gate}" data-start="{start:g}">',
                f'<path class="gate-sector" d="{sector}" fill="none" '
                f'stroke="{lines_colour}" stroke-width="0.8"/>',
                f'<text class="gate-number" x="{num(x)}" y="{num(y + GATE_NUMBER * 0.36)}" '
                f'text-anchor="middle" font-size="{num(GATE_NUMBER)}"{weight} '
                f'fill="{number_colour}">{gate}</text>', "</g>"]
    out.append("</g>")
    return out


def _marker(shape: str, x: float, y: float, colour: str) -> str:
    if shape == "circle":
        return (f'<circle class="marker" cx="{num(x)}" cy="{num(y)}" r="{num(MARK)}" '
                f'fill="{colour}"/>')
    if shape == "square":
        return (f'<rect class="marker" x="{num(x - MARK)}" y="{num(y - MARK)}" '
                f'width="{num(2 * MARK)}" height="{num(2 * MARK)}" fill="{colour}"/>')
    r = MARK * 1.3
    return (f'<path class="marker" d="M{num(x)} {num(y - r)}L{num(x + r)} {num(y)}'
            f'L{num(x)} {num(y + r)}L{num(x - r)} {num(y)}Z" fill="{colour}"/>')


def _track(side: str, values: tuple[float, ...], mark: float, glyph_radius: float,
           tick_from: float, c: float, theme: Theme, background: str, pid: str,
           words: WheelWords) -> list[str]:
    _, colour = readable([(side, theme.color_of(side)), ("text", theme.text_color)],
                         [background])
    angles = spread(list(values))
    out = [f'<g id="{pid}-{side}" class="activations {side}">']
    for body, longitude, angle in zip(BODIES, values, angles, strict=True):
        a, b = point(longitude, tick_from, c), point(longitude, mark, c)
        x, y = point(angle, glyph_radius, c)
        out += [f'<g class="wheel-activation {side}" data-body="{body.value}" '
                f'data-longitude="{longitude % 360.0:.6f}">',
                f"<title>{escape(words.sides[side])} {escape(words.bodies[Body(body)])}: "
                f"{escape(_zodiac_text(longitude, words))}</title>",
                f'<line class="tick" x1="{num(a[0])}" y1="{num(a[1])}" x2="{num(b[0])}" '
                f'y2="{num(b[1])}" stroke="{colour}" stroke-width="1.6"/>',
                _marker(SHAPES[side], b[0], b[1], colour),
                glyph(Body(body), x, y, colour, GLYPH), "</g>"]
    out.append("</g>")
    return out


def _centre(data: WheelInput, c: float, theme: Theme, lang: str) -> list[str]:
    compact = Theme.from_dict({"variant": "compact", "show_summary": False}, base=theme)
    document = render_svg(data.render_input(), compact, lang=lang)
    body = document.split("\n", 1)[1]  # without the XML declaration
    width = float(body.split('width="', 1)[1].split('"', 1)[0])
    height = float(body.split('height="', 1)[1].split('"', 1)[0])
    scale = 2 * CENTRE / math.hypot(width, height)
    w, h = width * scale, height * scale
    placed = body.replace("<svg ", f'<svg x="{num(c - w / 2)}" y="{num(c - h / 2)}" ', 1)
    placed = placed.replace(f'width="{num(width)}" height="{num(height)}"',
                            f'width="{num(w)}" height="{num(h)}"', 1)
    return [placed.rstrip("\n")]
