"""Load test of the HTTP service: many concurrent chart requests over loopback.

Starts the service itself (``bodygraph_server.serve.run`` with ``--workers`` processes on a
fresh SQLite database in a temporary folder) unless ``--url`` names a running one, makes
``--keys`` accounts through the bookkeeping API so the per-key limit (100 per minute)
never binds, then sends requests over ``--concurrency`` keep-alive connections for
``--duration`` seconds. Every birth is different (random dates 1900-2099, random times
and coordinates), so nothing is cached.

Two load generators (``--generator``):

* ``httpx`` (default): async httpx clients in this process, closed loop or, with
  ``--rate``, open loop on a fixed schedule (latency counted from the scheduled instant).
  Bounded by ``--requests`` too. It costs about as much CPU per request as the service
  outside the chart, on the same cores, so it understates the service's ceiling.
* ``raw``: asyncio streams in this process writing pre-built HTTP/1.1 requests on
  ``--concurrency`` keep-alive connections; closed loop or, with ``--rate``, open loop
  (each scheduled request takes the next free connection; latency counts from the
  scheduled instant, so time spent waiting for a connection counts too). About a tenth
  of httpx's CPU per request, so an open loop at 500/s leaves the service its cores.
* ``wrk``: the C load generator (Debian package ``wrk``; ``apt-get install wrk``) with
  ``benchmarks/wrk_charts.lua``, one thread, closed loop only. About 0.1 ms of CPU per
  request, which is what the figures in ``docs/performance.md`` use at saturation. Bounded
  by time; the keys bound the successful requests (100 per key per minute: any excess
  shows up as 429s in the statuses).

``--postgres``: the started service keeps its books in a new PostgreSQL database on
127.0.0.1:5432 (``bgload_<random>``, user postgres), dropped afterwards.

Bounded on purpose: at most 120 s, loopback addresses only. Examples::

    .venv/bin/python benchmarks/load_test.py --generator wrk --workers 2 --concurrency 64 \
        --duration 20
    .venv/bin/python benchmarks/load_test.py --workers 2 --rate 300 --duration 15  # open loop
    .venv/bin/python benchmarks/load_test.py --generator raw --workers 2 --rate 500 \
        --concurrency 64 --duration 20                                        # open loop

Prints the figures as Markdown (for docs/performance.md) and, with ``--json``, as JSON,
with the load average before and after and the CPU seconds the generator used.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import ipaddress
import json
import os
import random
import resource
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))  # also when loaded by file path
from proc_cpu import backend_cpu, tree_cpu

MAX_DURATION = 120.0
PER_KEY = 100
#: The PostgreSQL server of --postgres (loopback only).
PG_SERVER = "postgresql://postgres@127.0.0.1:5432"
ENDPOINTS = ("/v2/charts/coordinates", "/v2/charts", "/v2/charts/simple")


@dataclass(frozen=True)
class Figures:
    """What one run measured."""

    path: str
    rate: float
    workers: int | None
    concurrency: int
    keys: int
    duration_s: float
    requests: int
    ok: int
    statuses: dict[str, int]
    throughput_rps: float
    ok_rps: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    cpu_count: int | None
    generator: str = "httpx"
    load_before: float = float("nan")
    load_after: float = float("nan")
    generator_cpu_s: float = float("nan")
    service_cpu_s: float = float("nan")
    """CPU seconds of the started service's processes during the run."""
    database_cpu_s: float = float("nan")
    """CPU seconds of the PostgreSQL backends of the run's database (--postgres)."""


