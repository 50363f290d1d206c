"""The asynchronous jobs in the SQL stores (tables ``jobs``, ``job_chunks``; docs/jobs.md):
chunks claimed by any worker of any instance, their results, and the job's credits held as
usage rows of status ``job`` (two a chunk at most), each committed or released once."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta

from bodygraph_server.policy.clock import to_micros
from bodygraph_server.policy.credits import is_cancelled
from bodygraph_server.store.accounts import AccountRepository
from bodygraph_server.store.base import TransactionSource
from bodygraph_server.store.charges import ChargeRepository
from bodygraph_server.store.connections import Tx
from bodygraph_server.store.job_records import (
    JOB_COLUMNS,
    ChunkState,
    ClaimedChunk,
    Created,
    JobRecord,
    JobStatus,
    NewJob,
    job_from_row,
)
from bodygraph_server.store.records import Account, ChargeRefusal, Replay, UsageStatus
from bodygraph_server.store.webhook_deliveries import WebhookRepository

__all__ = ["HELD", "ChunkState", "ClaimedChunk", "Created", "EndRecorder", "JobRecord",
           "JobRepository", "JobStatus", "NewJob", "SqlJobs", "result_path"]

#: The status of a usage row held by a job (no sweep releases it; committed or released
#: with its chunk's result, or when the job ends).
HELD = "job"
#: The endpoint a job's usage rows are recorded under.
JOBS_ENDPOINT = "/v2/jobs"

#: Held usage rows (two a chunk at most) settled by one transaction.
SETTLE_BATCH = 1_000

EndRecorder = Callable[[Tx, JobRecord, datetime], None]
"""Records a job's end within the transaction that ends it (the webhook's event)."""


def result_path(job_id: str) -> str:
    """The path of a job's result (``GET /v2/jobs/{jobId}/result``)."""
    return f"{JOBS_ENDPOINT}/{job_id}/result"


