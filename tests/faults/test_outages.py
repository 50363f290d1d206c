"""Fault injection against a real uvicorn under a bounded load from 127.0.0.1.

PostgreSQL (a database of the test's own, ``bgfault_<random>``, dropped afterwards): the
service's backends are terminated mid-load, then connections to the database are refused
for a moment. SQLite: another process holds the write lock for a moment. Either way:
refused requests are 503 SERVICE_UNAVAILABLE with Retry-After, never 500; nothing is
charged without a 200 answer (the ledger balances against the 200s exactly); /health says
503 meanwhile (the database down, or refusing writes); full service returns within 5 s of
the database.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import httpx
import pytest
from server.support import LiveServer, tls_context

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store import open_store

if TYPE_CHECKING:
    import psycopg

pytestmark = [pytest.mark.slow,  # its module starts first under xdist (tests/conftest.py)
              pytest.mark.faults]

PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
BODY = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
CLIENTS = 6
#: Pause of each client between requests: at most ~CLIENTS / PAUSE requests per second.
PAUSE = 0.01
KEYS = 16


@dataclass
class Outcome:
    """One answer: when it arrived (monotonic), its status, the key's index."""

    at: float
    status: int
    key: int
    retry_after: str | None


@dataclass
class Load:
    """A bounded closed-loop load of CLIENTS threads, each cycling through the keys."""

    base_url: str
    keys: list[str]
    outcomes: list[Outcome] = field(default_factory=list)
    health: list[tuple[float, int]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _client(self, index: int) -> None:
        n = index
        with httpx.Client(base_url=self.base_url, timeout=10, verify=tls_context()) as http:
            while not self._stop.is_set():
                key = n % len(self.keys)
                n += CLIENTS
                response = http.post("/v2/charts/coordinates", json=BODY,
                                     headers={"Authorization": f"Bearer {self.keys[key]}"})
                with self._lock:
                    self.outcomes.append(Outcome(time.monotonic(), response.status_code, key,
                                                 response.headers.get("retry-after")))
                time.sleep(PAUSE)

    def _prober(self) -> None:
        with httpx.Client(base_url=self.base_url, timeout=10, verify=tls_context()) as http:
            while not self._stop.is_set():
                self.health.append((time.monotonic(), http.get("/health").status_code))
                time.sleep(0.1)

    @contextmanager
    def running(self) -> Iterator[Load]:
        threads = [threading.Thread(target=self._client, args=(i,)) for i in range(CLIENTS)]
        threads.append(threading.Thread(target=self._prober))
        for thread in threads:
            thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            for thread in threads:
                thread.join(15)

    def health_says(self, status: int, since: float, timeout: float) -> bool:
        """Wait until a /health answer that arrived after ``since`` has ``status``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(at > since and got == status for at, got in list(self.health)):
                return True
            time.sleep(0.02)
        return False

    def wait_for(self, predicate: Callable[[list[Outcome]], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if predicate(list(self.outcomes)):
                    return True
            time.sleep(0.02)
        return False


def _served_since(start: float, span: float) -> Callable[[list[Outcome]], bool]:
    """Answers after ``start`` include ``span`` seconds of nothing but 200s."""

    def check(outcomes: list[Outcome]) -> bool:
        later = [o for o in outcomes if o.at > start]
        if not later:
            return False
        last_failure = max((o.at for o in later if o.status != 200), default=start)
        return later[-1].at - last_failure >= span

    return check


def _check_books(book: Bookkeeper, accounts: list[int], load: Load, back: float) -> None:
    statuses = {o.status for o in load.outcomes}
    assert 500 not in statuses, "an outage must never be a 500"
    assert statuses <= {200, 503}, statuses
    refused = [o for o in load.outcomes if o.status == 503]
    assert refused, "the fault produced no 503"
    assert all(o.retry_after and o.retry_after.isdigit() for o in refused)
    # Full service again within 5 s of the database's return.
    after = sorted((o.at - back, o.status) for o in load.outcomes if o.at > back)
    recovered = max((at for at, status in after if status != 200), default=0.0)
    assert recovered < 5.0, after
    assert after[-1][0] - recovered >= 1.0, after
    # The server is stopped: a reservation still pending lost its call; release it as the
    # sweep would, then every charge must be a 200 answer.
    now = datetime.now(UTC)
    book.store.release_stale(now + timedelta(seconds=1), now)
    for index, account_id in enumerate(accounts):
        answered = sum(1 for o in load.outcomes if o.key == index and o.status == 200)
        usage = book.usage(account_id)[-1]
        assert (usage.calls, usage.credits, usage.pending) == (answered, answered, 0)
        assert book.audit(account_id).balanced


def _deployment(url: str, tmp: Path) -> tuple[Bookkeeper, list[int], list[str], LiveServer]:
    book = Bookkeeper(open_store(url))
    issued = [book.create_account("developer") for _ in range(KEYS)]
    server = LiveServer({"BODYGRAPH_DATABASE_URL": url, "BODYGRAPH_WARM_UP": "1",
                         "BODYGRAPH_ACCESS_LOG": "0"}, log=tmp / "server.log")
    return book, [i.account.id for i in issued], [i.api_key for i in issued], server


@pytest.fixture
def fault_db() -> Iterator[tuple[str, str]]:
    """A database of this test's own (name, URL), dropped afterwards."""
    import psycopg

    name = "bgfault_" + secrets.token_hex(5)
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield name, f"postgresql://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _terminate(admin: psycopg.Connection[object], name: str) -> int:
    rows = admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = %s AND pid <> pg_backend_pid()", (name,)
    ).fetchall()
    return len(rows)


