"""The generic batcher behind the chart batches and the group commit."""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import pytest

from bodygraph_server.batching import Batcher


class Doubler(Batcher[int, int]):
    """Doubles its items; odd items fail alone, a batch holding 13 fails as a whole."""

    def __init__(self, max_batch: int = 8) -> None:
        super().__init__(max_batch)
        self.batches: list[list[int]] = []
        self.started = anyio.Event()
        self.release = anyio.Event()

    async def gather(self) -> None:
        await anyio.sleep(0)  # let the callers started with the leader join its batch

    async def process(self, items: Sequence[int]) -> list[int | BaseException]:
        self.batches.append(list(items))
        self.started.set()
        await self.release.wait()
        if 13 in items:
            raise RuntimeError("batch failed")
        return [ValueError(item) if item % 2 else 2 * item for item in items]


@pytest.mark.anyio
async def test_callers_share_batches_and_get_their_own_outcome() -> None:
    batcher = Doubler()
    results: dict[int, object] = {}

    async def call(item: int) -> None:
        try:
            results[item] = await batcher.submit(item)
        except (ValueError, RuntimeError) as exc:
            results[item] = exc

    async with anyio.create_task_group() as group:
        group.start_soon(call, 2)
        await batcher.started.wait()  # the first batch is in flight: the others queue
        for item in (4, 5, 13):
            group.start_soon(call, item)
        await anyio.wait_all_tasks_blocked()
        batcher.release.set()
    assert batcher.batches == [[2], [4, 5, 13]]
    assert results[2] == 4
    failed = results[4]
    assert isinstance(failed, RuntimeError) and results[5] is failed and results[13] is failed


@pytest.mark.anyio
async def test_a_cancelled_leader_leaves_the_others_to_the_next_batch() -> None:
    batcher = Doubler()
    results: dict[int, int] = {}
    leader = anyio.CancelScope()

    async def lead() -> None:
        with leader:
            await batcher.submit(2)

    async def call(item: int) -> None:
        results[item] = await batcher.submit(item)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(lead)
            group.start_soon(call, 6)
            await batcher.started.wait()  # the leader's batch [2, 6] is in process
            leader.cancel()  # the leader gives up in the middle of its batch
            await anyio.wait_all_tasks_blocked()
            batcher.release.set()
    assert results == {6: 12}  # the other caller led the next batch itself
    assert batcher.batches == [[2, 6], [6]] and batcher.queued() == 0
