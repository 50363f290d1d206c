"""The messages of ``bodygraph-server`` read back into the asked language: argparse's, its
argument types' and the store's refusals it reports (context ``admin``; the library's
messages too, :func:`bodygraph.catalog.said.said`)."""

from __future__ import annotations

from bodygraph.catalog.arguments import ARGPARSE_PHRASES
from bodygraph.catalog.said import Phrases
from bodygraph.catalog.said import said as library_said
from bodygraph.catalog.translations import pgettext
from bodygraph_server.cli.argtypes import ACCOUNT_ID, BALANCE, REFUSALS

#: The store's and the bookkeeper's refusals the commands report, as they write them.
STORE_REFUSALS: tuple[str, ...] = (
    pgettext("admin", "no account {account}"),
    pgettext("admin", "the balance cannot be negative"),
    pgettext("admin", "plan {plan} does not offer {billing} billing (offers: {offered})"),
    pgettext("admin", "account {account} has no template {template}"),
    pgettext("admin", "template name must be 1 to {most} printable characters"),
)

PHRASES: Phrases = (
    *ARGPARSE_PHRASES,
    # argparse's line of a refusal of an argument's type (the refusal is said too)
    ("error", pgettext("error", "argument {name}: {message}")),
    *(("admin", m) for m in (*REFUSALS, *STORE_REFUSALS, ACCOUNT_ID, BALANCE)),
)


def said(message: str, lang: str) -> str:
    """``message`` (as argparse, an argument type, the store or the library wrote it) in
    ``lang`` when the catalogs know it; otherwise unchanged."""
    return library_said(message, lang, PHRASES)
