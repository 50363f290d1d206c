"""The hold of a job's credits in process: wall and CPU seconds of ``SqlJobs.create`` for a
job of ROWS rows in chunks of 10,000 (the upload's chunks stored too), then of its cancel;
then of claiming and committing every chunk of such a job (10 bad rows a chunk).

    PYTHONPATH=src .venv/bin/python benchmarks/jobs_hold.py sqlite --rows 1000000
    PYTHONPATH=src .venv/bin/python benchmarks/jobs_hold.py postgres --rows 1000000
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
CHUNK = 10_000
#: Bad rows in each chunk (their credits given back as it is committed).
FAILED = 10


def measure(url: str, rows: int) -> dict[str, float]:
    from bodygraph_server.billing.accounts import Bookkeeper
    from bodygraph_server.policy.clock import ManualClock
    from bodygraph_server.store.jobs import Created, NewJob, SqlJobs

    clock = ManualClock(datetime(2026, 1, 5, tzinfo=UTC))
    with Bookkeeper.open(url, clock=clock) as book:
        account = book.create_account("scale").account
        book.adjust_credits(account.id, rows)
        jobs = SqlJobs(book.store, retention=timedelta(days=7), lease=timedelta(minutes=2))
        sizes = [CHUNK] * (rows // CHUNK) + ([rows % CHUNK] if rows % CHUNK else [])
        new = NewJob(account_id=account.id, kind="chart", header="date,time,lat,lng",
                     chunks=[(size, b"x" * 64) for size in sizes])
        wall, cpu = time.perf_counter(), time.process_time()
        created = jobs.create(new, clock.now())
        figures = {"hold_s": time.perf_counter() - wall, "hold_cpu_s": time.process_time() - cpu}
        assert isinstance(created, Created)
        wall, cpu = time.perf_counter(), time.process_time()
        jobs.cancel(created.job.id, account.id, clock.now())
        figures |= {"cancel_s": time.perf_counter() - wall,
                    "cancel_cpu_s": time.process_time() - cpu}
        assert book.audit(account.id).balanced
        assert book.account(account.id).balance == rows
        created = jobs.create(new, clock.now())
        assert isinstance(created, Created)
        wall, cpu = time.perf_counter(), time.process_time()
        while (chunk := jobs.claim(clock.now())) is not None:
            jobs.complete(chunk, b"result", FAILED, clock.now())
        figures |= {"chunks_s": time.perf_counter() - wall,
                    "chunks_cpu_s": time.process_time() - cpu}
        assert book.audit(account.id).balanced
        assert book.usage(account.id)[-1].calls == rows - FAILED * len(sizes)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("backend", choices=["sqlite", "postgres"])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    if args.backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            figures = measure(f"sqlite:///{Path(folder) / 'hold.sqlite3'}", args.rows)
    else:
        import psycopg

        name = f"bghold_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        try:
            figures = measure(ADMIN_URL.rsplit("/", 1)[0] + f"/{name}", args.rows)
        finally:
            with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
    print(args.backend, args.rows, "rows ",
          "  ".join(f"{key} {value:.3f}" for key, value in figures.items()))


if __name__ == "__main__":
    main()