def loopback_only(url: str) -> None:
    """Refuse any target that is not this machine."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise SystemExit(f"refusing to load-test {host!r}: loopback addresses only")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def make_keys(database_url: str, count: int) -> list[str]:
    """``count`` accounts on the Scale plan (50,000 credits each)."""
    from bodygraph_server.billing.accounts import Bookkeeper

    with Bookkeeper.open(database_url) as book:
        return [book.create_account("scale").api_key for _ in range(count)]


def check_books(
    database_url: str, keys: list[str], answered: int, unread: int = 0
) -> tuple[bool, str]:
    """Whether the counted run's accounts were charged exactly once per answered request
    (usage calls), with nothing left pending and every ledger balanced; and a line saying
    so. Run once the server has stopped (or answered everything). ``unread``: how many
    answers the generator may have left unread at its end (wrk stops with a request in
    flight on each connection; the service answered and charged those)."""
    from bodygraph_server.billing.accounts import Bookkeeper, Principal

    with Bookkeeper.open(database_url) as book:
        accounts = []
        for key in keys:
            principal = book.authenticate(key)
            assert isinstance(principal, Principal)
            accounts.append(principal.account_id)
        deadline = time.monotonic() + 5  # a running service (--url) may still be at work
        while True:
            usage = [u for account in accounts for u in book.usage(account)]
            charged, pending = sum(u.calls for u in usage), sum(u.pending for u in usage)
            if pending == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        unbalanced = sum(not book.audit(account).balanced for account in accounts)
    exact = answered <= charged <= answered + unread and pending == 0 and unbalanced == 0
    unread_note = f" (+ up to {unread} answers unread)" if unread else ""
    return exact, (f"books: {answered} answered{unread_note}, {charged} charged, "
                   f"{pending} pending, "
                   f"{unbalanced} unbalanced ledgers: {'exact' if exact else 'NOT EXACT'}")


def start_server(
    database_url: str, workers: int, port: int, log: Path, rate_limit_url: str
) -> subprocess.Popen[bytes]:
    code = (
        "from bodygraph_server.serve import run\n"
        "from bodygraph_server.settings import Settings\n"
        f"run(Settings.from_env(), host='127.0.0.1', port={port}, workers={workers}, "
        "log_level='warning')\n"
    )
    env = {**os.environ, "BODYGRAPH_DATABASE_URL": database_url, "BODYGRAPH_GEOCODER": "offline",
           "BODYGRAPH_RATE_LIMIT_URL": rate_limit_url}
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=out,
                                stderr=subprocess.STDOUT)


def wait_ready(url: str, process: subprocess.Popen[bytes] | None, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    # One client for every poll (``httpx.get`` builds a client, TLS context and all, per call).
    with httpx.Client(timeout=1) as http:
        while time.monotonic() < deadline:
            if process is not None and process.poll() is not None:
                raise SystemExit(f"server exited with status {process.returncode}")
            try:
                if http.get(url + "/health").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
    raise SystemExit("server did not become ready")


def random_body(path: str, rng: random.Random) -> dict[str, Any]:
    body: dict[str, Any] = {
        "birthdate": f"{rng.randint(1900, 2099):04d}-{rng.randint(1, 12):02d}-"
                     f"{rng.randint(1, 28):02d}",
        "birthtime": f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
    }
    if path.endswith("/coordinates"):
        body["lat"] = round(rng.uniform(-60, 70), 4)
        body["lng"] = round(rng.uniform(-180, 180), 4)
    else:
        body["location"] = rng.choice(["Berlin, Germany", "Paris, France", "Tokyo, Japan",
                                       "New York, United States", "Sydney, Australia"])
    return body


async def run_load(url: str, path: str, keys: list[str], concurrency: int, duration: float,
                   limit: int, seed: int, rate: float = 0.0
                   ) -> tuple[list[float], Counter[str], float]:
    """Closed loop (``rate`` 0: each virtual user sends its next request when the last one
    is answered) or open loop (``rate`` requests per second on a fixed schedule; latency
    counts from the scheduled instant, so a slow server cannot hide its queue)."""
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    sent = 0
    rng = random.Random(seed)
    # One client (one keep-alive connection) per virtual user: a single shared httpx pool
    # costs more CPU per request than the service itself at this concurrency.
    clients = [httpx.AsyncClient(base_url=url, timeout=30) for _ in range(concurrency)]
    try:

        async def worker(client: httpx.AsyncClient) -> None:
            nonlocal sent
            while time.perf_counter() < deadline and sent < limit:
                index = sent
                sent += 1
                key = keys[index % len(keys)]
                headers = {"Authorization": f"Bearer {key}", "HD-Geocode-Key": "offline"}
                body = random_body(path, rng)
                start = time.perf_counter()
                if rate > 0:
                    start = began + index / rate
                    if start >= deadline:
                        break
                    await asyncio.sleep(max(0.0, start - time.perf_counter()))
                try:
                    response = await client.post(path, json=body, headers=headers)
                    statuses[str(response.status_code)] += 1
                except httpx.HTTPError as exc:
                    statuses[type(exc).__name__] += 1
                latencies.append(time.perf_counter() - start)

        gc.collect()
        gc.disable()  # as in run_raw
        began = time.perf_counter()
        deadline = began + duration
        await asyncio.gather(*(worker(client) for client in clients))
        elapsed = time.perf_counter() - began
    finally:
        gc.enable()
        for client in clients:
            await client.aclose()
    return latencies, statuses, elapsed


def _request_bytes(host: str, path: str, key: str, body: dict[str, Any]) -> bytes:
    payload = json.dumps(body, separators=(",", ":")).encode()
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n"
            f"HD-Geocode-Key: offline\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n")
    return head.encode("ascii") + payload


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    request: bytes) -> str:
    """Send one request, read its whole response; the status code."""
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = head.split(b" ", 2)[1].decode("ascii")
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    await reader.readexactly(length)
    return status


async def run_raw(url: str, path: str, keys: list[str], concurrency: int, duration: float,
                  limit: int, seed: int, rate: float = 0.0
                  ) -> tuple[list[float], Counter[str], float]:
    """:func:`run_load` with pre-built requests on raw keep-alive connections."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    rng = random.Random(seed)
    count = limit if rate <= 0 else min(limit, int(rate * duration) + 1)
    requests = [_request_bytes(f"{host}:{port}", path, keys[i % len(keys)],
                               random_body(path, rng)) for i in range(count)]
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    idle: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()
    for _ in range(concurrency):
        idle.put_nowait(await asyncio.open_connection(host, port))

    async def one(request: bytes, start: float) -> None:
        reader, writer = await idle.get()
        try:
            statuses[await _exchange(reader, writer, request)] += 1
            idle.put_nowait((reader, writer))
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            statuses[type(exc).__name__] += 1
            writer.close()
            idle.put_nowait(await asyncio.open_connection(host, port))
        latencies.append(time.perf_counter() - start)

    # The generator's own collector would pause its loop (and so every latency measured)
    # for a full collection of the requests and tasks it holds: off during the run.
    gc.collect()
    gc.disable()
    began = time.perf_counter()
    deadline = began + duration
    if rate > 0:
        tasks = []
        for index, request in enumerate(requests):
            start = began + index / rate
            if start >= deadline:
                break
            await asyncio.sleep(max(0.0, start - time.perf_counter()))
            tasks.append(asyncio.create_task(one(request, start)))
        await asyncio.gather(*tasks)
    else:
        queue = iter(requests)

        async def user() -> None:
            for request in queue:
                if time.perf_counter() >= deadline:
                    return
                await one(request, time.perf_counter())

        await asyncio.gather(*(user() for _ in range(concurrency)))
    elapsed = time.perf_counter() - began
    gc.enable()
    while not idle.empty():
        idle.get_nowait()[1].close()
    return latencies, statuses, elapsed


