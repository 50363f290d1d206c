"""argparse ``type`` functions shared by the ``bodygraph-server`` commands; their refusals
are English patterns of the catalogs (context ``admin``), said in the asked language by
:mod:`bodygraph_server.cli.said`."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from bodygraph.catalog.translations import pgettext

# What an argument type refuses, as it writes it (``{what}``: a name of the list below).
NOT_WHOLE = pgettext("admin", "{what} must be a whole number, not {text}")
BELOW_LOW = pgettext("admin", "{what} must be at least {low}, not {value}")
OUT_OF_RANGE = pgettext("admin", "{what} must be {low} to {high}, not {value}")
NOT_POSITIVE = pgettext("admin", "{text} is not a whole number of at least 1")
NOT_TEMPLATE_ID = pgettext("admin", "{text} is not a template id (UUID)")
#: Every refusal above (:mod:`bodygraph_server.cli.said` reads them back).
REFUSALS: tuple[str, ...] = (NOT_WHOLE, BELOW_LOW, OUT_OF_RANGE, NOT_POSITIVE, NOT_TEMPLATE_ID)
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
                NOT_WHOLE.format(what=what, text=repr(text))) from None
        if value < low or (high is not None and value > high):
            refusal = BELOW_LOW if high is None else OUT_OF_RANGE
            raise argparse.ArgumentTypeError(refusal.format(what=what, low=low, high=high,
                                                            value=value))
        return value

    return parse


account_id = bounded_int(ACCOUNT_ID, 1)
