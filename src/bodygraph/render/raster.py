"""PNG output through cairosvg (the optional ``png`` extra: ``pip install bodygraph[png]``)."""

from __future__ import annotations

import importlib
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bodygraph.catalog.translations import SOURCE_LANGUAGE
from bodygraph.render.css import resolve_vars
from bodygraph.render.drawing import render_svg
from bodygraph.render.errors import PngUnavailableError
from bodygraph.render.model import RenderInput
from bodygraph.render.overlay import ConnectionInput, TransitInput

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart
    from bodygraph.render.theme import Theme


def _cairosvg() -> Any:
    try:
        return importlib.import_module("cairosvg")
    except (ImportError, OSError) as exc:  # OSError: the system cairo library is missing
        raise PngUnavailableError(
            "PNG output needs cairosvg and the cairo library: pip install 'bodygraph[png]' "
            f"and install libcairo2 ({exc})"
        ) from exc


def svg_to_png(document: str, *, scale: float = 2.0) -> bytes:
    """Rasterise one of the renderer's SVG documents (custom properties resolved to the
    colours they fall back to, which cairosvg needs)."""
    result: bytes = _cairosvg().svg2png(bytestring=resolve_vars(document).encode("utf-8"),
                                        scale=scale)
    return result


def png_bytes(chart: Chart | RenderInput | TransitInput | ConnectionInput,
              theme: Theme | None = None, *, scale: float = 2.0,
              lang: str = SOURCE_LANGUAGE) -> bytes:
    """The PNG image of a bodygraph, ``scale`` times the SVG's pixel size, its words in
    ``lang`` (Japanese and Chinese need a CJK font installed: docs/render.md)."""
    data = chart if isinstance(chart, RenderInput | TransitInput | ConnectionInput) else (
        RenderInput.from_chart(chart))
    return svg_to_png(render_svg(data, theme, lang=lang), scale=scale)


def png(chart: Chart | RenderInput | TransitInput | ConnectionInput,
        path: str | PathLike[str], theme: Theme | None = None,
        *, scale: float = 2.0, lang: str = SOURCE_LANGUAGE) -> Path:
    """Write the PNG image of a bodygraph to ``path``; returns the path.

    Raises :class:`PngUnavailableError` when cairosvg or libcairo is missing.
    """
    target = Path(path)
    target.write_bytes(png_bytes(chart, theme, scale=scale, lang=lang))
    return target
