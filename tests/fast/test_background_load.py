"""A process that computes charts one at a time runs the plain-Python kernels first; after
``LOAD_AFTER`` instants a thread loads the compiled code from numba's cache (or compiles
it) while the calls go on in plain Python, and the calls switch to it once it is ready:
the same numbers before and after."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator

import numpy as np
import pytest

from bodygraph._time import TT
from bodygraph.ephemeris.fast import loops
from bodygraph.ephemeris.fast.background import BackgroundLoad
from bodygraph.ephemeris.fast.engine import LOAD_AFTER, FastEngine
from bodygraph.ephemeris.fast.jit import compiled
from bodygraph.ephemeris.kernel import shipped_kernel

#: TT Julian dates well inside the shipped kernel (the design lies 93 days before birth).
_FIRST, _LAST = 2378496.5 + 100.0, 2524593.5 - 5.0


def births(count: int, seed: int) -> list[TT]:
    """``count`` single-instant TTs: one chart each, as a loop over ``calculate`` asks."""
    jd = np.random.default_rng(seed).uniform(_FIRST, _LAST, count)
    return [TT(np.array([np.floor(x)]), np.array([x - np.floor(x)])) for x in jd]


def one_at_a_time(engine: FastEngine, instants: list[TT]) -> list[np.ndarray]:
    """Birth and design longitudes and the design instant of each chart, in one array."""
    rows = []
    for tt in instants:
        birth, design, at_design = engine.epochs(tt, "true")
        rows.append(np.concatenate([birth[:, 0], at_design[:, 0], design.fraction]))
    return rows


@pytest.fixture(scope="module")
def plain() -> FastEngine:
    return FastEngine(shipped_kernel(), mode="plain")


def test_single_charts_switch_to_the_compiled_code_with_the_same_numbers(
    plain: FastEngine,
) -> None:
    engine = FastEngine(shipped_kernel())
    before = births(LOAD_AFTER, seed=61)
    first = one_at_a_time(engine, before[:LOAD_AFTER - 1])
    assert not engine._background.started  # fewer than LOAD_AFTER: no load
    assert not engine.serves_compiled()
    first += one_at_a_time(engine, before[LOAD_AFTER - 1:])
    assert engine._background.started
    assert engine.wait_for_compiled()  # no time limit here but the test's own
    run, _, _ = engine._loop(loops.epochs, 1)
    assert run is compiled(loops.epochs)
    after = births(40, seed=62)
    second = one_at_a_time(engine, after)
    for ours, theirs in zip(first + second, one_at_a_time(plain, before + after), strict=True):
        assert np.array_equal(ours, theirs)


def test_a_large_call_runs_compiled_and_the_small_ones_follow() -> None:
    engine = FastEngine(shipped_kernel())
    assert not engine.serves_compiled()
    many = births(40, seed=64)
    engine.epochs(TT(np.concatenate([t.whole for t in many]),
                     np.concatenate([t.fraction for t in many])), "true")
    assert engine.serves_compiled()
    assert engine._loop(loops.epochs, 1)[0] is compiled(loops.epochs)
    assert not engine._background.started


def test_warm_up_leaves_no_loading_thread_behind() -> None:
    """A batch forks its workers only from a process with one thread."""
    engine = FastEngine(shipped_kernel())
    one_at_a_time(engine, births(LOAD_AFTER, seed=66))
    assert engine._background.started
    engine.prepare()
    assert engine._background.wait(timeout=0)  # its thread has already ended
    assert engine.serves_compiled()


def test_the_plain_mode_never_loads(plain: FastEngine) -> None:
    one_at_a_time(plain, births(LOAD_AFTER + 1, seed=65))
    assert not plain._background.started
    assert not plain.serves_compiled()


def test_a_failed_step_is_raised_once_in_the_caller() -> None:
    def steps() -> Iterator[None]:
        yield
        raise ValueError("broken")

    load = BackgroundLoad(steps, "test-load")
    load.start()
    assert load.wait()
    with pytest.raises(ValueError, match="broken"):
        load.raise_failure()
    load.raise_failure()  # once


def test_a_cancelled_load_ends_after_its_current_step() -> None:
    in_step, release = threading.Event(), threading.Event()
    done: list[int] = []

    def steps() -> Iterator[None]:
        for step in range(3):
            in_step.set()
            release.wait()
            done.append(step)
            yield

    load = BackgroundLoad(steps, "test-load")
    load.start()
    load.start()  # once
    in_step.wait()
    load.cancel()
    release.set()
    load.stop()  # waits for the thread
    assert load.wait()
    assert done == [0]
    load.raise_failure()  # stopping is no failure


def test_a_process_that_ends_while_loading_exits_cleanly() -> None:
    """The exit waits for the step under way (numba's import, or one loop), then ends."""
    code = ("import datetime as d, bodygraph\n"
            "from bodygraph.calculator import default_calculator\n"
            "from bodygraph.ephemeris.fast.engine import LOAD_AFTER\n"
            "start = d.datetime(1900, 1, 1, tzinfo=d.UTC)\n"
            "for day in range(LOAD_AFTER):\n"
            "    bodygraph.calculate(start + d.timedelta(days=97 * day))\n"
            "print(default_calculator(None).engine._background.started)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "True\n", "")
