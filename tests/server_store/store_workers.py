"""Functions run in spawned worker processes by the concurrency tests (importable by name,
as ``multiprocessing`` with the spawn method requires). Results go to a queue."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bodygraph_server.billing.accounts import Bookkeeper, Denied, Principal
from bodygraph_server.store import open_store


def spend_until_exhausted(url: str, api_key: str, barrier: Any, results: Any) -> None:
    """Charge the account behind ``api_key`` (reserve + commit) until refused; report
    ``("spent", successes, refusal reason)``."""
    book = Bookkeeper.open(url)
    try:
        principal = book.authenticate(api_key)
        assert isinstance(principal, Principal), principal
        barrier.wait()
        successes = 0
        while True:
            outcome = book.reserve(principal, "/v2/charts")
            if isinstance(outcome, Denied):
                results.put(("spent", successes, outcome.reason.value))
                return
            book.commit(outcome)
            successes += 1
    except BaseException as exc:
        results.put(("error", 0, repr(exc)))
        raise
    finally:
        book.close()


def hit_window(
    url: str, bucket: str, instant: datetime, hits: int, barrier: Any, results: Any
) -> None:
    """Send ``hits`` requests at one injected ``instant``; report ``("hits", accepted)``."""
    store = open_store(url)
    try:
        barrier.wait()
        accepted = sum(
            1 for _ in range(hits) if store.rate_limit_hit(bucket, instant, 100, 60).allowed
        )
        results.put(("hits", accepted, ""))
    except BaseException as exc:
        results.put(("error", 0, repr(exc)))
        raise
    finally:
        store.close()


def open_fresh(url: str, barrier: Any, results: Any) -> None:
    """Open (and so migrate) a database at the same moment as the other workers; report
    ``("opened", schema version)``."""
    try:
        barrier.wait()
        store = open_store(url)
        try:
            results.put(("opened", store.schema_version(), ""))
        finally:
            store.close()
    except BaseException as exc:
        results.put(("error", 0, repr(exc)))
        raise
