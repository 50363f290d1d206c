"""The command line's messages in the asked language: the library's
(:func:`bodygraph.catalog.said.said`), argparse's and the lines of ``bodygraph batch``."""

from __future__ import annotations

from bodygraph.batch.progress import MORE_BAD_ROWS, PROGRESS, ROWS
from bodygraph.catalog.said import os_reason
from bodygraph.catalog.said import said as library_said
from bodygraph.catalog.translations import Counted, pgettext

__all__ = ["ARGPARSE_MESSAGES", "BATCH_LINES", "os_reason", "said"]

#: The lines of ``bodygraph batch`` on stderr: a bad row (its reason said too), the count
#: of the bad rows not shown, the progress bar.
BATCH_LINES: tuple[str | Counted, ...] = (
    pgettext("error", "row {row}: {reason} ({code})"),
    MORE_BAD_ROWS,
    PROGRESS,
    ROWS,
)

#: argparse's messages of a usage mistake (Python's own words).
ARGPARSE_MESSAGES: tuple[str, ...] = (
    pgettext("error", "unrecognized arguments: {arguments}"),
    pgettext("error", "the following arguments are required: {names}"),
    pgettext("error", "one of the arguments {names} is required"),
    pgettext("error", "argument {name}: invalid choice: {value} (choose from {choices})"),
    pgettext("error", "argument {name}: invalid {kind} value: {value}"),
    pgettext("error", "argument {name}: expected one argument"),
    pgettext("error", "argument {name}: expected at least one argument"),
    pgettext("error", "argument {name}: not allowed with argument {other}"),
    pgettext("error", "argument {name}: ignored explicit argument {value}"),
    pgettext("error", "ambiguous option: {option} could match {matches}"),
)

_PHRASES = (*(("error", m) for m in (*ARGPARSE_MESSAGES, *BATCH_LINES[:2])),
            *(("cli", m) for m in BATCH_LINES[2:]))


def said(message: str, lang: str) -> str:
    """``message`` (as the library or argparse wrote it, or a line of ``batch``) in
    ``lang`` when the catalogs know it; otherwise unchanged."""
    return library_said(message, lang, _PHRASES)
