"""Several OS processes spend the last credits of one account, and hit one rate-limit
window, at the same time, on SQLite and on PostgreSQL.

The processes are forked from a fork server that imported the workers' modules once
(``forkserver`` with a preload: a fresh interpreter per process, as with ``spawn``, cost
~0.1 s of CPU each), never from the multi-threaded pytest process itself."""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from datetime import timedelta
from importlib import resources
from typing import Any

import pytest

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.policy.clock import SystemClock
from bodygraph_server.store.sqlite import _write_ahead_log

from . import store_workers
from .conftest import START

PROCESSES = 4
pytestmark = pytest.mark.timeout(180)


def _run(target: Any, args_of: Any) -> list[tuple[str, int, str]]:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([store_workers.__name__, "psycopg"])
    barrier = ctx.Barrier(PROCESSES)
    results = ctx.Queue()
    procs = [
        ctx.Process(target=target, args=(*args_of(i), barrier, results)) for i in range(PROCESSES)
    ]
    for proc in procs:
        proc.start()
    try:
        collected = [results.get(timeout=120) for _ in procs]
    finally:
        for proc in procs:
            proc.join(timeout=30)
    assert [p.exitcode for p in procs] == [0] * PROCESSES, collected
    results.close()
    results.join_thread()
    return collected


@pytest.mark.parametrize("admitted", [False, True], ids=["authenticate", "admit"])
def test_last_credits_are_spent_exactly_once(db_url: str, admitted: bool) -> None:
    starting = 150
    with Bookkeeper.open(db_url, clock=SystemClock()) as book:
        issued = book.create_account("developer")
        account_id = issued.account.id
        book.adjust_credits(account_id, starting)

    collected = _run(store_workers.spend_until_exhausted,
                     lambda i: (db_url, issued.api_key, admitted))

    assert all(kind == "spent" for kind, _, _ in collected), collected
    assert all(reason == "CREDITS_EXHAUSTED" for _, _, reason in collected)
    assert sum(n for _, n, _ in collected) == starting
    with Bookkeeper.open(db_url) as book:
        account = book.account(account_id)
        assert account.balance == 0
        audit = book.audit(account_id)
        assert audit.balanced and audit.charged == starting
        period = book.usage(account_id)[-1]
        assert (period.calls, period.credits, period.pending) == (starting, starting, 0)


def test_rate_window_holds_across_processes(db_url: str) -> None:
    instant = START + timedelta(days=3)
    with Bookkeeper.open(db_url):  # create the schema once, before the race
        pass
    collected = _run(store_workers.hit_window, lambda i: (db_url, "shared-key", instant, 40))
    assert all(kind == "hits" for kind, _, _ in collected), collected
    assert sum(n for _, n, _ in collected) == 100  # 160 attempts, exactly 100 accepted


def test_rate_window_holds_across_processes_through_admit(db_url: str) -> None:
    instant = START + timedelta(days=3)
    with Bookkeeper.open(db_url) as book:
        api_key = book.create_account("scale").api_key
    collected = _run(store_workers.admit_window, lambda i: (db_url, api_key, instant, 40))
    assert all(kind == "hits" for kind, _, _ in collected), collected
    assert sum(n for _, n, _ in collected) == 100  # 160 attempts, exactly 100 accepted


def test_workers_starting_together_migrate_once(fresh_db_url: str) -> None:
    db_url = fresh_db_url
    # Like uvicorn workers starting at once on a brand-new database.
    collected = _run(store_workers.open_fresh, lambda i: (db_url,))
    numbers = sorted(int(entry.name[:4]) for entry in resources.files("bodygraph_server.store")
                     .joinpath("migrations", "sqlite").iterdir() if entry.name.endswith(".sql"))
    assert collected == [("opened", numbers[-1], "")] * PROCESSES
    with Bookkeeper.open(db_url) as book, book.store.read_transaction() as tx:  # type: ignore[attr-defined]
        versions = tx.rows("SELECT version FROM schema_version ORDER BY version")
        assert versions == [(version,) for version in numbers]  # each once


class _SwitchingElsewhere:
    """A connection whose ``PRAGMA journal_mode = WAL`` meets another connection switching
    a new database's mode ``busy`` times: SQLite's immediate "database is locked"."""

    def __init__(self, busy: int, code: int = sqlite3.SQLITE_BUSY) -> None:
        self.busy, self.code, self.calls = busy, code, 0

    def execute(self, sql: str) -> None:
        assert sql == "PRAGMA journal_mode = WAL"
        self.calls += 1
        if self.calls <= self.busy:
            error = sqlite3.OperationalError("database is locked")
            error.sqlite_errorcode = self.code
            raise error


def test_wal_mode_is_tried_again_while_another_process_switches() -> None:
    """What the race above meets now and then (about one run in 15 before): retried until
    the busy timeout; any other error, or busy past the time-out, is raised."""
    conn = _SwitchingElsewhere(busy=3)
    _write_ahead_log(conn, time.monotonic() + 5)  # type: ignore[arg-type]
    assert conn.calls == 4
    with pytest.raises(sqlite3.OperationalError):
        _write_ahead_log(_SwitchingElsewhere(busy=1, code=sqlite3.SQLITE_IOERR),  # type: ignore[arg-type]
                         time.monotonic() + 5)
    never = _SwitchingElsewhere(busy=10**6)
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError):
        _write_ahead_log(never, started + 0.2)  # type: ignore[arg-type]
    assert 0.1 < time.monotonic() - started < 2 and never.calls > 3