WRK_SCRIPT = Path(__file__).resolve().parent / "wrk_charts.lua"


@dataclass(frozen=True)
class WrkResult:
    """What one wrk run reported (latencies in milliseconds)."""

    requests: int
    elapsed: float
    statuses: dict[str, int]
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float


def run_wrk(url: str, path: str, keys: list[str], concurrency: int, duration: float,
            seed: int, workdir: Path) -> WrkResult:
    """One closed-loop wrk run (one thread, ``concurrency`` connections)."""
    wrk = shutil.which("wrk")
    if wrk is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
    data = workdir / f"wrk-{seed}"
    data.mkdir(exist_ok=True)
    rng = random.Random(seed)
    (data / "keys.txt").write_text("\n".join(keys) + "\n", encoding="ascii")
    bodies = (json.dumps(random_body(path, rng), separators=(",", ":")) for _ in range(20_000))
    (data / "bodies.txt").write_text("\n".join(bodies) + "\n", encoding="utf-8")
    env = {**os.environ, "WRK_DATA": str(data), "WRK_PATH": path}
    seconds = max(1, round(duration))
    done = subprocess.run(
        [wrk, "-t1", f"-c{concurrency}", f"-d{seconds}s", "--timeout", "30s",
         "-s", str(WRK_SCRIPT), url],
        env=env, capture_output=True, text=True, timeout=seconds + 60, check=True,
    )
    line = [x for x in done.stdout.splitlines() if x.startswith("{")][-1]
    raw = json.loads(line)
    statuses: dict[str, int] = {}
    ok = raw["requests"] - raw["errors_status"]
    if ok:
        statuses["2xx"] = ok
    if raw["errors_status"]:
        statuses["non-2xx"] = raw["errors_status"]
    for kind in ("connect", "read", "write", "timeout"):
        if raw[f"errors_{kind}"]:
            statuses[f"socket {kind}"] = raw[f"errors_{kind}"]
    return WrkResult(
        requests=raw["requests"], elapsed=raw["duration_us"] / 1e6, statuses=statuses,
        p50_ms=raw["p50_us"] / 1000, p90_ms=raw["p90_us"] / 1000, p99_ms=raw["p99_us"] / 1000,
        max_ms=raw["max_us"] / 1000,
    )


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def markdown(f: Figures) -> str:
    load = f"{f.rate:g}/s" if f.rate else f"closed, {f.concurrency}"
    return (
        f"| {f.path} | {f.workers if f.workers is not None else 'external'} | "
        f"{load} | {f.requests} | {f.duration_s:.1f} | {f.ok_rps:.0f} | "
        f"{f.p50_ms:.1f} | {f.p90_ms:.1f} | {f.p99_ms:.1f} | {f.max_ms:.1f} | "
        f"{', '.join(f'{k}: {v}' for k, v in sorted(f.statuses.items()))} |"
    )


