"""Connections and transactions of the SQL stores: the one place that opens, hands out
and closes database connections, and turns the drivers' errors into the store's.

Two ways to hold connections:

* :class:`ThreadConnections` (SQLite): one connection per thread and process (a forked
  child opens its own);
* :class:`~bodygraph_server.store.pool.PooledConnections` (PostgreSQL): a connection pool
  per process, in :mod:`.pool`.

Transactions are explicit (connections are in autocommit mode) and SQL is written with
``?`` placeholders whatever the backend; :meth:`Database.alone` runs statements that are
each a transaction of their own (PostgreSQL: no ``BEGIN``/``COMMIT`` round trips). A
backend supplies :meth:`Database._session`, :meth:`Database._transaction` and
:meth:`Database._translate`: every driver error leaves
the store as a :class:`~bodygraph_server.store.errors.StoreError` (an outage or a lock
as ``DatabaseUnavailableError``, anything else as ``DatabaseError``).
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from bodygraph_server.store.errors import StoreError

Row = tuple[Any, ...]

#: Seconds a SQLite write waits for a lock held by another program (the service runs
#: SQLite calls on its event loop: a long wait would freeze the worker).
DEFAULT_BUSY_TIMEOUT = 0.25


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


def first_line(exc: BaseException) -> str:
    """The first line of a driver's message (the rest may repeat the SQL)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else "no details"


class Database(ABC):
    """The connections of one SQL store; subclasses supply the backend's connections,
    transactions and error translation."""

    #: Appended to a SELECT that locks its rows (" FOR UPDATE" on PostgreSQL; SQLite's
    #: write transaction already holds the database's one write lock).
    FOR_UPDATE: str = ""

    def __init__(self, url: str) -> None:
        self.url = url

    @abstractmethod
    def _session(self) -> AbstractContextManager[Any]:
        """A connection for one transaction (autocommit; transactions are explicit)."""

    @abstractmethod
    def _transaction(self, conn: Any, *, write: bool) -> AbstractContextManager[Tx]:
        """A transaction on ``conn``; ``write`` takes the backend's write lock."""

    @abstractmethod
    def _translate(self, exc: Exception) -> StoreError | None:
        """The store's error for a driver error (None: not the driver's)."""

    @abstractmethod
    def close(self) -> None:
        """Close the connections opened by this process."""

    #: Whether a transaction whose start failed for an outage is tried once more on
    #: another connection (PostgreSQL: the connection may have died since its check).
    RETRY_START: bool = False

    def _statements(self, conn: Any) -> AbstractContextManager[Tx]:
        """Statements on ``conn`` that each commit alone (default: one write transaction)."""
        return self._transaction(conn, write=True)

    @contextmanager
    def _guarded(self, *, write: bool, alone: bool = False) -> Iterator[Tx]:
        retry = self.RETRY_START and not alone  # a statement may have run: never again
        while True:
            connected = started = False
            try:
                with self._session() as conn:
                    connected = True
                    with (self._statements(conn) if alone
                          else self._transaction(conn, write=write)) as tx:
                        started = True
                        yield tx
                return
            except StoreError:
                raise
            except Exception as exc:
                error = self._translate(exc)
                if error is None:
                    raise
                if retry and connected and not started:
                    retry = False  # the connection died before BEGIN: start again, once
                    continue
                raise error from exc

    def write_transaction(self) -> AbstractContextManager[Tx]:
        """A transaction holding the backend's write lock (SQLite ``BEGIN IMMEDIATE`` behind
        the in-process write lock; PostgreSQL: an ordinary transaction, lock rows with
        ``SELECT ... FOR UPDATE``). Commits on normal exit, rolls back if the block raises."""
        return self._guarded(write=True)

    def alone(self) -> AbstractContextManager[Tx]:
        """Statements that are each a transaction of their own (PostgreSQL: autocommit, one
        round trip each); on a backend without that, one write transaction for the block.
        For a single statement or a server-side function that is a transaction by itself."""
        return self._guarded(write=True, alone=True)

    def read_transaction(self) -> AbstractContextManager[Tx]:
        """A read-only transaction (a consistent snapshot; never blocks writers)."""
        return self._guarded(write=False)

    @abstractmethod
    def relax_durability(self, tx: Tx) -> None:
        """Let ``tx`` commit without waiting for its log to reach the disk (a crash may
        lose it, never half of it): for data that is not money (rate-limit hits)."""

    def ping(self) -> None:
        """Raise :class:`DatabaseUnavailableError` unless the database answers a query."""
        with self.read_transaction() as tx:
            tx.one("SELECT 1")

    def check_writable(self) -> None:
        """Raise :class:`DatabaseUnavailableError` unless the database stores a write: a
        row is inserted into ``schema_version`` and deleted again (version -1, never seen
        outside the transaction) and that is committed, so a read-only database or file,
        a full disk or a write lock held elsewhere fails it as it fails a charge. (A row
        rewritten unchanged would not do: SQLite then writes nothing.)"""
        with self.write_transaction() as tx:
            tx.execute("INSERT INTO schema_version (version, applied_us) VALUES (-1, 0)")
            tx.execute("DELETE FROM schema_version WHERE version = -1")


class ThreadConnections:
    """One connection per thread and process, made by ``connect``."""

    def __init__(self, connect: Callable[[], Any]) -> None:
        self._connect = connect
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[tuple[int, Any]] = []

    def get(self) -> Any:
        """This thread's connection (opened on first use)."""
        pid = os.getpid()
        held = getattr(self._local, "conn", None)
        if held is not None and held[0] == pid:
            return held[1]
        conn = self._connect()
        self._local.conn = (pid, conn)
        with self._lock:
            self._connections.append((pid, conn))
        return conn

    def close(self) -> None:
        """Close the connections opened by this process."""
        pid = os.getpid()
        with self._lock:
            mine = [conn for owner, conn in self._connections if owner == pid]
            self._connections = [item for item in self._connections if item[0] != pid]
        for conn in mine:
            conn.close()
        self._local = threading.local()
