"""The command line's messages in the asked language: the library's
(:func:`bodygraph.catalog.said.said`), argparse's (:mod:`bodygraph.catalog.arguments`) and
the lines of ``bodygraph batch``."""

from __future__ import annotations

from bodygraph.catalog.arguments import ARGPARSE_PHRASES
from bodygraph.catalog.batch_lines import MORE_BAD_ROWS, PROGRESS, ROWS
from bodygraph.catalog.said import Phrases, os_reason
from bodygraph.catalog.said import said as library_said
from bodygraph.catalog.translations import pgettext

__all__ = ["PHRASES", "os_reason", "said"]

PHRASES: Phrases = (
    *ARGPARSE_PHRASES,
    # the lines of ``bodygraph batch`` on stderr: a bad row (its reason said too), the
    # count of the bad rows not shown, the progress bar
    ("error", pgettext("error", "row {row}: {reason} ({code})")),
    ("error", MORE_BAD_ROWS),
    ("cli", PROGRESS),
    ("cli", ROWS),
)


def said(message: str, lang: str) -> str:
    """``message`` (as the library or argparse wrote it, or a line of ``batch``) in
    ``lang`` when the catalogs know it; otherwise unchanged."""
    return library_said(message, lang, PHRASES)
