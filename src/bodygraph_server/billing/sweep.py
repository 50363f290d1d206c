"""The sweep of stale reservations: credits taken by calls whose process died.

A chart call reserves its credit before computing and commits or releases it afterwards
(:mod:`bodygraph_server.http.endpoint`). If the worker dies in between, the reservation would
stay pending forever with its credit spent. Every worker therefore releases, at start-up
and then every :data:`SWEEP_INTERVAL` seconds, the reservations older than the request
time-out plus :data:`SWEEP_GRACE` seconds: no live call can still hold one (a call gives
up at the time-out). Released credits go back under the usual rule (only within the same
credit period). Several workers sweeping at once is safe: each reservation is released
once.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta

import anyio

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.settings import Settings
from bodygraph_server.store import StoreError

LOG = logging.getLogger("bodygraph_server")

SWEEP_INTERVAL = 60.0
SWEEP_GRACE = 30.0


def stale_after(settings: Settings) -> timedelta:
    """How old a pending reservation must be to count as abandoned."""
    return timedelta(seconds=settings.request_timeout + SWEEP_GRACE)


def sweep_stale(book: Bookkeeper, settings: Settings) -> int:
    """Release the abandoned reservations now; how many. Blocking."""
    now = book.clock.now()
    released = book.store.release_stale(now - stale_after(settings), now)
    if released:
        LOG.warning("released %d abandoned reservation(s)", released)
    return released


async def sweep_forever(
    book: Bookkeeper,
    settings: Settings,
    run_blocking: Callable[[Callable[[], int]], Awaitable[int]],
    interval: float = SWEEP_INTERVAL,
) -> None:
    """Sweep every ``interval`` seconds until cancelled, each sweep handed to
    ``run_blocking`` (the service's bookkeeping threads); a database failure is logged and
    the next round tries again."""
    sweep = functools.partial(sweep_stale, book, settings)
    while True:
        await anyio.sleep(interval)
        try:
            await run_blocking(sweep)
        except StoreError as exc:
            LOG.warning("reservation sweep failed (%s); retrying in %.0f s",
                        type(exc).__name__, interval)
