"""The fast engine's two forms give the same numbers bit for bit: its loops run as plain
Python (one chart in a new process, no numba) and compiled (batches), over the same code
and the same coefficients (mapped from the file, or packed in memory)."""

from __future__ import annotations

import inspect
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bodygraph._time import TT
from bodygraph.ephemeris.fast.chebyshev import MappedRecords
from bodygraph.ephemeris.fast.engine import FastEngine
from bodygraph.ephemeris.kernel import shipped_kernel
from bodygraph.errors import InvalidOptionError
from bodygraph.model.chart import NodeKind

from .helpers import random_tt

#: TT Julian dates well inside the shipped kernel (the design lies 93 days before birth).
_FIRST, _LAST = 2378496.5 + 100.0, 2524593.5 - 5.0


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[FastEngine, FastEngine]]:
    kernel = shipped_kernel()
    yield FastEngine(kernel, mode="plain"), FastEngine(kernel, mode="compiled")


def _same_epochs(plain: FastEngine, fast: FastEngine, tt: TT, node: NodeKind) -> None:
    b1, d1, r1 = plain.epochs(tt, node)
    b2, d2, r2 = fast.epochs(tt, node)
    assert np.array_equal(b1, b2)
    assert np.array_equal(d1.whole, d2.whole)
    assert np.array_equal(d1.fraction, d2.fraction)
    assert np.array_equal(r1, r2)


@settings(max_examples=25, deadline=None)
@given(days=st.lists(st.floats(_FIRST, _LAST), min_size=1, max_size=4),
       node=st.sampled_from(["true", "mean"]))
def test_plain_and_compiled_epochs_are_identical(
    pair: tuple[FastEngine, FastEngine], days: list[float], node: NodeKind,
) -> None:
    jd = np.array(days)
    whole = np.floor(jd)
    _same_epochs(*pair, TT(whole, jd - whole), node)


@pytest.mark.parametrize("node", ["true", "mean"])
def test_plain_and_compiled_agree_on_random_instants(
    pair: tuple[FastEngine, FastEngine], node: NodeKind,
) -> None:
    _same_epochs(*pair, random_tt(150, seed=41 if node == "true" else 42), node)


def test_every_loop_agrees(pair: tuple[FastEngine, FastEngine]) -> None:
    plain, fast = pair
    tt = random_tt(40, seed=43)
    assert np.array_equal(plain.apparent(tt), fast.apparent(tt))
    sun = plain.sun_longitude(tt)
    assert np.array_equal(sun, fast.sun_longitude(tt))
    assert np.array_equal(plain.mean_node_longitude(tt), fast.mean_node_longitude(tt))
    assert np.array_equal(plain.true_node_longitude(tt), fast.true_node_longitude(tt))
    assert np.array_equal(plain.solve_design(tt, sun).fraction,
                          fast.solve_design(tt, sun).fraction)


def test_mapped_records_are_the_packed_ones(pair: tuple[FastEngine, FastEngine]) -> None:
    _, fast = pair
    mapped = MappedRecords(fast._kept)
    packed = fast.coefficients
    counts = fast.segments[:, 4].astype(int)
    firsts = fast.segments[:, 3].astype(int)
    for segment, (first, count) in enumerate(zip(firsts, counts, strict=True)):
        last = first + int(fast.segments[segment, 2]) - 1
        for row in (first, first + 1, last):
            assert np.array_equal(mapped[row], packed[row, :, :count])
    assert not packed[:, :, counts.max():].any()


@pytest.fixture(scope="module")
def new_process() -> list[str]:
    """What a new process prints: whether ``import bodygraph`` loaded Skyfield, then one
    chart's Sun gate and whether computing it loaded numba (one process for the two
    tests below: a Python start and ``import bodygraph`` each)."""
    code = ("import sys, datetime as d, bodygraph\n"
            "print('skyfield' in sys.modules)\n"
            "c = bodygraph.calculate(d.datetime(1980, 1, 3, 8, 30, tzinfo=d.UTC))\n"
            "print(c.personality.sun.gate, 'numba' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return done.stdout.splitlines()


def test_import_does_not_load_skyfield(new_process: list[str]) -> None:
    assert new_process[0] == "False"


def test_one_chart_in_a_new_process_needs_no_numba(new_process: list[str]) -> None:
    assert new_process[1].split() == ["38", "False"]


def test_auto_mode_switches_to_compiled_for_large_calls(
    pair: tuple[FastEngine, FastEngine],
) -> None:
    auto = FastEngine(shipped_kernel())
    tt = random_tt(40, seed=44)  # more than PLAIN_CALL instants: compiled
    _, fast = pair
    assert np.array_equal(auto.longitudes(tt, "true"), fast.longitudes(tt, "true"))
    with pytest.raises(InvalidOptionError, match="mode must be"):
        FastEngine(shipped_kernel(), mode="quick")  # type: ignore[arg-type]


def test_the_compiled_cache_is_named_after_every_kernel_source(
    pair: tuple[FastEngine, FastEngine], tmp_path: Path
) -> None:
    """numba checks a cached function against its own file only: the twins' cache names
    carry a digest of every kernel module, so an edit anywhere compiles them again."""
    from bodygraph.ephemeris.fast import jit, loops

    twin = jit.compiled(loops.positions)
    sources = jit.kernel_sources()
    import bodygraph.ephemeris.design as defines_the_solar_arc
    import bodygraph.ephemeris.engine as defines_the_mean_node

    assert Path(inspect.getfile(loops.positions)) in sources
    assert Path(inspect.getfile(defines_the_mean_node)) in sources  # a kernel outside
    assert Path(inspect.getfile(defines_the_solar_arc)) in sources  # a constant read
    digest = jit.sources_digest(sources)
    assert twin.py_func.__qualname__ == f"positions_{digest}"
    cached = Path(twin._cache._cache_path)  # where numba put (or found) this twin
    assert list(cached.glob(f"loops.positions_{digest}-*.nbi"))
    # The digest follows any file's bytes or name, and nothing else.
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    files = [tmp_path / "a.py", tmp_path / "b.py"]
    before = jit.sources_digest(files)
    assert jit.sources_digest(files) == before
    (tmp_path / "b.py").write_text("y = 3\n")
    edited = jit.sources_digest(files)
    (tmp_path / "b.py").rename(tmp_path / "c.py")
    renamed = jit.sources_digest([tmp_path / "a.py", tmp_path / "c.py"])
    assert len({before, edited, renamed}) == 3

