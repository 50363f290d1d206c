"""Group commit: the successful calls of concurrent requests are committed together, each
request learning its own reservation's outcome (docs/accounts.md, "Charging
protocol")."""

from __future__ import annotations

from collections.abc import Sequence

from bodygraph_server.batching import Batcher
from bodygraph_server.billing.accounts import Reservation
from bodygraph_server.billing.outcomes import resolve_commits
from bodygraph_server.billing.request_path import RequestBook
from bodygraph_server.store import CommitUncertainError, ReservationNotFoundError

DEFAULT_MAX_BATCH = 64


class CommitBatcher(Batcher[Reservation, None]):
    """Commits the reservations of one event loop's requests in groups.

    ``requests`` makes the bookkeeping calls (on the event loop or a thread). A commit,
    once asked for, is carried out even if the request is cancelled meanwhile (as a
    started bookkeeping call always is), so a computed and answered chart is never left
    as a pending reservation.
    """

    def __init__(self, requests: RequestBook, max_batch: int = DEFAULT_MAX_BATCH) -> None:
        super().__init__(max_batch)
        self.requests = requests

    async def commit(self, reservation: Reservation) -> None:
        """Commit ``reservation`` (with whatever other commits are waiting); raises
        :class:`ReservationNotFoundError` if it was no longer pending."""
        await self.submit(reservation, shield=True)

    async def process(self, items: Sequence[Reservation]) -> list[BaseException | None]:
        """Commit a batch in one bookkeeping call; a reservation no longer pending fails
        its own request only."""
        try:
            committed = await self.requests.commit_many(items)
        except CommitUncertainError as lost:
            requests = self.requests
            return await resolve_commits(requests.book, requests.run, items, lost)
        return [
            None if done else ReservationNotFoundError(f"no pending reservation {item.id}")
            for item, done in zip(items, committed, strict=True)
        ]
