"""The jobs' worker loop of a service process: claim a chunk (any job's, any instance's),
compute it on the :class:`~.runners.ChunkRunner`, commit its result; announce each job's
end through :func:`announce_job_end`; delete expired results (docs/jobs.md)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

import anyio
import anyio.to_thread

from bodygraph_server.execution.chunks import ChunkResult, ChunkTask, compute_chunk
from bodygraph_server.execution.dask_runner import DaskUnavailableError
from bodygraph_server.execution.runners import ChunkRunner
from bodygraph_server.store import StoreError
from bodygraph_server.store.base import JobStore
from bodygraph_server.store.jobs import ClaimedChunk, JobRecord

LOG = logging.getLogger("bodygraph_server")

#: Tries of a chunk (its computation failed, its process died) before its job fails.
ATTEMPTS = 3
#: Seconds between two looks for work when there was none.
IDLE = 1.0
#: Seconds between two sweeps of expired results and unannounced job ends.
SWEEP_EVERY = 60.0

JobEndHook = Callable[[JobRecord], Awaitable[None]]
"""Called once a job has ended (succeeded, failed or cancelled), after its commit."""


async def announce_job_end(job: JobRecord) -> None:
    """The default job-end hook: log it. The job's webhook is stored by the store in the
    transaction that ended the job (``SqlJobs(on_end=...)``); :func:`waking` also wakes
    its sender."""
    LOG.info("job %s ended: %s", job.id, job.status.value)


def waking(wake: Callable[[], None]) -> JobEndHook:
    """The job-end hook that logs the end and calls ``wake`` (the webhook sender's: the
    event is in the outbox, committed with the end)."""

    async def announce(job: JobRecord) -> None:
        await announce_job_end(job)
        wake()

    return announce


async def job_ended(jobs: JobStore, job: JobRecord, now: Callable[[], datetime],
                    hook: JobEndHook = announce_job_end) -> None:
    """Announce a job's end through ``hook`` (default :func:`announce_job_end`), then
    record it as announced; a failure is logged and left to the sweep's next round."""
    try:
        await hook(job)
    except Exception:
        LOG.exception("announcing the end of job %s failed; the sweep tries again", job.id)
        return
    await anyio.to_thread.run_sync(jobs.mark_notified, job.id, now())


class JobWorker:
    """The loop of one service process (see the module docstring). ``lanes``: chunks in
    flight at once (one more than the runner computes, so that it never waits for the
    database between two chunks)."""

    def __init__(self, jobs: JobStore, runner: ChunkRunner, now: Callable[[], datetime], *,
                 lanes: int = 2, on_end: JobEndHook = announce_job_end,
                 idle: float = IDLE) -> None:
        self.jobs = jobs
        self.runner = runner
        self.now = now
        self.lanes = lanes
        self.on_end = on_end
        self.idle = idle

    async def ended(self, job: JobRecord) -> None:
        """Announce a job's end (:func:`job_ended`)."""
        await job_ended(self.jobs, job, self.now, self.on_end)

    async def step(self) -> bool:
        """Claim, compute and commit one chunk; whether there was one (False too when the
        Dask scheduler cannot be reached: the chunk is given back, its try not counted)."""
        chunk: ClaimedChunk | None = await anyio.to_thread.run_sync(self.jobs.claim,
                                                                    self.now())
        if chunk is None:
            return False
        task = ChunkTask(kind=chunk.kind, header=chunk.header, data=chunk.input,
                         first_row=chunk.first_row)
        try:
            result: ChunkResult = await self.runner.run(compute_chunk, task)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True), contextlib.suppress(StoreError):
                await anyio.to_thread.run_sync(self.jobs.release, chunk)
            raise
        except DaskUnavailableError as exc:  # not the chunk's fault: it waits, not fails
            LOG.warning("job worker: %s; the chunk waits", exc)
            await anyio.to_thread.run_sync(self.jobs.release, chunk)
            return False
        except Exception as exc:
            LOG.warning("a chunk of job %s failed (%s); it is tried again", chunk.job_id,
                        type(exc).__name__)
            ended = await anyio.to_thread.run_sync(
                lambda: self.jobs.give_up(chunk, self.now(), attempts=ATTEMPTS))
        else:
            ended = await anyio.to_thread.run_sync(
                lambda: self.jobs.complete(chunk, result.output, result.failed, self.now()))
        if ended is not None:
            await self.ended(ended)
        return True

    async def lane(self) -> None:
        """Steps until cancelled; a database outage waits and tries again."""
        while True:
            try:
                busy = await self.step()
            except StoreError as exc:
                LOG.warning("job worker: %s; retrying", exc)
                busy = False
            if not busy:
                await anyio.sleep(self.idle)

    async def sweep(self) -> None:
        """Finish the settlements a crash interrupted, delete expired results and
        announce the ends not announced yet, then again every :data:`SWEEP_EVERY`
        seconds until cancelled."""
        while True:
            try:
                await anyio.to_thread.run_sync(self.jobs.settle_ended, self.now())
                swept = await anyio.to_thread.run_sync(self.jobs.sweep, self.now())
                if swept:
                    LOG.info("deleted the results of %d expired job(s)", swept)
                for job in await anyio.to_thread.run_sync(self.jobs.unnotified):
                    await self.ended(job)
            except StoreError as exc:
                LOG.warning("job sweep failed (%s); retrying", exc)
            await anyio.sleep(SWEEP_EVERY)

    async def run(self) -> None:
        """The lanes and the sweep, until cancelled; then the runner is closed."""
        try:
            async with anyio.create_task_group() as group:
                for _ in range(self.lanes):
                    group.start_soon(self.lane)
                group.start_soon(self.sweep)
        finally:
            with anyio.CancelScope(shield=True):
                await self.runner.aclose()
