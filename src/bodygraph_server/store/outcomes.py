"""Commits whose acknowledgement is lost: a transaction that settles charges
(:func:`settling`) reports an outage during its ``COMMIT`` as
:class:`~bodygraph_server.store.errors.CommitUncertainError` (see docs/accounts.md)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bodygraph_server.store.connections import Database, Tx
from bodygraph_server.store.errors import CommitUncertainError, DatabaseUnavailableError


@contextmanager
def settling(database: Database) -> Iterator[Tx]:
    """A write transaction that raises :class:`CommitUncertainError` when an outage
    interrupts it after its block ran (during ``COMMIT``); an outage before that stays a
    :class:`DatabaseUnavailableError` (nothing was committed)."""
    ran = False
    try:
        with database.write_transaction() as tx:
            yield tx
            ran = True
    except DatabaseUnavailableError as exc:
        if not ran or isinstance(exc, CommitUncertainError):
            raise
        raise CommitUncertainError(f"{exc} (while committing)") from exc
