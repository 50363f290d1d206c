"""``bodygraph transit``: the sky at an instant, alone or over a natal chart."""

from __future__ import annotations

import argparse

from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, listed, term
from bodygraph.cli.chart import add_birth_options, chart_from_args, parse_utc
from bodygraph.cli.images import add_image_options, wants_image, write_images
from bodygraph.cli.options import (
    Subparsers,
    calculator_from,
    exit_status,
    json_text,
    out_of_range_text,
    usage_error,
)
from bodygraph.cli.relations_options import (
    command_parser,
    finish_command,
    input_errors_exit_2,
)
from bodygraph.cli.relations_text import channel_lines, composite_lines, none_word, row, side_lines
from bodygraph.cli.report import utc_seconds_text
from bodygraph.errors import OutOfRangeError
from bodygraph.relations import Transit, transit

EXAMPLE = "bodygraph transit --at 2024-03-20T03:06:00Z --utc 1980-01-03T08:30:00Z"
#: Why ``--svg``/``--png`` need a natal birth: the image is a bodygraph, and a transit alone
#: has no design side (no profile, cross or authority of its own to draw).


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Register ``bodygraph transit``, its help in ``lang``."""
    tr = catalog(lang)
    parser = command_parser(
        subparsers, "transit", lang,
        tr.pgettext("help", "the 13 bodies at an instant, alone or over a natal chart"),
        tr.pgettext("help", "The transit at an instant: the 13 activations, their gates and "
                    "the channels they define; with a natal birth (--utc, or --date/--time "
                    "with a place) also the channels the transit completes, the centers it "
                    "newly defines and the overlay chart."),
        [EXAMPLE, "bodygraph transit --at 2024-03-20T03:06:00Z --json",
         "bodygraph transit --at 2024-03-20T03:06:00Z --date 1990-05-14 --time 08:30 "
         "--tz Europe/Berlin",
         f"{EXAMPLE} --svg transit.svg --theme dark"],
        exit_status(lang, tr.pgettext(
            "help", "the work failed: an unknown place, a kernel that cannot be read, an "
            "image that cannot be drawn or written (--png without cairo)"), tr.pgettext(
            "help", "a usage mistake or bad input: an unknown option, a malformed argument (a "
            "date or time that does not exist, an unknown --tz or --theme), an instant outside "
            "the ephemeris (1800-04-04..2199-12-31)")),
    )
    parser.add_argument("--at", metavar="ISO", required=True,
                        help=tr.pgettext("help", "transit instant with offset, e.g. "
                                         "2024-03-20T03:06:00Z"))
    add_birth_options(parser, lang)
    add_image_options(parser.add_argument_group(tr.pgettext("help", "image (with a natal "
                                                            "birth)")), lang, "transit")
    finish_command(parser, lang, tr.pgettext("help", "print the transit as JSON"), run)


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the transit."""
    at = parse_utc(args.at, "--at")
    natal = chart_from_args(args) if (args.utc or args.date or args.time) else None
    if wants_image(args) and natal is None:
        raise usage_error("error", "--svg and --png draw the transit over a natal chart: give "
                          "the natal birth too (--utc, or --date/--time with a place), e.g. "
                          "{example} --svg transit.svg", example=EXAMPLE)
    try:
        result = transit(at, natal=natal, node=args.node, calculator=calculator_from(args))
    except OutOfRangeError as exc:  # the natal birth is in range: it is --at
        raise usage_error("error", "--at {reason}",
                          reason=out_of_range_text(exc, "instants")) from None
    if natal is not None and wants_image(args):
        from bodygraph.render.from_relations import transit_input  # only when drawing

        write_images(args, transit_input(natal, result))
    print(json_text(args, result.to_dict(), result.labels) if args.json
          else render(result, args.lang))
    return 0


def render(result: Transit, lang: str = SOURCE_LANGUAGE) -> str:
    """The transit as readable text, every word in ``lang``."""
    tr = catalog(lang)
    rows = [tr.pgettext("cli", "Transit at {instant}").format(instant=utc_seconds_text(result.at)),
            "", *side_lines(result.activations, lang), "",
            row(tr.pgettext("cli", "Gates"), ", ".join(str(g) for g in sorted(result.gates))),
            row(tr.pgettext("cli", "Channels"), channel_lines(result.channels, lang))]
    if result.natal is not None:
        new_centers = listed((term("center", c, lang) for c in result.natal.new_centers), lang)
        rows += ["", tr.pgettext("cli", "Over the natal chart"),
                 row(tr.pgettext("cli", "Completed channels"),
                     channel_lines(result.natal.completed_channels, lang)),
                 row(tr.pgettext("cli", "New centers"), new_centers or none_word(lang)),
                 *composite_lines(tr.pgettext("cli", "Overlay"), result.natal.overlay, lang)]
    rows.append("\n  " + tr.pgettext("cli", "node: {node}").format(node=result.node))
    return "\n".join(rows)
