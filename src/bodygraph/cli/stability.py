"""``bodygraph stability``: for each property and activation of a birth's chart, the
birth instants around it over which it stays the same."""

from __future__ import annotations

import argparse
from datetime import datetime, timedelta

from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, cross_text, term
from bodygraph.cli.chart import add_birth_options, chart_from_args
from bodygraph.cli.options import Subparsers, calculator_from, exit_status, json_text, note_if_plain
from bodygraph.cli.relations_options import (
    command_parser,
    finish_command,
    input_errors_exit_2,
)
from bodygraph.cli.report import body_label
from bodygraph.cli.sensitivity import parse_window
from bodygraph.model.chart import Body
from bodygraph.relations.common import to_second
from bodygraph.relations.segments import SIDE_NAMES
from bodygraph.relations.stability import Stability, Stretch, stability

EXAMPLE = "bodygraph stability --utc 1980-01-03T08:30:00Z --bound 12h"

#: Every word of the readable output (one place, for translations).
def words(lang: str = SOURCE_LANGUAGE) -> dict[str, str]:
    """The report's words in ``lang``."""
    tr = catalog(lang)
    return {
        "title": tr.pgettext("cli", "Birth {birth} UTC; how far each value holds either side "
                             "(times UTC, bound {bound}):"),
        "properties": tr.pgettext("cli", "Properties:"),
        "activations": tr.pgettext("cli", "Activations ({side}):"),
        "line": tr.pgettext("cli", "{label} {value} from {start} to {end} ({before}, {after})"),
        "bound_start": tr.pgettext("cli", "before {instant}"),
        "bound_end": tr.pgettext("cli", "after {instant}"),
        "earlier": tr.pgettext("cli", "{span} earlier"),
        "later": tr.pgettext("cli", "{span} later"),
        "beyond": tr.pgettext("cli", "more than {span}"),
        "hours": tr.pgettext("cli", "{h} h"),
        "hours_minutes": tr.pgettext("cli", "{h} h {m} min"),
        "minutes": tr.pgettext("cli", "{m} min"),
        "seconds": tr.pgettext("cli", "{s} s"),
        "type": tr.pgettext("cli", "type"), "profile": tr.pgettext("cli", "profile"),
        "authority": tr.pgettext("cli", "authority"),
        "definition": tr.pgettext("cli", "definition"),
        "incarnationCross": tr.pgettext("cli", "incarnation cross"),
        "strategy": tr.pgettext("cli", "strategy"), "variables": tr.pgettext("cli", "variables"),
        "personality": tr.pgettext("cli", "personality"), "design": tr.pgettext("cli", "design"),
    }


#: The report's words in English.
WORDS = words()
#: The catalog context of each property's values (the others are numbers and codes).
_VALUE_CONTEXTS = {"type": "type", "authority": "authority", "definition": "definition",
                   "strategy": "strategy"}


def value_text(key: str, value: str, lang: str) -> str:
    """A property's value in ``lang``."""
    if key == "incarnationCross":
        return cross_text(value, lang)
    return term(_VALUE_CONTEXTS[key], value, lang) if key in _VALUE_CONTEXTS else value


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Register ``bodygraph stability``, its help in ``lang``."""
    tr = catalog(lang)
    parser = command_parser(
        subparsers, "stability", lang,
        tr.pgettext("help", "how long each part of the chart holds as the birth time moves"),
        tr.pgettext("help", "For each property (type, profile, authority, definition, "
                    "incarnation cross, strategy, variables) and each of the 26 activations "
                    "(line level), the earliest and latest birth instant around the given one "
                    "over which it stays the same (the design side moving with the birth), "
                    "exact to a second, within a bound either side."),
        [EXAMPLE, "bodygraph stability --date 1990-05-14 --time 08:30 --tz Europe/Berlin "
         "--bound 6h --json"],
        exit_status(lang, tr.pgettext(
            "help", "the work failed: an unknown place, a kernel that cannot be read"),
            tr.pgettext(
            "help", "a usage mistake or bad input: an unknown option, a malformed argument (a "
            "date or time that does not exist, an unknown --tz, a --bound that is not a span "
            "of up to 48h), an instant outside the ephemeris (1800-04-04..2199-12-31)")),
    )
    add_birth_options(parser, lang)
    parser.add_argument("--bound", default="12h", metavar="SPAN",
                        help=tr.pgettext("help", "how far either side of the birth: 12h "
                                         "(default), 90m, ... (at most 48h)"))
    finish_command(parser, lang, tr.pgettext("help", "print the properties and activations as "
                                             "JSON"), run)


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Compute and print the stability of the birth's chart."""
    note_if_plain("stability", args.lang)
    bound = parse_window(args.bound, "--bound")
    birth = chart_from_args(args).birth_utc
    result = stability(birth, bound, args.node, calculator=calculator_from(args))
    print(json_text(args, result.to_dict(), result.labels) if args.json
          else render(result, args.lang))
    return 0


