"""The PostgreSQL backend (psycopg 3, connections from a pool: :class:`PooledConnections`;
a request's bookkeeping in one round trip per step: :mod:`.request_calls`).

Charges lock the account row with ``SELECT ... FOR UPDATE``; rate-limit hits lock the
bucket's row in ``rate_buckets`` the same way; migrations take a transaction-level
advisory lock. Tables live in the connection's current schema: to use another one, put
``options=-csearch_path%3D<schema>`` in the URL's query (the schema must exist).

Errors: a lost or refused connection, a terminated backend, a server shutting down
(psycopg's ``OperationalError`` and ``InterfaceError``, the pool's time-out) are
:class:`DatabaseUnavailableError`; the pool replaces the connection and the next call
works again once the server is back. Any other driver error is :class:`DatabaseError`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import psycopg

from bodygraph_server.store.async_calls import AsyncRequestCalls
from bodygraph_server.store.connections import Tx, first_line
from bodygraph_server.store.errors import DatabaseError, DatabaseUnavailableError, StoreError
from bodygraph_server.store.pool import PooledConnections
from bodygraph_server.store.request_calls import RequestCalls, placeholders

#: Advisory lock id held while migrating ("bodygrap" in ASCII).
MIGRATION_LOCK = 0x626F_6479_6772_6170


def _refuses_writes(sqlstate: str | None) -> bool:
    """Whether an error's SQLSTATE says the server cannot store writes now (an outage,
    not a bug): a read-only transaction (a standby, ``default_transaction_read_only``),
    insufficient resources (a full disk, too many connections), a system error (I/O)."""
    return sqlstate is not None and (sqlstate == "25006" or sqlstate[:2] in ("53", "58"))


def _on(cursor: Any) -> Tx:
    """Statements run on ``cursor`` (the store's ``?`` placeholders made psycopg's)."""

    def run(sql: str, params: Sequence[object]) -> Any:
        cursor.execute(placeholders(sql), tuple(params))
        return cursor

    return Tx(run)


class PostgresStore(RequestCalls):
    """The bookkeeping in a PostgreSQL database.

    ``wait``: how long a call waits for a connection while the server is unreachable
    before :class:`DatabaseUnavailableError`; ``connect_timeout``: how long one connection
    attempt may take.
    """

    FOR_UPDATE = " FOR UPDATE"
    MIGRATIONS = "postgres"
    RETRY_START = True

    def __init__(self, url: str, *, wait: float = 1.0, connect_timeout: int = 5) -> None:
        self.wait = wait
        self.connect_timeout = connect_timeout
        self._pool = PooledConnections(
            url,
            connect_kwargs={"autocommit": True, "connect_timeout": connect_timeout},
            timeout=wait,
        )
        try:
            super().__init__(url)
        except BaseException:
            self._pool.close()
            raise

    def _session(self) -> AbstractContextManager[Any]:
        return self._pool.connection()

    def _translate(self, exc: Exception) -> StoreError | None:
        return self.translate(exc)

    def translate(self, exc: Exception) -> StoreError | None:
        """The store's error for a driver or pool error (None: neither's)."""
        pooled = self._pool.translate(exc)
        if pooled is not None:
            return pooled
        if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
            return DatabaseUnavailableError(f"PostgreSQL is unavailable: {first_line(exc)}")
        if isinstance(exc, psycopg.Error) and _refuses_writes(exc.sqlstate):
            return DatabaseUnavailableError(f"PostgreSQL refuses writes: {first_line(exc)}")
        if isinstance(exc, psycopg.Error):
            return DatabaseError(f"PostgreSQL refused the operation: {first_line(exc)}")
        return None

    @contextmanager
    def _transaction(self, conn: Any, *, write: bool) -> Iterator[Tx]:
        with conn.transaction(), conn.cursor() as cursor:
            yield _on(cursor)

    @contextmanager
    def _statements(self, conn: Any) -> Iterator[Tx]:
        with conn.cursor() as cursor:  # autocommit: each statement commits alone
            yield _on(cursor)

    def relax_durability(self, tx: Tx) -> None:
        """``synchronous_commit = off`` for this transaction only: no wait for the WAL
        flush (a crash may lose the last ~0.6 s of such commits, atomically)."""
        tx.execute("SET LOCAL synchronous_commit = off")

    def on_loop(self) -> AsyncRequestCalls:
        """The request path's statements on the running event loop (open and close it
        there)."""
        return AsyncRequestCalls(self)

    def close(self) -> None:
        """Close this process's connection pool."""
        self._pool.close()

    def _lock_migrations(self, tx: Tx) -> None:
        tx.rows("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
