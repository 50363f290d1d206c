"""The SQLite databases of the service and bookkeeping tests' fixtures.

:class:`DatabaseFiles`: a new file name for each test, in one folder of the test session.
A ``tmp_path`` per test cost about 1.5 ms of CPU, more as the session goes on (pytest
lists its base folder, which holds every test's folder so far, to number the next one),
for a folder that held nothing but the database.

:func:`migrated_sqlite` and :func:`write_database`: a freshly migrated database, made once
per test process and written out for each test that wants one (the ``book`` fixtures).
Migrating a new file (the five migration files' DDL, switching it to WAL, the syncs of
the first commits and of the checkpoint at close) cost about 5-6 ms of CPU and 40 ms of
wall time per test; writing the bytes of a database migrated once and opening it costs
about 1 ms (the store's migration step still runs, and finds nothing to do). Each test
still gets its own file, in the state of a freshly migrated database: the same schema, no
rows but the schema versions (whose ``applied_us`` is the time the template was migrated
rather than the test's).
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

from bodygraph_server.store import open_store, sqlite_path


class DatabaseFiles:
    """Names of new SQLite files (never used before in this session) in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._numbers = itertools.count()

    def url(self, test_name: str) -> str:
        """The URL of a file not created yet, named after the test (for a look after a
        failure) and numbered (parametrized tests share a name)."""
        stem = re.sub(r"[^\w-]+", "_", test_name)[:60]
        return f"sqlite:///{self.folder / f'{stem}-{next(self._numbers)}.sqlite3'}"


def migrated_sqlite(folder: Path) -> bytes:
    """The bytes of a SQLite database migrated (and closed) in ``folder``."""
    path = folder / "template.sqlite3"
    open_store(f"sqlite:///{path}").close()
    # Closing the last connection checkpoints the WAL into the file and deletes it: the
    # file alone is the whole database.
    assert not Path(f"{path}-wal").exists(), "the template's WAL was not checkpointed"
    return path.read_bytes()


def write_database(url: str, template: bytes) -> None:
    """Create the SQLite file of ``url`` (which must not exist yet) holding ``template``,
    readable and writable by its owner only, as the store creates its files."""
    fd = os.open(sqlite_path(url), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(template)
