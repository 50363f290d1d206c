"""Planet glyphs drawn as SVG paths, so no rendered symbol depends on an installed font.

Each glyph is stroked path data in a 20 x 20 box centred on the origin (x right, y
down), drawn with a 1.6 unit round stroke and no fill.
"""

from __future__ import annotations

from bodygraph.model.chart import Body
from bodygraph.render.geometry import num

GLYPH_BOX = 20.0
GLYPH_STROKE = 1.6


def _ring(cx: float, cy: float, r: float) -> str:
    """A full circle as path data (two half arcs)."""
    return (f"M{num(cx - r)} {num(cy)}a{num(r)} {num(r)} 0 1 0 {num(2 * r)} 0"
            f"a{num(r)} {num(r)} 0 1 0 {num(-2 * r)} 0Z")


PLANET_GLYPHS: dict[Body, str] = {
    Body.SUN: _ring(0, 0, 7.5) + _ring(0, 0, 1.1),
    Body.EARTH: _ring(0, 0, 7.5) + "M-7.5 0H7.5M0 -7.5V7.5",
    Body.NORTH_NODE: "M-4.5 3.5A6.73 6.73 0 1 1 4.5 3.5" + _ring(-4.5, 5.6, 2.1)
    + _ring(4.5, 5.6, 2.1),
    Body.SOUTH_NODE: "M-4.5 -3.5A6.73 6.73 0 1 0 4.5 -3.5" + _ring(-4.5, -5.6, 2.1)
    + _ring(4.5, -5.6, 2.1),
    Body.MOON: "M-3 -8.5A8.5 8.5 0 1 1 -3 8.5A10.5 10.5 0 0 0 -3 -8.5Z",
    Body.MERCURY: _ring(0, -0.5, 4) + "M-4 -9A4 4 0 0 0 4 -9M0 3.5V10M-3.5 7H3.5",
    Body.VENUS: _ring(0, -3.5, 5) + "M0 1.5V10M-3.5 6H3.5",
    Body.MARS: _ring(-2.5, 2.5, 5.5) + "M1.4 -1.4L7.5 -7.5M2 -7.5H7.5V-2",
    Body.JUPITER: "M-6 -5.5C-6 -9.5 0.5 -9.5 0.5 -5.5C0.5 -2 -7 1 -7 4H7.5M3.5 -8.5V10",
    Body.SATURN: "M-3 -10V5M-6.5 -6.5H0.5M-3 -1C-3 -4.5 4.5 -4.5 4.5 0C4.5 4 0.5 5 2 8.5"
    "C2.5 9.8 4 9.8 5 8.8",
    Body.URANUS: "M-6.5 -8.5V3M6.5 -8.5V3M-6.5 -2.5H6.5M0 -8.5V4.5" + _ring(0, 7, 2.5),
    Body.NEPTUNE: "M-7 -8.5V-5C-7 1.5 7 1.5 7 -5V-8.5M0 -9.5V10M-4 6H4",
    Body.PLUTO: "M-6.5 -8A6.5 6.5 0 0 0 6.5 -8M0 -1.5V10M-4 5H4" + _ring(0, -7, 2.6),
}
"""Path data of each body's astrological symbol."""

PLANET_NAMES: dict[Body, str] = {
    Body.SUN: "Sun", Body.EARTH: "Earth", Body.NORTH_NODE: "North Node",
    Body.SOUTH_NODE: "South Node", Body.MOON: "Moon", Body.MERCURY: "Mercury",
    Body.VENUS: "Venus", Body.MARS: "Mars", Body.JUPITER: "Jupiter", Body.SATURN: "Saturn",
    Body.URANUS: "Uranus", Body.NEPTUNE: "Neptune", Body.PLUTO: "Pluto",
}


def glyph(body: Body, x: float, y: float, colour: str, size: float = GLYPH_BOX) -> str:
    """A ``<path class="planet">`` element: the body's symbol centred on ``(x, y)``."""
    scale = size / GLYPH_BOX
    transform = f"translate({num(x)} {num(y)})" + (f" scale({num(scale)})" if scale != 1 else "")
    return (
        f'<path class="planet" data-glyph="{body.value}" transform="{transform}" '
        f'd="{PLANET_GLYPHS[body]}" fill="none" stroke="{colour}" '
        f'stroke-width="{num(GLYPH_STROKE)}" stroke-linecap="round" stroke-linejoin="round"/>'
    )
