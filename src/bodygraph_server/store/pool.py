"""The PostgreSQL connection pool per process: a dead connection is replaced when taken
out, and a caller waits at most ``timeout`` seconds for one while the server is
unreachable (docs/api.md, "Outages")."""

from __future__ import annotations

import logging
import os
import re
import select
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import psycopg_pool

from bodygraph_server.store.connections import first_line
from bodygraph_server.store.errors import (
    DatabaseMissingError,
    DatabaseUnavailableError,
    StoreError,
)

# The pool logs every failed connection attempt; without a handler of the application's
# these would go to stderr through logging's last resort (into the admin CLI's output).
logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())

#: Pools inherited from a parent process, kept from the garbage collector.
_INHERITED: list[Any] = []

#: The last failure to connect, by connection string (for the message of a time-out).
_LAST_FAILURE: dict[str, str] = {}

#: The server's refusal of a connection to a database or as a role it does not know
#: (SQLSTATE 3D000 and 28000; libpq gives a refused connection's message only).
_MISSING = re.compile(r'\b(?:database|role) "[^"]*" does not exist')


def names_missing(message: str) -> bool:
    """Whether a failed connection's ``message`` says the database or the role named in
    the URL does not exist (a mistake in the URL, not an outage)."""
    return _MISSING.search(message) is not None


@contextmanager
def _remembering(conninfo: str) -> Iterator[None]:
    """Remember why connecting to ``conninfo`` failed (forget it once it works)."""
    try:
        yield
    except psycopg.Error as exc:
        _LAST_FAILURE[conninfo] = first_line(exc)
        raise
    _LAST_FAILURE.pop(conninfo, None)


class _Connection(psycopg.Connection[Any]):
    """A psycopg connection that remembers why connecting failed."""

    @classmethod
    def connect(cls, conninfo: str = "", **kwargs: Any) -> Any:
        with _remembering(conninfo):
            return super().connect(conninfo, **kwargs)


class AsyncConnection(psycopg.AsyncConnection[Any]):
    """:class:`_Connection` for the event loop's pool (``store/async_request_path.py``)."""

    @classmethod
    async def connect(cls, conninfo: str = "", **kwargs: Any) -> Any:
        with _remembering(conninfo):
            return await super().connect(conninfo, **kwargs)


def quiet(conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> bool | None:
    """What a pooled, idle connection's socket says: None, the connection is closed or
    broken; True, it has nothing to read (alive); False, the server sent something (the
    notice of a terminated backend, or end of file), and only a round trip decides."""
    if conn.closed or conn.broken:
        return None
    poller = select.poll()
    poller.register(conn.fileno(), select.POLLIN)
    return not poller.poll(0)


def _alive(conn: psycopg.Connection[Any]) -> bool:
    """Whether a pooled, idle connection still works (:func:`quiet`, then a round trip)."""
    state = quiet(conn)
    if state is not False:
        return bool(state)
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
            missing = names_missing(why)
            error = DatabaseMissingError if missing else DatabaseUnavailableError
            return error(f"cannot connect to PostgreSQL: {why}")
        if isinstance(exc, psycopg_pool.PoolClosed | psycopg_pool.TooManyRequests):
            return DatabaseUnavailableError(f"PostgreSQL is unavailable: {first_line(exc)}")
        return None
