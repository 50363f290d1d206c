"""The jobs' store (``store/jobs.py``) on SQLite and PostgreSQL: a job holds the credits
of all its rows at once (all or nothing), chunks are claimed once (again only after their
lease ran out), a job settles once when it ends (one committed charge per successful
row, the rest refunded), a cancel releases the rows not done, an Idempotency-Key gives
the same job back, the sweep deletes expired results."""

from __future__ import annotations

import json
import socket
import threading
import time
from datetime import timedelta

import pytest

from bodygraph_server.billing.accounts import Bookkeeper, Principal
from bodygraph_server.billing.idempotency import claim_for
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store import ChargeRefusal, Replay
from bodygraph_server.store.jobs import Created, JobRepository, JobStatus, NewJob, SqlJobs

RETENTION = timedelta(days=7)
LEASE = timedelta(seconds=30)


def _jobs(book: Bookkeeper) -> SqlJobs:
    return SqlJobs(book.store, retention=RETENTION, lease=LEASE)


def _new(account_id: int, *sizes: int, **extra: object) -> NewJob:
    return NewJob(account_id=account_id, kind="chart", header="date,time,lat,lng",
                  chunks=[(size, f"input {i}".encode()) for i, size in enumerate(sizes)],
                  **extra)  # type: ignore[arg-type]


def _usage(book: Bookkeeper, account_id: int) -> tuple[int, int]:
    usage = book.usage(account_id)[-1]
    return usage.calls, usage.credits


def test_a_job_charges_one_credit_per_successful_row(book: Bookkeeper,
                                                     clock: ManualClock) -> None:
    account = book.create_account("developer").account
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, 3, 2), clock.now())
    assert isinstance(created, Created) and not created.replayed
    job = created.job
    assert (job.status, job.total, job.chunks) == (JobStatus.QUEUED, 5, 2)
    assert book.account(account.id).balance == account.balance - 5  # held at once
    first = jobs.claim(clock.now())
    second = jobs.claim(clock.now())
    assert first is not None and second is not None and jobs.claim(clock.now()) is None
    assert (first.seq, first.first_row, second.seq, second.first_row) == (0, 1, 1, 4)
    assert jobs.get(job.id, account.id).status is JobStatus.RUNNING  # type: ignore[union-attr]
    assert jobs.complete(first, b"out 0", 1, clock.now()) is None
    ended = jobs.complete(second, b"out 1", 0, clock.now())
    assert ended is not None and ended.status is JobStatus.SUCCEEDED
    assert (ended.done, ended.failed, ended.succeeded) == (5, 1, 4)
    assert book.account(account.id).balance == account.balance - 4  # the bad row refunded
    assert _usage(book, account.id) == (4, 4)
    assert book.audit(account.id).balanced
    assert list(jobs.outputs(job.id)) == [b"out 0", b"out 1"]
    # a late worker's second completion changes nothing
    assert jobs.complete(second, b"again", 0, clock.now()) is None
    assert book.account(account.id).balance == account.balance - 4


def test_all_or_nothing_and_another_accounts_job_is_not_found(book: Bookkeeper,
                                                              clock: ManualClock) -> None:
    account = book.create_account("developer").account
    jobs = _jobs(book)
    assert jobs.create(_new(account.id, account.balance + 1), clock.now()) \
        is ChargeRefusal.CREDITS_EXHAUSTED
    assert book.account(account.id).balance == account.balance
    assert _usage(book, account.id) == (0, 0)
    created = jobs.create(_new(account.id, 2), clock.now())
    assert isinstance(created, Created)
    other = book.create_account("developer").account
    assert jobs.get(created.job.id, other.id) is None
    assert jobs.cancel(created.job.id, other.id, clock.now()) is None
    assert jobs.get(created.job.id, account.id) is not None


def test_a_lease_that_ran_out_is_claimed_again_and_counted_once(
        book: Bookkeeper, clock: ManualClock) -> None:
    account = book.create_account("developer").account
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, 4), clock.now())
    assert isinstance(created, Created)
    dead = jobs.claim(clock.now())
    assert dead is not None and jobs.claim(clock.now()) is None
    clock.advance(LEASE.total_seconds() + 1)
    taken = jobs.claim(clock.now())
    assert taken is not None and taken.seq == dead.seq and taken.token != dead.token
    assert jobs.complete(dead, b"stale", 0, clock.now()) is None  # not its claim any more
    ended = jobs.complete(taken, b"fresh", 0, clock.now())
    assert ended is not None and ended.done == 4
    assert list(jobs.outputs(created.job.id)) == [b"fresh"]
    assert _usage(book, account.id) == (4, 4)


