"""``bodygraph connection``: the connection chart of two births."""

from __future__ import annotations

import argparse
import json

from bodygraph.catalog.tables import reading_order
from bodygraph.cli.births import add_births_arguments, charts_of_births
from bodygraph.cli.images import add_image_options, wants_image, write_images
from bodygraph.cli.options import CliError, Subparsers
from bodygraph.cli.relations_options import (
    command_parser,
    exit_status,
    finish_command,
    input_errors_exit_2,
)
from bodygraph.cli.relations_text import INDENT, channel_lines, composite_lines
from bodygraph.cli.report import utc_seconds_text
from bodygraph.relations import ChannelLink, Connection, connection

EXAMPLE = "bodygraph connection --utc 1980-01-03T08:30:00Z --utc 1985-07-09T14:00:00Z"


def add_parser(subparsers: Subparsers) -> None:
    """Register ``bodygraph connection``."""
    parser = command_parser(
        subparsers, "connection", "the connection chart of two births",
        "Classify each of the 36 channels between two people (electromagnetic, "
        "companionship, dominance, compromise) and give the composite chart.",
        [EXAMPLE, f"{EXAMPLE} --json", f"{EXAMPLE} --svg connection.svg --png connection.png"],
        exit_status(images=True, count=True),
    )
    add_births_arguments(parser, "person 1, then person 2")
    add_image_options(parser.add_argument_group("image"),
                      "connection (each person in their own colour)")
    finish_command(parser, "connection", run)


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the connection."""
    if len(args.births) != 2:
        raise CliError(f"a connection is of two births, not {len(args.births)} (try: {EXAMPLE})")
    one, two = charts_of_births(args)
    result = connection(one, two)
    if wants_image(args):
        from bodygraph.render.from_relations import connection_input  # only when drawing

        write_images(args, connection_input(one, two))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(f"Connection of person 1 (born {utc_seconds_text(one.birth_utc)}) and person 2 "
              f"(born {utc_seconds_text(two.birth_utc)})\n\n{render(result)}")
    return 0


def _held(links: tuple[ChannelLink, ...]) -> str:
    return ("\n" + INDENT).join(
        f"{link.channel.short:<6} {link.channel.name} (person {link.person} has it whole)"
        for link in sorted(links, key=lambda link: reading_order(link.channel))) or "none"


def render(result: Connection) -> str:
    """The connection as readable text."""
    return "\n".join([
        f"  {'Electromagnetic':<19} {channel_lines(result.electromagnetic)}",
        f"  {'Companionship':<19} {channel_lines(result.companionship)}",
        f"  {'Dominance':<19} {_held(result.dominance)}",
        f"  {'Compromise':<19} {_held(result.compromise)}",
        "",
        *composite_lines("Composite", result.composite),
    ])
