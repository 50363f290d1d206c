"""``bodygraph sensitivity``: every birth instant within a window at which one of the 26
activations changes line, and the segments between them."""

from __future__ import annotations

import argparse
import json
import re
from datetime import timedelta

from bodygraph.cli.chart import add_birth_options, chart_from_args
from bodygraph.cli.options import CliError, Subparsers, calculator_from, note_if_plain
from bodygraph.cli.relations_options import command_parser, finish_command, input_errors_exit_2
from bodygraph.cli.relations_text import rounded_seconds_text
from bodygraph.relations.segments import Sensitivity
from bodygraph.relations.sensitivity import sensitivity

EXAMPLE = "bodygraph sensitivity --utc 1980-01-03T08:30:00Z --window 2h"
_SPAN = re.compile(r"^(?:(\d+(?:\.\d*)?)h)?(?:(\d+(?:\.\d*)?)m(?:in)?)?(?:(\d+(?:\.\d*)?)s)?$")


def parse_window(text: str, option: str = "--window") -> timedelta:
    """``2h``, ``90m``, ``1h30m``, ``45s``: a span of time (given to ``option``)."""
    found = _SPAN.match(text.strip().lower())
    if not text.strip() or found is None:
        raise CliError(f"{option} {text!r} is not a span of time; write it like 2h, 90m or "
                       "1h30m")
    hours, minutes, seconds = (float(part) if part else 0.0 for part in found.groups())
    return timedelta(hours=hours, minutes=minutes, seconds=seconds)


def add_parser(subparsers: Subparsers) -> None:
    """Register ``bodygraph sensitivity``."""
    parser = command_parser(
        subparsers, "sensitivity", "how the chart changes as the birth time moves",
        "Every instant within a window around a birth at which one of the 26 activations "
        "changes line (the design side moving with the birth), exact to a second, and the "
        "segments between them with their type, profile, authority, definition and "
        "incarnation cross.",
        [EXAMPLE, "bodygraph sensitivity --date 1990-05-14 --time 08:30 --tz Europe/Berlin "
         "--window 90m --json"],
    )
    add_birth_options(parser)
    parser.add_argument("--window", default="2h", metavar="SPAN",
                        help="how far either side of the birth: 2h (default), 90m, ... "
                        "(at most 48h)")
    finish_command(parser, "changes and segments", run)


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the sensitivity of the birth."""
    note_if_plain("sensitivity")
    window = parse_window(args.window)
    birth = chart_from_args(args).birth_utc
    result = sensitivity(birth, window, args.node, calculator=calculator_from(args))
    print(json.dumps(result.to_dict(), indent=2) if args.json else render(result))
    return 0


def render(result: Sensitivity) -> str:
    """The readable report: segments, then changes (instants to the second)."""
    when = rounded_seconds_text
    lines = [f"Birth {when(result.birth)}, from {when(result.start)} to {when(result.end)}:",
             "", "Segments:"]
    for segment in result.segments:
        lines.append(
            f"  {when(segment.start)} to {when(segment.end)}  {segment.profile} "
            f"{segment.type.value}, {segment.authority.value}, {segment.definition.value}, "
            f"{segment.incarnation_cross}")
    lines += ["", "Changes:" if result.changes else "No line changes in the window."]
    for change in result.changes:
        lines.append(f"  {when(change.at)}  {change.side:<11} {change.body.value:<9} "
                     f"{change.before} -> {change.after}")
    return "\n".join(lines)
