"""The command line's messages in the asked language: the library's
(:func:`bodygraph.catalog.said.said`), argparse's (:mod:`bodygraph.catalog.arguments`) and
the lines of ``bodygraph batch``."""

from __future__ import annotations

from bodygraph.catalog.arguments import ARGPARSE_MESSAGES
from bodygraph.catalog.batch_lines import MORE_BAD_ROWS, PROGRESS, ROWS
from bodygraph.catalog.said import os_reason
from bodygraph.catalog.said import said as library_said
from bodygraph.catalog.translations import Counted, pgettext

__all__ = ["ARGPARSE_MESSAGES", "BATCH_LINES", "PHRASES", "os_reason", "said"]

#: The lines of ``bodygraph batch`` on stderr: a bad row (its reason said too), the count
#: of the bad rows not shown, the progress bar.
BATCH_LINES: tuple[str | Counted, ...] = (
    pgettext("error", "row {row}: {reason} ({code})"),
    MORE_BAD_ROWS,
    PROGRESS,
    ROWS,
)

PHRASES = (*(("error", m) for m in (*ARGPARSE_MESSAGES, *BATCH_LINES[:2])),
            *(("cli", m) for m in BATCH_LINES[2:]))


def said(message: str, lang: str) -> str:
    """``message`` (as the library or argparse wrote it, or a line of ``batch``) in
    ``lang`` when the catalogs know it; otherwise unchanged."""
    return library_said(message, lang, PHRASES)