def test_cancel_releases_the_rows_not_done(book: Bookkeeper, clock: ManualClock) -> None:
    account = book.create_account("developer").account
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, 3, 3, 3), clock.now())
    assert isinstance(created, Created)
    chunk = jobs.claim(clock.now())
    assert chunk is not None
    jobs.complete(chunk, b"out", 0, clock.now())
    running = jobs.claim(clock.now())
    assert running is not None
    cancelled = jobs.cancel(created.job.id, account.id, clock.now())
    assert cancelled is not None and cancelled.status is JobStatus.CANCELLED
    assert jobs.complete(running, b"late", 0, clock.now()) is None
    assert jobs.claim(clock.now()) is None
    assert book.account(account.id).balance == account.balance - 3
    assert _usage(book, account.id) == (3, 3)
    again = jobs.cancel(created.job.id, account.id, clock.now())
    assert again is not None and again.status is JobStatus.CANCELLED
    assert book.account(account.id).balance == account.balance - 3
    assert book.audit(account.id).balanced


def test_a_chunk_that_keeps_failing_fails_the_job(book: Bookkeeper,
                                                  clock: ManualClock) -> None:
    account = book.create_account("developer").account
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, 2), clock.now())
    assert isinstance(created, Created)
    for _ in range(2):
        chunk = jobs.claim(clock.now())
        assert chunk is not None and jobs.give_up(chunk, clock.now(), attempts=3) is None
    chunk = jobs.claim(clock.now())
    assert chunk is not None
    ended = jobs.give_up(chunk, clock.now(), attempts=3)
    assert ended is not None and ended.status is JobStatus.FAILED
    assert book.account(account.id).balance == account.balance
    assert [job.id for job in jobs.unnotified()] == [created.job.id]
    jobs.mark_notified(created.job.id, clock.now())
    assert jobs.unnotified() == []


def test_an_idempotency_key_gives_the_same_job(book: Bookkeeper, clock: ManualClock) -> None:
    issued = book.create_account("developer")
    account = issued.account
    principal = book.authenticate(issued.api_key)
    assert isinstance(principal, Principal)
    jobs = _jobs(book)
    claim = claim_for(book, principal, "k-1", "/v2/jobs", b"body")
    first = jobs.create(_new(account.id, 2, claim=claim), clock.now())
    second = jobs.create(_new(account.id, 2, claim=claim), clock.now())
    assert isinstance(first, Created) and isinstance(second, Created)
    assert second.replayed and second.job.id == first.job.id
    assert book.account(account.id).balance == account.balance - 2
    other = claim_for(book, principal, "k-1", "/v2/jobs", b"another body")
    assert jobs.create(_new(account.id, 2, claim=other), clock.now()) is Replay.MISMATCH


def test_the_sweep_deletes_expired_results(book: Bookkeeper, clock: ManualClock) -> None:
    account = book.create_account("developer").account
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, 1), clock.now())
    assert isinstance(created, Created)
    chunk = jobs.claim(clock.now())
    assert chunk is not None
    jobs.complete(chunk, b"out", 0, clock.now())
    assert jobs.sweep(clock.now() + RETENTION - timedelta(seconds=1)) == 0
    assert jobs.sweep(clock.now() + RETENTION + timedelta(seconds=1)) == 1
    job = jobs.get(created.job.id)
    assert job is not None and job.expired and list(jobs.outputs(job.id)) == []


@pytest.mark.parametrize("overage", [True])
def test_overage_rows_are_held_too(book: Bookkeeper, clock: ManualClock,
                                   overage: bool) -> None:
    account = book.create_account("developer").account
    book.set_overage(account.id, overage)
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, account.balance + 2), clock.now())
    assert isinstance(created, Created)
    assert book.account(account.id).balance == 0
    cancelled = jobs.cancel(created.job.id, account.id, clock.now())
    assert cancelled is not None
    assert book.account(account.id).balance == account.balance
    assert book.audit(account.id).balanced


def test_a_settlement_interrupted_is_finished_by_the_sweep(
        book: Bookkeeper, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    account = book.create_account("developer").account
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, 4, 3, 5), clock.now())
    assert isinstance(created, Created)
    chunk = jobs.claim(clock.now())
    assert chunk is not None and chunk.rows == 4
    jobs.complete(chunk, b"out", 1, clock.now())  # charged as it is committed: 3 and 1
    assert _usage(book, account.id) == (3, 11)  # 8 credits still held
    assert book.account(account.id).balance == account.balance - 11
    monkeypatch.setattr(SqlJobs, "settle", lambda self, job_id, now: None)
    jobs.cancel(created.job.id, account.id, clock.now())  # the process dies after it
    with book.store.write_transaction() as tx:  # one step of 1 of the 2 chunks not done
        assert not JobRepository(tx).settle_step(created.job.id, clock.now(), 1)
    monkeypatch.undo()
    assert book.account(account.id).balance == account.balance - 6  # its last chunk's 5
    assert jobs.settle_ended(clock.now()) == 1
    assert jobs.settle_ended(clock.now()) == 0
    assert _usage(book, account.id) == (3, 3)
    assert book.account(account.id).balance == account.balance - 3
    assert book.audit(account.id).balanced


