"""Where a job's chunks are computed: :class:`ChunkRunner`, the service's own processes
(:class:`LocalRunner`, a bounded share beside the requests) or a Dask cluster
(:class:`~.dask_runner.DaskChunkRunner`), chosen by :func:`runner_for`."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol, TypeVar

from bodygraph_server.execution.dask_runner import DaskChunkRunner

T = TypeVar("T")
R = TypeVar("R")

#: The niceness of the local job processes: the requests' processes come first.
JOB_NICENESS = 10


class ChunkRunner(Protocol):
    """Computes one chunk somewhere: ``work(task)``, both picklable."""

    async def run(self, work: Callable[[T], R], task: T) -> R: ...   # work and task picklable

    async def aclose(self) -> None: ...


#: prctl's PR_SET_PDEATHSIG (Linux): the signal a process gets when its parent dies.
_PR_SET_PDEATHSIG = 1


def _job_process(parent: int) -> None:
    """A job process yields the cores to the service's request processes, and dies with
    the service process that started it (a killed worker leaves no process behind: its
    chunk is claimed again once its lease runs out)."""
    with contextlib.suppress(OSError):  # not allowed here: the same priority
        os.nice(JOB_NICENESS)
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before that took effect
        os._exit(1)


class LocalRunner:
    """Chunks computed by ``processes`` worker processes of this service process, started
    on first use (spawned: the service process runs threads) at a lower priority, so
    interactive requests keep their latency; a pool broken by a killed process is
    replaced on the next chunk."""

    def __init__(self, processes: int = 1) -> None:
        if processes < 1:
            raise ValueError("a local runner needs at least one process")
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.processes, mp_context=multiprocessing.get_context("spawn"),
                initializer=_job_process, initargs=(os.getpid(),))
        return self._pool

    async def run(self, work: Callable[[T], R], task: T) -> R:
        """``work(task)`` in one of the processes."""
        pool = self._executor()
        try:
            return await asyncio.wrap_future(pool.submit(work, task))
        except BrokenProcessPool:
            if self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            raise

    async def aclose(self) -> None:
        """Stop the processes (a chunk they were computing is claimed again later)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def runner_for(*, dask_scheduler: str = "", processes: int = 1) -> ChunkRunner:
    """The runner the settings ask for: the Dask cluster at ``dask_scheduler`` when set
    (connected on its first chunk), else :class:`LocalRunner` with ``processes``
    processes."""
    if dask_scheduler.strip():
        return DaskChunkRunner(dask_scheduler.strip())
    return LocalRunner(processes)
