"""``bodygraph chart``: one chart from a UTC instant or a local time at a place, printed as
text or JSON, optionally drawn as SVG or PNG."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from bodygraph.calculator import Calculator
from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog
from bodygraph.cli.images import add_image_options, write_images
from bodygraph.cli.options import (
    Options,
    Subparsers,
    add_calculation_options,
    add_geocoder_options,
    calculator_from,
    examples_text,
    exit_status,
    geocoder_from,
    usage_error,
)
from bodygraph.cli.report import render_text, utc_seconds_text
from bodygraph.cli.said import said
from bodygraph.errors import InvalidInstantError
from bodygraph.geo.birthtime import parse_date, parse_instant, parse_time
from bodygraph.geo.coordinates import InvalidCoordinatesError, check_coordinates
from bodygraph.geo.timezones import LocalTime, TimezoneLookupError, local_to_utc, to_utc, zone
from bodygraph.model.chart import Chart

if TYPE_CHECKING:
    from bodygraph.geo.places import Place

EXAMPLE = "bodygraph chart --utc 1980-01-03T08:30:00Z"
#: The keys of the legacy v1 object where they differ from the v2 result's (``--v1``).
V1_KEYS = {"incarnationCross": "incarnation_cross", "notSelfTheme": "not_self_theme",
           "channelsLong": "channels_long"}


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Add ``bodygraph chart ...`` to the ``bodygraph`` command line, its help in ``lang``."""
    tr = catalog(lang)
    chart = subparsers.add_parser(
        "chart", lang=lang,
        help=tr.pgettext("help", "calculate and print one chart"),
        description=tr.pgettext("help", "Calculate one bodygraph from a birth instant and "
                                "print it."),
        epilog=examples_text(lang, [
            EXAMPLE, "bodygraph chart --date 1990-05-14 --time 08:30 --tz Europe/Berlin --json",
            'bodygraph chart --date 1990-05-14 --time 08:30 --place "Berlin, Germany"'])
        + f"\n\n{exit_status(lang)}",
    )
    add_birth_options(chart, lang)
    out = chart.add_argument_group(tr.pgettext("help", "output"))
    out.add_argument("--json", action="store_true",
                     help=tr.pgettext("help", "print the v2 ChartResult JSON"))
    out.add_argument("--v1", action="store_true",
                     help=tr.pgettext("help", "with --json: the legacy v1 object"))
    add_image_options(out, lang)
    add_calculation_options(chart.add_argument_group(tr.pgettext("help", "calculation")), lang)
    chart.set_defaults(handler=run)


def add_birth_options(parser: argparse.ArgumentParser, lang: str) -> None:
    """The birth instant (``--utc``, or ``--date``/``--time``) and the birth place options,
    their help in ``lang``; :func:`chart_from_args` reads them (``bodygraph transit`` takes
    them too)."""
    tr = catalog(lang)
    when = parser.add_argument_group(tr.pgettext("help", "birth instant"))
    when.add_argument("--utc", metavar="ISO",
                      help=tr.pgettext("help", "birth instant with offset, e.g. "
                                       "1980-01-03T08:30:00Z"))
    when.add_argument("--date", metavar="YYYY-MM-DD",
                      help=tr.pgettext("help", "local birth date"))
    when.add_argument("--time", metavar="HH:MM",
                      help=tr.pgettext("help", "local birth time (24-hour)"))
    add_place_options(parser.add_argument_group(
        tr.pgettext("help", "birth place (with --date/--time)")), lang)


def add_place_options(where: Options, lang: str, zone: str = "Europe/Berlin",
                      place: str = "Berlin, Germany") -> None:
    """``--tz``, ``--place``, ``--lat``/``--lng`` and the geocoder options in ``where``,
    their help in ``lang``, with ``zone`` and ``place`` as the examples in it."""
    tr = catalog(lang)
    where.add_argument("--tz", metavar="ZONE",
                       help=tr.pgettext("help", "IANA time zone, e.g. {zone}").format(zone=zone))
    where.add_argument("--place", metavar="TEXT",
                       help=tr.pgettext("help", 'place name, e.g. "{place}"').format(
                           place=place))
    where.add_argument("--lat", type=float,
                       help=tr.pgettext("help", "latitude in degrees, north positive"))
    where.add_argument("--lng", type=float,
                       help=tr.pgettext("help", "longitude in degrees, east positive"))
    add_geocoder_options(where, lang, looked_up="--place")


def run(args: argparse.Namespace) -> int:
    """The handler of ``bodygraph chart``: print the chart (and write the images)."""
    if args.v1 and not args.json:
        raise usage_error("error", "--v1 goes with --json")
    chart = chart_from_args(args)
    write_images(args, chart)
    if args.json:
        data = chart.to_v1() if args.v1 else chart.to_v2()
        if args.lang_asked:
            labels = chart.labels(args.lang)
            data["labels"] = ({V1_KEYS.get(k, k): v for k, v in labels.items()} if args.v1
                              else labels)
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(render_text(chart, args.lang))
    return 0


def parse_utc(text: str, option: str = "--utc") -> datetime:
    """``--utc`` (or ``option``): an ISO 8601 instant with an explicit offset (``Z`` or
    ``+hh:mm``)."""
    try:
        moment = parse_instant(text)
    except ValueError:
        raise usage_error(
            "error", "{option} {text!r} is not an ISO 8601 date-time; write it like "
            "1980-01-03T08:30:00Z", option=option, text=text) from None
    if moment.tzinfo is None:
        raise usage_error(
            "error", "{option} {text!r} has no offset; add Z for UTC (1980-01-03T08:30:00Z) or "
            "use --date/--time with --tz, --place or --lat/--lng for a local time",
            option=option, text=text)
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # 0001-01-01 east of Greenwich, 9999-12-31 west of it
        raise usage_error("error", "{option} {text!r} is not an instant of the calendar "
                          "(years 1 to 9999 in UTC)", option=option, text=text) from None


