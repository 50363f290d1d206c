"""The jobs' parts of a service process, made from its settings: the jobs' store over the
bookkeeping database and the worker loop on the runner the settings choose."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from bodygraph_server.execution.runners import runner_for
from bodygraph_server.execution.worker import JobEndHook, JobWorker, announce_job_end
from bodygraph_server.settings import Settings
from bodygraph_server.store.base import JobStore, TransactionSource
from bodygraph_server.store.jobs import EndRecorder, SqlJobs


def job_store(store: TransactionSource, settings: Settings, *,
              on_end: EndRecorder | None = None) -> JobStore:
    """The jobs in the bookkeeping database, kept and leased as the settings say;
    ``on_end`` records a job's end in the transaction that ends it (its webhook)."""
    return SqlJobs(store, retention=timedelta(hours=settings.job_retention_hours),
                   lease=timedelta(seconds=settings.job_lease), on_end=on_end)


def job_worker(jobs: JobStore, settings: Settings, now: Callable[[], datetime], *,
               on_end: JobEndHook = announce_job_end) -> JobWorker:
    """The worker loop of this process: chunks on the runner of the settings (the Dask
    cluster of ``dask_scheduler``, else ``job_processes`` local processes), one more in
    flight than it computes at once; ``on_end`` after a job's end is committed."""
    runner = runner_for(dask_scheduler=settings.dask_scheduler,
                        processes=settings.job_processes)
    return JobWorker(jobs, runner, now, lanes=settings.job_processes + 1, on_end=on_end)
