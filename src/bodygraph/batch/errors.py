"""The batch job's own error, and how an error of one row is written in its ``error`` cell."""

from __future__ import annotations

from bodygraph.errors import BodygraphError


class BatchError(BodygraphError):
    """The job cannot run at all (unreadable input, unknown columns, bad options), or one
    row lacks what its column set needs."""


def row_error(exc: Exception) -> str:
    """The ``error`` cell of a row that failed with ``exc``."""
    return f"{type(exc).__name__}: {exc}"
