"""``bodygraph sensitivity``: every birth instant within a window at which one of the 26
activations changes line, and the segments between them."""

from __future__ import annotations

import argparse
import json
import re
from datetime import datetime, timedelta
from enum import Enum

from bodygraph.cli.chart import add_birth_options, chart_from_args
from bodygraph.cli.options import CliError, Subparsers, calculator_from, note_if_plain
from bodygraph.cli.relations_options import (
    command_parser,
    exit_status,
    finish_command,
    input_errors_exit_2,
)
from bodygraph.cli.relations_text import rounded_seconds_text
from bodygraph.relations.segments import LineChange, Segment, Sensitivity
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
        exit_status(malformed="a --window that is not a span of up to 48h"),
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


#: The segment properties a line names when they change, with their labels.
_PROPERTIES = (("type", "type"), ("profile", "profile"), ("authority", "authority"),
               ("definition", "definition"), ("incarnation_cross", "cross"))


def _value(segment: Segment, name: str) -> str:
    value = getattr(segment, name)
    return str(value.value if isinstance(value, Enum) else value)


def _summary(segment: Segment) -> str:
    return (f"{segment.profile} {segment.type.value}, {segment.authority.value}, "
            f"{segment.definition.value}, {segment.incarnation_cross}")


def _difference(before: Segment, after: Segment, changes: list[LineChange]) -> str:
    """What begins ``after``: the activations that change line at its start, then the
    properties that differ from ``before`` (or that none does)."""
    moved = ", ".join(f"{c.side} {c.body.value} {c.before} -> {c.after}" for c in changes)
    differ = [f"{label} {_value(before, name)} -> {_value(after, name)}"
              for name, label in _PROPERTIES if _value(before, name) != _value(after, name)]
    return f"{moved}; " + ("; ".join(differ) if differ else "type, profile, authority, "
                           "definition and cross unchanged")


def render(result: Sensitivity) -> str:
    """The readable report: the first segment's chart, then each later segment with the
    line changes at its start and the properties they change (instants to the second)."""
    when = rounded_seconds_text
    lines = [f"Birth {when(result.birth)}, from {when(result.start)} to {when(result.end)}:",
             "", "Segments (the first with its chart, each later one with the line changes at its "
             "start and what they change):"]
    at: dict[datetime, list[LineChange]] = {}
    for change in result.changes:
        at.setdefault(change.at, []).append(change)
    previous: Segment | None = None
    for segment in result.segments:
        what = (_summary(segment) if previous is None
                else _difference(previous, segment, at.get(segment.start, [])))
        birth = "  (the birth)" if segment.start <= result.birth < segment.end else ""
        lines.append(f"  {when(segment.start)} to {when(segment.end)}  {what}{birth}")
        previous = segment
    if not result.changes:
        lines += ["", "No line changes in the window."]
    return "\n".join(lines)
