"""The fast engine's compiled code in numba's on-disk cache before any test runs.

Compiling it takes seconds of a core, once per machine and again after any edit of
``bodygraph.ephemeris`` (``bodygraph.ephemeris.fast.jit``). Left to the tests, every pytest
worker would compile it at once, inside a test and its time limit. So
``scripts/test.sh`` runs this file as a script while the static checks run (``python
tests/compiled_engine.py``: compile what the tests use, check that the cache now holds
it, exit 1 saying what failed), and tests/conftest.py calls :func:`ensure_cached` before
the session's tests start, which does the same in a new process where the cache lacks
it (a plain ``pytest`` after an edit).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def compiled_loops() -> list[Callable[..., Any]]:
    """The kernels whose compiled forms the tests call: the engine's loops, and the
    nutation's loop (tests/fast/test_agreement.py)."""
    from bodygraph.ephemeris.fast import engine, frames

    return [*engine.ENTRY_LOOPS, frames._nutations]


def is_cached() -> bool:
    """Whether numba's cache holds them for the current sources (without numba)."""
    from bodygraph.ephemeris.fast import jit

    return jit.is_cached(compiled_loops())


def compile_and_cache() -> None:
    """Compile (or load) everything the tests run compiled, in this process."""
    import numpy as np

    from bodygraph.calculator import warm_up
    from bodygraph.ephemeris.fast.frames import nutation_longitude

    warm_up()  # each loop of the engine, compiled, on the engine's own arrays
    nutation_longitude(np.zeros(2))


def ensure_cached() -> str | None:
    """Compile in a new process when the cache lacks the compiled code (nothing to do
    where numba is not installed). Returns what to tell the user, or None."""
    from bodygraph.ephemeris.fast import jit

    if not jit.can_compile() or is_cached():
        return None
    done = subprocess.run([sys.executable, str(Path(__file__))], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"compiling the fast engine failed:\n{done.stdout}{done.stderr}")
    return "compiled the fast engine into numba's cache before the tests (none for these sources)"


def main() -> int:
    from bodygraph.ephemeris.fast import jit

    if not jit.can_compile():
        print("numba is not installed: the fast engine runs as plain Python, nothing to compile")
        return 0
    compile_and_cache()
    if not is_cached():
        print("error: the fast engine compiled, but numba's cache does not hold it for the "
              "current sources (was src/bodygraph/ephemeris edited meanwhile? is __pycache__ "
              "beside src/bodygraph/ephemeris/fast writable?)")
        return 1
    print("the fast engine is compiled and in numba's cache")
    return 0


if __name__ == "__main__":
    sys.exit(main())