def test_a_released_chunk_is_claimed_again_at_once(book: Bookkeeper,
                                                   clock: ManualClock) -> None:
    account = book.create_account("developer").account
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, 2), clock.now())
    assert isinstance(created, Created)
    for _ in range(5):  # a release does not count as a try
        chunk = jobs.claim(clock.now())
        assert chunk is not None
        jobs.release(chunk)
    chunk = jobs.claim(clock.now())
    assert chunk is not None
    assert jobs.give_up(chunk, clock.now(), attempts=2) is None  # its first try


def test_a_jobs_end_stores_its_webhook_in_the_same_transaction(
        book: Bookkeeper, clock: ManualClock) -> None:
    from bodygraph_server.store.webhook_deliveries import SqlWebhookOutbox
    from bodygraph_server.webhooks import record_job_end

    account = book.create_account("developer").account
    jobs = SqlJobs(book.store, retention=RETENTION, lease=LEASE, on_end=record_job_end)
    outbox = SqlWebhookOutbox(book.store)
    url = "https://hooks.example.com/jobs"
    created = jobs.create(_new(account.id, 2, callback_url=url,
                               origin="https://api.example.com/"), clock.now())
    assert isinstance(created, Created)
    job_id = created.job.id
    assert created.job.result_url == f"https://api.example.com/v2/jobs/{job_id}/result"
    assert outbox.find(job_id) is None  # nothing before the end
    ended = jobs.cancel(job_id, account.id, clock.now())
    assert ended is not None and ended.status is JobStatus.CANCELLED
    delivery = outbox.find(job_id)
    assert delivery is not None and delivery.url == url
    assert delivery.account_id == account.id and delivery.state == "pending"
    event = json.loads(delivery.body)
    assert event["type"] == "job.cancelled" and event["timestamp"].endswith("Z")
    assert event["data"] == {
        "jobId": job_id, "status": "cancelled", "total": 2, "done": 0, "failed": 0,
        "finishedAt": event["timestamp"], "resultUrl": created.job.result_url}
    jobs.cancel(job_id, account.id, clock.now())  # ended already: no second event
    assert outbox.find(job_id) == delivery

    quiet = jobs.create(_new(account.id, 1), clock.now())  # no callback: no event
    assert isinstance(quiet, Created)
    chunk = jobs.claim(clock.now())
    assert chunk is not None and chunk.job_id == quiet.job.id
    assert jobs.complete(chunk, b"rows", 0, clock.now()) is not None
    assert outbox.find(quiet.job.id) is None


def test_the_sweep_prunes_old_deliveries(book: Bookkeeper, clock: ManualClock) -> None:
    from datetime import timedelta

    from bodygraph_server.store.webhook_deliveries import SqlWebhookOutbox
    from bodygraph_server.webhooks import record_job_end

    account = book.create_account("developer").account
    jobs = SqlJobs(book.store, retention=RETENTION, lease=LEASE, on_end=record_job_end)
    outbox = SqlWebhookOutbox(book.store)
    created = jobs.create(_new(account.id, 1, callback_url="https://hooks.example.com/"),
                          clock.now())
    assert isinstance(created, Created)
    jobs.cancel(created.job.id, account.id, clock.now())
    [delivery] = outbox.claim_due(clock.now(), timedelta(seconds=60), 10)
    assert outbox.record(delivery, started=clock.now(), duration=timedelta(seconds=1),
                         status_code=204, error="", retry_at=None)
    jobs.sweep(clock.now() + RETENTION / 2)
    assert outbox.find(created.job.id) is not None  # finished, not old enough yet
    jobs.sweep(clock.now() + RETENTION + timedelta(seconds=2))  # it finished after 1 s
    assert outbox.find(created.job.id) is None


