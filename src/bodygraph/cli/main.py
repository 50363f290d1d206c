"""The ``bodygraph`` command line: ``bodygraph chart ...`` (and ``bodygraph batch ...``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import datetime, timedelta

from bodygraph.calculator import Calculator, default_calculator
from bodygraph.cli.report import render_text
from bodygraph.errors import BodygraphError
from bodygraph.model.chart import Chart

EXAMPLE = "bodygraph chart --utc 1980-01-03T08:30:00Z"
GEOCODERS = ("offline", "google")  # bodygraph.geo.places.GEOCODERS, without importing places


class CliError(Exception):
    """A user mistake, reported as one line and exit status 2."""


def parse_utc(text: str) -> datetime:
    """An ISO 8601 instant with an explicit offset (``Z`` or ``+hh:mm``)."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise CliError(
            f"--utc {text!r} is not an ISO 8601 date-time; write it like 1980-01-03T08:30:00Z"
        ) from None
    if moment.tzinfo is None:
        raise CliError(
            f"--utc {text!r} has no offset; add Z for UTC (1980-01-03T08:30:00Z) or use "
            "--date/--time with --tz, --place or --lat/--lng for a local time"
        )
    return moment


def _add_chart_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chart = subparsers.add_parser(
        "chart",
        help="calculate and print one chart",
        description="Calculate one bodygraph from a birth instant and print it.",
        epilog=f"examples:\n  {EXAMPLE}\n"
        "  bodygraph chart --date 1990-05-14 --time 08:30 --tz Europe/Berlin --json\n"
        '  bodygraph chart --date 1990-05-14 --time 08:30 --place "Berlin, Germany"',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    when = chart.add_argument_group("birth instant")
    when.add_argument("--utc", metavar="ISO",
                      help="birth instant with offset, e.g. 1980-01-03T08:30:00Z")
    when.add_argument("--date", metavar="YYYY-MM-DD", help="local birth date")
    when.add_argument("--time", metavar="HH:MM", help="local birth time (24-hour)")
    where = chart.add_argument_group("birth place (with --date/--time)")
    where.add_argument("--tz", metavar="ZONE", help="IANA time zone, e.g. Europe/Berlin")
    where.add_argument("--place", metavar="TEXT", help='place name, e.g. "Berlin, Germany"')
    where.add_argument("--lat", type=float, help="latitude in degrees, north positive")
    where.add_argument("--lng", type=float, help="longitude in degrees, east positive")
    where.add_argument("--geocoder", choices=GEOCODERS, default="offline",
                       help="how --place is looked up (default: the offline gazetteer)")
    where.add_argument("--geocode-key", metavar="KEY", help="your Google geocoding key")
    out = chart.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print the v2 ChartResult JSON")
    out.add_argument("--v1", action="store_true", help="with --json: the legacy v1 object")
    out.add_argument("--svg", metavar="PATH", help="also write the bodygraph as SVG")
    out.add_argument("--png", metavar="PATH", help="also write a PNG (needs the png extra)")
    out.add_argument("--theme", metavar="NAME", default="light",
                     help="theme of --svg/--png: light (default), dark, print, high-contrast")
    calc = chart.add_argument_group("calculation")
    calc.add_argument("--node", choices=("true", "mean"), default="true",
                      help="lunar node: true (osculating, default) or mean")
    calc.add_argument("--ephemeris", metavar="BSP",
                      help="JPL kernel to use (default: $BODYGRAPH_EPHEMERIS or the shipped DE440)")
    chart.set_defaults(handler=_run_chart)


def _calculator(args: argparse.Namespace) -> Calculator:
    return Calculator(args.ephemeris) if args.ephemeris else default_calculator(None)


def _chart_from_args(args: argparse.Namespace) -> Chart:
    calculator = _calculator(args)
    if args.utc:
        if args.date or args.time:
            raise CliError("give either --utc or --date/--time, not both")
        return calculator.calculate(parse_utc(args.utc), node=args.node)
    if not (args.date and args.time):
        raise CliError(f"give the birth instant: --utc ISO, or --date and --time (try: {EXAMPLE})")
    chart, notes = _local_chart(args, calculator)
    for note in notes:
        print(note, file=sys.stderr)
    return chart


def _offset_text(offset: timedelta) -> str:
    sign = "-" if offset < timedelta(0) else "+"
    seconds = int(abs(offset).total_seconds())
    text = f"UTC{sign}{seconds // 3600:02d}:{seconds % 3600 // 60:02d}"
    return text + (f":{seconds % 60:02d}" if seconds % 60 else "")


_WALL_TIME_NOTES = {
    "fold": "occurs twice there (clocks turned back): the first occurrence was used",
    "gap": "does not exist there (clocks jumped forward): the offset before the jump was used",
}


def _local_chart(args: argparse.Namespace, calculator: Calculator) -> tuple[Chart, list[str]]:
    """A chart from --date/--time and exactly one of --tz, --place, --lat/--lng."""
    from bodygraph.geo import local, places, timezones

    given = [name for name in ("tz", "place", "lat") if getattr(args, name) is not None]
    if (args.lat is None) != (args.lng is None):
        raise CliError("give --lat and --lng together")
    if len(given) != 1:
        raise CliError("with --date/--time give exactly one of --tz ZONE, --place TEXT "
                       "or --lat/--lng")
    when = datetime.combine(local.parse_date(args.date), local.parse_time(args.time))
    notes: list[str] = []
    if args.tz is not None:
        resolved = timezones.to_utc(when, args.tz)
        where = f"zone {resolved.zone}"
    else:
        if args.place is not None:
            geocoder = places.geocoder_for(args.geocoder, args.geocode_key)
            found = geocoder.geocode(args.place)
            lat, lng = found.latitude, found.longitude
            where = f"place {found.describe()}"
        else:
            lat, lng = places.check_coordinates(args.lat, args.lng)
            where = f"coordinates {lat:.4f}, {lng:.4f}"
        resolved = timezones.local_to_utc(when, lat=lat, lng=lng)
        where += f", zone {resolved.zone}" + (" (nautical, at sea)" if resolved.nautical else "")
    notes.append(
        f"bodygraph: {when:%Y-%m-%d %H:%M} at {where}, {_offset_text(resolved.utc_offset)} "
        f"-> {resolved.utc:%Y-%m-%d %H:%M:%S} UTC"
    )
    if resolved.wall_time.value in _WALL_TIME_NOTES:
        notes.append(f"bodygraph: note: {when:%H:%M} {_WALL_TIME_NOTES[resolved.wall_time.value]}")
    return calculator.calculate(resolved.utc, node=args.node), notes


def _run_chart(args: argparse.Namespace) -> int:
    if args.v1 and not args.json:
        raise CliError("--v1 goes with --json")
    chart = _chart_from_args(args)
    if args.svg or args.png:
        from bodygraph.render import Theme, write

        theme = Theme.preset(args.theme)
        if args.svg:
            write(chart, args.svg, theme, format="svg")
        if args.png:
            write(chart, args.png, theme, format="png")
    if args.json:
        print(json.dumps(chart.to_v1() if args.v1 else chart.to_v2(), indent=2,
                         ensure_ascii=False))
    else:
        print(render_text(chart))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``bodygraph``."""
    parser = argparse.ArgumentParser(
        prog="bodygraph",
        description="Exact Human Design charts (bodygraphs) from JPL ephemerides.",
        epilog=f"example: {EXAMPLE}",
    )
    from bodygraph import __version__

    parser.add_argument("--version", action="version", version=f"bodygraph {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_chart_parser(subparsers)
    from bodygraph.batch.job import add_batch_parser

    add_batch_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bodygraph`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        status: int = args.handler(args)
    except CliError as exc:
        print(f"bodygraph: error: {exc}", file=sys.stderr)
        return 2
    except BodygraphError as exc:
        print(f"bodygraph: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bodygraph: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # files we were asked to read or write
        where = f" {exc.filename}" if exc.filename else ""
        print(f"bodygraph: error: cannot use{where}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
