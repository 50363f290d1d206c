"""What one chart request costs the service, counted in its process (independent of the
machine's load): PostgreSQL statements and transactions, pool checkouts, thread
hand-offs, journal writes and CPU per request, one request at a time and concurrently.

    PYTHONPATH=$PWD/src .venv/bin/python benchmarks/request_trips.py --requests 300
    PYTHONPATH=BEFORE/src .venv/bin/python benchmarks/request_trips.py --requests 300
    PYTHONPATH=$PWD/src .venv/bin/python benchmarks/request_trips.py --sqlite

Starts one worker (``bodygraph_server.serve.run``, ``workers=1``, asyncio's own loop so
that its callbacks can be counted) on a new PostgreSQL database on 127.0.0.1:5432
(dropped afterwards) or ``--sqlite``, with counters wrapped around psycopg's cursors,
transactions and pools, ``ThreadPoolExecutor.submit``, ``os.write``, the chart batcher
and the garbage collector (its collections and their pauses, the objects it tracks).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_test import (
    _postgres_database,
    _request_bytes,
    free_port,
    make_keys,
    random_body,
    wait_ready,
)

#: Run in the server's process before the app: counters, written to COUNTS on SIGUSR1.
PROBE = r"""
import collections, concurrent.futures, json, os, signal, sys, time
import asyncio.events, psycopg, psycopg_pool
sys.modules["uvloop"] = None  # asyncio's own loop, whose callbacks can be counted
COUNTS = collections.Counter()
OUT = os.environ["PROBE_OUT"]

def counted(owner, name, key):
    original = getattr(owner, name)
    def wrapper(*args, **kwargs):
        COUNTS[key] += 1
        return original(*args, **kwargs)
    setattr(owner, name, wrapper)

def counted_async(owner, name, key):
    original = getattr(owner, name)
    async def wrapper(*args, **kwargs):
        COUNTS[key] += 1
        return await original(*args, **kwargs)
    setattr(owner, name, wrapper)

counted(psycopg.Cursor, "execute", "statements (threads)")
counted(psycopg.Cursor, "executemany", "statements (threads)")
counted(psycopg.Connection, "transaction", "transactions (threads)")
counted(psycopg_pool.ConnectionPool, "getconn", "checkouts (threads)")
counted_async(psycopg.AsyncCursor, "execute", "statements (loop)")
counted_async(psycopg_pool.AsyncConnectionPool, "getconn", "checkouts (loop)")
counted(concurrent.futures.ThreadPoolExecutor, "submit", "thread hand-offs")
counted(asyncio.events.Handle, "_run", "loop callbacks")
_write = os.write
def write(fd, data):
    COUNTS["os.write"] += 1
    return _write(fd, data)
os.write = write

import bodygraph_server.charting as charting
_compute = charting._compute
def compute(instants):
    COUNTS["chart batches"] += 1
    return _compute(instants)
charting._compute = compute
_gather = charting.ChartBatcher.gather
async def gather(self):
    start = time.perf_counter()
    await _gather(self)
    COUNTS["gather wait ms"] += (time.perf_counter() - start) * 1000
charting.ChartBatcher.gather = gather

import gc
_gc_start = [0.0]
def on_gc(phase, info):
    if phase == "start":
        _gc_start[0] = time.perf_counter()
    else:
        generation = info["generation"]
        COUNTS[f"gc{generation} collections"] += 1
        COUNTS[f"gc{generation} ms"] += (time.perf_counter() - _gc_start[0]) * 1000
gc.callbacks.append(on_gc)

def dump(*_):
    figures = dict(COUNTS)
    figures["cpu"] = time.process_time()
    figures["tracked objects"] = len(gc.get_objects())
    figures["frozen objects"] = gc.get_freeze_count()
    if os.environ.get("PROBE_KINDS"):
        kinds = collections.Counter()
        for thing in gc.get_objects():
            module = getattr(thing, "__module__", None) or getattr(type(thing), "__module__", "?")
            kinds[f"{type(thing).__name__} {str(module).split('.')[0]}"] += 1
        figures["kinds"] = kinds.most_common(25)
    with open(OUT, "w") as out:
        json.dump(figures, out)
signal.signal(signal.SIGUSR1, dump)

