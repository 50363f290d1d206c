"""Connections and transactions of the SQL stores: the one place that opens, hands out
and closes database connections.

One connection per thread and process (a forked child opens its own); transactions are
explicit (connections are in autocommit mode) and SQL is written with ``?``
placeholders whatever the backend. A backend supplies :meth:`Database._connect` and
:meth:`Database._transaction`.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

Row = tuple[Any, ...]


class Cursor(Protocol):
    """The part of a DB-API cursor the store uses."""

    @property
    def rowcount(self) -> int: ...

    def fetchall(self) -> list[Any]: ...


class Tx:
    """One open transaction: run SQL written with ``?`` placeholders."""

    def __init__(self, run: Callable[[str, Sequence[object]], Cursor]) -> None:
        self._run = run

    def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run a statement; the number of rows it changed."""
        return self._run(sql, params).rowcount

    def rows(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """Run a query; all rows."""
        return [tuple(row) for row in self._run(sql, params).fetchall()]

    def one(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        """Run a query; the first row or None."""
        rows = self._run(sql, params).fetchall()
        return tuple(rows[0]) if rows else None


class Database(ABC):
    """The connections of one SQL store; subclasses supply the backend's connect and
    transaction."""

    #: Appended to a SELECT that locks its rows (" FOR UPDATE" on PostgreSQL; SQLite's
    #: write transaction already holds the database's one write lock).
    FOR_UPDATE: str = ""

    def __init__(self, url: str) -> None:
        self.url = url
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[tuple[int, Any]] = []

    @abstractmethod
    def _connect(self) -> Any:
        """A new connection (autocommit; transactions are explicit)."""

    @abstractmethod
    def _transaction(self, conn: Any, *, write: bool) -> AbstractContextManager[Tx]:
        """A transaction on ``conn``; ``write`` takes the backend's write lock."""

    def _close_connection(self, conn: Any) -> None:
        """Close one connection."""
        conn.close()

    def _conn(self) -> Any:
        pid = os.getpid()
        held = getattr(self._local, "conn", None)
        if held is not None and held[0] == pid:
            return held[1]
        conn = self._connect()
        self._local.conn = (pid, conn)
        with self._lock:
            self._connections.append((pid, conn))
        return conn

    def write_transaction(self) -> AbstractContextManager[Tx]:
        """A transaction holding the backend's write lock (SQLite ``BEGIN IMMEDIATE`` behind
        the in-process write lock; PostgreSQL: an ordinary transaction, lock rows with
        ``SELECT ... FOR UPDATE``). Commits on normal exit, rolls back if the block raises."""
        return self._transaction(self._conn(), write=True)

    def read_transaction(self) -> AbstractContextManager[Tx]:
        """A read-only transaction (a consistent snapshot; never blocks writers)."""
        return self._transaction(self._conn(), write=False)

    def close(self) -> None:
        """Close the connections opened by this process."""
        pid = os.getpid()
        with self._lock:
            mine = [conn for owner, conn in self._connections if owner == pid]
            self._connections = [item for item in self._connections if item[0] != pid]
        for conn in mine:
            self._close_connection(conn)
        self._local = threading.local()
