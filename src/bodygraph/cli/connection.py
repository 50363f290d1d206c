"""``bodygraph connection``: the connection chart of two births."""

from __future__ import annotations

import argparse

from bodygraph.catalog.tables import reading_order
from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog
from bodygraph.cli.births import add_births_arguments, charts_of_births
from bodygraph.cli.images import add_image_options, wants_image, write_images
from bodygraph.cli.options import Subparsers, exit_status, json_text, usage_error
from bodygraph.cli.relations_options import (
    command_parser,
    finish_command,
    input_errors_exit_2,
)
from bodygraph.cli.relations_text import INDENT, channel_lines, composite_lines, none_word, row
from bodygraph.cli.report import channel_name, utc_seconds_text
from bodygraph.relations import ChannelLink, Connection, connection

EXAMPLE = "bodygraph connection --utc 1980-01-03T08:30:00Z --utc 1985-07-09T14:00:00Z"


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Register ``bodygraph connection``, its help in ``lang``."""
    tr = catalog(lang)
    parser = command_parser(
        subparsers, "connection", lang,
        tr.pgettext("help", "the connection chart of two births"),
        tr.pgettext("help", "Classify each of the 36 channels between two people "
                    "(electromagnetic, companionship, dominance, compromise) and give the "
                    "composite chart."),
        [EXAMPLE, f"{EXAMPLE} --json", f"{EXAMPLE} --svg connection.svg --png connection.png"],
        exit_status(lang, tr.pgettext(
            "help", "the work failed: an unknown place, a kernel that cannot be read, an "
            "image that cannot be drawn or written (--png without cairo)"), tr.pgettext(
            "help", "a usage mistake or bad input: an unknown option, a malformed argument (a "
            "date or time that does not exist, an unknown --tz or --theme), an instant outside "
            "the ephemeris (1800-04-04..2199-12-31), a wrong number of births")),
    )
    add_births_arguments(parser, lang,
                         tr.pgettext("help", "births (person 1, then person 2)"))
    add_image_options(parser.add_argument_group(tr.pgettext("help", "image")), lang,
                      "connection")
    finish_command(parser, lang, tr.pgettext("help", "print the connection as JSON"), run)


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the connection."""
    if len(args.births) != 2:
        raise usage_error("error", "a connection is of two births, not {count} (try: {example})",
                          count=len(args.births), example=EXAMPLE)
    one, two = charts_of_births(args)
    result = connection(one, two)
    if wants_image(args):
        from bodygraph.render.from_relations import connection_input  # only when drawing

        write_images(args, connection_input(one, two))
    if args.json:
        print(json_text(args, result.to_dict(), result.labels))
    else:
        title = catalog(args.lang).pgettext(
            "cli", "Connection of person 1 (born {first}) and person 2 (born {second})")
        print(title.format(first=utc_seconds_text(one.birth_utc),
                           second=utc_seconds_text(two.birth_utc))
              + f"\n\n{render(result, args.lang)}")
    return 0


def _held(links: tuple[ChannelLink, ...], lang: str) -> str:
    whole = catalog(lang).pgettext("cli", "(person {person} has it whole)")
    return ("\n" + INDENT).join(
        f"{link.channel.short:<6} {channel_name(link.channel.name, lang)} "
        + whole.format(person=link.person)
        for link in sorted(links, key=lambda link: reading_order(link.channel))
    ) or none_word(lang)


def render(result: Connection, lang: str = SOURCE_LANGUAGE) -> str:
    """The connection as readable text, every word in ``lang``."""
    tr = catalog(lang)
    return "\n".join([
        row(tr.pgettext("cli", "Electromagnetic"), channel_lines(result.electromagnetic, lang)),
        row(tr.pgettext("cli", "Companionship"), channel_lines(result.companionship, lang)),
        row(tr.pgettext("cli", "Dominance"), _held(result.dominance, lang)),
        row(tr.pgettext("cli", "Compromise"), _held(result.compromise, lang)),
        "",
        *composite_lines(tr.pgettext("cli", "Composite"), result.composite, lang),
    ])