class JobRepository:
    """The jobs' statements within one transaction."""

    __slots__ = ("tx",)

    def __init__(self, tx: Tx) -> None:
        self.tx = tx

    def select(self, job_id: str, *, lock: bool = False) -> JobRecord | None:
        """The job ``job_id`` (``lock``: locked for the rest of the transaction)."""
        row = self.tx.one(f"SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?"
                          + (self.tx.for_update if lock else ""), (job_id,))
        return None if row is None else job_from_row(row)

    def hold(self, account: Account, sizes: Sequence[int],
             at: int) -> list[tuple[int | None, int | None]] | None:
        """Hold the credits of chunks of ``sizes`` rows of the locked ``account`` (credits
        while the balance lasts, then overage calls): per chunk, one usage row of status
        :data:`HELD` for its credited rows and one for its overage rows (their ids, None
        for none); None when the account cannot pay for them all (nothing held)."""
        tx = self.tx
        count = sum(sizes)
        credited = min(count, account.balance)
        if count > credited and not account.overage_enabled:
            return None
        if credited:
            tx.execute("UPDATE accounts SET balance = balance - ?, updated_us = ? WHERE id = ?",
                       (credited, at, account.id))
        held: list[tuple[int | None, int | None]] = []
        left = credited
        for size in sizes:
            paid = min(size, left)
            left -= paid
            held.append((self._insert_held(account, paid, at, overage=False),
                         self._insert_held(account, size - paid, at, overage=True)))
        return held

    def _insert_held(self, account: Account, calls: int, at: int, *,
                     overage: bool) -> int | None:
        """One held usage row standing for ``calls`` calls; its id (None: no calls)."""
        if not calls:
            return None
        row = self.tx.one(
            "INSERT INTO usage_log (account_id, period_index, endpoint, credits, overage, "
            "status, created_us, calls) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (account.id, account.period_index, JOBS_ENDPOINT, int(not overage), overage, HELD,
             at, calls))
        assert row is not None
        return int(row.id)

    def settle_held(self, account: Account, usage_id: int | None, used: int,
                    now: datetime) -> int:
        """Settle the held usage row ``usage_id`` of ``account`` (locked): committed for
        ``used`` of its calls at most, released for the others, their credits given back
        as a release does (within the current period, unless the account is cancelled).
        How many of its calls were committed (0: none, or settled already)."""
        if usage_id is None:
            return 0
        tx = self.tx
        row = tx.one("SELECT calls, credits, overage, period_index, endpoint, created_us "
                     "FROM usage_log WHERE id = ? AND status = ?" + tx.for_update,
                     (usage_id, HELD))
        if row is None:
            return 0
        at = to_micros(now)
        calls, paid = int(row.calls), int(row.credits) == 1
        used = min(used, calls)
        unused = calls - used
        refund = bool(paid and unused and int(row.period_index) == account.period_index
                      and not is_cancelled(account.cancel_at, now))
        if refund:
            tx.execute("UPDATE accounts SET balance = balance + ?, updated_us = ? "
                       "WHERE id = ?", (unused, at, account.id))
        kept = int(paid and not refund)  # the released calls' credits not given back
        if used:
            tx.execute("UPDATE usage_log SET status = ?, settled_us = ?, calls = ? "
                       "WHERE id = ?", (UsageStatus.COMMITTED.value, at, used, usage_id))
            if unused:
                tx.execute(
                    "INSERT INTO usage_log (account_id, period_index, endpoint, credits, "
                    "overage, status, created_us, settled_us, calls) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (account.id, int(row.period_index), str(row.endpoint), kept,
                     bool(row.overage), UsageStatus.RELEASED.value, int(row.created_us), at,
                     unused))
        else:
            tx.execute("UPDATE usage_log SET status = ?, settled_us = ?, credits = ? "
                       "WHERE id = ?", (UsageStatus.RELEASED.value, at, kept, usage_id))
        return used

    def charge_chunk(self, job_id: str, seq: int, succeeded: int, now: datetime) -> None:
        """A chunk's rows committed (within its transaction, the job locked): its held
        usage rows committed for as many calls as rows succeeded, the credited ones first,
        and released for the others, their credits given back."""
        tx = self.tx
        row = tx.one("SELECT j.account_id, c.held_id, c.held_overage_id FROM job_chunks c "
                     "JOIN jobs j ON j.id = c.job_id WHERE c.job_id = ? AND c.seq = ?",
                     (job_id, seq))
        assert row is not None
        account = AccountRepository(tx).touch(int(row.account_id), now)
        used = self.settle_held(account, row.held_id, succeeded, now)
        self.settle_held(account, row.held_overage_id, succeeded - used, now)

    def settle_step(self, job_id: str, now: datetime, batch: int) -> bool:
        """One step of the settlement of an ended job: up to ``batch`` of its usage rows
        still held (those of its chunks not done) released, from the last, their credits
        given back. Each row changes once (only held rows are touched): a step repeated
        after a crash changes nothing twice. Whether the settlement is complete."""
        tx = self.tx
        row = tx.one("SELECT account_id, status, usage_lo, usage_hi, settled "
                     "FROM jobs WHERE id = ?" + tx.for_update, (job_id,))
        if row is None or bool(row.settled) or not JobStatus(str(row.status)).final:
            return True
        account = AccountRepository(tx).touch(int(row.account_id), now)
        held = [int(found.id) for found in tx.rows(
            "SELECT id FROM usage_log WHERE account_id = ? AND status = ? "
            "AND id BETWEEN ? AND ? ORDER BY id DESC LIMIT ?",
            (account.id, HELD, int(row.usage_lo), int(row.usage_hi), batch + 1))]
        for usage_id in held[:batch]:
            self.settle_held(account, usage_id, 0, now)
        done = len(held) <= batch
        if done:
            tx.execute("UPDATE jobs SET settled = 1 WHERE id = ?", (job_id,))
        return done

    def end(self, job_id: str, status: JobStatus, now: datetime,
            retention: timedelta) -> JobRecord | None:
        """End the (locked, running or queued) job with ``status`` and drop its chunks not
        yet run (its credits are settled next: :meth:`SqlJobs.settle`); None if it had
        ended already (nothing done)."""
        tx = self.tx
        at = to_micros(now)
        changed = tx.execute(
            "UPDATE jobs SET status = ?, finished_us = ?, expires_us = ? "
            "WHERE id = ? AND status IN (?, ?)",
            (status.value, at, to_micros(now + retention), job_id, JobStatus.QUEUED.value,
             JobStatus.RUNNING.value))
        if changed != 1:
            return None
        # A chunk a worker is claiming right now (PostgreSQL: locked) is skipped, not
        # waited for (that worker may be waiting for this job's row): the job's status
        # keeps every worker off its chunks.
        undone = (job_id, ChunkState.QUEUED.value, ChunkState.RUNNING.value)
        skip = " FOR UPDATE SKIP LOCKED" if tx.for_update else ""
        tx.execute("UPDATE job_chunks SET state = ?, input = NULL, token = NULL "
                   "WHERE job_id = ? AND seq IN (SELECT seq FROM job_chunks "
                   f"WHERE job_id = ? AND state IN (?, ?){skip})",
                   (ChunkState.DROPPED.value, job_id, *undone))
        return self.select(job_id)


