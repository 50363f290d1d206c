"""``bodygraph cycles``: the solar return of a year, the Saturn return and the Uranus
opposition of a birth."""

from __future__ import annotations

import argparse
from datetime import MAXYEAR, MINYEAR, datetime

from bodygraph.catalog.translations import catalog
from bodygraph.cli.chart import add_birth_options, chart_from_args
from bodygraph.cli.columns import display_width, pad
from bodygraph.cli.ical_file import (
    add_ics_option,
    ics_to_stdout,
    write_ics,
)
from bodygraph.cli.options import (
    Subparsers,
    calculator_from,
    exit_status,
    json_text,
    note_if_plain,
    usage_error,
)
from bodygraph.cli.relations_options import (
    command_parser,
    finish_command,
    input_errors_exit_2,
)
from bodygraph.cli.relations_text import rounded_seconds_text
from bodygraph.relations.cycles import cycles_of
from bodygraph.relations.ical import cycles_to_ical, event_words

EXAMPLE = "bodygraph cycles --utc 1980-01-03T08:30:00Z --year 2026"


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Register ``bodygraph cycles``, its help in ``lang``."""
    tr = catalog(lang)
    parser = command_parser(
        subparsers, "cycles", lang,
        tr.pgettext("help", "solar return, Saturn return and Uranus opposition of a birth"),
        tr.pgettext("help", "The solar return of a year (the Sun back at its natal longitude), "
                    "every pass of Saturn over natal Saturn between ages 26 and 33 and of "
                    "Uranus over the point opposite natal Uranus between ages 35 and 48, exact "
                    "to a second. Chiron is not in the DE440 ephemeris and is not computed."),
        [EXAMPLE, "bodygraph cycles --utc 1980-01-03T08:30:00Z --year 2026 --ics cycles.ics"],
        exit_status(lang, tr.pgettext(
            "help", "the work failed: an unknown place, a kernel that cannot be read, an --ics "
            "file that cannot be written (or --ics without the ics extra)"), tr.pgettext(
            "help", "a usage mistake or bad input: an unknown option, a malformed argument (a "
            "date or time that does not exist, an unknown --tz, a --year not after the "
            "birth), an instant outside the ephemeris (1800-04-04..2199-12-31)")),
    )
    add_birth_options(parser, lang)
    parser.add_argument("--year", type=int, metavar="YYYY",
                        help=tr.pgettext("help", "year of the solar return (default: this "
                                         "year, or the year after the birth)"))
    add_ics_option(parser, lang, "returns")
    finish_command(parser, lang, tr.pgettext("help", "print the instants as JSON"), run)


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the cycles of the birth."""
    if args.year is not None and not MINYEAR <= args.year <= MAXYEAR:
        raise usage_error("error", "--year {year} is not a year of the calendar ({first} to "
                          "{last})", year=args.year, first=MINYEAR, last=MAXYEAR)
    only_ics = ics_to_stdout(args)
    note_if_plain("cycles", args.lang)
    birth = chart_from_args(args).birth_utc
    found = cycles_of(birth, args.year, calculator_from(args))
    if args.ics is not None:
        write_ics(args.ics, cycles_to_ical(found, words=event_words(args.lang)))
        if only_ics:
            return 0
    if args.json:
        print(json_text(args, found.to_dict(), found.labels))
        return 0

    def when(instants: list[datetime]) -> str:
        return ", ".join(rounded_seconds_text(t) for t in instants)

    tr = catalog(args.lang)
    rows = [(tr.pgettext("cli", "Birth:"), when([birth])),
            (tr.pgettext("cli", "Solar return {year}:").format(year=found.year),
             when([found.solar])),
            (tr.pgettext("cli", "Saturn return:"), when(found.saturn)),
            (tr.pgettext("cli", "Uranus opposition:"), when(found.uranus))]
    width = max(display_width(heading) for heading, _ in rows)
    for heading, instants in rows:
        print(f"{pad(heading, width)} {instants}")
    return 0