async def _blocking(call: Callable[..., object], *args: object) -> object:
    return call(*args)


async def _admits_after_terminations(name: str, url: str) -> None:
    import psycopg

    from bodygraph_server.billing.accounts import Principal
    from bodygraph_server.billing.request_path import RequestBook
    from bodygraph_server.store.postgres import PostgresStore

    book = Bookkeeper.open(url)
    try:
        key = book.create_account("developer").api_key
        store = book.store
        assert isinstance(store, PostgresStore)
        calls = store.async_request_path()
        await calls.open()
        try:
            requests = RequestBook(book, _blocking, calls)  # type: ignore[arg-type]
            for _ in range(20):  # concurrent admissions until the pool holds several
                async with anyio.create_task_group() as group:
                    for _ in range(12):
                        group.start_soon(requests.admit, key)
                if calls.pool_size() >= 3:
                    break
            assert calls.pool_size() >= 3
            with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
                assert _terminate(admin, name) >= 3  # the database itself stays up
                for _ in range(100):  # until the backends have ended
                    if not admin.execute("SELECT 1 FROM pg_stat_activity WHERE datname = %s "
                                         "AND pid <> pg_backend_pid()", (name,)).fetchall():
                        break
                    await anyio.sleep(0.02)
            for _ in range(5):  # each may draw dead connections first: none may fail
                principal, decision = await requests.admit(key)
                assert isinstance(principal, Principal) and decision is not None
        finally:
            await calls.close()
    finally:
        book.close()


@pytest.mark.postgres
def test_dead_connections_on_the_event_loop_are_replaced_at_once(
    fault_db: tuple[str, str]
) -> None:
    """Every connection of the request path's pool terminated, the database up: the next
    requests are served (the pool's own check would wait a second from the second dead
    connection on, and then fail the request as an outage)."""
    anyio.run(_admits_after_terminations, *fault_db)


@pytest.mark.postgres
def test_postgres_backends_terminated_and_connections_refused(
    fault_db: tuple[str, str], tmp_path: Path
) -> None:
    import psycopg

    name, url = fault_db
    book, accounts, keys, server = _deployment(url, tmp_path)
    try:
        server.wait_ready()
        load = Load(server.base_url, keys)
        with load.running(), psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            assert load.wait_for(lambda o: sum(x.status == 200 for x in o) >= 20, 10)
            assert _terminate(admin, name) > 0  # mid-load: every backend of the service
            terminated = time.monotonic()
            # The load runs on into the dead connections (for at most 0.5 s, until the
            # service answers again), then connections are refused.
            load.wait_for(lambda o: any(x.at > terminated and x.status == 200 for x in o), 0.5)
            admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
            refused = time.monotonic()
            _terminate(admin, name)
            assert load.wait_for(lambda o: sum(x.status == 503 for x in o) >= 5, 5)
            assert load.health_says(503, refused, 5), "/health never said down"
            admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
            back = time.monotonic()
            assert load.wait_for(_served_since(back, 1.0), 6), "no full service after 5 s"
        server.stop()
        _check_books(book, accounts, load, back)
        assert "Traceback" not in server.log_text()
    finally:
        server.stop()
        book.close()


def test_sqlite_write_lock_held_by_another_process(tmp_path: Path) -> None:
    path = tmp_path / "book.sqlite3"
    url = f"sqlite:///{path}"
    book, accounts, keys, server = _deployment(url, tmp_path)
    try:
        server.wait_ready()
        load = Load(server.base_url, keys)
        with load.running():
            assert load.wait_for(lambda o: sum(x.status == 200 for x in o) >= 20, 10)
            other = sqlite3.connect(path, isolation_level=None)
            try:
                other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
                locked = time.monotonic()
                assert load.wait_for(lambda o: sum(x.status == 503 for x in o) >= 5, 5)
                # The worker is not frozen: /health answers at once (reads need no lock).
                started = time.monotonic()
                live = httpx.get(server.base_url + "/health/live", timeout=5,
                                 verify=tls_context())
                assert live.status_code == 200
                assert time.monotonic() - started < 1.0
                time.sleep(max(0.0, locked + 1.0 - time.monotonic()))
            finally:
                other.execute("ROLLBACK")
                other.close()
            back = time.monotonic()
            assert load.wait_for(_served_since(back, 1.0), 6), "no full service after 5 s"
        during = [o for o in load.outcomes if locked < o.at < back]
        assert during and all(o.status in (200, 503) for o in during)
        server.stop()
        # /health checks a write, which the lock refuses: the service could not charge,
        # so it was not ready meanwhile; it is again once the lock is gone.
        assert any(status == 503 and locked < at < back for at, status in load.health)
        assert load.health[-1][1] == 200
        _check_books(book, accounts, load, back)
    finally:
        server.stop()
        book.close()
