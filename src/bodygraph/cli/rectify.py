"""``bodygraph rectify``: every window of birth times in a local day (or up to seven days)
at a place whose chart has all that the person knows of it."""

from __future__ import annotations

import argparse
from datetime import datetime, tzinfo

from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, cross_text, pgettext, term
from bodygraph.cli.chart import add_place_options
from bodygraph.cli.options import (
    CliError,
    Subparsers,
    calculator_from,
    exit_status,
    geocoder_from,
    json_text,
    note_if_plain,
    usage_error,
)
from bodygraph.cli.relations_options import (
    command_parser,
    finish_command,
    input_errors_exit_2,
)
from bodygraph.errors import InvalidInstantError
from bodygraph.geo.birthtime import parse_date, parse_time
from bodygraph.geo.coordinates import InvalidCoordinatesError, check_coordinates
from bodygraph.geo.timezones import TimezoneLookupError, zone, zone_at
from bodygraph.relations.common import to_second
from bodygraph.relations.constraints import Constraints, constraints
from bodygraph.relations.rectification import Rectification, Window, rectify

EXAMPLE = ('bodygraph rectify --date 1980-01-03 --place "London, United Kingdom" --profile 3/5 '
           "--type Generator --authority Emotional")

def words(lang: str = SOURCE_LANGUAGE) -> dict[str, str]:
    """Every word of the readable output in ``lang``."""
    tr = catalog(lang)
    return {
        "title": tr.pgettext("cli", "Searched {start} to {end} ({zone}); birth times whose "
                             "chart fits:"),
        "none": tr.pgettext("cli", "No birth time in the search fits all the constraints."),
        "window": tr.pgettext("cli", "{start} to {end}  (UTC {utc_start} to {utc_end})"),
        "chart": tr.pgettext("cli", "{profile} {type}, {authority} authority, {definition}, "
                             "{cross}"),
        "first": tr.pgettext("cli", " (first pass)"),
        "second": tr.pgettext("cli", " (second pass)"),
    }


#: Every word of the readable output, in English.
WORDS = words()

