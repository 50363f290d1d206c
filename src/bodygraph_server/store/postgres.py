"""The PostgreSQL backend (psycopg 3, a connection pool per process), with the request
path of :mod:`.request_path` (locking, schemas and errors: docs/accounts.md,
"Storage")."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import psycopg
from psycopg.rows import namedtuple_row

from bodygraph_server.store.connections import Database, Dialect, Tx, first_line
from bodygraph_server.store.errors import (
    DatabaseError,
    DatabaseMissingError,
    DatabaseUnavailableError,
    StoreError,
)
from bodygraph_server.store.pool import PooledConnections, names_missing
from bodygraph_server.store.request_path import RequestPath, placeholders
from bodygraph_server.store.sql import SqlStore

#: Advisory lock id held while migrating ("bodygrap" in ASCII).
MIGRATION_LOCK = 0x626F_6479_6772_6170

POSTGRES = Dialect(
    migrations="postgres",
    for_update=" FOR UPDATE",
    # No wait for the WAL flush (a crash may lose the last such commits, up to three times
    # PostgreSQL's wal_writer_delay, atomically): for this transaction only.
    relax_durability_sql="SET LOCAL synchronous_commit = off",
    lock_migrations_sql=f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})",
)


def refuses_writes(sqlstate: str | None) -> bool:
    """Whether an error's SQLSTATE says the server cannot store writes now (an outage,
    not a bug): a read-only transaction (a standby, ``default_transaction_read_only``),
    insufficient resources (a full disk, too many connections), a system error (I/O)."""
    return sqlstate is not None and (sqlstate == "25006" or sqlstate[:2] in ("53", "58"))


def cursor_statements(cursor: Any, dialect: Dialect) -> Tx:
    """Statements run on ``cursor`` (the store's ``?`` placeholders made psycopg's)."""

    def run(sql: str, params: Sequence[object]) -> Any:
        cursor.execute(placeholders(sql), tuple(params))
        return cursor

    return Tx(run, dialect)


def translate(exc: Exception) -> StoreError | None:
    """The store's error for a driver error (None: not psycopg's)."""
    if isinstance(exc, psycopg.OperationalError) and names_missing(str(exc)):
        return DatabaseMissingError(f"cannot connect to PostgreSQL: {first_line(exc)}")
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return DatabaseUnavailableError(f"PostgreSQL is unavailable: {first_line(exc)}")
    if isinstance(exc, psycopg.Error) and refuses_writes(exc.sqlstate):
        return DatabaseUnavailableError(f"PostgreSQL refuses writes: {first_line(exc)}")
    if isinstance(exc, psycopg.Error):
        return DatabaseError(f"PostgreSQL refused the operation: {first_line(exc)}")
    return None


class PostgresConnections:
    """A pool of connections to one PostgreSQL database, per process.

    ``wait``: how long a call waits for a connection while the server is unreachable
    before :class:`DatabaseUnavailableError`; ``connect_timeout``: how long one connection
    attempt may take.
    """

    dialect = POSTGRES
    retry_start = True

    def __init__(self, url: str, *, wait: float, connect_timeout: int) -> None:
        self.url = url
        self.wait = wait
        self.connect_timeout = connect_timeout
        self._pool = PooledConnections(
            url,
            connect_kwargs={"autocommit": True, "connect_timeout": connect_timeout},
            timeout=wait,
        )

    def session(self) -> AbstractContextManager[Any]:
        """A working connection of the pool."""
        return self._pool.connection()

    def translate(self, exc: Exception) -> StoreError | None:
        """The store's error for a driver or pool error (None: neither's)."""
        pooled = self._pool.translate(exc)
        return pooled if pooled is not None else translate(exc)

    @contextmanager
    def transaction(self, conn: Any, *, write: bool) -> Iterator[Tx]:
        """``BEGIN``, ``COMMIT`` (rows are locked with ``FOR UPDATE`` where needed)."""
        with conn.transaction(), conn.cursor(row_factory=namedtuple_row) as cursor:
            yield cursor_statements(cursor, self.dialect)

    @contextmanager
    def statements(self, conn: Any) -> Iterator[Tx]:
        """Statements that each commit alone (the connection is in autocommit)."""
        with conn.cursor(row_factory=namedtuple_row) as cursor:
            yield cursor_statements(cursor, self.dialect)

    def close(self) -> None:
        """Close this process's connection pool."""
        self._pool.close()


class PostgresStore(SqlStore):
    """The bookkeeping in a PostgreSQL database, with the request path of
    :mod:`.request_path` (see :class:`PostgresConnections` for ``wait`` and
    ``connect_timeout``)."""

    CONNECTIONS: type[PostgresConnections] = PostgresConnections

    def __init__(self, url: str, *, wait: float = 1.0, connect_timeout: int = 5) -> None:
        connections = self.CONNECTIONS(url, wait=wait, connect_timeout=connect_timeout)
        database = Database(connections)
        try:
            super().__init__(database, url=url,
                             request_path=RequestPath(database, connections))
        except BaseException:
            connections.close()
            raise
