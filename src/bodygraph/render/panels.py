"""The parts around the graph: practitioner header, legend, activation columns, summary.

Texts are in the scene's language (docs/languages.md); widths are estimated generously
(:func:`text_width`, wide CJK characters a full em) and lines wrap to the canvas, so
nothing is clipped whichever parts a theme hides.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from xml.sax.saxutils import escape

from bodygraph.render.geometry import num
from bodygraph.render.glyphs import PLANET_NAMES, glyph
from bodygraph.render.marks import dot, half
from bodygraph.render.scene import Scene, Source
from bodygraph.render.theme import Theme

COLUMN = 118.0
FIRST_ROW = 112.0
ROW_STEP = 50.0
HEADER_TITLE = 22.0
HEADER_SIZE = 14.0
HEADER_LINE = 24.0
ITEM_GAP = 22.0
LEGEND_SIZE = 13.0
LEGEND_ROW = 26.0
SUMMARY_SIZE = 15.0
SUMMARY_LINE = 20.0


_NARROW = frozenset("il.,:;'|!")
_SLIM = frozenset("fjrt ()/-")
_WIDE = frozenset("mwMW@")


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """A generous estimate of a text's width in sans-serif, from per-character classes
    measured on DejaVu Sans (one of the widest) plus a few per cent."""
    extra = 0.07 if bold else 0.0
    em = 0.0
    for c in text:
        if unicodedata.east_asian_width(c) in "WF":
            em += 1.0 + extra
        elif c in _NARROW:
            em += 0.32 + extra
        elif c in _SLIM:
            em += 0.42 + extra
        elif c in _WIDE:
            em += 0.95 + 1.5 * extra
        elif c.isupper():
            em += 0.72 + extra
        else:
            em += 0.62 + extra
    return em * size


def wrap(widths: Sequence[float], limit: float, gap: float) -> list[list[int]]:
    """Greedy lines of item indices whose widths plus gaps fit ``limit`` (one item a line
    at least)."""
    lines: list[list[int]] = []
    used = 0.0
    for i, w in enumerate(widths):
        if lines and used + gap + w <= limit:
            lines[-1].append(i)
            used += gap + w
        else:
            lines.append([i])
            used = w
    return lines


def _background(theme: Theme) -> str:
    return theme.background if theme.background != "none" else "#ffffff"


def fitted(size: float, natural: float, limit: float) -> float:
    """``size``, or smaller (to 0.1) so that a text ``natural`` wide at ``size`` fits
    ``limit``."""
    return size if natural <= limit else math.floor(size * limit / natural * 10) / 10


def header_items(scene: Scene, limit: float) -> list[tuple[str, str, float, float]]:
    """(label, value, font size, width) of the header's items after the title; an item
    wider than ``limit`` on its own is set smaller."""
    out = []
    for label, value in scene.header[1:]:
        natural = text_width(label, HEADER_SIZE) + 6 + text_width(value, HEADER_SIZE, bold=True)
        size = fitted(HEADER_SIZE, natural, limit)
        out.append((label, value, size, natural * size / HEADER_SIZE))
    return out


def header_height(scene: Scene, width: float) -> float:
    """Height of the header block on a canvas ``width`` wide (inner width)."""
    items = header_items(scene, width)
    rows = len(wrap([w for *_, w in items], width, ITEM_GAP))
    return HEADER_TITLE + 12 + rows * HEADER_LINE


def header(scene: Scene, theme: Theme, x: float, y: float, width: float, pid: str) -> list[str]:
    """The practitioner header: the first item as a title, then label/value pairs."""
    title_label, title = scene.header[0]
    title_size = fitted(HEADER_TITLE, text_width(title, HEADER_TITLE, bold=True), width)
    out = [f'<g id="{pid}-header" class="header">',
           f'<text class="value title" data-item="{escape(title_label)}" x="{num(x)}" '
           f'y="{num(y + HEADER_TITLE)}" font-size="{num(title_size)}" font-weight="bold" '
           f'fill="{theme.text_color}">{escape(title)}</text>']
    items = header_items(scene, width)
    row_y = y + HEADER_TITLE + 12 + HEADER_SIZE
    for row in wrap([w for *_, w in items], width, ITEM_GAP):
        cx = x
        for i in row:
            label, value, size, w = items[i]
            out.append(
                f'<text class="item" data-item="{escape(label)}" x="{num(cx)}" y="{num(row_y)}" '
                f'font-size="{num(size)}"><tspan class="label" fill="{theme.muted_text}">'
                f'{escape(label)}</tspan><tspan class="value" dx="6" font-weight="bold" '
                f'fill="{theme.text_color}">{escape(value)}</tspan></text>')
            cx += w + ITEM_GAP
        row_y += HEADER_LINE
    out.append("</g>")
    return out


def legend_entries(scene: Scene) -> list[tuple[str, tuple[Source, ...]]]:
    """(label, sources of its sample mark): every source, then a gate shared by the first
    two kinds of activation."""
    entries: list[tuple[str, tuple[Source, ...]]] = [(s.label, (s,)) for s in scene.sources]
    if scene.kind == "connection":
        entries.append((scene.both_label, (scene.sources[1], scene.sources[2])))
    else:
        entries.append((scene.both_label, scene.sources[:2]))
    return entries


def _legend_width(label: str) -> float:
    return 50 + text_width(label, LEGEND_SIZE)


def legend_height(scene: Scene, width: float) -> float:
    """Height of the legend on an inner width of ``width``."""
    widths = [_legend_width(label) for label, _ in legend_entries(scene)]
    return len(wrap(widths, width, ITEM_GAP)) * LEGEND_ROW + 8


def legend(scene: Scene, theme: Theme, x: float, y: float, width: float,
           pid: str) -> list[str]:
    """Sample marks (dot and channel stripe) with what they mean, centred rows."""
    entries = legend_entries(scene)
    widths = [_legend_width(label) for label, _ in entries]
    out = [f'<g id="{pid}-legend" class="legend">']
    row_y = y + LEGEND_ROW / 2
    for row in wrap(widths, width, ITEM_GAP):
        used = sum(widths[i] for i in row) + ITEM_GAP * (len(row) - 1)
        cx = x + (width - used) / 2
        for i in row:
            label, sources = entries[i]
            out.append(f'<g class="legend-entry" data-legend="{escape(label)}">')
            out.extend(dot(sources, cx + 8, row_y, 7.5, theme, _background(theme)))
            state = "both" if len(sources) > 1 else sources[0].classes.split()[-1]
            out.extend(half(None, state, sources, ((cx + 20, row_y), (cx + 44, row_y)), theme))
            out.append(f'<text x="{num(cx + 50)}" y="{num(row_y + LEGEND_SIZE * 0.36)}" '
                       f'font-size="{num(LEGEND_SIZE)}" fill="{theme.text_color}">'
                       f"{escape(label)}</text></g>")
            cx += widths[i] + ITEM_GAP
        row_y += LEGEND_ROW
    out.append("</g>")
    return out


def column(source: Source, theme: Theme, x0: float, y0: float, pid: str,
           names: Sequence[str] = tuple(PLANET_NAMES.values())) -> list[str]:
    """One source's activations: heading, rule, and 13 rows of symbol (or name, from
    ``names`` in ``BODIES`` order) and gate.line."""
    colour = theme.color_of(source.colour)
    left = source.left
    anchor = "start" if left else "end"
    heading_x = x0 + (0 if left else COLUMN)
    heading_y = y0 + (50 if source.sub else 58)
    size = fitted(17, text_width(source.heading, 17, bold=True), COLUMN)
    lines = [
        f'<g id="{pid}-{source.key}-activations" class="activations {source.classes}">',
        f'<text class="heading" x="{num(heading_x)}" y="{num(heading_y)}" '
        f'text-anchor="{anchor}" font-size="{num(size)}" font-weight="bold" fill="{colour}">'
        f"{escape(source.heading)}</text>",
    ]
    if source.sub:
        sub_size = fitted(12, text_width(source.sub, 12), COLUMN)
        lines.append(f'<text class="sub" x="{num(heading_x)}" y="{num(y0 + 66)}" '
                     f'text-anchor="{anchor}" font-size="{num(sub_size)}" fill="{colour}">'
                     f"{escape(source.sub)}</text>")
    lines.append(f'<path class="rule" d="M{num(x0)} {num(y0 + 74)}H{num(x0 + COLUMN)}" '
                 f'stroke="{colour}" stroke-width="1.2"/>')
    inner, outer = (x0 + COLUMN, x0) if left else (x0, x0 + COLUMN)
    value_anchor = "end" if left else "start"
    named = dict(zip(PLANET_NAMES, names, strict=True))
    for i, p in enumerate(source.placements):
        y = y0 + FIRST_ROW + i * ROW_STEP
        if theme.planet_labels == "symbol":
            label = glyph(p.body, outer + (12 if left else -12), y - 6, colour)
        else:
            name = named[p.body]
            size = fitted(12, text_width(name, 12), COLUMN - 44)
            label = (f'<text class="planet-name" x="{num(outer)}" y="{num(y)}" '
                     f'text-anchor="{anchor}" font-size="{num(size)}" fill="{colour}">'
                     f"{escape(name)}</text>")
        lines.append(
            f'<g class="activation" data-body="{p.body.value}">{label}'
            f'<text class="gate-line" x="{num(inner)}" y="{num(y)}" '
            f'text-anchor="{value_anchor}" font-size="17" font-weight="bold" '
            f'fill="{colour}">{p}</text></g>'
        )
    lines.append("</g>")
    return lines


def summary_lines(scene: Scene, width: float) -> list[str]:
    """The summary's parts joined by commas, wrapped to ``width``."""
    parts = [f"{p}," for p in scene.summary[:-1]] + [scene.summary[-1]]
    widths = [text_width(p, SUMMARY_SIZE) for p in parts]
    space = text_width(" ", SUMMARY_SIZE)
    return [" ".join(parts[i] for i in row) for row in wrap(widths, width, space)]


def summary(scene: Scene, theme: Theme, centre_x: float, y: float, width: float) -> list[str]:
    """The summary lines, centred."""
    return [
        f'<text class="summary" x="{num(centre_x)}" y="{num(y + SUMMARY_SIZE + i * SUMMARY_LINE)}" '
        f'text-anchor="middle" font-size="{num(SUMMARY_SIZE)}" fill="{theme.text_color}">'
        f"{escape(line)}</text>"
        for i, line in enumerate(summary_lines(scene, width))
    ]
