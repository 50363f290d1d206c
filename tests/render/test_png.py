"""PNG output (cairosvg) and writing by file suffix."""

from __future__ import annotations

import importlib
import struct
from pathlib import Path
from typing import Any

import pytest

from bodygraph.render import PngUnavailableError, RenderError, png, png_bytes, svg, write

from .charts import named_chart

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture(scope="module")
def generator_png(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """:func:`png` of the generator chart, written once for the tests that read it (a
    rasterised chart costs a quarter of a CPU-second)."""
    return png(named_chart("generator"), tmp_path_factory.mktemp("png") / "chart.png")


def test_png_is_the_svg_at_twice_the_size(generator_png: Path) -> None:
    c = named_chart("generator")
    data = generator_png.read_bytes()
    document = svg(c)
    width = float(document.split('width="', 1)[1].split('"', 1)[0])
    assert size(data) == (round(2 * width), size(png_bytes(c, scale=2.0))[1])
    assert size(png_bytes(c, scale=1.0))[0] == round(width)


def test_png_pixels_show_the_design_colour(generator_png: Path) -> None:
    from PIL import Image as pil  # pillow comes with cairosvg

    with pil.open(generator_png) as image:
        colours = {rgb for _, rgb in image.convert("RGB").getcolors(1 << 20)}
    assert (0xC6, 0x28, 0x28) in colours  # design red
    assert (0xE0, 0x7A, 0x6A) in colours  # defined Sacral


def test_missing_cairosvg_is_a_clear_error(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    real = importlib.import_module

    def fake(name: str, *args: Any) -> Any:
        if name == "cairosvg":
            raise OSError("no library called cairo-2 was found")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake)  # what raster uses
    with pytest.raises(PngUnavailableError, match=r"bodygraph\[png\]"):
        png(named_chart("generator"), tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_write_picks_the_format_by_suffix(tmp_path: Path) -> None:
    c = named_chart("projector")
    svg_path = write(c, tmp_path / "chart.SVG")
    assert svg_path.read_text(encoding="utf-8") == svg(c)
    assert write(c, tmp_path / "chart.png").read_bytes()[:8] == PNG_SIGNATURE
    with pytest.raises(RenderError, match=r"use \.svg or \.png"):
        write(c, tmp_path / "chart.pdf")