MARKDOWN_HEADER = (
    "| endpoint | workers | load | requests | seconds | successful req/s | p50 ms | "
    "p90 ms | p99 ms | max ms | statuses |\n|---|---|---|---|---|---|---|---|---|---|---|"
)


def _postgres_database(name: str, *, create: bool) -> str:
    """Create (or drop) the scratch database ``name`` on 127.0.0.1:5432; its URL."""
    import psycopg

    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as admin:
        if create:
            admin.execute(f"CREATE DATABASE {name}")
        else:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    return f"{PG_SERVER}/{name}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running service (loopback only); default: start one")
    parser.add_argument("--database-url",
                        help="with --url: its database (to make keys); without: the database "
                        "of the started service (default: SQLite in a temporary folder)")
    parser.add_argument("--postgres", action="store_true",
                        help="without --url: the started service uses a new PostgreSQL "
                        "database on 127.0.0.1:5432 (user postgres), dropped afterwards")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--path", choices=ENDPOINTS, default=ENDPOINTS[0])
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--requests", type=int, default=50_000, help="upper bound")
    parser.add_argument("--keys", type=int, default=0, help="default: enough for --requests")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds, not counted")
    parser.add_argument("--rate", type=float, default=0.0,
                        help="open loop: requests per second on a fixed schedule "
                        "(default 0: closed loop, as fast as --concurrency allows)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate-limit-url", default="",
                        help="where the started server keeps rate-limit windows "
                        "(default: its database; e.g. redis://127.0.0.1:6379/0)")
    parser.add_argument("--generator", choices=("httpx", "raw", "wrk"), default="httpx",
                        help="load generator (wrk: closed loop only, see the module doc)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.generator == "wrk" and args.rate:
        raise SystemExit("--rate needs --generator httpx or raw (wrk runs a closed loop)")
    generate = run_raw if args.generator == "raw" else run_load

    duration = min(max(args.duration, 1.0), MAX_DURATION)
    keys_needed = args.keys or max(1, -(-args.requests // PER_KEY))
    limit = min(args.requests, keys_needed * PER_KEY)
    workdir = Path(tempfile.mkdtemp(prefix="bodygraph-load-"))
    process = None
    if args.url:
        loopback_only(args.url)
        if not args.database_url:
            raise SystemExit("--database-url is needed with --url (to make the keys)")
        url, database_url, workers = args.url.rstrip("/"), args.database_url, None
    else:
        database_url = args.database_url or f"sqlite:///{workdir / 'load.sqlite3'}"
        url = f"http://127.0.0.1:{free_port()}"
        workers = args.workers
    scratch = None
    ran = False
    books = (False, "books: not checked")
    if args.postgres and not args.url:
        scratch = "bgload_" + secrets.token_hex(5)
        database_url = _postgres_database(scratch, create=True)
    try:
        keys = make_keys(database_url, keys_needed)
        if not args.url:
            process = start_server(database_url, args.workers, int(url.rsplit(":", 1)[1]),
                                   workdir / "server.log", args.rate_limit_url)
        wait_ready(url, process)
        if args.warmup > 0:  # separate keys, so the counted run keeps its quota
            warm_rate = 2000 if args.generator == "wrk" else args.concurrency * 4
            warm_keys = make_keys(database_url, int(warm_rate * args.warmup) // PER_KEY + 1)
            if args.generator == "wrk":
                run_wrk(url, args.path, warm_keys, args.concurrency, args.warmup,
                        args.seed + 1, workdir)
            else:
                asyncio.run(generate(url, args.path, warm_keys, args.concurrency,
                                     args.warmup, len(warm_keys) * PER_KEY, args.seed + 1))
        load_before = os.getloadavg()[0]
        service_before = tree_cpu(process.pid) if process is not None else float("nan")
        database_before = backend_cpu(scratch) if scratch is not None else float("nan")
        if args.generator == "wrk":
            cpu_before = _cpu(resource.RUSAGE_CHILDREN)
            result = run_wrk(url, args.path, keys, args.concurrency, duration, args.seed,
                             workdir)
            generator_cpu = _cpu(resource.RUSAGE_CHILDREN) - cpu_before
        else:
            cpu_before = _cpu(resource.RUSAGE_SELF)
            latencies, statuses, elapsed = asyncio.run(
                generate(url, args.path, keys, args.concurrency, duration, limit, args.seed,
                         args.rate)
            )
            generator_cpu = _cpu(resource.RUSAGE_SELF) - cpu_before
        load_after = os.getloadavg()[0]
        service_cpu = (tree_cpu(process.pid) if process is not None else float("nan")) \
            - service_before
        database_cpu = (backend_cpu(scratch) if scratch is not None else float("nan")) \
            - database_before
        ran = True
    finally:
        if process is not None:
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
        if ran:
            if args.generator == "wrk":
                books = check_books(database_url, keys, result.statuses.get("2xx", 0),
                                    unread=args.concurrency)
            else:
                books = check_books(database_url, keys, statuses.get("200", 0))
        if scratch is not None:
            _postgres_database(scratch, create=False)
        log = workdir / "server.log"
        if log.exists() and "Traceback" in log.read_text(errors="replace"):
            print(f"the server logged errors; its folder is kept: {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    if args.generator == "wrk":
        ok = result.statuses.get("2xx", 0)
        figures = Figures(
            path=args.path, rate=0.0, workers=workers, concurrency=args.concurrency,
            keys=len(keys), duration_s=result.elapsed, requests=result.requests, ok=ok,
            statuses=result.statuses, throughput_rps=result.requests / result.elapsed,
            ok_rps=ok / result.elapsed, p50_ms=result.p50_ms, p90_ms=result.p90_ms,
            p99_ms=result.p99_ms, max_ms=result.max_ms, cpu_count=os.cpu_count(),
            generator="wrk", load_before=load_before, load_after=load_after,
            generator_cpu_s=generator_cpu, service_cpu_s=service_cpu,
            database_cpu_s=database_cpu,
        )
        return _report(figures, args.json, books)
    ok = statuses.get("200", 0)
    ms = [x * 1000 for x in latencies]
    figures = Figures(
        path=args.path, rate=args.rate, workers=workers, concurrency=args.concurrency,
        keys=len(keys),
        duration_s=elapsed, requests=len(latencies), ok=ok, statuses=dict(statuses),
        throughput_rps=len(latencies) / elapsed, ok_rps=ok / elapsed,
        p50_ms=statistics.median(ms) if ms else float("nan"),
        p90_ms=percentile(ms, 0.90), p99_ms=percentile(ms, 0.99),
        max_ms=max(ms) if ms else float("nan"), cpu_count=os.cpu_count(),
        generator=args.generator, load_before=load_before, load_after=load_after,
        generator_cpu_s=generator_cpu, service_cpu_s=service_cpu, database_cpu_s=database_cpu,
    )
    return _report(figures, args.json, books)


def _report(figures: Figures, as_json: bool, books: tuple[bool, str]) -> int:
    exact, books_line = books
    if as_json:
        print(json.dumps({**asdict(figures), "books_exact": exact}, indent=2))
    else:
        print(MARKDOWN_HEADER)
        print(markdown(figures))
        print(f"\ngenerator {figures.generator} used {figures.generator_cpu_s:.1f} CPU s; "
              f"load average {figures.load_before:.2f} before, {figures.load_after:.2f} after")
        per = 1000 / max(figures.requests, 1)
        print(f"CPU per request: service {figures.service_cpu_s * per:.2f} ms, "
              f"PostgreSQL backends {figures.database_cpu_s * per:.2f} ms")
        print(books_line)
    return 0 if figures.ok == figures.requests and exact else 1


if __name__ == "__main__":
    raise SystemExit(main())
