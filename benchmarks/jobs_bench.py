"""A job end to end through HTTP: births per second from the upload to the downloaded
result, and the latency of concurrent ``/v2/charts/coordinates`` requests meanwhile.

Starts the service (``bodygraph_server.serve.run``, uvicorn, ``--workers`` processes,
each with ``--job-processes`` job processes; SQLite in a temporary folder, or a database
of its own on the local PostgreSQL with ``--postgres``; offline geocoder), makes an
account with credits for the job and ``--probe-keys`` accounts for the probe, then:
uploads ``--births`` random births (NDJSON, gzip), waits for the job to end (asking every
second), downloads the result as CSV and checks it has every row. Meanwhile the probe sends
``/v2/charts/coordinates`` requests at ``--probe-rate`` a second and records their
latencies while the job runs. Prints one JSON object: births per second end to end and
by phase, the probe's p50/p99 and answers. Example::

    .venv/bin/python benchmarks/jobs_bench.py --births 1000000 --workers 2

The issue's target on the 2-core machine: >= 20,000 births/s end to end and a probe p99
under 50 ms. Run it on a quiet machine (it uses every core for a minute or more).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from load_test import PG_SERVER, free_port, random_body, wait_ready


def births(count: int, seed: int) -> bytes:
    """``count`` random coordinate births as gzip-compressed NDJSON."""
    rng = random.Random(seed)
    lines = [json.dumps(random_body("/coordinates", rng), separators=(",", ":"))
             for _ in range(count)]
    return gzip.compress(("\n".join(lines) + "\n").encode(), 1)


def start(database_url: str, args: argparse.Namespace, port: int,
          log: Path) -> subprocess.Popen[bytes]:
    """The service under uvicorn, as configured."""
    code = ("from bodygraph_server.serve import run\n"
            "from bodygraph_server.settings import Settings\n"
            f"run(Settings.from_env(), host='127.0.0.1', port={port}, "
            f"workers={args.workers}, log_level='warning')\n")
    env = {**os.environ, "BODYGRAPH_DATABASE_URL": database_url,
           "BODYGRAPH_GEOCODER": "offline", "BODYGRAPH_ACCESS_LOG": "0",
           "BODYGRAPH_JOB_PROCESSES": str(args.job_processes),
           "BODYGRAPH_JOB_CHUNK_ROWS": str(args.chunk_rows),
           "BODYGRAPH_MAX_JOB_BYTES": str(1 << 30)}
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=out,
                                stderr=subprocess.STDOUT)


def accounts(database_url: str, credits: int, probes: int) -> tuple[str, list[str]]:
    """The job's key (with ``credits``) and the probe's keys."""
    from bodygraph_server.billing.accounts import Bookkeeper

    with Bookkeeper.open(database_url) as book:
        job = book.create_account("scale")
        book.adjust_credits(job.account.id, credits, "jobs benchmark")
        return job.api_key, [book.create_account("scale").api_key for _ in range(probes)]


class Probe:
    """Coordinates requests at a steady rate from a thread, their latencies recorded
    while ``recording`` is set."""

    def __init__(self, url: str, keys: list[str], rate: float) -> None:
        self.url, self.keys, self.rate = url, keys, rate
        self.latencies: list[float] = []
        self.statuses: dict[int, int] = {}
        self.recording = threading.Event()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        rng = random.Random(7)
        sent = 0
        with httpx.Client(base_url=self.url, timeout=30) as http:
            next_at = time.monotonic()
            while not self.stopped.is_set():
                body = random_body("/coordinates", rng)
                key = self.keys[sent % len(self.keys)]
                started = time.perf_counter()
                response = http.post("/v2/charts/coordinates", json=body,
                                     headers={"Authorization": f"Bearer {key}"})
                took = time.perf_counter() - started
                sent += 1
                if self.recording.is_set():
                    self.latencies.append(took)
                    code = response.status_code
                    self.statuses[code] = self.statuses.get(code, 0) + 1
                next_at += 1 / self.rate
                time.sleep(max(0.0, next_at - time.monotonic()))


def run(database_url: str, args: argparse.Namespace, folder: Path) -> dict[str, object]:
    """One benchmark on ``database_url``."""
    job_key, probe_keys = accounts(database_url, args.births * 2, args.probe_keys)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start(database_url, args, port, folder / "server.log")
    try:
        wait_ready(url, server)
        body = births(args.births, args.seed)
        probe = Probe(url, probe_keys, args.probe_rate)
        probe.thread.start()
        time.sleep(2)  # the probe warms up the workers
        headers = {"Authorization": f"Bearer {job_key}", "Content-Encoding": "gzip",
                   "Content-Type": "application/x-ndjson"}
        with httpx.Client(base_url=url, timeout=600) as http:
            probe.recording.set()
            started = time.perf_counter()
            answer = http.post("/v2/jobs", content=body, headers=headers)
            if answer.status_code != 202:
                raise SystemExit(f"upload refused: {answer.status_code} {answer.text}")
            accepted = time.perf_counter()
            job_id = answer.json()["data"]["jobId"]
            while True:
                status = http.get(f"/v2/jobs/{job_id}", headers=headers).json()["data"]
                if status["status"] not in ("queued", "running"):
                    break
                time.sleep(1.0)
            computed = time.perf_counter()
            probe.recording.clear()
            rows = 0
            with http.stream("GET", f"/v2/jobs/{job_id}/result",
                             headers={**headers, "Accept": "text/csv"}) as result:
                for part in result.iter_bytes():
                    rows += part.count(b"\n")
            ended = time.perf_counter()
        probe.stopped.set()
        probe.thread.join(30)
        latencies = sorted(probe.latencies)
        total = ended - started
        return {
            "database": database_url.split(":")[0], "births": args.births,
            "status": status["status"], "failed_rows": status["failed"],
            "rows_downloaded": rows - 1, "seconds": round(total, 2),
            "births_per_second": round(args.births / total),
            "upload_s": round(accepted - started, 2),
            "compute_s": round(computed - accepted, 2),
            "download_s": round(ended - computed, 2),
            "probe_requests": len(latencies), "probe_statuses": probe.statuses,
            "probe_p50_ms": round(1000 * statistics.median(latencies), 1) if latencies else None,
            "probe_p99_ms": (round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 1)
                             if latencies else None),
        }
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--births", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--job-processes", type=int, default=1)
    parser.add_argument("--chunk-rows", type=int, default=10_000)
    parser.add_argument("--probe-rate", type=float, default=20.0,
                        help="coordinates requests a second during the job")
    parser.add_argument("--probe-keys", type=int, default=20,
                        help="accounts the probe takes turns with (100 requests a minute each)")
    parser.add_argument("--postgres", action="store_true",
                        help="a database of its own on the local PostgreSQL")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jobs-bench-") as tmp:
        folder = Path(tmp)
        if not args.postgres:
            print(json.dumps(run(f"sqlite:///{folder / 'bench.sqlite3'}", args, folder)))
            return
        import psycopg

        name = "bgbench_" + secrets.token_hex(4)
        with psycopg.connect(f"{PG_SERVER}/test", autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        try:
            print(json.dumps(run(f"{PG_SERVER}/{name}", args, folder)))
        finally:
            with psycopg.connect(f"{PG_SERVER}/test", autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


if __name__ == "__main__":
    main()
