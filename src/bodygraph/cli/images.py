"""The bodygraph images of the command line: ``--svg``, ``--png`` and ``--theme`` (one
definition for ``bodygraph chart``, ``transit`` and ``connection``); the adapter from the
library's results to what the renderer draws is :mod:`bodygraph.render.from_relations`.

The renderer is imported only when an image is asked for (it is not needed otherwise).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bodygraph.cli.options import Options, usage_error

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart
    from bodygraph.render import ConnectionInput, RenderInput, Theme, TransitInput

def add_image_options(options: Options, what: str = "bodygraph") -> None:
    """``--svg PATH``, ``--png PATH`` and ``--theme NAME``; ``what`` names the picture."""
    options.add_argument("--svg", metavar="PATH", help=f"also write the {what} as SVG")
    options.add_argument("--png", metavar="PATH",
                         help=f"also write the {what} as PNG (needs the png extra)")
    options.add_argument("--theme", metavar="NAME", default="light",
                         help="theme of --svg/--png: light (default), dark, print, high-contrast")


def wants_image(args: argparse.Namespace) -> bool:
    """Whether ``--svg`` or ``--png`` was given."""
    return bool(args.svg or args.png)


def theme_of(args: argparse.Namespace) -> Theme:
    """The shipped theme ``--theme`` names (an unknown name is a usage mistake)."""
    from bodygraph.render import PRESET_NAMES, Theme  # the renderer: only when drawing

    if args.theme not in PRESET_NAMES:
        raise usage_error("error", "--theme {text!r} is not a theme; use one of {themes}",
                          text=args.theme, themes=", ".join(PRESET_NAMES))
    return Theme.preset(args.theme)


def write_images(args: argparse.Namespace,
                 data: Chart | RenderInput | TransitInput | ConnectionInput) -> None:
    """Write ``data`` to the ``--svg`` and ``--png`` paths given, in the ``--theme`` and
    the ``--lang``."""
    if not wants_image(args):
        return
    from bodygraph.render import write

    theme = theme_of(args)
    if args.svg:
        write(data, args.svg, theme, format="svg", lang=args.lang)
    if args.png:
        write(data, args.png, theme, format="png", lang=args.lang)
