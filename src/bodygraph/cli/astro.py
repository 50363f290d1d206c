"""``bodygraph astro``: the zodiac positions of one birth's 26 activations (sign, degree,
minute, second, retrograde) and, for a known place, the Ascendant, the Midheaven and the
house cusps; as text or JSON."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any, Final

from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, sign_names, term
from bodygraph.cli.chart import add_birth_options, parse_utc
from bodygraph.cli.columns import display_width, pad
from bodygraph.cli.options import (
    CliError,
    Subparsers,
    add_calculation_options,
    calculator_from,
    exit_status,
    geocoder_from,
    json_text,
    usage_error,
)
from bodygraph.cli.relations_options import command_parser
from bodygraph.cli.report import utc_seconds_text
from bodygraph.errors import InvalidOptionError
from bodygraph.geo.birthtime import wall_time
from bodygraph.geo.coordinates import InvalidCoordinatesError, check_coordinates
from bodygraph.geo.timezones import local_to_utc, to_utc
from bodygraph.model.chart import BODIES
from bodygraph.rules.houses import HOUSE_SYSTEMS

EXAMPLE: Final = ("bodygraph astro --date 1990-05-14 --time 08:30 --lat 52.52 --lng 13.405 "
                  "--json")
#: The words of the readable output.
SIDE_TITLES: Final = {"personality": "Personality", "design": "Design"}
BODY_TITLES: Final = {
    "sun": "Sun", "earth": "Earth", "northNode": "North Node", "southNode": "South Node",
    "moon": "Moon", "mercury": "Mercury", "venus": "Venus", "mars": "Mars",
    "jupiter": "Jupiter", "saturn": "Saturn", "uranus": "Uranus", "neptune": "Neptune",
    "pluto": "Pluto",
}
RETROGRADE_MARK: Final = "R"
NO_PLACE: Final = "angles and houses: give the place (--lat/--lng or --place) to have them"


def add_parser(subparsers: Subparsers, lang: str) -> None:
    """Add ``bodygraph astro ...`` to the ``bodygraph`` command line, its help in
    ``lang``."""
    tr = catalog(lang)
    no_place = tr.pgettext("help", "(no place: no angles)")
    parser = command_parser(
        subparsers, "astro", lang,
        tr.pgettext("help", "zodiac positions, angles and houses of one birth"),
        tr.pgettext("help", "The tropical zodiac position of each of the 26 activations, "
                    "whether the body is retrograde, and for a known place the Ascendant, the "
                    "Midheaven and the 12 house cusps (docs/conventions.md)."),
        [EXAMPLE, "bodygraph astro --utc 1990-05-14T06:30:00Z --lat 52.52 --lng 13.405 "
         "--houses whole-sign",
         "bodygraph astro --date 1990-05-14 --time 08:30 --tz Europe/Berlin --lat 52.52 "
         "--lng 13.405",
         f"bodygraph astro --utc 1980-01-03T08:30:00Z   {no_place}"],
        exit_status(lang),
    )
    add_birth_options(parser, lang)
    houses = parser.add_argument_group(tr.pgettext("help", "houses"))
    houses.add_argument("--houses", metavar="SYSTEM",
                        help=tr.pgettext("help", "house system: {default} (the default) or "
                                         "{other}; needs the place").format(
                                             default=HOUSE_SYSTEMS[0], other=HOUSE_SYSTEMS[1]))
    out = parser.add_argument_group(tr.pgettext("help", "output"))
    out.add_argument("--json", action="store_true",
                     help=tr.pgettext("help", "print {shape}").format(
                         shape='{"activations": ..., "angles": ..., "houses": ...}'))
    add_calculation_options(parser.add_argument_group(tr.pgettext("help", "calculation")), lang)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The handler of ``bodygraph astro``."""
    from bodygraph.relations.astro import astro  # the engine: only once the options are good

    if args.houses is not None and args.houses not in HOUSE_SYSTEMS:
        raise usage_error("error", "--houses {text!r} is not a house system: use {first} or "
                          "{second}", text=args.houses, first=HOUSE_SYSTEMS[0],
                          second=HOUSE_SYSTEMS[1])
    place = _place(args)
    if args.houses is not None and place is None:
        raise usage_error("error", "--houses needs the place: give --lat and --lng, or --place")
    birth = _birth(args, place)
    lat, lng = place if place is not None else (None, None)
    try:
        table = astro(birth, lat, lng, houses=args.houses or "placidus", node=args.node,
                      calculator=calculator_from(args))
    except InvalidOptionError as exc:
        raise CliError(str(exc)) from None
    data = table.to_dict()
    if args.json:
        print(json_text(args, data, table.labels))
    else:
        print(astro_text(data, args.lang, table.labels(args.lang)))
    return 0


