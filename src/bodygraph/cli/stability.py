"""``bodygraph stability``: for each property and activation of a birth's chart, the
birth instants around it over which it stays the same."""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timedelta

from bodygraph.cli.chart import add_birth_options, chart_from_args
from bodygraph.cli.options import Subparsers, calculator_from, note_if_plain
from bodygraph.cli.relations_options import (
    command_parser,
    exit_status,
    finish_command,
    input_errors_exit_2,
)
from bodygraph.cli.sensitivity import parse_window
from bodygraph.relations.common import to_second
from bodygraph.relations.segments import SIDE_NAMES
from bodygraph.relations.stability import Stability, Stretch, stability

EXAMPLE = "bodygraph stability --utc 1980-01-03T08:30:00Z --bound 12h"

#: Every word of the readable output (one place, for translations).
WORDS = {
    "title": "Birth {birth} UTC; how far each value holds either side (times UTC, bound {bound}):",
    "properties": "Properties:",
    "activations": "Activations ({side}):",
    "line": "{label} {value} from {start} to {end} ({before}, {after})",
    "bound_start": "before {instant}",
    "bound_end": "after {instant}",
    "earlier": "{span} earlier",
    "later": "{span} later",
    "beyond": "more than {span}",
    "hours": "{h} h",
    "hours_minutes": "{h} h {m} min",
    "minutes": "{m} min",
    "seconds": "{s} s",
    "type": "type", "profile": "profile", "authority": "authority",
    "definition": "definition", "incarnationCross": "incarnation cross",
    "strategy": "strategy", "variables": "variables",
    "personality": "personality", "design": "design",
}


def add_parser(subparsers: Subparsers) -> None:
    """Register ``bodygraph stability``."""
    parser = command_parser(
        subparsers, "stability", "how long each part of the chart holds as the birth time moves",
        "For each property (type, profile, authority, definition, incarnation cross, "
        "strategy, variables) and each of the 26 activations (line level), the earliest and "
        "latest birth instant around the given one over which it stays the same (the design "
        "side moving with the birth), exact to a second, within a bound either side.",
        [EXAMPLE, "bodygraph stability --date 1990-05-14 --time 08:30 --tz Europe/Berlin "
         "--bound 6h --json"],
        exit_status(malformed="a --bound that is not a span of up to 48h"),
    )
    add_birth_options(parser)
    parser.add_argument("--bound", default="12h", metavar="SPAN",
                        help="how far either side of the birth: 12h (default), 90m, ... "
                        "(at most 48h)")
    finish_command(parser, "properties and activations", run)


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the stability of the birth's chart."""
    note_if_plain("stability")
    bound = parse_window(args.bound, "--bound")
    birth = chart_from_args(args).birth_utc
    result = stability(birth, bound, args.node, calculator=calculator_from(args))
    print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False) if args.json
          else render(result))
    return 0


def span_text(span: timedelta) -> str:
    """A span for a reader: ``2 h 18 min``, ``12 h``, ``45 min``, ``30 s``."""
    seconds = max(0, round(span.total_seconds()))
    hours, minutes = seconds // 3600, seconds % 3600 // 60
    if hours and minutes:
        return WORDS["hours_minutes"].format(h=hours, m=minutes)
    if hours:
        return WORDS["hours"].format(h=hours)
    if minutes:
        return WORDS["minutes"].format(m=minutes)
    return WORDS["seconds"].format(s=seconds)


def _clock(instant: datetime, birth: datetime) -> str:
    """``HH:MM:SS`` on the birth's (UTC) day, else with its date."""
    moment = to_second(instant)
    return f"{moment:%H:%M:%S}" if moment.date() == birth.date() else f"{moment:%Y-%m-%d %H:%M:%S}"


def stretch_text(label: str, stretch: Stretch, birth: datetime, bound: timedelta) -> str:
    """``profile 3/5 from 06:12:44 to 09:58:01 (2 h 18 min earlier, 1 h 24 min later)``."""
    if stretch.earliest is None:
        start = WORDS["bound_start"].format(instant=_clock(birth - bound, birth))
        before = WORDS["earlier"].format(span=WORDS["beyond"].format(span=span_text(bound)))
    else:
        start = _clock(stretch.earliest, birth)
        before = WORDS["earlier"].format(span=span_text(birth - stretch.earliest))
    if stretch.until is None:
        end = WORDS["bound_end"].format(instant=_clock(birth + bound, birth))
        after = WORDS["later"].format(span=WORDS["beyond"].format(span=span_text(bound)))
    else:
        end = _clock(stretch.until, birth)
        after = WORDS["later"].format(span=span_text(stretch.until - birth))
    return WORDS["line"].format(label=label, value=stretch.value, start=start, end=end,
                                before=before, after=after)


def render(result: Stability) -> str:
    """The readable report: the properties, then the activations of each side."""
    birth, bound = result.birth, result.bound
    lines = [WORDS["title"].format(birth=f"{to_second(birth):%Y-%m-%d %H:%M:%S}",
                                   bound=span_text(bound)), "", WORDS["properties"]]
    lines += [f"  {stretch_text(WORDS[key], s, birth, bound)}"
              for key, s in result.properties().items()]
    for side in SIDE_NAMES:
        lines += ["", WORDS["activations"].format(side=WORDS[side])]
        lines += [f"  {stretch_text(body.value, s, birth, bound)}"
                  for body, s in result.activations[side].items()]
    return "\n".join(lines)
