"""The SQLite backend (stdlib :mod:`sqlite3`, WAL mode): the default store.

Every write transaction is ``BEGIN IMMEDIATE``: it takes SQLite's single write lock before
reading, so the read-check-update of a charge or a rate-limit hit is atomic across threads
and processes. Readers never block in WAL mode.

Writers of one store object (the threads of one process) first queue on an in-process
lock, then on an advisory ``flock`` of a sidecar file (``<database>-writelock``) shared by
every store object and process that opens the database through this class: the kernel
wakes the next writer as soon as the lock is free, where SQLite's busy handler sleeps
1, 2, 5, 10 ... ms between attempts (with two busy worker processes those sleeps, not the
work, bounded the service's throughput). SQLite's own lock still decides: a writer that
does not take the advisory lock (another program) is waited for up to ``busy_timeout``
seconds as before, so the advisory lock only changes who waits how, never what is safe.

Durability: WAL with ``synchronous = NORMAL``: a commit is atomic and survives a crash
of the process; a power loss may roll back the last transactions before the last
checkpoint's sync, never corrupt the database (SQLite's documented guarantee for WAL).
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from bodygraph_server.store.connections import Tx
from bodygraph_server.store.errors import DatabaseUnavailableError
from bodygraph_server.store.sql import SqlStore


class SqliteStore(SqlStore):
    """The bookkeeping in one SQLite file."""

    MIGRATIONS = "sqlite"

    def __init__(self, path: str | Path, *, url: str | None = None, busy_timeout: float = 30.0):
        self.path = Path(path)
        self._busy_timeout = busy_timeout
        self._write_lock = threading.Lock()
        self._lock_path = Path(f"{self.path}-writelock")
        self._lock_fd: tuple[int, int] | None = None  # (pid, descriptor)
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

        guard: AbstractContextManager[object] = self._writer() if write else nullcontext()
        with guard:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield Tx(run)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def _writer(self) -> Iterator[None]:
        """The in-process write lock, then the cross-process advisory lock (blocking in
        the kernel, without the GIL)."""
        with self._write_lock:
            fd = self._lock_descriptor()
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

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
        super().close()
        with self._write_lock:
            held = self._lock_fd
            self._lock_fd = None
            if held is not None and held[0] == os.getpid():
                os.close(held[1])

    def _lock_migrations(self, tx: Tx) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already serializes migrations."""


def _open_lock_file(path: Path) -> int:
    """A descriptor of the advisory write-lock file (created if missing)."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise DatabaseUnavailableError(f"cannot open SQLite lock file {path}: {exc}") from exc
