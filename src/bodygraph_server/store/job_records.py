"""What the jobs' store (:mod:`.jobs`) hands back and takes: a job's and a chunk's
states, a job as stored, a job to create, a claimed chunk; read from rows by column
name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bodygraph_server.policy.clock import from_micros, from_micros_or_none
from bodygraph_server.store.connections import Row
from bodygraph_server.store.records import IdempotencyClaim

JOB_COLUMNS = (
    "id, account_id, kind, header, status, total, done, failed, chunks, chunks_done, "
    "callback_url, result_url, request_hash, usage_lo, usage_hi, created_us, finished_us, "
    "expires_us, expired, notified_us"
)


class JobStatus(StrEnum):
    """Where a job is."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def final(self) -> bool:
        """Whether the job has ended."""
        return self not in (JobStatus.QUEUED, JobStatus.RUNNING)


class ChunkState(StrEnum):
    """Where a chunk is."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    DROPPED = "dropped"  # its job was cancelled or failed before it ran


@dataclass(frozen=True, slots=True)
class JobRecord:
    """A job as stored."""

    id: str
    account_id: int
    kind: str
    header: str
    status: JobStatus
    total: int
    done: int
    failed: int
    chunks: int
    chunks_done: int
    callback_url: str | None
    result_url: str | None
    """The absolute address of its result (None: not known when it was submitted)."""
    created_at: datetime
    finished_at: datetime | None
    expires_at: datetime | None
    expired: bool
    notified: bool

    @property
    def succeeded(self) -> int:
        """Rows computed without an error."""
        return self.done - self.failed


@dataclass(frozen=True, slots=True)
class NewJob:
    """A job to create: its owner, its kind, the column names of its chunks' CSV and the
    chunks (zlib-compressed CSV rows, with the count of rows in each)."""

    account_id: int
    kind: str
    header: str
    chunks: Sequence[tuple[int, bytes]]
    callback_url: str | None = None
    claim: IdempotencyClaim | None = None
    origin: str = ""
    """The service's base address the job was submitted to (its result's address is made
    from it; empty: none)."""

    @property
    def total(self) -> int:
        """Every row of the job."""
        return sum(rows for rows, _ in self.chunks)


@dataclass(frozen=True, slots=True)
class Created:
    """A job created, or found again for a retry with its Idempotency-Key."""

    job: JobRecord
    replayed: bool


@dataclass(frozen=True, slots=True)
class ClaimedChunk:
    """A chunk a worker took: its job's kind and header, its input, and the token that
    proves the claim is still its own."""

    job_id: str
    seq: int
    first_row: int
    rows: int
    kind: str
    header: str
    input: bytes
    token: str


def job_from_row(row: Row) -> JobRecord:
    """A :class:`JobRecord` from a row of :data:`JOB_COLUMNS`."""
    return JobRecord(
        id=str(row.id), account_id=int(row.account_id), kind=str(row.kind),
        header=str(row.header), status=JobStatus(str(row.status)), total=int(row.total),
        done=int(row.done), failed=int(row.failed), chunks=int(row.chunks),
        chunks_done=int(row.chunks_done),
        callback_url=None if row.callback_url is None else str(row.callback_url),
        result_url=None if row.result_url is None else str(row.result_url),
        created_at=from_micros(int(row.created_us)),
        finished_at=from_micros_or_none(row.finished_us),
        expires_at=from_micros_or_none(row.expires_us),
        expired=bool(row.expired), notified=row.notified_us is not None,
    )
