"""The store under outages and locks, its housekeeping, and its idempotency keys.

Driver errors leave the store as its own errors (an outage or a lock as
DatabaseUnavailableError, anything else as DatabaseError); PostgreSQL connections ended by
the server are replaced; a SQLite write waits at most the busy timeout for another
program's lock; files are private; rate-limit hits and idempotency keys are pruned.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import stat
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import anyio
import pytest

from bodygraph_server.billing.accounts import Bookkeeper, Principal
from bodygraph_server.billing.idempotency import KEY_LIFETIME, claim_for
from bodygraph_server.billing.opening import open_waiting
from bodygraph_server.billing.sweep import sweep_forever, tidy
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.settings import Settings
from bodygraph_server.store import (
    DatabaseError,
    DatabaseMissingError,
    DatabaseUnavailableError,
    Replay,
    Reservation,
    open_store,
)
from bodygraph_server.store.sql import SqlStore
from bodygraph_server.store.sqlite import SqliteStore

from .conftest import PG_ADMIN_URL

pytestmark = pytest.mark.faults

ENDPOINT = "/v2/charts/coordinates"


def _principal(book: Bookkeeper) -> Principal:
    outcome = book.authenticate(book.create_account("developer").api_key)
    assert isinstance(outcome, Principal)
    return outcome


def _count(store: SqlStore, table: str) -> int:
    with store.read_transaction() as tx:
        row = tx.one(f"SELECT COUNT(*) FROM {table}")
    assert row is not None
    return int(row[0])


# -- SQLite: private files, a bounded wait for another program's lock ---------------------


def test_sqlite_files_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    store = open_store(f"sqlite:///{tmp_path / 'secret.sqlite3'}")
    try:
        store.ping()
        made = [p for p in tmp_path.iterdir() if p.name.startswith("secret.sqlite3")]
        assert {p.name for p in made} >= {"secret.sqlite3", "secret.sqlite3-wal"}
        for path in made:
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    finally:
        store.close()
        os.umask(old)


def test_a_lock_held_by_another_program_is_an_outage_after_the_busy_timeout(
    tmp_path: Path, clock: ManualClock
) -> None:
    path = tmp_path / "locked.sqlite3"
    book = Bookkeeper(SqliteStore(path, busy_timeout=0.1), clock=clock)
    principal = _principal(book)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        with pytest.raises(DatabaseUnavailableError, match="locked"):
            book.reserve(principal, ENDPOINT)
        assert time.monotonic() - started < 0.5
        book.store.ping()  # reads still work
        other.execute("ROLLBACK")
        assert isinstance(book.reserve(principal, ENDPOINT), Reservation)
    finally:
        other.close()
        book.close()


def test_other_driver_errors_are_database_errors(db_url: str) -> None:
    store = open_store(db_url)
    assert isinstance(store, SqlStore)
    try:
        with pytest.raises(DatabaseError), store.read_transaction() as tx:
            tx.rows("SELECT * FROM no_such_table")
        store.ping()  # the connection is still usable
    finally:
        store.close()


# -- PostgreSQL: connections ended by the server are replaced -----------------------------


@pytest.mark.postgres
def test_terminated_backends_are_replaced(pg_url: str, clock: ManualClock) -> None:
    import psycopg

    name = "bgstore_" + secrets.token_hex(4)
    book = Bookkeeper(open_store(f"{pg_url}&application_name={name}"), clock=clock)
    try:
        principal = _principal(book)
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            ended = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = %s", (name,)
            ).fetchall()
            # pg_terminate_backend only signals: wait until the backends have sent their
            # farewell and exited (else a loaded machine races the checks below)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and admin.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (name,)
            ).fetchone() != (0,):
                time.sleep(0.01)
        assert ended
        for _ in range(3):  # every pooled connection was ended: each checkout replaces one
            assert isinstance(book.reserve(principal, ENDPOINT), Reservation)
    finally:
        book.close()


@pytest.mark.postgres
def test_an_unreachable_server_is_an_outage() -> None:
    started = time.monotonic()
    with pytest.raises(DatabaseUnavailableError, match="cannot connect to PostgreSQL") as raised:
        open_store("postgresql://postgres@127.0.0.1:1/none")
    assert not isinstance(raised.value, DatabaseMissingError)  # waited for by serve
    assert time.monotonic() - started < 5


def test_opening_retries_with_a_bounded_backoff(tmp_path: Path) -> None:
    pauses: list[float] = []
    with pytest.raises(DatabaseUnavailableError) as raised:  # a folder: cannot be opened
        open_waiting(f"sqlite:///{tmp_path}", sleep=pauses.append, attempts=7)
    assert not isinstance(raised.value, DatabaseMissingError)
    assert pauses == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]


def test_opening_a_sqlite_file_in_a_missing_folder_stops_at_once(tmp_path: Path) -> None:
    pauses: list[float] = []
    missing = tmp_path / "none" / "x.db"
    with pytest.raises(DatabaseMissingError, match=f"its folder {tmp_path / 'none'} does not"):
        open_waiting(f"sqlite:///{missing}", sleep=pauses.append)
    assert pauses == []
    assert not (tmp_path / "none").exists()
    (tmp_path / "file").write_text("")
    with pytest.raises(DatabaseMissingError, match=f"its folder {tmp_path / 'file'} is not a"):
        open_waiting(f"sqlite:///{tmp_path / 'file' / 'x.db'}", sleep=pauses.append)
    assert pauses == []


@pytest.mark.postgres
def test_opening_a_database_the_server_does_not_know_stops_at_once() -> None:
    pauses: list[float] = []
    name = "bgtest_none_" + secrets.token_hex(6)
    url = PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    with pytest.raises(DatabaseMissingError, match=f'database "{name}" does not exist'):
        open_waiting(url, sleep=pauses.append)
    assert pauses == []


# -- housekeeping ---------------------------------------------------------------------------


def test_rate_hits_of_idle_keys_are_pruned(db_url: str, clock: ManualClock) -> None:
    book = Bookkeeper.open(db_url, clock=clock)
    store = book.store
    assert isinstance(store, SqlStore)
    try:
        for n in range(40):  # 40 keys used once, then idle
            store.rate_limit_hit(f"idle-{n}", clock.now(), 100, 60)
        clock.advance(seconds=61)
        active = _principal(book)
        book.check_rate(active)
        assert _count(store, "rate_hits") == 41
        tidy(book, Settings(database_url=db_url))
        assert _count(store, "rate_hits") == 1  # only the hit inside the window is left
        assert book.check_rate(active).remaining == 98  # the window is unchanged
    finally:
        book.close()


def test_a_failing_housekeeping_round_does_not_stop_the_loop(
    db_url: str, clock: ManualClock
) -> None:
    book = Bookkeeper.open(db_url, clock=clock)
    rounds: list[str] = []

    async def run_blocking(call: Callable[[], int]) -> int:
        rounds.append("round")
        if len(rounds) == 1:
            raise DatabaseUnavailableError("the database is down")
        if len(rounds) == 2:
            raise RuntimeError("a bug")
        return call()

    async def main() -> None:
        with anyio.move_on_after(5):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(sweep_forever, book, Settings(database_url=db_url),
                                 run_blocking, 0.001)
                while len(rounds) < 3:
                    await anyio.sleep(0.001)
                tasks.cancel_scope.cancel()

    try:
        anyio.run(main)
    finally:
        book.close()
    assert len(rounds) >= 3


# -- idempotency keys -----------------------------------------------------------------------


def test_an_idempotency_key_charges_once(db_url: str, clock: ManualClock) -> None:
    book = Bookkeeper.open(db_url, clock=clock)
    try:
        principal = _principal(book)
        balance = book.account(principal.account_id).balance
        claim = claim_for(book, principal, "retry-1", ENDPOINT, b'{"a": 1}')
        first = book.reserve(principal, ENDPOINT, claim)
        assert isinstance(first, Reservation)
        assert book.reserve(principal, ENDPOINT, claim) is Replay.IN_FLIGHT
        other_body = claim_for(book, principal, "retry-1", ENDPOINT, b'{"a": 2}')
        assert book.reserve(principal, ENDPOINT, other_body) is Replay.MISMATCH
        other_path = claim_for(book, principal, "retry-1", "/v2/charts", b'{"a": 1}')
        assert book.reserve(principal, "/v2/charts", other_path) is Replay.MISMATCH
        book.commit(first)
        assert book.reserve(principal, ENDPOINT, claim) is Replay.ANSWERED
        assert book.account(principal.account_id).balance == balance - 1
        # Another account's identical key is another key.
        stranger = _principal(book)
        theirs = claim_for(book, stranger, "retry-1", ENDPOINT, b'{"a": 1}')
        assert isinstance(book.reserve(stranger, ENDPOINT, theirs), Reservation)
    finally:
        book.close()


def test_a_failed_request_frees_its_key(db_url: str, clock: ManualClock) -> None:
    book = Bookkeeper.open(db_url, clock=clock)
    try:
        principal = _principal(book)
        claim = claim_for(book, principal, "k", ENDPOINT, b"{}")
        first = book.reserve(principal, ENDPOINT, claim)
        assert isinstance(first, Reservation)
        book.release(first)
        again = book.reserve(principal, ENDPOINT, claim)
        assert isinstance(again, Reservation) and again.id != first.id
    finally:
        book.close()


def test_keys_expire_and_are_pruned(db_url: str, clock: ManualClock) -> None:
    book = Bookkeeper.open(db_url, clock=clock)
    store = book.store
    assert isinstance(store, SqlStore)
    try:
        principal = _principal(book)
        first = book.reserve(principal, ENDPOINT, claim_for(book, principal, "k", ENDPOINT, b""))
        assert isinstance(first, Reservation)
        book.commit(first)
        clock.advance(seconds=KEY_LIFETIME.total_seconds() - 1)
        fresh = claim_for(book, principal, "k", ENDPOINT, b"")
        assert book.reserve(principal, ENDPOINT, fresh) is Replay.ANSWERED
        clock.advance(seconds=2)
        tidy(book, Settings(database_url=db_url))
        assert _count(store, "idempotency_keys") == 0
        later = claim_for(book, principal, "k", ENDPOINT, b"")
        assert isinstance(book.reserve(principal, ENDPOINT, later), Reservation)
        assert later.since - fresh.since == timedelta(seconds=2)
    finally:
        book.close()
