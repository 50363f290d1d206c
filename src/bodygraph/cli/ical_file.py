"""``--ics FILE`` of ``bodygraph calendar`` and ``cycles``: the answer also written as an
iCalendar file (``-``: to standard output, instead of the text or JSON)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from bodygraph.catalog.translations import catalog, pgettext
from bodygraph.cli.options import usage_error
from bodygraph.relations.ical import icalendar_module

#: The help of ``--ics``, by the events it writes.
ICS_HELPS: Final = {
    "returns": pgettext("help", "also write the returns as an iCalendar (RFC 5545) file, one "
                        "event each, for a calendar app (- : to standard output instead of "
                        "the text; needs the ics extra)"),
    "ingresses": pgettext("help", "also write the ingresses as an iCalendar (RFC 5545) file, "
                          "one event each, for a calendar app (- : to standard output instead "
                          "of the text; needs the ics extra)"),
}


def add_ics_option(parser: argparse.ArgumentParser, lang: str, what: str) -> None:
    """``--ics FILE``, its help in ``lang``; ``what`` names the events (a key of
    :data:`ICS_HELPS`)."""
    parser.add_argument("--ics", metavar="FILE",
                        help=catalog(lang).pgettext("help", ICS_HELPS[what]))


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
