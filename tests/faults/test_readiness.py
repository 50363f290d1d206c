"""``/health`` says whether the service can charge, not only whether the database answers:
with every write failing (a SQLite service that may write no byte to its files, as on a
full disk; a PostgreSQL database switched to read-only transactions) it is 503
``"database": "read-only"``, chart requests are 503 (never 500), and both are back to 200
once writes work again."""

from __future__ import annotations

import resource
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from server.support import LiveServer, json_headers, tls_context

from bodygraph_server.billing.accounts import Bookkeeper

pytestmark = pytest.mark.faults

PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
BODY = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}


def _health_becomes(http: httpx.Client, status: int, timeout: float = 10.0) -> httpx.Response:
    """The first /health answer with ``status`` (the last answer after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        response = http.get("/health")
        if response.status_code == status or time.monotonic() > deadline:
            return response
        time.sleep(0.1)


def _serve(url: str, tmp: Path) -> tuple[Bookkeeper, str, LiveServer]:
    book = Bookkeeper.open(url)
    key = book.create_account("developer").api_key
    server = LiveServer({"BODYGRAPH_DATABASE_URL": url, "BODYGRAPH_WARM_UP": "0",
                         "BODYGRAPH_ACCESS_LOG": "0"}, log=tmp / "server.log")
    return book, key, server


def _check_refusals(server: LiveServer, key: str) -> None:
    with httpx.Client(base_url=server.base_url, timeout=10, verify=tls_context()) as http:
        down = _health_becomes(http, 503)
        assert down.status_code == 503, down.text
        assert down.json() == {"status": "unavailable", "database": "read-only"}
        assert down.headers["retry-after"].isdigit()
        # the answer is one the published document states
        documented = http.get("/openapi.json").json()["paths"]["/health"]["get"]
        schema = documented["responses"]["503"]["content"]["application/json"]["schema"]
        assert down.json()["database"] in schema["properties"]["database"]["enum"]
        assert http.get("/health/live").status_code == 200
        chart = http.post("/v2/charts/coordinates", json=BODY, headers=json_headers(key))
        assert chart.status_code == 503, chart.text
        assert chart.json()["errorCode"] == "SERVICE_UNAVAILABLE"


def _check_back(server: LiveServer, key: str) -> None:
    with httpx.Client(base_url=server.base_url, timeout=10, verify=tls_context()) as http:
        up = _health_becomes(http, 200)
        assert up.json() == {"status": "ok", "database": "up"}
        chart = http.post("/v2/charts/coordinates", json=BODY, headers=json_headers(key))
        assert chart.status_code == 200, chart.text


@contextmanager
def _disk_full(pid: int) -> Iterator[None]:
    """Process ``pid`` may write no byte to any file (its ``RLIMIT_FSIZE`` set to 0, as
    on a full disk: every write fails, ``EFBIG``), until the block ends. Files it reads,
    and the memory-mapped SQLite index (``-shm``), are unaffected."""
    before = resource.prlimit(pid, resource.RLIMIT_FSIZE)
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (0, before[1]))
    try:
        yield
    finally:
        resource.prlimit(pid, resource.RLIMIT_FSIZE, before)


def test_sqlite_disk_full(tmp_path: Path) -> None:
    path = tmp_path / "book.sqlite3"
    book, key, server = _serve(f"sqlite:///{path}", tmp_path)
    try:
        server.wait_ready()
        _check_back(server, key)
        with _disk_full(server.pid):
            _check_refusals(server, key)
        _check_back(server, key)
    finally:
        server.stop()
        book.close()


@pytest.mark.postgres
def test_postgres_database_read_only(tmp_path: Path) -> None:
    import psycopg

    name = "bgready_" + secrets.token_hex(5)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    book, key, server = _serve(f"postgresql://postgres@127.0.0.1:5432/{name}", tmp_path)
    try:
        server.wait_ready()
        _check_back(server, key)
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            # Every session started from now on is read-only (as on a standby); the
            # service's sessions are ended, so its new ones are too.
            admin.execute(f"ALTER DATABASE {name} SET default_transaction_read_only = on")
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = %s AND pid <> pg_backend_pid()", (name,))
            _check_refusals(server, key)
            admin.execute(f"ALTER DATABASE {name} RESET default_transaction_read_only")
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = %s AND pid <> pg_backend_pid()", (name,))
        _check_back(server, key)
        assert "Traceback" not in server.log_text()
    finally:
        server.stop()
        book.close()
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