from bodygraph_server.serve import run
from bodygraph_server.settings import Settings
run(Settings.from_env(), host="127.0.0.1", port=int(os.environ["PROBE_PORT"]), workers=1,
    log_level="warning")
"""


def snapshot(process: subprocess.Popen[bytes], out: Path) -> dict[str, float]:
    """The server's counters now."""
    out.unlink(missing_ok=True)
    process.send_signal(signal.SIGUSR1)
    for _ in range(200):
        if out.exists() and out.stat().st_size:
            time.sleep(0.02)
            return dict(json.loads(out.read_text()))
        time.sleep(0.01)
    raise SystemExit("the server wrote no counters")


async def send(port: int, path: str, keys: list[str], requests: int, concurrency: int,
               seed: int) -> list[float]:
    """``requests`` requests over ``concurrency`` keep-alive connections; latencies (ms)."""
    rng = random.Random(seed)
    queue = [_request_bytes(f"127.0.0.1:{port}", path, keys[i % len(keys)],
                            random_body(path, rng)) for i in range(requests)]
    latencies: list[float] = []

    async def user() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while queue:
                request = queue.pop()
                start = time.perf_counter()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                if head.split(b" ", 2)[1] != b"200":
                    raise SystemExit(head.decode())
                length = next(int(line[15:]) for line in head.split(b"\r\n")
                              if line[:15].lower() == b"content-length:")
                await reader.readexactly(length)
                latencies.append((time.perf_counter() - start) * 1000)
        finally:
            writer.close()

    await asyncio.gather(*(user() for _ in range(concurrency)))
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--path", default="/v2/charts/coordinates")
    parser.add_argument("--sqlite", action="store_true",
                        help="a SQLite file in a temporary folder instead of PostgreSQL")
    args = parser.parse_args()
    name = f"bgtrips_{uuid.uuid4().hex[:8]}"
    folder = Path(tempfile.mkdtemp(prefix="trips-"))
    url = (f"sqlite:///{folder / 'books.sqlite3'}" if args.sqlite
           else _postgres_database(name, create=True))
    port = free_port()
    out = folder / "counts.json"
    try:
        # 100 requests a minute per key
        keys = make_keys(url, (60 + args.requests * len(args.concurrency)) // 80 + 1)
        env = {**os.environ, "BODYGRAPH_DATABASE_URL": url, "BODYGRAPH_GEOCODER": "offline",
               "BODYGRAPH_RATE_LIMIT_URL": "", "PROBE_OUT": str(out), "PROBE_PORT": str(port)}
        with (folder / "server.log").open("wb") as log:
            process = subprocess.Popen([sys.executable, "-c", PROBE], env=env, stdout=log,
                                       stderr=subprocess.STDOUT)
        try:
            wait_ready(f"http://127.0.0.1:{port}", process)
            asyncio.run(send(port, args.path, keys, 60, 4, seed=1))  # warm-up
            for concurrency in args.concurrency:
                before = snapshot(process, out)
                latencies = asyncio.run(send(port, args.path, keys, args.requests,
                                             concurrency, seed=concurrency))
                after = snapshot(process, out)
                kinds = after.pop("kinds", None)
                before.pop("kinds", None)
                per = {key: (after.get(key, 0) - before.get(key, 0)) / args.requests
                       for key in sorted(set(after) | set(before))}
                per["cpu"] *= 1000
                totals = {key: after.get(key, 0) - before.get(key, 0)
                          for key in after if key.startswith("gc")}
                if kinds:
                    print("unfrozen objects by type and module:", kinds)
                per = {key: value for key, value in per.items()
                       if not key.startswith("gc") and "objects" not in key}
                latencies.sort()
                print(f"concurrency {concurrency}: " + ", ".join(
                    f"{key} {value:.2f}" for key, value in per.items() if key != "cpu")
                    + f"; CPU {per['cpu']:.2f} ms/request; p50 "
                    f"{latencies[len(latencies) // 2]:.1f} ms")
                print(f"  over the {args.requests} requests: " + ", ".join(
                    f"{key} {value:.1f}" for key, value in sorted(totals.items()))
                    + f"; objects the collector tracks {after['tracked objects']}, "
                    f"frozen {after['frozen objects']}")
        finally:
            process.terminate()
            process.wait(30)
    finally:
        if not args.sqlite:
            _postgres_database(name, create=False)


if __name__ == "__main__":
    main()