def test_a_cancel_does_not_wait_for_a_chunk_being_claimed(
        db_url: str, book: Bookkeeper, clock: ManualClock) -> None:
    """A claim holds its chunk's row and then wants the job's; a cancel holds the job's
    row and drops the chunks: it skips the one being claimed (no deadlock), and no
    worker takes a chunk of a job that has ended."""
    account = book.create_account("developer").account
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, 2, 2), clock.now())
    assert isinstance(created, Created)
    job_id = created.job.id
    locked, done = threading.Event(), threading.Event()

    def claiming() -> None:
        with book.store.write_transaction() as tx:
            tx.one("SELECT seq FROM job_chunks WHERE job_id = ? AND seq = 0" + tx.for_update,
                   (job_id,))
            locked.set()
            done.wait(10)
            tx.execute("UPDATE jobs SET started_us = 1 WHERE id = ?", (job_id,))

    claimer = threading.Thread(target=claiming)
    if db_url.startswith("postgres"):  # row locks (SQLite: one write at a time)
        claimer.start()
        assert locked.wait(10)
    started = time.monotonic()
    cancelled = jobs.cancel(job_id, account.id, clock.now())
    assert time.monotonic() - started < 5
    done.set()
    if claimer.is_alive():
        claimer.join(10)
    assert cancelled is not None and cancelled.status is JobStatus.CANCELLED
    assert jobs.claim(clock.now()) is None
    assert book.account(account.id).balance == account.balance


@pytest.mark.timeout(60)
def test_an_unreachable_dask_scheduler_leaves_the_chunk_waiting(
        book: Bookkeeper, clock: ManualClock) -> None:
    import anyio

    from bodygraph_server.execution.dask_runner import DaskChunkRunner
    from bodygraph_server.execution.worker import ATTEMPTS, JobWorker

    with socket.socket() as probe:  # a port where nothing listens
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    account = book.create_account("developer").account
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, 2), clock.now())
    assert isinstance(created, Created)
    # Refused at once; the client only retries until its time-out, which may be short.
    worker = JobWorker(jobs, DaskChunkRunner(address, connect_timeout=0.2), clock.now)
    for _ in range(ATTEMPTS + 1):  # more than a failing chunk's tries
        assert anyio.run(worker.step) is False
    job = jobs.get(created.job.id)
    assert job is not None and job.status is JobStatus.RUNNING and job.done == 0  # not failed
    chunk = jobs.claim(clock.now())  # given back at once, its tries not counted
    assert chunk is not None
    assert jobs.give_up(chunk, clock.now(), attempts=2) is None


def test_a_chunk_across_the_balance_commits_its_credited_rows_first(
        book: Bookkeeper, clock: ManualClock) -> None:
    account = book.create_account("developer").account
    book.adjust_credits(account.id, 3)
    book.set_overage(account.id, True)
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, 5, 2), clock.now())  # 3 credited, 4 overage
    assert isinstance(created, Created)
    assert book.account(account.id).balance == 0
    chunk = jobs.claim(clock.now())
    assert chunk is not None and chunk.rows == 5
    jobs.complete(chunk, b"out", 1, clock.now())  # 4 succeeded: the 3 credited and 1 more
    again = jobs.claim(clock.now())
    assert again is not None
    assert jobs.complete(chunk, b"late", 0, clock.now()) is None  # its token is spent
    jobs.cancel(created.job.id, account.id, clock.now())  # the second chunk not done
    usage = book.usage(account.id)[-1]
    assert (usage.calls, usage.credits, usage.overage_calls, usage.pending) == (4, 3, 1, 0)
    assert book.account(account.id).balance == 0
    assert book.audit(account.id).balanced
    figures = book.overview(account.id).figures
    assert (figures.used, figures.overage_calls) == (3, 1)
    day = book.usage_by_day(account.id, 1)[1]
    assert [(entry.endpoint, entry.calls, entry.credits) for entry in day] == [
        ("/v2/jobs", 4, 3)]


def test_a_million_rows_are_held_in_two_usage_rows_a_chunk_at_most(
        book: Bookkeeper, clock: ManualClock) -> None:
    account = book.create_account("developer").account
    book.adjust_credits(account.id, 600_000)
    book.set_overage(account.id, True)
    jobs = _jobs(book)
    created = jobs.create(_new(account.id, *[10_000] * 100), clock.now())
    assert isinstance(created, Created) and created.job.total == 1_000_000
    with book.store.read_transaction() as tx:
        held = tx.rows("SELECT overage, COUNT(*) AS n, SUM(calls) AS calls FROM usage_log "
                       "WHERE account_id = ? AND status = 'job' GROUP BY overage "
                       "ORDER BY overage", (account.id,))
    assert [(int(row.n), int(row.calls)) for row in held] == [(60, 600_000), (40, 400_000)]
    assert book.account(account.id).balance == 0
    jobs.cancel(created.job.id, account.id, clock.now())
    assert book.account(account.id).balance == 600_000
    assert book.usage(account.id)[-1].calls == 0
    assert book.audit(account.id).balanced
