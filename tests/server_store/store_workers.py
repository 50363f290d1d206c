"""Functions run in spawned worker processes by the concurrency tests (importable by name,
as ``multiprocessing`` with the spawn method requires). Results go to a queue; an
exception is reported there as ``("error", 0, its repr)`` and raised."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from typing import Any

from bodygraph_server.billing.accounts import Bookkeeper, Denied, Principal
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store import open_store


@contextmanager
def _reporting(results: Any) -> Iterator[None]:
    """Report what the block raises to ``results``, then raise it."""
    try:
        yield
    except BaseException as exc:
        results.put(("error", 0, repr(exc)))
        raise


def spend_until_exhausted(
    url: str, api_key: str, admitted: bool, barrier: Any, results: Any
) -> None:
    """Charge the account behind ``api_key`` (reserve + commit) until refused; report
    ``("spent", successes, refusal reason)``. ``admitted``: the key is looked up as the
    service does (``Bookkeeper.admit``: on PostgreSQL the reservations then take one
    round trip each), else with ``authenticate``."""
    with _reporting(results), Bookkeeper.open(url) as book:
        principal = book.admit(api_key)[0] if admitted else book.authenticate(api_key)
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


def hit_window(
    url: str, bucket: str, instant: datetime, hits: int, barrier: Any, results: Any
) -> None:
    """Send ``hits`` requests at one injected ``instant``; report ``("hits", accepted)``."""
    with _reporting(results), closing(open_store(url)) as store:
        barrier.wait()
        accepted = sum(
            1 for _ in range(hits) if store.rate_limit_hit(bucket, instant, 100, 60).allowed
        )
        results.put(("hits", accepted, ""))


def admit_window(
    url: str, api_key: str, instant: datetime, hits: int, barrier: Any, results: Any
) -> None:
    """Send ``hits`` requests of ``api_key`` through ``Bookkeeper.admit`` at one injected
    ``instant``; report ``("hits", accepted)``."""
    with _reporting(results), Bookkeeper.open(url, clock=ManualClock(instant)) as book:
        barrier.wait()
        accepted = 0
        for _ in range(hits):
            decision = book.admit(api_key)[1]
            accepted += decision is not None and decision.allowed
        results.put(("hits", accepted, ""))


def open_fresh(url: str, barrier: Any, results: Any) -> None:
    """Open (and so migrate) a database at the same moment as the other workers; report
    ``("opened", schema version)``."""
    with _reporting(results):
        barrier.wait()
        with closing(open_store(url)) as store:
            results.put(("opened", store.schema_version(), ""))
