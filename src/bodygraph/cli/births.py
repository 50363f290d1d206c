"""Several births on one command line (``bodygraph connection``, ``bodygraph penta``).

Each person is given the way ``bodygraph chart`` takes one birth: ``--utc ISO``, or
``--date`` and ``--time`` with one of ``--tz``, ``--place`` or ``--lat/--lng``. The
options are read in order: ``--utc`` starts a new person; ``--date``, ``--time`` and the
place options complete the latest person, or start a new one when that person already
has the option (or is a ``--utc`` birth). So

    --utc 1980-01-03T08:30:00Z --date 1990-05-14 --time 08:30 --tz Europe/Berlin

is two people.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from bodygraph.catalog.translations import catalog, pgettext
from bodygraph.cli.chart import chart_from_args
from bodygraph.cli.options import add_geocoder_options
from bodygraph.model.chart import Chart

#: The options of one birth (as ``bodygraph chart``), with their argparse settings (the
#: help in English, said in the asked language when the parser is built).
BIRTH_OPTIONS: dict[str, dict[str, Any]] = {
    "utc": {"metavar": "ISO",
            "help": pgettext("help", "a birth instant with offset, e.g. 1980-01-03T08:30:00Z")},
    "date": {"metavar": "YYYY-MM-DD", "help": pgettext("help", "a local birth date")},
    "time": {"metavar": "HH:MM", "help": pgettext("help", "a local birth time (24-hour)")},
    "tz": {"metavar": "ZONE",
           "help": pgettext("help", "the IANA time zone of the latest --date/--time")},
    "place": {"metavar": "TEXT",
              "help": pgettext("help", "the place of the latest --date/--time")},
    "lat": {"type": float, "metavar": "LAT",
            "help": pgettext("help", "its latitude in degrees, north positive")},
    "lng": {"type": float, "metavar": "LNG",
            "help": pgettext("help", "its longitude in degrees, east positive")},
}

class _Birth(argparse.Action):
    """Collects the options into a list of people (``args.births``), in order."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        people: list[dict[str, Any]] = list(getattr(namespace, "births", None) or [])
        key = self.metavar_key
        latest = people[-1] if people else None
        if key == "utc" or latest is None or key in latest or "utc" in latest:
            latest = {}
            people.append(latest)
        latest[key] = values
        namespace.births = people

    @property
    def metavar_key(self) -> str:
        return self.option_strings[0].lstrip("-")


def add_births_arguments(parser: argparse.ArgumentParser, lang: str, title: str) -> None:
    """The birth options, repeatable: one person per ``--utc`` or ``--date/--time``, in
    the group ``title`` (in ``lang``, as their help)."""
    tr = catalog(lang)
    group = parser.add_argument_group(
        title, tr.pgettext("help", "each --utc ISO, or --date --time with --tz, --place or "
                           "--lat/--lng"))
    for name, settings in BIRTH_OPTIONS.items():
        group.add_argument(f"--{name}", action=_Birth, dest="births", default=[],
                           **{**settings, "help": tr.pgettext("help", settings["help"])})
    add_geocoder_options(group, lang, looked_up="--place")


def charts_of_births(args: argparse.Namespace) -> list[Chart]:
    """The chart of each person, in the order given (local times as ``bodygraph chart``
    resolves them, with its notes on stderr)."""
    shared = {"node": args.node, "ephemeris": args.ephemeris, "geocoder": args.geocoder,
              "geocode_key": args.geocode_key}
    return [chart_from_args(argparse.Namespace(**{**dict.fromkeys(BIRTH_OPTIONS), **shared,
                                                  **person}))
            for person in args.births]
