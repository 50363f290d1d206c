"""Group commit: the successful calls of concurrent requests are committed together.

Every successful chart request ends by committing its credit reservation, and answers only
once the commit is stored. Under load many requests finish at about the same time; a
:class:`CommitBatcher` lets the first of them commit every reservation waiting at that
moment in one bookkeeping call (one transaction on the SQL stores: one write lock, one
hand-off to a bookkeeping thread) while the others wait for that result. An idle service
commits each request at once, alone.

Each request still learns the outcome of its own reservation: one that was no longer
pending fails that request only (:class:`ReservationNotFoundError`), and a failing store
call fails the requests of that batch, each with the store's exception.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import anyio

from bodygraph_server.billing.accounts import Bookkeeper, Reservation
from bodygraph_server.store import ReservationNotFoundError

DEFAULT_MAX_BATCH = 64


T = TypeVar("T")


class BookRunner(Protocol):
    """Runs a blocking bookkeeping call in a thread (``BookThreads.run``)."""

    async def __call__(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` off the event loop."""
        ...


@dataclass(slots=True, eq=False)
class _Pending:
    reservation: Reservation
    error: BaseException | None = None
    done: bool = False


class CommitBatcher:
    """Commits the reservations of one event loop's requests in groups.

    ``run`` runs a blocking call in a bookkeeping thread (``BookThreads.run``). A commit,
    once asked for, is carried out even if the request is cancelled meanwhile (as a
    started bookkeeping call always is), so a computed and answered chart is never left
    as a pending reservation.
    """

    def __init__(
        self, book: Bookkeeper, run: BookRunner, max_batch: int = DEFAULT_MAX_BATCH
    ) -> None:
        self.book = book
        self.max_batch = max_batch
        self._run = run
        self._queue: deque[_Pending] = deque()
        self._running: anyio.Event | None = None

    async def commit(self, reservation: Reservation) -> None:
        """Commit ``reservation`` (with whatever other commits are waiting); raises
        :class:`ReservationNotFoundError` if it was no longer pending."""
        item = _Pending(reservation)
        self._queue.append(item)
        with anyio.CancelScope(shield=True):
            while not item.done:
                await self._wait_or_lead()
        if item.error is not None:
            raise item.error

    async def _wait_or_lead(self) -> None:
        running = self._running
        if running is not None:
            await running.wait()
            return
        finished = self._running = anyio.Event()
        try:
            count = min(len(self._queue), self.max_batch)
            batch = [self._queue.popleft() for _ in range(count)]
            try:
                results = await self._run(
                    self.book.commit_many, [item.reservation for item in batch]
                )
            except Exception as exc:
                for item in batch:
                    item.error, item.done = exc, True
            else:
                for item, committed in zip(batch, results, strict=True):
                    if not committed:
                        item.error = ReservationNotFoundError(
                            f"no pending reservation {item.reservation.id}"
                        )
                    item.done = True
        finally:
            self._running = None
            finished.set()
