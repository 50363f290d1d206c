"""``bodygraph penta``: the group chart of 3 to 5 births."""

from __future__ import annotations

import argparse

from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog
from bodygraph.cli.births import add_births_arguments, charts_of_births
from bodygraph.cli.options import Subparsers, exit_status, json_text
from bodygraph.cli.relations_options import (
    command_parser,
    finish_command,
    input_errors_exit_2,
)
from bodygraph.cli.relations_text import channel_lines, none_word, row
from bodygraph.cli.report import utc_seconds_text
from bodygraph.relations import Penta, penta
from bodygraph.relations.penta import MAX_MEMBERS, MIN_MEMBERS

EXAMPLE = ("bodygraph penta --utc 1980-01-03T08:30:00Z --utc 1983-01-03T08:30:00Z "
           "--utc 1990-01-03T08:30:00Z")


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Register ``bodygraph penta``, its help in ``lang``."""
    tr = catalog(lang)
    parser = command_parser(
        subparsers, "penta", lang,
        tr.pgettext("help", "the penta (group chart) of 3 to 5 births"),
        tr.pgettext("help", "Which of the 12 penta gates a group of 3 to 5 people has, and "
                    "which of the 6 penta channels it defines."),
        [EXAMPLE, f"{EXAMPLE} --json"],
        exit_status(lang, tr.pgettext(
            "help", "the work failed: an unknown place, a kernel that cannot be read"),
            tr.pgettext(
            "help", "a usage mistake or bad input: an unknown option, a malformed argument (a "
            "date or time that does not exist, an unknown --tz), an instant outside the "
            "ephemeris (1800-04-04..2199-12-31), a wrong number of births")),
    )
    add_births_arguments(parser, lang, tr.pgettext("help", "births ({first} to {last} "
                                                   "members)").format(first=MIN_MEMBERS,
                                                                      last=MAX_MEMBERS))
    finish_command(parser, lang, tr.pgettext("help", "print the penta as JSON"), run)


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the penta."""
    result = penta(charts_of_births(args))
    print(json_text(args, result.to_dict(), result.labels) if args.json
          else render(result, args.lang))
    return 0


def render(result: Penta, lang: str = SOURCE_LANGUAGE) -> str:
    """The penta as readable text, every word in ``lang``."""
    tr = catalog(lang)
    members = ", ".join(utc_seconds_text(m) for m in result.members)
    none = none_word(lang)
    return "\n".join([
        tr.npgettext("cli", "Penta of {count} member ({members})",
                     "Penta of {count} members ({members})", len(result.members)).format(
            count=len(result.members), members=members),
        "",
        row(tr.pgettext("cli", "Gates"), ", ".join(str(g) for g in sorted(result.gates)) or none),
        row(tr.pgettext("cli", "Missing gates"),
            ", ".join(str(g) for g in sorted(result.missing_gates)) or none),
        row(tr.pgettext("cli", "Channels"), channel_lines(result.channels, lang)),
    ])
