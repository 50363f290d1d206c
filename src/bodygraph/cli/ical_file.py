"""``--ics FILE`` of ``bodygraph calendar`` and ``cycles``: the answer also written as an
iCalendar file (``-``: to standard output, instead of the text or JSON)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog
from bodygraph.cli.options import usage_error
from bodygraph.cli.report import body_label
from bodygraph.model.chart import Body
from bodygraph.relations.ical import ENGLISH, EventWords, icalendar_module


def add_ics_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--ics FILE``; ``what`` names the events."""
    parser.add_argument("--ics", metavar="FILE",
                        help=f"also write the {what} as an iCalendar (RFC 5545) file, one event "
                        "each, for a calendar app (- : to standard output instead of the text; "
                        "needs the ics extra)")


def event_words(lang: str) -> EventWords:
    """The words of the iCalendar events (SUMMARY, DESCRIPTION, calendar name) in ``lang``."""
    if lang == SOURCE_LANGUAGE:
        return ENGLISH
    tr = catalog(lang)
    return EventWords(
        body_names={body: body_label(body, lang) for body in Body},
        gate_ingress=tr.pgettext("cli", "{body} enters gate {gate}"),
        line_ingress=tr.pgettext("cli", "{body} enters line {gate}.{line}"),
        gate_description=tr.pgettext("cli", "{summary} (by line {line}) at {at} UTC."),
        instant_description=tr.pgettext("cli", "{summary} at {at} UTC."),
        calendar_name=tr.pgettext("cli", "Ingresses {first} to {last}"),
        solar_return=tr.pgettext("cli", "Solar return {year}"),
        saturn_return=tr.pgettext("cli", "Saturn return (pass {number} of {count})"),
        uranus_opposition=tr.pgettext("cli", "Uranus opposition (pass {number} of {count})"),
        cycles_name=tr.pgettext("cli", "Solar return {year}, Saturn return and Uranus opposition"),
    )


def ics_to_stdout(args: argparse.Namespace) -> bool:
    """Whether ``--ics -`` asks for the iCalendar on standard output (refused with
    ``--json``, which prints there too); with ``--ics``, first checks that the
    ``icalendar`` library is there (:class:`~bodygraph.relations.ical.IcalUnavailableError`
    before any work)."""
    if args.ics is None:
        return False
    icalendar_module()
    if args.ics != "-":
        return False
    if args.json:
        raise usage_error("error", "--ics - and --json both print to standard output: give --ics "
                          "a file")
    return True


def write_ics(target: str, document: bytes) -> None:
    """Write the iCalendar ``document`` to the file ``target`` (``-``: standard output)."""
    if target == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(document)
        sys.stdout.buffer.flush()
        return
    Path(target).write_bytes(document)
