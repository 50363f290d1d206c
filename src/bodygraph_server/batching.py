"""Group work of concurrent callers of one event loop: the pattern behind the chart batcher
and the group commit (a caller with no batch in flight leads the queued ones; docs/api.md,
"Running it")."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

import anyio

T = TypeVar("T")
R = TypeVar("R")


@dataclass(slots=True, eq=False)
class _Waiting(Generic[T, R]):
    """One queued item (compared by identity: equal items are still two callers')."""

    item: T
    outcome: R | BaseException | None = None
    done: bool = False


class Batcher(ABC, Generic[T, R]):
    """Runs :meth:`process` on the queued items of concurrent callers, in groups."""

    def __init__(self, max_batch: int) -> None:
        self.max_batch = max_batch
        self._queue: deque[_Waiting[T, R]] = deque()
        self._running: anyio.Event | None = None

    @abstractmethod
    async def process(self, items: Sequence[T]) -> Sequence[R | BaseException]:
        """The outcome of every item, in order: its result, or the exception its caller
        raises. If it raises, every caller of the batch raises that exception."""

    async def gather(self) -> None:
        """Called by a leader before it takes its batch (to wait for more items); by
        default nothing."""

    def queued(self) -> int:
        """How many items wait for a batch."""
        return len(self._queue)

    def queue_changed(self) -> None:
        """Called after an item joined the queue (subclasses add other changes); by default
        nothing."""

    async def submit(self, item: T, *, shield: bool = False) -> R:
        """Queue ``item``, wait for its batch, and return its result (or raise its
        exception). With ``shield`` the wait cannot be cancelled (the item is always
        processed); otherwise a caller cancelled before its batch started withdraws it."""
        waiting: _Waiting[T, R] = _Waiting(item)
        self._queue.append(waiting)
        self.queue_changed()
        try:
            with anyio.CancelScope(shield=shield):
                while not waiting.done:
                    await self._wait_or_lead()
        except BaseException:
            if waiting in self._queue:  # given up before its batch started: withdraw it
                self._queue.remove(waiting)
            raise
        if isinstance(waiting.outcome, BaseException):
            raise waiting.outcome
        return cast(R, waiting.outcome)

    async def _wait_or_lead(self) -> None:
        """Wait for the batch in flight, or (none in flight) run the next batch."""
        running = self._running
        if running is not None:
            await running.wait()
            return
        finished = self._running = anyio.Event()
        try:
            await self.gather()
            count = min(len(self._queue), self.max_batch)
            batch = [self._queue.popleft() for _ in range(count)]
            outcomes: Sequence[R | BaseException]
            try:
                outcomes = await self.process([waiting.item for waiting in batch])
            except Exception as exc:  # not swallowed: every caller of the batch raises it
                outcomes = [exc] * len(batch)
            except BaseException:  # the leader was cancelled: the next leader runs them
                self._queue.extendleft(reversed(batch))
                raise
            for waiting, outcome in zip(batch, outcomes, strict=True):
                waiting.outcome, waiting.done = outcome, True
        finally:
            self._running = None
            finished.set()
