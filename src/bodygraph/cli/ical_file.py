"""``--ics FILE`` of ``bodygraph calendar`` and ``cycles``: the answer also written as an
iCalendar file (``-``: to standard output, instead of the text or JSON)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bodygraph.cli.options import usage_error
from bodygraph.relations.ical import icalendar_module


def add_ics_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--ics FILE``; ``what`` names the events."""
    parser.add_argument("--ics", metavar="FILE",
                        help=f"also write the {what} as an iCalendar (RFC 5545) file, one event "
                        "each, for a calendar app (- : to standard output instead of the text; "
                        "needs the ics extra)")


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
