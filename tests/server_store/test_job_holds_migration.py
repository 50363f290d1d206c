"""Migration 11: a job running under schema 9 (a usage row held per row, taken from both
ends as chunks were committed) goes on after the upgrade with schema 10's holds per
chunk, and charges exactly its successful rows; the columns of schema 9's holds are gone."""

from __future__ import annotations

from datetime import timedelta

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.policy.clock import ManualClock, to_micros
from bodygraph_server.store import sqlite_path
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.jobs import JobStatus, SqlJobs
from bodygraph_server.store.sql import SqlStore
from bodygraph_server.store.sqlite import SqliteStore

LEASE = timedelta(seconds=30)


def _at_schema_9(url: str) -> SqlStore:
    from bodygraph_server.store.postgres import PostgresStore

    base = SqliteStore if url.startswith("sqlite") else PostgresStore

    class AtSchema9(base):  # type: ignore[valid-type,misc]
        def _migration_files(self) -> list[tuple[int, str]]:
            return [(n, text) for n, text in super()._migration_files() if n <= 9]

    store: SqlStore = AtSchema9(sqlite_path(url) if base is SqliteStore else url)
    return store


def _running_under_schema_9(book: Bookkeeper, account_id: int, at: int) -> list[int]:
    """A job of 3 chunks (3, 2 and 4 rows) as schema 9's code left it: 6 rows held on
    credits and 3 on overage, its first chunk done (2 rows committed from the bottom, 1
    released from the top), its second claimed by a worker, its third queued."""
    store = book.store
    assert isinstance(store, SqlStore)
    account = book.account(account_id)
    with store.write_transaction() as tx:
        tx.execute("UPDATE accounts SET balance = balance - 6 WHERE id = ?", (account_id,))
        ids = []
        for credits in [1] * 6 + [0] * 3:
            row = tx.one("INSERT INTO usage_log (account_id, period_index, endpoint, credits, "
                         "overage, status, created_us) VALUES (?, ?, ?, ?, ?, ?, ?) "
                         "RETURNING id", (account_id, account.period_index, "/v2/jobs",
                                          credits, not credits, "job", at))
            assert row is not None
            ids.append(int(row.id))
        for usage_id, status in ((ids[0], "committed"), (ids[1], "committed"),
                                 (ids[8], "released")):
            tx.execute("UPDATE usage_log SET status = ?, settled_us = ? WHERE id = ?",
                       (status, at, usage_id))
        tx.execute("INSERT INTO jobs (id, account_id, kind, header, status, total, done, "
                   "failed, chunks, chunks_done, usage_lo, usage_hi, commit_next, "
                   "release_last, created_us, started_us) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   ("job_old", account_id, "chart", "date,time,lat,lng", "running", 9, 3, 1,
                    3, 1, ids[0], ids[8], ids[2], ids[7], at, at))
        for seq, first, rows, state, lease in ((0, 1, 3, "done", None),
                                               (1, 4, 2, "running", at + 1),
                                               (2, 6, 4, "queued", None)):
            tx.execute("INSERT INTO job_chunks (job_id, seq, first_row, rows, state, "
                       "queued_us, input, succeeded, failed, lease_us, token, attempts) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       ("job_old", seq, first, rows, state, at,
                        None if state == "done" else b"input", 2 if state == "done" else 0,
                        1 if state == "done" else 0, lease,
                        "old" if state == "running" else None, int(state != "queued")))
    return ids


def _held(tx: Tx) -> int:
    """How many usage rows are held by jobs."""
    row = tx.one("SELECT COUNT(*) AS n FROM usage_log WHERE status = 'job'")
    assert row is not None
    return int(row.n)


def test_a_job_running_under_schema_9_is_charged_its_successful_rows(
        fresh_db_url: str, clock: ManualClock) -> None:
    old = Bookkeeper(_at_schema_9(fresh_db_url), clock=clock)
    try:
        assert old.store.schema_version() == 9
        account_id = old.create_account("developer").account.id
        old.adjust_credits(account_id, 6, "test: six credits")
        old.set_overage(account_id, True)
        _running_under_schema_9(old, account_id, to_micros(clock.now()))
    finally:
        old.close()
    clock.advance(60)  # the old worker's lease has run out
    with Bookkeeper.open(fresh_db_url, clock=clock) as book:
        assert book.store.schema_version() == 11
        store = book.store
        assert isinstance(store, SqlStore)
        with store.read_transaction() as tx:
            held = tx.rows("SELECT c.seq, u.credits, u.calls FROM job_chunks c "
                           "JOIN usage_log u ON u.id IN (c.held_id, c.held_overage_id) "
                           "ORDER BY c.seq, u.credits DESC")
            assert [tuple(row) for row in held] == [(1, 1, 2), (2, 1, 2), (2, 0, 2)]
            assert _held(tx) == 3
            job = tx.one("SELECT * FROM jobs")
            assert job is not None
            columns = job._fields
        assert "commit_next" not in columns and "release_last" not in columns
        jobs = SqlJobs(store, retention=timedelta(days=7), lease=LEASE)
        second, third = jobs.claim(clock.now()), jobs.claim(clock.now())
        assert second is not None and third is not None
        assert (second.seq, third.seq) == (1, 2)
        assert jobs.complete(second, b"out 1", 0, clock.now()) is None
        ended = jobs.complete(third, b"out 2", 1, clock.now())
        assert ended is not None and ended.status is JobStatus.SUCCEEDED
        assert (ended.done, ended.failed) == (9, 2)
        assert book.account(account_id).balance == 0  # the 6 credits, all used
        usage = book.usage(account_id)[-1]
        assert (usage.calls, usage.credits, usage.overage_calls) == (7, 6, 1)
        assert book.audit(account_id).balanced
        with store.read_transaction() as tx:
            assert _held(tx) == 0

