"""Persistence of the bookkeeping: :func:`open_store` opens the SQLite or PostgreSQL store
named by a URL (``sqlite:///path``, ``postgresql://...``), creating or migrating its
schema (docs/accounts.md, "Storage")."""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from bodygraph_server.store.account_usage import AccountOverview, EndpointDay, PeriodFigures
from bodygraph_server.store.base import Store
from bodygraph_server.store.connections import DEFAULT_BUSY_TIMEOUT
from bodygraph_server.store.errors import (
    AccountNotFoundError,
    CommitUncertainError,
    DatabaseError,
    DatabaseMissingError,
    DatabaseUnavailableError,
    DatabaseURLError,
    InvalidOperationError,
    ReservationNotFoundError,
    StoreError,
)
from bodygraph_server.store.records import (
    Account,
    AccountStatus,
    ApiKeyRecord,
    Audit,
    ChargeRefusal,
    IdempotencyClaim,
    LedgerEntry,
    PeriodUsage,
    RateDecision,
    Replay,
    Reservation,
    UsageStatus,
)

__all__ = [
    "DEFAULT_BUSY_TIMEOUT",
    "DEFAULT_DATABASE_URL",
    "ENV_VAR",
    "Account",
    "AccountNotFoundError",
    "AccountOverview",
    "AccountStatus",
    "ApiKeyRecord",
    "Audit",
    "ChargeRefusal",
    "CommitUncertainError",
    "DatabaseError",
    "DatabaseMissingError",
    "DatabaseURLError",
    "DatabaseUnavailableError",
    "EndpointDay",
    "IdempotencyClaim",
    "InvalidOperationError",
    "LedgerEntry",
    "PeriodFigures",
    "PeriodUsage",
    "RateDecision",
    "Replay",
    "Reservation",
    "ReservationNotFoundError",
    "Store",
    "StoreError",
    "UsageStatus",
    "database_url_from_env",
    "open_store",
    "sqlite_path",
]

ENV_VAR = "BODYGRAPH_DATABASE_URL"
DEFAULT_DATABASE_URL = "sqlite:///bodygraph.sqlite3"


def database_url_from_env(environ: Mapping[str, str] | None = None) -> str:
    """``BODYGRAPH_DATABASE_URL`` from ``environ`` (default: the process environment), or
    :data:`DEFAULT_DATABASE_URL` when unset or empty."""
    env = os.environ if environ is None else environ
    return env.get(ENV_VAR, "").strip() or DEFAULT_DATABASE_URL


def sqlite_path(url: str) -> str:
    """The file path of a ``sqlite:///`` URL (three slashes: relative; four: absolute)."""
    parts = urlsplit(url)
    if parts.scheme != "sqlite" or parts.netloc or not parts.path.startswith("/"):
        raise DatabaseURLError(
            f"malformed SQLite URL {url!r} (use sqlite:///relative.db or sqlite:////abs.db)"
        )
    path = parts.path[1:]
    if not path or path == ":memory:":
        raise DatabaseURLError(f"SQLite URL {url!r} must name a file")
    return path


def open_store(url: str, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> Store:
    """Open (creating or migrating) the store at ``url``. ``busy_timeout``: how long a
    SQLite write waits for the lock another program holds (then
    :class:`DatabaseUnavailableError`)."""
    scheme = urlsplit(url).scheme.lower()
    if scheme == "sqlite":
        from bodygraph_server.store.sqlite import SqliteStore

        return SqliteStore(sqlite_path(url), url=url, busy_timeout=busy_timeout)
    if scheme in ("postgresql", "postgres"):
        from bodygraph_server.store.postgres import PostgresStore

        return PostgresStore(url)
    raise DatabaseURLError(
        f"unsupported database URL {url!r} (use sqlite:///path or postgresql://...)"
    )
