"""Colour arithmetic for readable images: WCAG 2 relative luminance and contrast ratio.

The renderer picks the colour of every gate number and the ring of every activation dot
with :func:`readable`, so that each has at least :data:`MIN_CONTRAST` against what lies
under it, whatever the theme's colours.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

MIN_CONTRAST = 4.5
"""WCAG 2 level AA for normal text."""

BLACK = "#000000"
WHITE = "#ffffff"


def rgb(colour: str) -> tuple[int, int, int]:
    """``#rgb`` or ``#rrggbb`` as three 0..255 integers."""
    text = colour.lstrip("#")
    if len(text) == 3:
        text = "".join(c * 2 for c in text)
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance, 0 (black) to 1 (white)."""
    r, g, b = (_linear(c) for c in rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@lru_cache(maxsize=4096)
def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours, 1 to 21.

    Cached: a drawing asks some 200 times about the few colours of its theme (about a
    third of drawing an SVG without the cache).
    """
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def readable(candidates: Sequence[tuple[str, str]], backgrounds: Sequence[str]) -> tuple[str, str]:
    """The first ``(name, colour)`` candidate with enough contrast on every background.

    Black and white are always tried last (one of them reaches 4.58:1 on any single
    colour); when no candidate reaches :data:`MIN_CONTRAST` on all backgrounds, the one
    with the best worst case wins.
    """
    tried = [*candidates, ("black", BLACK), ("white", WHITE)]
    for name, colour in tried:
        if all(contrast(colour, bg) >= MIN_CONTRAST for bg in backgrounds):
            return name, colour
    return max(tried, key=lambda c: min(contrast(c[1], bg) for bg in backgrounds))