def chart_from_args(args: argparse.Namespace) -> Chart:
    """The chart of the birth options (:func:`add_birth_options`); local times are
    resolved and noted on stderr."""
    calculator = calculator_from(args)
    if args.utc:
        if args.date or args.time:
            raise usage_error("error", "give either --utc or --date/--time, not both")
        return calculator.calculate(parse_utc(args.utc), node=args.node)
    if not (args.date and args.time):
        raise usage_error("error", "give the birth instant: --utc ISO, or --date and --time "
                          "(try: {example})", example=EXAMPLE)
    chart, notes = _local_chart(args, calculator)
    for note in notes:
        print(note, file=sys.stderr)
    return chart


def _local_chart(args: argparse.Namespace, calculator: Calculator) -> tuple[Chart, list[str]]:
    """A chart from --date/--time and exactly one of --tz, --place, --lat/--lng."""
    given = [name for name in ("tz", "place", "lat") if getattr(args, name) is not None]
    if (args.lat is None) != (args.lng is None):
        raise usage_error("error", "give --lat and --lng together")
    if len(given) != 1:
        raise usage_error("error", "with --date/--time give exactly one of --tz ZONE, "
                          "--place TEXT or --lat/--lng")
    when = _wall_time(args.date, args.time)
    tr_lang = getattr(args, "lang", SOURCE_LANGUAGE)
    tr = catalog(tr_lang)
    resolved: LocalTime
    ambiguity: str | None = None  # several places of the --place name
    if args.tz is not None:
        try:
            zone(args.tz)
        except TimezoneLookupError as exc:
            raise usage_error("error", "--tz: {reason}; write it like Europe/Berlin",
                              reason=exc) from None
        resolved = to_utc(when, args.tz)
        where = tr.pgettext("cli", "zone {zone}").format(zone=resolved.zone)
    else:
        if args.place is not None:
            found = _geocoded(args)
            lat, lng = found.lat, found.lng
            where = tr.pgettext("cli", "place {place}").format(place=found.describe(tr_lang))
            ambiguity = found.ambiguity()
        else:
            try:
                lat, lng = check_coordinates(args.lat, args.lng)
            except InvalidCoordinatesError as exc:
                raise usage_error("error", "--lat/--lng: {reason}", reason=exc) from None
            where = tr.pgettext("cli", "coordinates {lat}, {lng}").format(
                lat=f"{lat:.4f}", lng=f"{lng:.4f}")
        resolved = local_to_utc(when, lat=lat, lng=lng)
        zone_text = (tr.pgettext("cli", "zone {zone} (nautical, at sea)") if resolved.nautical
                     else tr.pgettext("cli", "zone {zone}")).format(zone=resolved.zone)
        where += f", {zone_text}"
    notes = ["bodygraph: " + tr.pgettext("cli", "{when} at {where}, {offset} -> {utc}").format(
        when=f"{when:%Y-%m-%d %H:%M}", where=where, offset=_offset_text(resolved.utc_offset),
        utc=utc_seconds_text(resolved.utc))]
    if ambiguity is not None:
        notes.append("bodygraph: " + tr.pgettext("cli", "note: {note}").format(
            note=f"{said(ambiguity, tr_lang)} (--place)"))
    wall = {"fold": tr.pgettext("cli", "{time} occurs twice there (clocks turned back): the "
                                "first occurrence was used"),
            "gap": tr.pgettext("cli", "{time} does not exist there (clocks jumped forward): the "
                               "offset before the jump was used")}
    if resolved.wall_time.value in wall:
        notes.append("bodygraph: " + tr.pgettext("cli", "note: {note}").format(
            note=wall[resolved.wall_time.value].format(time=f"{when:%H:%M}")))
    return calculator.calculate(resolved.utc, node=args.node), notes


def _wall_time(date_text: str, time_text: str) -> datetime:
    """--date and --time as a naive wall time; a malformed one is a usage mistake."""
    try:
        day = parse_date(date_text)
    except InvalidInstantError:
        raise usage_error("error", "--date {text!r} is not a day of the calendar; write it "
                          "like 1990-05-14", text=date_text) from None
    try:
        moment = parse_time(time_text)
    except InvalidInstantError:
        raise usage_error("error", "--time {text!r} is not a time of day; write it like "
                          "08:30 (24-hour, 00:00 to 23:59)", text=time_text) from None
    return datetime.combine(day, moment)


def _geocoded(args: argparse.Namespace) -> Place:
    """The place --place names; a text that cannot be a place is a usage mistake (one that
    names no place is not: the lookup failed)."""
    from bodygraph.geo.places import InvalidLocationError  # the gazetteer: only when used

    try:
        return geocoder_from(args).geocode(args.place)
    except InvalidLocationError as exc:
        raise usage_error("error", "--place: {reason}", reason=exc) from None


def _offset_text(offset: timedelta) -> str:
    sign = "-" if offset < timedelta(0) else "+"
    seconds = int(abs(offset).total_seconds())
    text = f"UTC{sign}{seconds // 3600:02d}:{seconds % 3600 // 60:02d}"
    return text + (f":{seconds % 60:02d}" if seconds % 60 else "")
