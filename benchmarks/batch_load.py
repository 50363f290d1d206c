"""Throughput of ``POST /v2/charts/batch`` through HTTP: charts per second.

Starts the service (``bodygraph_server.serve.run``, uvicorn, ``--workers`` processes,
SQLite in a temporary folder, offline geocoder; the helpers of ``load_test.py``), makes
``--keys`` accounts with ample credits, then sends batches of ``--size`` different births
(random dates 1900-2099, times and coordinates; nothing is cached) over
``--concurrency`` keep-alive httpx connections for ``--duration`` seconds (closed loop).
Bodies are serialized before the run; answers are checked (status 200, success true, and
every 10th parsed in full: every slot a chart), not all parsed, so the generator spends
its CPU on little else than the transport. Besides charts per second it prints the CPU
seconds the service's processes used (``/proc``) and charts per service CPU-second,
a figure that depends much less on what else the machine runs.

Bounded: at most 120 s, loopback only. Example::

    .venv/bin/python benchmarks/batch_load.py --workers 2 --size 1000 --concurrency 4 \
        --duration 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from load_test import MAX_DURATION, free_port, random_body, start_server, wait_ready

PATH = "/v2/charts/batch"


def service_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` and its children
    (the uvicorn workers), from ``/proc``."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if entry.name == str(pid) or fields[1] == str(pid):  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def make_keys(database_url: str, count: int, credits: int) -> list[str]:
    """``count`` Scale accounts with ``credits`` each."""
    from bodygraph_server.billing.accounts import Bookkeeper

    keys = []
    with Bookkeeper.open(database_url) as book:
        for _ in range(count):
            issued = book.create_account("scale")
            book.adjust_credits(issued.account.id, credits, "batch benchmark")
            keys.append(issued.api_key)
    return keys


def bodies(count: int, size: int, seed: int) -> list[bytes]:
    """``count`` serialized batch bodies of ``size`` births each."""
    rng = random.Random(seed)
    return [json.dumps({"births": [random_body("/coordinates", rng) for _ in range(size)]},
                       separators=(",", ":")).encode() for _ in range(count)]


async def load(url: str, keys: list[str], payloads: list[bytes], size: int,
               concurrency: int, duration: float) -> tuple[int, int, list[float]]:
    """(charts returned, failed requests, request latencies in seconds)."""
    charts, failed, latencies = 0, 0, []
    stop = time.monotonic() + duration
    sent = 0

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal charts, failed, sent
        while time.monotonic() < stop:
            n = sent
            sent += 1
            headers = {"Authorization": f"Bearer {keys[n % len(keys)]}",
                       "Content-Type": "application/json"}
            started = time.perf_counter()
            response = await client.post(url + PATH, content=payloads[n % len(payloads)],
                                         headers=headers)
            latencies.append(time.perf_counter() - started)
            ok = response.status_code == 200 and b'"success":true' in response.content[:80]
            if ok and n % 10 == 0:
                results = response.json()["data"]["results"]
                ok = len(results) == size and all("errorCode" not in r for r in results)
            if ok:
                charts += size
            else:
                failed += 1

    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        await asyncio.gather(*(worker(client) for _ in range(concurrency)))
    return charts, failed, latencies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--size", type=int, default=1000, help="births per batch (1-1000)")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--keys", type=int, default=20)
    args = parser.parse_args(argv)
    duration = min(args.duration, MAX_DURATION)
    with tempfile.TemporaryDirectory() as tmp:
        database_url = f"sqlite:///{Path(tmp) / 'batch.sqlite3'}"
        keys = make_keys(database_url, args.keys, 10_000_000)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = start_server(database_url, args.workers, port, Path(tmp) / "server.log", "")
        try:
            wait_ready(url, server)
            payloads = bodies(20, args.size, seed=7)
            asyncio.run(load(url, keys, payloads[:2], args.size, args.concurrency, 3.0))
            load_before = os.getloadavg()[0]
            cpu_before = service_cpu(server.pid)
            started = time.perf_counter()
            charts, failed, latencies = asyncio.run(
                load(url, keys, payloads, args.size, args.concurrency, duration))
            elapsed = time.perf_counter() - started
            cpu = service_cpu(server.pid) - cpu_before
        finally:
            server.terminate()
            server.wait(30)
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1000
    print("| workers | births per request | connections | requests | failed | charts/s | "
          "p50 ms | p99 ms | service CPU s | charts per service CPU s | load average |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {args.workers} | {args.size} | {args.concurrency} | {len(latencies)} | {failed} | "
          f"**{charts / elapsed:,.0f}** | {p50:.0f} | {p99:.0f} | {cpu:.1f} | "
          f"{charts / max(cpu, 1e-9):,.0f} | {load_before:.1f} -> {os.getloadavg()[0]:.1f} |")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
