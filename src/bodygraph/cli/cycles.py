"""``bodygraph cycles``: the solar return of a year, the Saturn return and the Uranus
opposition of a birth."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime

from bodygraph.cli.chart import add_birth_options, chart_from_args
from bodygraph.cli.options import Subparsers, calculator_from
from bodygraph.cli.relations_options import command_parser, finish_command, input_errors_exit_2
from bodygraph.cli.report import utc_seconds_text
from bodygraph.relations.common import instant_text, to_second
from bodygraph.relations.cycles import saturn_returns, solar_return, uranus_oppositions

EXAMPLE = "bodygraph cycles --utc 1980-01-03T08:30:00Z --year 2026"


def add_parser(subparsers: Subparsers) -> None:
    """Register ``bodygraph cycles``."""
    parser = command_parser(
        subparsers, "cycles", "solar return, Saturn return and Uranus opposition of a birth",
        "The solar return of a year (the Sun back at its natal longitude), every pass of "
        "Saturn over natal Saturn between ages 26 and 33 and of Uranus over the point "
        "opposite natal Uranus between ages 35 and 48, exact to a second. Chiron is not in "
        "the DE440 ephemeris and is not computed.",
        [EXAMPLE],
    )
    add_birth_options(parser)
    parser.add_argument("--year", type=int, metavar="YYYY",
                        help="year of the solar return (default: this year, or the year "
                        "after the birth)")
    finish_command(parser, "instants", run)


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the cycles of the birth."""
    calculator = calculator_from(args)
    birth = chart_from_args(args).birth_utc
    year = args.year if args.year is not None else max(datetime.now(UTC).year, birth.year + 1)
    solar = solar_return(birth, year, calculator=calculator)
    saturn = saturn_returns(birth, calculator=calculator)
    uranus = uranus_oppositions(birth, calculator=calculator)
    if args.json:
        print(json.dumps({"solarReturn": instant_text(solar),
                          "saturnReturn": [instant_text(t) for t in saturn],
                          "uranusOpposition": [instant_text(t) for t in uranus]}, indent=2))
        return 0

    def when(instants: list[datetime]) -> str:
        return ", ".join(utc_seconds_text(to_second(t)) for t in instants)

    print(f"Birth:             {when([birth])}")
    print(f"Solar return {year}: {when([solar])}")
    print(f"Saturn return:     {when(saturn)}")
    print(f"Uranus opposition: {when(uranus)}")
    return 0
