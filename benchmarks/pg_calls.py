"""Cost of the bookkeeping calls of one chart request on PostgreSQL, per call.

Makes a fresh database on 127.0.0.1:5432 (``bgcalls_<random>``, user postgres; dropped
afterwards), opens the store of the ``bodygraph_server`` on ``PYTHONPATH`` (so the same
script measures two checkouts), makes ``--accounts`` Scale accounts, then runs
``--calls`` times, one thread, the request's bookkeeping:

* ``admit``: the key lookup and the rate-limit hit (``Bookkeeper.admit`` where it exists,
  else ``authenticate`` then ``check_rate``);
* ``reserve``: the credit reservation;
* ``commit``: ``commit_many`` of that one reservation (the group commit of an idle
  service).

For each: client CPU (``time.process_time``) and wall time per call, and from the
server's statistics the transactions committed and WAL flushes per call
(``pg_stat_database.xact_commit``, ``pg_stat_wal.wal_sync``: cluster-wide, so another
program using the server at the same time adds to them). Round trips: run it under
``strace -f -c -e trace=sendto`` (one ``sendto`` per round trip).

    PYTHONPATH=src .venv/bin/python benchmarks/pg_calls.py --calls 2000
"""

from __future__ import annotations

import argparse
import os
import secrets
import time
from collections.abc import Callable
from typing import Any

import psycopg

PG_SERVER = "postgresql://postgres@127.0.0.1:5432"


def _stats(admin: psycopg.Connection[Any], name: str) -> tuple[int, int]:
    admin.execute("SELECT pg_stat_clear_snapshot()")
    row = admin.execute(
        "SELECT xact_commit FROM pg_stat_database WHERE datname = %s", (name,)).fetchone()
    wal = admin.execute("SELECT wal_sync FROM pg_stat_wal").fetchone()
    assert row is not None and wal is not None
    return int(row[0]), int(wal[0])


def _measure(label: str, calls: int, step: Callable[[int], Any],
             admin: psycopg.Connection[Any], name: str) -> None:
    time.sleep(11)  # idle backends flush their statistics within 10 s
    xacts0, syncs0 = _stats(admin, name)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for i in range(calls):
        step(i)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    time.sleep(11)
    xacts1, syncs1 = _stats(admin, name)
    # the two statistics queries of the admin connection count as transactions of their
    # own database ("postgres"), not of the measured one
    print(f"| {label} | {cpu / calls * 1e6:.0f} | {wall / calls * 1e6:.0f} | "
          f"{(xacts1 - xacts0) / calls:.2f} | {(syncs1 - syncs0) / calls:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--accounts", type=int, default=40)
    args = parser.parse_args()

    from bodygraph_server.billing.accounts import Bookkeeper

    name = f"bgcalls_{secrets.token_hex(4)}"
    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            book = Bookkeeper.open(f"{PG_SERVER}/{name}")
            try:
                keys = [book.create_account("scale").api_key for _ in range(args.accounts)]
                principals = []
                for key in keys:
                    principal = book.authenticate(key)
                    assert not hasattr(principal, "reason")
                    principals.append(principal)
                # the window allows 100 hits per key and minute: the calls go round the keys
                admit = getattr(book, "admit", None)
                reservations: list[Any] = []

                def do_admit(i: int) -> None:
                    key = keys[i % len(keys)]
                    if admit is not None:
                        admit(key)
                    else:
                        principal = book.authenticate(key)
                        book.check_rate(principal)  # type: ignore[arg-type]

                def do_reserve(i: int) -> None:
                    principal = principals[i % len(principals)]
                    reservations.append(book.reserve(principal, "/v2/charts/coordinates"))

                def do_commit(i: int) -> None:
                    book.commit_many([reservations[i]])

                for _ in range(20):  # warm the pool and the prepared statements
                    do_admit(0)
                print(f"load average {os.getloadavg()[0]:.2f}; {args.calls} calls each")
                print("| call | client CPU us | wall us | transactions | WAL flushes |")
                print("|---|---:|---:|---:|---:|")
                calls = min(args.calls, len(keys) * 90)
                _measure("admit (key + rate-limit hit)", calls, do_admit, admin, name)
                _measure("reserve", calls, do_reserve, admin, name)
                _measure("commit (group of one)", calls, do_commit, admin, name)
            finally:
                book.close()
        finally:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
