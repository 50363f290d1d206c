"""``bodygraph sensitivity``: every birth instant within a window at which one of the 26
activations changes line, and the segments between them."""

from __future__ import annotations

import argparse
import re
from datetime import datetime, timedelta
from enum import Enum

from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, cross_text, listed, term
from bodygraph.cli.chart import add_birth_options, chart_from_args
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
from bodygraph.cli.report import body_label
from bodygraph.model.chart import Body
from bodygraph.relations.labels import side_name
from bodygraph.relations.segments import LineChange, Segment, Sensitivity
from bodygraph.relations.sensitivity import sensitivity

EXAMPLE = "bodygraph sensitivity --utc 1980-01-03T08:30:00Z --window 2h"
_SPAN = re.compile(r"^(?:(\d+(?:\.\d*)?)h)?(?:(\d+(?:\.\d*)?)m(?:in)?)?(?:(\d+(?:\.\d*)?)s)?$")


def parse_window(text: str, option: str = "--window") -> timedelta:
    """``2h``, ``90m``, ``1h30m``, ``45s``: a span of time (given to ``option``)."""
    found = _SPAN.match(text.strip().lower())
    if not text.strip() or found is None:
        raise usage_error("error", "{option} {text!r} is not a span of time; write it like 2h, "
                          "90m or 1h30m", option=option, text=text)
    hours, minutes, seconds = (float(part) if part else 0.0 for part in found.groups())
    return timedelta(hours=hours, minutes=minutes, seconds=seconds)


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Register ``bodygraph sensitivity``, its help in ``lang``."""
    tr = catalog(lang)
    parser = command_parser(
        subparsers, "sensitivity", lang,
        tr.pgettext("help", "how the chart changes as the birth time moves"),
        tr.pgettext("help", "Every instant within a window around a birth at which one of the "
                    "26 activations changes line (the design side moving with the birth), "
                    "exact to a second, and the segments between them with their type, "
                    "profile, authority, definition and incarnation cross."),
        [EXAMPLE, "bodygraph sensitivity --date 1990-05-14 --time 08:30 --tz Europe/Berlin "
         "--window 90m --json"],
        exit_status(lang, tr.pgettext(
            "help", "the work failed: an unknown place, a kernel that cannot be read"),
            tr.pgettext(
            "help", "a usage mistake or bad input: an unknown option, a malformed argument (a "
            "date or time that does not exist, an unknown --tz, a --window that is not a span "
            "of up to 48h), an instant outside the ephemeris (1800-04-04..2199-12-31)")),
    )
    add_birth_options(parser, lang)
    parser.add_argument("--window", default="2h", metavar="SPAN",
                        help=tr.pgettext("help", "how far either side of the birth: 2h "
                                         "(default), 90m, ... (at most 48h)"))
    finish_command(parser, lang, tr.pgettext("help", "print the changes and segments as JSON"),
                   run)


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the sensitivity of the birth."""
    note_if_plain("sensitivity", args.lang)
    window = parse_window(args.window)
    birth = chart_from_args(args).birth_utc
    result = sensitivity(birth, window, args.node, calculator=calculator_from(args))
    print(json_text(args, result.to_dict(), result.labels) if args.json
          else render(result, args.lang))
    return 0


def _property_labels(lang: str) -> tuple[tuple[str, str], ...]:
    """The segment properties a line names when they change, with their labels."""
    tr = catalog(lang)
    return (("type", tr.pgettext("cli", "type")), ("profile", tr.pgettext("cli", "profile")),
            ("authority", tr.pgettext("cli", "authority")),
            ("definition", tr.pgettext("cli", "definition")),
            ("incarnation_cross", tr.pgettext("cli", "cross")))


_CONTEXTS = {"type": "type", "authority": "authority", "definition": "definition"}


def _value(segment: Segment, name: str, lang: str = SOURCE_LANGUAGE) -> str:
    value = getattr(segment, name)
    text = str(value.value if isinstance(value, Enum) else value)
    if name == "incarnation_cross":
        return cross_text(text, lang)
    return term(_CONTEXTS[name], text, lang) if name in _CONTEXTS else text


def _summary(segment: Segment, lang: str) -> str:
    return (f"{segment.profile} {_value(segment, 'type', lang)}, "
            f"{_value(segment, 'authority', lang)}, {_value(segment, 'definition', lang)}, "
            f"{_value(segment, 'incarnation_cross', lang)}")


def activation_label(side: str, body: Body, lang: str = SOURCE_LANGUAGE) -> str:
    """An activation named as the chart's report names its side and body:
    ``Personality Moon``, ``Persönlichkeit Mond``."""
    return f"{side_name(side, lang)} {body_label(body, lang)}"


def _difference(before: Segment, after: Segment, changes: list[LineChange], lang: str) -> str:
    """What begins ``after``: the activations that change line at its start, then the
    properties that differ from ``before`` (or that none does)."""
    moved = listed((f"{activation_label(str(c.side), c.body, lang)} {c.before} -> {c.after}"
                    for c in changes), lang)
    differ = [f"{label} {_value(before, name, lang)} -> {_value(after, name, lang)}"
              for name, label in _property_labels(lang)
              if _value(before, name) != _value(after, name)]
    unchanged = catalog(lang).pgettext(
        "cli", "type, profile, authority, definition and cross unchanged")
    return f"{moved}; " + ("; ".join(differ) if differ else unchanged)


def render(result: Sensitivity, lang: str = SOURCE_LANGUAGE) -> str:
    """The readable report: the first segment's chart, then each later segment with the
    line changes at its start and the properties they change (instants to the second),
    every word in ``lang``."""
    tr = catalog(lang)
    when = rounded_seconds_text
    lines = [tr.pgettext("cli", "Birth {birth}, from {start} to {end}:").format(
                 birth=when(result.birth), start=when(result.start), end=when(result.end)),
             "", tr.pgettext("cli", "Segments (the first with its chart, each later one with "
                             "the line changes at its start and what they change):")]
    at: dict[datetime, list[LineChange]] = {}
    for change in result.changes:
        at.setdefault(change.at, []).append(change)
    previous: Segment | None = None
    span = tr.pgettext("cli", "{start} to {end}")
    the_birth = "  " + tr.pgettext("cli", "(the birth)")
    for segment in result.segments:
        what = (_summary(segment, lang) if previous is None
                else _difference(previous, segment, at.get(segment.start, []), lang))
        birth = the_birth if segment.start <= result.birth < segment.end else ""
        lines.append(f"  {span.format(start=when(segment.start), end=when(segment.end))}  "
                     f"{what}{birth}")
        previous = segment
    if not result.changes:
        lines += ["", tr.pgettext("cli", "No line changes in the window.")]
    return "\n".join(lines)
