"""The SQLite backend (stdlib :mod:`sqlite3`, WAL mode): the default store.

Every write transaction is ``BEGIN IMMEDIATE``: it takes SQLite's single write lock before
reading, so the read-check-update of a charge or a rate-limit hit is atomic across threads
and processes. Readers never block in WAL mode.

Writers of one store object (the threads of one process) first queue on an in-process
lock, so they take turns instead of polling in SQLite's sleeping busy handler; writers of
other processes (or other store objects) wait up to ``busy_timeout`` seconds for SQLite's
lock.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from bodygraph_server.store.base import DatabaseUnavailableError
from bodygraph_server.store.sql import SqlStore, Tx, iter_statements


class SqliteStore(SqlStore):
    """The bookkeeping in one SQLite file."""

    MIGRATIONS = "sqlite"

    def __init__(self, path: str | Path, *, url: str | None = None, busy_timeout: float = 30.0):
        self.path = Path(path)
        self._busy_timeout = busy_timeout
        self._write_lock = threading.Lock()
        super().__init__(url if url is not None else f"sqlite:///{self.path}")

    def _connect(self) -> sqlite3.Connection:
        try:
            # One connection per thread (see SqlStore._conn); check_same_thread is off only
            # so that close() may close every thread's connection from one thread.
            conn = sqlite3.connect(
                self.path,
                timeout=self._busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            raise DatabaseUnavailableError(
                f"cannot open SQLite database {self.path}: {exc}"
            ) from exc
        return conn

    @contextmanager
    def _transaction(self, conn: Any, *, write: bool) -> Iterator[Tx]:
        connection: sqlite3.Connection = conn

        def run(sql: str, params: Sequence[object]) -> sqlite3.Cursor:
            return connection.execute(sql, tuple(params))

        guard: AbstractContextManager[object] = self._write_lock if write else nullcontext()
        with guard:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield Tx(run)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _apply_script(self, tx: Tx, script: str) -> None:
        for statement in iter_statements(script):
            tx.execute(statement)

    def _lock_migrations(self, tx: Tx) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already serializes migrations."""

    def _close_connection(self, conn: Any) -> None:
        conn.close()
