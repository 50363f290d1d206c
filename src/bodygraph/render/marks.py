"""Activation marks: gate dots and channel halves, one slice or stripe per source.

A dot is the source's shape (personality a circle, design a square, transit a diamond)
filled in its colour; a gate activated by several sources is cut into vertical slices,
one per source, each of that source's shape. Every dot is ringed, and every gate
number coloured, so that it reads (:func:`bodygraph.render.color.readable`) on what
lies under it. A channel half is a stripe per source (dashed over each other when
several); design stripes carry a thin line of the empty-channel colour inside.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from bodygraph.render.color import BLACK, MIN_CONTRAST, WHITE, contrast, readable
from bodygraph.render.geometry import Point, num, polyline_path
from bodygraph.render.scene import Shape, Source
from bodygraph.render.theme import Theme

RING_WIDTH = 2.0
CHANNEL_WIDTH = 7.0
CUE_WIDTH = 2.0
DASH = 4.0
SQUARE = 0.86  # half side of a square dot, in dot radii (about the circle's area)
DIAMOND = 1.2  # half diagonal of a diamond dot, in dot radii


def _half_width(shape: Shape, r: float) -> float:
    return {"circle": r, "square": r * SQUARE, "diamond": r * DIAMOND}[shape]


def _slice(shape: Shape, x: float, y: float, r: float, a: float, b: float) -> str:
    """Path data of the part of a shape centred at (x, y) between x + a and x + b."""
    w = _half_width(shape, r)
    a, b = max(a, -w), min(b, w)
    if shape == "square":
        return (f"M{num(x + a)} {num(y - w)}H{num(x + b)}V{num(y + w)}H{num(x + a)}Z")
    if shape == "circle":
        ya, yb = math.sqrt(max(r * r - a * a, 0)), math.sqrt(max(r * r - b * b, 0))
        arc = f"A{num(r)} {num(r)} 0 0 1"
        return (f"M{num(x + a)} {num(y - ya)}{arc} {num(x + b)} {num(y - yb)}"
                f"L{num(x + b)} {num(y + yb)}{arc} {num(x + a)} {num(y + ya)}Z")
    pts = [(a, -(w - abs(a)))]
    if a < 0 < b:
        pts.append((0, -w))
    pts += [(b, -(w - abs(b))), (b, w - abs(b))]
    if a < 0 < b:
        pts.append((0, w))
    pts.append((a, w - abs(a)))
    return polyline_path([(x + px, y + py) for px, py in pts]) + "Z"


def _whole(shape: Shape, x: float, y: float, r: float) -> tuple[str, str]:
    """(tag, geometry attributes) of a whole one-source dot."""
    if shape == "circle":
        return "circle", f'cx="{num(x)}" cy="{num(y)}" r="{num(r)}"'
    if shape == "square":
        w = r * SQUARE
        return "rect", (f'x="{num(x - w)}" y="{num(y - w)}" width="{num(2 * w)}" '
                        f'height="{num(2 * w)}" rx="{num(r * 0.2)}"')
    return "path", f'd="{_slice(shape, x, y, r, -r * DIAMOND, r * DIAMOND)}"'


def inks(theme: Theme) -> list[tuple[str, str]]:
    """The theme's fallback colours for numbers and rings, by class suffix."""
    out = [("text", theme.text_color)]
    if theme.background != "none":
        out.append(("background", theme.background))
    return out


def dot(sources: Sequence[Source], x: float, y: float, r: float, theme: Theme,
        under: str) -> list[str]:
    """The dot of an active gate, ringed to read on ``under`` (the fill below it)."""
    colours = [theme.color_of(s.colour) for s in sources]
    own = readable([("self", c) for c in colours[:1]], [under])
    ring_name, ring = own if own[0] == "self" and len(set(colours)) == 1 else readable(
        inks(theme), [under])
    ring_class = "" if ring_name == "self" else f" ring-{ring_name}"
    out: list[str] = []
    k = len(sources)
    for i, (source, colour) in enumerate(zip(sources, colours, strict=True)):
        paint = (f'fill="{colour}" stroke="{colour if ring_name == "self" else ring}" '
                 f'stroke-width="{num(RING_WIDTH)}"')
        cls = f"gate-dot {source.classes}{ring_class}"
        if k == 1:
            tag, geometry = _whole(source.shape, x, y, r)
        else:
            span = 2 * r / k
            tag = "path"
            geometry = f'd="{_slice(source.shape, x, y, r, -r + i * span, -r + (i + 1) * span)}"'
        out.append(f'<{tag} class="{cls}" {geometry} {paint}/>')
    return out


def number_ink(theme: Theme, preferred: str,
               under: Sequence[str]) -> tuple[str, str, tuple[str, str] | None]:
    """(class, colour, halo) of a gate number on ``under``: class ``""`` when the preferred
    colour reads. When no colour reads on all of ``under`` (a split dot of a light and a
    dark colour), ``halo`` is the (name, colour) of black or white, drawn round the
    number's glyphs."""
    name, colour = readable([("preferred", preferred), *inks(theme)], under)
    halo = None
    if min(contrast(colour, bg) for bg in under) < MIN_CONTRAST:
        halo = max((("black", BLACK), ("white", WHITE)), key=lambda h: contrast(colour, h[1]))
    return ("" if name == "preferred" else f" ink-{name}"), colour, halo


def half(gate: int | None, state: str | None, sources: Sequence[Source],
         points: Sequence[Point], theme: Theme) -> list[str]:
    """One channel half (of ``gate``; ``None`` for a legend sample): empty, or a stripe
    per source."""
    data = f' data-gate="{gate}"' if gate else ""
    common = (f'd="{polyline_path(points)}" fill="none" stroke-width="{num(CHANNEL_WIDTH)}" '
              f'stroke-linejoin="round"')
    if state is None:
        return [f'<path class="channel-half inactive"{data} {common} '
                f'stroke="{theme.channel_empty}"/>']
    k = len(sources)
    lines = [f'<g class="channel-half {state}"{data}>']
    period = DASH * k
    for i, source in enumerate(sources):
        dash = "" if k == 1 else f' stroke-dasharray="{num(DASH)} {num(period - DASH)}"'
        stripe_dash = dash if i else ""
        offset = f' stroke-dashoffset="{num((period - DASH * i) % period)}"' if i else ""
        lines.append(f'<path class="stripe {source.classes}" {common} '
                     f'stroke="{theme.color_of(source.colour)}"{stripe_dash}{offset}/>')
        if source.hollow:
            lines.append(
                f'<path class="cue {source.classes}" d="{polyline_path(points)}" fill="none" '
                f'stroke-width="{num(CUE_WIDTH)}" stroke="{theme.channel_empty}"{dash}{offset}/>'
            )
    lines.append("</g>")
    return lines
