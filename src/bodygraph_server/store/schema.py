"""The schema of the SQL stores: the numbered migration files of each backend
(``migrations/<backend>/NNNN_name.sql``), applied in order when a store opens."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from functools import cache
from importlib import resources

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.store.connections import Tx


def migrate(tx: Tx, files: Sequence[tuple[int, str]]) -> None:
    """Apply the migration ``files`` (numbered scripts, in order) newer than the schema's
    version, within ``tx`` (a write transaction)."""
    tx.lock_migrations()
    tx.execute(
        "CREATE TABLE IF NOT EXISTS schema_version "
        "(version INTEGER PRIMARY KEY, applied_us BIGINT NOT NULL)"
    )
    current = version(tx)
    for number, script in files:
        if number <= current:
            continue
        for statement in iter_statements(script):
            tx.execute(statement)
        tx.execute(
            "INSERT INTO schema_version (version, applied_us) VALUES (?, ?)",
            (number, to_micros(datetime.now(UTC))),
        )


@cache
def read_migrations(backend: str) -> tuple[tuple[int, str], ...]:
    """The numbered migration files of ``backend``, in order, read once per process: they
    are part of the installed package, and reading them again on every open of a store
    (every worker start, every test's database) cost more than the migration check
    itself once the schema is current."""
    folder = resources.files("bodygraph_server.store").joinpath("migrations", backend)
    found: list[tuple[int, str]] = []
    for entry in folder.iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), entry.read_text(encoding="utf-8")))
    return tuple(sorted(found))


def version(tx: Tx) -> int:
    """The highest migration applied."""
    row = tx.one("SELECT MAX(version) AS version FROM schema_version")
    return 0 if row is None or row.version is None else int(row.version)


def iter_statements(script: str) -> Iterator[str]:
    """The statements of a migration file (split at ``;`` ending a line outside a
    ``$$``-quoted function body; comment lines kept out)."""
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    buffer: list[str] = []
    quoted = False
    for line in lines:
        buffer.append(line)
        if line.count("$$") % 2:
            quoted = not quoted
        if not quoted and line.rstrip().endswith(";"):
            statement = "\n".join(buffer).strip().rstrip(";").strip()
            if statement:
                yield statement
            buffer = []
    tail = "\n".join(buffer).strip()
    if tail:
        yield tail
