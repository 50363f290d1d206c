"""``bodygraph wheel``: the mandala wheel of one birth as SVG and/or PNG, in a theme, with
the bodygraph in the centre and optionally a transit as an outer ring."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Final

from bodygraph.catalog.translations import catalog
from bodygraph.cli.chart import add_birth_options, chart_from_args, parse_utc
from bodygraph.cli.images import add_image_options, theme_of
from bodygraph.cli.options import (
    Subparsers,
    add_calculation_options,
    calculator_from,
    exit_status,
    usage_error,
)
from bodygraph.cli.relations_options import command_parser

EXAMPLE: Final = "bodygraph wheel --utc 1980-01-03T08:30:00Z --svg wheel.svg"


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Add ``bodygraph wheel ...`` to the ``bodygraph`` command line, its help in
    ``lang``."""
    tr = catalog(lang)
    parser = command_parser(
        subparsers, "wheel", lang,
        tr.pgettext("help", "draw the mandala wheel of one birth (SVG, PNG)"),
        tr.pgettext("help", "Draw the mandala wheel: the 64 gates around the zodiac, the 26 "
                    "activations at their longitudes, the bodygraph in the centre "
                    "(docs/render.md)."),
        [EXAMPLE, "bodygraph wheel --utc 1980-01-03T08:30:00Z --png wheel.png --theme dark "
         "--transit-at 2027-01-01T00:00:00Z"],
        exit_status(lang),
    )
    add_birth_options(parser, lang)
    out = parser.add_argument_group(tr.pgettext("help", "output (at least one of --svg and "
                                                "--png)"))
    add_image_options(out, lang, what="wheel")
    out.add_argument("--transit-at", metavar="ISO",
                     help=tr.pgettext("help", "also draw the sky at this instant as an outer "
                                      "ring"))
    out.add_argument("--no-bodygraph", action="store_true",
                     help=tr.pgettext("help", "leave the centre empty (no bodygraph)"))
    add_calculation_options(parser.add_argument_group(tr.pgettext("help", "calculation")), lang)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The handler of ``bodygraph wheel``."""
    if not (args.svg or args.png):
        raise usage_error("error", "give --svg PATH and/or --png PATH (try: {example})",
                          example=EXAMPLE)
    theme = theme_of(args)
    moment = parse_utc(args.transit_at, "--transit-at") if args.transit_at else None
    chart = chart_from_args(args)
    from bodygraph.render.raster import svg_to_png  # the renderer: only when drawing
    from bodygraph.render.wheel import WheelInput, wheel_svg

    transit = None if moment is None else calculator_from(args).calculate(moment,
                                                                          node=args.node)
    label = "Transit" if moment is None else f"Transit {moment:%Y-%m-%d %H:%M} UTC"
    data = WheelInput.from_chart(chart, transit, transit_label=label,
                                 bodygraph=not args.no_bodygraph)
    document = wheel_svg(data, theme, lang=args.lang)
    if args.svg:
        Path(args.svg).write_text(document, encoding="utf-8", newline="\n")
    if args.png:
        Path(args.png).write_bytes(svg_to_png(document))
    return 0