def span_text(span: timedelta, said: dict[str, str] = WORDS) -> str:
    """A span for a reader: ``2 h 18 min``, ``12 h``, ``45 min``, ``30 s``."""
    seconds = max(0, round(span.total_seconds()))
    hours, minutes = seconds // 3600, seconds % 3600 // 60
    if hours and minutes:
        return said["hours_minutes"].format(h=hours, m=minutes)
    if hours:
        return said["hours"].format(h=hours)
    if minutes:
        return said["minutes"].format(m=minutes)
    return said["seconds"].format(s=seconds)


def _clock(instant: datetime, birth: datetime) -> str:
    """``HH:MM:SS`` on the birth's (UTC) day, else with its date."""
    moment = to_second(instant)
    return f"{moment:%H:%M:%S}" if moment.date() == birth.date() else f"{moment:%Y-%m-%d %H:%M:%S}"


def stretch_text(label: str, stretch: Stretch, birth: datetime, bound: timedelta,
                 said: dict[str, str] = WORDS, value: str | None = None) -> str:
    """``profile 3/5 from 06:12:44 to 09:58:01 (2 h 18 min earlier, 1 h 24 min later)``."""
    if stretch.earliest is None:
        start = said["bound_start"].format(instant=_clock(birth - bound, birth))
        before = said["earlier"].format(span=said["beyond"].format(span=span_text(bound, said)))
    else:
        start = _clock(stretch.earliest, birth)
        before = said["earlier"].format(span=span_text(birth - stretch.earliest, said))
    if stretch.until is None:
        end = said["bound_end"].format(instant=_clock(birth + bound, birth))
        after = said["later"].format(span=said["beyond"].format(span=span_text(bound, said)))
    else:
        end = _clock(stretch.until, birth)
        after = said["later"].format(span=span_text(stretch.until - birth, said))
    shown = stretch.value if value is None else value
    return said["line"].format(label=label, value=shown, start=start, end=end,
                               before=before, after=after)


def render(result: Stability, lang: str = SOURCE_LANGUAGE) -> str:
    """The readable report: the properties, then the activations of each side, every word
    in ``lang``."""
    said = words(lang)
    birth, bound = result.birth, result.bound
    lines = [said["title"].format(birth=f"{to_second(birth):%Y-%m-%d %H:%M:%S}",
                                  bound=span_text(bound, said)), "", said["properties"]]
    lines += ["  " + stretch_text(said[key], s, birth, bound, said,
                                  value_text(key, s.value, lang))
              for key, s in result.properties().items()]
    for side in SIDE_NAMES:
        lines += ["", said["activations"].format(side=said[side])]
        lines += [f"  {stretch_text(body_name(body, lang), s, birth, bound, said)}"
                  for body, s in result.activations[side].items()]
    return "\n".join(lines)


def body_name(body: Body, lang: str) -> str:
    """A body as the report names it (``North Node``)."""
    return body_label(body, lang)
