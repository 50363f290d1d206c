"""``bodygraph cycles``: the solar return of a year, the Saturn return and the Uranus
opposition of a birth."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from datetime import MAXYEAR, MINYEAR, UTC, datetime
from typing import Any

from bodygraph.calculator import Calculator
from bodygraph.catalog.translations import catalog
from bodygraph.cli.chart import add_birth_options, chart_from_args
from bodygraph.cli.options import CliError, Subparsers, calculator_from, note_if_plain
from bodygraph.cli.relations_options import (
    command_parser,
    exit_status,
    finish_command,
    input_errors_exit_2,
)
from bodygraph.cli.relations_text import rounded_seconds_text
from bodygraph.cli.report import display_width, pad
from bodygraph.relations.common import instant_text
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
        exit_status(malformed="a --year not after the birth"),
    )
    add_birth_options(parser)
    parser.add_argument("--year", type=int, metavar="YYYY",
                        help="year of the solar return (default: this year, or the year "
                        "after the birth)")
    finish_command(parser, "instants", run)


@dataclass(frozen=True, slots=True)
class Cycles:
    """The cycles of a birth: the solar return of ``year`` and every Saturn return and
    Uranus opposition pass."""

    year: int
    solar: datetime
    saturn: list[datetime]
    uranus: list[datetime]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``bodygraph cycles --json``."""
        return {"solarReturn": instant_text(self.solar),
                "saturnReturn": [instant_text(t) for t in self.saturn],
                "uranusOpposition": [instant_text(t) for t in self.uranus]}


def cycles_of(birth: datetime, year: int | None,
              calculator: Calculator | None = None) -> Cycles:
    """The cycles of a birth; the solar return of ``year`` (default: this year, or the
    year after the birth)."""
    year = year if year is not None else max(datetime.now(UTC).year, birth.year + 1)
    return Cycles(year, solar_return(birth, year, calculator=calculator),
                  saturn_returns(birth, calculator=calculator),
                  uranus_oppositions(birth, calculator=calculator))


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the cycles of the birth."""
    if args.year is not None and not MINYEAR <= args.year <= MAXYEAR:
        raise CliError(f"--year {args.year} is not a year of the calendar ({MINYEAR} to "
                       f"{MAXYEAR})")
    note_if_plain("cycles")
    birth = chart_from_args(args).birth_utc
    found = cycles_of(birth, args.year, calculator_from(args))
    if args.json:
        print(json.dumps(found.to_dict(), indent=2))
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
