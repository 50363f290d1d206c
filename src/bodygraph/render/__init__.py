"""SVG (and PNG) bodygraph images.

>>> from datetime import datetime, timezone
>>> import bodygraph
>>> from bodygraph import render
>>> chart = bodygraph.calculate(datetime(1980, 1, 3, 8, 30, tzinfo=timezone.utc))
>>> render.svg(chart).startswith('<?xml')
True

:func:`svg` draws a :class:`~bodygraph.model.chart.Chart`; :func:`render_svg` draws a
:class:`RenderInput` (26 gate.line placements and the defined centers, all a render
token carries), a :class:`TransitInput` (a natal chart with a transit over it) or a
:class:`ConnectionInput` (two persons). Themes are data (:class:`Theme`;
``Theme.preset("dark")`` for a shipped one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bodygraph.render.drawing import render_svg
from bodygraph.render.errors import (
    PngUnavailableError,
    RenderError,
    RenderInputError,
    ThemeError,
)
from bodygraph.render.files import write
from bodygraph.render.model import Placement, RenderInput
from bodygraph.render.overlay import ConnectionInput, TransitInput
from bodygraph.render.raster import png, png_bytes
from bodygraph.render.theme import DEFAULT_THEME, PRESET_NAMES, CenterColors, Theme
from bodygraph.render.wheel import WheelInput, wheel_svg

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart

__all__ = [
    "DEFAULT_THEME",
    "PRESET_NAMES",
    "CenterColors",
    "ConnectionInput",
    "Placement",
    "PngUnavailableError",
    "RenderError",
    "RenderInput",
    "RenderInputError",
    "Theme",
    "ThemeError",
    "TransitInput",
    "WheelInput",
    "png",
    "png_bytes",
    "render_svg",
    "svg",
    "wheel_svg",
    "write",
]


def svg(chart: Chart, theme: Theme | None = None, *, lang: str = "en") -> str:
    """The SVG document of a chart's bodygraph (deterministic UTF-8 text), its words in
    ``lang`` (one of :func:`bodygraph.languages`)."""
    return render_svg(RenderInput.from_chart(chart), theme, lang=lang)
