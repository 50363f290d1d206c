"""The twelve zodiac sign glyphs drawn as SVG paths (no font needed), in the 20 x 20 box
and stroke of the planet glyphs (:mod:`bodygraph.render.glyphs`)."""

from __future__ import annotations

from typing import Final

from bodygraph.render.geometry import num
from bodygraph.render.glyphs import GLYPH_BOX, GLYPH_STROKE


def _ring(cx: float, cy: float, r: float) -> str:
    return (f"M{num(cx - r)} {num(cy)}a{num(r)} {num(r)} 0 1 0 {num(2 * r)} 0"
            f"a{num(r)} {num(r)} 0 1 0 {num(-2 * r)} 0Z")


#: Path data of each sign's symbol, Aries to Pisces (the order of ``rules.zodiac.SIGNS``).
SIGN_GLYPHS: Final[tuple[str, ...]] = (
    "M0 8V-2M0 -2C0 -9 -8 -10 -8 -3M0 -2C0 -9 8 -10 8 -3",  # Aries
    _ring(0, 3, 5) + "M-8 -8C-6 -2 6 -2 8 -8",  # Taurus
    "M-7 -8C-3 -6 3 -6 7 -8M-7 8C-3 6 3 6 7 8M-3 -6.5V6.5M3 -6.5V6.5",  # Gemini
    _ring(-4, -2, 2.5) + _ring(4, 2, 2.5)
    + "M-6.5 -2C-6 -8 5 -8 8 -4M6.5 2C6 8 -5 8 -8 4",  # Cancer
    _ring(-4, 3, 3) + "M-1 3C-1 -3 -2 -9 3 -9C8 -9 8 -3 4 1C2 4 3 8 7 7",  # Leo
    "M-8 -6V7M-8 -4C-8 -7 -3 -7 -3 -4V7M-3 -4C-3 -7 2 -7 2 -4V5C2 8 7 8 7 4C7 1 3 2 2 5",
    "M-8 7H8M-8 3H-3C-5 1 -5 -6 0 -6C5 -6 5 1 3 3H8",  # Libra
    "M-8 -6V7M-8 -4C-8 -7 -3 -7 -3 -4V7M-3 -4C-3 -7 2 -7 2 -4V5Q2 7 5 7H8M6 5L8 7L6 9",
    "M-7 7L7 -7M0 -7H7V0M-5 0L0 5",  # Sagittarius
    "M-8 -6H-5L-4 5L-1 -5C0 -8 4 -8 4 -3V3C4 7 8 7 8 4C8 1 4 1 4 4",  # Capricorn
    "M-8 -2L-4 -5L0 -2L4 -5L8 -2M-8 5L-4 2L0 5L4 2L8 5",  # Aquarius
    "M-7 -8C-2 -4 -2 4 -7 8M7 -8C2 -4 2 4 7 8M-5 0H5",  # Pisces
)


def sign_glyph(index: int, x: float, y: float, colour: str, size: float = GLYPH_BOX) -> str:
    """A ``<path class="sign">`` element: sign ``index``'s symbol centred on ``(x, y)``."""
    scale = size / GLYPH_BOX
    transform = f"translate({num(x)} {num(y)})" + (f" scale({num(scale)})" if scale != 1 else "")
    return (f'<path class="sign" data-sign="{index}" transform="{transform}" '
            f'd="{SIGN_GLYPHS[index]}" fill="none" stroke="{colour}" '
            f'stroke-width="{num(GLYPH_STROKE)}" stroke-linecap="round" '
            f'stroke-linejoin="round"/>')
