"""Connections and transactions of the SQL stores: the one place that opens, hands out
and closes database connections, and turns the drivers' errors into the store's.

Two ways to hold connections:

* :class:`ThreadConnections` (SQLite): one connection per thread and process (a forked
  child opens its own);
* :class:`PooledConnections` (PostgreSQL): a :class:`psycopg_pool.ConnectionPool` per
  process. A connection is checked when it is taken out (a dead one, such as a backend
  ended by ``pg_terminate_backend`` or a server restart, is thrown away and another one
  taken), broken connections are replaced in the background, and while the server is
  unreachable a caller waits at most ``timeout`` seconds before
  :class:`~bodygraph_server.store.errors.DatabaseUnavailableError`.

Transactions are explicit (connections are in autocommit mode) and SQL is written with
``?`` placeholders whatever the backend. A backend supplies :meth:`Database._session`,
:meth:`Database._transaction` and :meth:`Database._translate`: every driver error leaves
the store as a :class:`~bodygraph_server.store.errors.StoreError` (an outage or a lock
as ``DatabaseUnavailableError``, anything else as ``DatabaseError``).
"""

from __future__ import annotations

import logging
import os
import select
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

import psycopg
import psycopg_pool

from bodygraph_server.store.errors import DatabaseUnavailableError, StoreError

Row = tuple[Any, ...]

# The pool logs every failed connection attempt; without a handler of the application's
# these would go to stderr through logging's last resort (into the admin CLI's output).
logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())

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

    @contextmanager
    def _guarded(self, *, write: bool) -> Iterator[Tx]:
        retry = self.RETRY_START
        while True:
            connected = started = False
            try:
                with self._session() as conn:
                    connected = True
                    with self._transaction(conn, write=write) as tx:
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


#: Pools inherited from a parent process, kept from the garbage collector.
_INHERITED: list[Any] = []

#: The last failure to connect, by connection string (for the message of a time-out).
_LAST_FAILURE: dict[str, str] = {}


class _Connection(psycopg.Connection[Any]):
    """A psycopg connection that remembers why connecting failed."""

    @classmethod
    def connect(cls, conninfo: str = "", **kwargs: Any) -> Any:
        try:
            connection = super().connect(conninfo, **kwargs)
        except psycopg.Error as exc:
            _LAST_FAILURE[conninfo] = first_line(exc)
            raise
        _LAST_FAILURE.pop(conninfo, None)
        return connection


def _alive(conn: psycopg.Connection[Any]) -> bool:
    """Whether a pooled, idle connection still works. An idle connection has nothing to
    read; if its socket is readable the server sent something (the notice of a terminated
    backend, or end of file), and only then a round trip decides."""
    if conn.closed or conn.broken:
        return False
    poller = select.poll()
    poller.register(conn.fileno(), select.POLLIN)
    if not poller.poll(0):
        return True
    try:
        conn.execute("")
    except psycopg.Error:
        return False
    return True


class PooledConnections:
    """A connection pool per process (:class:`psycopg_pool.ConnectionPool`).

    ``timeout``: how long a caller waits for a connection (the database unreachable, or
    every connection busy) before :class:`DatabaseUnavailableError`. The pool reconnects
    in the background; an attempt that fails for ``reconnect_timeout`` seconds gives up and
    the next caller starts a new one, so the pool reconnects within about a second of the
    server's return whenever it is asked for a connection.
    """

    def __init__(
        self,
        conninfo: str,
        *,
        connect_kwargs: dict[str, Any],
        min_size: int = 2,
        max_size: int = 12,
        timeout: float = 2.0,
        reconnect_timeout: float = 2.0,
    ) -> None:
        self._conninfo = conninfo
        self._kwargs = connect_kwargs
        self._sizes = (min_size, max_size)
        self.timeout = timeout
        self._reconnect_timeout = reconnect_timeout
        self._lock = threading.Lock()
        self._pool: tuple[int, psycopg_pool.ConnectionPool[Any]] | None = None

    def _current(self) -> psycopg_pool.ConnectionPool[Any]:
        pid = os.getpid()
        with self._lock:
            held = self._pool
            if held is not None and held[0] == pid:
                return held[1]
            if held is not None:  # the parent's, inherited across a fork (threads gone):
                _INHERITED.append(held[1])  # never collected: closing its connections
                # here would end the parent's sessions (they share the sockets)
            pool: psycopg_pool.ConnectionPool[Any] = psycopg_pool.ConnectionPool(
                self._conninfo,
                connection_class=_Connection,
                kwargs=self._kwargs,
                min_size=self._sizes[0],
                max_size=self._sizes[1],
                timeout=self.timeout,
                reconnect_timeout=self._reconnect_timeout,
                open=False,
                name=f"bodygraph-{pid}",
            )
            pool.open(wait=False)
            self._pool = (pid, pool)
            return pool

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A working connection, back to the pool afterwards (a broken one is replaced)."""
        pool = self._current()
        conn = pool.getconn()
        for _ in range(self._sizes[1]):
            if _alive(conn):
                break
            pool.putconn(conn)  # closed: the pool throws it away and makes a new one
            conn = pool.getconn()
        try:
            yield conn
        finally:
            pool.putconn(conn)

    def failure(self) -> str:
        """Why the last connection attempt failed ("" after a success)."""
        return _LAST_FAILURE.get(self._conninfo, "")

    def close(self) -> None:
        """Close this process's pool."""
        with self._lock:
            held, self._pool = self._pool, None
        if held is not None and held[0] == os.getpid():
            held[1].close()


    def translate(self, exc: Exception) -> StoreError | None:
        """The store's error for a pool error (None: not the pool's)."""
        if isinstance(exc, psycopg_pool.PoolTimeout):
            why = self.failure() or f"no free connection within {self.timeout:g} s"
            return DatabaseUnavailableError(f"cannot connect to PostgreSQL: {why}")
        if isinstance(exc, psycopg_pool.PoolClosed | psycopg_pool.TooManyRequests):
            return DatabaseUnavailableError(f"PostgreSQL is unavailable: {first_line(exc)}")
        return None
