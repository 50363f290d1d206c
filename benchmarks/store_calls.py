"""The store's hot calls in process: microseconds per call (best of rounds) and the CPU of
one request's bookkeeping (admission, reservation, group commit of one).

    PYTHONPATH=BEFORE/src .venv/bin/python benchmarks/store_calls.py sqlite
    PYTHONPATH=src .venv/bin/python benchmarks/store_calls.py postgres  # 127.0.0.1:5432
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"


def best(call: Callable[[], object], calls: int, rounds: int, clock: Callable[[], float]) -> float:
    """Microseconds per call, the best of ``rounds`` rounds of ``calls`` calls."""
    times = []
    for _ in range(rounds):
        start = clock()
        for _ in range(calls):
            call()
        times.append((clock() - start) / calls * 1e6)
    return min(times)


def measure(url: str) -> dict[str, float]:
    from bodygraph_server.billing.accounts import Bookkeeper
    from bodygraph_server.billing.keys import hash_key
    from bodygraph_server.policy.clock import ManualClock

    clock = ManualClock(datetime(2026, 1, 5, tzinfo=UTC))
    with Bookkeeper.open(url, clock=clock) as book:
        store = book.store
        issued = book.create_account("scale")
        account_id, key_hash = issued.account.id, hash_key(issued.api_key)

        def request() -> None:
            store.admit_key(key_hash, clock.now(), 10**9, 60)
            taken = store.reserve(account_id, "/v2/charts", clock.now())
            store.commit_many([taken.id], clock.now())  # type: ignore[union-attr]

        wall = time.perf_counter
        return {
            "find_key us": best(lambda: store.find_key(key_hash), 200, 15, wall),
            "get_account us": best(lambda: store.get_account(account_id, clock.now()),
                                   200, 15, wall),
            "ledger us": best(lambda: store.ledger(account_id, clock.now()), 200, 15, wall),
            "request CPU us": best(request, 300, 5, time.process_time),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("backend", choices=["sqlite", "postgres"])
    args = parser.parse_args()
    if args.backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            figures = measure(f"sqlite:///{Path(folder) / 'calls.sqlite3'}")
    else:
        import psycopg

        name = f"bgcalls_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        try:
            figures = measure(ADMIN_URL.rsplit("/", 1)[0] + f"/{name}")
        finally:
            with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
    print(args.backend, "  ".join(f"{key} {value:.0f}" for key, value in figures.items()))


if __name__ == "__main__":
    main()
