"""argparse ``type`` functions shared by the ``bodygraph-server`` commands; their refusals
are English patterns of the catalogs (context ``admin``), said in the asked language by
:mod:`bodygraph_server.cli.said`."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from bodygraph.catalog.translations import pgettext

#: What an argument type refuses, as it writes it (``{what}``: a name of the list below).
REFUSALS: tuple[str, ...] = (
    pgettext("admin", "{what} must be a whole number, not {text}"),
    pgettext("admin", "{what} must be at least {low}, not {value}"),
    pgettext("admin", "{what} must be {low} to {high}, not {value}"),
    pgettext("admin", "{text} is not a whole number of at least 1"),
    pgettext("admin", "{text} is not a template id (UUID)"),
)
ACCOUNT_ID = pgettext("admin", "account ID")
BALANCE = pgettext("admin", "the balance")


def bounded_int(what: str, low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` accepting whole numbers in ``[low, high]`` (``what`` names the
    value, a text marked with ``pgettext("admin", ...)``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                REFUSALS[0].format(what=what, text=repr(text))) from None
        if value < low or (high is not None and value > high):
            refusal = REFUSALS[1] if high is None else REFUSALS[2]
            raise argparse.ArgumentTypeError(refusal.format(what=what, low=low, high=high,
                                                            value=value))
        return value

    return parse


account_id = bounded_int(ACCOUNT_ID, 1)
