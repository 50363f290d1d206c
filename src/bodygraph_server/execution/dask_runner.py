"""Chunks of jobs run on a Dask cluster (``BODYGRAPH_DASK_SCHEDULER``): one
``distributed`` task per chunk, retried by Dask on another worker when one dies."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Seconds to wait for the scheduler when connecting.
CONNECT_TIMEOUT = 10.0


class DaskUnavailableError(RuntimeError):
    """The Dask scheduler cannot be reached."""


class DaskChunkRunner:
    """A :class:`~bodygraph_server.execution.runners.ChunkRunner` over the Dask scheduler at
    ``address`` (``tcp://host:8786``). Connects on first use, on the running event loop.

    A chunk is one task (``pure=False``: two equal chunks are two tasks). When the worker
    running it dies, the scheduler gives it to another worker, up to its
    ``distributed.scheduler.allowed-failures`` deaths (3 by default), then the run raises
    ``distributed.KilledWorker``; an exception raised by ``work`` itself is retried
    ``retries`` times (0 by default: a chunk's own failure is not chance).
    """

    def __init__(self, address: str, *, retries: int = 0,
                 connect_timeout: float = CONNECT_TIMEOUT) -> None:
        self.address = address
        self.retries = retries
        self.connect_timeout = connect_timeout
        self._client: Any = None
        self._connecting: asyncio.Lock | None = None

    async def _connected(self) -> Any:
        if self._client is not None:
            return self._client
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._client is None:
                import distributed  # heavy: only where jobs run on Dask

                connect: Any = distributed.Client
                try:
                    self._client = await connect(
                        self.address, asynchronous=True, timeout=self.connect_timeout,
                        set_as_default=False)
                except (OSError, TimeoutError) as exc:
                    raise DaskUnavailableError(
                        f"cannot reach the Dask scheduler at {self.address}: {exc}") from exc
        return self._client

    async def run(self, work: Callable[[T], R], task: T) -> R:
        """``work(task)`` on a worker of the cluster; its result."""
        client = await self._connected()
        future = client.submit(work, task, pure=False, retries=self.retries)
        try:
            result: R = await future
        except asyncio.CancelledError:
            cancelled = future.cancel()
            if inspect.isawaitable(cancelled):
                await asyncio.shield(cancelled)
            raise
        return result

    async def aclose(self) -> None:
        """Disconnect from the scheduler (the cluster keeps running)."""
        client, self._client = self._client, None
        if client is not None:
            await client.close()
