"""Fixtures of the bookkeeping tests: the same tests run on SQLite and PostgreSQL.

PostgreSQL: 127.0.0.1:5432, user postgres, database ``test``, in schemas
``bgtest_<random>`` dropped afterwards, so parallel runs never clash. ``db_url`` (and so
``book``) is a schema migrated once per session (per xdist worker) and emptied before each
test (every row deleted, every sequence restarted: the state of a freshly migrated
database, without its ~0.3 s of DDL per test); ``fresh_db_url`` and ``pg_url`` are new,
empty schemas for the tests of migrating a database.
SQLite: ``db_url`` is a new file's URL; ``book`` writes into it a database migrated once
per session (server/databases.py), the state of a freshly migrated one.
Redis (rate-limit backend): 127.0.0.1:6379, keys under a random prefix, deleted after.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote

import httpx
import pytest
from server.databases import DatabaseFiles, write_database
from server.support import app_client

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.policy.clock import ManualClock

PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379/0"
#: A fixed start instant for injected clocks (a 31st, to exercise month-end clamping).
START = datetime(2026, 1, 31, 9, 30, tzinfo=UTC)


def pg_schema_url(schema: str) -> str:
    """The test database URL with ``search_path`` set to ``schema``."""
    return f"{PG_ADMIN_URL}?options={quote(f'-csearch_path={schema}')}"


def _new_pg_schema() -> str:
    import psycopg

    schema = "bgtest_" + secrets.token_hex(6)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return schema


def _drop_pg_schema(schema: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL pointing at a fresh schema."""
    schema = _new_pg_schema()
    try:
        yield pg_schema_url(schema)
    finally:
        _drop_pg_schema(schema)


@pytest.fixture
def sqlite_url(request: pytest.FixtureRequest, database_files: DatabaseFiles) -> str:
    """A SQLite URL for a fresh file (four slashes: absolute path)."""
    return database_files.url(request.node.name)


@dataclass(frozen=True)
class MigratedSchema:
    """A schema migrated once for the session, and the statements that empty it."""

    name: str
    emptying: str


@pytest.fixture(scope="session")
def _pg_migrated() -> Iterator[MigratedSchema]:
    """A schema migrated once for the session (the xdist worker). Its tables and
    sequences are those of the migrations (no test changes the schema of ``db_url``), so
    the statements that empty it are worked out once from the catalog."""
    schema = _new_pg_schema()
    try:
        Bookkeeper.open(pg_schema_url(schema)).close()
        yield MigratedSchema(schema, _emptying_statements(schema))
    finally:
        _drop_pg_schema(schema)


def _empty_pg_schema(schema: MigratedSchema) -> None:
    """Delete every row but the schema version's and restart every sequence, in one
    round trip."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute("SET lock_timeout = '20s'")
        conn.execute(schema.emptying)


def _emptying_statements(schema: str) -> str:
    """The statements that delete every row of ``schema`` but the schema version's
    (tables referencing others first) and restart every sequence."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        tables = {
            str(row[0])
            for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s", (schema,)
            )
        } - {"schema_version"}
        references = conn.execute(
            "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text "
            "FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
            "WHERE c.contype = 'f' AND n.nspname = %s",
            (schema,),
        ).fetchall()
        parents = {(str(child).split(".")[-1], str(parent).split(".")[-1])
                   for child, parent in references}
        order: list[str] = []
        while tables:
            leaves = sorted(t for t in tables if not any(p == t and c in tables and c != t
                                                         for c, p in parents))
            assert leaves, f"cyclic foreign keys in {schema}"
            order.extend(leaves)
            tables -= set(leaves)
        sequences = [str(row[0]) for row in conn.execute(
            "SELECT sequencename FROM pg_sequences WHERE schemaname = %s", (schema,))]
    return "; ".join(
        [f"DELETE FROM {schema}.{table}" for table in order]
        + [f"SELECT setval('{schema}.{seq}', 1, false)" for seq in sequences]
    )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def fresh_db_url(request: pytest.FixtureRequest,
                 database_files: DatabaseFiles) -> Iterator[str]:
    """A new, empty database (never migrated), on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        yield database_files.url(request.node.name)
        return
    schema = _new_pg_schema()
    try:
        yield pg_schema_url(schema)
    finally:
        _drop_pg_schema(schema)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, database_files: DatabaseFiles) -> str:
    """The same test on SQLite (a new file) and on PostgreSQL (the session's migrated
    schema, emptied)."""
    if request.param == "sqlite":
        return database_files.url(request.node.name)
    schema: MigratedSchema = request.getfixturevalue("_pg_migrated")
    _empty_pg_schema(schema)
    return pg_schema_url(schema.name)


@pytest.fixture
def clock() -> ManualClock:
    """An injected clock starting at :data:`START`."""
    return ManualClock(START)


@pytest.fixture
def book(request: pytest.FixtureRequest, db_url: str, clock: ManualClock) -> Iterator[Bookkeeper]:
    """A bookkeeper over a fresh database, with injected time: on SQLite a new file
    holding a freshly migrated database, on PostgreSQL the session's schema, emptied."""
    if db_url.startswith("sqlite:"):
        write_database(db_url, request.getfixturevalue("migrated_database"))
    keeper = Bookkeeper.open(db_url, clock=clock)
    try:
        yield keeper
    finally:
        keeper.close()


#: The time limit of the ``hurried`` app: a duplicate of a request still running waits
#: this long for the first one before it is refused with 409.
HURRIED_TIMEOUT = 0.2


@pytest.fixture
async def client(db_url: str, book: Bookkeeper) -> AsyncIterator[httpx.AsyncClient]:
    """The service in process on ``book`` (requests get 2 s)."""
    async with app_client(db_url, book, 2.0) as c:
        yield c


@pytest.fixture
async def hurried(db_url: str, book: Bookkeeper) -> AsyncIterator[httpx.AsyncClient]:
    """Another app on the same bookkeeping with a short time limit (HURRIED_TIMEOUT)."""
    async with app_client(db_url, book, HURRIED_TIMEOUT) as c:
        yield c
