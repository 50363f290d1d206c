"""A job's pipeline in process, CPU seconds per 100,000 births by stage: the upload read
(NDJSON and CSV, gzip decoded, cut into packed chunks) and stored (``SqlJobs.create`` on
SQLite), the chunks computed (``compute_chunk``, kinds chart and simple), and the result
encoded for streaming as NDJSON, CSV and Parquet (each once warm: the engine loaded,
pyarrow imported).

    PYTHONPATH=src .venv/bin/python benchmarks/jobs_pipeline.py --births 100000
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from load_test import random_body

CHUNK = 10_000


def cpu(call: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds of ``call()`` in this process, and its value."""
    start = time.process_time()
    value = call()
    return time.process_time() - start, value


def uploads(count: int) -> tuple[bytes, bytes]:
    """``count`` random births as gzip NDJSON, and as gzip CSV."""
    rng = random.Random(7)
    bodies = [random_body("/coordinates", rng) for _ in range(count)]
    ndjson = "".join(json.dumps(body, separators=(",", ":")) + "\n" for body in bodies)
    rows = "".join(f"{b['birthdate']},{b['birthtime']},{b['lat']},{b['lng']}\r\n"
                   for b in bodies)
    return (gzip.compress(ndjson.encode(), 1),
            gzip.compress(("date,time,lat,lng\r\n" + rows).encode(), 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--births", type=int, default=100_000)
    parser.add_argument("--computed", type=int, default=20_000,
                        help="births computed (the slowest stage; scaled to 100,000)")
    args = parser.parse_args()
    from bodygraph_server.billing.accounts import Bookkeeper
    from bodygraph_server.execution.chunks import ChunkTask, compute_chunk
    from bodygraph_server.policy.clock import ManualClock
    from bodygraph_server.resources.jobs.results import csv_part, ndjson_part, parquet_parts
    from bodygraph_server.resources.jobs.uploads import UploadRequest, read_apart
    from bodygraph_server.store.jobs import NewJob, SqlJobs

    scale = 100_000 / args.births
    figures: dict[str, float] = {}
    ndjson, csv_body = uploads(args.births)
    read: dict[str, Any] = {}
    for name, body, kind in (("ndjson", ndjson, "application/x-ndjson"),
                             ("csv", csv_body, "text/csv")):
        request = UploadRequest(raw=body, encoding="gzip", content_type=kind,
                                limit=1 << 30, chunk_rows=CHUNK)
        seconds, read[name] = cpu(partial(read_apart, request))
        figures[f"read_{name}"] = seconds * scale
    upload = read["ndjson"]
    clock = ManualClock(datetime(2026, 1, 5, tzinfo=UTC))
    with tempfile.TemporaryDirectory() as folder, \
            Bookkeeper.open(f"sqlite:///{Path(folder) / 'jobs.sqlite3'}", clock=clock) as book:
        account = book.create_account("scale").account
        book.adjust_credits(account.id, args.births)
        jobs = SqlJobs(book.store, retention=timedelta(days=7), lease=timedelta(minutes=2))
        new = NewJob(account_id=account.id, kind="chart", header=upload.header,
                     chunks=upload.chunks)
        seconds, _ = cpu(lambda: jobs.create(new, clock.now()))
        figures["store"] = seconds * scale
    computed = upload.chunks[:max(1, args.computed // CHUNK)]
    rows = sum(n for n, _ in computed)
    compute_chunk(ChunkTask("chart", upload.header, computed[0][1], 1))  # warm: engine loaded
    outputs: dict[str, list[bytes]] = {}
    for kind in ("chart", "simple"):
        tasks = [ChunkTask(kind, upload.header, data, 1 + i * CHUNK)
                 for i, (_, data) in enumerate(computed)]
        seconds, results = cpu(partial(list, map(compute_chunk, tasks)))
        figures[f"compute_{kind}"] = seconds * 100_000 / rows
        outputs[kind] = [result.output for result in results]
    parts = outputs["chart"]
    list(parquet_parts(iter(parts[:1])))  # warm: pyarrow imported
    for name, encode in (("ndjson", ndjson_part), ("csv", csv_part)):
        seconds, _ = cpu(partial(list, map(encode, parts, [i == 0 for i in range(len(parts))])))
        figures[f"encode_{name}"] = seconds * 100_000 / rows
    seconds, _ = cpu(lambda: list(parquet_parts(iter(parts))))
    figures["encode_parquet"] = seconds * 100_000 / rows
    print(json.dumps({"cpu_s_per_100k": {key: round(value, 3)
                                         for key, value in figures.items()},
                      "births_read": args.births, "births_computed": rows}))


if __name__ == "__main__":
    main()
