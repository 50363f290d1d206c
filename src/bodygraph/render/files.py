"""Write a bodygraph image to a file, the format chosen by the file's suffix."""

from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from bodygraph.catalog.translations import SOURCE_LANGUAGE
from bodygraph.render.drawing import render_svg
from bodygraph.render.errors import RenderError
from bodygraph.render.model import RenderInput
from bodygraph.render.overlay import ConnectionInput, TransitInput
from bodygraph.render.raster import png

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart
    from bodygraph.render.theme import Theme

SUFFIXES: tuple[str, ...] = (".svg", ".png")


def write(chart: Chart | RenderInput | TransitInput | ConnectionInput, path: str | PathLike[str],
          theme: Theme | None = None, *, format: Literal["svg", "png"] | None = None,
          lang: str = SOURCE_LANGUAGE) -> Path:
    """Write ``chart`` as SVG or PNG (needs cairosvg), its words in ``lang``; returns the
    path.

    The format is ``format`` when given, else the suffix (``.svg`` or ``.png``); any
    other suffix without ``format`` raises :class:`RenderError`.
    """
    target = Path(path)
    suffix = f".{format}" if format else target.suffix.lower()
    if suffix == ".svg":
        data = chart if isinstance(chart, RenderInput | TransitInput | ConnectionInput) else (
            RenderInput.from_chart(chart))
        target.write_text(render_svg(data, theme, lang=lang), encoding="utf-8", newline="\n")
        return target
    if suffix == ".png":
        return png(chart, target, theme, lang=lang)
    raise RenderError(f"cannot tell the image format of {str(target)!r}: use .svg or .png")
