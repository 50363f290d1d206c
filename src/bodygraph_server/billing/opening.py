"""Opening the bookkeeping when the database may be down: ``serve`` and every worker
wait for it (retrying with a bounded, logged back-off) instead of exiting, unless the
database named does not exist."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store import (
    DEFAULT_BUSY_TIMEOUT,
    DatabaseMissingError,
    DatabaseUnavailableError,
)

LOG = logging.getLogger("bodygraph_server")

#: The first wait after a failed attempt, and the longest one (the wait doubles between).
FIRST_DELAY = 0.5
MAX_DELAY = 5.0


def open_waiting(
    database_url: str,
    *,
    rate_limit_url: str | None = None,
    busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    sleep: Callable[[float], None] = time.sleep,
    attempts: int | None = None,
) -> Bookkeeper:
    """:meth:`Bookkeeper.open`, tried again while the database is unavailable: after
    0.5 s, 1 s, 2 s, 4 s, then every 5 s, each failure logged; ``attempts`` bounds the
    tries (None: until the database answers). Other errors (a malformed URL, a database
    that does not exist, a broken schema) are raised at once."""
    delay = FIRST_DELAY
    tried = 0
    while True:
        tried += 1
        try:
            return Bookkeeper.open(
                database_url, rate_limit_url=rate_limit_url, busy_timeout=busy_timeout
            )
        except DatabaseUnavailableError as exc:
            if isinstance(exc, DatabaseMissingError):
                raise
            if attempts is not None and tried >= attempts:
                raise
            LOG.warning("database unavailable (%s); trying again in %.1f s", exc, delay)
            sleep(delay)
            delay = min(delay * 2, MAX_DELAY)
