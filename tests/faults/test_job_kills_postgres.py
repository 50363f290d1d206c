"""The job kills of :mod:`tests.faults.test_job_kills` on PostgreSQL, a module of its own so
that the test run deals it to another worker than the SQLite ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.test_job_kills import _kill_run, _pg_database

pytestmark = [pytest.mark.slow, pytest.mark.faults, pytest.mark.timeout(400)]


@pytest.mark.postgres
def test_postgres_job_outlives_killed_workers(tmp_path: Path) -> None:
    with _pg_database() as url:
        _kill_run(url, tmp_path)
