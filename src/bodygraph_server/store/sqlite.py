"""The SQLite backend (stdlib :mod:`sqlite3`, WAL mode), the default: write transactions
are ``BEGIN IMMEDIATE`` behind an in-process lock and a ``flock`` of
``<database>-writelock`` (the rules: docs/accounts.md, "Storage")."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time
from collections import namedtuple
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from bodygraph_server.store.connections import (
    DEFAULT_BUSY_TIMEOUT,
    Database,
    Dialect,
    ThreadConnections,
    Tx,
    first_line,
)
from bodygraph_server.store.errors import (
    DatabaseError,
    DatabaseMissingError,
    DatabaseUnavailableError,
    StoreError,
)
from bodygraph_server.store.sql import SqlStore

#: Primary result codes of conditions of the file, not of the request: locked by another
#: program (BUSY, LOCKED), out of memory, read-only, I/O error, disk full, cannot open.
_PASSING = frozenset({
    sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_READONLY,
    sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN,
})


#: Seconds a write waits for the lock while another program is known to hold it.
LOCKED_OUT_WAIT = 0.01


class SqliteConnections:
    """A connection per thread and process to one SQLite file, and its write locks."""

    dialect = Dialect(migrations="sqlite")
    retry_start = False

    def __init__(self, path: Path, busy_timeout: float) -> None:
        self.path = path
        self._busy_timeout = busy_timeout
        self._connections = ThreadConnections(self._connect)
        self._locked_out = False  # the last write found another program's lock
        self._write_lock = threading.Lock()
        self._lock_path = Path(f"{self.path}-writelock")
        self._lock_fd: tuple[int, int] | None = None  # (pid, descriptor)
        self._row_types: dict[str, Callable[[Any], Any]] = {}  # statement -> row maker

    def session(self) -> AbstractContextManager[Any]:
        """This thread's connection."""
        return nullcontext(self._connections.get())

    def translate(self, exc: Exception) -> StoreError | None:
        """A locked, full, read-only or unreadable file: DatabaseUnavailableError; any
        other SQLite error: DatabaseError."""
        code = getattr(exc, "sqlite_errorcode", None)
        if isinstance(exc, sqlite3.Error) and code is not None and code & 0xFF in _PASSING:
            return DatabaseUnavailableError(f"the SQLite database is unavailable: "
                                            f"{first_line(exc)}")
        if isinstance(exc, sqlite3.Error):
            return DatabaseError(f"the SQLite database refused the operation: "
                                 f"{first_line(exc)}")
        return None

    def _connect(self) -> sqlite3.Connection:
        _create_private(self.path)
        try:
            # One connection per thread (ThreadConnections); check_same_thread is off only
            # so that close() may close every thread's connection from one thread.
            conn = sqlite3.connect(
                self.path,
                timeout=self._busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            _write_ahead_log(conn, time.monotonic() + self._busy_timeout)
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            raise DatabaseUnavailableError(
                f"cannot open SQLite database {self.path}: {exc}"
            ) from exc
        return conn

    @contextmanager
    def transaction(self, conn: Any, *, write: bool) -> Iterator[Tx]:
        """``BEGIN IMMEDIATE`` behind the write locks (``write``), else ``BEGIN``."""
        connection: sqlite3.Connection = conn

        types = self._row_types

        def run(sql: str, params: Sequence[object]) -> NamedRows:
            return NamedRows(connection.execute(sql, tuple(params)), sql, types)

        guard: AbstractContextManager[float] = self._writer() if write else nullcontext(0.0)
        with guard as waited:
            if write:
                self._begin_write(connection, waited)
            else:
                conn.execute("BEGIN")
            try:
                yield Tx(run, self.dialect)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # (SQLite ends some failed transactions itself)
                    conn.execute("ROLLBACK")
                raise

    def _begin_write(self, conn: sqlite3.Connection, waited: float) -> None:
        """``BEGIN IMMEDIATE`` within what is left of the busy budget after ``waited``
        seconds for the advisory lock. Once a write found the lock held by another program
        for the whole budget, the next writes only look (:data:`LOCKED_OUT_WAIT`) until
        one gets it: a worker blocks once per such episode, not once per request."""
        budget = LOCKED_OUT_WAIT if self._locked_out else self._busy_timeout
        left = budget - waited
        try:
            if left < self._busy_timeout - 0.001:
                conn.execute(f"PRAGMA busy_timeout = {max(0, int(left * 1000))}")
                try:
                    conn.execute("BEGIN IMMEDIATE")
                finally:
                    conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            else:
                conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_BUSY:
                self._locked_out = True
            raise
        self._locked_out = False

    @contextmanager
    def _writer(self) -> Iterator[float]:
        """The in-process write lock, then the cross-process advisory lock (blocking in
        the kernel, without the GIL); yields the seconds spent waiting for them (0.0 when
        both were free)."""
        waited = 0.0
        if not self._write_lock.acquire(blocking=False):
            started = time.monotonic()
            self._write_lock.acquire()
            waited = time.monotonic() - started
        try:
            fd = self._lock_descriptor()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                started = time.monotonic()
                fcntl.flock(fd, fcntl.LOCK_EX)
                waited += time.monotonic() - started
            try:
                yield waited
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            self._write_lock.release()

    def _lock_descriptor(self) -> int:
        """This process's descriptor of the lock file (a forked child opens its own: a
        descriptor shared across a fork would share the lock, not exclude). Called under
        ``_write_lock``."""
        pid = os.getpid()
        held = self._lock_fd
        if held is not None and held[0] == pid:
            return held[1]
        fd = _open_lock_file(self._lock_path)
        self._lock_fd = (pid, fd)
        return fd

    def close(self) -> None:
        """Close this process's connections and its descriptor of the lock file."""
        self._connections.close()
        with self._write_lock:
            held = self._lock_fd
            self._lock_fd = None
            if held is not None and held[0] == os.getpid():
                os.close(held[1])

    def statements(self, conn: Any) -> AbstractContextManager[Tx]:
        """One write transaction (SQLite has no cheaper way to commit each alone)."""
        return self.transaction(conn, write=True)


class SqliteStore(SqlStore):
    """The bookkeeping in one SQLite file. No durability to relax: in WAL mode with
    ``synchronous = NORMAL`` no commit waits for the disk; ``BEGIN IMMEDIATE`` already
    serializes migrations."""

    CONNECTIONS: type[SqliteConnections] = SqliteConnections

    def __init__(
        self,
        path: str | Path,
        *,
        url: str | None = None,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> None:
        self.path = Path(path)
        super().__init__(Database(self.CONNECTIONS(self.path, busy_timeout)),
                         url=url if url is not None else f"sqlite:///{self.path}")


#: Statements whose row type a store remembers (then it starts again).
MAX_ROW_TYPES = 1024


class NamedRows:
    """A cursor whose rows are named tuples, their type made once per statement (a row
    factory would read the column names again for every row)."""

    __slots__ = ("_cursor", "_sql", "_types")

    def __init__(self, cursor: sqlite3.Cursor, sql: str,
                 types: dict[str, Callable[[Any], Any]]) -> None:
        self._cursor = cursor
        self._sql = sql
        self._types = types

    @property
    def rowcount(self) -> int:
        """The number of rows the statement changed."""
        return self._cursor.rowcount

    def fetchall(self) -> list[Any]:
        """Every row, as named tuples."""
        rows = self._cursor.fetchall()
        if not rows:
            return rows
        make = self._types.get(self._sql)
        if make is None:
            if len(self._types) >= MAX_ROW_TYPES:
                self._types.clear()
            names = [column[0] for column in self._cursor.description]
            row_type: Any = namedtuple("Row", names, rename=True)  # type: ignore[misc]
            make = self._types[self._sql] = row_type._make
        return list(map(make, rows))


def _write_ahead_log(conn: sqlite3.Connection, deadline: float) -> None:
    """Put the database in WAL mode (kept in the file: the first connection to a new
    database sets it). While another connection is switching a new database's mode,
    SQLite answers "database is locked" at once, without its busy handler (seen with
    worker processes opening a brand-new file together): try again until ``deadline``
    (``time.monotonic``)."""
    pause = 0.001
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_BUSY
            if not busy or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _create_private(path: Path) -> None:
    """Create the database file, if missing, readable and writable by its owner only
    (SQLite would create it with the process's umask, usually world-readable)."""
    if path.exists():
        return
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))
    except (FileNotFoundError, NotADirectoryError) as exc:
        why = "does not exist" if isinstance(exc, FileNotFoundError) else "is not a folder"
        raise DatabaseMissingError(
            f"cannot create SQLite database {path}: its folder {path.parent} {why}"
        ) from exc
    except OSError as exc:
        raise DatabaseUnavailableError(
            f"cannot open SQLite database {path}: {exc.strerror}"
        ) from exc


def _open_lock_file(path: Path) -> int:
    """A descriptor of the advisory write-lock file (created if missing)."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise DatabaseUnavailableError(f"cannot open SQLite lock file {path}: {exc}") from exc