#: The constraint options: (option, argument name, metavar, help, the example values in
#: the help (the values the option takes, never translated), repeatable).
CONSTRAINT_OPTIONS: tuple[tuple[str, str, str, str, dict[str, str], bool], ...] = (
    ("--type", "type", "TYPE", pgettext("help", "chart type, e.g. {example}"),
     {"example": "Generator"}, False),
    ("--profile", "profile", "P/D", pgettext("help", "profile, e.g. {example}"),
     {"example": "3/5"}, False),
    ("--authority", "authority", "NAME", pgettext("help", "inner authority, e.g. {example}"),
     {"example": "Emotional"}, False),
    ("--definition", "definition", "NAME", pgettext("help", "definition, e.g. {example}"),
     {"example": "Split (Definition)"}, False),
    ("--cross", "cross", "NAME",
     pgettext("help", "incarnation cross: its name ({name}) or its four gates ({gates})"),
     {"name": '"Right Angle Cross of the Sphinx"', "gates": "13/7/1/2"}, False),
    ("--strategy", "strategy", "NAME", pgettext("help", "strategy, e.g. {example}"),
     {"example": '"To Respond"'}, False),
    ("--center", "centers", "NAME", pgettext("help", "a defined center, e.g. {example} "
                                             "(repeatable)"), {"example": "Sacral"}, True),
    ("--open-center", "open_centers", "NAME",
     pgettext("help", "an open (undefined) center (repeatable)"), {}, True),
    ("--channel", "channels", "G-G", pgettext("help", "a defined channel, e.g. {example} "
                                              "(repeatable)"), {"example": "13-33"}, True),
    ("--gate", "gates", "GATE", pgettext("help", "an activated gate, {first}-{last} "
                                         "(repeatable)"), {"first": "1", "last": "64"}, True),
    ("--activation", "activations", "SIDE.BODY=G[.L]",
     pgettext("help", "an activation, e.g. {example} or {other} (repeatable)"),
     {"example": "personality.sun=38.3", "other": "design.moon=2"}, True),
)


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Register ``bodygraph rectify``, its help in ``lang``."""
    tr = catalog(lang)
    parser = command_parser(
        subparsers, "rectify", lang,
        tr.pgettext("help", "find the birth times that give a chart you know"),
        tr.pgettext("help", "Every window of birth instants in a local day (or a range of up "
                    "to 7 days) at a place whose chart satisfies all the constraints given, "
                    "exact to a second, with UTC and local times; a wall time that occurs "
                    "twice (clocks turned back) is marked with its pass. No window is an "
                    "answer, not an error."),
        [EXAMPLE, "bodygraph rectify --date 1980-01-03 --tz Europe/London --from-time 06:00 "
         "--to-time 12:00 --activation personality.sun=38.3 --center Sacral --json"],
        exit_status(lang, tr.pgettext(
            "help", "the work failed: an unknown place, a kernel that cannot be read"),
            tr.pgettext(
            "help", "a usage mistake or bad input: an unknown option, a malformed argument (a "
            "date or time that does not exist, an unknown --tz, no constraint, a constraint "
            "that names no valid value, a range over 7 days), an instant outside the "
            "ephemeris (1800-04-04..2199-12-31)")),
    )
    when = parser.add_argument_group(tr.pgettext("help", "local search range"))
    when.add_argument("--date", metavar="YYYY-MM-DD", required=True,
                      help=tr.pgettext("help", "local date"))
    when.add_argument("--to-date", metavar="YYYY-MM-DD",
                      help=tr.pgettext("help", "last local date of a range (at most 7 days in "
                                       "all)"))
    when.add_argument("--from-time", metavar="HH:MM",
                      help=tr.pgettext("help", "local time to start at (default 00:00)"))
    when.add_argument("--to-time", metavar="HH:MM",
                      help=tr.pgettext("help", "local time to end at on the last date "
                                       "(default: its end)"))
    add_place_options(parser.add_argument_group(tr.pgettext("help", "place")), lang,
                      "Europe/London", "London, United Kingdom")
    given = parser.add_argument_group(tr.pgettext("help", "what is known of the chart (all "
                                                  "must hold)"))
    for option, dest, metavar, text, values, repeatable in CONSTRAINT_OPTIONS:
        given.add_argument(option, dest=dest, metavar=metavar,
                           help=tr.pgettext("help", text).format(**values),
                           action="append" if repeatable else "store",
                           default=[] if repeatable else None)
    finish_command(parser, lang, tr.pgettext("help", "print the search range and windows as "
                                             "JSON"), run)


def _zone(args: argparse.Namespace) -> tzinfo:
    """The zone of ``--tz``, ``--place`` or ``--lat``/``--lng`` (exactly one)."""
    if (args.lat is None) != (args.lng is None):
        raise usage_error("error", "give --lat and --lng together")
    if sum(value is not None for value in (args.tz, args.place, args.lat)) != 1:
        raise usage_error("error", "give exactly one of --tz ZONE, --place TEXT or --lat/--lng")
    try:
        if args.tz is not None:
            return zone(args.tz)
        if args.place is not None:
            found = geocoder_from(args).geocode(args.place)
            return zone(zone_at(found.lat, found.lng))
        return zone(zone_at(*check_coordinates(args.lat, args.lng)))
    except (TimezoneLookupError, InvalidCoordinatesError) as exc:
        raise CliError(str(exc)) from None


def _constraints(args: argparse.Namespace) -> Constraints:
    given = constraints(**{dest: getattr(args, dest) for _, dest, *_ in CONSTRAINT_OPTIONS})
    if not given:
        raise usage_error("error", "give at least one constraint: --type, --profile, "
                          "--authority, --definition, --cross, --strategy, --center, "
                          "--open-center, --channel, --gate or --activation")
    return given


@input_errors_exit_2
def run(args: argparse.Namespace) -> int:
    """Search and print the windows."""
    given = _constraints(args)
    try:
        first_day = parse_date(args.date)
        last_day = None if args.to_date is None else parse_date(args.to_date)
        from_time = None if args.from_time is None else parse_time(args.from_time)
        to_time = None if args.to_time is None else parse_time(args.to_time)
    except InvalidInstantError as exc:
        raise CliError(str(exc)) from None
    where = _zone(args)
    note_if_plain("rectify", args.lang)
    result = rectify(first_day, given, zone=where, last_day=last_day, from_time=from_time,
                     to_time=to_time, node=args.node, calculator=calculator_from(args))
    print(json_text(args, result.to_dict(), result.labels) if args.json
          else render(result, args.lang))
    return 0


def _local(instant: datetime, where: tzinfo, mark: str | None,
           said: dict[str, str] = WORDS) -> str:
    moment = to_second(instant).astimezone(where)
    return f"{moment:%Y-%m-%d %H:%M:%S %Z}" + (said[mark] if mark else "")


def _utc(instant: datetime, where: tzinfo) -> str:
    """``HH:MM:SS`` in UTC, with its date where that is not the local one beside it."""
    moment = to_second(instant)
    same_day = moment.date() == moment.astimezone(where).date()
    return f"{moment:%H:%M:%S}" if same_day else f"{moment:%Y-%m-%d %H:%M:%S}"


def window_lines(window: Window, lang: str = SOURCE_LANGUAGE) -> list[str]:
    """A window's local and UTC bounds, then its chart, in ``lang``."""
    said = words(lang)
    return [
        said["window"].format(
            start=_local(window.start, window.zone, window.start_pass, said),
            end=_local(window.end, window.zone, window.end_pass, said),
            utc_start=_utc(window.start, window.zone),
            utc_end=_utc(window.end, window.zone)),
        "    " + said["chart"].format(
            profile=window.profile, type=term("type", window.type.value, lang),
            authority=term("authority", window.authority.value, lang),
            definition=term("definition", window.definition.value, lang),
            cross=cross_text(window.incarnation_cross, lang)),
    ]


def render(result: Rectification, lang: str = SOURCE_LANGUAGE) -> str:
    """The readable report: the search, then each window, every word in ``lang``."""
    said = words(lang)
    lines = [said["title"].format(start=_local(result.start, result.zone, None),
                                  end=_local(result.end, result.zone, None),
                                  zone=result.zone), ""]
    if not result.windows:
        lines.append(said["none"])
    for window in result.windows:
        lines += [f"  {line}" for line in window_lines(window, lang)]
    return "\n".join(lines)
