"""The PostgreSQL backend (psycopg 3).

Charges lock the account row with ``SELECT ... FOR UPDATE``; rate-limit hits lock the
bucket's row in ``rate_buckets`` the same way; migrations take a transaction-level
advisory lock. Tables live in the connection's current schema: to use another one, put
``options=-csearch_path%3D<schema>`` in the URL's query (the schema must exist).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from bodygraph_server.store.connections import Tx
from bodygraph_server.store.errors import DatabaseUnavailableError
from bodygraph_server.store.sql import SqlStore

#: Advisory lock id held while migrating ("bodygrap" in ASCII).
MIGRATION_LOCK = 0x626F_6479_6772_6170


def _placeholders(sql: str) -> str:
    return sql.replace("%", "%%").replace("?", "%s")


class PostgresStore(SqlStore):
    """The bookkeeping in a PostgreSQL database."""

    FOR_UPDATE = " FOR UPDATE"
    MIGRATIONS = "postgres"

    def __init__(self, url: str, *, connect_timeout: int = 10) -> None:
        self._connect_timeout = connect_timeout
        super().__init__(url)

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(self.url, autocommit=True, connect_timeout=self._connect_timeout)
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise DatabaseUnavailableError(f"cannot connect to PostgreSQL: {first}") from exc

    @contextmanager
    def _transaction(self, conn: Any, *, write: bool) -> Iterator[Tx]:
        with conn.transaction(), conn.cursor() as cursor:

            def run(sql: str, params: Sequence[object]) -> Any:
                cursor.execute(_placeholders(sql), tuple(params))
                return cursor

            yield Tx(run)

    def _lock_migrations(self, tx: Tx) -> None:
        tx.rows("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