class SqlJobs:
    """The jobs in the bookkeeping database, shared by every worker and instance on it.
    Blocking; call from a worker thread. ``retention``: how long a result is kept after
    its job ended; ``lease``: how long a claimed chunk stays its worker's (after that,
    any worker may claim it again: its worker died)."""

    def __init__(self, store: TransactionSource, *, retention: timedelta,
                 lease: timedelta, on_end: EndRecorder | None = None) -> None:
        self._store = store
        self.retention = retention
        self.lease = lease
        self.on_end = on_end

    def _end(self, tx: Tx, job_id: str, status: JobStatus, now: datetime) -> JobRecord | None:
        """End the locked job (:meth:`JobRepository.end`) and, in the same transaction,
        record its end with ``on_end`` (the webhook's event: stored with the end, or
        neither is)."""
        ended = JobRepository(tx).end(job_id, status, now, self.retention)
        if ended is not None and self.on_end is not None:
            self.on_end(tx, ended, now)
        return ended

    def create(self, new: NewJob, now: datetime) -> Created | ChargeRefusal | Replay:
        """Create the job and hold the credits of all its rows, in one transaction; all
        or nothing (CREDITS_EXHAUSTED, ACCOUNT_INACTIVE). With an idempotency claim, a
        key used before for the same body gives that job back (nothing more held), for
        another body :attr:`Replay.MISMATCH`."""
        at = to_micros(now)
        with self._store.write_transaction() as tx:
            account = ChargeRepository(tx).chargeable(new.account_id, now, None)
            if new.claim is not None:
                row = tx.one(f"SELECT {JOB_COLUMNS} FROM jobs WHERE key_hash = ?",
                             (new.claim.key_hash,))
                if row is not None:
                    if str(row.request_hash) != new.claim.request_hash:
                        return Replay.MISMATCH
                    return Created(job_from_row(row), replayed=True)
            if not isinstance(account, Account):
                assert isinstance(account, ChargeRefusal)
                return account
            jobs = JobRepository(tx)
            held = jobs.hold(account, [rows for rows, _ in new.chunks], at)
            if held is None:
                return ChargeRefusal.CREDITS_EXHAUSTED
            ids = [usage_id for pair in held for usage_id in pair if usage_id is not None]
            span = (min(ids), max(ids))
            job_id = "job_" + secrets.token_hex(12)
            tx.execute(
                "INSERT INTO jobs (id, account_id, kind, header, status, total, chunks, "
                "callback_url, result_url, key_hash, request_hash, usage_lo, usage_hi, "
                "created_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (job_id, new.account_id, new.kind, new.header, JobStatus.QUEUED.value,
                 new.total, len(new.chunks), new.callback_url,
                 new.origin.rstrip("/") + result_path(job_id) if new.origin else None,
                 None if new.claim is None else new.claim.key_hash,
                 None if new.claim is None else new.claim.request_hash, span[0], span[1],
                 at))
            first_row = 1
            for seq, ((rows, data), (paid, unpaid)) in enumerate(zip(new.chunks, held,
                                                                      strict=True)):
                tx.execute(
                    "INSERT INTO job_chunks (job_id, seq, first_row, rows, state, queued_us, "
                    "input, held_id, held_overage_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (job_id, seq, first_row, rows, ChunkState.QUEUED.value, at, data, paid,
                     unpaid))
                first_row += rows
            job = jobs.select(job_id)
            assert job is not None
            return Created(job, replayed=False)

    def get(self, job_id: str, account_id: int | None = None) -> JobRecord | None:
        """The job ``job_id`` (of ``account_id`` when given; None: no such job)."""
        with self._store.read_transaction() as tx:
            job = JobRepository(tx).select(job_id)
        if job is None or (account_id is not None and job.account_id != account_id):
            return None
        return job

    def recent(self, account_id: int | None = None, *, limit: int = 100) -> list[JobRecord]:
        """The newest jobs (of ``account_id`` when given), newest first."""
        where, params = ("WHERE account_id = ? ", (account_id,)) if account_id else ("", ())
        with self._store.read_transaction() as tx:
            rows = tx.rows(f"SELECT {JOB_COLUMNS} FROM jobs {where}"
                           "ORDER BY created_us DESC, id LIMIT ?", (*params, limit))
        return [job_from_row(row) for row in rows]

    def claim(self, now: datetime) -> ClaimedChunk | None:
        """Take the oldest chunk waiting (or whose worker's lease ran out) for this
        worker; None when there is none. PostgreSQL skips the chunks other workers are
        locking (``SKIP LOCKED``); SQLite's write transaction holds the database's one
        write lock."""
        at = to_micros(now)
        token = secrets.token_hex(8)
        live = (JobStatus.QUEUED.value, JobStatus.RUNNING.value)
        waiting = ("FROM job_chunks c JOIN jobs j ON j.id = c.job_id "
                   "WHERE (c.state = ? OR (c.state = ? AND c.lease_us < ?)) "
                   "AND j.status IN (?, ?)",
                   (ChunkState.QUEUED.value, ChunkState.RUNNING.value, at, *live))
        with self._store.read_transaction() as tx:  # the usual answer, without a write
            if tx.one(f"SELECT 1 AS found {waiting[0]} LIMIT 1", waiting[1]) is None:
                return None
        with self._store.write_transaction() as tx:
            lock = " FOR UPDATE OF c SKIP LOCKED" if tx.for_update else ""
            row = tx.one(
                "SELECT c.job_id, c.seq, c.first_row, c.rows, c.input, j.kind, j.header, "
                f"j.status {waiting[0]} ORDER BY c.queued_us, c.job_id, c.seq LIMIT 1" + lock,
                waiting[1])
            if row is None:
                return None
            tx.execute("UPDATE job_chunks SET state = ?, lease_us = ?, token = ?, "
                       "attempts = attempts + 1 WHERE job_id = ? AND seq = ?",
                       (ChunkState.RUNNING.value, to_micros(now + self.lease), token,
                        row.job_id, row.seq))
            if str(row.status) == JobStatus.QUEUED.value:  # its first chunk: lock the job
                tx.execute("UPDATE jobs SET status = ?, started_us = COALESCE(started_us, ?) "
                           "WHERE id = ? AND status = ?",
                           (JobStatus.RUNNING.value, at, row.job_id, JobStatus.QUEUED.value))
        return ClaimedChunk(job_id=str(row.job_id), seq=int(row.seq),
                            first_row=int(row.first_row), rows=int(row.rows),
                            kind=str(row.kind), header=str(row.header),
                            input=bytes(row.input), token=token)

    def complete(self, chunk: ClaimedChunk, output: bytes, failed: int,
                 now: datetime) -> JobRecord | None:
        """Commit a chunk's result (``failed`` of its rows are bad) if the claim is still
        this worker's; the job when this chunk ended it (settled), else None."""
        with self._store.write_transaction() as tx:
            jobs = JobRepository(tx)
            job = jobs.select(chunk.job_id, lock=True)
            if job is None or job.status.final:
                return None
            changed = tx.execute(
                "UPDATE job_chunks SET state = ?, output = ?, input = NULL, succeeded = ?, "
                "failed = ?, token = NULL WHERE job_id = ? AND seq = ? AND state = ? "
                "AND token = ?",
                (ChunkState.DONE.value, output, chunk.rows - failed, failed, chunk.job_id,
                 chunk.seq, ChunkState.RUNNING.value, chunk.token))
            if changed != 1:
                return None  # the lease ran out and another worker took it
            tx.execute("UPDATE jobs SET done = done + ?, failed = failed + ?, "
                       "chunks_done = chunks_done + 1 WHERE id = ?",
                       (chunk.rows, failed, chunk.job_id))
            jobs.charge_chunk(chunk.job_id, chunk.seq, chunk.rows - failed, now)
            if job.chunks_done + 1 < job.chunks:
                return None
            ended = self._end(tx, chunk.job_id, JobStatus.SUCCEEDED, now)
        return self._settled(ended, now)

    def give_up(self, chunk: ClaimedChunk, now: datetime, *,
                attempts: int) -> JobRecord | None:
        """A chunk could not be computed: queued again while it has had fewer than
        ``attempts`` tries, else its job fails (settled: its rows not done are
        refunded). The job when it ended, else None."""
        with self._store.write_transaction() as tx:
            jobs = JobRepository(tx)
            job = jobs.select(chunk.job_id, lock=True)
            if job is None or job.status.final:
                return None
            row = tx.one("SELECT attempts FROM job_chunks WHERE job_id = ? AND seq = ? "
                         "AND token = ?", (chunk.job_id, chunk.seq, chunk.token))
            if row is None:
                return None
            if int(row.attempts) < attempts:
                tx.execute("UPDATE job_chunks SET state = ?, token = NULL, lease_us = NULL "
                           "WHERE job_id = ? AND seq = ?",
                           (ChunkState.QUEUED.value, chunk.job_id, chunk.seq))
                return None
            ended = self._end(tx, chunk.job_id, JobStatus.FAILED, now)
        return self._settled(ended, now)

    def release(self, chunk: ClaimedChunk) -> None:
        """Give a claimed chunk back at once, its try not counted (its worker is shutting
        down): any worker may claim it now, not once its lease ran out."""
        with self._store.write_transaction() as tx:
            tx.execute("UPDATE job_chunks SET state = ?, token = NULL, lease_us = NULL, "
                       "attempts = attempts - 1 WHERE job_id = ? AND seq = ? AND token = ?",
                       (ChunkState.QUEUED.value, chunk.job_id, chunk.seq, chunk.token))

    def cancel(self, job_id: str, account_id: int | None, now: datetime) -> JobRecord | None:
        """Cancel the job (of ``account_id`` when given): its chunks not done are dropped
        and the credits of its rows not done released. The job as it is then (unchanged
        when it had ended); None: no such job."""
        with self._store.write_transaction() as tx:
            jobs = JobRepository(tx)
            job = jobs.select(job_id, lock=True)
            if job is None or (account_id is not None and job.account_id != account_id):
                return None
            ended = self._end(tx, job_id, JobStatus.CANCELLED, now)
        return job if ended is None else self._settled(ended, now)

    def settle(self, job_id: str, now: datetime) -> None:
        """Settle the credits of an ended job, :data:`SETTLE_BATCH` usage rows a
        transaction (a short hold of the locks, SQLite's write lock among them)."""
        while True:
            with self._store.write_transaction() as tx:
                if JobRepository(tx).settle_step(job_id, now, SETTLE_BATCH):
                    return

    def _settled(self, job: JobRecord | None, now: datetime) -> JobRecord | None:
        """``job`` (just ended) once settled; None stays None."""
        if job is not None:
            self.settle(job.id, now)
        return job

    def settle_ended(self, now: datetime) -> int:
        """Finish the settlements a crash interrupted; how many jobs."""
        with self._store.read_transaction() as tx:
            ids = [str(row.id) for row in tx.rows(
                "SELECT id FROM jobs WHERE finished_us IS NOT NULL AND settled = 0")]
        for job_id in ids:
            self.settle(job_id, now)
        return len(ids)

    def outputs(self, job_id: str) -> Iterator[bytes]:
        """The results of the job's chunks, in input order, each read on its own (a
        chunk without a result, of a job that did not succeed, is skipped)."""
        with self._store.read_transaction() as tx:
            seqs = [int(row.seq) for row in tx.rows(
                "SELECT seq FROM job_chunks WHERE job_id = ? AND state = ? ORDER BY seq",
                (job_id, ChunkState.DONE.value))]
        for seq in seqs:
            with self._store.read_transaction() as tx:
                row = tx.one("SELECT output FROM job_chunks WHERE job_id = ? AND seq = ?",
                             (job_id, seq))
            if row is not None and row.output is not None:
                yield bytes(row.output)

    def unnotified(self, limit: int = 100) -> list[JobRecord]:
        """Ended jobs whose end has not been announced yet (oldest first)."""
        with self._store.read_transaction() as tx:
            rows = tx.rows(f"SELECT {JOB_COLUMNS} FROM jobs WHERE finished_us IS NOT NULL "
                           "AND notified_us IS NULL ORDER BY finished_us LIMIT ?", (limit,))
        return [job_from_row(row) for row in rows]

    def mark_notified(self, job_id: str, now: datetime) -> None:
        """Record that the job's end was announced."""
        with self._store.write_transaction() as tx:
            tx.execute("UPDATE jobs SET notified_us = ? WHERE id = ?",
                       (to_micros(now), job_id))

    def sweep(self, now: datetime) -> int:
        """Delete the input and results of the jobs whose retention ran out (the job
        itself stays, marked expired), and the webhook deliveries finished as long ago;
        how many jobs."""
        with self._store.write_transaction() as tx:
            WebhookRepository(tx).prune(now - self.retention)
            rows = tx.rows("SELECT id FROM jobs WHERE expires_us < ? AND expired = 0",
                           (to_micros(now),))
            ids = [str(row.id) for row in rows]
            for job_id in ids:
                tx.execute("DELETE FROM job_chunks WHERE job_id = ?", (job_id,))
                tx.execute("UPDATE jobs SET expired = 1 WHERE id = ?", (job_id,))
        return len(ids)
