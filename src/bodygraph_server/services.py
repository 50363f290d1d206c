"""What a running app holds (settings, bookkeeping, chart source, render parts, the
calendar's months): made in the app's lifespan or by tests, reached through
:func:`services_of`."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.billing.commits import CommitBatcher
from bodygraph_server.billing.deliveries import DeliveryJournal
from bodygraph_server.billing.request_path import RequestBook
from bodygraph_server.calendar_cache import CalendarCache
from bodygraph_server.charting import ChartSource
from bodygraph_server.images.route import RenderContext, StyleCache
from bodygraph_server.images.templates import TemplateHub
from bodygraph_server.images.tokens import KeyRing
from bodygraph_server.settings import Settings
from bodygraph_server.store.base import JobStore
from bodygraph_server.webhooks.delivery import WebhookSender

SCOPE_KEY = "bodygraph.services"

T = TypeVar("T")


def bookkeeping_threads(database_url: str) -> int:
    """How many bookkeeping calls may run at once in one process: 0 for SQLite (they run on
    the event loop: see :class:`BookThreads`), 8 for PostgreSQL."""
    return 0 if database_url.lower().startswith("sqlite") else 8


class BookThreads:
    """The threads that run blocking bookkeeping calls: at most ``threads`` at once (see
    :func:`bookkeeping_threads`), or none.

    With ``threads`` 0 every call runs at once on the calling (event-loop) thread. That is
    the choice for SQLite: its calls are short, a process's writes are serialized anyway,
    and a hand-off to a thread costs more than a call in GIL and futex traffic (measured:
    docs/performance.md, "What changed in this round"). The price: while another process
    holds SQLite's write lock, the worker waits without serving anything else, at most the
    busy timeout (``BODYGRAPH_SQLITE_BUSY_TIMEOUT``) once when another program keeps the
    lock, then a short wait per write until it is free (then 503s,
    :mod:`bodygraph_server.store.sqlite`).

    On asyncio (uvicorn) the calls go to a dedicated :class:`ThreadPoolExecutor`, whose
    threads stay busy under load (its hand-off against ``anyio.to_thread.run_sync``'s:
    docs/performance.md). On PostgreSQL under asyncio a request without an Idempotency-Key
    admits, reserves (where one statement will do) and commits on the event loop instead
    (:mod:`bodygraph_server.billing.request_path`). On another event loop
    the calls fall back to ``anyio.to_thread.run_sync`` with a capacity limiter of the same
    size. Either way a
    started call is never abandoned: cancellation waits for it to finish, as with
    ``run_sync``.
    """

    def __init__(self, threads: int) -> None:
        if threads < 0:
            raise ValueError("threads must be 0 (inline) or more")
        self.threads = threads
        self._executor = (ThreadPoolExecutor(threads, thread_name_prefix="bookkeeping")
                          if threads else None)
        self._limiter = anyio.CapacityLimiter(max(threads, 1))

    async def run(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` in a bookkeeping thread (or inline); its result or its
        exception."""
        if self._executor is None:
            return call(*args)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio): anyio's own threads
            return await anyio.to_thread.run_sync(call, *args, limiter=self._limiter)
        future = loop.run_in_executor(self._executor, functools.partial(call, *args))
        with anyio.CancelScope(shield=True):
            result = await future
        return result

    def close(self) -> None:
        """Wait for the running calls, then stop the threads."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)


@dataclass(frozen=True, slots=True)
class Services:
    """The long-lived resources of one worker process."""

    settings: Settings
    book: Bookkeeper
    charts: ChartSource
    book_threads: BookThreads
    keys: KeyRing
    """Render signing keys: the newest signs ``svgRenderUrl`` tokens, all verify."""
    templates: TemplateHub
    """The accounts' render templates (active template ids, styles)."""
    styles: StyleCache
    """``templates`` behind the image route's 24-hour style cache."""
    requests: RequestBook
    """A request's admission, reservation and commit (on the event loop for PostgreSQL)."""
    commits: CommitBatcher
    """Group commit of the successful calls' reservations."""
    calendar: CalendarCache
    """The ingress calendar's months, computed once for every caller."""
    deliveries: DeliveryJournal | None = None
    """This worker's charges and which answers it wrote (None: not kept)."""
    jobs: JobStore | None = None
    """The asynchronous jobs (None: this service keeps none)."""
    webhooks: WebhookSender | None = None
    """Sends the jobs' webhooks from the outbox (None: not in this process)."""

    def job_ended(self) -> None:
        """A job's end was committed (its webhook with it): send it now."""
        if self.webhooks is not None:
            self.webhooks.wake()

    def render_context(self) -> RenderContext:
        """What the image route needs."""
        return RenderContext(self.keys, self.styles)

    async def run_bookkeeping(self, call: Callable[..., T], *args: Any) -> T:
        """Run a blocking bookkeeping call in a bookkeeping thread (:class:`BookThreads`)."""
        return await self.book_threads.run(call, *args)


class ServicesMissingError(RuntimeError):
    """A request arrived before the lifespan created the services."""


def services_of(scope: Mapping[str, Any]) -> Services:
    """The services of the app serving ``scope`` (from the lifespan state)."""
    state = scope.get("state") or {}
    services = state.get(SCOPE_KEY)
    if not isinstance(services, Services):
        raise ServicesMissingError("the app's lifespan has not run (no services)")
    return services
