"""argparse ``type`` functions shared by the ``bodygraph-server`` commands."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def bounded_int(what: str, low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` accepting whole numbers in ``[low, high]``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{what} must be a whole number, not {text!r}"
            ) from None
        if value < low or (high is not None and value > high):
            bounds = f"at least {low}" if high is None else f"{low} to {high}"
            raise argparse.ArgumentTypeError(f"{what} must be {bounds}, not {value}")
        return value

    return parse


account_id = bounded_int("account ID", 1)