def _place(args: argparse.Namespace) -> tuple[float, float] | None:
    if (args.lat is None) != (args.lng is None):
        raise usage_error("error", "give --lat and --lng together")
    if args.lat is not None and args.place is not None:
        raise usage_error("error", "give either --lat/--lng or --place, not both")
    if args.place is not None:
        found = geocoder_from(args).geocode(args.place)
        print("bodygraph: " + catalog(args.lang).pgettext("cli", "place {place}").format(
            place=found.describe(args.lang)), file=sys.stderr)
        return found.lat, found.lng
    if args.lat is None:
        return None
    try:
        lat, lng = check_coordinates(args.lat, args.lng)
    except InvalidCoordinatesError as exc:
        raise CliError(str(exc)) from None
    if abs(lat) == 90.0:
        raise usage_error("error", "latitude {lat} is a pole, where no Ascendant exists",
                          lat=lat)
    return lat, lng


def _birth(args: argparse.Namespace, place: tuple[float, float] | None) -> datetime:
    if args.utc:
        if args.date or args.time or args.tz:
            raise usage_error("error", "give either --utc or --date/--time (with --tz or the "
                              "place), not both")
        return parse_utc(args.utc)
    if not (args.date and args.time):
        raise usage_error("error", "give the birth instant: --utc ISO, or --date and --time "
                          "(try: {example})", example=EXAMPLE)
    when = wall_time(args.date, args.time)
    if args.tz is not None:
        resolved = to_utc(when, args.tz)
    elif place is not None:
        resolved = local_to_utc(when, lat=place[0], lng=place[1])
    else:
        raise usage_error("error", "with --date/--time give --tz ZONE, --place TEXT or "
                          "--lat/--lng")
    print("bodygraph: " + catalog(args.lang).pgettext("cli", "{when} in zone {zone} -> {utc}")
          .format(when=f"{when:%Y-%m-%d %H:%M}", zone=resolved.zone,
                  utc=utc_seconds_text(resolved.utc)), file=sys.stderr)
    return resolved.utc


def _position(body: dict[str, Any], signs: dict[str, str] | None = None,
              sign_width: int = 11) -> str:
    mark = RETROGRADE_MARK if body["retrograde"] else " "
    sign = body["sign"] if signs is None else signs[body["sign"]]
    return (f"{body['gateLine']:>5}  {body['degree']:>2}°{body['minute']:02d}'"
            f"{body['second']:02d}\" {pad(sign, sign_width)} {mark}")


def astro_text(data: dict[str, Any], lang: str = SOURCE_LANGUAGE,
               labels: dict[str, Any] | None = None) -> str:
    """The JSON of ``astro`` for a reader: the two columns, the angles and the cusps, every
    word in ``lang`` (the houses' system and note from ``labels``, its words in ``lang``,
    when given)."""
    from bodygraph.rules.zodiac import SIGNS

    tr = catalog(lang)
    signs = dict(zip(SIGNS, sign_names(lang), strict=True))
    # The columns widen to the language's longest names of bodies and signs (English: 11).
    bodies = {body: term("body", BODY_TITLES[body.value], lang) for body in BODIES}
    name_width = max(11, *(display_width(name) for name in bodies.values()))
    sign_width = max(11, *(display_width(name) for name in signs.values()))
    column = sign_width + 20
    rows = [pad("", name_width + 1)
            + pad(term("side", SIDE_TITLES["personality"], lang), column)
            + term("side", SIDE_TITLES["design"], lang)]
    for body, name in bodies.items():
        personality = data["activations"]["personality"][body.value]
        design = data["activations"]["design"][body.value]
        rows.append(f"{pad(name, name_width)} "
                    f"{pad(_position(personality, signs, sign_width), column)}"
                    f"{_position(design, signs, sign_width)}".rstrip())
    rows.append("")
    if data["angles"] is None:
        rows.append(tr.pgettext(
            "cli", "angles and houses: give the place (--lat/--lng or --place) to have them"))
        return "\n".join(rows)
    ascendant, midheaven = tr.pgettext("cli", "Ascendant"), tr.pgettext("cli", "Midheaven")
    houses = {**data["houses"], **((labels or {}).get("houses") or {})}
    width = max(11, display_width(ascendant), display_width(midheaven))
    rows += [f"{pad(ascendant, width)} {_longitude(data['angles']['ascendant'], signs)}",
             f"{pad(midheaven, width)} "
             f"{_longitude(data['angles']['midheaven'], signs)}", "",
             tr.pgettext("cli", "Houses ({system})").format(system=houses["system"])]
    rows += [f"  {house:>2}  {_longitude(cusp, signs)}"
             for house, cusp in enumerate(data["houses"]["cusps"], start=1)]
    if houses["note"]:
        rows += ["", tr.pgettext("cli", "note: {note}").format(note=houses["note"])]
    return "\n".join(rows)


def _longitude(value: float, signs: dict[str, str] | None = None) -> str:
    from bodygraph.rules.zodiac import SIGNS

    arcsec = int(value * 3600) % (360 * 3600)
    sign, within = divmod(arcsec, 30 * 3600)
    name = SIGNS[sign] if signs is None else signs[SIGNS[sign]]
    return f"{within // 3600:>2}°{within % 3600 // 60:02d}'{within % 60:02d}\" {name}"
