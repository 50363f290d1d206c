"""The housekeeping of every worker: the sweep of stale reservations (calls whose process
died) and the pruning of expired rate-limit hits and idempotency keys
(docs/accounts.md, "Charging protocol")."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta

import anyio

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.billing.idempotency import KEY_LIFETIME
from bodygraph_server.billing.ratelimit import WINDOW_SECONDS
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


def tidy(book: Bookkeeper, settings: Settings) -> int:
    """One housekeeping round: :func:`sweep_stale`, then prune rate-limit hits outside
    the window and expired idempotency keys. Blocking; the number of reservations
    released."""
    released = sweep_stale(book, settings)
    now = book.clock.now()
    book.store.prune_rate_hits(now - timedelta(seconds=WINDOW_SECONDS))
    book.store.prune_idempotency(now - KEY_LIFETIME)
    return released


async def sweep_forever(
    book: Bookkeeper,
    settings: Settings,
    run_blocking: Callable[[Callable[[], int]], Awaitable[int]],
    interval: float = SWEEP_INTERVAL,
) -> None:
    """A housekeeping round (:func:`tidy`) every ``interval`` seconds until cancelled,
    each handed to ``run_blocking`` (the service's bookkeeping threads). A failed round is
    logged and the next one tries again; nothing it raises ends the loop."""
    round_ = functools.partial(tidy, book, settings)
    while True:
        await anyio.sleep(interval)
        try:
            await run_blocking(round_)
        except StoreError as exc:
            LOG.warning("housekeeping failed (%s); retrying in %.0f s", exc, interval)
        except Exception:
            LOG.exception("housekeeping failed unexpectedly; retrying in %.0f s", interval)
