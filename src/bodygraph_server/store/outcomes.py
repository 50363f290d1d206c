"""Commits whose acknowledgement is lost: the database connection fails while a
transaction that settles charges is committing (its statements all ran, the ``COMMIT``
was sent, and then the connection died or the driver failed). The database may have
committed it or not; the store cannot tell from the error.

Such a transaction (:meth:`OutcomeRepository._settling`) raises
:class:`~bodygraph_server.store.errors.CommitUncertainError` instead of the plain
:class:`~bodygraph_server.store.errors.DatabaseUnavailableError`, and its caller finds out
on a new connection: it releases the reservations concerned (a release takes their rows'
locks, so it waits for a commit still being carried out by the server and then finds the
reservations committed, or releases them for good) and reads their status back
(:meth:`OutcomeRepository.usage_statuses`). :mod:`bodygraph_server.billing.outcomes`
does that for the service.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from bodygraph_server.store.connections import Database, Tx
from bodygraph_server.store.errors import CommitUncertainError, DatabaseUnavailableError
from bodygraph_server.store.records import UsageStatus


class OutcomeRepository(Database):
    """Transactions whose lost commit is reported as such, and the status read-back."""

    @contextmanager
    def _settling(self) -> Iterator[Tx]:
        """A write transaction (:meth:`write_transaction`) that raises
        :class:`CommitUncertainError` when an outage interrupts it after its block ran
        (during ``COMMIT``); an outage before that stays a
        :class:`DatabaseUnavailableError` (nothing was committed)."""
        ran = False
        try:
            with self.write_transaction() as tx:
                yield tx
                ran = True
        except DatabaseUnavailableError as exc:
            if not ran or isinstance(exc, CommitUncertainError):
                raise
            raise CommitUncertainError(f"{exc} (while committing)") from exc

    def usage_statuses(self, reservation_ids: Sequence[int]) -> list[UsageStatus | None]:
        """The status of each usage row (None: no such row), read in a new transaction."""
        if not reservation_ids:
            return []
        marks = ", ".join("?" * len(reservation_ids))
        with self.read_transaction() as tx:
            rows = tx.rows(f"SELECT id, status FROM usage_log WHERE id IN ({marks})",
                           list(reservation_ids))
        found = {int(row[0]): str(row[1]) for row in rows}
        return [UsageStatus(found[i]) if i in found else None for i in reservation_ids]
