"""The bodygraph images of the command line: ``--svg``, ``--png`` and ``--theme`` (one
definition for ``bodygraph chart``, ``transit`` and ``connection``); the adapter from the
library's results to what the renderer draws is :mod:`bodygraph.render.from_relations`.

The renderer is imported only when an image is asked for (it is not needed otherwise).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Final

from bodygraph.catalog.translations import catalog, listed, pgettext
from bodygraph.cli.options import Options, usage_error

if TYPE_CHECKING:
    from bodygraph.model.chart import Chart
    from bodygraph.render import ConnectionInput, RenderInput, Theme, TransitInput


#: The themes beside the default ``light``, as ``--theme``'s help lists them.
OTHER_THEMES: Final = ("dark", "print", "high-contrast")

#: The help of ``--svg`` and ``--png``, by the picture they draw.
IMAGE_HELPS: Final = {
    "bodygraph": (pgettext("help", "also write the bodygraph as SVG"),
                  pgettext("help", "also write the bodygraph as PNG (needs the png extra)")),
    "transit": (pgettext("help", "also write the natal chart with the transit over it as SVG"),
                pgettext("help", "also write the natal chart with the transit over it as PNG "
                         "(needs the png extra)")),
    "connection": (pgettext("help", "also write the connection (each person in their own "
                            "colour) as SVG"),
                   pgettext("help", "also write the connection (each person in their own "
                            "colour) as PNG (needs the png extra)")),
    "wheel": (pgettext("help", "write the wheel as SVG"),
              pgettext("help", "write the wheel as PNG (needs the png extra)")),
}


def add_image_options(options: Options, lang: str, what: str = "bodygraph") -> None:
    """``--svg PATH``, ``--png PATH`` and ``--theme NAME``, their help in ``lang``;
    ``what`` names the picture (a key of :data:`IMAGE_HELPS`)."""
    tr = catalog(lang)
    svg, png = IMAGE_HELPS[what]
    options.add_argument("--svg", metavar="PATH", help=tr.pgettext("help", svg))
    options.add_argument("--png", metavar="PATH", help=tr.pgettext("help", png))
    options.add_argument("--theme", metavar="NAME", default="light",
                         help=tr.pgettext("help", "theme of --svg/--png: {default} "
                                          "(default), {others}").format(
                                              default="light", others=listed(OTHER_THEMES, lang)))


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
