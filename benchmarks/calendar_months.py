"""Every month of the ingress calendar the shipped ephemeris serves, at both levels,
computed into a calendar cache on a new SQLite database: the CPU this takes (the most the
service ever spends on months it has not computed before, per database and library
version) and the size of the stored rows.

    .venv/bin/python benchmarks/calendar_months.py            # --years 400

``--years N`` stops after the first N years (from the ephemeris' first month).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np


def main() -> None:
    from bodygraph.calculator import default_calculator
    from bodygraph.relations.calendar_blocks import months_between
    from bodygraph_server.calendar_cache import CalendarCache
    from bodygraph_server.store import open_store
    from bodygraph_server.store.calendar_blocks import SqlCalendarBlocks

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--years", type=int, default=400)
    args = parser.parse_args()
    calculator = default_calculator(None)
    first = np.datetime64(calculator.first_birth.replace(tzinfo=None), "us")
    last = np.datetime64(calculator.last_birth.replace(tzinfo=None), "us")
    months = months_between(int(first.astype(np.int64)), int(last.astype(np.int64)))
    months = months[:12 * args.years]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "months.sqlite3"
        store = open_store(f"sqlite:///{path}")
        rows = SqlCalendarBlocks(store)
        cache = CalendarCache(rows, lambda: datetime.now(UTC))
        cache.blocks("gate", months[:1])  # the kernel, the compiled engine, the identity
        for level in ("gate", "line"):
            start, wall = time.process_time(), time.perf_counter()
            for k in range(0, len(months), 12):
                cache.blocks(level, months[k:k + 12])
            print(f"{level}: {len(months)} months, "
                  f"{time.process_time() - start:.1f} CPU-s, "
                  f"{time.perf_counter() - wall:.1f} s wall")
        with store.read_transaction() as tx:
            row = tx.one("SELECT SUM(LENGTH(ingresses)), COUNT(*) FROM calendar_blocks")
        store.close()
        assert row is not None
        print(f"stored: {row[1]} rows, {int(row[0]) / 1e6:.1f} MB of ingresses, "
              f"database file {path.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
