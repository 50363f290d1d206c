"""DaskChunkRunner on a real ``distributed.LocalCluster`` of two worker processes: chunks
of real charts come back equal to the local computation, also when the worker running a
chunk is killed mid-run (Dask gives the chunk to another worker)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path
from typing import Any

import anyio
import numpy as np
import pytest

import bodygraph
from bodygraph_server.execution.dask_runner import DaskChunkRunner, DaskUnavailableError
from bodygraph_server.execution.runners import ChunkRunner

from .support import dask_cluster

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.timeout(180)]

#: A chunk: the births (datetime64[us] UTC) and, for the dying work, its marker file.
Task = tuple[np.ndarray[Any, Any], str]


def chart_chunk(task: Task) -> list[dict[str, Any]]:
    """A chunk's charts, as the batch output's records (run on a Dask worker)."""
    births, _ = task
    return bodygraph.calculate_many(births).to_records()


def dying_chart_chunk(task: Task) -> list[dict[str, Any]]:
    """The first worker to run this kills its own process mid-chunk; the next computes."""
    births, marker = task
    try:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return chart_chunk(task)
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    bodygraph.calculate_many(births[: len(births) // 2])  # halfway through
    os._exit(9)


def births(count: int, seed: int) -> np.ndarray[Any, Any]:
    low = np.datetime64("1900-01-01T00:00", "us").astype(np.int64)
    high = np.datetime64("2100-01-01T00:00", "us").astype(np.int64)
    rng = np.random.default_rng(seed)
    return rng.integers(low, high, count).astype("datetime64[us]")


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a local cluster's scheduler with two worker processes."""
    with dask_cluster() as cluster:
        yield str(cluster.scheduler_address)


async def test_chunks_on_the_cluster_equal_the_local_computation(scheduler: str) -> None:
    runner: ChunkRunner = DaskChunkRunner(scheduler)
    chunks = [births(300, seed) for seed in range(4)]
    try:
        results: list[list[dict[str, Any]]] = [[] for _ in chunks]

        async def one(i: int) -> None:
            results[i] = await runner.run(chart_chunk, (chunks[i], ""))

        async with anyio.create_task_group() as group:
            for i in range(len(chunks)):
                group.start_soon(one, i)
    finally:
        await runner.aclose()
    for chunk, result in zip(chunks, results, strict=True):
        assert result == bodygraph.calculate_many(chunk).to_records()
    first = results[0][0]
    chart = bodygraph.calculate(chunks[0][0].item().replace(tzinfo=UTC))
    assert (first["profile"], first["type"]) == (chart.profile, chart.type)


async def test_a_worker_killed_mid_chunk_is_retried_elsewhere(
        scheduler: str, tmp_path: Path) -> None:
    marker = tmp_path / "died"
    chunk = births(200, 7)
    runner = DaskChunkRunner(scheduler)
    try:
        result = await runner.run(dying_chart_chunk, (chunk, str(marker)))
    finally:
        await runner.aclose()
    assert marker.exists(), "no worker died: the test tested nothing"
    assert result == bodygraph.calculate_many(chunk).to_records()


async def test_an_unreachable_scheduler_is_a_clear_error() -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    runner = DaskChunkRunner(f"tcp://127.0.0.1:{port}", connect_timeout=0.2)
    with pytest.raises(DaskUnavailableError, match=f"Dask scheduler at tcp://127.0.0.1:{port}"):
        await runner.run(chart_chunk, (births(1, 1), ""))
    await runner.aclose()


def slow_chunk(task: Task) -> int:
    """A chunk that takes a while (to be cancelled)."""
    import time

    time.sleep(2)
    return len(task[0])


def scheduler_tasks(dask_scheduler: Any) -> int:
    return len(dask_scheduler.tasks)


async def test_a_cancelled_run_releases_its_task(scheduler: str) -> None:
    import distributed

    runner = DaskChunkRunner(scheduler)
    try:
        with anyio.move_on_after(0.5) as scope:
            await runner.run(slow_chunk, (births(3, 3), ""))
        assert scope.cancelled_caught
        # While the runner is still connected, the scheduler forgets the chunk.
        async with distributed.Client(scheduler, asynchronous=True,
                                      set_as_default=False) as client:
            with anyio.fail_after(30):
                while await client.run_on_scheduler(scheduler_tasks):
                    await anyio.sleep(0.05)
    finally:
        await runner.aclose()
