"""Connections and transactions of the SQL store: :class:`Database` opens transactions
over a backend's connections (:class:`Connections`) and turns driver errors into the
store's; :class:`Tx` is one open transaction, the unit every repository works in."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from bodygraph_server.store.errors import StoreError

#: Seconds a SQLite write waits for a lock held by another program (the service runs
#: SQLite calls on its event loop: a long wait would freeze the worker).
DEFAULT_BUSY_TIMEOUT = 0.25


class Row(Protocol):
    """A row as the drivers hand it back: a named tuple (``row.balance`` by column name or
    alias, ``row[0]`` by position; equal to the plain tuple of its values)."""

    def __getattr__(self, name: str) -> Any: ...

    def __getitem__(self, index: int) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...

    def __len__(self) -> int: ...


class Cursor(Protocol):
    """The part of a DB-API cursor the store uses."""

    @property
    def rowcount(self) -> int: ...

    def fetchall(self) -> list[Any]: ...


@dataclass(frozen=True, slots=True)
class Dialect:
    """What differs between the backends' SQL, beyond the statements they share."""

    #: Folder of ``migrations/`` holding the backend's ``NNNN_name.sql`` files.
    migrations: str
    #: Appended to a SELECT that locks its rows (SQLite's write transaction already
    #: holds the database's one write lock).
    for_update: str = ""
    #: Run in a transaction whose commit need not wait for the disk (None: nothing to do).
    relax_durability_sql: str | None = None
    #: Run in a migration's transaction to serialize migrations (None: already serial).
    lock_migrations_sql: str | None = None


class Tx:
    """One open transaction: SQL written with ``?`` placeholders, rows as named tuples."""

    __slots__ = ("_run", "dialect")

    def __init__(self, run: Callable[[str, Sequence[object]], Cursor], dialect: Dialect) -> None:
        self._run = run
        self.dialect = dialect

    @property
    def for_update(self) -> str:
        """The suffix of a SELECT that locks its rows ("" where the transaction already
        holds the write lock)."""
        return self.dialect.for_update

    def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run a statement; the number of rows it changed."""
        return self._run(sql, params).rowcount

    def rows(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """Run a query; all rows."""
        return self._run(sql, params).fetchall()

    def one(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        """Run a query; the first row or None."""
        rows = self._run(sql, params).fetchall()
        return rows[0] if rows else None

    def relax_durability(self) -> None:
        """Let this transaction commit without waiting for its log to reach the disk (a
        crash may lose it, never half of it): for data that is not money."""
        if self.dialect.relax_durability_sql is not None:
            self.execute(self.dialect.relax_durability_sql)

    def lock_migrations(self) -> None:
        """Serialize this transaction with every other migration of the database."""
        if self.dialect.lock_migrations_sql is not None:
            self.rows(self.dialect.lock_migrations_sql)


def first_line(exc: BaseException) -> str:
    """The first line of a driver's message (the rest may repeat the SQL)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else "no details"


class Connections(Protocol):
    """A backend's connections (:mod:`.sqlite`, :mod:`.postgres`)."""

    dialect: Dialect
    #: Whether a transaction whose start failed for an outage is tried once more on
    #: another connection (PostgreSQL: the connection may have died since its check).
    retry_start: bool

    def session(self) -> AbstractContextManager[Any]:
        """A connection for one transaction (autocommit; transactions are explicit)."""
        ...

    def transaction(self, conn: Any, *, write: bool) -> AbstractContextManager[Tx]:
        """A transaction on ``conn``; ``write`` takes the backend's write lock."""
        ...

    def statements(self, conn: Any) -> AbstractContextManager[Tx]:
        """Statements on ``conn`` that each commit alone (or one write transaction)."""
        ...

    def translate(self, exc: Exception) -> StoreError | None:
        """The store's error for a driver error (None: not the driver's)."""
        ...

    def close(self) -> None:
        """Close the connections opened by this process."""
        ...


class Database:
    """Transactions over one backend's connections; every driver error leaves as a
    :class:`~bodygraph_server.store.errors.StoreError` (an outage or a lock as
    ``DatabaseUnavailableError``, anything else as ``DatabaseError``)."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections
        self.dialect = connections.dialect

    @contextmanager
    def _guarded(self, *, write: bool, alone: bool = False) -> Iterator[Tx]:
        connections = self.connections
        retry = connections.retry_start and not alone  # a statement may have run: never again
        while True:
            connected = started = False
            try:
                with connections.session() as conn:
                    connected = True
                    with (connections.statements(conn) if alone
                          else connections.transaction(conn, write=write)) as tx:
                        started = True
                        yield tx
                return
            except StoreError:
                raise
            except Exception as exc:
                error = connections.translate(exc)
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
        round trip each); on a backend without that, one write transaction for the block."""
        return self._guarded(write=True, alone=True)

    def read_transaction(self) -> AbstractContextManager[Tx]:
        """A read-only transaction (a consistent snapshot; never blocks writers)."""
        return self._guarded(write=False)

    def translate(self, exc: Exception) -> StoreError | None:
        """The store's error for a driver error (None: not the driver's)."""
        return self.connections.translate(exc)

    def close(self) -> None:
        """Close the connections opened by this process."""
        self.connections.close()

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
