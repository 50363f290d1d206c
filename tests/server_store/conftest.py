"""Fixtures of the bookkeeping tests: the same tests run on SQLite and PostgreSQL.

PostgreSQL: 127.0.0.1:5432, user postgres, database ``test``; every test gets its own
schema (``bgtest_<random>``), dropped afterwards, so parallel runs never clash.
Redis (rate-limit backend): 127.0.0.1:6379, keys under a random prefix, deleted after.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest

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
    schema = "bgtest_" + secrets.token_hex(6)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return schema


def _drop_pg_schema(schema: str) -> None:
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
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite URL for a fresh file (four slashes: absolute path)."""
    return f"sqlite:///{tmp_path / 'book.sqlite3'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The same test on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'book.sqlite3'}"
        return
    schema = _new_pg_schema()
    try:
        yield pg_schema_url(schema)
    finally:
        _drop_pg_schema(schema)


@pytest.fixture
def clock() -> ManualClock:
    """An injected clock starting at :data:`START`."""
    return ManualClock(START)


@pytest.fixture
def book(db_url: str, clock: ManualClock) -> Iterator[Bookkeeper]:
    """A bookkeeper over a fresh database, with injected time."""
    keeper = Bookkeeper.open(db_url, clock=clock)
    try:
        yield keeper
    finally:
        keeper.close()
