"""A chart request's bookkeeping as the HTTP layer awaits it (admission, reservation,
group commit): on the event loop where the store offers it (PostgreSQL), else as
blocking calls through ``run``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import anyio

from bodygraph_server.billing.accounts import Bookkeeper, Denied, Principal, RateDecision
from bodygraph_server.billing.principals import principal_of
from bodygraph_server.store import Reservation

if TYPE_CHECKING:  # psycopg is imported only where PostgreSQL is used
    from bodygraph_server.store.async_request_path import AsyncRequestPath

T = TypeVar("T")


class BookRunner(Protocol):
    """Runs a blocking bookkeeping call in a thread (``BookThreads.run``)."""

    async def __call__(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` off the event loop."""
        ...


class RequestBook:
    """See the module docstring."""

    def __init__(
        self, book: Bookkeeper, run: BookRunner, async_path: AsyncRequestPath | None = None
    ) -> None:
        self.book = book
        self.run = run
        self.async_path = async_path

    async def admit(self, api_key: str) -> tuple[Principal | Denied, RateDecision | None]:
        """:meth:`Bookkeeper.admit`."""
        book, async_path = self.book, self.async_path
        windows = None if async_path is None else book.windows_for(api_key)
        if async_path is None or windows is None:
            return await self.run(book.admit, api_key)
        key_hash, limiter = windows
        with anyio.CancelScope(shield=True):  # as a started thread call: never abandoned
            record, decision = await async_path.admit_key(
                key_hash, book.clock.now(), limiter.limit, limiter.window_seconds
            )
        return principal_of(record), decision

    async def count_auth_failure(self, address: str) -> RateDecision:
        """:meth:`Bookkeeper.count_auth_failure`."""
        return await self.run(self.book.count_auth_failure, address)

    async def reserve(self, principal: Principal, endpoint: str) -> Reservation | Denied:
        """:meth:`Bookkeeper.reserve` without an idempotency claim."""
        if self.async_path is not None:
            with anyio.CancelScope(shield=True):  # a credit taken is always known
                reservation = await self.async_path.reserve(
                    principal.account_id, endpoint, self.book.clock.now()
                )
            if reservation is not None:
                return reservation
            return await self.run(self.book.reserve_generally, principal, endpoint)
        return await self.run(self.book.reserve, principal, endpoint)

    async def commit_many(self, reservations: Sequence[Reservation]) -> list[bool]:
        """:meth:`Bookkeeper.commit_many`."""
        if self.async_path is None:
            return await self.run(self.book.commit_many, reservations)
        with anyio.CancelScope(shield=True):
            done = await self.async_path.commit_many([r.id for r in reservations],
                                                  self.book.clock.now())
        return done
