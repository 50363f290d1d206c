"""``bodygraph calendar``: every instant a body enters a new gate (or line) in a range of
dates."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, date, datetime, time, timedelta

from bodygraph.calculator import Calculator
from bodygraph.catalog.translations import catalog
from bodygraph.cli.columns import pad
from bodygraph.cli.ical_file import (
    add_ics_option,
    ics_to_stdout,
    write_ics,
)
from bodygraph.cli.options import (
    Subparsers,
    calculator_from,
    exit_status,
    note_if_plain,
    usage_error,
    with_labels,
)
from bodygraph.cli.relations_options import (
    command_parser,
    finish_command,
    input_errors_exit_2,
)
from bodygraph.cli.relations_text import rounded_seconds_text
from bodygraph.cli.report import body_label
from bodygraph.model.chart import BODIES, NodeKind, gate_line
from bodygraph.relations.calendar import LEVELS, Ingress, Level, calendar, parse_bodies
from bodygraph.relations.ical import event_words, to_ical

EXAMPLE = "bodygraph calendar --from 2026-01-01 --to 2026-12-31 --body sun"


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Register ``bodygraph calendar``, its help in ``lang``."""
    tr = catalog(lang)
    parser = command_parser(
        subparsers, "calendar", lang,
        tr.pgettext("help", "gate (or line) ingresses of the bodies over a range of dates"),
        tr.pgettext("help", "Every instant (UTC) from the start of --from to the end of --to "
                    "at which a body enters a new gate (or line), retrograde re-entries "
                    "included, in time order, exact to a second. The Sun entering gate 41 is "
                    "the Rave New Year."),
        [EXAMPLE, "bodygraph calendar --from 2026-03-01 --to 2026-03-31 --body moon "
         "--level line --json",
         "bodygraph calendar --from 2026-01-01 --to 2026-12-31 --body sun,moon --ics 2026.ics"],
        exit_status(lang, tr.pgettext(
            "help", "the work failed: a kernel that cannot be read, an --ics file that cannot "
            "be written (or --ics without the ics extra)"), tr.pgettext(
            "help", "a usage mistake or bad input: an unknown option, a malformed argument (a "
            "day that does not exist, an unknown --body), an instant outside the ephemeris "
            "(1800-04-04..2199-12-31)")),
    )
    parser.add_argument("--from", dest="start", required=True, metavar="YYYY-MM-DD",
                        help=tr.pgettext("help", "first day (UTC)"))
    parser.add_argument("--to", dest="end", required=True, metavar="YYYY-MM-DD",
                        help=tr.pgettext("help", "last day (UTC), included"))
    parser.add_argument("--body", default=",".join(b.value for b in BODIES), metavar="NAMES",
                        help=tr.pgettext("help", "comma-separated bodies (default: all 13): "
                                         "{names}").format(
                                             names=", ".join(b.value for b in BODIES)))
    parser.add_argument("--level", choices=tuple(LEVELS), default="gate",
                        help=tr.pgettext("help", "gate ingresses (default) or every line"))
    add_ics_option(parser, lang, "ingresses")
    finish_command(parser, lang, tr.pgettext("help", "print the ingresses as JSON"), run)


def _day(text: str, option: str) -> datetime:
    try:
        return datetime.combine(date.fromisoformat(text.strip()), time(), tzinfo=UTC)
    except ValueError:
        raise usage_error("error", "{option} {text!r} is not a date; write it like 2026-01-01",
                          option=option, text=text) from None


def ingresses(first: str, last: str, bodies: str, level: Level, *, node: NodeKind = "true",
              calculator: Calculator | None = None,
              names: tuple[str, str] = ("--from", "--to")) -> list[Ingress]:
    """The ingresses from the start of day ``first`` to the end of day ``last`` (UTC,
    ``YYYY-MM-DD``) of the comma-separated ``bodies``; ``names`` name the two days in
    messages."""
    start, last_day = _day(first, names[0]), _day(last, names[1])
    if last_day < start:
        raise usage_error("error", "{last} comes before {first}", last=names[1], first=names[0])
    chosen = parse_bodies(name for name in bodies.split(",") if name.strip())
    end = last_day + timedelta(days=1) if last_day.date() < date.max else last_day
    return calendar(start, end, chosen, level, node=node, calculator=calculator)


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the ingresses."""
    only_ics = ics_to_stdout(args)
    note_if_plain("calendar", args.lang)
    found = ingresses(args.start, args.end, args.body, args.level, node=args.node,
                      calculator=calculator_from(args))
    if args.ics is not None:
        write_ics(args.ics, to_ical(found, args.level, node=args.node, first=args.start.strip(),
                                    last=args.end.strip(), words=event_words(args.lang)))
        if only_ics:
            return 0
    if args.json:
        print(json.dumps([with_labels(args, ingress.to_dict(), ingress.labels)
                          for ingress in found], indent=2, ensure_ascii=False))
        return 0
    words = catalog(args.lang)
    if not found:
        none = (words.pgettext("cli", "no body asked enters a new gate from {first} to {last}")
                if args.level == "gate" else
                words.pgettext("cli", "no body asked enters a new line from {first} to {last}"))
        print(none.format(first=args.start.strip(), last=args.end.strip()))
        return 0
    enters = words.pgettext("cli", "{body} enters {gate_line}")
    for ingress in found:
        print(f"{rounded_seconds_text(ingress.at)}  " + enters.format(
            body=pad(body_label(ingress.body, args.lang), 10),
            gate_line=gate_line(ingress.gate, ingress.line)))
    return 0
