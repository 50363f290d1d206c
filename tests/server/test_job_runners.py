"""The local chunk runner (``execution/runners.py``): work runs in its spawned processes at
a lower priority than the service's, and a process that dies breaks only the chunk it
held: the next chunk gets a new process."""

from __future__ import annotations

import os
from concurrent.futures.process import BrokenProcessPool

import pytest

from bodygraph_server.execution.runners import JOB_NICENESS, LocalRunner, runner_for

pytestmark = pytest.mark.anyio


async def test_a_local_runner_outlives_a_dead_process() -> None:
    runner = runner_for(processes=1)
    assert isinstance(runner, LocalRunner)
    try:
        assert await runner.run(abs, -3) == 3
        assert await runner.run(os.nice, 0) == min(os.nice(0) + JOB_NICENESS, 19)
        with pytest.raises(BrokenProcessPool):
            await runner.run(os._exit, 1)
        assert await runner.run(abs, -4) == 4
    finally:
        await runner.aclose()


async def test_the_dask_scheduler_setting_chooses_the_dask_runner() -> None:
    from bodygraph_server.execution.dask_runner import DaskChunkRunner

    runner = runner_for(dask_scheduler=" tcp://10.0.0.5:8786 ", processes=3)
    assert isinstance(runner, DaskChunkRunner) and runner.address == "tcp://10.0.0.5:8786"
    await runner.aclose()  # never connected: nothing to close
    assert isinstance(runner_for(dask_scheduler="  ", processes=2), LocalRunner)
