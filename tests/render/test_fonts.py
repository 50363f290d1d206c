"""No rendered text depends on a particular font: planet symbols are paths, and every
text is ASCII (digits, Latin letters, punctuation: in every font of a generic family).

The glyph check renders in a fontconfig environment that hides every installed font
(DejaVu included), through cairosvg in a child process (one for both of its images).
"""

from __future__ import annotations

import io
import json
import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from bodygraph.model.chart import BODIES
from bodygraph.render import PRESET_NAMES, Theme, render_svg, svg
from bodygraph.render.raster import svg_to_png

from .cascade import SVG
from .charts import connection_input, named_chart, transit_input

ASCII_TEXT = re.compile(r"[ -~]*")
RENDER = (  # each document of the JSON list on stdin: its PNG's length, then the PNG
    "import json, struct, sys; from bodygraph.render.raster import svg_to_png\n"
    "for document in json.load(sys.stdin):\n"
    "    image = svg_to_png(document, scale=1.0)\n"
    "    sys.stdout.buffer.write(struct.pack('>I', len(image)) + image)\n"
)


def documents() -> list[str]:
    out = []
    for preset in PRESET_NAMES:
        for names in ("symbol", "name"):
            theme = Theme.from_dict({"planet_labels": names, "show_summary": True},
                                    base=Theme.preset(preset))
            out.append(svg(named_chart("manifesting-generator"), theme))
            out.append(render_svg(transit_input(), theme))
            out.append(render_svg(connection_input(), theme))
    return out


def test_every_rendered_text_is_ascii() -> None:
    seen = set()
    for document in documents():
        root = ET.fromstring(document)
        for text in root.iter(f"{SVG}text"):
            content = "".join(text.itertext())
            assert ASCII_TEXT.fullmatch(content), f"{content!r} needs a particular font"
            seen.add(content)
    assert "Manifesting Generator" in seen and "North Node" in seen
    assert not any(ord(c) > 0x7E for text in seen for c in text)


@pytest.fixture(scope="module")
def fontless_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment variables under which fontconfig finds no font at all."""
    root = tmp_path_factory.mktemp("fontconfig")
    (root / "empty").mkdir()
    config = root / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n'
        f"<fontconfig><dir>{root / 'empty'}</dir><cachedir>{root / 'cache'}</cachedir>"
        "</fontconfig>\n", encoding="utf-8")
    env = {**os.environ, "FONTCONFIG_FILE": str(config)}
    listing = subprocess.run(["fc-list"], env=env, capture_output=True, text=True, check=False)
    if listing.returncode == 0:  # fc-list comes with fontconfig; when present, it proves it
        assert "DejaVu" not in listing.stdout and listing.stdout.strip() == ""
    return env


def render_without_fonts(documents: list[str], env: dict[str, str]) -> list[np.ndarray]:
    """The documents' pixels as a child process under ``env`` draws them: one process for
    all (each costs a third of a CPU-second in imports)."""
    from PIL import Image

    done = subprocess.run([sys.executable, "-c", RENDER],
                          input=json.dumps(documents).encode("utf-8"),
                          env=env, capture_output=True, check=True, timeout=60)
    images, rest = [], done.stdout
    while rest:
        (length,) = struct.unpack(">I", rest[:4])
        images.append(np.asarray(Image.open(io.BytesIO(rest[4:4 + length])).convert("RGB"),
                                 dtype=np.int16))
        rest = rest[4 + length:]
    assert len(images) == len(documents)
    return images


def without(document: str, pattern: str) -> str:
    return re.sub(pattern, "", document, flags=re.S)


TEXT = r"<text\b.*?</text>"
GLYPH = r'<path class="planet"[^>]*/>'


def test_planet_glyphs_are_drawn_without_any_font(fontless_env: dict[str, str],
                                                 tmp_path: Path) -> None:
    from PIL import Image

    document = svg(named_chart("manifesting-generator"))
    shapes = without(document, TEXT)  # everything but text: must not need fonts at all
    no_font, bare = render_without_fonts([shapes, without(shapes, GLYPH)], fontless_env)
    with_font = np.asarray(Image.open(io.BytesIO(svg_to_png(shapes, scale=1.0)))
                           .convert("RGB"), dtype=np.int16)
    assert np.array_equal(no_font, with_font)
    glyphs = re.findall(r'<path class="planet" data-glyph="(\w+)" '
                        r'transform="translate\(([\d.]+) ([\d.]+)\)"', document)
    assert len(glyphs) == 2 * len(BODIES)
    for body, x, y in glyphs:  # each symbol puts ink where, without it, there is none
        cx, cy = round(float(x)), round(float(y))
        box = (slice(cy - 10, cy + 10), slice(cx - 10, cx + 10))
        changed = np.abs(no_font[box] - bare[box]).sum(axis=2) > 60
        assert changed.sum() > 25, f"{body} symbol missing without fonts"
