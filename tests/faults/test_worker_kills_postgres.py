"""The worker kills of :mod:`tests.faults.test_worker_kills` on PostgreSQL, a module of its
own so that the test run deals it to another worker than the SQLite ones."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from tests.faults.test_worker_kills import PG_ADMIN_URL, _run

pytestmark = [pytest.mark.slow, pytest.mark.faults, pytest.mark.timeout(240)]


@pytest.mark.postgres
def test_postgres_workers_killed(tmp_path: Path) -> None:
    import psycopg

    name = "bgkill_" + secrets.token_hex(5)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        _run(f"postgresql://postgres@127.0.0.1:5432/{name}", tmp_path)
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
