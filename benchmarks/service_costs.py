"""The small costs the service's code is shaped by, measured in CPU time (docs/performance.md,
"Costs the service's code is shaped by"): imports a worker or the supervisor avoids, a TLS
context, a chart batch, a calendar month, a hand-off to a thread."""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import numpy as np

IMPORTS = {
    "the app the supervisor does not build (web stack, library, numpy)":
        ("import bodygraph_server.serve", "import bodygraph_server.app"),
    "swagger-ui-py's package imported (jinja2, yaml)": ("pass", "import swagger_ui"),
    "geopy with the service's transport":
        ("import bodygraph_server.geocoding", "import bodygraph_server.geocoding_transport"),
}


def _import_cpu(base: str, statement: str, runs: int = 5) -> float:
    """Median CPU seconds ``statement`` adds to ``base`` in a fresh interpreter."""
    probe = ("import resource, sys\n{}\nu = resource.getrusage(resource.RUSAGE_SELF)\n"
             "print(u.ru_utime + u.ru_stime)")

    def cpu(code: str) -> float:
        done = subprocess.run([sys.executable, "-c", probe.format(code)], check=True,
                              capture_output=True, text=True)
        return float(done.stdout)

    return statistics.median(cpu(f"{base}\n{statement}") - cpu(base) for _ in range(runs))


def _cpu_per_call(call: Callable[[], object], runs: int) -> float:
    call()
    started = time.process_time()
    for _ in range(runs):
        call()
    return (time.process_time() - started) / runs


def _tls_context() -> float:
    import httpx

    return _cpu_per_call(httpx.create_ssl_context, 20)


def _chart_batch(size: int = 32) -> float:
    """A batch as the service's chart batcher computes it (``charting._compute``)."""
    from bodygraph.calculator import warm_up
    from bodygraph_server.charting import _compute

    warm_up()
    start = datetime(1950, 1, 1, tzinfo=UTC)
    rng = np.random.default_rng(1)
    instants = [start + timedelta(seconds=int(s))
                for s in rng.integers(0, 80 * 365 * 86400, size)]
    return _cpu_per_call(lambda: _compute(instants), 20)


def _calendar_month() -> tuple[int, int, int]:
    from bodygraph.calculator import Calculator
    from bodygraph.model.chart import BODIES
    from bodygraph.relations.calendar_blocks import compute_blocks
    from bodygraph_server.calendar_cache import encode

    month = (2024 - 1970) * 12  # January 2024 (months since 1970)
    block = compute_blocks([month], range(len(BODIES)), level="line", node="true",
                           calculator=Calculator())[0]
    columns = sum(column.nbytes for column in (block.at, block.body, block.gate, block.line))
    return len(block.at), columns, len(encode(block))


def _hand_offs(runs: int = 2000) -> tuple[float, float]:
    import anyio.to_thread

    async def measure() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        pool = ThreadPoolExecutor(8)
        for _ in range(100):
            await loop.run_in_executor(pool, int)
            await anyio.to_thread.run_sync(int)
        started = time.process_time()
        for _ in range(runs):
            await loop.run_in_executor(pool, int)
        executor = (time.process_time() - started) / runs
        started = time.process_time()
        for _ in range(runs):
            await anyio.to_thread.run_sync(int)
        pool.shutdown()
        return executor, (time.process_time() - started) / runs

    return asyncio.run(measure())


def main() -> None:
    for what, (base, statement) in IMPORTS.items():
        print(f"{what}: {_import_cpu(base, statement) * 1000:.0f} ms of CPU")
    print(f"httpx's default TLS context: {_tls_context() * 1000:.1f} ms of CPU")
    print(f"calculate_many of 32 charts (compiled engine): {_chart_batch() * 1000:.1f} ms "
          "of CPU")
    count, columns, stored = _calendar_month()
    print(f"a month of every body's line ingresses (January 2024): {count} ingresses, "
          f"{columns / 1000:.1f} kB of columns, {stored / 1000:.1f} kB stored")
    executor, anyio_run = _hand_offs()
    print(f"a hand-off to a thread, one at a time: ThreadPoolExecutor {executor * 1e6:.0f} us, "
          f"anyio.to_thread.run_sync {anyio_run * 1e6:.0f} us of CPU")


if __name__ == "__main__":
    main()
