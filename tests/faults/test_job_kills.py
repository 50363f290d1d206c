"""A job survives its workers: ``kill -9`` of the uvicorn worker computing it (2 workers,
SQLite and PostgreSQL, a database of the test's own), and a restart of the whole service
mid-job. The job is resumed from its last committed chunk and ends with every row once,
in input order, and one charge per successful row, never two."""

from __future__ import annotations

import json
import os
import secrets
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from server.support import LiveServer

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store.jobs import JobRecord, JobStatus, SqlJobs

from .test_worker_kills import PG_ADMIN_URL, _all_serving, _workers

pytestmark = [pytest.mark.slow, pytest.mark.faults, pytest.mark.timeout(400)]

CHUNK_ROWS = 200
ROWS = 6_000  # 30 chunks
BAD = {"birthdate": "2001-02-29", "birthtime": "10:00", "lat": 0, "lng": 0}


def _births() -> bytes:
    births = [{"birthdate": f"19{40 + i % 60:02d}-{1 + i % 12:02d}-{1 + i % 28:02d}",
               "birthtime": f"{i % 24:02d}:{(11 * i) % 60:02d}",
               "lat": round(-50 + (i * 7.3) % 100, 3), "lng": round(-170 + (i * 13.7) % 340, 3)}
              for i in range(ROWS)]
    for i in range(0, ROWS, 500):
        births[i] = BAD
    return "".join(json.dumps(birth) + "\n" for birth in births).encode()


def _env(url: str) -> dict[str, str]:
    return {"BODYGRAPH_DATABASE_URL": url, "BODYGRAPH_WARM_UP": "0",
            "BODYGRAPH_ACCESS_LOG": "0", "BODYGRAPH_GEOCODER": "offline",
            "BODYGRAPH_JOB_CHUNK_ROWS": str(CHUNK_ROWS), "BODYGRAPH_JOB_LEASE": "3",
            "BODYGRAPH_RENDER_KEYS": ""}


def _status(base_url: str, key: str, job_id: str) -> dict[str, Any]:
    response = httpx.get(f"{base_url}/v2/jobs/{job_id}",
                         headers={"Authorization": f"Bearer {key}"}, timeout=30)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def _jobs(book: Bookkeeper) -> SqlJobs:
    return SqlJobs(book.store, retention=timedelta(days=1), lease=timedelta(seconds=3))


def _until(book: Bookkeeper, job_id: str, done: int, timeout: float) -> JobRecord:
    """The job as stored once ``done`` rows are done or it ended (read from the database:
    polling over HTTP would meet the rate limit)."""
    deadline = time.monotonic() + timeout
    while True:
        job = _jobs(book).get(job_id)
        assert job is not None
        if job.done >= done or job.status.final:
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.1)


def _check(book: Bookkeeper, base_url: str, key: str, account: int, balance: int,
           job_id: str) -> None:
    """The job ended with every row once, in order, and one charge per good row."""
    _until(book, job_id, ROWS + 1, 300)
    final = _status(base_url, key, job_id)
    assert final["status"] == "succeeded", final
    bad = len(range(0, ROWS, 500))
    assert (final["done"], final["failed"]) == (ROWS, bad)
    result = httpx.get(f"{base_url}/v2/jobs/{job_id}/result",
                       headers={"Authorization": f"Bearer {key}"}, timeout=60)
    rows = [json.loads(line)["row"] for line in result.text.splitlines()]
    assert rows == list(range(1, ROWS + 1))
    usage = book.usage(account)[-1]
    assert (usage.calls, usage.credits, usage.pending) == (ROWS - bad, ROWS - bad, 0)
    assert book.account(account).balance == balance - (ROWS - bad)
    assert book.audit(account).balanced


def _submit(base_url: str, key: str) -> str:
    response = httpx.post(f"{base_url}/v2/jobs", content=_births(), timeout=60,
                          headers={"Authorization": f"Bearer {key}",
                                   "Content-Type": "application/x-ndjson"})
    assert response.status_code == 202, response.text
    return str(response.json()["data"]["jobId"])


def _kill_run(url: str, tmp: Path) -> None:
    book = Bookkeeper.open(url)
    try:
        issued = book.create_account("developer")
        account, key = issued.account.id, issued.api_key
        server = LiveServer(_env(url), workers=2, log=tmp / "server.log")
        try:
            server.wait_ready()
            job_id = _submit(server.base_url, key)
            job = _until(book, job_id, CHUNK_ROWS * 5, 120)
            assert job.status is JobStatus.RUNNING, job
            deadline = time.monotonic() + 30
            while True:
                workers = _workers(server)
                if len(workers) == 2 and _all_serving(server, workers):
                    break
                assert time.monotonic() < deadline, "the workers did not start"
                time.sleep(0.05)
            for worker in workers:  # both: the one computing is among them
                os.kill(worker.pid, signal.SIGKILL)
            _check(book, server.base_url, key, account, issued.account.balance, job_id)
        finally:
            server.stop()
    finally:
        book.close()


def test_sqlite_job_outlives_killed_workers(tmp_path: Path) -> None:
    _kill_run(f"sqlite:///{tmp_path / 'book.sqlite3'}", tmp_path)


@contextmanager
def _pg_database() -> Iterator[str]:
    import psycopg

    name = "bgjobs_" + secrets.token_hex(5)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_a_restarted_service_resumes_the_job(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'book.sqlite3'}"
    book = Bookkeeper.open(url)
    try:
        issued = book.create_account("developer")
        account, key = issued.account.id, issued.api_key
        first = LiveServer(_env(url), log=tmp_path / "first.log")
        try:
            first.wait_ready()
            job_id = _submit(first.base_url, key)
            job = _until(book, job_id, CHUNK_ROWS * 4, 120)
            assert job.status is JobStatus.RUNNING, job
        finally:
            first.stop()
        stopped = _jobs(book).get(job_id)
        assert stopped is not None and 0 < stopped.done < ROWS
        done = stopped.done
        second = LiveServer(_env(url), log=tmp_path / "second.log")
        try:
            second.wait_ready()
            assert _status(second.base_url, key, job_id)["done"] >= done
            _check(book, second.base_url, key, account, issued.account.balance, job_id)
        finally:
            second.stop()
        assert "Traceback" not in first.log_text() + second.log_text()
    finally:
        book.close()
